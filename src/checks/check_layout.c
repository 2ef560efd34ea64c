/* check_layout.c — builtin checks of the layout family: what the document
 * does with its lines (line endings, indentation, blank lines, paragraphs
 * run together).  Each needs to know the document's own habit first (the
 * dominant line ending, indent and paragraph separator), so they count
 * during the scan or in one pass over the lines at finish(): memchr over
 * '\n' costs far less than waking a check on every character. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

#define IDSP "\xE3\x80\x80" /* U+3000 IDEOGRAPHIC SPACE, the paragraph indent */


/* One line of the text: [start, end) without its line break; next is where
 * the following line starts.  crlf: the break is \r\n. */
typedef struct {
	size_t start, end, next;
	int crlf, last;
} line_t;

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

/* Length in bytes of the blanks (space, tab, U+3000) at s. */
static size_t blank_prefix(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t')
			i++;
		else if (n - i >= 3 && !memcmp(s + i, IDSP, 3))
			i += 3;
		else
			break;
	}
	return i;
}

static int line_blank(const char *text, const line_t *l)
{
	return blank_prefix(text + l->start, l->end - l->start) == l->end - l->start;
}

/* ---- mixed line endings ---- */

static void eol_finish(jh_brun *run)
{
	size_t crlf = 0, lf = 0;
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next)
		if (!l.last)
			*(l.crlf ? &crlf : &lf) += 1;
	if (!crlf || !lf)
		return;
	int want_crlf = crlf > lf;
	const char *msg = want_crlf ? "换行符不统一：全文用 CRLF，这一行用了 LF"
	                            : "换行符不统一：全文用 LF，这一行用了 CRLF";
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

/* What a line is indented with. */
enum { IND_NONE, IND_IDSP, IND_SPACES, IND_TAB, IND_MIXED };

typedef struct {
	int kind;
	size_t n;      /* characters of indentation */
	size_t bytes;  /* its length in bytes */
} indent_t;

static indent_t indent_of(const char *text, const line_t *l)
{
	indent_t in = {IND_NONE, 0, 0};
	const char *s = text + l->start;
	size_t n = l->end - l->start;
	in.bytes = blank_prefix(s, n);
	for (size_t i = 0; i < in.bytes;) {
		int k = s[i] == ' ' ? IND_SPACES : s[i] == '\t' ? IND_TAB : IND_IDSP;
		i += k == IND_IDSP ? 3 : 1;
		in.n++;
		in.kind = in.kind == IND_NONE || in.kind == k ? k : IND_MIXED;
	}
	return in;
}

/* Is there a Han character in the line?  Lines without one (a URL, a
 * version string, a rendered page header) are not Chinese paragraphs. */
static int has_han(const char *text, const line_t *l)
{
	for (size_t p = l->start; p < l->end;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, l->end - p, &cp);
		if (jh_class_of(cp) & JH_C_HAN)
			return 1;
	}
	return 0;
}

/* Does this line look like a heading, not a paragraph: short, and not
 * ending in sentence punctuation (第一章 出征, 楔子, ***)? */
static int looks_like_heading(const char *text, const line_t *l)
{
	size_t chars = 0, seen = 0;
	int32_t last = 0;
	for (size_t p = l->start; p < l->end;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, l->end - p, &cp);
		if (cp != ' ' && cp != '\t' && cp != 0x3000) {
			last = cp;
			chars = seen + 1; /* trailing blanks do not count */
		}
		seen++;
	}
	int sentence_end = last == 0x3002 || last == 0xFF01 || last == 0xFF1F || last == 0x201D ||
	                   last == 0x300D || last == 0x300F || last == 0x2026 || last == 0xFF0C ||
	                   last == 0x2019 || last == 0xFF09 || last == 0x2014;
	return chars <= 30 && !sentence_end;
}

/* The last character of l before its trailing blanks, and where it starts
 * (0 and l->end for a blank line). */
