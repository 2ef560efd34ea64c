/* censor_suggest_doc.c — the document's own strings as candidates for
 * a mask (names and terms recur in a novel), and whether the document
 * writes a candidate elsewhere between the same characters, found through
 * an index of where each pair of Han characters occurs.  Part of the
 * mask-suggest check (censor_suggest.h). */
#include <stdlib.h>
#include <string.h>
#include "censor.h"
#include "censor_suggest.h"
#include "charclass.h"
#include "utf8.h"

#define TOP_N 12  /* a block's most frequent pairs kept as topic words */
#define TOP_MIN 3 /* occurrences in the block, at least */

typedef struct {
	uint32_t *head;        /* hash -> first entry + 1 */
	uint32_t *pos, *next;  /* entry: offset of the pair in the block; next entry + 1 */
	uint32_t *hs;          /* entry: the pair's full hash, until top is made (NULL after) */
	uint32_t mask;
	uint32_t top[TOP_N];   /* offsets of the most frequent pairs, most frequent first */
	int n_top;
} pair_block;

struct ms_state {
	pair_block *b;   /* blocks first .. first + n - 1 (NULL head = not built) */
	size_t first, n;
};

ms_state *ms_state_new(void)
{
	return calloc(1, sizeof(ms_state));
}

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

static inline uint32_t pair_hash(int32_t a, int32_t b)
{
	return ((uint32_t)a * 0x9E3779B1u) ^ ((uint32_t)b * 0x85EBCA77u);
}

/* The Han character at pos (its code point, and its length in *n), or
 * -1 for any other character (*n its length, 0 at the end).  The block
 * index reads every character of the text around the masks: ASCII and
 * the three-byte characters of U+4E00..U+9FFF, most of a Chinese text,
 * are taken from the bytes without the general decoder's checks, which
 * were half of the index's cost. */
static inline int32_t han_at(const char *text, size_t len, size_t pos, size_t *n)
{
	const unsigned char *u = (const unsigned char *)text + pos;
	if (pos < len && u[0] < 0x80) {
		*n = 1;
		return -1;
	}
	if (len - pos >= 3 && u[0] >= 0xE4 && u[0] <= 0xE9 && (u[1] & 0xC0) == 0x80 &&
	    (u[2] & 0xC0) == 0x80) {
		int32_t v = (int32_t)(u[0] & 0x0F) << 12 | (int32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
		*n = 3;
		if (v >= 0x4E00)
			return v;
		return is_han(v) ? v : -1;
	}
	int32_t cp = cp_at(text, len, pos, n);
	return is_han(cp) ? cp : -1;
}

static void pb_free(pair_block *b)
{
	free(b->head);
	free(b->pos);
	free(b->next);
	free(b->hs);
	*b = (pair_block){0};
}

/* The pair hashed hv occurs how often in the chain from e on. */
static uint32_t chain_count(const pair_block *b, const uint32_t *hs, uint32_t e, uint32_t hv)
{
	uint32_t c = 0;
	for (; e; e = b->next[e - 1])
		c += hs[e - 1] == hv;
	return c;
}

/* b->top: the block's most frequent pairs (by their full hash; a rare
 * collision of two pairs only merges their counts), from its chains,
 * each pair counted at its first entry.  Made the first time a topic
 * word is asked of the block (masks of two characters): most blocks are
 * only searched, and counting was a quarter of building one. */
static void pb_top(pair_block *b)
{
	const uint32_t *hs = b->hs;
	if (!hs)
		return;
	uint32_t cnt[TOP_N];
	b->n_top = 0;
	for (uint32_t h = 0; h <= b->mask; h++)
		for (uint32_t e = b->head[h]; e; e = b->next[e - 1]) {
			uint32_t hv = hs[e - 1], f = b->head[h];
			while (f != e && hs[f - 1] != hv)
				f = b->next[f - 1];
			if (f != e)
				continue; /* counted at its first entry */
			uint32_t c = chain_count(b, hs, e, hv);
			if (c < TOP_MIN || (b->n_top == TOP_N && cnt[TOP_N - 1] >= c))
				continue;
			int k = b->n_top < TOP_N ? b->n_top++ : TOP_N - 1;
			for (; k > 0 && cnt[k - 1] < c; k--) {
				cnt[k] = cnt[k - 1];
				b->top[k] = b->top[k - 1];
			}
			cnt[k] = c;
			b->top[k] = b->pos[e - 1];
		}
	free(b->hs);
	b->hs = NULL;
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
	int32_t cp = han_at(t, len, p, &cl);
	while (p < end) {
		size_t nl;
		int32_t next = han_at(t, len, p + cl, &nl);
		if (cp >= 0 && next >= 0) {
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
	b->hs = hs;
	return JH_OK;
nomem:
	free(pos);
	free(hs);
	pb_free(b);
	return JH_ERR_NOMEM;
}

/* The blocks covering [lo, hi), built; those before lo's are dropped. */
int ms_blocks(ms_state *st, const char *t, size_t len, size_t lo, size_t hi)
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

void ms_state_free(ms_state *st)
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
size_t ms_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key, size_t kn)
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
int ms_doc_candidates(const ms_cfg *c, const ms_ctx *x, ms_state *st, const char *t, size_t len,
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
				/* with the model, which scores every string of the
				 * document itself, the unigram score only ordered them */
				double sc = c->mr ? 0 : ms_score(c, x, t + a, b - a, &joins);
				/* a recurring string earns back what the model charges for
				 * characters it does not know (a name is seldom a word) */
				ms_add(v, n, t + a, b - a, sc + 1.0 + 0.5 * (double)k + 8.0 * (double)(j - 1));
			}
		}
	}
	return JH_OK;
}

/* Does the document write fill (fn bytes) elsewhere in the window
 * between the k Han characters before the mask and the k after it? */
int ms_near(const ms_state *st, const char *t, size_t lo, size_t hi, const size_t *lb,
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


/* Topic words: the most frequent dictionary words of two Han characters
 * in the 64 KB block around the mask at s.  A novel's hidden words are
 * often its subject (骑兵, 日军, 咬住), which neither the model's
 * successors nor the strings beside the same context propose.  The
 * caller asks only for masks of two characters. */
int ms_topic_candidates(const ms_cfg *c, ms_state *st, const char *t, size_t len, size_t s,
                        ms_cand *v, int *n)
{
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - s > MS_DOC_WINDOW ? s + MS_DOC_WINDOW : len;
	if (ms_blocks(st, t, len, lo, hi))
		return JH_ERR_NOMEM;
	size_t k = s / PB_SIZE;
	if (k < st->first || k >= st->first + st->n)
		return JH_OK;
	pair_block *pb = &st->b[k - st->first];
	pb_top(pb);
	for (int i = 0; i < pb->n_top; i++) {
		size_t at = k * PB_SIZE + pb->top[i], l1, l2;
		cp_at(t, len, at, &l1);
		cp_at(t, len, at + l1, &l2);
		if (ms_freq(c, c->words, t + at, l1 + l2))
			ms_add(v, n, t + at, l1 + l2, 0);
	}
	return JH_OK;
}
