/* mask_restore.c — ranking restorations of a censor mask with a word
 * trigram model (see mask_restore.h).
 *
 * Candidates come from the context as the model knows it: the words it
 * has seen after the last word (or two) before the mask, the words it has
 * seen before the first word after it, and the candidates of other
 * sources the caller hands in (listed words, the document's own strings,
 * dictionary words the mask cuts).  Each is scored by the probability of
 * the whole window, context + fill + context, under the model: the best
 * segmentation of the window into the model's words (one best path per
 * position), so a fill that makes a word with its neighbours (精疲力* →
 * 竭) is scored as that word, and every candidate pays for the same
 * characters around it, which is the normalisation that keeps a short
 * fill from winning by having fewer factors.  A prior on the fill's
 * length given the mask's (P(mask | length)) and on the source are added;
 * the scores are normalised over the candidates into probabilities.
 *
 * Successor and predecessor lists are built once per model from its
 * bigrams: the best few words of each length after (and before) each
 * word, so that a mask costs a few list reads instead of a walk over the
 * thousands of words the model has seen after 的. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "mask_restore_int.h"
#include "seg_step.h"
#include "utf8.h"

/* ---- scoring ---- */

#define WIN (JH_MR_CTX * 2 + JH_MR_MAX_FILL)
#define MAX_WORD 6     /* characters of a word looked up in the window */
#define NEG (-1e30)

#define MEMO 1024

/* What all candidates of one mask share: the left context's best
 * segmentation scores and states, position by position. */
typedef struct {
	const jh_mr *m;
	const jh_mr_query *q;
	double dp[JH_MR_CTX + 1];
	jh_lm_state st[JH_MR_CTX + 1];
	uint32_t last1, last2; /* the last words before the mask (0: none) */
	jh_lm_state hist;      /* the state after them */
	uint32_t first_right;  /* the first word after the mask (0: none) */
	uint32_t rid[JH_MR_CTX + 1][JH_MR_CTX + 1]; /* the word right[a, b), as word_id */
	/* the right context's best segmentation on its own: the words a
	 * fill that makes no word with its neighbours is followed by */
	uint32_t rw[JH_MR_CTX];
	int nrw;
	/* jh_lm_next's answers for this mask: the candidates' windows share
	 * most of their steps (the right context's words after the same few
	 * histories) */
	uint64_t memo_key[MEMO]; /* (state, word) + 1; 0: free */
	double memo_lp[MEMO];
	jh_lm_state memo_next[MEMO];
} shared;

static double next_memo(shared *x, jh_lm_state s, uint32_t id, jh_lm_state *nx)
{
	uint64_t key = ((uint64_t)s << 32 | id) + 1;
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 54) & (MEMO - 1);
	for (int probe = 0; probe < 4; probe++, i = (i + 1) & (MEMO - 1)) {
		if (x->memo_key[i] == key) {
			*nx = x->memo_next[i];
			return x->memo_lp[i];
		}
		if (!x->memo_key[i])
			break;
	}
	double lp = jh_lm_next(x->m->lm, s, id, nx);
	if (!x->memo_key[i]) { /* full near here: not kept */
		x->memo_key[i] = key;
		x->memo_lp[i] = lp;
		x->memo_next[i] = *nx;
	}
	return lp;
}

/* The costs of the window's words for jh_seg_step: looked up in the
 * lexicon (the left context, once a mask) or in a table made for one
 * candidate's window (ids[i][d] is the word [i - d, i), NO_WORD for
 * none; d = 1 is always a character, known or not). */
#define NO_WORD UINT32_MAX

typedef struct {
	shared *x;
	const int32_t *w;                 /* the window's characters (lookups) */
	uint32_t (*ids)[MAX_WORD + 1];    /* or the table */
} seg_arg;

static double seg_cost(void *arg, int j, int i, uint32_t state, uint32_t *next)
{
	seg_arg *a = arg;
	uint32_t id = a->ids ? a->ids[i][i - j] : word_id(a->x->m, a->w + j, i - j);
	if (!a->ids && !id && i - j > 1)
		id = NO_WORD;
	if (id == NO_WORD)
		return -INFINITY;
	return next_memo(a->x, state, id, next);
}

