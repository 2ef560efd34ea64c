/* interest.c — building the interest table (see interest.h). */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "builtins.h"
#include "charclass.h"
#include "interest.h"
#include "lexicon.h"
#include "regex.h"

void jh_interest_free(jh_interest *it)
{
	free(it->bits);
	free(it->all_slots);
	free(it->repeat_slots);
	free(it->tallied);
	memset(it, 0, sizeof *it);
}

/* Lexicon and trigger bits, page by page: only the pages a word starts in
 * or a trigger lies in are walked (a few of the 256). */
static void mark_matchers(uint16_t *bits, const jh_regexes *rx, const jh_lexicon *lx)
{
	for (int page = 0; page < 256; page++) {
		const uint64_t *tp = rx ? rx->bmp[page] : NULL;
		const int32_t *lp = lx && lx->built ? lx->root_page[page] : NULL;
		if (lp == jh_lex_zero_page)
			lp = NULL;
		if (!tp && !lp)
			continue;
		for (int j = 0; j < 256; j++) {
			uint16_t *b = &bits[page << 8 | j];
			if (tp && tp[j])
				*b |= JH_I_TRIG;
			if (lp && lp[j])
				*b |= JH_I_LEX;
		}
	}
}

/* JH_I_NOT_HAN on every three-byte code point outside charclass.h's BMP
 * Han ranges (what jh_class_of calls Han: the test compares the two). */
static void mark_not_han(uint16_t *bits)
{
	static const uint32_t han[JH_HAN_BMP_N][2] = JH_HAN_BMP_RANGES;
	uint32_t cp = 0x800;
	for (size_t r = 0; r <= JH_HAN_BMP_N; r++) {
		uint32_t end = r < JH_HAN_BMP_N ? han[r][0] : 0x10000;
		for (; cp < end; cp++)
			bits[cp] |= JH_I_NOT_HAN;
		if (r < JH_HAN_BMP_N)
			cp = han[r][1] + 1;
	}
}

/* Slot k appended to the list *v of *n. */
static int push_slot(size_t **v, size_t *n, size_t k)
{
	size_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return JH_ERR_NOMEM;
	*v = nv;
	(*v)[(*n)++] = k;
	return JH_OK;
}

int jh_interest_mark_all_others;
int jh_interest_no_tally;

/* The tally bits of the BMP Han characters with either flag in t:
 * sixteen at a time (SSE2), as it runs at every start. */
static void mark_tally(uint16_t *bits, const uint8_t *t, const uint8_t fl[2])
{
	static const int32_t han[JH_HAN_BMP_N][2] = JH_HAN_BMP_RANGES;
	for (size_t r = 0; r < JH_HAN_BMP_N; r++) {
		size_t cp = (size_t)han[r][0], end = (size_t)han[r][1] + 1;
#ifdef __SSE2__
		const __m128i zero = _mm_setzero_si128(), f0 = _mm_set1_epi8((char)fl[0]),
		              f1 = _mm_set1_epi8((char)fl[1]), t0 = _mm_set1_epi16((short)JH_I_TALLY0),
		              t1 = _mm_set1_epi16((short)JH_I_TALLY1);
		for (; cp + 16 <= end; cp += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(t + cp));
			__m128i n0 = _mm_cmpeq_epi8(_mm_and_si128(v, f0), zero); /* FF: not the flag */
			__m128i n1 = _mm_cmpeq_epi8(_mm_and_si128(v, f1), zero);
			__m128i lo = _mm_or_si128(_mm_andnot_si128(_mm_unpacklo_epi8(n0, n0), t0),
			                          _mm_andnot_si128(_mm_unpacklo_epi8(n1, n1), t1));
			__m128i hi = _mm_or_si128(_mm_andnot_si128(_mm_unpackhi_epi8(n0, n0), t0),
			                          _mm_andnot_si128(_mm_unpackhi_epi8(n1, n1), t1));
			__m128i *b = (__m128i *)(bits + cp);
			_mm_storeu_si128(b, _mm_or_si128(_mm_loadu_si128(b), lo));
			_mm_storeu_si128(b + 1, _mm_or_si128(_mm_loadu_si128(b + 1), hi));
		}
#endif
		for (; cp < end; cp++)
			bits[cp] |= (uint16_t)((t[cp] & fl[0] ? JH_I_TALLY0 : 0) |
			                       (t[cp] & fl[1] ? JH_I_TALLY1 : 0));
	}
}

/* The tally (builtins.h): the table and flags of the first check that
 * offers one, shared by those that offer the same; its flags marked on
 * the BMP Han characters.  1: out of memory. */
static int choose_tally(jh_interest *it, const jh_builtins *bi)
{
	for (size_t k = 0; bi && !jh_interest_no_tally && k < bi->n; k++) {
		const jh_builtin_def *d = bi->v[k].def;
		uint8_t fl[2];
		const uint8_t *t = d->tally && d->han_mark_tallied && (d->wake & JH_C_HAN)
		                           ? d->tally(bi->v[k].cfg, fl)
		                           : NULL;
		if (!t || (it->tally_table && (t != it->tally_table || fl[0] != it->tally_flags[0] ||
		                               fl[1] != it->tally_flags[1])))
			continue;
		if (!it->tallied && !(it->tallied = calloc(bi->n, 1)))
			return 1;
		it->tallied[k] = 1;
		if (it->tally_table)
			continue;
		it->tally_table = t;
		it->tally_flags[0] = fl[0];
		it->tally_flags[1] = fl[1];
		mark_tally(it->bits, t, fl);
	}
	return 0;
}

int jh_interest_build(jh_interest *it, const jh_regexes *rx, const jh_lexicon *lx,
                      const jh_builtins *bi)
{
	memset(it, 0, sizeof *it);
	if (!(it->bits = calloc(0x10000, sizeof *it->bits)))
		return JH_ERR_NOMEM;
	mark_matchers(it->bits, rx, lx);
	mark_not_han(it->bits);
	for (size_t k = 0; bi && k < bi->n; k++)
		if (bi->v[k].def->other_mark)
			bi->v[k].def->other_mark(bi->v[k].cfg, it->bits, JH_I_OTHER_MARK);
	for (int32_t cp = 0x80; jh_interest_mark_all_others && cp < 0x10000; cp++)
		jh_mark_other(it->bits, JH_I_OTHER_MARK, cp);
	if (choose_tally(it, bi)) {
		jh_interest_free(it);
		return JH_ERR_NOMEM;
	}
	for (size_t k = 0; bi && k < bi->n; k++) {
		const jh_builtin_def *d = bi->v[k].def;
		if (!(d->wake & JH_C_HAN) || d->han == JH_HAN_COUNT)
			continue;
		void (*mark)(const void *, uint16_t *, uint16_t) =
			it->tallied && it->tallied[k] ? d->han_mark_tallied : d->han_mark;
		int lane = d->han == JH_HAN_ALL || d->han == JH_HAN_REPEAT ||
		                   (d->han == JH_HAN_WANTS && !mark) || it->n_lanes == JH_I_LANES
		               ? -1
		               : it->n_lanes++;
		if (lane < 0) {
			int rc = d->han == JH_HAN_REPEAT ? push_slot(&it->repeat_slots, &it->n_repeat, k)
			                                 : push_slot(&it->all_slots, &it->n_all, k);
			if (rc) {
				jh_interest_free(it);
				return rc;
			}
			continue;
		}
		uint16_t bit = (uint16_t)(1u << (JH_I_LANE0 + lane));
		it->lane_slot[lane] = k;
		mark(bi->v[k].cfg, it->bits, bit);
		it->astral_lanes |= bit;
	}
	return JH_OK;
}
