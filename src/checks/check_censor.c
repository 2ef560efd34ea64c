/* check_censor.c — builtin checks of the censor family: characters an
 * anti-scraping font took out of a text (missing-chars) here, and ranked
 * suggestions for words a site masked (mask-suggest, censor_suggest.c).  The separators,
 * masks, injected lines and stand-ins are regex and lexicon rules in
 * rules/censor.rules; what is here needs counts over the whole document or
 * a word-frequency model, which no regex can hold. */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"
#include "wordmap.h"
#include "censor.h"

/* ====================================================================== */
/* ---- missing-chars: very common characters absent from a document ---- */

#define MC_MAX_GROUPS 64
/* The counted characters are those the scan wakes the rule on: Han
 * (jh_class_of) in the BMP, whose interest table han_mark fills; idx spans
 * them, from 〇 to the compatibility ideographs. */
#define MC_LO 0x3007
#define MC_HI 0xFAFF

typedef struct {
	int32_t cps[4];        /* simplified and traditional forms */
	int ncp;
	double rate;           /* per 100,000 Han characters */
	double floor;          /* per 100,000: the lowest rate of novel prose; 0 = none */
	char text[16];         /* the first form, UTF-8 */
} mc_group;

typedef struct {
	mc_group g[MC_MAX_GROUPS];
	int ng;
	uint8_t *idx;          /* per code point MC_LO..MC_HI: group + 1, 0 = none */
	unsigned long min_han, factor, certainty;
	unsigned long classical_max; /* per 1,000: above it the floor test is off */
	int insert;            /* 1: the insertion rule (suggestions), 0: the document rule */
	const jh_wordmap *words;  /* shared; loaded on first use: only a document missing characters needs it */
	jh_lazy words_once;
	const jh_rule *rule;
	const char *words_file;
	unsigned words_line;
	unsigned long min_freq;
} mc_cfg;

#define MC_CLASSICAL 0xFF /* idx value of a `classical` character */

typedef struct {
	size_t han;
	size_t count[MC_MAX_GROUPS];
	size_t classical;      /* characters of `classical` */
} mc_state;

static const char *const mc_params[] = {"chars",     "floor", "classical", "classical-max",
                                        "words",     "min-han", "factor",  "certainty",
                                        "mode",      "min-freq", NULL};

static void mc_free(void *p)
{
	mc_cfg *c = p;
	if (!c)
		return;
	free(c->idx);
	jh_wm_release_shared(c->words);
	jh_lazy_destroy(&c->words_once);
	free(c);
}

/* floors = 0: the groups and their rates (`chars`); 1: the floors
 * (`floor`), given to a group of `chars` that has the character, or to a
 * new group that only the floor test judges. */
static int mc_load_groups(mc_cfg *c, const jh_rule *r, const char *file, unsigned line,
                          int floors, jh_diag_fn diag_fn, void *payload)
{
	jh_wordmap m = {0};
	int rc = jh_wm_load(&m, r, file, line, 0, diag_fn, payload);
	for (size_t i = 0; rc == JH_OK && i < m.n; i++) {
		if (floors) {
			int32_t cp;
			jh_utf8_decode((const unsigned char *)m.buf + m.off[i], m.len[i], &cp);
			if (cp >= MC_LO && cp <= MC_HI && c->idx[cp - MC_LO]) {
				c->g[c->idx[cp - MC_LO] - 1].floor = m.freq[i];
				continue;
			}
		}
		if (c->ng == MC_MAX_GROUPS) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
			          "%s: more than %d character groups", file, MC_MAX_GROUPS);
			rc = JH_ERR_RULES;
			break;
		}
		mc_group *g = &c->g[c->ng];
		const char *s = m.buf + m.off[i];
		size_t n = m.len[i], p = 0;
		while (p < n && g->ncp < 4) {
			int32_t cp;
			p += jh_utf8_decode((const unsigned char *)s + p, n - p, &cp);
			if (jh_class_of(cp) != JH_C_HAN || cp > 0xFFFF) {
				jh_report(diag_fn, payload, JH_ERROR, file, 0, 0, r->id,
				          "'%s': only Han characters of the BMP can be counted", s);
				rc = JH_ERR_RULES;
				break;
			}
			g->cps[g->ncp++] = cp;
			c->idx[cp - MC_LO] = (uint8_t)(c->ng + 1);
		}
		if (rc != JH_OK)
			break;
		size_t first = jh_utf8_encode(g->cps[0], g->text);
		g->text[first] = '\0';
		if (floors)
			g->floor = m.freq[i];
		else
			g->rate = m.freq[i];
		c->ng++;
	}
	jh_wm_free(&m);
	return rc;
}

