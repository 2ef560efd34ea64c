/* censor_suggest_doc.c — the document's own strings as candidates for
 * a mask (names and terms recur in a novel), and whether the document
 * writes a candidate elsewhere between the same characters, found through
 * an index of where each pair of Han characters occurs.  Part of the
 * mask-suggest check (censor_suggest.h). */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#define MS_X86 1
#include <immintrin.h>
#endif
#include "censor.h"
#include "censor_suggest.h"
#include "charclass.h"
#include "stops.h"
#include "utf8.h"

#define TOP_N 12  /* a block's most frequent pairs kept as topic words */
#define TOP_MIN 3 /* occurrences in the block, at least */

/* ---- where each pair of Han characters occurs ----
 *
 * The recurring-context search below looks for two or three Han
 * characters in 200 KB around every mask; with memmem that was a tenth of
 * a check of damaged text.  The text is indexed instead, in blocks of
 * PB_SIZE bytes, each built the first time a mask's window reaches it and
 * dropped once the masks (which come in text order) have passed it: the
 * offsets of the pairs that start in the block, grouped by a hash of the
 * pair (a counting sort into PB_BUCKETS buckets), in text order within a
 * bucket, each with its full hash, so that a search reads a few entries
 * and compares bytes only for the pair's own hash.  Arrays, not chains:
 * a chained build (a list node per pair and a head table sized to the
 * block) cost most of a mask on densely masked text. */
#define PB_SIZE ((size_t)1 << 16)
#define PB_BITS 13 /* a block holds at most PB_SIZE / 3 pairs: 2.7 a bucket */
#define PB_BUCKETS ((size_t)1 << PB_BITS)

typedef struct {
	uint16_t *start; /* bucket -> its first entry; start[PB_BUCKETS] = n (NULL: not built) */
	uint16_t *pos;   /* entry -> offset of the pair in the block */
	uint32_t *hv;    /* entry -> the pair's full hash */
	uint32_t n;
	int topped;      /* top made */
	uint32_t top[TOP_N]; /* offsets of the most frequent pairs, most frequent first */
	int n_top;
} pair_block;

struct ms_state {
	pair_block *b;   /* blocks first .. first + n - 1 */
	size_t first, n;
	uint16_t *tpos;  /* a build's pairs in text order (scratch, PB_SIZE / 3 + 1) */
	uint32_t *thv;
	uint16_t *cnt;   /* a build's bucket counts (scratch, PB_BUCKETS + 1) */
	int simd;        /* pb_pairs reads runs of Han characters four at a time (AVX2) */
	/* A mask far from the one before searches its window by scanning it
	 * for the characters beside the mask (every key it asks holds one
	 * of them) instead of indexing the window's blocks, which cost
	 * millions of instructions for one mask alone in a long text
	 * (scan: this mask's queries do so). */
	int scan, have_prev;
	size_t prev_s;
	char anc[2][4];          /* the character before the mask, and after */
	size_t al[2];            /* their lengths (0: none) */
	uint32_t *apos[2];       /* where each occurs in the window, in text order */
	size_t an[2], acap[2];
};

ms_state *ms_state_new(void)
{
	ms_state *st = calloc(1, sizeof(ms_state));
	if (st)
		st->simd = jh_plain_impl() == 2; /* the stop finder's choice: AVX2 here */
	return st;
}

static inline uint32_t pair_hash(int32_t a, int32_t b)
{
	return ((uint32_t)a * 0x9E3779B1u) ^ ((uint32_t)b * 0x85EBCA77u);
}

static inline size_t bucket_of(uint32_t hv)
{
	return hv >> (32 - PB_BITS);
}

/* The Han character at pos (its code point, and its length in *n), or
 * -1 for any other character (*n its length, 0 at the end).  The block
 * index reads every character of the text around the masks: ASCII and
 * the three-byte characters of U+4E00..U+9FFF, most of a Chinese text,
 * are taken from the bytes without the general decoder's checks.  What
 * it calls Han decides which pairs a block holds (and so the counts of
 * its topic words): U+9FF0..U+9FFF are, as they always were here. */
