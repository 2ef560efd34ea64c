/* typo_context.c — slips of the input method found from their context
 * (typo.context, opt-in): 炮單 for 炮彈, 安权 for 安全, 嚇的趕緊 for
 * 嚇得趕緊.
 *
 * Each run of Han characters is a sentence to rescore.  A spot is a
 * character that jieba's segmentation leaves alone and that makes no word
 * with a neighbour (slips out of one real word into another won as often
 * wrongly as rightly on the SIGHAN training sets, and cost the most).  Its
 * candidates are the characters an input method or a reader confuses with
 * it (data/typo-similar.tsv, from Unihan): the same syllable under any of
 * its modern readings, a similar syllable (zh/z, n/l, -n/-ng, f/h: the
 * usual slips of speakers and learners), and, for shape, a character whose
 * Cangjie code differs by one letter.  Only a candidate that makes a
 * frequent two-character word with a neighbour is tried (that keeps the
 * candidates few and the suggestions words), except inside the small
 * groups of function characters that are confused whatever their
 * neighbours (的地得, 在再: the `groups` parameter).  With pair-margin set,
 * a two-character word may also be replaced by another word of the same
 * syllables, 上网 for 伤亡.
 *
 * Each candidate is scored with sunpinyin's word trigram model (typo_lm.c;
 * Debian sunpinyin-data, read at run time) on a window of four characters
 * either side, and the best one wins when it raises the log-probability by
 * the margin of its kind: a homophone needs less proof than a similar
 * syllable or a look-alike, and a change of a function character more.
 * The spots' best candidates are then decided together for the sentence
 * (typo_context_decode.c), so that slips close together are fixed
 * together.  Without the model jieba's unigram scores are used.
 *
 * Guards: a pair that the document writes more than once is meant (a name,
 * a term), and so is a rare character (濑名); a candidate that takes a
 * neighbour away from a recurring pair the dictionary does not know (牛岛)
 * is not made; dialogue in quotation marks is skipped; outside simplified
 * text a traditional form or variant of the candidate (反覆 for 反复, 著
 * for 着) is a spelling, not a slip.
 *
 * The dictionary is jieba's dict.txt, read at run time from where Debian
 * installs it (the `dict` parameter), the first time the rule runs: a rule
 * set that does not select the rule never reads it.  Traditional text is
 * looked up through a one-to-one traditional→simplified map and written
 * back in the usual traditional form (data/typo-s2t.tsv, from OpenCC). */
#define _GNU_SOURCE 1 /* memmem */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "findings.h"
#include "typo.h"
#include "typo_lm.h"
#include "utf8.h"
#include "util.h"
#include "typo_context.h"

/* ---- scoring ---- */

static inline int32_t simp_of(const ctx_cfg *c, int32_t cp)
{
	const char_info *in = info_of(c, cp);
	return in && in->simp ? in->simp : cp;
}

/* Best unigram log-probability of s[0..n) (jieba's DAG, right to left);
 * single[i] is set when the best path leaves character i alone. */
