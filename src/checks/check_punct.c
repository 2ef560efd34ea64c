/* check_punct.c — builtin checks of the punct family: run-on stretches,
 * runs of ！？, pairing of quotes and brackets per paragraph, and the
 * document's quote style.  These need state across characters (a stack of
 * open marks, counts over the whole document) that no regex can keep.  The
 * period and in-word checks (a separator in a word) are in
 * check_punct_word.c; this file holds the family's one table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "punct.h"
#include "utf8.h"


static int32_t cp_at(const char *text, size_t len, size_t pos)
{
	int32_t cp = -1;
	if (pos < len)
		jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp);
	return cp;
}


/* ---- run-on stretches of Han without punctuation ---- */

static const char *const runon_params[] = {"limit", NULL};

static int runon_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	return jh_compile_uint(r, "limit", 50, 100000, out, diag_fn, payload);
}

/* Run-on is not woken by Han characters (JH_HAN_COUNT): at each mark or
 * line end it takes the number of Han characters since the last one from
 * the scan's count (run->open_start holds the count at the last mark,
 * run->open_end the byte after it).  Only a stretch over the limit is
 * decoded again, for its first and last Han character. */
static void runon_flush(jh_brun *run, size_t han, size_t pos)
{
	const unsigned long *limit = run->cfg;
	size_t n = han - run->open_start;
	if (n > *limit) {
		const unsigned char *t = (const unsigned char *)run->text;
		size_t p = run->open_end, first = SIZE_MAX, last = p;
		while (p < pos) {
			int32_t cp;
			size_t k = jh_utf8_decode(t + p, run->len - p, &cp);
			if (cp >= 0 && (jh_class_of(cp) & JH_C_HAN)) {
				if (first == SIZE_MAX)
					first = p;
				last = p + k;
			}
			p += k;
		}
		char msg[160];
		snprintf(msg, sizeof msg, "%zu 个汉字之间没有任何标点（上限 %lu），可能缺了标点", n,
		         *limit);
		jh_brun_emit(run, first, last, NULL, 0, msg);
	}
	run->open_start = han;
}

static void runon_step(jh_brun *run, const jh_char *c)
{
	runon_flush(run, c->han_before, c->pos);
	run->open_end = c->pos + c->len;
}

static void runon_finish(jh_brun *run) { runon_flush(run, run->han_total, run->len); }

/* ---- runs of ！ and ？ longer than a style allows ---- */

#define MARKRUN_MAX_MARKS 16

typedef struct {
	int32_t marks[MARKRUN_MAX_MARKS];
	size_t n_marks;
	unsigned long max;
} markrun_cfg;

static const char *const markrun_params[] = {"marks", "max", NULL};

static int markrun_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	markrun_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	unsigned line = r->line;
	const char *marks = jh_rule_param(r, "marks", &line);
	if (!marks)
		marks = "！？";
	for (const char *p = marks; *p;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)p, strlen(p), &cp);
		if (cp == ' ')
			continue;
		if (cp < 0 || c->n_marks == MARKRUN_MAX_MARKS) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
			          "marks must be at most %d characters", MARKRUN_MAX_MARKS);
			free(c);
			return JH_ERR_RULES;
		}
		c->marks[c->n_marks++] = cp;
	}
	int rc = jh_param_uint(r, "max", 3, 1000, &c->max, diag_fn, payload);
	if (rc == JH_OK && c->max == 0) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "max must be at least 1");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

static void markrun_flush(jh_brun *run)
{
	const markrun_cfg *cfg = run->cfg;
	if (run->run_len > cfg->max) {
		size_t keep = run->run_start;
		for (unsigned long i = 0; i < cfg->max; i++) {
			int32_t cp;
			keep += jh_utf8_decode((const unsigned char *)run->text + keep, run->len - keep, &cp);
		}
		char msg[160];
		snprintf(msg, sizeof msg, "连续 %zu 个感叹号或问号（上限 %lu）", run->run_len, cfg->max);
		size_t g[2] = {run->run_start, keep};
		jh_brun_emit(run, run->run_start, run->run_end, g, 1, msg);
	}
	run->run_len = 0;
}