static inline int32_t han_at(const unsigned char *u, size_t len, size_t pos, size_t *n)
{
	unsigned b0 = u[pos];
	if (b0 - 0xE4u <= 5 && len - pos >= 3 && (u[pos + 1] & 0xC0) == 0x80 &&
	    (u[pos + 2] & 0xC0) == 0x80) {
		int32_t v = (int32_t)(b0 & 0x0F) << 12 | (int32_t)(u[pos + 1] & 0x3F) << 6 |
		            (u[pos + 2] & 0x3F);
		*n = 3;
		return v >= 0x4E00 || is_han(v) ? v : -1;
	}
	int32_t cp = cp_at((const char *)u, len, pos, n);
	return is_han(cp) ? cp : -1;
}

static void pb_free(pair_block *b)
{
	free(b->start);
	*b = (pair_block){0};
}

/* Where pb_pairs stands in a block: the pairs so far, and the character
 * before p (prev: its code point, -1 for none that pairs). */
typedef struct {
	uint32_t n;
	int32_t prev;
	uint32_t prev_h; /* prev's share of the pair hash */
	size_t prevp;
} pb_at;

#ifdef MS_X86
/* Runs of Han characters of U+4E00..U+9FFF (three bytes each, most of a
 * Chinese text) read eight (then four) at a time from p on: their code
 * points decoded, their pair hashes made and stored, side by side (a
 * character at a time this was most of a mask's cost on densely masked
 * text).  Stops before characters that are not all such, or that would
 * reach past end (starts) or len (reads); returns where it stopped. */
__attribute__((target("avx2"))) static size_t pb_han4(ms_state *st, const unsigned char *u,
                                                      size_t len, size_t start, size_t end,
                                                      size_t p, pb_at *a, uint16_t *cnt)
{
	uint16_t *tpos = st->tpos;
	uint32_t *thv = st->thv, n = a->n;
	/* each character's three bytes into a 32-bit lane, lead first */
	const __m256i shuf = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
	                                      0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
	const __m256i pat_m = _mm256_set1_epi32(0xC0C0F0), pat = _mm256_set1_epi32(0x8080E0);
	const __m256i lo_lead = _mm256_set1_epi32(0xE3), hi_lead = _mm256_set1_epi32(0xEA);
	const __m256i c1 = _mm256_set1_epi32((int)0x9E3779B1u), c2 = _mm256_set1_epi32((int)0x85EBCA77u);
	const __m256i han_min = _mm256_set1_epi32(0x4E00 - 1);
	const __m256i next = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
	const __m128i steps = _mm_setr_epi16(0, 3, 6, 9, 12, 15, 18, 21);
	for (int width = 8; width >= 4; width -= 4) {
		size_t bytes = (size_t)width * 3;
		while (p + bytes <= end && p + bytes + 4 <= len) {
			__m128i lo = _mm_loadu_si128((const __m128i *)(u + p));
			__m256i raw = _mm256_inserti128_si256(
			    _mm256_castsi128_si256(lo),
			    width == 8 ? _mm_loadu_si128((const __m128i *)(u + p + 12)) : lo, 1);
			__m256i v = _mm256_shuffle_epi8(raw, shuf);
			__m256i lead = _mm256_and_si256(v, _mm256_set1_epi32(0xFF));
			__m256i ok = _mm256_and_si256(
			    _mm256_cmpeq_epi32(_mm256_and_si256(v, pat_m), pat),
			    _mm256_and_si256(_mm256_cmpgt_epi32(lead, lo_lead), _mm256_cmpgt_epi32(hi_lead, lead)));
			__m256i cp = _mm256_or_si256(
			    _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x0F)), 12),
			                    _mm256_and_si256(_mm256_srli_epi32(v, 2), _mm256_set1_epi32(0x0FC0))),
			    _mm256_and_si256(_mm256_srli_epi32(v, 16), _mm256_set1_epi32(0x3F)));
			ok = _mm256_and_si256(ok, _mm256_cmpgt_epi32(cp, han_min));
			if (_mm256_movemask_epi8(ok) != -1)
				break;
			__m256i h1 = _mm256_mullo_epi32(cp, c1), h2 = _mm256_mullo_epi32(cp, c2);
			if (a->prev >= 0) { /* the character before pairs with the first */
				uint32_t hv = a->prev_h ^ (uint32_t)_mm256_cvtsi256_si32(h2);
				tpos[n] = (uint16_t)(a->prevp - start);
				thv[n++] = hv;
				cnt[bucket_of(hv) + 1]++;
			}
			/* the pairs inside: the first share of each and the second of
			 * the next (the last lane pairs with what follows: written, not
			 * counted, and overwritten next) */
			__m256i hv = _mm256_xor_si256(h1, _mm256_permutevar8x32_epi32(h2, next));
			_mm256_storeu_si256((__m256i *)(thv + n), hv);
			uint16_t o = (uint16_t)(p - start);
			_mm_storeu_si128((__m128i *)(tpos + n), _mm_add_epi16(_mm_set1_epi16((short)o), steps));
			uint32_t bk[8];
			_mm256_storeu_si256((__m256i *)bk,
			                    _mm256_srli_epi32(hv, 32 - PB_BITS)); /* bucket_of */
			for (int k = 0; k < width - 1; k++)
				cnt[bk[k] + 1]++;
			n += (uint32_t)width - 1;
			int32_t last[8];
			_mm256_storeu_si256((__m256i *)last, cp);
			a->prev = last[width - 1];
			_mm256_storeu_si256((__m256i *)last, h1);
			a->prev_h = (uint32_t)last[width - 1];
			a->prevp = p + bytes - 3;
			p += bytes;
		}
	}
	a->n = n;
	return p;
}
#endif

