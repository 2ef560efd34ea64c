/* check_layout.c — builtin checks of the layout family: what the document
 * does with its lines (line endings, indentation, blank lines, paragraphs
 * run together).  Each needs to know the document's own habit first (the
 * dominant line ending, indent and paragraph separator), so they count
 * in one pass over the lines at finish() that all of them share (the
 * survey, layout_survey.c, kept in the run's jh_doc_shared): it counts
 * what each check's decision needs and keeps the few lines a finding can
 * be on, so that a check walks the text again only when it has findings
 * to emit.  This file is the checks' stage: their decisions and findings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "layout.h"

static int next_line(const char *text, size_t len, size_t pos, line_t *l)
{
	if (pos >= len)
		return 0;
	const char *nl = memchr(text + pos, '\n', len - pos);
	l->start = pos;
	if (!nl) {
		l->end = l->next = len;
		l->crlf = 0;
		l->last = 1;
		return 1;
	}
	size_t e = (size_t)(nl - text);
	l->crlf = e > pos && text[e - 1] == '\r';
	l->end = l->crlf ? e - 1 : e;
	l->next = e + 1;
	l->last = 0;
	return 1;
}

/* ---- mixed line endings ---- */

static void eol_finish(jh_brun *run)
{
	int own;
	layout_survey *s = layout_survey_get(run, &own);
	if (!s)
		return;
	size_t crlf = s->crlf, lf = s->lf;
	layout_survey_put(s, own);
	if (!crlf || !lf)
		return;
	int want_crlf = crlf > lf;
	const char *msg = want_crlf ? "换行符不统一：全文用 CRLF，这一行用了 LF"
	                            : "换行符不统一：全文用 LF，这一行用了 CRLF";
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (l.last || l.crlf == want_crlf)
			continue;
		if (want_crlf)
			jh_brun_emit_fix(run, l.end, l.next, msg, "\r\n", JH_SAFE);
		else
			jh_brun_emit_fix(run, l.end, l.next, msg, "\n", JH_SAFE);
	}
}

/* ---- indentation ---- */

/* Lines indented otherwise than the document's dominant indent. */
static void indent_form_finish(jh_brun *run)
{
	int own;
	layout_survey *sv = layout_survey_get(run, &own);
	if (!sv)
		return;
	indent_stats s = sv->ind;
	/* the lines reported: a paragraph indent (one to four 　 or spaces, a
	 * tab) other than the dominant one; none, and there is no walk */
	size_t reported = 0;
	for (int k = IND_IDSP; k <= IND_TAB; k++)
		for (size_t n = 1; n <= (k == IND_TAB ? 1u : 4u); n++)
			if (!(k == s.dominant.kind && n == s.dominant.n))
				reported += sv->exact[k][n];
	layout_survey_put(sv, own);
	if (s.dominant.kind == IND_NONE || !reported)
		return;
	char msg[160];
	snprintf(msg, sizeof msg, "缩进不统一：全文段首用%s，这一行不同",
	         s.dominant.kind == IND_IDSP ? (s.dominant.n == 2 ? "两个全角空格" : "全角空格")
	         : s.dominant.kind == IND_TAB ? "制表符"
	                                      : "半角空格");
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (layout_line_blank(run->text, &l))
			continue;
		indent_t in = layout_indent_of(run->text, &l);
		if (in.kind == IND_NONE ||
		    (in.kind == s.dominant.kind && in.n == s.dominant.n))
			continue;
		/* deeper than any paragraph indent: a table, code, a figure */
		if (in.kind == IND_MIXED || in.n > (in.kind == IND_TAB ? 1u : 4u))
			continue;
		/* A paragraph indent typed another way (four spaces or a tab for
		 * the document's 　　) is a typing habit: safe.  Another depth may
		 * be meant (a letter, a poem, a quoted block): unsafe. */
		int habit = in.kind != s.dominant.kind && in.kind != IND_MIXED &&
		            (in.kind == IND_TAB ? in.n == 1 : in.n <= 4);
		jh_safety safety = habit ? JH_SAFE : JH_UNSAFE;
		jh_brun_emit_fix(run, l.start, l.start + in.bytes, msg, s.dom_text, safety);
	}
}

/* Whether the unindented line l, after the non-blank line prev (if
 * have_prev), is a paragraph that lacks its indent. */
static int indent_lacking(const char *text, const line_t *l, const line_t *prev, int have_prev)
{
	/* the continuation of a paragraph split in two is
	 * layout.paragraph-split's to join, not to indent */
	int continues = have_prev && !layout_ends_paragraph(text, prev) &&
	                (!layout_looks_like_heading(text, prev) || layout_starts_as_tail(text, l->start, l->end));
	return !continues && layout_has_han(text, l) && !layout_looks_like_heading(text, l);
}