static void relax(seg_arg *a, int i, int from, double *dp, jh_lm_state *st, int *back)
{
	jh_seg_step(dp, back, st, i, from, MAX_WORD, NEG, seg_cost, a);
}

/* The right context's best segmentation from no history, as words
 * (x->rw, x->nrw): one lattice for every candidate that makes no word
 * with its neighbours (fast_score). */
static void right_words(shared *x)
{
	const jh_mr_query *q = x->q;
	double dp[JH_MR_CTX + 1];
	jh_lm_state st[JH_MR_CTX + 1];
	int from[JH_MR_CTX + 1];
	uint32_t ids[JH_MR_CTX + 1][MAX_WORD + 1];
	for (int i = 1; i <= q->nr; i++)
		for (int d = 1; d <= MAX_WORD && d <= i; d++) {
			uint32_t id = x->rid[i - d][i];
			ids[i][d] = id || d == 1 ? id : NO_WORD;
		}
	dp[0] = 0;
	st[0] = 0;
	seg_arg sa = {x, q->right, ids};
	for (int i = 1; i <= q->nr; i++)
		relax(&sa, i, 0, dp, st, from);
	uint32_t back[JH_MR_CTX];
	int k = 0;
	for (int i = q->nr; i > 0; i = from[i])
		back[k++] = ids[i][i - from[i]];
	x->nrw = k;
	for (int a = 0; a < k; a++)
		x->rw[a] = back[k - 1 - a];
}

static void share(shared *x, const jh_mr *m, const jh_mr_query *q)
{
	x->m = m;
	x->q = q;
	memset(x->memo_key, 0, sizeof x->memo_key);
	x->dp[0] = 0;
	x->st[0] = q->bos ? jh_lm_start(m->lm) : 0;
	int from[JH_MR_CTX + 1];
	seg_arg sa = {x, q->left, NULL};
	for (int i = 1; i <= q->nl; i++) /* from: where the last word starts */
		relax(&sa, i, 0, x->dp, x->st, from);
	x->last1 = x->last2 = 0;
	x->hist = x->st[q->nl];
	if (q->nl) {
		int j = from[q->nl];
		x->last1 = jh_lm_word(m->lm, q->left + j, q->nl - j);
		if (j)
			x->last2 = jh_lm_word(m->lm, q->left + from[j], j - from[j]);
	}
	x->first_right = 0;
	for (int k = q->nr < MAX_WORD ? q->nr : MAX_WORD; k >= 1 && !x->first_right; k--)
		x->first_right = jh_lm_word(m->lm, q->right, k);
	for (int a = 0; a < q->nr; a++)
		for (int b = a + 1; b <= q->nr; b++)
			x->rid[a][b] = word_id(m, q->right + a, b - a);
	right_words(x);
}

/* log P(mask | fill length): sites write one mask character per hidden
 * character most of the time, and `**` for a word of any length; the
 * figures are those bench/restore measures on its tuning split. */
static double len_prior(const jh_mr_query *q, int len)
{
	double same = q->run == len ? 0.75 : 0, two = q->star && q->run == 2 ? 0.25 : 0;
	double p = same + two;
	return p > 0 ? log(p) : log(0.01);
}

#define PRIOR_LISTED 1.1 /* listed words are masked about three times as often */
#define PRIOR_DOC 2.0    /* a string the document writes next to the same context */
#define PRIOR_TOPIC 2.0  /* a frequent word of the document around the mask (tuning split: 0, 1, 2) */
/* A string of the document is also scored as one word of a cache model
 * (the document's own words next to the same context): ln of the share
 * of masks such a string restores, so that a name the model cannot spell
 * (巴达诺, three words of its own to it) is not charged as three words. */
#ifndef LOG_CACHE
#define LOG_CACHE (-3.0)
#endif

/* Score s with the priors of a fill of fn characters from the sources
 * src added: the mask's length prior and each source's (in this order:
 * the sums are the scores the JSON report prints in full). */