/* The pairs that start in [start, end): offsets and hashes in text
 * order into st's scratch, and the count of each bucket in cnt[bucket +
 * 1] (counted here, not in a second pass over the hashes); returns
 * their number. */
static uint32_t pb_pairs(ms_state *st, const char *t, size_t len, size_t start, size_t end,
                         uint16_t *cnt)
{
	const unsigned char *u = (const unsigned char *)t;
	uint32_t n = 0;
	size_t p = start;
	while (p < end && (u[p] & 0xC0) == 0x80)
		p++; /* the character that began in the block before is indexed there */
	int32_t prev = -1;
	uint32_t prev_h = 0; /* prev's share of the pair hash */
	size_t prevp = 0, cl;
	/* the common case read as one 32-bit word: a three-byte character
	 * with lead E4..E9 (U+4000..U+9FFF) */
	size_t fast_end = len >= 4 ? len - 3 : 0;
	int run_start = 1; /* p may begin a run of such characters */
	while (p < end) {
		int32_t cp;
		uint32_t w;
		if (p < fast_end && (memcpy(&w, u + p, 4), 1) &&
		    ((w & 0xC0C0F0u) == 0x8080E0u) && (w & 0xFFu) - 0xE4u <= 5) {
#ifdef MS_X86
			if (run_start && st->simd) { /* once a run: it reads on to the run's end */
				run_start = 0;
				pb_at a = {n, prev, prev_h, prevp};
				size_t q = pb_han4(st, u, len, start, end, p, &a, cnt);
				if (q != p) {
					n = a.n;
					prev = a.prev;
					prev_h = a.prev_h;
					prevp = a.prevp;
					p = q;
					continue;
				}
			}
#endif
			w = __builtin_bswap32(w) >> 8; /* lead, then the two continuation bytes */
			cp = (int32_t)((w >> 4 & 0xF000u) | (w >> 2 & 0x0FC0u) | (w & 0x3Fu));
			cl = 3;
			if (cp < 0x4E00 && !is_han(cp))
				cp = -1;
		} else if (u[p] < 0x80) { /* ASCII: no pair */
			prev = -1;
			run_start = 1;
			while (++p < end && u[p] < 0x80)
				;
			continue;
		} else {
			cp = han_at(u, len, p, &cl);
			run_start = 1;
		}
		if (cp >= 0) {
			if (prev >= 0) {
				uint32_t hv = prev_h ^ (uint32_t)cp * 0x85EBCA77u; /* pair_hash */
				st->tpos[n] = (uint16_t)(prevp - start);
				st->thv[n++] = hv;
				cnt[bucket_of(hv) + 1]++;
			}
			prev_h = (uint32_t)cp * 0x9E3779B1u;
		}
		prev = cp;
		prevp = p;
		p += cl;
	}
	/* the block's last character pairs with the first of the next */
	if (prev >= 0 && p < len && u[p] >= 0x80) {
		int32_t cp = han_at(u, len, p, &cl);
		if (cp >= 0) {
			st->tpos[n] = (uint16_t)(prevp - start);
			st->thv[n] = pair_hash(prev, cp);
			cnt[bucket_of(st->thv[n++]) + 1]++;
		}
	}
	return n;
}