static int32_t last_char(const char *text, const line_t *l, size_t *at)
{
	size_t e = l->end;
	while (e > l->start) {
		size_t p = e;
		do
			p--;
		while (p > l->start && ((unsigned char)text[p] & 0xC0) == 0x80);
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (cp != ' ' && cp != '\t' && cp != 0x3000) {
			*at = p;
			return cp;
		}
		e = p;
	}
	*at = l->end;
	return 0;
}

/* Does this line end as a paragraph does (。！？…” etc.)?  A line that ends
 * in ，or a Han character is continued on the next one. */
static int ends_paragraph(const char *text, const line_t *l)
{
	size_t at;
	int32_t cp = last_char(text, l, &at); /* 0 for a blank line: it ends one */
	return !(cp == 0xFF0C || cp == 0x3001 || (cp > 0 && (jh_class_of(cp) & JH_C_HAN)));
}

/* Does the text at [p, e) open with one or two Han characters and then ，
 * or 、 (出，正中对方肩头。)?  A paragraph hardly starts that way: it is
 * the tail of a sentence cut by a line break (刺⏎出).  A numeral first is
 * a list item (一，…), not a tail. */
static int starts_as_tail(const char *text, size_t p, size_t e)
{
	static const int32_t numerals[] = {0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94,
	                                   0x516D, 0x4E03, 0x516B, 0x4E5D, 0x5341};
	int32_t cp;
	for (int n = 0; p < e && n <= 2; n++) {
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (n > 0 && (cp == 0xFF0C || cp == 0x3001))
			return 1;
		if (!(jh_class_of(cp) & JH_C_HAN))
			return 0;
		for (size_t i = 0; n == 0 && i < sizeof numerals / sizeof *numerals; i++)
			if (cp == numerals[i])
				return 0;
	}
	return 0;
}

typedef struct {
	size_t lines;                  /* non-blank lines */
	size_t none, idsp2;
	size_t by_kind[IND_MIXED + 1];
	indent_t dominant;             /* the indent most lines use, kind NONE if none */
	char dom_text[64];
} indent_stats;

static void indent_survey(const jh_brun *run, indent_stats *s)
{
	memset(s, 0, sizeof *s);
	/* counts of each exact indent: (kind, n) for n up to 8 */
	size_t exact[IND_MIXED + 1][9] = {{0}};
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l))
			continue;
		indent_t in = indent_of(run->text, &l);
		s->lines++;
		s->by_kind[in.kind]++;
		if (in.kind != IND_NONE && in.kind != IND_MIXED && in.n <= 8)
			exact[in.kind][in.n]++;
	}
	size_t best = 0;
	for (int k = IND_IDSP; k <= IND_TAB; k++)
		for (size_t n = 1; n <= 8; n++)
			if (exact[k][n] > best) {
				best = exact[k][n];
				s->dominant = (indent_t){k, n, 0};
			}
	/* A document is indented when more than half of its non-blank lines
	 * are, with one form (　　 or four spaces) for most of those.  Only a
	 * paragraph indent counts: one to four 　, two to four spaces or a tab;
	 * deeper ones (seven spaces in a rendered manual page) are structure. */
	size_t indented = s->lines - s->by_kind[IND_NONE];
	int para_like = s->dominant.kind == IND_IDSP ? s->dominant.n <= 4
	                : s->dominant.kind == IND_SPACES ? s->dominant.n >= 2 && s->dominant.n <= 4
	                                                 : s->dominant.n == 1;
	if (best < 3 || !para_like || indented * 2 <= s->lines || best * 2 < indented) {
		s->dominant.kind = IND_NONE;
		return;
	}
	const char *unit = s->dominant.kind == IND_IDSP ? IDSP : s->dominant.kind == IND_TAB ? "\t" : " ";
	for (size_t i = 0; i < s->dominant.n; i++)
		strcat(s->dom_text, unit);
	s->dominant.bytes = strlen(s->dom_text);
}