static double with_priors(double s, const jh_mr_query *q, int fn, unsigned src)
{
	s += len_prior(q, fn);
	if (src & JH_MR_SRC_LISTED)
		s += PRIOR_LISTED;
	if (src & JH_MR_SRC_DOC)
		s += PRIOR_DOC;
	if (src & JH_MR_SRC_TOPIC)
		s += PRIOR_TOPIC;
	return s;
}

/* The score of fill f: log P(window) under the model, and the priors. */
static double score(shared *x, const int32_t *f, int fn, unsigned src)
{
	const jh_mr_query *q = x->q;
	int32_t w[WIN];
	memcpy(w, q->left, (size_t)q->nl * sizeof *w);
	memcpy(w + q->nl, f, (size_t)fn * sizeof *w);
	memcpy(w + q->nl + fn, q->right, (size_t)q->nr * sizeof *w);
	int n = q->nl + fn + q->nr, rs = q->nl + fn;
	/* the words of the window that end after the left context, looked up
	 * once for both passes; those inside the right context, once a mask */
	uint32_t ids[WIN + 1][MAX_WORD + 1];
	for (int i = q->nl + 1; i <= n; i++)
		for (int d = 1; d <= MAX_WORD && d <= i && i - d >= rs; d++) {
			uint32_t id = x->rid[i - d - rs][i - rs];
			ids[i][d] = id || d == 1 ? id : NO_WORD;
		}
	/* the others by start, each stretch's hash one step from the last */
	for (int j = q->nl + 1 > MAX_WORD ? q->nl + 1 - MAX_WORD : 0; j < rs; j++) {
		uint64_t h = JH_FNV0;
		for (int i = j + 1; i <= n && i - j <= MAX_WORD; i++) {
			h = jh_fnv_step(h, w[i - 1]);
			if (i <= q->nl)
				continue;
			uint32_t id = word_id_h(x->m, w + j, i - j, jh_hash_fin(h));
			ids[i][i - j] = id || i - j == 1 ? id : NO_WORD;
		}
	}
	double dp[WIN + 1];
	jh_lm_state st[WIN + 1];
	memcpy(dp, x->dp, (size_t)(q->nl + 1) * sizeof *dp);
	memcpy(st, x->st, (size_t)(q->nl + 1) * sizeof *st);
	seg_arg sa = {x, w, ids};
	for (int i = q->nl + 1; i <= n; i++)
		relax(&sa, i, 0, dp, st, NULL);
	double best = dp[n];
	if (src & JH_MR_SRC_DOC) { /* the fill as one word of the cache */
		int fe = q->nl + fn;
		for (int i = q->nl + 1; i < fe; i++)
			dp[i] = NEG;
		dp[fe] = x->dp[q->nl] + LOG_CACHE;
		st[fe] = 0;
		for (int i = fe + 1; i <= n; i++)
			relax(&sa, i, fe, dp, st, NULL);
		if (dp[n] > best)
			best = dp[n];
	}
	return with_priors(best, q, fn, src);
}

/* Does a word of the model (two characters or more) cross an edge of
 * the fill in the window w (fill [nl, fe), n characters)?  Then the
 * window's best segmentation may not keep the fill as one word. */
static int edge_word(const jh_mr *m, const int32_t *w, int nl, int fe, int n)
{
	for (int e = 0; e < 2; e++) {
		int at = e ? fe : nl;
		if (at == 0 || at == n)
			continue;
		for (int j = at - 1; j >= 0 && at - j < MAX_WORD; j--) {
			uint64_t h = JH_FNV0;
			for (int k = j; k < at; k++)
				h = jh_fnv_step(h, w[k]);
			for (int i = at + 1; i <= n && i - j <= MAX_WORD; i++) {
				h = jh_fnv_step(h, w[i - 1]);
				if (word_id_h(m, w + j, i - j, jh_hash_fin(h)))
					return 1;
			}
		}
	}
	return 0;
}

