/* censor_suggest_words.c — candidates for a mask from the dictionary
 * (words that span the mask, with a character or more of the context)
 * and from the list of words sites mask, with the unigram score that
 * ranks them when the word trigram model is not installed (and picks the
 * few it rescores when it is).  Part of the mask-suggest check
 * (censor_suggest.h). */
#include <stdlib.h>
#include <string.h>
#include "censor.h"
#include "censor_suggest.h"
#include "charclass.h"
#include "seg_step.h"
#include "utf8.h"

/* Copy n bytes of s to out (room for 4*chars), traditional characters
 * turned simplified; returns the length written. */
size_t ms_simplify(const ms_cfg *c, const char *s, size_t n, char *out)
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

/* The first eight bytes of w and its length, as one number: two
 * candidates with different keys differ, so ms_add compares bytes only
 * on a match (it is called a hundred times a mask over 64 entries). */
static uint64_t ms_key8(const char *w, size_t wn)
{
	uint64_t k = 0;
	memcpy(&k, w, wn < 8 ? wn : 8);
	return k ^ (uint64_t)wn << 59;
}

/* Byte offsets of up to MS_CTX Han characters before pos (lb[k] = start of
 * the k-th character back, lb[0] = pos) and after end. */
int ms_context(const char *t, size_t len, size_t pos, size_t end, size_t *lb, size_t *ra)
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
uint32_t ms_freq(const ms_cfg *c, const jh_wordmap *m, const char *s, size_t n)
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

static double ms_lp(const ms_cfg *c, const char *s, size_t n, int chars)
{
	uint32_t f = jh_wm_get(c->words, s, n);
	return f ? lg((double)f) - MS_LOG_TOTAL : (chars == 1 ? MS_UNKNOWN : -1e9);
}

/* The word scores of a window for jh_seg_step (seg_step.h): a piece
 * inside the right context as ms_ctx_init scored it (right[i]), a piece
 * ms_piece_scores scored (lpt), or looked up. */
typedef struct {
	const ms_cfg *c;
	const ms_ctx *x;
	const char *buf;
	const size_t *pos;
	const int *right; /* NULL: none of the right context's scores apply */
	double (*lpt)[6];
	int c2;
} seg_arg;