static void markrun_step(jh_brun *run, const jh_char *c)
{
	const markrun_cfg *cfg = run->cfg;
	int is_mark = 0;
	for (size_t i = 0; i < cfg->n_marks && !is_mark; i++)
		is_mark = cfg->marks[i] == c->cp;
	if (is_mark && run->run_len && c->pos == run->run_end) {
		run->run_len++;
		run->run_end = c->pos + c->len;
		return;
	}
	markrun_flush(run);
	if (is_mark) {
		run->run_start = c->pos;
		run->run_end = c->pos + c->len;
		run->run_len = 1;
	}
}

/* ---- pairing of quotes and brackets, per paragraph ---- */

/* The paired marks.  Quotes do not nest in themselves (a quote inside a
 * quote takes the other kind), so a second opening “ inside an open “ is
 * an error; brackets may nest. */
/* in the order of charclass.h's jh_open_marks and jh_close_marks */
enum { P_DQ, P_SQ, P_CORNER, P_WCORNER, P_PAREN, P_BOOK, P_LENT, P_N };
static const char *const open_s[P_N] = {"“", "‘", "「", "『", "（", "《", "【"};
static const char *const close_s[P_N] = {"”", "’", "」", "』", "）", "》", "】"};
_Static_assert(P_N == JH_PAIRS && P_PAREN == JH_PAIR_QUOTES, "the marks of charclass.h");
#define P_NESTS(t) ((t) >= P_PAREN)

/* A paragraph with more marks than this is left unchecked (a table, a
 * list of titles): the state stays a fixed size. */
#define PAIRS_MAX_MARKS 1024
#define PAIRS_MAX_DEPTH 32

typedef struct {
	size_t pos;
	unsigned char type, close;
} pmark;

typedef struct {
	pmark m[PAIRS_MAX_MARKS];
	size_t n;
	int overflow;
} pairs_state;

static int is_speech_cue(int32_t cp)
{
	/* what comes before an opening quote: 他说：“ 他說道“ 他问“ */
	static const int32_t cues[] = {0xFF1A, ':',    0x8BF4, 0x8AAA, 0x9053, 0x95EE, 0x554F,
	                               0x558A, 0x53EB, 0x543C, 0x7B54, 0x7B11, 0x9A82, 0x7F75,
	                               0x56B7, 0x8BB2, 0x8B1B, 0x5F00, 0x8A00, 0x66F0, 0x4E91};
	/* ： : 说 說 道 问 問 喊 叫 吼 答 笑 骂 罵 嚷 讲 講 开(口) 言 曰 云 */
	for (size_t i = 0; i < sizeof cues / sizeof *cues; i++)
		if (cues[i] == cp)
			return 1;
	return 0;
}

static int ends_utterance(int32_t cp)
{
	/* ， 。 ！ ？ … — ～ and their half-width forms */
	return cp == 0xFF0C || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0x2026 ||
	       cp == 0x2014 || cp == 0xFF5E || cp == ',' || cp == '.' || cp == '!' || cp == '?';
}

static int is_pause_mark(int32_t cp)
{
	return cp == 0xFF0C || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0x2026 ||
	       cp == 0xFF1B || cp == 0x3001 || cp == 0x2014;
}

/* The character before pos, skipping spaces (ASCII and U+3000); -1 at the
 * paragraph start (para_start). */
static int32_t char_before(const jh_brun *run, size_t pos, size_t para_start, size_t *at)
{
	while (pos > para_start) {
		pos = jh_utf8_prev(run->text, pos);
		int32_t cp = cp_at(run->text, run->len, pos);
		if (cp != ' ' && cp != '\t' && cp != 0x3000 && cp != '\r') {
			if (at)
				*at = pos;
			return cp;
		}
	}
	return -1;
}

/* Does the next non-blank paragraph after end start with the opening mark
 * of type t?  Then the quote goes on: Chinese typography opens each
 * paragraph of a long quotation and closes only the last. */
static int quote_continues(const jh_brun *run, size_t end, int t)
{
	size_t stop = end + 4096 < run->len ? end + 4096 : run->len;
	for (size_t p = end; p < stop;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)run->text + p, run->len - p, &cp);
		if (cp == '\n' || cp == '\r' || cp == ' ' || cp == '\t' || cp == 0x3000) {
			p += n;
			continue;
		}
		return cp == jh_open_marks[t];
	}
	return 0;
}

/* Index of the next mark of type t after i, or -1. */
static long next_of(const pairs_state *st, size_t i, int t)
{
	for (size_t k = i + 1; k < st->n; k++)
		if (st->m[k].type == t)
			return (long)k;
	return -1;
}