/* score() for a fill that is one word of the model and makes none with
 * its neighbours: the window's segmentation is then the left context's
 * (shared), the fill, and the right context's own (shared), so only the
 * fill's step and the right words' steps after it are new; the same
 * characters are paid for as in score().  Returns 0 when the fill is
 * not such a one (score() it in full). */
static int fast_score(shared *x, const int32_t *f, int fn, unsigned src, double *out)
{
	const jh_mr_query *q = x->q;
	uint32_t id = word_id(x->m, f, fn);
	if (!id)
		return 0;
	int32_t w[WIN];
	memcpy(w, q->left, (size_t)q->nl * sizeof *w);
	memcpy(w + q->nl, f, (size_t)fn * sizeof *w);
	memcpy(w + q->nl + fn, q->right, (size_t)q->nr * sizeof *w);
	if (edge_word(x->m, w, q->nl, q->nl + fn, q->nl + fn + q->nr))
		return 0;
	jh_lm_state st;
	double s = x->dp[q->nl] + next_memo(x, x->hist, id, &st);
	for (int k = 0; k < x->nrw; k++)
		s += next_memo(x, st, x->rw[k], &st);
	if (src & JH_MR_SRC_DOC) { /* the fill as one word of the cache */
		double c = x->dp[q->nl] + LOG_CACHE;
		st = 0;
		for (int k = 0; k < x->nrw; k++)
			c += next_memo(x, st, x->rw[k], &st);
		if (c > s)
			s = c;
	}
	*out = with_priors(s, q, fn, src);
	return 1;
}

/* ---- the candidate pool ---- */

#define POOL 256
#define POOL_SLOTS 512 /* open addressing over the pool, twice its size */

typedef struct {
	jh_mr_alt v[POOL];
	int n;
	int16_t slot[POOL_SLOTS]; /* index + 1 of the entry, by hash of its characters (0: free) */
} pool;

static void pool_init(pool *p)
{
	p->n = 0;
	memset(p->slot, 0, sizeof p->slot);
}

static jh_mr_alt *pool_add(pool *p, const int32_t *cp, int n, unsigned src, const char *text,
                           size_t text_len)
{
	if (n < 1 || n > JH_MR_MAX_FILL)
		return NULL;
	for (int k = 0; k < n; k++)
		if (jh_class_of(cp[k]) != JH_C_HAN)
			return NULL; /* the model's punctuation and Latin words fill no mask */
	/* a candidate comes from several sources: found by hash, not by a
	 * walk over the pool (that walk was a tenth of a mask's cost) */
	size_t h = (size_t)jh_hash_cps(cp, n) & (POOL_SLOTS - 1);
	for (; p->slot[h]; h = (h + 1) & (POOL_SLOTS - 1)) {
		jh_mr_alt *a = &p->v[p->slot[h] - 1];
		if (a->n == n && !memcmp(a->cp, cp, (size_t)n * sizeof *cp)) {
			a->src |= src;
			if (text_len && !a->text_len && text_len < sizeof a->text) {
				memcpy(a->text, text, text_len);
				a->text_len = text_len;
			}
			return a;
		}
	}
	if (p->n == POOL)
		return NULL;
	jh_mr_alt *a = &p->v[p->n++];
	p->slot[h] = (int16_t)p->n;
	memset(a, 0, sizeof *a);
	memcpy(a->cp, cp, (size_t)n * sizeof *cp);
	a->n = n;
	a->src = src;
	if (text_len && text_len < sizeof a->text) {
		memcpy(a->text, text, text_len);
		a->text_len = text_len;
	}
	return a;
}

static void add_id(pool *p, const jh_mr *m, uint32_t id, unsigned src)
{
	int32_t cp[JH_LM_MAX_WORD];
	int n = id ? jh_lm_word_text(m->lm, id, cp, JH_LM_MAX_WORD) : 0;
	if (n >= 1 && n <= JH_MR_MAX_FILL)
		pool_add(p, cp, n, src, NULL, 0);
}

/* Lengths the mask leaves likely (len_prior above a floor). */
static int len_ok(const jh_mr_query *q, int len)
{
	return q->run == len || (q->star && q->run == 2);
}