static double segment(const ctx_cfg *c, const int32_t *s, int n, double *best, int *step,
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

/* How often each pair of adjacent Han characters occurs in the document
 * (at most 3), counted in one pass the first time a guard asks: asking
 * memmem over the whole document for every winner made a big document
 * quadratic (9 MB of manual pages: most of the rule's time). */
typedef struct {
	uint64_t *key; /* a << 32 | b, 0 = empty */
	uint8_t *n;
	size_t cap, used;
	int built;
} pair_count;

static size_t pc_at(const pair_count *t, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h ^ h >> 29) & (t->cap - 1);
	while (t->key[i] && t->key[i] != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int pc_grow(pair_count *t)
{
	pair_count g = {calloc(t->cap * 2, sizeof *g.key), calloc(t->cap * 2, 1), t->cap * 2, t->used, 0};
	if (!g.key || !g.n) {
		free(g.key);
		free(g.n);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->key[i]) {
			size_t j = pc_at(&g, t->key[i]);
			g.key[j] = t->key[i], g.n[j] = t->n[i];
		}
	free(t->key);
	free(t->n);
	*t = g;
	return JH_OK;
}

static int pc_build(pair_count *t, const char *text, size_t len)
{
	t->cap = 4096;
	t->key = calloc(t->cap, sizeof *t->key);
	t->n = calloc(t->cap, 1);
	if (!t->key || !t->n)
		return JH_ERR_NOMEM;
	int32_t prev = 0;
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		int32_t cp = -1;
		size_t k;
		if (u[i] < 0x80) { /* ASCII: no Han, and most of some texts */
			prev = 0;
			i++;
			continue;
		}
		if (u[i] >= 0xE4 && u[i] <= 0xE9 && i + 2 < len && (u[i + 1] & 0xC0) == 0x80 &&
		    (u[i + 2] & 0xC0) == 0x80) /* U+4000..U+9FFF, the basic block's bytes */
			cp = (u[i] & 0x0F) << 12 | (u[i + 1] & 0x3F) << 6 | (u[i + 2] & 0x3F), k = 3;
		else
			k = jh_utf8_decode(u + i, len - i, &cp);
		int han = cp >= CJK_LO && cp <= CJK_HI ? 1 : cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		if (han && prev) {
			if (t->used * 2 >= t->cap && pc_grow(t))
				return JH_ERR_NOMEM;
			uint64_t key = (uint64_t)(uint32_t)prev << 32 | (uint32_t)cp;
			size_t j = pc_at(t, key);
			t->used += !t->key[j];
			t->key[j] = key;
			t->n[j] += t->n[j] < 3;
		}
		prev = han ? cp : 0;
		i += k ? k : 1;
	}
	t->built = 1;
	return JH_OK;
}

static void pc_free(pair_count *t)
{
	free(t->key);
	free(t->n);
}

/* Does the pair a b occur in the document at least times (≤ 3) times?
 * Without memory for the table: yes (the guard then keeps quiet). */
static int occurs(pair_count *t, const char *text, size_t len, int32_t a, int32_t b, int times)
{
	if (!t->built && pc_build(t, text, len)) {
		pc_free(t);
		*t = (pair_count){0};
		return 1;
	}
	size_t j = pc_at(t, (uint64_t)(uint32_t)a << 32 | (uint32_t)b);
	return t->key[j] && t->n[j] >= times;
}

#define MAX_CAND 192

typedef struct {
	int32_t x[2];
	int k;            /* characters replaced: 1 or 2 */
	int kind;
	double gain, need;
} cand;

/* A trigram answer kept: each candidate is scored on a window that shares
 * most of its words with the original's, so the same (history, word)
 * pairs come back again and again, and the model's lookups are binary
 * searches in 60 MB. */
struct tri_slot {
	uint64_t key; /* history << 32 | word + 1; 0 = empty */
	float logp;
	uint32_t next;
};
#define TRI_SLOTS ((size_t)1 << 15)

typedef struct {
	int32_t *cp, *simp;
	size_t *pos;
	double *best;
	int *step;
	unsigned char *single;
	size_t cap;
	cand *opt;            /* the spots' options, in order */
	jd_opt *jopt;
	struct tri_slot *tri; /* the model's answers, TRI_SLOTS of them */
	pair_count pairs;     /* the document's pairs, for the guards */
	struct spot_memo *memo; /* spots decided in this document */
	size_t memo_cap;
	/* The spot's original window (k = 1, 2 characters replaced): the
	 * model's ids of its spans and its best unigram paths, so that a
	 * candidate only looks up the spans that hold it and recomputes the
	 * paths left of it.  base_ok[k - 1] is cleared at each spot. */
	int base_ok[2];
	uint32_t base_id[2][2 * WINDOW + 4][LM_SEG];
	double base_best[2][2 * WINDOW + 5];
	int base_step[2][2 * WINDOW + 5];
	uint32_t base_word[2][2 * WINDOW + 5];
} scratch;

/* *p resized to bytes; on failure *p stays as it was (the old cap holds). */
static int resize(void **p, size_t bytes)
{
	void *q = realloc(*p, bytes);
	if (!q)
		return 1;
	*p = q;
	return 0;
}

static int scratch_fit(scratch *s, size_t n)
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

static void scratch_free(scratch *s)
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
	pc_free(&s->pairs);
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
static double uni_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x)
{
	int32_t w[2 * WINDOW + 4];
	double best[2 * WINDOW + 5];
	int step[2 * WINDOW + 5];
	int m = window_of(s, n, i, k, x, w);
	return segment(c, w, m, best, step, NULL);
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

static double lm_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x)
{
	int32_t w[2 * WINDOW + 4];
	int m = window_of(s, n, i, k, x, w);
	int a = i - WINDOW < 0 ? 0 : i - WINDOW;
	if (x == s->simp + i)
		return lm_score_at(c, s, w, m, 0, m, -1, k - 1);
	return lm_score_at(c, s, w, m, i - a, i - a + k, s->base_ok[k - 1] ? k - 1 : -1, -1);
}

