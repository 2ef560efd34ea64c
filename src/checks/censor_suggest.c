/* censor_suggest.c — the mask-suggest check of the censor family: ranked
 * suggestions for words a site masked (帝**人, 甩出了*), from a word
 * frequency model (shared, see wordmap.c), the document's own words and
 * where each pair of Han characters occurs in it. */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "mask_restore.h"
#include "utf8.h"
#include "wordmap.h"
#include "censor.h"

/* ====================================================================== */
/* ---- mask-suggest: ranked words for a masked span ---- */

#define T2S_LO 0x3400
#define T2S_HI 0x9FFF

typedef struct {
	const jh_wordmap *words; /* general model: word -> frequency (shared, see jh_wm_get_shared) */
	jh_wordmap masked;  /* words sites mask */
	int32_t *t2s;    /* traditional -> simplified, per code point T2S_LO..T2S_HI (0 = same) */
	/* The masked words by their first and by their last character: a mask
	 * looks up the few characters that make a word with its neighbours
	 * instead of testing every listed word (ms_touching). */
	struct ms_key { int32_t cp; uint32_t i; } *by_first, *by_last;
	unsigned long max_suggestions, min_joins, fill_percent;
	jh_mr *mr;       /* the word trigram model (mask_restore.c); NULL: not installed */
	const char *lm_file, *lm_words_file, *s2t_file;
	unsigned s2t_line;
	/* The three tables above are loaded at the first mask (most texts
	 * have none; the word list is 900 KB to read and sort). */
	jh_lazy once;
	const jh_rule *rule;
	const char *words_file, *masked_file, *t2s_file;
	unsigned words_line, masked_line, t2s_line;
} ms_cfg;

static const char *const ms_params[] = {"words", "masked", "t2s", "suggestions", "min-joins",
                                        "lm", "lm-words", "s2t", "fill-threshold", NULL};

/* Read traditional<TAB>simplified pairs into a flat table. */
static int ms_load_t2s(ms_cfg *c, const jh_rule *r, const char *file, unsigned line,
                       jh_diag_fn diag_fn, void *payload)
{
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, file, r, line, diag_fn, payload);
	if (rc == JH_OK && !(c->t2s = calloc(T2S_HI - T2S_LO + 1, sizeof *c->t2s)))
		rc = JH_ERR_NOMEM;
	char *f[2];
	size_t fl[2];
	while (rc == JH_OK && jh_tsv_next(&t, f, fl, 2) == 2) {
		int32_t a, b = -1; /* one character, a tab, its simplified form */
		if (jh_utf8_decode((const unsigned char *)f[0], fl[0], &a) == fl[0] && a >= T2S_LO &&
		    a <= T2S_HI && fl[1])
			jh_utf8_decode((const unsigned char *)f[1], fl[1], &b);
		if (b > 0)
			c->t2s[a - T2S_LO] = b;
	}
	jh_tsv_close(&t);
	return rc;
}

/* Copy n bytes of s to out (room for 4*chars), traditional characters
 * turned simplified; returns the length written. */
static size_t ms_simplify(const ms_cfg *c, const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t p = 0; p < n;) {
		int32_t cp;
		size_t l = jh_utf8_decode((const unsigned char *)s + p, n - p, &cp);
		if (c->t2s && cp >= T2S_LO && cp <= T2S_HI && c->t2s[cp - T2S_LO])
			o += jh_utf8_encode(c->t2s[cp - T2S_LO], out + o);
		else {
			memcpy(out + o, s + p, l);
			o += l;
		}
		p += l;
	}
	return o;
}

static void ms_free(void *p)
{
	ms_cfg *c = p;
	if (!c)
		return;
	jh_wm_release_shared(c->words);
	jh_mr_free(c->mr);
	jh_wm_free(&c->masked);
	free(c->t2s);
	free(c->by_first);
	free(c->by_last);
	jh_lazy_destroy(&c->once);
	free(c);
}