/* Lines indented otherwise than the document's dominant indent. */
static void indent_form_finish(jh_brun *run)
{
	indent_stats s;
	indent_survey(run, &s);
	if (s.dominant.kind == IND_NONE)
		return;
	char msg[160];
	snprintf(msg, sizeof msg, "缩进不统一：全文段首用%s，这一行不同",
	         s.dominant.kind == IND_IDSP ? (s.dominant.n == 2 ? "两个全角空格" : "全角空格")
	         : s.dominant.kind == IND_TAB ? "制表符"
	                                      : "半角空格");
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l))
			continue;
		indent_t in = indent_of(run->text, &l);
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

/* Paragraphs without indent in an indented document. */
static void indent_missing_finish(jh_brun *run)
{
	indent_stats s;
	indent_survey(run, &s);
	if (s.dominant.kind == IND_NONE)
		return;
	const char *msg = "段首缺少缩进（全文其他段落都有缩进）";
	line_t l, prev = {0, 0, 0, 0, 0};
	int have_prev = 0;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l))
			continue;
		indent_t in = indent_of(run->text, &l);
		/* the continuation of a paragraph split in two is
		 * layout.paragraph-split's to join, not to indent */
		int continues = have_prev && !ends_paragraph(run->text, &prev) &&
		                (!looks_like_heading(run->text, &prev) ||
		                 starts_as_tail(run->text, l.start, l.end));
		if (in.kind == IND_NONE && !continues && has_han(run->text, &l) &&
		    !looks_like_heading(run->text, &l))
			jh_brun_emit_fix(run, l.start, l.start, msg, s.dom_text, JH_UNSAFE);
		prev = l;
		have_prev = 1;
	}
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
	/* The document's own separator wins over max: a text that puts two
	 * blank lines between all its paragraphs is consistent, not wrong. */
	size_t runs[5] = {0}, blanks = 0, total = 0;
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l) && !l.last) {
			blanks++;
			continue;
		}
		if (blanks) {
			runs[blanks < 4 ? blanks : 4]++;
			total++;
		}
		blanks = 0;
	}
	for (unsigned long k = max + 1; k < 4 && total >= 3; k++)
		if (runs[k] * 2 > total)
			max = k;
	char msg[160];
	snprintf(msg, sizeof msg, "连续空行太多（最多 %lu 行）", max);
	size_t first_extra = 0;
	blanks = 0;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l) && !l.last) {
			if (++blanks == max + 1)
				first_extra = l.start;
			continue;
		}
		if (blanks > max)
			jh_brun_emit_fix(run, first_extra, l.start, msg, "", JH_SAFE);
		blanks = 0;
	}
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
	size_t with_blank = 0, without = 0;
	int prev_blank = 0, have_text = 0;
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		int blank = line_blank(run->text, &l);
		if (!blank && have_text)
			*(prev_blank ? &with_blank : &without) += 1;
		if (!blank)
			have_text = 1;
		prev_blank = blank;
	}
	const char *sep = with_blank > without ? "\n\n" : "\n";
	const char *msg = "行中间出现段首缩进，疑似两段被合并成了一行，应在此处分段";
	for (size_t i = 0; i < st->n; i += 2) {
		char fix[64];
		size_t n = st->pos[i + 1] - st->pos[i];
		if (n > sizeof fix - 4)
			n = sizeof fix - 4;
		snprintf(fix, sizeof fix, "%s%.*s", sep, (int)n, run->text + st->pos[i]);
		jh_brun_emit_fix(run, st->pos[i], st->pos[i + 1], msg, fix, JH_UNSAFE);
	}
	free(st->pos);
	free(st);
	run->state = NULL;
}

/* ---- a paragraph cut in two in mid-sentence ---- */

/* Could the text at [p, e) be the second half of a sentence: it starts
 * with a Han character or an opening quote and has clause punctuation of
 * its own after that (a heading, 参考, 范例 EXAMPLE, has none)? */
static int continues_sentence(const char *text, size_t p, size_t e)
{
	int32_t cp;
	if (p >= e)
		return 0;
	p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
	int mark = jh_open_mark(cp);
	if (!(jh_class_of(cp) & JH_C_HAN) && !(mark >= 0 && mark < JH_PAIR_QUOTES))
		return 0;
	while (p < e) {
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (cp == 0xFF0C || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B ||
		    cp == 0x3001)
			return 1;
	}
	return 0;
}