/* ---- candidates ---- */

/* A spot: the run, where, what is there, and what has been tried. */
typedef struct {
	const ctx_cfg *c;
	scratch *s;
	int n, i, script; /* script: 1 traditional, -1 simplified, 0 not known */
	int word;         /* the character is part of a word already */
	double (*score)(const ctx_cfg *, scratch *, int, int, int, const int32_t *);
	double base[2];   /* the original window's score for k = 1, 2 (NAN: not yet) */
	cand v[MAX_CAND];
	int nv;
	int32_t later[GROUP_LEN]; /* group candidates the 的 gate put off */
	int n_later;
} spot;

static int shares_reading(const ctx_cfg *c, int32_t a, int32_t b, int classes)
{
	const char_info *x = info_of(c, a), *y = info_of(c, b);
	for (int j = 0; x && y && j < MAX_READ && x->syl[j]; j++)
		for (int k = 0; k < MAX_READ && y->syl[k]; k++)
			if (classes ? c->near[x->syl[j] - 1] == c->near[y->syl[k] - 1]
			            : x->syl[j] == y->syl[k])
				return 1;
	return 0;
}

static int kind_of(const ctx_cfg *c, int32_t from, int32_t to)
{
	const char_info *f = info_of(c, from), *t = info_of(c, to);
	if (f && t && f->group && f->group == t->group)
		return K_GROUP;
	if (from == to || shares_reading(c, from, to, 0))
		return K_SAME;
	return shares_reading(c, from, to, 1) ? K_NEAR : K_SHAPE;
}

static int is_stop(const ctx_cfg *c, int32_t cp)
{
	const char_info *in = info_of(c, cp);
	return in && in->stop;
}

/* The margin a candidate must win by: more for a slip out of a real word,
 * for a sound that is only similar, for a look-alike, for a change of a
 * function character.  Proposing one costs nothing more: a candidate
 * completes a word with a neighbour (我门 → 我们), and the extra margin
 * there lost 我们 for 我门 and the like (SIGHAN training sets: correction
 * F1 0.181 → 0.197 at the same precision). */
static double need_of(const ctx_cfg *c, const spot *p, const cand *v)
{
	int32_t orig[2] = {p->s->simp[p->i], v->k > 1 ? p->s->simp[p->i + 1] : 0};
	if (c->weights_file && v->k == 1) {
		double f[CTX_NFEAT];
		ctx_features(c, p->s->simp, p->n, p->i, v->x[0], v->kind, f);
		return ctx_learned_need(c, f);
	}
	if (v->kind == K_GROUP)
		return (double)c->group_margin;
	double need = (double)(v->k > 1 ? c->pair_margin : c->margin);
	if (v->kind == K_NEAR)
		need += (double)c->near_margin;
	else if (v->kind == K_SHAPE)
		need += (double)c->shape_margin;
	for (int j = 0; j < v->k; j++)
		if (is_stop(c, orig[j]))
			return need + (double)c->stop_margin;
	return need;
}

/* Is x[0..k) allowed at the spot: not the text itself; outside simplified
 * text not one of its traditional forms or variants (反覆 is 反复, 著 is
 * 着: a spelling, not a slip); writable in the text's script? */
static int allowed(const spot *p, const int32_t *x, int k)
{
	const ctx_cfg *c = p->c;
	for (int j = 0; j < k; j++) {
		const char_info *in = info_of(c, x[j]);
		int32_t orig = p->s->cp[p->i + j];
		if (!in || x[j] == p->s->simp[p->i + j])
			return 0;
		for (unsigned f = 0; f < in->n_var && p->script >= 0; f++)
			if (c->forms_cp[in->forms + f] == orig)
				return 0;
		if (!p->script && in->trad)
			return 0; /* simplified or traditional? the text does not say yet */
	}
	return 1;
}