static int ms_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	ms_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once);
	c->rule = r;
	int rc = JH_OK;
	c->words_line = c->masked_line = c->t2s_line = r->line;
	c->words_file = jh_rule_param(r, "words", &c->words_line);
	c->masked_file = jh_rule_param(r, "masked", &c->masked_line);
	c->t2s_file = jh_rule_param(r, "t2s", &c->t2s_line);
	if (!c->words_file) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "check 'mask-suggest' needs words = FILE (word<TAB>frequency)");
		rc = JH_ERR_RULES;
	} else {
		rc = jh_data_readable(r, c->words_file, c->words_line, diag_fn, payload);
	}
	if (rc == JH_OK && c->masked_file)
		rc = jh_data_readable(r, c->masked_file, c->masked_line, diag_fn, payload);
	if (rc == JH_OK && c->t2s_file)
		rc = jh_data_readable(r, c->t2s_file, c->t2s_line, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "suggestions", 3, 10, &c->max_suggestions, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-joins", 1, 2, &c->min_joins, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "fill-threshold", 101, 101, &c->fill_percent, diag_fn, payload);
	unsigned ln = r->line;
	c->lm_file = jh_rule_param(r, "lm", &ln);
	c->lm_words_file = jh_rule_param(r, "lm-words", &ln);
	c->s2t_line = r->line;
	c->s2t_file = jh_rule_param(r, "s2t", &c->s2t_line);
	if (rc == JH_OK && c->s2t_file)
		rc = jh_data_readable(r, c->s2t_file, c->s2t_line, diag_fn, payload);
	if (rc) {
		ms_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

static int is_mask_cp(int32_t cp)
{
	return cp == '*' || cp == 0xFF0A || cp == 0x00D7 || cp == 0x25A1 || cp == 0x25A0 ||
	       cp == 0x25CB || cp == 0x25CF || cp == 0x2573;
}

#define MS_CTX 4          /* Han characters of context on each side */
#define MS_MAX_FILL 4     /* characters a masked word may have */
#define MS_MAX_CAND 64

typedef struct {
	char w[MS_MAX_FILL * 4 + 1];
	size_t n;
	double score;
} ms_cand;

/* Byte offsets of up to MS_CTX Han characters before pos (lb[k] = start of
 * the k-th character back, lb[0] = pos) and after end. */
static int ms_context(const char *t, size_t len, size_t pos, size_t end, size_t *lb, size_t *ra)
{
	int nl = 0, nr = 0;
	lb[0] = pos;
	for (size_t p = pos; nl < MS_CTX;) {
		size_t q;
		if (!is_han(cp_before(t, p, &q)))
			break;
		lb[++nl] = p = q;
	}
	ra[0] = end;
	for (size_t p = end; nr < MS_CTX;) {
		size_t n;
		if (!is_han(cp_at(t, len, p, &n)))
			break;
		ra[++nr] = p += n;
	}
	return nl * 16 + nr;
}

/* lg(x) for x >= 1, to a tenth: enough to rank word frequencies, and
 * it keeps the library free of libm. */
static double lg(double x)
{
	double r = 0;
	while (x >= 10) {
		x /= 10;
		r += 1;
	}
	/* 1 <= x < 10: a few linear pieces of log10 */
	static const double at[] = {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	static const double lv[] = {0, .1761, .3010, .4771, .6021, .6990, .7782, .8451, .9031, .9542, 1};
	for (int i = 0; i < 10; i++)
		if (x < at[i + 1])
			return r + lv[i] + (lv[i + 1] - lv[i]) * (x - at[i]) / (at[i + 1] - at[i]);
	return r + 1;
}

/* Frequency of s (n bytes) in the model, read as simplified text. */
static uint32_t ms_freq(const ms_cfg *c, const jh_wordmap *m, const char *s, size_t n)
{
	char buf[128];
	if (!c->t2s || n > 32)
		return jh_wm_get(m, s, n);
	return jh_wm_get(m, buf, ms_simplify(c, s, n, buf));
}

/* Score of fill w in its context: the log10 probability of the best
 * segmentation of context + w + context into dictionary words (a unigram
 * word model, Viterbi over at most MS_CTX + MS_MAX_FILL + MS_CTX
 * characters), as jieba segments text.  A fill that makes words with its
 * neighbours (亲*待 → 亲自 + 交待, 手*弹 → 手榴弹) beats one that leaves
 * characters stranded; a longer fill pays for each word it adds, which is
 * the right prior.  A fill that sites mask gets MS_MASKED_PRIOR.  *joins
 * counts the mask's two boundaries crossed by a word of the segmentation. */
#define MS_LOG_TOTAL 7.8     /* log10 of the summed frequencies of jieba's dictionary */
#define MS_UNKNOWN (-9.0)    /* log10 probability of a character the model lacks */
#define MS_MASKED_PRIOR 1.0
#ifndef MS_SINGLE_PENALTY
#define MS_SINGLE_PENALTY 1.5
#endif
#define MS_SEG (MS_CTX * 2 + MS_MAX_FILL)

/* What every candidate of one mask shares: the simplified context on each
 * side, the Viterbi scores of the left context alone and the word scores
 * of stretches inside the right context.  ms_score recomputed them for
 * each of the hundreds of candidates a mask gets; ms_score_in reuses
 * them and gives the same scores (the same sums in the same order). */
typedef struct {
	char left[MS_CTX * 4 + 1], right[MS_CTX * 4 + 1];
	size_t lpos[MS_CTX + 1], rpos[MS_CTX + 1]; /* character starts, and the end */
	int nlc, nrc;                               /* characters on each side */
	double dp[MS_CTX + 1];
	int from[MS_CTX + 1];
	double rlp[MS_CTX + 1][MS_CTX + 1];         /* word score of right [a, b) */
	uint8_t lext[MS_CTX + 1];                   /* left [j, end) begins a longer word */
} ms_ctx;

static double ms_lp(const ms_cfg *c, const char *s, size_t n, int chars)
{
	uint32_t f = jh_wm_get(c->words, s, n);
	return f ? lg((double)f) - MS_LOG_TOTAL : (chars == 1 ? MS_UNKNOWN : -1e9);
}

static int char_starts(const char *s, size_t n, size_t *pos, int max)
{
	int k = 0;
	for (size_t p = 0; p < n && k < max;) {
		int32_t cp;
		pos[k++] = p;
		p += jh_utf8_decode((const unsigned char *)s + p, n - p, &cp);
	}
	pos[k] = n;
	return k;
}

static void ms_ctx_init(const ms_cfg *c, const char *t, const size_t *lb, int nl, const size_t *ra,
                        int nr, ms_ctx *x)
{
	size_t ll = ms_simplify(c, t + lb[nl], lb[0] - lb[nl], x->left);
	size_t rl = ms_simplify(c, t + ra[0], ra[nr] - ra[0], x->right);
	x->nlc = char_starts(x->left, ll, x->lpos, MS_CTX);
	x->nrc = char_starts(x->right, rl, x->rpos, MS_CTX);
	x->dp[0] = 0;
	for (int i = 1; i <= x->nlc; i++) {
		x->dp[i] = -1e9;
		x->from[i] = i - 1;
		for (int j = i - 1; j >= 0 && i - j <= 5; j--) {
			double lp = ms_lp(c, x->left + x->lpos[j], x->lpos[i] - x->lpos[j], i - j);
			if (x->dp[j] + lp > x->dp[i]) {
				x->dp[i] = x->dp[j] + lp;
				x->from[i] = j;
			}
		}
	}
	for (int a = 0; a < x->nrc; a++)
		for (int b = a + 1; b <= x->nrc && b - a <= 5; b++)
			x->rlp[a][b] = ms_lp(c, x->right + x->rpos[a], x->rpos[b] - x->rpos[a], b - a);
	for (int j = 0; j < x->nlc; j++) {
		int ext = 0;
		if (x->nlc - j <= JH_WM_PREFIX)
			jh_wm_look(c->words, x->left + x->lpos[j], x->lpos[x->nlc] - x->lpos[j], &ext);
		x->lext[j] = (uint8_t)ext;
	}
}

/* Word scores lp[i][d] of the pieces [i - d, i) that end after the left
 * context (i >= i0), as ms_lp gives them, found by walking forward from
 * each start while the piece read so far begins some word (WM_EXT): a
 * piece that begins no word cannot be one, and stays at ms_lp's score of
 * a non-word.  Starts in the left context walk on only if the rest of the
 * left context begins a word (x->lext); starts in the right context are
 * skipped when skip_right (their scores are x->rlp). */
static void ms_piece_scores(const ms_cfg *c, const ms_ctx *x, const char *buf, const size_t *pos,
                            int n, int i0, int c2, int skip_right, double lp[][6])
{
	for (int i = i0; i <= n; i++)
		for (int d = 1; d <= 5; d++)
			lp[i][d] = d == 1 ? MS_UNKNOWN : -1e9;
	int last = skip_right ? c2 : n;
	for (int j = i0 - 5 > 0 ? i0 - 5 : 0; j < last; j++) {
		int i = j + 1;
		if (j < i0 - 1) { /* in the left context: [j, i0 - 1) was looked up once per mask */
			if (!x->lext[j])
				continue;
			i = i0;
		}
		for (; i <= n && i - j <= 5; i++) {
			int ext;
			uint32_t f = jh_wm_look(c->words, buf + pos[j], pos[i] - pos[j], &ext);
			if (f)
				lp[i][i - j] = lg((double)f) - MS_LOG_TOTAL;
			if (!ext)
				break;
		}
	}
}

static double ms_score(const ms_cfg *c, const ms_ctx *x, const char *w, size_t wn, int *joins)
{
	*joins = 0;
	if (wn > MS_MAX_FILL * 4)
		return -1e9; /* longer than any fill ms_add keeps (and than buf) */
	char buf[MS_SEG * 4 + 4];
	size_t pos[MS_SEG + 1]; /* character starts in buf */
	size_t ll = x->lpos[x->nlc], rl = x->rpos[x->nrc];
	memcpy(buf, x->left, ll);
	size_t b2 = ll + ms_simplify(c, w, wn, buf + ll);
	memcpy(buf + b2, x->right, rl);
	size_t bl = b2 + rl;
	int n = 0, c1 = -1, c2 = -1;
	for (size_t p = 0; p < bl && n < MS_SEG;) {
		if (p == ll)
			c1 = n;
		if (p == b2)
			c2 = n;
		int32_t cp;
		pos[n++] = p;
		p += jh_utf8_decode((const unsigned char *)buf + p, bl - p, &cp);
	}
	pos[n] = bl; /* a text cut at MS_SEG characters ends in one long last piece */
	if (c2 < 0)
		c2 = n;
	if (c1 < 0)
		c1 = n;
	double dp[MS_SEG + 1];
	int from[MS_SEG + 1], i0 = 1;
	dp[0] = 0;
	if (c1 == x->nlc) { /* the left context alone: scored once per mask */
		memcpy(dp, x->dp, (size_t)(c1 + 1) * sizeof *dp);
		memcpy(from, x->from, (size_t)(c1 + 1) * sizeof *from);
		i0 = c1 + 1;
	}
	/* inside the right context, as ms_ctx_init scored it (unless cut) */
	int right[MS_SEG + 1], all_right = 1;
	for (int i = i0; i <= n; i++) {
		right[i] = i > c2 && i - c2 <= x->nrc && pos[i] == b2 + x->rpos[i - c2];
		if (i > c2 && !right[i])
			all_right = 0;
	}
	double lpt[MS_SEG + 1][6];
	if (i0 > 1)
		ms_piece_scores(c, x, buf, pos, n, i0, c2, all_right, lpt);
	for (int i = i0; i <= n; i++) {
		dp[i] = -1e9;
		from[i] = i - 1;
		for (int j = i - 1; j >= 0 && i - j <= 5; j--) {
			double lp = right[i] && j >= c2 ? x->rlp[j - c2][i - c2]
			            : i0 > 1            ? lpt[i][i - j]
			                                : ms_lp(c, buf + pos[j], pos[i] - pos[j], i - j);
			if (dp[j] + lp > dp[i]) {
				dp[i] = dp[j] + lp;
				from[i] = j;
			}
		}
	}
	for (int i = n; i > 0; i = from[i]) { /* words crossing a boundary of the fill */
		int j = from[i];
		*joins += (j < c1 && i > c1) + (j < c2 && i > c2);
	}
	double sc = dp[n];
	if (c2 - c1 == 1)
		sc -= MS_SINGLE_PENALTY; /* sites mask words; one masked character is rarer */
	if (c->masked.n && ms_freq(c, &c->masked, w, wn))
		sc += MS_MASKED_PRIOR;
	return sc;
}

static void ms_add(ms_cand *v, int *n, const char *w, size_t wn, double score)
{
	if (!wn || wn > MS_MAX_FILL * 4)
		return;
	for (int i = 0; i < *n; i++)
		if (v[i].n == wn && !memcmp(v[i].w, w, wn)) {
			if (score > v[i].score)
				v[i].score = score;
			return;
		}
	int at = *n;
	if (*n == MS_MAX_CAND) { /* replace the weakest */
		at = 0;
		for (int i = 1; i < *n; i++)
			if (v[i].score < v[at].score)
				at = i;
		if (v[at].score >= score)
			return;
	} else {
		(*n)++;
	}
	memcpy(v[at].w, w, wn);
	v[at].w[wn] = '\0';
	v[at].n = wn;
	v[at].score = score;
}

#define MS_DOC_WINDOW 100000 /* bytes searched on each side for recurring context */
#define MS_DOC_HITS 12       /* occurrences used per side: enough to find a recurring name */

/* ---- where each pair of Han characters occurs ----
 *
 * The recurring-context search below looks for two or three Han
 * characters in 200 KB around every mask; with memmem that was a tenth of
 * a check of damaged text.  The text is indexed instead, in blocks of
 * PB_SIZE bytes, each built the first time a mask's window reaches it and
 * dropped once the masks (which come in text order) have passed it: a
 * chained hash from a character pair to the offsets where it starts, in
 * text order.  Chains are by hash, so a hit is still compared in full. */
#define PB_SIZE ((size_t)1 << 16)

typedef struct {
	uint32_t *head;        /* hash -> first entry + 1 */
	uint32_t *pos, *next;  /* entry: offset of the pair in the block; next entry + 1 */
	uint32_t mask;
} pair_block;

typedef struct {
	pair_block *b;   /* blocks first .. first + n - 1 (NULL head = not built) */
	size_t first, n;
} ms_state;

static inline uint32_t pair_hash(int32_t a, int32_t b)
{
	return ((uint32_t)a * 0x9E3779B1u) ^ ((uint32_t)b * 0x85EBCA77u);
}

static void pb_free(pair_block *b)
{
	free(b->head);
	free(b->pos);
	free(b->next);
	*b = (pair_block){0};
}

static int pb_build(pair_block *b, const char *t, size_t len, size_t start)
{
	size_t end = start + PB_SIZE < len ? start + PB_SIZE : len, n = 0, cap = (end - start) / 3 + 1;
	uint32_t *pos = malloc(cap * sizeof *pos), *hs = malloc(cap * sizeof *hs);
	if (!pos || !hs)
		goto nomem;
	size_t p = start;
	while (p < end && ((unsigned char)t[p] & 0xC0) == 0x80)
		p++; /* the character that began in the block before is indexed there */
	size_t cl;
	int32_t cp = cp_at(t, len, p, &cl);
	while (p < end) {
		size_t nl;
		int32_t next = cp_at(t, len, p + cl, &nl);
		if (is_han(cp) && is_han(next)) {
			if (n == cap) { /* only Han pairs are kept: three bytes each at least */
				cap *= 2;
				uint32_t *np = realloc(pos, cap * sizeof *pos), *nh = np ? realloc(hs, cap * sizeof *hs) : NULL;
				if (np)
					pos = np;
				if (!nh)
					goto nomem;
				hs = nh;
			}
			pos[n] = (uint32_t)(p - start);
			hs[n++] = pair_hash(cp, next);
		}
		p += cl ? cl : 1;
		cp = next;
		cl = nl;
	}
	uint32_t size = 16;
	while (size < n)
		size *= 2;
	b->head = calloc(size, sizeof *b->head);
	b->next = malloc((n ? n : 1) * sizeof *b->next);
	if (!b->head || !b->next)
		goto nomem;
	b->mask = size - 1;
	for (size_t i = n; i-- > 0;) { /* prepended backwards: chains in text order */
		uint32_t h = hs[i] & b->mask;
		b->next[i] = b->head[h];
		b->head[h] = (uint32_t)i + 1;
	}
	b->pos = pos;
	free(hs);
	return JH_OK;
nomem:
	free(pos);
	free(hs);
	pb_free(b);
	return JH_ERR_NOMEM;
}

/* The blocks covering [lo, hi), built; those before lo's are dropped. */
static int ms_blocks(ms_state *st, const char *t, size_t len, size_t lo, size_t hi)
{
	size_t f = lo / PB_SIZE, l = (hi ? hi - 1 : 0) / PB_SIZE;
	if (st->n && f < st->first) /* not in text order after all: start again */
		while (st->n)
			pb_free(&st->b[--st->n]);
	while (st->n && st->first < f) { /* the masks have passed it */
		pb_free(&st->b[0]);
		memmove(st->b, st->b + 1, --st->n * sizeof *st->b);
		st->first++;
	}
	if (!st->n)
		st->first = f;
	if (l - st->first + 1 > st->n) {
		pair_block *nb = realloc(st->b, (l - st->first + 1) * sizeof *nb);
		if (!nb)
			return JH_ERR_NOMEM;
		memset(nb + st->n, 0, (l - st->first + 1 - st->n) * sizeof *nb);
		st->b = nb;
		st->n = l - st->first + 1;
	}
	for (size_t k = f; k <= l; k++)
		if (!st->b[k - st->first].head && pb_build(&st->b[k - st->first], t, len, k * PB_SIZE))
			return JH_ERR_NOMEM;
	return JH_OK;
}

static void ms_state_free(ms_state *st)
{
	if (!st)
		return;
	for (size_t k = 0; k < st->n; k++)
		pb_free(&st->b[k]);
	free(st->b);
	free(st);
}

/* The next occurrence of key (kn bytes, two or more Han characters) that
 * starts at or after q and ends by hi, or SIZE_MAX: what memmem(t + q,
 * hi - q, key, kn) finds. */
static size_t ms_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key, size_t kn)
{
	size_t l1, l2;
	int32_t a = cp_at(key, kn, 0, &l1), b = cp_at(key, kn, l1, &l2);
	uint32_t h = pair_hash(a, b);
	for (size_t k = q / PB_SIZE; k < st->first + st->n && k * PB_SIZE + kn <= hi; k++) {
		const pair_block *pb = &st->b[k - st->first];
		size_t base = k * PB_SIZE;
		for (uint32_t e = pb->head[h & pb->mask]; e; e = pb->next[e - 1]) {
			size_t at = base + pb->pos[e - 1];
			if (at < q)
				continue;
			if (at + kn > hi)
				return SIZE_MAX; /* chains run in text order */
			if (!memcmp(t + at, key, kn))
				return at;
		}
	}
	return SIZE_MAX;
}

/* Candidates from the document itself: names and terms recur in a novel
 * (**夫上校 here, 巴达诺夫上校 a page before).  Where the two or three Han
 * characters after the mask occur elsewhere, the one to four Han
 * characters before that occurrence are candidates, and the same on the
 * left.  The search is bounded to a window around the mask. */
static int ms_doc_candidates(const ms_cfg *c, const ms_ctx *x, ms_state *st, const char *t, size_t len,
                             size_t s, size_t e, const size_t *lb, int nl, const size_t *ra, int nr,
                             ms_cand *v, int *n)
{
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - e > MS_DOC_WINDOW ? e + MS_DOC_WINDOW : len;
	if ((nl >= 2 || nr >= 2) && ms_blocks(st, t, len, lo, hi))
		return JH_ERR_NOMEM;
	for (int side = 0; side < 2; side++) {
		int have = side ? nl : nr;
		if (have < 2)
			continue;
		int k = have < 3 ? have : 3;
		const char *key = side ? t + lb[k] : t + ra[0];
		size_t kn = side ? lb[0] - lb[k] : ra[k] - ra[0];
		int hits = 0;
		for (size_t q = lo; q + kn <= hi && hits < MS_DOC_HITS;) {
			size_t at = ms_find(st, t, q, hi, key, kn);
			if (at == SIZE_MAX)
				break;
			q = at + kn;
			size_t ends[MS_MAX_FILL + 1], nc = 0;
			if ((side && at == lb[k]) || (!side && at == ra[0]))
				continue;
			hits++;
			ends[0] = side ? at + kn : at;
			for (size_t p = ends[0]; nc < MS_MAX_FILL;) { /* Han characters beside it */
				size_t back = 0, cl = 0;
				int32_t cp = side ? cp_at(t, len, p, &cl) : cp_before(t, p, &back);
				if (!is_han(cp))
					break;
				p = side ? p + cl : back;
				ends[++nc] = p;
			}
			/* the mask begins (ends) the Han run, and so does the string
			 * here: only the whole string fits (，**夫上校 → 巴达诺, not 诺) */
			int whole = (side ? nr : nl) == 0 && nc < MS_MAX_FILL;
			for (size_t j = whole ? nc : 1; j <= nc; j++) {
				size_t a = side ? ends[0] : ends[j], b = side ? ends[j] : ends[0];
				int joins;
				double sc = ms_score(c, x, t + a, b - a, &joins);
				/* a recurring string earns back what the model charges for
				 * characters it does not know (a name is seldom a word) */
				ms_add(v, n, t + a, b - a, sc + 1.0 + 0.5 * (double)k + 8.0 * (double)(j - 1));
			}
		}
	}
	return JH_OK;
}

static int cmp_cand(const void *a, const void *b);

#define MS_COMBINE 16

/* Two-character fills made of the last character of a word begun on the
 * left and the first of a word ended on the right (亲*待 → 亲自 + 交待 →
 * 自交).  The best MS_COMBINE one-character candidates are paired. */
static void ms_combine(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl, const size_t *ra,
                       int nr, ms_cand *v, int *n)
{
	if (!nl || !nr || *n < 2)
		return;
	qsort(v, (size_t)*n, sizeof *v, cmp_cand);
	ms_cand top[MS_COMBINE];
	int m = *n < MS_COMBINE ? *n : MS_COMBINE;
	memcpy(top, v, (size_t)m * sizeof *top);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++) {
			if (i == j || jh_utf8_count(top[i].w, top[i].n) != 1 ||
			    jh_utf8_count(top[j].w, top[j].n) != 1)
				continue; /* longer parts pair up words that merely touch */
			char w[MS_MAX_FILL * 4 + 1];
			memcpy(w, top[i].w, top[i].n);
			memcpy(w + top[i].n, top[j].w, top[j].n);
			int joins;
			double s = ms_score(c, x, w, top[i].n + top[j].n, &joins);
			if (joins == 2)
				ms_add(v, n, w, top[i].n + top[j].n, s);
		}
}

static int cmp_cand(const void *a, const void *b)
{
	const ms_cand *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : strcmp(x->w, y->w);
}

static int cmp_key(const void *a, const void *b)
{
	const struct ms_key *x = a, *y = b;
	return x->cp != y->cp ? (x->cp > y->cp) - (x->cp < y->cp) : (x->i > y->i) - (x->i < y->i);
}

/* Index the masked words by first (last = 0) or last character. */
static int ms_index_masked(const jh_wordmap *m, int last, struct ms_key **out)
{
	struct ms_key *k = malloc((m->n ? m->n : 1) * sizeof *k);
	if (!k)
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const char *w = m->buf + m->off[i];
		size_t at = last ? jh_utf8_start_back(w, m->len[i]) : 0;
		jh_utf8_decode((const unsigned char *)w + at, m->len[i] - at, &k[i].cp);
		k[i].i = (uint32_t)i;
	}
	qsort(k, m->n, sizeof *k, cmp_key);
	*out = k;
	return JH_OK;
}