static void report(jh_brun *run, size_t pos, int t, int close, const char *fmt, const char *fix,
                   jh_safety safety)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, close ? close_s[t] : open_s[t], close ? open_s[t] : close_s[t]);
	size_t n = strlen(close ? close_s[t] : open_s[t]);
	jh_brun_emit_fix(run, pos, pos + n, msg, fix, safety);
}

/* Two opening quotes of one kind in a row (“A“B): decide which one is
 * wrong.  Returns the index of the quote left open, or -1. */
static long quote_conflict(jh_brun *run, const pairs_state *st, size_t i1, size_t i2,
                           size_t para_start)
{
	int t = st->m[i2].type;
	size_t p1 = st->m[i1].pos, p2 = st->m[i2].pos;
	int32_t before = char_before(run, p2, para_start, NULL);
	long nx = next_of(st, i2, t);
	int next_closes = nx >= 0 && st->m[nx].close;
	if (ends_utterance(before) && !next_closes) {
		/* “你好，“他说。 — the closing mark was typed as an opening one */
		report(run, p2, t, 0, "这里应为闭引号%2$s，误用了开引号%1$s", close_s[t], JH_SAFE);
		return -1;
	}
	if (is_speech_cue(before)) {
		/* the second quote is where speech starts; the first is wrong */
		int has_punct = 0;
		size_t q = p1 + strlen(open_s[t]);
		size_t cue_end = p2;
		char_before(run, p2, para_start, &cue_end);
		while (q < cue_end && !has_punct) {
			int32_t cp;
			q += jh_utf8_decode((const unsigned char *)run->text + q, run->len - q, &cp);
			has_punct = is_pause_mark(cp) || cp == jh_close_marks[t];
		}
		if (!has_punct)
			report(run, p1, t, 0, "多余的开引号%s：后面是叙述，引语从下一个开引号才开始", "",
			       JH_UNSAFE);
		else
			report(run, p1, t, 0, "开引号%s没有闭合：下一个开引号之前缺少闭引号%s", NULL, JH_SAFE);
		return (long)i2;
	}
	report(run, p2, t, 0, "引语中又出现开引号%s：应为闭引号%s，或前面缺少闭引号", NULL, JH_SAFE);
	return (long)i2;
}

static void pairs_quotes(jh_brun *run, const pairs_state *st, int t, size_t para_start,
                         size_t para_end)
{
	long open = -1;
	for (size_t k = 0; k < st->n; k++) {
		if (st->m[k].type != t)
			continue;
		if (!st->m[k].close) {
			open = open < 0 ? (long)k : quote_conflict(run, st, (size_t)open, k, para_start);
			continue;
		}
		if (open >= 0) {
			open = -1;
			continue;
		}
		/* a closing mark with nothing open */
		long nx = next_of(st, k, t);
		if (nx >= 0 && st->m[nx].close) {
			/* ”你好。” — the first one should open */
			int32_t before = char_before(run, st->m[k].pos, para_start, NULL);
			jh_safety s = before < 0 || before == 0xFF1A || before == ':' ? JH_SAFE : JH_UNSAFE;
			report(run, st->m[k].pos, t, 1, "这里应为开引号%2$s，误用了闭引号%1$s", open_s[t], s);
			open = (long)k;
			continue;
		}
		report(run, st->m[k].pos, t, 1, "闭引号%s前面没有对应的开引号%s", NULL, JH_SAFE);
	}
	if (open >= 0 && !quote_continues(run, para_end, t)) {
		int32_t last = char_before(run, para_end, st->m[open].pos, NULL);
		if (last == 0x3002 || last == 0xFF01 || last == 0xFF1F || last == 0x2026)
			report(run, st->m[open].pos, t, 0, "开引号%s在段末仍未闭合，闭引号%s可能缺在段末", NULL,
			       JH_SAFE);
		else
			report(run, st->m[open].pos, t, 0, "开引号%s在本段中没有对应的闭引号%s", NULL, JH_SAFE);
	}
}