/* Score x[0..k) at the spot and keep it. */
static void try_cand(spot *p, const int32_t *x, int k, int kind)
{
	if (p->nv == MAX_CAND || !allowed(p, x, k))
		return;
	for (int j = 0; j < p->nv; j++)
		if (p->v[j].k == k && p->v[j].x[0] == x[0] && (k == 1 || p->v[j].x[1] == x[1]))
			return;
	if (isnan(p->base[k - 1]))
		p->base[k - 1] = p->score(p->c, p->s, p->n, p->i, k, p->s->simp + p->i);
	cand *v = &p->v[p->nv++];
	v->x[0] = x[0], v->x[1] = k > 1 ? x[1] : 0;
	v->k = k;
	v->kind = kind;
	v->gain = p->score(p->c, p->s, p->n, p->i, k, x) - p->base[k - 1];
	v->need = need_of(p->c, p, v);
}

static int makes_word(const ctx_cfg *c, int32_t a, int32_t b)
{
	int32_t w[2] = {a, b};
	return a && b && dict_freq(c, w, 2) >= c->min_freq;
}

/* Does x make a word of the dictionary with the characters around the
 * spot (觉得, 记得, 地方)? */
static int in_word(const spot *p, int32_t x)
{
	const int32_t *t = p->s->simp;
	for (int L = 2; L <= MAX_WORD; L++)
		for (int a = p->i - L + 1; a <= p->i; a++) {
			int32_t w[MAX_WORD];
			if (a < 0 || a + L > p->n)
				continue;
			for (int j = 0; j < L; j++)
				w[j] = a + j == p->i ? x : t[a + j];
			if (dict_freq(p->c, w, L))
				return 1;
		}
	return 0;
}

/* The tag of the word of 1 or 2 characters ending before the spot (after,
 * 0) or starting after it (1), whichever the dictionary knows. */
static uint8_t side_tag(const spot *p, int after)
{
	const int32_t *t = p->s->simp;
	uint8_t tag = 0;
	for (int L = 1; L <= 2; L++) {
		int a = after ? p->i + 1 : p->i - L;
		if (a >= 0 && a + L <= p->n)
			tag |= dict_tag(p->c, t + a, L);
	}
	return tag;
}

/* 的 is one Han character in 29 and nearly always a spot: trying it as 得
 * and 地 everywhere was most of the rule's time.  得 is tried only after a
 * verb or adjective (跑的快), 地 only between an adverb-like word or a
 * doubled character and a verb (认真的学习, 慢慢的走), either where it
 * makes a word with its neighbours (觉的 → 觉得, 的方 → 地方).  What the
 * gate puts off is still scored when another candidate wins, so it can
 * stand in the way as before.  On the SIGHAN training sets and the
 * bench's texts this skips half of those candidates and none that won. */
#define CP_DE_OF 0x7684    /* 的 */
#define CP_DE_ADV 0x5730   /* 地 */
#define CP_DE_COMPL 0x5F97 /* 得 */
static int de_gate(const spot *p, int32_t x)
{
	if (p->s->simp[p->i] != CP_DE_OF || (x != CP_DE_ADV && x != CP_DE_COMPL) || in_word(p, x))
		return 1;
	uint8_t left = side_tag(p, 0);
	if (x == CP_DE_COMPL)
		return (left & TAG_PRED) != 0;
	int doubled = p->i >= 2 && p->s->simp[p->i - 1] == p->s->simp[p->i - 2];
	return (side_tag(p, 1) & TAG_VERB) && ((left & TAG_PRED) || doubled);
}

/* 得 or 地 before a verb is not made 的: the model likes 的 everywhere, and
 * there (热得一出去, 认真地听) it was wrong 2 times in 3 on the SIGHAN
 * training sets. */
static int de_before_verb(const spot *p, int32_t x)
{
	int32_t o = p->s->simp[p->i];
	if (x != CP_DE_OF || (o != CP_DE_ADV && o != CP_DE_COMPL))
		return 1;
	return !(side_tag(p, 1) & TAG_VERB);
}

/* Candidates that complete a word of three or four characters around the
 * spot (令一种 → 另一种, 望尘莫急 → 望尘莫及): the index holds, for each
 * such word and each of its characters, that character under the others
 * and its classes; a hash hit is checked in the dictionary. */
static void long_cands(spot *p)
{
	const ctx_cfg *c = p->c;
	const int32_t *t = p->s->simp;
	int32_t sx = t[p->i];
	uint32_t cl[MAX_READ];
	int ncl = classes_of(c, sx, cl);
	for (int L = 3; L <= MAX_WORD; L++)
		for (int o = 0; o < L; o++) {
			int a = p->i - o;
			if (a < 0 || a + L > p->n)
				continue;
			int32_t w[MAX_WORD];
			memcpy(w, t + a, (size_t)L * sizeof *w);
			uint32_t h = conf_long_hash(w, L, o);
			for (int j = 0; j < ncl; j++) {
				uint32_t nv;
				const int32_t *v = conf_get(c, conf_key(CONF_LONG, h, cl[j]), &nv);
				for (uint32_t k = 0; k < nv; k++) {
					w[o] = v[k];
					if (dict_freq(c, w, L) >= c->long_freq)
						try_cand(p, &v[k], 1, kind_of(c, sx, v[k]));
				}
			}
		}
}