static double seg_cost(void *arg, int j, int i, uint32_t state, uint32_t *next)
{
	const seg_arg *a = arg;
	(void)state;
	(void)next;
	if (a->right && a->right[i] && j >= a->c2)
		return a->x->rlp[j - a->c2][i - a->c2];
	if (a->lpt)
		return a->lpt[i][i - j];
	return ms_lp(a->c, a->buf + a->pos[j], a->pos[i] - a->pos[j], i - j);
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

void ms_ctx_init(const ms_cfg *c, const char *t, const size_t *lb, int nl, const size_t *ra,
                        int nr, ms_ctx *x)
{
	size_t ll = ms_simplify(c, t + lb[nl], lb[0] - lb[nl], x->left);
	size_t rl = ms_simplify(c, t + ra[0], ra[nr] - ra[0], x->right);
	x->nlc = char_starts(x->left, ll, x->lpos, MS_CTX);
	x->nrc = char_starts(x->right, rl, x->rpos, MS_CTX);
	x->dp[0] = 0;
	seg_arg sa = {c, x, x->left, x->lpos, NULL, NULL, 0};
	for (int i = 1; i <= x->nlc; i++)
		jh_seg_step(x->dp, x->from, NULL, i, 0, 5, -1e9, seg_cost, &sa);
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

double ms_score(const ms_cfg *c, const ms_ctx *x, const char *w, size_t wn, int *joins)
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
	seg_arg a = {c, x, buf, pos, right, i0 > 1 ? lpt : NULL, c2};
	for (int i = i0; i <= n; i++)
		jh_seg_step(dp, from, NULL, i, 0, 5, -1e9, seg_cost, &a);
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

void ms_list_init(ms_list *l)
{
	l->n = 0;
	l->weak = -1;
	l->tomb = 0;
	memset(l->slot, 0, sizeof l->slot);
}

static size_t slot_of(uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 57) & (MS_ADD_SLOTS - 1);
}

static void slot_put(ms_list *l, int i)
{
	size_t h = slot_of(l->v[i].key);
	while (l->slot[h] > 0)
		h = (h + 1) & (MS_ADD_SLOTS - 1);
	if (l->slot[h] < 0)
		l->tomb--;
	l->slot[h] = (int8_t)(i + 1);
}

/* The slots again from the entries (after they were sorted, or when
 * replaced entries have left too many slots). */
void ms_list_reindex(ms_list *l)
{
	memset(l->slot, 0, sizeof l->slot);
	l->tomb = 0;
	l->weak = -1;
	for (int i = 0; i < l->n; i++)
		slot_put(l, i);
}

void ms_add(ms_list *l, const char *w, size_t wn, double score)
{
	if (!wn || wn > MS_MAX_FILL * 4)
		return;
	uint64_t key = ms_key8(w, wn);
	ms_cand *v = l->v;
	size_t h = slot_of(key);
	for (; l->slot[h]; h = (h + 1) & (MS_ADD_SLOTS - 1)) {
		int i = l->slot[h] - 1;
		if (i < 0)
			continue; /* left by a replaced entry */
		if (v[i].key == key && v[i].n == wn && (wn <= 8 || !memcmp(v[i].w, w, wn))) {
			if (score > v[i].score) {
				v[i].score = score;
				if (i == l->weak)
					l->weak = -1;
			}
			return;
		}
	}
	int at = l->n;
	if (l->n == MS_MAX_CAND) { /* replace the weakest: the first of least score */
		if (l->weak < 0) {
			at = 0;
			for (int i = 1; i < l->n; i++)
				if (v[i].score < v[at].score)
					at = i;
			l->weak = at;
		}
		at = l->weak;
		if (v[at].score >= score)
			return;
		for (h = slot_of(v[at].key); l->slot[h] != at + 1; h = (h + 1) & (MS_ADD_SLOTS - 1))
			;
		l->slot[h] = -1;
		l->tomb++;
		l->weak = -1;
	} else {
		l->n++;
	}
	memcpy(v[at].w, w, wn);
	v[at].w[wn] = '\0';
	v[at].n = wn;
	v[at].score = score;
	v[at].key = key;
	if (l->tomb > MS_ADD_SLOTS / 4)
		ms_list_reindex(l);
	else
		slot_put(l, at);
}


#define MS_COMBINE 16

/* Two-character fills made of the last character of a word begun on the
 * left and the first of a word ended on the right (亲*待 → 亲自 + 交待 →
 * 自交).  The best MS_COMBINE one-character candidates are paired. */
void ms_combine(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl, const size_t *ra,
                       int nr, ms_list *l)
{
	if (!nl || !nr || l->n < 2)
		return;
	ms_cand *v = l->v;
	qsort(v, (size_t)l->n, sizeof *v, cmp_cand);
	ms_list_reindex(l);
	ms_cand top[MS_COMBINE];
	int m = l->n < MS_COMBINE ? l->n : MS_COMBINE;
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
				ms_add(l, w, top[i].n + top[j].n, s);
		}
}

int cmp_cand(const void *a, const void *b)
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
int ms_index_masked(const jh_wordmap *m, int last, struct ms_key **out)
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
static void ms_mark(const struct ms_key *k, size_t n, int32_t cp, uint64_t *mark)
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
		mark[k[lo].i >> 6] |= 1ull << (k[lo].i & 63);
}

/* jh_wm_get of the word idx[i] of the sorted index idx (its run [lo,
 * hi)): the word's own frequency, read from the list, unless the list
 * holds the word twice (then beside it in the index), where the map
 * answers with the first of them. */
static uint32_t word_freq(const jh_wordmap *m, const uint32_t *idx, size_t i, size_t lo, size_t hi)
{
	uint32_t wi = idx[i];
	const char *w = m->buf + m->off[wi];
	size_t wn = m->len[wi];
	for (int d = -1; d <= 1; d += 2) {
		if ((d < 0 && i == lo) || (d > 0 && i + 1 >= hi))
			continue;
		uint32_t o = idx[i + (size_t)(ptrdiff_t)d];
		if (m->len[o] == wn && !memcmp(m->buf + m->off[o], w, wn))
			return jh_wm_get(m, w, wn);
	}
	return m->freq[wi];
}

/* Mark the masked words that make a two-character word with the context
 * character on either side (lc + their first character, or their last
 * character + rc): a quick filter before the full score.  The model's
 * two-character words that begin with lc (or end with rc) are few, so
 * they are enumerated from the sorted indexes and each confirmed with
 * jh_wm_get, the test a word-by-word filter would make. */