/* Paragraphs without indent in an indented document. */
static void indent_missing_finish(jh_brun *run)
{
	int own;
	layout_survey *sv = layout_survey_get(run, &own);
	if (!sv)
		return;
	indent_stats s = sv->ind;
	const char *msg = "段首缺少缩进（全文其他段落都有缩进）";
	if (s.dominant.kind != IND_NONE && !sv->bare_overflow) {
		for (size_t i = 0; i < sv->n_bare; i++) {
			const bare_line *b = &sv->bare[i];
			line_t l = {b->start, b->end, 0, 0, 0}, prev = {b->prev_start, b->prev_end, 0, 0, 0};
			if (indent_lacking(run->text, &l, &prev, b->have_prev))
				jh_brun_emit_fix(run, l.start, l.start, msg, s.dom_text, JH_UNSAFE);
		}
	} else if (s.dominant.kind != IND_NONE) {
		line_t l, prev = {0, 0, 0, 0, 0};
		int have_prev = 0;
		for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
			if (layout_line_blank(run->text, &l))
				continue;
			if (layout_indent_of(run->text, &l).kind == IND_NONE &&
			    indent_lacking(run->text, &l, &prev, have_prev))
				jh_brun_emit_fix(run, l.start, l.start, msg, s.dom_text, JH_UNSAFE);
			prev = l;
			have_prev = 1;
		}
	}
	layout_survey_put(sv, own);
}

/* ---- runs of blank lines ---- */

static const char *const blank_params[] = {"max", NULL};

static int blank_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	return jh_compile_uint(r, "max", 1, 1000, out, diag_fn, payload);
}

static void blank_finish(jh_brun *run)
{
	unsigned long max = *(const unsigned long *)run->cfg;
	int own;
	layout_survey *s = layout_survey_get(run, &own);
	if (!s)
		return;
	/* The document's own separator wins over max: a text that puts two
	 * blank lines between all its paragraphs is consistent, not wrong. */
	for (unsigned long k = max + 1; k < 4 && s->runs_total >= 3; k++)
		if (s->runs[k] * 2 > s->runs_total)
			max = k;
	if (s->longest_run > max) {
		char msg[160];
		snprintf(msg, sizeof msg, "连续空行太多（最多 %lu 行）", max);
		for (size_t i = 0; i < s->n_br; i++) {
			if (s->br[i].n <= max)
				continue;
			/* from the first blank line too many */
			size_t first_extra = s->br[i].start;
			for (unsigned long k = 0; k < max; k++)
				first_extra = (size_t)((const char *)memchr(run->text + first_extra, '\n',
				                                            run->len - first_extra) -
				                       run->text) + 1;
			jh_brun_emit_fix(run, first_extra, s->br[i].after, msg, "", JH_SAFE);
		}
	}
	layout_survey_put(s, own);
}

/* ---- two paragraphs run together at a mid-line indent ---- */

/* Candidates are noted during the scan (woken by U+3000); the fix needs the
 * document's paragraph separator, known only at the end. */
typedef struct {
	size_t *pos;   /* start of the 　　 run, and its end, in pairs */
	size_t n, cap;
} merged_state;

static void merged_step(jh_brun *run, const jh_char *c)
{
	if (c->cp != 0x3000 || c->prev_cp == 0x3000)
		return;
	/* after the end of a sentence (。！？…” 」』）——), not at a line start */
	int32_t p = c->prev_cp;
	if (!(p == 0x3002 || p == 0xFF01 || p == 0xFF1F || p == 0x2026 || p == 0x201D ||
	      p == 0x300D || p == 0x300F || p == 0xFF09 || p == 0x2014))
		return;
	size_t e = c->pos + c->len, n = 1;
	while (e + 3 <= run->len && !memcmp(run->text + e, IDSP, 3)) {
		e += 3;
		n++;
	}
	if (n < 2 || e >= run->len)
		return;
	unsigned char next = (unsigned char)run->text[e];
	if (next == '\n' || next == '\r' || next == ' ' || next == '\t')
		return; /* trailing blanks: layout.trailing-space */
	merged_state *st = run->state;
	if (!st && !(st = run->state = calloc(1, sizeof *st))) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (jh_grow((void **)&st->pos, &st->cap, st->n + 2, sizeof *st->pos)) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	st->pos[st->n++] = c->pos;
	st->pos[st->n++] = e;
}

static void merged_finish(jh_brun *run)
{
	merged_state *st = run->state;
	if (!st)
		return;
	/* Paragraphs separated by a blank line, or not: as most of them are. */
	int own;
	layout_survey *s = layout_survey_get(run, &own);
	if (s) {
		const char *sep = s->with_blank > s->without ? "\n\n" : "\n";
		layout_survey_put(s, own);
		const char *msg = "行中间出现段首缩进，疑似两段被合并成了一行，应在此处分段";
		for (size_t i = 0; i < st->n; i += 2) {
			char fix[64];
			size_t n = st->pos[i + 1] - st->pos[i];
			if (n > sizeof fix - 4)
				n = sizeof fix - 4;
			snprintf(fix, sizeof fix, "%s%.*s", sep, (int)n, run->text + st->pos[i]);
			jh_brun_emit_fix(run, st->pos[i], st->pos[i + 1], msg, fix, JH_UNSAFE);
		}
	}
	free(st->pos);
	free(st);
	run->state = NULL;
}