/* Candidates for the one character at the spot: from the index (they
 * complete a word with a neighbour and sound alike), its look-alikes that
 * complete a word, its group of function characters. */
static void single_cands(spot *p, int32_t l, int32_t r)
{
	const ctx_cfg *c = p->c;
	int32_t sx = p->s->simp[p->i];
	const char_info *in = info_of(c, sx);
	/* A slip out of a word into another character: many candidates, and
	 * on the SIGHAN training sets about as many wrong as right. */
	if (p->word)
		return;
	for (int k = 0; in && in->group && c->group_cp[in->group - 1][k]; k++)
		if (!de_before_verb(p, c->group_cp[in->group - 1][k]))
			continue;
		else if (de_gate(p, c->group_cp[in->group - 1][k]))
			try_cand(p, &c->group_cp[in->group - 1][k], 1, K_GROUP);
		else
			p->later[p->n_later++] = c->group_cp[in->group - 1][k];
	uint32_t cl[MAX_READ];
	int ncl = classes_of(c, sx, cl);
	for (int side = 0; side < 2; side++) {
		int32_t nb = side ? r : l;
		for (int j = 0; nb && j < ncl; j++) {
			uint32_t nv;
			const int32_t *v =
				conf_get(c, conf_key(side ? CONF_RIGHT : CONF_LEFT, (uint32_t)nb, cl[j]), &nv);
			for (uint32_t k = 0; k < nv; k++)
				try_cand(p, &v[k], 1, kind_of(c, sx, v[k]));
		}
	}
	if (c->long_freq)
		long_cands(p);
	for (unsigned k = 0; in && k < in->n_shape; k++) {
		int32_t x = c->shape_cp[in->shape + k];
		if (makes_word(c, l, x) || makes_word(c, x, r))
			try_cand(p, &x, 1, kind_of(c, sx, x));
	}
}

/* When characters i and i+1 make a word: the words that sound like it
 * with both characters changed (上网 for 伤亡). */
static void pair_cands(spot *p)
{
	const ctx_cfg *c = p->c;
	const int32_t *w = p->s->simp + p->i;
	if (p->i + 1 >= p->n || dict_freq(c, w, 2) == 0)
		return;
	uint32_t ca[MAX_READ], cb[MAX_READ];
	int na = classes_of(c, w[0], ca), nb = classes_of(c, w[1], cb);
	for (int a = 0; a < na; a++)
		for (int b = 0; b < nb; b++) {
			uint32_t nv;
			const int32_t *v = conf_get(c, conf_key(CONF_PAIR, ca[a], cb[b]), &nv);
			for (uint32_t k = 0; k < nv; k++, v += 2) {
				if (v[0] == w[0] || v[1] == w[1])
					continue;
				/* the same syllables only: similar ones are many more
				 * words to score, and win next to never */
				if (kind_of(c, w[0], v[0]) == K_SAME && kind_of(c, w[1], v[1]) == K_SAME)
					try_cand(p, v, 2, K_SAME);
			}
		}
}

/* The candidate that wins by the most over its margin, if it also beats
 * every other candidate by 2 and comes within slack of its margin; NULL
 * if none.  (With slack 0: the winner of the spot alone.) */
static const cand *best_of(const spot *p, double slack)
{
	const cand *best = NULL;
	for (int j = 0; j < p->nv; j++)
		if (!best || p->v[j].gain - p->v[j].need > best->gain - best->need)
			best = &p->v[j];
	if (!best || best->gain < best->need - slack)
		return NULL;
	for (int j = 0; j < p->nv; j++)
		if (&p->v[j] != best && p->v[j].gain > best->gain - 2)
			return NULL;
	return best;
}

/* ---- the run ---- */

/* The form of simplified x to write in traditional text. */
static int32_t trad_form(const ctx_cfg *c, int32_t x)
{
	const char_info *in = info_of(c, x);
	return in && in->trad ? in->trad : x;
}