/* Mark the masked words whose first (or last) character is cp. */
static void ms_mark(const struct ms_key *k, size_t n, int32_t cp, uint8_t *mark)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && k[lo].cp == cp; lo++)
		mark[k[lo].i] = 1;
}

/* Mark the masked words that make a two-character word with the context
 * character on either side (lc + their first character, or their last
 * character + rc): a quick filter before the full score.  The model's
 * two-character words that begin with lc (or end with rc) are few, so
 * they are enumerated from the sorted indexes and each confirmed with
 * jh_wm_get, the test a word-by-word filter would make. */
static void ms_touching(const ms_cfg *c, const char *lc, size_t lcn, const char *rc, size_t rcn,
                        uint8_t *mark)
{
	const jh_wordmap *m = c->words;
	for (int side = 0; side < 2; side++) {
		const char *key = side ? rc : lc;
		size_t kn = side ? rcn : lcn;
		if (!kn)
			continue;
		const uint32_t *idx = side ? m->by_suffix : m->by_prefix;
		size_t lo = 0, hi = m->n;
		if (side)
			jh_wm_suffix_run(m, key, kn, &lo, &hi);
		for (size_t i = jh_wm_lower(m, idx, lo, hi, key, kn, side); i < hi; i++) {
			const char *w = m->buf + m->off[idx[i]];
			size_t wn = m->len[idx[i]];
			if (wn < kn || memcmp(side ? w + wn - kn : w, key, kn))
				break;
			int32_t cp;
			const char *o = side ? w : w + kn; /* the other character */
			size_t on = jh_utf8_decode((const unsigned char *)o, wn - kn, &cp);
			if (on != wn - kn || cp < 0 || !jh_wm_get(m, w, wn))
				continue; /* not a two-character word, or frequency 0 */
			ms_mark(side ? c->by_last : c->by_first, c->masked.n, cp, mark);
		}
	}
}

