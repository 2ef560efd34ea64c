/* script_count.c — the scan stage of the variant checks (variant,
 * conversion, regional): per character, or from the scan's tally, each
 * paragraph's simplified, traditional and suspect characters and those
 * inside quotation marks; and what wakes the step (the marks of the
 * characters it wants).  The document-wide decision and the findings are
 * check_script.c's (finish), the tables script_tables.c's. */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

#include "script.h"

/* before 字 (script.h) */
const char script_mention_not[] = "寫簽認識數題習錯練漢單雙鉛個號點萬億兩幾紅黃藍綠體國難隻這該"
                                  "写签认识数题习错练汉单双铅个号点万亿两几红黄蓝绿体国难这该";

void script_para_close(jh_brun *run, variant_state *s, size_t end)
{
	s->cur.end = end;
	if (s->cur.hans || s->cur.hant || s->cur.suspects) {
		if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
			run->err = JH_ERR_NOMEM;
		else
			s->v[s->n++] = s->cur;
	}
	s->cur = (para){end, end, 0, 0, 0, 0, 0, 0};
}

/* ---- the counts ----
 *
 * A paragraph's simplified and traditional characters are two running
 * counts of the BMP Han characters with those flags (the tally): the
 * scan's when it tallies this check's table (builtins.h tally; the step
 * is then woken only by line ends, quotation marks, 字, suspects and
 * astral characters), else the step's own, kept in run->tally_total as it
 * is woken by each flagged character.  A paragraph's counts are the
 * tally's growth from its start (run->tally_mark[0..1]), a quotation's
 * from its opening mark ([2..3]).  The state exists from the first
 * counted character on. */

variant_state *script_new_state(jh_brun *run)
{
	variant_state *s = calloc(1, sizeof *s);
	if (!s) {
		run->err = JH_ERR_NOMEM;
		return NULL;
	}
	s->cur.start = run->run_start;
	return run->state = s;
}

/* Was the character ending at end (after start) counted, and its flags
 * (F_HANS | F_HANT)?  0 when it was not: found by looking back, for 字. */
static uint8_t counted_before(const jh_brun *run, size_t start, size_t end, size_t *at)
{
	const variant_cfg *cfg = run->cfg;
	if (end <= start)
		return 0;
	size_t b = jh_utf8_prev(run->text, end);
	int32_t cp;
	if (jh_utf8_decode((const unsigned char *)run->text + b, end - b, &cp) != end - b || cp < 0 ||
	    cp == 0x5B57 || !(jh_class_of(cp) & JH_C_HAN) || !mode_flags(cfg, cp))
		return 0;
	*at = b;
	return (uint8_t)(char_flags(cfg, cp) | 0x80); /* 0x80: counted, whatever its flags */
}

/* The paragraph's tallied characters (and its quotation's, when one is
 * open) into s->cur, as of tally. */
void script_tally_flush(jh_brun *run, variant_state *s, const size_t *tally)
{
	if (s) {
		s->cur.hans += (uint32_t)(tally[0] - run->tally_mark[0]);
		s->cur.hant += (uint32_t)(tally[1] - run->tally_mark[1]);
		if (quote_depth(run->open)) {
			s->cur.qhans += (uint32_t)(tally[0] - run->tally_mark[2]);
			s->cur.qhant += (uint32_t)(tally[1] - run->tally_mark[3]);
		}
	}
	run->tally_mark[0] = run->tally_mark[2] = tally[0];
	run->tally_mark[1] = run->tally_mark[3] = tally[1];
}

void script_step(jh_brun *run, const jh_char *c)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	/* the counts before c: the scan's, or the step's own (run->tally_total)
	 * when the scan does not tally this check's table */
	const size_t *tally = run->tallied ? c->tally : run->tally_total;
	if (!s && (tally[0] || tally[1]) && !(s = script_new_state(run)))
		return;
	if (c->cls & JH_C_NEWLINE) {
		if (c->cp != '\r') {
			script_tally_flush(run, s, tally);
			run->open = 0; /* a quotation ends with its paragraph */
		}
		if (s && c->cp != '\r')
			script_para_close(run, s, c->pos + c->len);
		else if (!s)
			run->run_start = c->pos + c->len;
		return;
	}
	if (!(c->cls & JH_C_HAN)) {
		int was = quote_depth(run->open);
		run->open = quote_update(run->open, c->cp);
		if (!was && quote_depth(run->open)) {
			run->tally_mark[2] = tally[0];
			run->tally_mark[3] = tally[1];
		} else if (was && !quote_depth(run->open) && s) {
			s->cur.qhans += (uint32_t)(tally[0] - run->tally_mark[2]);
			s->cur.qhant += (uint32_t)(tally[1] - run->tally_mark[3]);
		}
		return;
	}
	if (c->cp == 0x5B57) { /* 字: as below, the characters before it looked up */
		size_t p_at = 0, q_at = 0;
		uint8_t pf = counted_before(run, 0, c->pos, &p_at), qf = 0;
		if (pf)
			qf = counted_before(run, 0, p_at, &q_at);
		pf &= F_HANS | F_HANT;
		qf &= F_HANS | F_HANT;
		int32_t pcp = -1;
		if (pf)
			jh_utf8_decode((const unsigned char *)run->text + p_at, c->pos - p_at, &pcp);
		if (s && pf && !(qf & pf) && !quote_depth(run->open) && !cp_in(pcp, script_mention_not)) {
			s->cur.qhans += !!(pf & F_HANS);
			s->cur.qhant += !!(pf & F_HANT);
		}
		return;
	}
	uint8_t f = mode_flags(cfg, c->cp);
	if (!f)
		return;
	if (!s && !(s = script_new_state(run)))
		return;
	s->cur.suspects += !!(f & F_SUSPECT);
	if (c->cp < 0x10000) { /* its F_HANS and F_HANT go to the tally */
		if (!run->tallied) {
			run->tally_total[0] += !!(f & F_HANS);
			run->tally_total[1] += !!(f & F_HANT);
		}
		return;
	}
	s->cur.hans += !!(f & F_HANS);
	s->cur.hant += !!(f & F_HANT);
	if (quote_depth(run->open)) {
		s->cur.qhans += !!(f & F_HANS);
		s->cur.qhant += !!(f & F_HANT);
	}
}