static int mc_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	mc_cfg *c = calloc(1, sizeof *c);
	if (!c || !(c->idx = calloc(MC_HI - MC_LO + 1, 1))) {
		free(c);
		return JH_ERR_NOMEM;
	}
	jh_lazy_init(&c->words_once);
	c->rule = r;
	int rc = JH_OK;
	unsigned line = r->line;
	const char *chars = jh_rule_param(r, "chars", &line);
	if (!chars) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "check 'missing-chars' needs chars = FILE (character<TAB>rate per 100,000)");
		rc = JH_ERR_RULES;
	}
	if (rc == JH_OK)
		rc = mc_load_groups(c, r, chars, line, 0, diag_fn, payload);
	/* "none" switches the floor test off (the docs profile: manuals and
	 * messages are not novel prose) */
	const char *floor = jh_rule_param(r, "floor", &line);
	if (rc == JH_OK && floor && strcmp(floor, "none"))
		rc = mc_load_groups(c, r, floor, line, 1, diag_fn, payload);
	/* The particles of the classical language: text that quotes or writes
	 * it (an editor's notes on old books) has few 的 and 了 by nature. */
	const char *cl = jh_rule_param(r, "classical", &line);
	for (size_t p = 0, n = cl ? strlen(cl) : 0; rc == JH_OK && p < n;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)cl + p, n - p, &cp);
		if (cp < MC_LO || cp > MC_HI || jh_class_of(cp) != JH_C_HAN || c->idx[cp - MC_LO]) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
			          "classical: only Han characters of the BMP that no group has");
			rc = JH_ERR_RULES;
		} else {
			c->idx[cp - MC_LO] = MC_CLASSICAL;
		}
	}
	if (rc == JH_OK)
		rc = jh_param_uint(r, "classical-max", 1000, 1000, &c->classical_max, diag_fn, payload);
	const char *mode = jh_rule_param(r, "mode", &line);
	if (rc == JH_OK && mode) {
		if (!strcmp(mode, "insert"))
			c->insert = 1;
		else if (strcmp(mode, "document")) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
			          "mode must be document or insert, not '%s'", mode);
			rc = JH_ERR_RULES;
		}
	}
	const char *words = jh_rule_param(r, "words", &line);
	if (rc == JH_OK && c->insert && !words) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "mode = insert needs words = FILE (word<TAB>frequency)");
		rc = JH_ERR_RULES;
	}
	if (rc == JH_OK && words) {
		c->words_file = words;
		c->words_line = line;
		rc = jh_data_readable(r, words, line, diag_fn, payload);
	}
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-han", 1500, 100000000, &c->min_han, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "factor", 50, 100, &c->factor, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "certainty", 6, 300, &c->certainty, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-freq", 300, 100000000, &c->min_freq, diag_fn, payload);
	if (rc) {
		mc_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* Woken only by the characters of its groups (mc_mark); the number of
 * all Han characters comes from the scan (run->han_total). */
static void mc_step(jh_brun *run, const jh_char *ch)
{
	const mc_cfg *c = run->cfg;
	mc_state *st = run->state;
	if (!st && !(st = run->state = calloc(1, sizeof *st))) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (ch->cp >= MC_LO && ch->cp <= MC_HI) {
		uint8_t g = c->idx[ch->cp - MC_LO];
		if (g == MC_CLASSICAL)
			st->classical++;
		else if (g)
			st->count[g - 1]++;
	}
}

static void mc_mark(const void *cfg, uint16_t *table, uint16_t bit)
{
	const mc_cfg *c = cfg;
	for (int i = 0; i < c->ng; i++)
		for (int j = 0; j < c->g[i].ncp; j++)
			table[c->g[i].cps[j]] |= bit;
	for (int32_t cp = MC_LO; cp <= MC_HI; cp++)
		if (c->idx[cp - MC_LO] == MC_CLASSICAL)
			table[cp] |= bit;
}

/* e^x for 0 <= x <= 700, without libm (the library links none, and this
 * is the one place that needs it): e^n by squaring, e^f by its series. */
static double exp_pos(double x)
{
	unsigned n = (unsigned)x;
	double f = x - n, r = 1, base = 2.718281828459045, term = 1, s = 1;
	for (; n; n >>= 1, base *= base)
		if (n & 1)
			r *= base;
	for (int i = 1; i < 30; i++)
		s += term *= f / i;
	return r * s;
}

/* Is P(X <= k) below 10^-certainty for X ~ Poisson(mean)?  That is,
 * sum_{i<=k} mean^i/i! < 10^-certainty * e^mean. */
static int poisson_unlikely(size_t k, double mean, unsigned long certainty)
{
	if (mean > 700)
		return k < mean / 4; /* e^mean overflows; the tail is astronomically small */
	double term = 1, sum = 1, bound = exp_pos(mean);
	for (unsigned long i = 0; i < certainty; i++)
		bound /= 10;
	for (size_t i = 1; i <= k && sum < bound; i++)
		sum += term *= mean / (double)i;
	return sum < bound;
}

/* Which groups are missing.  Two tests, and a group either finds is:
 *  - the floor test, for one character on its own (every 的, every 了 or
 *    every 不 taken out): the text has at most a tenth of what the lowest
 *    rate of novel prose (`floor`) gives for its length, and a Poisson
 *    count at that rate is that low with probability below
 *    10^-certainty, so the length the test needs follows from the rate
 *    (of 的 fewer characters than of 不);
 *  - the general test (`chars`, `factor`, min-han): groups far below
 *    factor percent of their rate, and together so far below that chance
 *    does not explain it (中 and 上 lost together).
 * Fills miss[] and returns how many; *expected and *seen get the totals
 * over them. */
static int mc_missing(const mc_cfg *c, const mc_state *st, int *miss, double *expected,
                      size_t *seen)
{
	int n = 0, floor_hit[MC_MAX_GROUPS] = {0};
	double e_sum = 0, f_sum = 0;
	size_t o_sum = 0, fo_sum = 0;
	int classical = (double)st->classical * 1000.0 > (double)c->classical_max * (double)st->han;
	for (int i = 0; i < c->ng && !classical; i++) {
		double f = (double)st->han * c->g[i].floor / 100000.0;
		if (f > 0 && (double)st->count[i] <= f / 25 &&
		    poisson_unlikely(st->count[i], f, c->certainty))
			floor_hit[i] = 1;
	}
	int general = 0;
	if (st->han >= c->min_han) {
		for (int i = 0; i < c->ng; i++) {
			double e = (double)st->han * c->g[i].rate / 100000.0 * (double)c->factor / 100.0;
			if (e >= 3 && (double)st->count[i] <= e / 10) {
				miss[n++] = i;
				e_sum += e;
				o_sum += st->count[i];
			}
		}
		general = n && poisson_unlikely(o_sum, e_sum, c->certainty);
	}
	if (!general)
		n = 0;
	/* the floor test's groups, after the general test's, each once */
	for (int i = 0; i < c->ng; i++) {
		if (!floor_hit[i])
			continue;
		int dup = 0;
		for (int j = 0; j < n && !dup; j++)
			dup = miss[j] == i;
		if (!dup) {
			miss[n++] = i;
			f_sum += (double)st->han * c->g[i].floor / 100000.0;
			fo_sum += st->count[i];
		}
	}
	if (!n)
		return 0;
	*expected = (general ? e_sum : 0) + f_sum;
	*seen = (general ? o_sum : 0) + fo_sum;
	return n;
}

static void mc_emit_document(jh_brun *run, const mc_cfg *c, const int *miss, int n,
                             double expected, size_t seen)
{
	const mc_state *st = run->state;
	jh_buf msg = {0};
	int bad = jh_buf_puts(&msg, "全文几乎没有最常用的字");
	for (int i = 0; i < n && !bad; i++)
		bad = jh_buf_puts(&msg, "“") || jh_buf_puts(&msg, c->g[miss[i]].text) ||
		      jh_buf_puts(&msg, "”");
	char tail[160];
	snprintf(tail, sizeof tail, "（%zu 个汉字中按常例至少应有 %.0f 个，实有 %zu 个），疑为防采集字体吞掉了这些字",
	         st->han, expected, seen);
	if (!bad)
		bad = jh_buf_puts(&msg, tail) || jh_buf_terminate(&msg);
	if (bad) {
		run->err = JH_ERR_NOMEM;
	} else {
		int rc = jh_findings_add(run->out, run->rule->id, run->rule_index, run->rule->severity, 0,
		                         0, msg.data, NULL, 0, JH_UNSAFE);
		if (rc)
			run->err = rc;
	}
	jh_buf_free(&msg);
}

/* Is the character at [s, e) part of a word of 2-4 characters (frequency
 * at least 20 in the model) with its neighbours in the text?  A character
 * that is covered reads fine where it is; one that is not is where a lost
 * character most likely was. */
static int mc_covered(const mc_cfg *c, const char *t, size_t len, size_t s, size_t e)
{
	size_t starts[4] = {s}, ends[4] = {e};
	int ns = 1, ne = 1;
	for (size_t p = s; ns < 4;) {
		size_t q;
		if (!is_han(cp_before(t, p, &q)))
			break;
		starts[ns++] = p = q;
	}
	for (size_t p = e; ne < 4;) {
		size_t n;
		if (!is_han(cp_at(t, len, p, &n)))
			break;
		ends[ne++] = p += n;
	}
	for (int i = 0; i < ns; i++)
		for (int j = 0; j < ne; j++)
			if (i + j >= 1 && i + j <= 3 &&
			    jh_wm_get(c->words, t + starts[i], ends[j] - starts[i]) >= 20)
				return 1;
	return 0;
}

/* Does a word of two to four characters end right at pos?  Then the
 * character after it is more likely a suffix of that compound (爪哇 + 国)
 * than a stranded character that lost its neighbour. */
static int mc_word_ends_at(const mc_cfg *c, const char *t, size_t pos)
{
	size_t s = pos;
	for (int k = 1; k <= 4; k++) {
		size_t q;
		if (!is_han(cp_before(t, s, &q)))
			return 0;
		s = q;
		if (k >= 2 && jh_wm_get(c->words, t + s, pos - s) >= 20)
			return 1;
	}
	return 0;
}

/* One insertion finding: the missing character ins at byte at, next to
 * the character [p, p + cl) it forms a word with. */
static void mc_emit_insert(jh_brun *run, const char *ins, size_t at, size_t p, size_t cl)
{
	const jh_rule *r = run->rule;
	jh_buf m = {0};
	int bad = jh_buf_puts(&m, "此处疑似缺了“") || jh_buf_puts(&m, ins) ||
	          jh_buf_puts(&m, "”（全文缺少该字），应为“");
	if (!bad && at == p)
		bad = jh_buf_puts(&m, ins) || jh_buf_append(&m, run->text + p, cl);
	else if (!bad)
		bad = jh_buf_append(&m, run->text + p, cl) || jh_buf_puts(&m, ins);
	if (!bad)
		bad = jh_buf_puts(&m, "”？") || jh_buf_terminate(&m);
	/* The character is an answer to check, not a fix: on held-out novel
	 * text with a character lost it is too seldom the right one (README,
	 * "How often an unsafe fix is right"), so `fix --unsafe` must not
	 * apply it.  A rule file that gives the rule a fix still gets one. */
	int rc = bad ? JH_ERR_NOMEM
	             : jh_findings_add(run->out, r->id, run->rule_index, r->severity, at, at, m.data,
	                               r->has_fix ? ins : NULL, r->has_fix ? strlen(ins) : 0,
	                               JH_UNSAFE);
	if (rc == JH_OK && !r->has_fix) {
		jh_edit alt = {at, at, (char *)ins}; /* copied by the list */
		rc = jh_findings_add_alternative(run->out, run->out->count - 1, &alt, 1);
	}
	if (rc)
		run->err = rc;
	jh_buf_free(&m);
}

/* Suggest inserting a missing character next to an uncovered one where the
 * pair they form is a common word, more common than the character alone
 * (央 → 中央, 途 → 途中). */
static void mc_emit_inserts(jh_brun *run, const mc_cfg *c, const int *miss, int n)
{
	const char *t = run->text;
	size_t len = run->len;
	for (size_t p = 0; p < len && !run->err;) {
		size_t cl;
		int32_t cp = cp_at(t, len, p, &cl);
		if (!is_han(cp) || mc_covered(c, t, len, p, p + cl)) {
			p += cl ? cl : 1;
			continue;
		}
		uint32_t alone = jh_wm_get(c->words, t + p, cl);
		uint32_t best = 0;
		size_t at = 0;
		const char *ins = NULL;
		int after_word = mc_word_ends_at(c, t, p);
		for (int i = 0; i < n; i++) {
			const char *m = c->g[miss[i]].text;
			size_t ml = strlen(m);
			char w[32];
			memcpy(w, m, ml); /* missing char before this one */
			memcpy(w + ml, t + p, cl);
			uint32_t f = after_word ? 0 : jh_wm_get(c->words, w, ml + cl);
			if (f > best) {
				best = f;
				at = p;
				ins = m;
			}
			memcpy(w, t + p, cl); /* after it */
			memcpy(w + cl, m, ml);
			f = jh_wm_get(c->words, w, ml + cl);
			if (f > best) {
				best = f;
				at = p + cl;
				ins = m;
			}
		}
		if (ins && best >= c->min_freq && best >= alone)
			mc_emit_insert(run, ins, at, p, cl);
		p += cl;
	}
}


static int mc_load_words(void *arg)
{
	lazy_arg *a = arg;
	mc_cfg *c = a->cfg;
	if (!c->words_file) {
		c->words = &jh_wm_empty;
		return JH_OK;
	}
	/* indexed: mask suggestions share it */
	return jh_wm_get_shared(c->rule, c->words_file, c->words_line, 1, &c->words, a->diag_fn,
	                        a->payload);
}

/* Is the line [p, e) a line of regular verse: two or more clauses of Han
 * characters, all of 4, 5 or 7 and all the same, between marks (兰叶春葳蕤，
 * 桂华秋皎洁。)?  *marked: it has a clause mark at all. */
static int verse_line(const char *text, size_t p, size_t e, int *marked)
{
	size_t n = 0, len = 0, clauses = 0;
	int same = 1, other = 0;
	*marked = 0;
	while (p < e) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (jh_class_of(cp) & JH_C_HAN) {
			n++;
			continue;
		}
		int mark = cp == 0xFF0C || cp == 0x3002 || cp == 0xFF1F || cp == 0xFF01 ||
		           cp == 0xFF1B || cp == 0x3001;
		/* anything else (a quote, a colon, a name's dot) is prose, a
		 * title or a name, no verse; the line still counts as one with
		 * a mark when it has one, so dialogue does not shrink the base */
		if (!mark && cp != ' ' && cp != 0x3000 && cp != '\t' && cp != '\r')
			other = 1;
		if (!mark)
			continue;
		*marked = 1;
		if (n) {
			same &= !clauses || n == len;
			len = n;
			clauses++;
		}
		n = 0;
	}
	return !other && !n && clauses >= 2 && same && (len == 4 || len == 5 || len == 7);
}