int jh_mr_fits(const jh_mr_query *q, int n)
{
	return n >= 1 && n <= JH_MR_MAX_FILL && len_ok(q, n);
}

static void add_list(pool *p, const jh_mr *m, const uint32_t *row, const jh_mr_query *q)
{
	for (int len = 1; len <= JH_MR_MAX_FILL; len++) {
		if (!len_ok(q, len))
			continue;
		const uint32_t *v = row + slot_base(len);
		for (int k = 0; k < k_per_len[len] && v[k]; k++)
			add_id(p, m, v[k], JH_MR_SRC_LM);
	}
}

/* Words seen both after the last word before the mask and before the
 * first word after it (or a longer first word): the intersection of the
 * word's successors (the model's children of its history, in id order)
 * and the right word's predecessors (the reverse index, in id order),
 * walked from the shorter side, each found in the other by a search.
 * Their two seen probabilities make the first score; the best BOTH_KEEP
 * go to the pool.  (The two-word history's successors, walked before,
 * held the hidden word for under 1% of bench/restore's masks.) */
#define BOTH_SCAN 100 /* entries read from one side, at most */
#define BOTH_KEEP 24

#define BOTH_RIGHT 3 /* words the right context may begin with */

typedef struct {
	const jh_mr *m;
	const jh_mr_query *q;
	const uint32_t *w1[BOTH_RIGHT];
	const float *lp[BOTH_RIGHT];
	uint32_t n[BOTH_RIGHT];
	uint32_t at[BOTH_RIGHT]; /* where the last search in each list ended */
	int nr;
	uint32_t best[BOTH_KEEP];
	double bs[BOTH_KEEP];
	int nb;
} both_arg;

/* The first entry of the sorted list v[lo, n) not below wid: a gallop from
 * lo, since the successors come in id order and so do the lists (a
 * binary search of each whole list per successor was a tenth of a mask). */
