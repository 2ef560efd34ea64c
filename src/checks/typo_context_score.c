/* typo_context_score.c — typo.context's scores: the unigram segmentation
 * of a run (jieba's DAG) and the window of a candidate scored with
 * sunpinyin's word trigram model, or without it by the best unigram path;
 * and the run's scratch these work in. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "typo_lm.h"
#include "util.h"
#include "typo_context_spot.h"

/* Best unigram log-probability of s[0..n) (jieba's DAG, right to left);
 * single[i] is set when the best path leaves character i alone. */
double ctx_segment(const ctx_cfg *c, const int32_t *s, int n, double *best, int *step,
                      unsigned char *single)
{
	best[n] = 0;
	for (int i = n - 1; i >= 0; i--) {
		double l1;
		if (s[i] >= CJK_LO && s[i] <= CJK_HI) {
			l1 = c->single_logp[s[i] - CJK_LO];
		} else {
			uint32_t f1 = dict_freq(c, s + i, 1);
			l1 = log(f1 ? f1 : 1) - c->log_total;
		}
		best[i] = l1 + best[i + 1];
		step[i] = 1;
		if (i + 1 >= n || !prefix_maybe(c, s[i], s[i + 1]))
			continue; /* most pairs start no word */
		for (int L = 2; L <= MAX_WORD && i + L <= n; L++) {
			if (L == 3 && !prefix3_maybe(c, s[i], s[i + 1], s[i + 2]))
				break; /* no longer word starts here */
			const dict_slot *d = dict_find(c, s + i, L, jh_hash_cps(s + i, L));
			double lf = d->h ? log(d->freq) - c->log_total : 0;
			if (d->h && d->freq && lf + best[i + L] > best[i]) {
				best[i] = lf + best[i + L];
				step[i] = L;
			}
		}
	}
	if (single && n > 0) {
		memset(single, 0, (size_t)n);
		for (int i = 0; i < n; i += step[i])
			single[i] = step[i] == 1;
	}
	return best[0];
}

/* *p resized to bytes; on failure *p stays as it was (the old cap holds). */
static int resize(void **p, size_t bytes)
{
	void *q = realloc(*p, bytes);
	if (!q)
		return 1;
	*p = q;
	return 0;
}

int ctx_scratch_fit(scratch *s, size_t n)
{
	if (n + 1 <= s->cap)
		return JH_OK;
	size_t cap = (n + 1) * 2;
	/* pos, best and step hold one more: a boundary after the last character */
	if (resize((void **)&s->cp, cap * sizeof *s->cp) || resize((void **)&s->simp, cap * sizeof *s->simp) ||
	    resize((void **)&s->pos, (cap + 1) * sizeof *s->pos) ||
	    resize((void **)&s->best, (cap + 1) * sizeof *s->best) ||
	    resize((void **)&s->step, (cap + 1) * sizeof *s->step) ||
	    resize((void **)&s->single, cap * sizeof *s->single) ||
	    resize((void **)&s->opt, cap * sizeof *s->opt) || resize((void **)&s->jopt, cap * sizeof *s->jopt))
		return JH_ERR_NOMEM;
	s->cap = cap;
	return JH_OK;
}

void ctx_scratch_free(scratch *s)
{
	free(s->cp);
	free(s->simp);
	free(s->pos);
	free(s->best);
	free(s->step);
	free(s->single);
	free(s->opt);
	free(s->jopt);
	free(s->tri);
	free(s->memo);
	ctx_pc_free(&s->pairs);
}

scratch *ctx_scratch_take(ctx_cfg *c)
{
	scratch *s = NULL;
	pthread_mutex_lock(&c->pool_lock);
	if (c->n_pool)
		s = c->pool[--c->n_pool];
	pthread_mutex_unlock(&c->pool_lock);
	if (s)
		return s;
	s = calloc(1, sizeof *s);
	/* the model's answers are the same in every document: the cache
	 * answers with the float it keeps, so no score depends on what it
	 * holds, and it is kept from document to document */
	if (s && c->lm && !(s->tri = calloc(TRI_SLOTS, sizeof *s->tri))) {
		free(s);
		return NULL;
	}
	return s;
}

void ctx_scratch_give(ctx_cfg *c, scratch *s)
{
	ctx_pc_free(&s->pairs); /* the document's own */
	s->pairs = (pair_count){0};
	pthread_mutex_lock(&c->pool_lock);
	if (c->n_pool < CTX_POOL) {
		c->pool[c->n_pool++] = s;
		s = NULL;
	}
	pthread_mutex_unlock(&c->pool_lock);
	if (s) {
		ctx_scratch_free(s);
		free(s);
	}
}

void ctx_pool_free(ctx_cfg *c)
{
	for (int k = 0; k < c->n_pool; k++) {
		ctx_scratch_free(c->pool[k]);
		free(c->pool[k]);
	}
	c->n_pool = 0;
}