#define MS_LISTED 1e6 /* the score of a listed word left to the model */

/* Gather fills: the masked-word list, and every dictionary word that spans
 * the mask (its start in the left context and/or its end in the right
 * context: **不离十 → 八九不离十 gives 八九). */
static int ms_candidates(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl,
                         const size_t *ra, int nr, ms_cand *v)
{
	int n = 0, joins;
	char lc[8], rc[8]; /* the context characters touching the mask, simplified */
	size_t lcn = nl ? ms_simplify(c, t + lb[1], lb[0] - lb[1], lc) : 0;
	size_t rcn = nr ? ms_simplify(c, t + ra[0], ra[1] - ra[0], rc) : 0;
	uint8_t *mark = c->masked.n ? calloc(c->masked.n, 1) : NULL;
	if (c->masked.n && !mark)
		return -1;
	if (mark)
		ms_touching(c, lc, lcn, rc, rcn, mark);
	int listed = 0;
	for (size_t i = 0; i < c->masked.n; i++) { /* in list order, as ranked ties expect */
		const char *w = c->masked.buf + c->masked.off[i];
		size_t wn = c->masked.len[i];
		if (!mark[i])
			continue; /* most listed words fit nowhere */
		if (c->mr) { /* the model scores them (ms_restore): kept apart, unscored */
			if (listed < MS_MAX_CAND / 2 && ++listed)
				ms_add(v, &n, w, wn, MS_LISTED);
			continue;
		}
		double s = ms_score(c, x, w, wn, &joins);
		if (joins)
			ms_add(v, &n, w, wn, s);
	}
	free(mark);
	const jh_wordmap *m = c->words;
	char rctx[64];
	size_t rctx_n = ms_simplify(c, t + ra[0], ra[nr] - ra[0], rctx);
	for (int k = 1; k <= nl && k <= 3; k++) { /* words starting in the left context */
		char kb[64];
		const char *key = kb;
		size_t kn = ms_simplify(c, t + lb[k], lb[0] - lb[k], kb);
		for (size_t i = jh_wm_lower(m, m->by_prefix, 0, m->n, key, kn, 0); i < m->n; i++) {
			uint32_t wi = m->by_prefix[i];
			const char *w = m->buf + m->off[wi];
			size_t wn = m->len[wi];
			if (wn < kn || memcmp(w, key, kn))
				break;
			/* the rest of the word: fill, then maybe a prefix of the right context */
			for (size_t fe = kn; fe < wn;) {
				int32_t cp;
				fe += jh_utf8_decode((const unsigned char *)w + fe, wn - fe, &cp);
				size_t rest = wn - fe;
				if (k == 1 && !rest && fe - kn > 4)
					continue; /* one context character: only bridges and two-character words */
				if (rest > rctx_n || memcmp(w + fe, rctx, rest))
					continue;
				if (rest < rctx_n && ((unsigned char)rctx[rest] & 0xC0) == 0x80)
					continue;
				double s = ms_score(c, x, w + kn, fe - kn, &joins);
				ms_add(v, &n, w + kn, fe - kn, s);
			}
		}
	}
	for (int k = 2; k <= nr && k <= 3; k++) { /* words ending in the right context
	                                          * (one character: bridges are found above) */
		char kb[64];
		const char *key = kb;
		size_t kn = ms_simplify(c, t + ra[0], ra[k] - ra[0], kb);
		size_t lo, hi;
		jh_wm_suffix_run(m, key, kn, &lo, &hi);
		for (size_t i = jh_wm_lower(m, m->by_suffix, lo, hi, key, kn, 1); i < hi; i++) {
			uint32_t wi = m->by_suffix[i];
			const char *w = m->buf + m->off[wi];
			size_t wn = m->len[wi];
			if (wn < kn || memcmp(w + wn - kn, key, kn))
				break;
			if (wn == kn)
				continue;
			double s = ms_score(c, x, w, wn - kn, &joins);
			ms_add(v, &n, w, wn - kn, s);
		}
	}
	return n;
}