static uint32_t gallop(const uint32_t *v, uint32_t lo, uint32_t n, uint32_t wid)
{
	uint32_t step = 1, hi = lo;
	while (hi < n && v[hi] < wid) {
		lo = hi + 1;
		hi += step;
		step *= 2;
	}
	if (hi > n)
		hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < wid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keep wid (both seen, total score s) among the best. */
static void both_keep(both_arg *a, uint32_t wid, double s)
{
	for (int k = 0; k < a->nb; k++)
		if (a->best[k] == wid) { /* before another right word */
			if (a->bs[k] >= s)
				return;
			for (a->nb--; k < a->nb; k++) { /* kept again below, at its better score */
				a->best[k] = a->best[k + 1];
				a->bs[k] = a->bs[k + 1];
			}
			break;
		}
	int k = a->nb < BOTH_KEEP ? a->nb++ : BOTH_KEEP - 1;
	if (k == BOTH_KEEP - 1 && a->nb == BOTH_KEEP && a->best[k] && a->bs[k] >= s)
		return;
	while (k > 0 && a->bs[k - 1] < s) {
		a->best[k] = a->best[k - 1];
		a->bs[k] = a->bs[k - 1];
		k--;
	}
	a->best[k] = wid;
	a->bs[k] = s;
}

static int fill_len(const both_arg *a, uint32_t wid)
{
	int len = wid < a->m->t.n_words ? a->m->t.wlen[wid] : 0;
	return len >= 1 && len <= JH_MR_MAX_FILL && len_ok(a->q, len) ? len : 0;
}

/* A successor of the history, looked up in the predecessor lists that
 * are longer than the successors (the others are walked themselves). */
static void on_succ(void *arg, uint32_t wid, double lp)
{
	both_arg *a = arg;
	int len = fill_len(a, wid);
	if (!len)
		return;
	double right = NEG;
	for (int r = 0; r < a->nr; r++) {
		if (a->at[r] >= a->n[r])
			continue;
		uint32_t lo = gallop(a->w1[r], a->at[r], a->n[r], wid);
		a->at[r] = lo;
		if (lo < a->n[r] && a->w1[r][lo] == wid && a->lp[r][lo] > right)
			right = a->lp[r][lo];
	}
	if (right > NEG)
		both_keep(a, wid, lp + right + len_prior(a->q, len));
}

static void gather_both(pool *p, const shared *x)
{
	const jh_mr *m = x->m;
	const jh_mr_query *q = x->q;
	both_arg a = {.m = m, .q = q};
	jh_lm_state one = 0;
	if (x->last1)
		jh_lm_next(m->lm, 0, x->last1, &one);
	size_t ns = one >> 24 ? jh_lm_n_children(m->lm, one) : 0;
	for (int k = 1; ns && k <= q->nr && k <= MAX_WORD; k++) {
		uint32_t r = jh_lm_word(m->lm, q->right, k);
		if (!r || r >= m->t.n_words || m->t.rev_off[r + 1] == m->t.rev_off[r])
			continue;
		const uint32_t *w1 = m->t.rev_w1 + m->t.rev_off[r];
		const float *lp = m->t.rev_lp + m->t.rev_off[r];
		uint32_t n = m->t.rev_off[r + 1] - m->t.rev_off[r];
		if (n < ns) { /* the shorter side: each predecessor looked up after the history */
			for (uint32_t i = 0; i < n && i < BOTH_SCAN; i++) {
				int len = fill_len(&a, w1[i]);
				double s = len ? jh_lm_seen(m->lm, one, w1[i]) : -INFINITY;
				if (s > -INFINITY)
					both_keep(&a, w1[i], s + lp[i] + len_prior(q, len));
			}
		} else if (a.nr < BOTH_RIGHT) {
			a.w1[a.nr] = w1;
			a.lp[a.nr] = lp;
			a.n[a.nr++] = n;
		}
	}
	if (a.nr)
		jh_lm_children(m->lm, one, BOTH_SCAN, on_succ, &a);
	for (int k = 0; k < a.nb; k++)
		add_id(p, m, a.best[k], JH_MR_SRC_LM);
	/* the words most likely after the last word, of each length */
	if (x->last1 && x->last1 < m->t.n_words)
		for (int len = 1; len <= JH_MR_MAX_FILL; len++) {
			if (!len_ok(q, len))
				continue;
			const uint32_t *v = m->t.succ + (size_t)x->last1 * S_ALL + (size_t)(len - 1) * S_PER_LEN;
			for (int k = 0; k < S_PER_LEN && v[k]; k++)
				add_id(p, m, v[k], JH_MR_SRC_LM);
		}
}

static void gather(pool *p, const shared *x)
{
	gather_both(p, x);
	const jh_mr *m = x->m;
	if (x->first_right && x->first_right < m->t.n_words)
		add_list(p, m, m->t.pred + (size_t)x->first_right * K_ALL, x->q);
}

static int cmp_alt(const void *a, const void *b)
{
	const jh_mr_alt *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->n != y->n)
		return x->n - y->n;
	return memcmp(x->cp, y->cp, (size_t)x->n * sizeof *x->cp);
}

/* Does fill a make one word of the model with a character or more of the
 * context (精疲力* + 竭, 手*弹 + 榴, **不离十 + 八九)? */
static int crosses(const jh_mr *m, const jh_mr_query *q, const jh_mr_alt *a)
{
	int32_t w[WIN];
	memcpy(w, q->left, (size_t)q->nl * sizeof *w);
	memcpy(w + q->nl, a->cp, (size_t)a->n * sizeof *w);
	memcpy(w + q->nl + a->n, q->right, (size_t)q->nr * sizeof *w);
	int fe = q->nl + a->n, n = fe + q->nr;
	for (int j = q->nl; j >= 0 && fe - j <= MAX_WORD; j--) {
		int i = fe + (j == q->nl);
		uint64_t h = JH_FNV0;
		for (int k = j; k < i - 1; k++)
			h = jh_fnv_step(h, w[k]);
		for (; i <= n && i - j <= MAX_WORD; i++) {
			h = jh_fnv_step(h, w[i - 1]);
			if (word_id_h(m, w + j, i - j, jh_hash_fin(h)))
				return 1;
		}
	}
	return 0;
}