/* Does the candidate take a neighbour away from a name: a pair that the
 * document writes three times or more and the dictionary does not know
 * (牛岛 twelve times, then 牛岛尉: 岛屿 is a word, but 牛岛 is a name)? */
static int breaks_name(const jh_brun *run, const ctx_cfg *c, scratch *s, int n, int i,
                       const cand *v)
{
	int k = v->k;
	if (i >= 2 && makes_word(c, s->simp[i - 1], v->x[0]) && !dict_freq(c, s->simp + i - 2, 2) &&
	    occurs(&s->pairs, run->text, run->len, s->cp[i - 2], s->cp[i - 1], 3))
		return 1;
	return i + k + 1 < n && makes_word(c, v->x[k - 1], s->simp[i + k]) &&
	       !dict_freq(c, s->simp + i + k, 2) &&
	       occurs(&s->pairs, run->text, run->len, s->cp[i + k], s->cp[i + k + 1], 3);
}

/* May x be reported for [i, i+k)?  Not when the document writes the pair
 * more than once (then it is meant: a name, a term, 義昌 in 大島義昌) or
 * when it breaks a name. */
static int guard_ok(const jh_brun *run, const ctx_cfg *c, scratch *s, int n, const cand *v, int i)
{
	const char *t = run->text;
	int k = v->k;
	pair_count *pc = &s->pairs;
	if (k > 1 ? occurs(pc, t, run->len, s->cp[i], s->cp[i + 1], 2)
	          : (i > 0 && occurs(pc, t, run->len, s->cp[i - 1], s->cp[i], 2)) ||
	                (i + 1 < n && occurs(pc, t, run->len, s->cp[i], s->cp[i + 1], 2)))
		return 0;
	return !breaks_name(run, c, s, n, i, v);
}

/* Report x for [i, i+k). */
static void emit(jh_brun *run, const ctx_cfg *c, scratch *s, const cand *v, int i, int script)
{
	char fix[16];
	size_t fl = 0;
	for (int j = 0; j < v->k; j++)
		fl += jh_utf8_encode(script > 0 ? trad_form(c, v->x[j]) : v->x[j], fix + fl);
	fix[fl] = '\0';
	jh_hit h = {run->rule, run->rule_index, s->pos[i], s->pos[i + v->k], fix, fl, JH_UNSAFE, NULL};
	int rc = jh_findings_add_hit(run->out, run->text, &h);
	if (rc && !run->err)
		run->err = rc;
}

/* A spot's decision depends on nothing but the characters within reach
 * of its windows (as corrected so far), the characters at the spot as
 * written, whether it is part of a word, and the script: the same spot
 * seen again in the document (a repeated phrase, a refrain, a text pasted
 * twice) takes the decision kept, not a new scoring. */
#define MEMO_KEY (2 * WINDOW + 2 + 3)
struct spot_memo {
	int32_t key[MEMO_KEY]; /* all 0: empty (a key has the spot) */
	cand v;                /* the spot's option; k = 0: none */
};

static void memo_key(const scratch *s, int n, int i, int word, int script, int32_t *key)
{
	int m = 0;
	for (int j = i - WINDOW; j < i + WINDOW + 2; j++)
		key[m++] = j >= 0 && j < n ? s->simp[j] : 0;
	key[m++] = s->cp[i];
	key[m++] = i + 1 < n ? s->cp[i + 1] : 0;
	key[m++] = word * 4 + script + 2;
}

static struct spot_memo *memo_slot(scratch *s, const int32_t *key)
{
	if (!s->memo)
		return NULL;
	uint64_t h = jh_hash_cps(key, MEMO_KEY);
	return &s->memo[h & (s->memo_cap - 1)];
}

/* With the parameter trace = 1 (off unless a configuration sets it; the
 * library reads no environment), each document's spots and their
 * candidates go to stderr, for bench/typo-eval's candidate recall: one
 * line "doc" per document, then per Han character "c <byte> <why>
 * <candidates as they would be written>" (why: spot, word, rare, nosyl). */