/* Is the star run [s, e) one side of Markdown emphasis (**粗体**): a run
 * of the same length within 30 characters on the same line, with no
 * sentence punctuation between?  Masks repeat on a line too (帝**人…亲*待),
 * but with prose and punctuation between them. */
static int ms_emphasis(const char *t, size_t len, size_t s, size_t e)
{
	size_t rl = e - s;
	for (int dir = 0; dir < 2; dir++) {
		size_t p = dir ? e : s, chars = 0;
		while (chars < 30) {
			size_t q = 0, n = 0;
			int32_t cp = dir ? cp_at(t, len, p, &n) : cp_before(t, p, &q);
			if (cp < 0 || cp == '\n' || cp == 0x3002 || cp == 0xFF0C || cp == 0xFF01 ||
			    cp == 0xFF1F || cp == 0xFF1B)
				break;
			if (cp == '*') {
				size_t a = dir ? p : q, b = a;
				while (a > 0 && t[a - 1] == '*')
					a--;
				while (b < len && t[b] == '*')
					b++;
				return b - a == rl;
			}
			p = dir ? p + n : q;
			chars++;
		}
	}
	return 0;
}

static int ms_load(void *arg)
{
	lazy_arg *a = arg;
	ms_cfg *c = a->cfg;
	const jh_rule *r = c->rule;
	int rc = jh_wm_get_shared(r, c->words_file, c->words_line, 1, &c->words, a->diag_fn, a->payload);
	if (rc == JH_OK && c->masked_file)
		rc = jh_wm_load(&c->masked, r, c->masked_file, c->masked_line, 0, a->diag_fn, a->payload);
	if (rc == JH_OK)
		rc = ms_index_masked(&c->masked, 0, &c->by_first);
	if (rc == JH_OK)
		rc = ms_index_masked(&c->masked, 1, &c->by_last);
	if (rc == JH_OK && c->t2s_file)
		rc = ms_load_t2s(c, r, c->t2s_file, c->t2s_line, a->diag_fn, a->payload);
	if (rc == JH_OK && c->lm_file && c->lm_words_file) {
		rc = jh_mr_open(&c->mr, r, c->lm_file, c->lm_words_file, c->s2t_file, c->s2t_line,
		                a->diag_fn, a->payload);
		if (rc == JH_ERR_IO)
			rc = JH_OK; /* the model is not installed: rank by the unigram model */
	}
	return rc;
}