/* The text of a model's candidate, in the document's script. */
static void write_text(const jh_mr *m, const jh_mr_query *q, jh_mr_alt *a)
{
	size_t o = 0;
	for (int k = 0; k < a->n; k++) {
		int32_t cp = a->cp[k];
		if (q->traditional && m->s2t && cp >= S2T_LO && cp <= S2T_HI && m->s2t[cp - S2T_LO])
			cp = m->s2t[cp - S2T_LO];
		o += jh_utf8_encode(cp, a->text + o);
	}
	a->text[o] = '\0';
	a->text_len = o;
}

/* A first, cheap score: the fill as one word of the model between the
 * last words before it and the first after it (two model lookups), with
 * the priors; a fill the model does not hold as one word goes straight
 * to the full score. */
static double quick(shared *x, const jh_mr_alt *a)
{
	const jh_mr *m = x->m;
	uint32_t id = word_id(m, a->cp, a->n);
	if (!id)
		return score(x, a->cp, a->n, a->src);
	jh_lm_state st;
	double s = next_memo(x, x->hist, id, &st);
	if (x->first_right)
		s += next_memo(x, st, x->first_right, &st);
	s += x->dp[x->q->nl] + len_prior(x->q, a->n);
	if (a->src & JH_MR_SRC_LISTED)
		s += PRIOR_LISTED;
	if (a->src & JH_MR_SRC_DOC)
		s += PRIOR_DOC;
	return s;
}

/* Candidates of the model and the list scored in full beside the
 * document's and the dictionary's, and normalised over: 6 ranks as 12
 * did on bench/restore's tuning split, at half the cost. */
#define FULL 6

static void swap_alt(jh_mr_alt *a, jh_mr_alt *b)
{
	if (a == b)
		return;
	jh_mr_alt t = *a;
	*a = *b;
	*b = t;
}

/* The character model's own fills of the mask's length, scored in full
 * beside the document's (their words are often not the word model's). */
static void cm_gather(pool *p, const jh_mr *m, const jh_mr_query *q)
{
	int32_t f[CM_PROPOSE][JH_MR_MAX_FILL];
	int k = jh_cm_propose(m->cm, q, q->run <= JH_MR_MAX_FILL ? q->run : 2, f, NULL,
	                      m->cm_propose);
	for (int i = 0; i < k; i++)
		pool_add(p, f[i], q->run <= JH_MR_MAX_FILL ? q->run : 2, JH_MR_SRC_CHAR, NULL, 0);
}

/* The character model's score added to each candidate's, relative to the
 * best of the same length: it compares fills of one length (a longer
 * fill pays for more characters, and the word model and the mask's
 * length prior already weigh lengths).  Returns the new best score. */
static double cm_rescore(jh_mr_alt *v, int n, const jh_mr *m, const jh_mr_query *q)
{
	const jh_cm *cm = m->cm;
	double c[POOL], best[JH_MR_MAX_FILL + 1], w = m->cm_weight, top = NEG;
	/* weighed by how well the model knows the text around the mask: it
	 * is a model of novels, and technical prose is not its kind */
	double fam = jh_cm_context(cm, q);
	if (fam == 0 || fam < m->cm_gate)
		w = 0;
	for (int l = 0; l <= JH_MR_MAX_FILL; l++)
		best[l] = NEG;
	for (int i = 0; i < n; i++) {
		c[i] = jh_cm_window(cm, q, v[i].cp, v[i].n);
		if (c[i] > best[v[i].n])
			best[v[i].n] = c[i];
	}
	for (int i = 0; i < n; i++) {
		v[i].score += w * (c[i] - best[v[i].n]);
		if (v[i].score > top)
			top = v[i].score;
	}
	return top;
}

/* Temperature of the share (bench/restore-fit, tuning split). */
#define MR_TEMP 3.0