/* The ASCII bytes script_step wants: the line ends, and " of the
 * quotation marks. */
void script_ascii(const void *cfg, unsigned char wants[128])
{
	(void)cfg;
	wants['\n'] = wants['\r'] = wants['"'] = JH_ASCII_ALWAYS;
}

/* The Han characters script_step counts: those mode_flags() gives flags,
 * in the ranges of BMP Han characters (charclass.h); one pass over the
 * flag table, as this runs at every start-up. */
/* bit in table[cp] for the BMP Han characters cp with a flag of keep in
 * f[cp], or with group[cp] (if group): sixteen code points at a time
 * (SSE2, x86-64's baseline): one at a time, the three variant checks'
 * 84,000 code points cost 0.7 M instructions of every start. */
static void mark_flagged(const uint8_t *f, uint8_t keep, const uint8_t *group, uint16_t *table,
                         uint16_t bit)
{
	static const int32_t han[JH_HAN_BMP_N][2] = JH_HAN_BMP_RANGES;
	for (size_t r = 0; r < sizeof han / sizeof *han; r++) {
		size_t cp = (size_t)han[r][0], end = (size_t)han[r][1] + 1;
#ifdef __SSE2__
		const __m128i k = _mm_set1_epi8((char)keep), zero = _mm_setzero_si128();
		const __m128i b16 = _mm_set1_epi16((short)bit);
		for (; cp + 16 <= end; cp += 16) {
			__m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(f + cp)), k);
			if (group)
				v = _mm_or_si128(v, _mm_loadu_si128((const __m128i *)(group + cp)));
			__m128i none = _mm_cmpeq_epi8(v, zero); /* FF where nothing is marked */
			__m128i *t = (__m128i *)(table + cp);
			__m128i lo = _mm_andnot_si128(_mm_unpacklo_epi8(none, none), b16);
			__m128i hi = _mm_andnot_si128(_mm_unpackhi_epi8(none, none), b16);
			_mm_storeu_si128(t, _mm_or_si128(_mm_loadu_si128(t), lo));
			_mm_storeu_si128(t + 1, _mm_or_si128(_mm_loadu_si128(t + 1), hi));
		}
#endif
		for (; cp < end; cp++)
			if ((f[cp] & keep) || (group && group[cp]))
				table[cp] |= bit;
	}
}

void script_mark(const void *cfg, uint16_t *table, uint16_t bit)
{
	const variant_cfg *c = cfg;
	mark_flagged(c->bmp, c->mode == MODE_PHRASES ? 0xFF : F_HANS | F_HANT,
	             c->mode == MODE_REGIONAL ? c->group : NULL, table, bit);
	table[0x5B57] |= bit; /* 字, after a character spoken of */
}

/* The tally of the variant checks: the shared character table's flags
 * (script-chars.tsv), which are mode_flags()' F_HANS and F_HANT in every
 * mode. */
const uint8_t *script_tally(const void *cfg, uint8_t flags[2])
{
	flags[0] = F_HANS;
	flags[1] = F_HANT;
	return variant_tally_table(cfg);
}

/* Tallied, the Han characters the step must still see: 字, and those
 * mode_flags() calls suspects (conversion's, regional's forms). */
void script_mark_tallied(const void *cfg, uint16_t *table, uint16_t bit)
{
	const variant_cfg *c = cfg;
	table[0x5B57] |= bit;
	if (c->mode == MODE_PHRASES)
		mark_flagged(c->bmp, F_SUSPECT, NULL, table, bit);
	else if (c->mode == MODE_REGIONAL)
		mark_flagged(c->bmp, 0, c->group, table, bit);
}

/* The characters outside ASCII and Han script_step acts on (builtins.h
 * other_mark): the quotation marks quote_kind() knows and the line ends. */
void script_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	static const int32_t marks[] = {0x201C, 0x300C, 0x300E, 0x300A, 0x3008, 0x2018, 0x201D,
	                                0x300D, 0x300F, 0x300B, 0x3009, 0x2019, 0x0085, 0x2028,
	                                0x2029};
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		jh_mark_other(table, bit, marks[i]);
}