static void pairs_brackets(jh_brun *run, const pairs_state *st, int t)
{
	size_t stack[PAIRS_MAX_DEPTH], depth = 0;
	for (size_t k = 0; k < st->n; k++) {
		if (st->m[k].type != t)
			continue;
		if (!st->m[k].close) {
			if (depth == PAIRS_MAX_DEPTH)
				return; /* not prose */
			stack[depth++] = st->m[k].pos;
		} else if (depth) {
			depth--;
		} else {
			report(run, st->m[k].pos, t, 1, "%s前面没有对应的%s", NULL, JH_SAFE);
		}
	}
	for (size_t i = 0; i < depth; i++)
		report(run, stack[i], t, 0, "%s在本段中没有对应的%s", NULL, JH_SAFE);
}

static void pairs_paragraph(jh_brun *run, size_t para_end)
{
	pairs_state *st = run->state;
	if (st && !st->overflow && st->n) {
		for (int t = 0; t < P_N; t++) {
			if (P_NESTS(t))
				pairs_brackets(run, st, t);
			else
				pairs_quotes(run, st, t, run->run_start, para_end);
		}
	}
	if (st) {
		st->n = 0;
		st->overflow = 0;
	}
}

/* Is a ‘ open in the paragraph so far? */
static int sq_open(const pairs_state *st)
{
	long depth = 0;
	for (size_t k = 0; st && k < st->n; k++)
		if (st->m[k].type == P_SQ)
			depth += st->m[k].close ? (depth > 0 ? -1 : 0) : 1;
	return depth > 0;
}

static void pairs_step(jh_brun *run, const jh_char *c)
{
	if (c->cls & JH_C_NEWLINE) {
		if (c->cp == '\r')
			return;
		pairs_paragraph(run, c->pos);
		run->run_start = c->pos + c->len;
		return;
	}
	int t = 0, close = 0;
	for (; t < P_N; t++) {
		if (c->cp == jh_open_marks[t])
			break;
		if (c->cp == jh_close_marks[t]) {
			close = 1;
			break;
		}
	}
	if (t == P_N)
		return;
	pairs_state *st = run->state;
	/* don’t, players’: an apostrophe, not a quote, unless a ‘ is open */
	if (t == P_SQ && close && c->prev_cp >= 0 && c->prev_cp < 0x80 &&
	    (jh_class_of(c->prev_cp) & JH_C_LATIN) && !sq_open(st))
		return;
	if (!st) {
		st = run->state = malloc(sizeof *st);
		if (!st) {
			run->err = JH_ERR_NOMEM;
			return;
		}
		st->n = 0;
		st->overflow = 0;
	}
	if (st->n == PAIRS_MAX_MARKS) {
		st->overflow = 1;
		return;
	}
	st->m[st->n++] = (pmark){c->pos, (unsigned char)t, (unsigned char)close};
}

static void pairs_finish(jh_brun *run)
{
	pairs_paragraph(run, run->len);
	free(run->state);
	run->state = NULL;
}

/* ---- one quote style per document: “” or 「」 ---- */

enum { QS_AUTO, QS_CURLY, QS_CORNER };

static const char *const qstyle_params[] = {"style", NULL};

static int qstyle_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *v = jh_rule_param(r, "style", &line);
	int *style = malloc(sizeof *style);
	if (!style)
		return JH_ERR_NOMEM;
	if (!v || !strcmp(v, "auto"))
		*style = QS_AUTO;
	else if (!strcmp(v, "“”") || !strcmp(v, "curly"))
		*style = QS_CURLY;
	else if (!strcmp(v, "「」") || !strcmp(v, "corner"))
		*style = QS_CORNER;
	else {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "style must be auto, “” (or curly) or 「」 (or corner), not '%s'", v);
		free(style);
		return JH_ERR_RULES;
	}
	*out = style;
	return JH_OK;
}

/* run_len counts “”, run_end counts 「」, open is the style seen first. */
static void qstyle_step(jh_brun *run, const jh_char *c)
{
	int s = c->cp == 0x201C || c->cp == 0x201D ? QS_CURLY
	        : c->cp == 0x300C || c->cp == 0x300D ? QS_CORNER
	                                               : 0;
	if (!s)
		return;
	if (!run->open)
		run->open = s;
	if (s == QS_CURLY)
		run->run_len++;
	else
		run->run_end++;
}

