/* interest.c — building the interest table (see interest.h). */
#include <stdlib.h>
#include <string.h>
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
	for (size_t k = 0; bi && k < bi->n; k++) {
		const jh_builtin_def *d = bi->v[k].def;
		if (!(d->wake & JH_C_HAN) || d->han == JH_HAN_COUNT)
			continue;
		int lane = d->han == JH_HAN_ALL || d->han == JH_HAN_REPEAT ||
		                   (d->han == JH_HAN_WANTS && !d->han_mark) || it->n_lanes == JH_I_LANES
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
		d->han_mark(bi->v[k].cfg, it->bits, bit);
		it->astral_lanes |= bit;
	}
	return JH_OK;
}