/* The characters [a, b) of the run with [i, i+k) replaced by x. */
static int window_of(const scratch *s, int n, int i, int k, const int32_t *x, int32_t *w)
{
	int a = i - WINDOW < 0 ? 0 : i - WINDOW, b = i + k + WINDOW > n ? n : i + k + WINDOW;
	for (int j = a; j < b; j++)
		w[j - a] = j >= i && j < i + k ? x[j - i] : s->simp[j];
	return b - a;
}

/* Without the model: the window's best unigram path. */
double ctx_uni_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x)
{
	int32_t w[2 * WINDOW + 4];
	double best[2 * WINDOW + 5];
	int step[2 * WINDOW + 5];
	int m = window_of(s, n, i, k, x, w);
	return ctx_segment(c, w, m, best, step, NULL);
}

/* ---- the word trigram model ---- */

static double lm_next(const ctx_cfg *c, scratch *s, jh_lm_state st, uint32_t wid,
                      jh_lm_state *next)
{
	uint64_t key = (uint64_t)st << 32 | ((uint64_t)wid + 1);
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	struct tri_slot *t = s->tri ? &s->tri[(h >> 40) & (TRI_SLOTS - 1)] : NULL;
	if (t && t->key == key) {
		*next = t->next;
		return t->logp;
	}
	/* rounded as the slot keeps it: a score must not depend on what the
	 * cache happens to hold (spots are memoised) */
	float lp = (float)jh_lm_next(c->lm, st, wid, next);
	if (t)
		*t = (struct tri_slot){key, lp, *next};
	return lp;
}

/* The model's id of w[0..n): single characters from a table, longer words
 * only when their first two characters start a word of the lexicon. */
static uint32_t lm_word(const ctx_cfg *c, const int32_t *w, int n)
{
	if (n == 1)
		return w[0] >= CJK_LO && w[0] <= CJK_HI ? c->lm_single[w[0] - CJK_LO]
		                                        : jh_lm_word(c->lm, w, 1);
	if (!bloom_maybe(c->lm_bloom, w[0], w[1]))
		return 0;
	return jh_lm_word(c->lm, w, n);
}

/* Log-probability of w[0..n) under the trigram model, cut into words of
 * the model's lexicon by the best unigram path.  With base (the spot's
 * original window, same length, w differing from it only in [lo, hi)), the
 * spans outside [lo, hi) take their ids from base and the paths from hi on
 * are base's: the same sums in the same order, so the same score.  With
 * keep, the window is the original one and is kept as the base. */
static double lm_score_at(const ctx_cfg *c, scratch *s, const int32_t *w, int n, int lo, int hi,
                          int base, int keep)
{
	double best[2 * WINDOW + 5];
	uint32_t id[2 * WINDOW + 5];
	int step[2 * WINDOW + 5];
	int from = n - 1;
	best[n] = 0;
	if (base >= 0) {
		for (int i = hi; i <= n; i++) {
			best[i] = s->base_best[base][i];
			id[i] = s->base_word[base][i];
			step[i] = s->base_step[base][i];
		}
		from = hi - 1;
	}
	for (int i = from; i >= 0; i--) {
		for (int L = 1; L <= LM_SEG; L++) {
			uint32_t x;
			if (i + L > n)
				x = 0;
			else if (base >= 0 && (i + L <= lo || i >= hi))
				x = s->base_id[base][i][L - 1];
			else
				x = lm_word(c, w + i, L);
			if (keep >= 0)
				s->base_id[keep][i][L - 1] = x;
			if (L == 1) {
				id[i] = x;
				step[i] = 1;
				best[i] = jh_lm_unigram(c->lm, x) + best[i + 1];
			} else if (i + L <= n && x && jh_lm_unigram(c->lm, x) + best[i + L] > best[i]) {
				best[i] = jh_lm_unigram(c->lm, x) + best[i + L];
				id[i] = x, step[i] = L;
			}
		}
	}
	if (keep >= 0) {
		memcpy(s->base_best[keep], best, (size_t)(n + 1) * sizeof *best);
		memcpy(s->base_word[keep], id, (size_t)(n + 1) * sizeof *id);
		memcpy(s->base_step[keep], step, (size_t)(n + 1) * sizeof *step);
		s->base_ok[keep] = 1;
	}
	double total = 0;
	jh_lm_state st = 0;
	for (int i = 0; i < n; i += step[i])
		total += lm_next(c, s, st, id[i], &st);
	return total;
}

double ctx_lm_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x)
{
	int32_t w[2 * WINDOW + 4];
	int m = window_of(s, n, i, k, x, w);
	int a = i - WINDOW < 0 ? 0 : i - WINDOW;
	if (x == s->simp + i)
		return lm_score_at(c, s, w, m, 0, m, -1, k - 1);
	return lm_score_at(c, s, w, m, i - a, i - a + k, s->base_ok[k - 1] ? k - 1 : -1, -1);
}

