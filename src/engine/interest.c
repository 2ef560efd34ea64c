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
 * Han ranges (its test compares the two). */
static void mark_not_han(uint16_t *bits)
{
	static const uint32_t han[][2] = {{0x3007, 0x3007}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
	                                  {0xF900, 0xFAFF}};
	uint32_t cp = 0x800;
	for (size_t r = 0; r <= sizeof han / sizeof *han; r++) {
		uint32_t end = r < sizeof han / sizeof *han ? han[r][0] : 0x10000;
		for (; cp < end; cp++)
			bits[cp] |= JH_I_NOT_HAN;
		if (r < sizeof han / sizeof *han)
			cp = han[r][1] + 1;
	}
}

int jh_interest_build(jh_interest *it, const jh_regexes *rx, const jh_lexicon *lx,
                      const jh_builtins *bi)
{
	memset(it, 0, sizeof *it);
	if (!(it->bits = calloc(0x10000, sizeof *it->bits)))
		return JH_ERR_NOMEM;
	mark_matchers(it->bits, rx, lx);
	mark_not_han(it->bits);
	for (size_t k = 0; bi && k < bi->n; k++) {
		const jh_builtin_def *d = bi->v[k].def;
		if (!(d->wake & JH_C_HAN) || d->han == JH_HAN_COUNT)
			continue;
		int lane = d->han == JH_HAN_ALL || (d->han == JH_HAN_WANTS && !d->han_mark) ||
		                   it->n_lanes == JH_I_LANES
		               ? -1
		               : it->n_lanes++;
		if (lane < 0) {
			size_t *v = realloc(it->all_slots, (it->n_all + 1) * sizeof *v);
			if (!v) {
				jh_interest_free(it);
				return JH_ERR_NOMEM;
			}
			it->all_slots = v;
			it->all_slots[it->n_all++] = k;
			continue;
		}
		uint16_t bit = (uint16_t)(1u << (JH_I_LANE0 + lane));
		it->lane_slot[lane] = k;
		if (d->han == JH_HAN_REPEAT) {
			it->repeat_lanes |= bit;
		} else {
			d->han_mark(bi->v[k].cfg, it->bits, bit);
			it->astral_lanes |= bit;
		}
	}
	return JH_OK;
}