static void qstyle_finish(jh_brun *run)
{
	int want = *(const int *)run->cfg;
	size_t curly = run->run_len, corner = run->run_end;
	if (want == QS_AUTO) {
		if (!curly || !corner)
			return; /* one style only: nothing to say */
		want = curly > corner ? QS_CURLY : corner > curly ? QS_CORNER : run->open;
	}
	/* The other style's marks, found again: only mixed documents get here. */
	const unsigned char *lead = (const unsigned char *)(want == QS_CURLY ? "\xE3\x80" : "\xE2\x80");
	unsigned char o = want == QS_CURLY ? 0x8C : 0x9C, cl = want == QS_CURLY ? 0x8D : 0x9D;
	const char *msg = want == QS_CURLY ? "引号风格不统一：全文用“”，这里用了「」"
	                                   : "引号风格不统一：全文用「」，这里用了“”";
	if (*(const int *)run->cfg != QS_AUTO)
		msg = want == QS_CURLY ? "引号应为“”（引号风格设为“”）" : "引号应为「」（引号风格设为「」）";
	const char *t = run->text;
	for (const char *p = t; (p = memchr(p, lead[0], run->len - (size_t)(p - t))) != NULL; p++) {
		if ((size_t)(p - t) + 3 > run->len || (unsigned char)p[1] != lead[1])
			continue;
		unsigned char b = (unsigned char)p[2];
		if (b != o && b != cl)
			continue;
		const char *fix = want == QS_CURLY ? (b == o ? "“" : "”") : (b == o ? "「" : "」");
		jh_brun_emit_fix(run, (size_t)(p - t), (size_t)(p - t) + 3, msg, fix, JH_SAFE);
	}
}

/* The characters outside ASCII and Han that the steps act on (builtins.h
 * other_mark): the rest of their classes pass through them untouched. */
static const int32_t newline_other[] = {0x0085, 0x2028, 0x2029};

static void markrun_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	const markrun_cfg *c = cfg;
	/* a run is closed by the next mark that is not next to it, or by
	 * finish: not seeing the characters between changes nothing */
	for (size_t i = 0; i < c->n_marks; i++)
		jh_mark_other(table, bit, c->marks[i]);
}

static void pairs_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	for (int t = 0; t < P_N; t++) {
		jh_mark_other(table, bit, jh_open_marks[t]);
		jh_mark_other(table, bit, jh_close_marks[t]);
	}
	for (size_t i = 0; i < sizeof newline_other / sizeof *newline_other; i++)
		jh_mark_other(table, bit, newline_other[i]);
}

static void qstyle_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	static const int32_t quotes[] = {0x201C, 0x201D, 0x300C, 0x300D};
	for (size_t i = 0; i < sizeof quotes / sizeof *quotes; i++)
		jh_mark_other(table, bit, quotes[i]);
}

const jh_builtin_def jh_checks_punct[] = {
	{"run-on", JH_C_HAN | JH_C_CJK_PUNCT | JH_C_ASCII_PUNCT | JH_C_NEWLINE, runon_params,
	 runon_compile, free, runon_step, runon_finish, 0, JH_HAN_COUNT, NULL},
	{"mark-run", JH_C_CJK_PUNCT, markrun_params, markrun_compile, free, markrun_step, markrun_flush,
	 0, JH_HAN_ALL, NULL, NULL, NULL, markrun_other},
	{"pairs", JH_C_CJK_PUNCT | JH_C_NEWLINE, NULL, NULL, NULL, pairs_step, pairs_finish, 0,
	 JH_HAN_ALL, NULL, NULL, NULL, pairs_other},
	{"quote-style", JH_C_CJK_PUNCT, qstyle_params, qstyle_compile, free, qstyle_step,
	 qstyle_finish, 1, JH_HAN_ALL, NULL, NULL, NULL, qstyle_other},
	{"period", JH_C_ASCII_PUNCT, jh_punct_period_params, jh_punct_period_compile,
	 jh_punct_period_free, jh_punct_period_step, NULL, 0, JH_HAN_ALL, NULL, jh_punct_period_ascii},
	{"in-word", JH_C_SPACE | JH_C_ASCII_PUNCT | JH_C_CJK_PUNCT | JH_C_KANA | JH_C_OTHER | JH_C_HAN,
	 jh_punct_inword_params, jh_punct_inword_compile, jh_punct_period_free, jh_punct_inword_step,
	 NULL, 0, JH_HAN_WANTS, jh_punct_inword_han_mark, jh_punct_inword_ascii, NULL,
	 jh_punct_inword_other},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