static void trace_spot(FILE *tr, const ctx_cfg *c, const scratch *s, int i, const char *why,
                       const spot *p, int script)
{
	if (!tr)
		return;
	fprintf(tr, "c\t%zu\t%s\t", s->pos[i], why);
	for (int j = 0; p && j < p->nv; j++) {
		char b[16];
		size_t l = 0;
		for (int q = 0; q < p->v[j].k; q++)
			l += jh_utf8_encode(script > 0 ? trad_form(c, p->v[j].x[q]) : p->v[j].x[q], b + l);
		fprintf(tr, "%s%.*s", j ? " " : "", (int)l, b);
	}
	for (int j = 0; p && j < p->n_later; j++) {
		char b[8];
		size_t l = jh_utf8_encode(script > 0 ? trad_form(c, p->later[j]) : p->later[j], b);
		fprintf(tr, " %.*s", (int)l, b);
	}
	fputc('\n', tr);
	for (int j = 0; p && j < p->nv; j++) /* for rules/tools/train-typo-context.py */
		if (p->v[j].k == 1)
			ctx_trace_features(tr, c, s->simp, p->n, i, s->pos[i], p->v[j].x[0],
			                   script > 0 ? trad_form(c, p->v[j].x[0]) : p->v[j].x[0],
			                   p->v[j].kind, p->v[j].gain);
}

/* The option of the spot at i (the sentence as written): its best
 * candidate within slack of its margin that the guards allow; 0 if none. */
static int spot_option(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int i, int script,
                       FILE *tr, cand *out)
{
	const char_info *in = info_of(c, s->simp[i]);
	/* A rare character is seldom what an input method offers first:
	 * it is chosen (濑 in 濑名, a name) */
	if (!in || !in->syl[0] || c->single_logp[s->simp[i] - CJK_LO] < c->rare_logp) {
		trace_spot(tr, c, s, i, in && in->syl[0] ? "rare" : "nosyl", NULL, script);
		return 0;
	}
	int32_t l = i > 0 ? s->simp[i - 1] : 0, r = i + 1 < n ? s->simp[i + 1] : 0;
	int word = !s->single[i] || makes_word(c, l, s->simp[i]) || makes_word(c, s->simp[i], r);
	if (word && (!c->lm || !c->pair_margin)) {
		trace_spot(tr, c, s, i, "word", NULL, script);
		return 0; /* only a pair of characters may replace a word */
	}
	int32_t key[MEMO_KEY];
	memo_key(s, n, i, word, script, key);
	struct spot_memo *m = tr ? NULL : memo_slot(s, key);
	if (m && memcmp(m->key, key, sizeof key) == 0) {
		*out = m->v;
		return m->v.k && guard_ok(run, c, s, n, out, i);
	}
	spot sp, *p = &sp;
	p->nv = p->n_later = 0;
	p->c = c, p->s = s, p->n = n, p->i = i, p->script = script, p->word = word;
	p->score = c->lm ? lm_window : uni_window;
	p->base[0] = p->base[1] = NAN;
	s->base_ok[0] = s->base_ok[1] = 0;
	single_cands(p, l, r);
	if (c->lm && c->pair_margin)
		pair_cands(p);
	double slack = (double)c->joint_slack;
	const cand *v = best_of(p, slack);
	if ((v || tr) && p->n_later) {
		/* what the gate put off may still win or stand in the way */
		for (int j = 0; j < p->n_later; j++)
			try_cand(p, &p->later[j], 1, K_GROUP);
		p->n_later = 0;
		v = best_of(p, slack);
	}
	trace_spot(tr, c, s, i, "spot", p, script);
	cand none = {{0, 0}, 0, 0, 0, 0};
	if (m) {
		memcpy(m->key, key, sizeof key);
		m->v = v ? *v : none;
	}
	if (!v)
		return 0;
	*out = *v;
	return guard_ok(run, c, s, n, out, i);
}

/* jd_decode's callback: the option's gain with the options near written
 * into the sentence. */
typedef struct {
	const ctx_cfg *c;
	scratch *s;
	int n;
} rescore_ctx;

static double rescore(void *arg, int opt, const int *near, int nn)
{
	rescore_ctx *r = arg;
	scratch *s = r->s;
	int32_t saved[2 * JD_MAX_CHG];
	for (int q = 0; q < nn; q++)
		for (int j = 0; j < s->jopt[near[q]].k; j++) {
			saved[2 * q + j] = s->simp[s->jopt[near[q]].i + j];
			s->simp[s->jopt[near[q]].i + j] = s->opt[near[q]].x[j];
		}
	double (*score)(const ctx_cfg *, scratch *, int, int, int, const int32_t *) =
		r->c->lm ? lm_window : uni_window;
	const jd_opt *o = &s->jopt[opt];
	s->base_ok[0] = s->base_ok[1] = 0;
	double base = score(r->c, s, r->n, o->i, o->k, s->simp + o->i);
	double gain = score(r->c, s, r->n, o->i, o->k, s->opt[opt].x) - base;
	s->base_ok[0] = s->base_ok[1] = 0;
	for (int q = nn - 1; q >= 0; q--)
		for (int j = 0; j < s->jopt[near[q]].k; j++)
			s->simp[s->jopt[near[q]].i + j] = saved[2 * q + j];
	return gain;
}