static void ms_touching(const ms_cfg *c, const char *lc, size_t lcn, const char *rc, size_t rcn,
                        uint64_t *mark)
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
			if (on != wn - kn || cp < 0 || !word_freq(m, idx, i, lo, hi))
				continue; /* not a two-character word, or frequency 0 */
			ms_mark(side ? c->by_last : c->by_first, c->masked.n, cp, mark);
		}
	}
}

/* Characters in s (n bytes of UTF-8). */
static int n_chars(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80;
	return k;
}

/* The score that picks which dictionary words spanning the mask are
 * kept.  With the trigram model, which scores each kept one in full: the
 * context characters the word covers beyond the first (a word that
 * bridges the mask, 手*弹 → 手榴弹, before one that only begins at its
 * left, 手机), then the whole word's frequency; as good a pick on
 * bench/restore's tuning split as the unigram window score, which was a
 * sixth of a mask's cost.  Without the model, that window score, which
 * ranks them. */
#define MS_COVER_BONUS 3.0
static double dict_score(const ms_cfg *c, const ms_ctx *x, const jh_wordmap *m, uint32_t wi,
                         int covered, const char *fill, size_t fn)
{
	int joins;
	if (c->mr)
		return MS_COVER_BONUS * (covered - 1) +
		       (m->freq[wi] ? lg((double)m->freq[wi]) : -1.0); /* 0: below every counted word */
	return ms_score(c, x, fill, fn, &joins);
}

/* Is a word of nch characters among the lengths of fit (bit n: n
 * characters)?  A listed word can be longer than the mask's 32 bits. */
static int fits_length(unsigned fit, size_t nch)
{
	return nch < 32 && (fit >> nch & 1);
}

/* Gather fills: the masked-word list, and every dictionary word that spans
 * the mask (its start in the left context and/or its end in the right
 * context: **不离十 → 八九不离十 gives 八九); only fills of n characters
 * with bit n of fit set (the lengths the model's ranking keeps: the
 * others took the places of ones it keeps, and their merging was a
 * tenth of a mask's cost). */
int ms_candidates(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl,
                         const size_t *ra, int nr, ms_list *l, unsigned fit)
{
	int joins;
	ms_list_init(l);
	char lc[8], rc[8]; /* the context characters touching the mask, simplified */
	size_t lcn = nl ? ms_simplify(c, t + lb[1], lb[0] - lb[1], lc) : 0;
	size_t rcn = nr ? ms_simplify(c, t + ra[0], ra[1] - ra[0], rc) : 0;
	/* a bit per listed word: the few marked are found a word of 64 bits
	 * at a time (walking every listed word was 7 k instructions a mask) */
	size_t nmark = (c->masked.n + 63) / 64;
	uint64_t *mark = c->masked.n ? calloc(nmark, sizeof *mark) : NULL;
	if (c->masked.n && !mark)
		return -1;
	if (mark)
		ms_touching(c, lc, lcn, rc, rcn, mark);
	int listed = 0;
	for (size_t blk = 0; blk < nmark; blk++) { /* in list order, as ranked ties expect */
		for (uint64_t bits = mark[blk]; bits; bits &= bits - 1) {
			size_t i = blk * 64 + (size_t)__builtin_ctzll(bits);
			const char *w = c->masked.buf + c->masked.off[i];
			size_t wn = c->masked.len[i];
			if (!fits_length(fit, n_chars(w, wn)))
				continue; /* most listed words fit nowhere */
			if (c->mr) { /* the model scores them (ms_restore): kept apart, unscored */
				if (listed < MS_MAX_CAND / 2 && ++listed)
					ms_add(l, w, wn, MS_LISTED);
				continue;
			}
			double s = ms_score(c, x, w, wn, &joins);
			if (joins)
				ms_add(l, w, wn, s);
		}
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
				if (!fits_length(fit, n_chars(w + kn, fe - kn)))
					continue; /* a length the ranking drops (jh_mr_fits) */
				double s = dict_score(c, x, m, wi, k + n_chars(w + fe, rest), w + kn, fe - kn);
				ms_add(l, w + kn, fe - kn, s);
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
			if (wn == kn || !fits_length(fit, n_chars(w, wn - kn)))
				continue;
			double s = dict_score(c, x, m, wi, k, w, wn - kn);
			ms_add(l, w, wn - kn, s);
		}
	}
	return l->n;
}