/* The Han characters of s (n bytes, simplified) as code points. */
static int ms_cps(const char *s, size_t n, int32_t *cp, int max)
{
	int k = 0;
	for (size_t p = 0; p < n && k < max;)
		p += jh_utf8_decode((const unsigned char *)s + p, n - p, &cp[k++]);
	return k;
}

/* Up to JH_MR_CTX characters of context for the model, simplified, from
 * at going back (dir < 0) or on: Han text and CJK punctuation, which the
 * model has words for (a sentence end after the mask says much).  *edge
 * says that the left context begins a line or the text. */
static int ms_lm_side(const ms_cfg *c, const char *t, size_t len, size_t at, int dir,
                      int32_t *cp, int *edge)
{
	int32_t got[JH_MR_CTX];
	int k = 0;
	*edge = 0;
	for (size_t p = at; k < JH_MR_CTX;) {
		size_t q = 0, n = 0;
		int32_t x = dir < 0 ? cp_before(t, p, &q) : cp_at(t, len, p, &n);
		if (x < 0 || x == '\n') {
			*edge = 1;
			break;
		}
		if (!is_han(x) && !(jh_class_of(x) & JH_C_CJK_PUNCT))
			break;
		if (c->t2s && x >= T2S_LO && x <= T2S_HI && c->t2s[x - T2S_LO])
			x = c->t2s[x - T2S_LO];
		got[k++] = x;
		p = dir < 0 ? q : p + n;
	}
	for (int i = 0; i < k; i++)
		cp[i] = dir < 0 ? got[k - 1 - i] : got[i];
	return k;
}