/* Every character with a syllable is a spot (without the model: only
 * those that make no word with a neighbour).  Each spot's option is found
 * against the sentence as written; then the options are decided together
 * (jd_decode), so two slips close together are fixed together. */
static void check_run(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int script, FILE *tr)
{
	if (n < 2)
		return;
	segment(c, s->simp, n, s->best, s->step, s->single);
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (!spot_option(run, c, s, n, i, script, tr, &s->opt[m]))
			continue;
		s->jopt[m] = (jd_opt){i, s->opt[m].k, s->opt[m].gain, s->opt[m].need};
		if (tr) {
			char b[16];
			size_t l = 0;
			for (int q = 0; q < s->opt[m].k; q++)
				l += jh_utf8_encode(script > 0 ? trad_form(c, s->opt[m].x[q]) : s->opt[m].x[q],
				                    b + l);
			fprintf(tr, "o\t%zu\t%.*s\t%.2f\t%.2f\n", s->pos[i], (int)l, b, s->opt[m].gain,
			        s->opt[m].need);
		}
		m++;
	}
	if (!m)
		return;
	int take[JD_MAX_CHG];
	rescore_ctx rc = {c, s, n};
	int nt = jd_decode(s->jopt, m, WINDOW + 1, rescore, &rc, take);
	for (int q = 0; q < nt; q++)
		emit(run, c, s, &s->opt[take[q]], s->jopt[take[q]].i, script);
}

/* Traditional or simplified: the variant asked for, else what the
 * characters seen so far say. */
static int script_of(const jh_brun *run, long trad, long simp)
{
	if (run->variant && strcmp(run->variant, "hant") == 0)
		return 1;
	if (run->variant && strcmp(run->variant, "hans") == 0)
		return -1;
	return trad > simp ? 1 : simp > trad ? -1 : 0;
}

void jh_context_finish(jh_brun *run)
{
	/* the rule set is shared read-only; its lazy tables are the one part
	 * written, once, under jh_lazy's lock */
	ctx_cfg *c = (ctx_cfg *)run->cfg;
	lazy_arg a = {c, run->diag_fn, run->payload};
	if (jh_lazy_get(&c->once, load_tables, &a) != JH_OK || !c->dict_cap)
		return;
	scratch s = {0};
	if (c->lm && !(s.tri = calloc(TRI_SLOTS, sizeof *s.tri))) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	/* about one spot in 30 bytes of text; no memory for it: no memo */
	for (s.memo_cap = 256; s.memo_cap < 65536 && s.memo_cap * 32 < run->len;)
		s.memo_cap <<= 1;
	s.memo = calloc(s.memo_cap, sizeof *s.memo);
	const char *t = run->text;
	size_t len = run->len, i = 0;
	int n = 0, quote = 0;
	FILE *tr = c->trace ? stderr : NULL;
	if (tr)
		fputs("doc\n", tr);
	long trad = 0, simp = 0;
	while (i <= len) {
		int32_t cp = -1;
		size_t k = i < len ? jh_utf8_decode((const unsigned char *)t + i, len - i, &cp) : 1;
		int han = cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		if (han && !quote) {
			if (scratch_fit(&s, (size_t)n + 1)) {
				run->err = JH_ERR_NOMEM;
				break;
			}
			const char_info *in = info_of(c, cp);
			s.cp[n] = cp;
			s.simp[n] = in && in->simp ? in->simp : cp;
			trad += s.simp[n] != cp;
			simp += in && in->hans;
			s.pos[n] = i;
			s.pos[n + 1] = i + k;
			n++;
		} else {
			check_run(run, c, &s, n, script_of(run, trad, simp), tr);
			n = 0;
			/* Dialogue is skipped: speech has its own words. */
			if (cp == 0x201C || cp == 0x300C || cp == 0x300E)
				quote = 1;
			else if (cp == 0x201D || cp == 0x300D || cp == 0x300F || cp == '\n')
				quote = 0;
		}
		i += k ? k : 1;
	}
	scratch_free(&s);
}