/* A character no sentence or heading ends on: a particle or preposition
 * that needs what follows (冒着热气的⏎面条, 她把⏎门关上). */
static int cannot_end(int32_t cp)
{
	/* 的地把被从向对和与跟给让将朝往 */
	static const int32_t ties[] = {0x7684, 0x5730, 0x628A, 0x88AB, 0x4ECE, 0x5411, 0x5BF9, 0x548C,
	                               0x4E0E, 0x8DDF, 0x7ED9, 0x8BA9, 0x5C06, 0x671D, 0x5F80};
	for (size_t i = 0; i < sizeof ties / sizeof *ties; i++)
		if (ties[i] == cp)
			return 1;
	return 0;
}

/* Is there a clause or sentence mark (，、；：。！？) in [p, e)? */
static int has_clause_mark(const char *text, size_t p, size_t e)
{
	while (p < e) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (cp == 0xFF0C || cp == 0x3001 || cp == 0xFF1B || cp == 0xFF1A || cp == 0x3002 ||
		    cp == 0xFF01 || cp == 0xFF1F)
			return 1;
	}
	return 0;
}

/* How the document ends its lines of prose (with a Han character and a
 * clause mark).  Hard-wrapped text (manual pages, books cut at a width)
 * stops many on a Han character with the next line unindented: of three
 * or more lines of prose, more than one in twenty.  Text of one
 * paragraph a line ends nearly all of them on a mark: at most one in four
 * mid-sentence (in ，、 or a Han character), at most one in twenty on a
 * Han character.  A paragraph cut now and then (the damage the rule is
 * for) leaves its second half indented, and counts for neither. */
typedef struct {
	int hard_wrapped, one_line;
} wrap_survey;

static wrap_survey survey_wrap(const jh_brun *run)
{
	size_t prose = 0, mid = 0, bare = 0, wraps = 0;
	int prev_bare = 0;
	line_t l;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l)) {
			prev_bare = 0;
			continue;
		}
		wraps += prev_bare && indent_of(run->text, &l).kind == IND_NONE;
		prev_bare = 0;
		if (!has_han(run->text, &l) || !has_clause_mark(run->text, l.start, l.end))
			continue;
		prose++;
		mid += !ends_paragraph(run->text, &l);
		size_t at;
		int32_t cp = last_char(run->text, &l, &at);
		prev_bare = cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		bare += prev_bare;
	}
	wrap_survey w = {prose >= 3 && wraps * 20 > prose, 0};
	w.one_line = prose >= 3 && !w.hard_wrapped && mid * 4 <= prose && bare * 20 <= prose;
	return w;
}

static const wrap_survey *survey_once(const jh_brun *run, wrap_survey *w, int *done)
{
	if (!*done)
		*w = survey_wrap(run), *done = 1;
	return w;
}

/* The number of Han characters in a row that end at e (going back, not
 * before start) or, forward, that start at p (not past e). */
static size_t han_run_back(const char *text, size_t start, size_t e)
{
	size_t n = 0;
	while (e > start) {
		size_t q = jh_utf8_start_back(text, e);
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + q, e - q, &cp);
		if (!(jh_class_of(cp) & JH_C_HAN))
			break;
		n++;
		e = q;
	}
	return n;
}

static size_t han_run_forward(const char *text, size_t p, size_t e)
{
	size_t n = 0;
	while (p < e) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (!(jh_class_of(cp) & JH_C_HAN))
			break;
		n++;
		p += k;
	}
	return n;
}

/* A couplet of verse across the break: the line before is one clause of
 * 4, 5 or 7 characters and its ， (after its indent: [start, mark)), and
 * the next line opens with a clause of the same length (床前明月光，⏎
 * 疑是地上霜。).  Prose cut at a ， has more than one clause before the
 * cut, or clauses of other lengths. */