static int pb_build(ms_state *st, pair_block *b, const char *t, size_t len, size_t start)
{
	/* cap: the most pairs a block holds, and room for pb_han4's last store */
	size_t end = start + PB_SIZE < len ? start + PB_SIZE : len, cap = PB_SIZE / 3 + 1 + 8;
	if (!st->tpos) {
		st->tpos = malloc(cap * sizeof *st->tpos);
		st->thv = malloc(cap * sizeof *st->thv);
		st->cnt = malloc((PB_BUCKETS + 1) * sizeof *st->cnt);
		if (!st->tpos || !st->thv || !st->cnt)
			return JH_ERR_NOMEM;
	}
	/* the bucket counts go where the bucket starts will be: the block's
	 * allocation waits for the number of pairs */
	uint16_t *cnt = st->cnt;
	memset(cnt, 0, (PB_BUCKETS + 1) * sizeof *cnt);
	uint32_t n = pb_pairs(st, t, len, start, end, cnt);
	/* one allocation: the bucket starts, the offsets, the hashes */
	size_t sz = (PB_BUCKETS + 1) * sizeof(uint16_t) + (size_t)n * sizeof(uint16_t);
	sz = (sz + 3) & ~(size_t)3;
	char *mem = malloc(sz + (size_t)n * sizeof(uint32_t));
	if (!mem)
		return JH_ERR_NOMEM;
	b->start = (uint16_t *)mem;
	b->pos = b->start + PB_BUCKETS + 1;
	b->hv = (uint32_t *)(mem + sz);
	b->n = n;
	uint16_t *at = b->start;
	at[0] = 0;
	for (size_t k = 0; k < PB_BUCKETS; k++)
		at[k + 1] = (uint16_t)(cnt[k + 1] + at[k]);
	/* placed in text order; start[k] runs to the next bucket's start
	 * meanwhile, and is moved back after */
	for (uint32_t i = 0; i < n; i++) {
		size_t k = bucket_of(st->thv[i]);
		uint16_t e = at[k]++;
		b->pos[e] = st->tpos[i];
		b->hv[e] = st->thv[i];
	}
	memmove(at + 1, at, PB_BUCKETS * sizeof *at);
	at[0] = 0;
	return JH_OK;
}

/* A block's most frequent pairs so far (pb_top): counts and order keys,
 * best first. */
typedef struct {
	uint32_t cnt[TOP_N];
	uint64_t key[TOP_N]; /* (hash & mask) << 16 | first offset: the order among equals */
	int n;
} top_list;

/* Keep a pair counted c times with order key kk among the best TOP_N:
 * by count, then key (a total order: keys differ, so what is kept does
 * not depend on the order pairs come in). */
static void top_keep(top_list *tl, uint32_t c, uint64_t kk)
{
	if (tl->n == TOP_N &&
	    (tl->cnt[TOP_N - 1] > c || (tl->cnt[TOP_N - 1] == c && tl->key[TOP_N - 1] < kk)))
		return;
	int k = tl->n < TOP_N ? tl->n++ : TOP_N - 1;
	for (; k > 0 && (tl->cnt[k - 1] < c || (tl->cnt[k - 1] == c && tl->key[k - 1] > kk)); k--) {
		tl->cnt[k] = tl->cnt[k - 1];
		tl->key[k] = tl->key[k - 1];
	}
	tl->cnt[k] = c;
	tl->key[k] = kk;
}

/* Distinct hashes of one bucket told apart at once; a bucket with more
 * (never seen: a bucket holds a few) is counted pair by pair. */
#define TOP_DISTINCT 32

/* Count the hashes of bucket [s, e) (in text order) into tl. */
static void top_bucket(const pair_block *b, uint32_t s, uint32_t e, uint32_t mask, top_list *tl)
{
	uint32_t dh[TOP_DISTINCT], dc[TOP_DISTINCT];
	uint16_t df[TOP_DISTINCT];
	int nd = 0;
	for (uint32_t i = s; i < e; i++) {
		uint32_t h = b->hv[i];
		int d = 0;
		while (d < nd && dh[d] != h)
			d++;
		if (d == nd) {
			if (nd == TOP_DISTINCT) { /* a new hash: counted from its first pair on */
				int seen = 0;
				for (uint32_t j = s; j < i && !seen; j++)
					seen = b->hv[j] == h;
				if (seen)
					continue;
				uint32_t c = 0;
				for (uint32_t j = i; j < e; j++)
					c += b->hv[j] == h;
				if (c >= TOP_MIN)
					top_keep(tl, c, (uint64_t)(h & mask) << 16 | b->pos[i]);
				continue;
			}
			dh[nd] = h;
			dc[nd] = 0;
			df[nd++] = b->pos[i];
		}
		dc[d]++;
	}
	for (int d = 0; d < nd; d++)
		if (dc[d] >= TOP_MIN)
			top_keep(tl, dc[d], (uint64_t)(dh[d] & mask) << 16 | df[d]);
}