int jh_mr_rank(const jh_mr *m, const jh_mr_query *q, const jh_mr_alt *extra, int n_extra,
               jh_mr_alt *out, int max)
{
	pool *p = malloc(sizeof *p);
	if (!p)
		return -1;
	pool_init(p);
	shared x;
	share(&x, m, q);
	for (int i = 0; i < n_extra; i++)
		if (len_ok(q, extra[i].n)) /* as the model's own are (jh_mr_fits) */
			pool_add(p, extra[i].cp, extra[i].n, extra[i].src, extra[i].text, extra[i].text_len);
	gather(p, &x);
	if (m->cm)
		cm_gather(p, m, q);
	/* the document's strings and topic words and the dictionary words
	 * the mask cuts are few and make words with the context that the
	 * quick score cannot see: all are scored in full, ahead of the best FULL of the rest
	 * (the model's own and the listed words) */
	/* the others first, then the best FULL by the quick score, moved to
	 * the front of the pool (a selection: the pool's entries are large) */
	int nf = 0;
	for (int i = 0; i < p->n; i++)
		if (p->v[i].src & (JH_MR_SRC_DOC | JH_MR_SRC_DICT | JH_MR_SRC_TOPIC | JH_MR_SRC_CHAR))
			swap_alt(&p->v[i], &p->v[nf++]);
	for (int i = nf; i < p->n; i++)
		p->v[i].score = quick(&x, &p->v[i]);
	for (int k = 0; k < FULL && nf < p->n; k++, nf++) {
		int b = nf;
		for (int i = nf + 1; i < p->n; i++)
			if (cmp_alt(&p->v[i], &p->v[b]) < 0)
				b = i;
		swap_alt(&p->v[b], &p->v[nf]);
	}
	double top = NEG;
	for (int i = 0; i < nf; i++) {
		if (!fast_score(&x, p->v[i].cp, p->v[i].n, p->v[i].src, &p->v[i].score))
			p->v[i].score = score(&x, p->v[i].cp, p->v[i].n, p->v[i].src);
		if (p->v[i].score > top)
			top = p->v[i].score;
	}
	if (m->cm)
		top = cm_rescore(p->v, nf, m, q);
	(void)top;
	qsort(p->v, (size_t)nf, sizeof *p->v, cmp_alt);
	int n = nf < max ? nf : max;
	/* the share: a softmax over the candidates handed back, at a
	 * temperature fitted on bench/restore's tuning split (at 1 the
	 * model's log scores put nearly all the mass on the best, so every
	 * best answer got the same calibrated figure) */
	double z = 0;
	for (int i = 0; i < n; i++)
		z += exp((p->v[i].score - p->v[0].score) / MR_TEMP);
	for (int i = 0; i < n; i++)
		p->v[i].p = exp((p->v[i].score - p->v[0].score) / MR_TEMP) / z;
	for (int i = 0; i < n; i++) {
		out[i] = p->v[i];
		out[i].cross = (out[i].src & JH_MR_SRC_DICT) || crosses(m, q, &out[i]);
		if (!out[i].text_len)
			write_text(m, q, &out[i]);
	}
	free(p);
	return n;
}

/* Weights of the logistic model (bench/restore --split tune, the fit in
 * bench/README.md): the model's share alone is overconfident; a phrase
 * the document repeats around the fill is the strong evidence. */
#define CAL_BIAS (-0.989)
#define CAL_SHARE 1.323
#define CAL_NEAR1 3.003
#define CAL_NEAR2 1.520
#define CAL_CROSS (-0.360)
#define CAL_FIRST 0.895 /* the model's best: right more often than its share alone says */

double jh_mr_calibrate(double p, int near1, int near2, int cross, int first)
{
	/* only to keep the logit finite (at 0.005/0.995 most best answers
	 * were cut to one value) */
	if (p < 1e-6)
		p = 1e-6;
	if (p > 1 - 1e-6)
		p = 1 - 1e-6;
	double z = CAL_BIAS + CAL_SHARE * log(p / (1 - p)) + CAL_NEAR1 * !!near1 + CAL_NEAR2 * !!near2 +
	           CAL_CROSS * !!cross + CAL_FIRST * !!first;
	return 1 / (1 + exp(-z));
}