static int verse_across(const char *text, size_t start, size_t mark, size_t p, size_t e)
{
	start += blank_prefix(text + start, mark - start);
	size_t a = han_run_back(text, start, mark), b = han_run_forward(text, p, e);
	return a == b && (a == 4 || a == 5 || a == 7) && han_run_forward(text, start, mark) == a;
}

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
	indent_stats s;
	indent_survey(run, &s);
	/* the wrap survey decodes every line: taken only when a candidate
	 * break needs it (most documents have none) */
	wrap_survey wrap;
	int surveyed = 0;
	line_t l, prev = {0, 0, 0, 0, 0};
	int have_prev = 0;
	size_t blanks = 0;
	for (size_t p = 0; next_line(run->text, run->len, p, &l); p = l.next) {
		if (line_blank(run->text, &l)) {
			blanks += !l.last;
			continue;
		}
		indent_t in = indent_of(run->text, &l);
		size_t at, body = l.start + in.bytes;
		int32_t end = have_prev ? last_char(run->text, &prev, &at) : 0;
		int32_t cp;
		int tight = end && at + jh_utf8_decode((const unsigned char *)run->text + at,
		                                       prev.end - at, &cp) == prev.end; /* no trailing blank */
		if (tight && jh_open_mark(end) >= 0 && at > prev.start) {
			/* the character right before the mark: not a blank (a table
			 * of characters: 左双引号: “) */
			size_t b = jh_utf8_prev(run->text, at);
			jh_utf8_decode((const unsigned char *)run->text + b, at - b, &cp);
			if (cp != ' ' && cp != '\t' && cp != 0x3000)
				split_emit(run, prev.end, body, 0, SPLIT_COMMA);
		} else if (tight && (end == 0xFF0C || end == 0x3001) &&
		           continues_sentence(run->text, body, l.end)) {
			int idsp = in.kind == IND_IDSP || in.kind == IND_MIXED;
			if (blanks)
				split_emit(run, prev.end, body,
				           !(s.dominant.kind != IND_NONE && in.kind == IND_NONE), SPLIT_COMMA);
			else if ((idsp || (in.kind == IND_NONE && survey_once(run, &wrap, &surveyed)->one_line)) &&
			         !verse_across(run->text, prev.start, at, body, l.end))
				split_emit(run, prev.end, body, 1, SPLIT_COMMA);
		} else if (tight && end && (jh_class_of(end) & JH_C_HAN) && !blanks &&
		           s.dominant.kind != IND_NONE &&
		           in.kind == IND_NONE && prev.start < at &&
		           indent_of(run->text, &prev).kind != IND_NONE &&
		           starts_as_tail(run->text, body, l.end)) {
			/* 刺⏎出，正中…: an indented line cut after a Han character,
			 * the next one unindented and going on with 出， — a word
			 * cut in two, in a document that indents its paragraphs, so
			 * the unindented line is no paragraph: the join is a fix.
			 * A document without that habit may be hard-wrapped (every
			 * line cut at a width, Lu Xun's books in src/) and is left
			 * alone, as for ， above. */
			split_emit(run, prev.end, body, 0, SPLIT_CUT);
		} else if (tight && end && (jh_class_of(end) & JH_C_HAN) && !blanks &&
		           (in.kind == IND_IDSP || in.kind == IND_MIXED) &&
		           indent_of(run->text, &prev).kind != IND_NONE &&
		           (has_clause_mark(run->text, prev.start, at) || cannot_end(end)) &&
		           continues_sentence(run->text, body, l.end) &&
		           !survey_once(run, &wrap, &surveyed)->hard_wrapped) {
			/* 冒着热气的⏎　　面条，旁边…: an indented line of prose (a
			 * clause mark inside, or a last character no line ends on:
			 * not a heading, 第一章　重逢, nor a line of verse without
			 * marks) that stops on a Han character,
			 * the next indented and going on.  Novel text ends every
			 * paragraph on a mark; but an author may leave one off, so
			 * the join is offered, not applied.  Hard-wrapped text
			 * (a quotation indented line by line) is left alone. */
			split_emit(run, prev.end, body, 1, SPLIT_BARE);
		}
		prev = l;
		have_prev = 1;
		blanks = 0;
	}
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