/* Is the text verse: of its lines with a clause mark, at least four, more
 * than half regular verse?  A poem has few 的, 了, 个 or 到 by its form,
 * not because a font lost them (tang300: every one of its 300 poems). */
static int verse_document(const char *text, size_t len)
{
	size_t marked_lines = 0, verse = 0;
	for (size_t p = 0; p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len;
		int marked;
		verse += verse_line(text, p, e, &marked);
		marked_lines += marked;
		p = e + 1;
	}
	return marked_lines >= 4 && verse * 2 > marked_lines;
}

static void mc_finish(jh_brun *run)
{
	const mc_cfg *c = run->cfg;
	mc_state *st = run->state;
	/* a text with Han characters but none of the groups' has no state yet */
	if (!st && run->han_total && !run->err && !(st = run->state = calloc(1, sizeof *st)))
		run->err = JH_ERR_NOMEM;
	if (st)
		st->han = run->han_total;
	if (st && !run->err) {
		int miss[MC_MAX_GROUPS];
		double expected = 0;
		size_t seen = 0;
		int n = mc_missing(c, st, miss, &expected, &seen);
		if (n && verse_document(run->text, run->len))
			n = 0;
		if (n && !c->insert)
			mc_emit_document(run, c, miss, n, expected, seen);
		else if (n) {
			/* the rule set is shared read-only; its lazy table is the one
			 * part written, once, under jh_lazy's lock */
			lazy_arg a = {(mc_cfg *)c, run->diag_fn, run->payload};
			if (jh_lazy_get(&((mc_cfg *)c)->words_once, mc_load_words, &a) == JH_OK)
				mc_emit_inserts(run, c, miss, n);
		}
	}
	free(run->state);
	run->state = NULL;
}

const jh_builtin_def jh_checks_censor[] = {
	{"missing-chars", JH_C_HAN, mc_params, mc_compile, mc_free, mc_step, mc_finish, 0, JH_HAN_WANTS,
	 mc_mark},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