#define MS_EXTRA 16

/* Does the document write fill (fn bytes) elsewhere in the window
 * between the k Han characters before the mask and the k after it? */
static int ms_near(const ms_state *st, const char *t, size_t lo, size_t hi, const size_t *lb,
                   int nl, const size_t *ra, int nr, int k, const char *fill, size_t fn)
{
	if (nl < k || nr < k)
		return 0;
	char key[64];
	size_t ln = lb[0] - lb[k], rn = ra[k] - ra[0];
	if (ln + fn + rn > sizeof key)
		return 0;
	memcpy(key, t + lb[k], ln);
	memcpy(key + ln, fill, fn);
	memcpy(key + ln + fn, t + ra[0], rn);
	return ms_find(st, t, lo, hi, key, ln + fn + rn) != SIZE_MAX;
}

static int cmp_alt_p(const void *a, const void *b)
{
	const jh_mr_alt *x = a, *y = b;
	return x->p < y->p ? 1 : x->p > y->p ? -1 : 0;
}

/* Rank the mask's candidates with the word trigram model (mask_restore.c)
 * and report them; the fix is the best one only when its probability
 * reaches fill-threshold (percent), so that an unsafe fill is usually
 * right; otherwise the finding only lists the alternatives. */
static void ms_restore(jh_brun *run, const ms_cfg *c, const ms_ctx *x, ms_state *st,
                       const char *t, const size_t *lb, int nl, const size_t *ra, int nr,
                       const ms_cand *v, int n, const ms_cand *vd, int nd)
{
	jh_mr_query q = {0};
	int edge;
	q.nl = ms_lm_side(c, t, run->len, run->open_start, -1, q.left, &q.bos);
	q.nr = ms_lm_side(c, t, run->len, run->open_end, 1, q.right, &edge);
	q.run = (int)run->run_len;
	q.star = run->run_cp == '*' || run->run_cp == 0xFF0A;
	q.traditional = memcmp(t + lb[nl], x->left, lb[0] - lb[nl]) ||
	                memcmp(t + ra[0], x->right, ra[nr] - ra[0]);
	jh_mr_alt extra[2 * MS_MAX_CAND], alt[10];
	int ne = 0;
	/* the best MS_EXTRA of the list and dictionary, by the unigram model's
	 * score, and every string of the document */
	qsort((ms_cand *)v, (size_t)n, sizeof *v, cmp_cand);
	int nlisted = 0;
	while (nlisted < n && v[nlisted].score >= MS_LISTED)
		nlisted++;
	if (n > nlisted + MS_EXTRA)
		n = nlisted + MS_EXTRA;
	for (int k = 0; k < n + nd; k++) {
		const ms_cand *w = k < n ? &v[k] : &vd[k - n];
		jh_mr_alt *a = &extra[ne];
		memset(a, 0, sizeof *a);
		char simp[MS_MAX_FILL * 4 + 1];
		size_t sn = ms_simplify(c, w->w, w->n, simp);
		int32_t cp[MS_MAX_FILL + 1];
		a->n = ms_cps(simp, sn, cp, MS_MAX_FILL + 1);
		if (a->n > JH_MR_MAX_FILL || a->n < 1)
			continue;
		memcpy(a->cp, cp, (size_t)a->n * sizeof *cp);
		a->src = k >= n ? JH_MR_SRC_DOC : k >= nlisted ? JH_MR_SRC_DICT : 0;
		if (c->masked.n && ms_freq(c, &c->masked, w->w, w->n))
			a->src |= JH_MR_SRC_LISTED;
		if (a->src & JH_MR_SRC_DOC) { /* written so in the document */
			memcpy(a->text, w->w, w->n);
			a->text_len = w->n;
		}
		ne++;
	}
	int na = jh_mr_rank(c->mr, &q, extra, ne, alt, (int)c->max_suggestions);
	if (na < 0) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (na == 0)
		return;
	/* calibrated, with the document's evidence, and ranked by that */
	size_t s = run->open_start, e = run->open_end, len = run->len;
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - e > MS_DOC_WINDOW ? e + MS_DOC_WINDOW : len;
	int have = nl >= 1 && nr >= 1;
	if (have && ms_blocks(st, t, len, lo, hi)) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	for (int i = 0; i < na; i++) {
		int n1 = have && ms_near(st, t, lo, hi, lb, nl, ra, nr, 1, alt[i].text, alt[i].text_len);
		int n2 = n1 && ms_near(st, t, lo, hi, lb, nl, ra, nr, 2, alt[i].text, alt[i].text_len);
#ifdef MS_TRACE /* what bench/restore-fit reads to fit jh_mr_calibrate */
		fprintf(stderr, "TRACE %zu %d %.6f %d %d %d %s\n", s, i, alt[i].p, n1, n2, alt[i].cross,
		        alt[i].text);
#endif
		alt[i].p = jh_mr_calibrate(alt[i].p, n1, n2, alt[i].cross);
	}
	qsort(alt, (size_t)na, sizeof *alt, cmp_alt_p);
	jh_buf msg = {0};
	int bad = jh_buf_puts(&msg, "被遮盖的词可能是：");
	for (int i = 0; i < na && !bad; i++) {
		char pc[32];
		snprintf(pc, sizeof pc, "（%d%%）", (int)(alt[i].p * 100 + 0.5));
		bad = (i && jh_buf_puts(&msg, "、")) || jh_buf_puts(&msg, alt[i].text) ||
		      jh_buf_puts(&msg, pc);
	}
	if (!bad)
		bad = jh_buf_terminate(&msg);
	int fill = run->rule->has_fix && alt[0].p * 100 >= (double)c->fill_percent;
	if (bad) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int rc = jh_findings_add(run->out, r->id, run->rule_index, r->severity, s, e, msg.data, fill ? alt[0].text : NULL,
		                         fill ? alt[0].text_len : 0, JH_UNSAFE);
		/* the ranked words as answers of their own, best first (the fill,
		 * when there is one) */
		for (int i = 0; rc == JH_OK && i < na; i++) {
			char w[sizeof alt[i].text];
			memcpy(w, alt[i].text, alt[i].text_len);
			w[alt[i].text_len] = '\0';
			jh_edit ed = {s, e, w};
			rc = jh_findings_add_scored_alternative(run->out, run->out->count - 1, &ed, 1,
			                                        alt[i].p);
		}
		if (rc)
			run->err = rc;
	}
	jh_buf_free(&msg);
}