/* ---- a paragraph cut in two in mid-sentence ---- */

/* The join of two lines: the finding spans the line break, the blank
 * lines and the indent of the second line; the fix deletes them.  When
 * the break can be the author's, the join is an alternative only, and the
 * finding is information. */
enum { SPLIT_COMMA, SPLIT_CUT, SPLIT_BARE };

static void split_emit(jh_brun *run, size_t start, size_t end, int judge, int why)
{
	if (!judge) {
		jh_brun_emit_fix(run, start, end, "段落在句子中间被断开了，应与下一段连起来", "",
		                 JH_UNSAFE);
		return;
	}
	if (run->err)
		return;
	const jh_rule *r = run->rule;
	int rc = jh_findings_add(run->out, r->id, run->rule_index, JH_INFO, start, end,
	                         why == SPLIT_CUT
	                             ? "这一行在词中间断开了，下一行像是它的后半句（若是断开了，应连起来）"
	                         : why == SPLIT_BARE
	                             ? "这一行没有标点就结束了，下一行像是它的后半句（若是断开了，应连起来）"
	                             : "这一段以逗号结尾，下一段可能是它的后半句（若是断开了，应连起来）",
	                         NULL, 0, JH_UNSAFE);
	if (rc == JH_OK && r->has_fix) {
		jh_edit alt = {start, end, ""};
		rc = jh_findings_add_alternative(run->out, run->out->count - 1, &alt, 1);
	}
	if (rc)
		run->err = rc;
}

/* A line that ends in an opening mark (怒吼道：“⏎全军…) always goes on in
 * the next one: the join is a fix.  A line that ends in ， or 、 before a
 * blank line, or before a line indented with 　, may be a paragraph cut
 * in two; only the next line can say so.  In a document whose paragraphs
 * are indented, a second half after a blank line without the indent is
 * not a paragraph (web-novel text cut at a width, corpus-samples 003/004):
 * the join is a fix.  An indented one may be the author's paragraph: in
 * published prose (Lu Xun's stories and essays, README) the breaks after
 * ， are a speech after 说，, verse, a couplet, and a join there is wrong
 * more often than right, so the join is only offered.  A line ending in ，
 * followed directly by an unindented line is hard-wrapped text (manual
 * pages), not flagged. */
static void split_finish(jh_brun *run)
{
	int own;
	layout_survey *s = layout_survey_get(run, &own);
	if (!s)
		return;
	int indented = s->ind.dominant.kind != IND_NONE;
	for (size_t i = 0; i < s->n_cand; i++) {
		const split_cand *c = &s->cand[i];
		switch (c->kind) {
		case CAND_MARK:
			split_emit(run, c->start, c->end, 0, SPLIT_COMMA);
			break;
		case CAND_COMMA_BLANK:
			split_emit(run, c->start, c->end, !(indented && c->unindented), SPLIT_COMMA);
			break;
		case CAND_COMMA:
			if (!c->unindented || s->wrap.one_line)
				split_emit(run, c->start, c->end, 1, SPLIT_COMMA);
			break;
		case CAND_CUT:
			/* 刺⏎出，正中…: an indented line cut after a Han character,
			 * the next one unindented and going on with 出， — a word
			 * cut in two, in a document that indents its paragraphs, so
			 * the unindented line is no paragraph: the join is a fix.
			 * A document without that habit may be hard-wrapped (every
			 * line cut at a width, Lu Xun's books in src/) and is left
			 * alone, as for ， above. */
			if (indented)
				split_emit(run, c->start, c->end, 0, SPLIT_CUT);
			break;
		case CAND_BARE:
			/* 冒着热气的⏎　　面条，旁边…: an indented line of prose (a
			 * clause mark inside, or a last character no line ends on:
			 * not a heading, 第一章　重逢, nor a line of verse without
			 * marks) that stops on a Han character,
			 * the next indented and going on.  Novel text ends every
			 * paragraph on a mark; but an author may leave one off, so
			 * the join is offered, not applied.  Hard-wrapped text
			 * (a quotation indented line by line) is left alone. */
			if (!s->wrap.hard_wrapped)
				split_emit(run, c->start, c->end, 1, SPLIT_BARE);
			break;
		}
	}
	layout_survey_put(s, own);
}
/* merged_step looks at U+3000 only: no ASCII space wakes it. */
static void merged_ascii(const void *cfg, unsigned char wants[128]) { (void)cfg, (void)wants; }

const jh_builtin_def jh_checks_layout[] = {
	{"line-endings", 0, NULL, NULL, NULL, NULL, eol_finish},
	{"indent-form", 0, NULL, NULL, NULL, NULL, indent_form_finish},
	{"indent-missing", 0, NULL, NULL, NULL, NULL, indent_missing_finish},
	{"blank-lines", 0, blank_params, blank_compile, free, NULL, blank_finish},
	{"paragraph-split", 0, NULL, NULL, NULL, NULL, split_finish},
	{"merged-paragraph", JH_C_SPACE, NULL, NULL, NULL, merged_step, merged_finish, 0, JH_HAN_ALL,
	 NULL, merged_ascii},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