/* b->top: the block's most frequent pairs (by their full hash; a rare
 * collision of two pairs only merges their counts), at least TOP_MIN
 * times, most frequent first; among equal counts, by the hash's low bits
 * (as many as the smallest power of two, 16 or more, that holds the
 * block's pairs) and then by first occurrence: the order of the chained
 * table they were first counted in, which the suggestions' order keeps.
 * Made the first time a topic word is asked of the block (masks of two
 * characters).  Counted bucket by bucket of the index, where a hash's
 * pairs are together and in text order (a hash table over the block's
 * pairs cost a fifth of a mask); a bucket of fewer than TOP_MIN pairs,
 * most of them, holds none. */
static int pb_top(ms_state *st, pair_block *b)
{
	(void)st;
	if (b->topped)
		return JH_OK;
	b->topped = 1;
	uint32_t mask = 16;
	while (mask < b->n)
		mask *= 2;
	mask--;
	top_list tl = {.n = 0};
	/* a hash counts at most its bucket's pairs: a bucket smaller than
	 * the least count kept (once TOP_N are) holds none that would be */
	uint32_t least = TOP_MIN;
	for (size_t k = 0; k < PB_BUCKETS; k++)
		if ((uint32_t)(b->start[k + 1] - b->start[k]) >= least) {
			top_bucket(b, b->start[k], b->start[k + 1], mask, &tl);
			if (tl.n == TOP_N && tl.cnt[TOP_N - 1] > least)
				least = tl.cnt[TOP_N - 1];
		}
	b->n_top = tl.n;
	for (int k = 0; k < tl.n; k++)
		b->top[k] = (uint32_t)(tl.key[k] & 0xFFFF);
	return JH_OK;
}

/* The blocks covering [lo, hi), built (or only block `only` of them,
 * when it is not SIZE_MAX: a mask that scans wants its own block's topic
 * words); those before lo's are dropped. */
static int build_range(ms_state *st, const char *t, size_t len, size_t lo, size_t hi, size_t only)
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
		if ((only == SIZE_MAX || k == only) && !st->b[k - st->first].start &&
		    pb_build(st, &st->b[k - st->first], t, len, k * PB_SIZE))
			return JH_ERR_NOMEM;
	return JH_OK;
}

/* The window [lo, hi) made searchable: its blocks built, unless this
 * mask scans (ms_window). */
int ms_blocks(ms_state *st, const char *t, size_t len, size_t lo, size_t hi)
{
	return st->scan ? JH_OK : build_range(st, t, len, lo, hi, SIZE_MAX);
}

void ms_state_free(ms_state *st)
{
	if (!st)
		return;
	for (size_t k = 0; k < st->n; k++)
		pb_free(&st->b[k]);
	free(st->b);
	free(st->tpos);
	free(st->thv);
	free(st->cnt);
	free(st->apos[0]);
	free(st->apos[1]);
	free(st);
}

/* The next occurrence of key (kn bytes, two or more Han characters) that
 * starts at or after q and ends by hi, or SIZE_MAX: what memmem(t + q,
 * hi - q, key, kn) finds. */
static size_t scan_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key,
                        size_t kn);

size_t ms_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key, size_t kn)
{
	if (st->scan)
		return scan_find(st, t, q, hi, key, kn);
	size_t l1, l2;
	int32_t a = cp_at(key, kn, 0, &l1), b = cp_at(key, kn, l1, &l2);
	uint32_t h = pair_hash(a, b);
	size_t bk = bucket_of(h);
	for (size_t k = q / PB_SIZE; k < st->first + st->n && k * PB_SIZE + kn <= hi; k++) {
		const pair_block *pb = &st->b[k - st->first];
		size_t base = k * PB_SIZE;
		/* a bucket's entries are in text order */
		for (uint32_t e = pb->start[bk]; e < pb->start[bk + 1]; e++) {
			if (pb->hv[e] != h)
				continue;
			size_t at = base + pb->pos[e];
			if (at < q)
				continue;
			if (at + kn > hi)
				return SIZE_MAX;
			if (!memcmp(t + at, key, kn))
				return at;
		}
	}
	return SIZE_MAX;
}