static void ms_flush(jh_brun *run)
{
	if (!run->open)
		return;
	run->open = 0;
	const ms_cfg *c = run->cfg;
	const char *t = run->text;
	size_t len = run->len, s = run->open_start, e = run->open_end, n1, q;
	int32_t before = cp_before(t, s, &q), after = cp_at(t, len, e, &n1);
	/* The masks censor.mask and censor.mask.symbol find: Han before and
	 * nothing ASCII after but a line end (not 5*3, 因为*HANDLE, 前缀是*,),
	 * or Han after and CJK punctuation before (」**夫上校); not Markdown. */
	if (!(is_han(before) && (after < 0 || after >= 0x80 || after == '\n' || after == '\r')) &&
	    !(is_han(after) && before >= 0x80 && !(jh_class_of(before) & JH_C_SPACE)))
		return;
	if (run->run_len > 6 || (t[s] == '*' && ms_emphasis(t, len, s, e)))
		return;
	lazy_arg a = {(ms_cfg *)c, run->diag_fn, run->payload}; /* see mc_finish */
	if (jh_lazy_get(&((ms_cfg *)c)->once, ms_load, &a) != JH_OK)
		return;
	size_t lb[MS_CTX + 1], ra[MS_CTX + 1];
	int ctx = ms_context(t, len, s, e, lb, ra), nl = ctx / 16, nr = ctx % 16;
	ms_cand v[MS_MAX_CAND];
	ms_ctx x;
	ms_ctx_init(c, t, lb, nl, ra, nr, &x);
	int n = ms_candidates(c, &x, t, lb, nl, ra, nr, v);
	if (n < 0) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	ms_state *st = run->state;
	ms_cand vd[MS_MAX_CAND]; /* the document's own, apart for the model's prior */
	int nd = 0;
	if ((!st && !(st = run->state = calloc(1, sizeof *st))) ||
	    ms_doc_candidates(c, &x, st, t, len, s, e, lb, nl, ra, nr, c->mr ? vd : v,
	                      c->mr ? &nd : &n)) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (c->mr) {
		ms_restore(run, c, &x, st, t, lb, nl, ra, nr, v, n, vd, nd);
		return;
	}
	ms_combine(c, &x, t, lb, nl, ra, nr, v, &n);
	if (!n)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_cand);
	int joins;
	ms_score(c, &x, v[0].w, v[0].n, &joins);
	if (joins < (int)c->min_joins)
		return; /* the best fill makes no word with its neighbours: no evidence */
	jh_buf msg = {0};
	int bad = jh_buf_puts(&msg, "被遮盖的词可能是：");
	for (int i = 0; i < n && i < (int)c->max_suggestions && !bad; i++) {
		bad = (i && jh_buf_puts(&msg, "、")) || jh_buf_puts(&msg, v[i].w);
	}
	if (!bad)
		bad = jh_buf_terminate(&msg);
	if (bad) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int rc = jh_findings_add(run->out, r->id, run->rule_index, r->severity, s, e, msg.data,
		                         r->has_fix ? v[0].w : NULL, r->has_fix ? v[0].n : 0, JH_UNSAFE);
		/* the ranked words as answers of their own, the first the fix */
		for (int i = 0; rc == JH_OK && i < n && i < (int)c->max_suggestions; i++) {
			jh_edit alt = {s, e, v[i].w};
			rc = jh_findings_add_alternative(run->out, run->out->count - 1, &alt, 1);
		}
		if (rc)
			run->err = rc;
	}
	jh_buf_free(&msg);
}

static void ms_step(jh_brun *run, const jh_char *ch)
{
	if (!is_mask_cp(ch->cp)) {
		ms_flush(run);
		return;
	}
	if (run->open && ch->pos == run->open_end && ch->cp == run->run_cp) {
		run->open_end = ch->pos + ch->len;
		run->run_len++;
		return;
	}
	ms_flush(run);
	run->open = 1;
	run->run_cp = ch->cp;
	run->run_len = 1;
	run->open_start = ch->pos;
	run->open_end = ch->pos + ch->len;
}

static void ms_finish(jh_brun *run)
{
	ms_flush(run);
	ms_state_free(run->state);
	run->state = NULL;
}
const jh_builtin_def jh_checks_censor_suggest[] = {
	{"mask-suggest", JH_C_ASCII_PUNCT | JH_C_CJK_PUNCT | JH_C_OTHER, ms_params, ms_compile, ms_free,
	 ms_step, ms_finish},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