/* ---- the window of a lone mask, scanned ----
 *
 * Every key a mask asks of its window holds the character before the
 * mask or the one after it (ms_doc_candidates' keys end with the one
 * before or begin with the one after; ms_near's hold both), so a mask
 * far from others finds their occurrences in one pass over its window
 * and answers each key from the shorter list.  Masks closer together
 * than MS_DENSE share the blocks of the index instead, which cost
 * about twenty times a scan per byte but are built once for all of
 * them. */
#define MS_DENSE ((size_t)16 << 10)

static int anchor_push(ms_state *st, int a, uint32_t x)
{
	if (st->an[a] == st->acap[a]) {
		size_t cap = st->acap[a] ? st->acap[a] * 2 : 256;
		uint32_t *np = realloc(st->apos[a], cap * sizeof *np);
		if (!np)
			return JH_ERR_NOMEM;
		st->apos[a] = np;
		st->acap[a] = cap;
	}
	st->apos[a][st->an[a]++] = x;
	return JH_OK;
}

/* Does an anchor occur at x (ending by hi)?  Listed if so. */
static int anchor_at(ms_state *st, const unsigned char *u, size_t x, size_t hi)
{
	for (int a = 0; a < 2; a++)
		if (st->al[a] && x + st->al[a] <= hi && !memcmp(u + x, st->anc[a], st->al[a]) &&
		    anchor_push(st, a, (uint32_t)x))
			return JH_ERR_NOMEM;
	return JH_OK;
}

/* Every occurrence of the anchors in [lo, hi), by their first and third
 * bytes (SSE2, sixteen positions at a time) and then in full. */
static int anchors_scan(ms_state *st, const char *t, size_t lo, size_t hi)
{
	const unsigned char *u = (const unsigned char *)t;
	st->an[0] = st->an[1] = 0;
	if (!st->al[0] && !st->al[1])
		return JH_OK;
	int a0 = st->al[0] ? 0 : 1, a1 = st->al[1] ? 1 : 0; /* a missing one stands in for the other */
	unsigned char f0 = (unsigned char)st->anc[a0][0], c0 = (unsigned char)st->anc[a0][2];
	unsigned char f1 = (unsigned char)st->anc[a1][0], c1 = (unsigned char)st->anc[a1][2];
	size_t p = lo;
#ifdef __SSE2__
	__m128i vf0 = _mm_set1_epi8((char)f0), vc0 = _mm_set1_epi8((char)c0);
	__m128i vf1 = _mm_set1_epi8((char)f1), vc1 = _mm_set1_epi8((char)c1);
	for (; hi >= 18 && p <= hi - 18; p += 16) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)(u + p));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(u + p + 2));
		__m128i m = _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(v0, vf0), _mm_cmpeq_epi8(v2, vc0)),
		                         _mm_and_si128(_mm_cmpeq_epi8(v0, vf1), _mm_cmpeq_epi8(v2, vc1)));
		for (unsigned bits = (unsigned)_mm_movemask_epi8(m); bits; bits &= bits - 1)
			if (anchor_at(st, u, p + (size_t)__builtin_ctz(bits), hi))
				return JH_ERR_NOMEM;
	}
#endif
	for (; p + 3 <= hi; p++)
		if (((u[p] == f0 && u[p + 2] == c0) || (u[p] == f1 && u[p + 2] == c1)) &&
		    anchor_at(st, u, p, hi))
			return JH_ERR_NOMEM;
	return JH_OK;
}

/* ms_find for a mask that scans: the key found where its anchor is. */
static size_t scan_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key,
                        size_t kn)
{
	int best = -1;
	size_t bd = 0;
	for (int a = 0; a < 2; a++) {
		if (!st->al[a] || st->al[a] > kn)
			continue;
		const char *d = memmem(key, kn, st->anc[a], st->al[a]);
		if (d && (best < 0 || st->an[a] < st->an[best])) {
			best = a;
			bd = (size_t)(d - key);
		}
	}
	if (best < 0) { /* not asked by this check; what the index would find */
		if (q >= hi || hi - q < kn)
			return SIZE_MAX;
		const char *f = memmem(t + q, hi - q, key, kn);
		return f ? (size_t)(f - t) : SIZE_MAX;
	}
	const uint32_t *v = st->apos[best];
	size_t lo = 0, n = st->an[best];
	for (size_t h = n; lo < h;) { /* the first anchor at or after q + bd */
		size_t mid = lo + (h - lo) / 2;
		if (v[mid] < q + bd)
			lo = mid + 1;
		else
			h = mid;
	}
	for (; lo < n; lo++) {
		size_t at = v[lo] - bd;
		if (at + kn > hi)
			return SIZE_MAX;
		if (!memcmp(t + at, key, kn))
			return at;
	}
	return SIZE_MAX;
}

/* The blocks of [lo, hi) not built yet. */
static size_t unbuilt(const ms_state *st, size_t lo, size_t hi)
{
	size_t f = lo / PB_SIZE, l = (hi ? hi - 1 : 0) / PB_SIZE, k = 0;
	for (size_t b = f; b <= l; b++)
		k += b < st->first || b >= st->first + st->n || !st->b[b - st->first].start;
	return k;
}

/* How the mask at s searches its window [lo, hi): by the index when the
 * mask before it was near or the window's blocks are built but one,
 * else by a scan for its neighbours. */
int ms_window(ms_state *st, const char *t, size_t s, size_t lo, size_t hi, const size_t *lb,
              int nl, const size_t *ra, int nr)
{
	st->scan = !(st->have_prev && s >= st->prev_s && s - st->prev_s < MS_DENSE) &&
	           unbuilt(st, lo, hi) >= 2;
	st->have_prev = 1;
	st->prev_s = s;
	if (!st->scan)
		return JH_OK;
	st->al[0] = nl ? lb[0] - lb[1] : 0;
	st->al[1] = nr ? ra[1] - ra[0] : 0;
	for (int a = 0; a < 2; a++) {
		if (st->al[a] < 3 || st->al[a] > 4)
			st->al[a] = 0; /* a Han character has three bytes or four */
		else
			memcpy(st->anc[a], t + (a ? ra[0] : lb[1]), st->al[a]);
	}
	if (hi > UINT32_MAX) { /* offsets of 32 bits: past them, the index */
		st->scan = 0;
		return JH_OK;
	}
	return anchors_scan(st, t, lo, hi);
}

/* Candidates from the document itself: names and terms recur in a novel
 * (**夫上校 here, 巴达诺夫上校 a page before).  Where the two or three Han
 * characters after the mask occur elsewhere, the one to four Han
 * characters before that occurrence are candidates, and the same on the
 * left.  The search is bounded to a window around the mask. */
int ms_doc_candidates(const ms_cfg *c, const ms_ctx *x, ms_state *st, const char *t, size_t len,
                             size_t s, size_t e, const size_t *lb, int nl, const size_t *ra, int nr,
                             ms_list *l)
{
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - e > MS_DOC_WINDOW ? e + MS_DOC_WINDOW : len;
	if (ms_window(st, t, s, lo, hi, lb, nl, ra, nr))
		return JH_ERR_NOMEM;
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
				ms_add(l, t + a, b - a, sc + 1.0 + 0.5 * (double)k + 8.0 * (double)(j - 1));
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
                        ms_list *l)
{
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - s > MS_DOC_WINDOW ? s + MS_DOC_WINDOW : len;
	if (build_range(st, t, len, lo, hi, st->scan ? s / PB_SIZE : SIZE_MAX))
		return JH_ERR_NOMEM;
	size_t k = s / PB_SIZE;
	if (k < st->first || k >= st->first + st->n)
		return JH_OK;
	pair_block *pb = &st->b[k - st->first];
	if (pb_top(st, pb))
		return JH_ERR_NOMEM;
	for (int i = 0; i < pb->n_top; i++) {
		size_t at = k * PB_SIZE + pb->top[i], l1, l2;
		cp_at(t, len, at, &l1);
		cp_at(t, len, at + l1, &l2);
		if (ms_freq(c, c->words, t + at, l1 + l2))
			ms_add(l, t + at, l1 + l2, 0);
	}
	return JH_OK;
}
