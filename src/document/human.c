/* human.c — findings for people, as `jinghua check` prints them (and
 * `python -m jinghua`, through the same call): the finding's line, the
 * source line and a caret line under the span aligned by display width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "jinghua.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

static const char *const sev_color[] = {"\033[36m", "\033[33m", "\033[31;1m"};

/* Findings come in text order, often many on one line: the last line is
 * remembered, as walking back from every finding to its line's start made
 * a long line with many findings cost its length squared. */
typedef struct {
	const char *text;
	size_t len;
	size_t start, brk; /* the last line: its first byte, its line break or the end */
	int valid;
	int color;
	const char *name;  /* escaped */
	jh_buf b;          /* one finding's lines */
	int nomem;
} human;

/* The line holding pos, [*ls, *le) without its line break. */
static void line_bounds(human *h, size_t pos, size_t *ls, size_t *le)
{
	size_t p = pos > h->len ? h->len : pos;
	if (!(h->valid && h->start <= p && p <= h->brk)) {
		size_t s = p;
		while (s > 0 && h->text[s - 1] != '\n')
			s--;
		const char *nl = memchr(h->text + p, '\n', h->len - p);
		h->start = s;
		h->brk = nl ? (size_t)(nl - h->text) : h->len;
		h->valid = 1;
	}
	*ls = h->start;
	*le = h->brk;
	if (*le > *ls && h->text[*le - 1] == '\r')
		(*le)--;
}

static void puts_(human *h, const char *s)
{
	h->nomem |= jh_buf_puts(&h->b, s) != JH_OK;
}

static void put(human *h, const char *s, size_t n)
{
	h->nomem |= jh_buf_append(&h->b, s, n) != JH_OK;
}

static void putf(human *h, const char *fmt, size_t v)
{
	char num[48];
	int n = snprintf(num, sizeof num, fmt, v);
	put(h, num, (size_t)n);
}

static void repeat(human *h, char c, size_t n)
{
	if (jh_buf_reserve(&h->b, n)) {
		h->nomem = 1;
		return;
	}
	memset(h->b.data + h->b.len, c, n);
	h->b.len += n;
}

static void col(human *h, const char *code)
{
	if (h->color)
		puts_(h, code);
}

/* A source line: invalid UTF-8 as jh_utf8_clean shows it (one U+FFFD, one
 * column, as jh_display_width counts it), tabs and control characters one
 * space each, so that the caret line stays aligned. */
static void put_source(human *h, const char *s, size_t n)
{
	if (jh_buf_reserve(&h->b, 3 * n + 1)) {
		h->nomem = 1;
		return;
	}
	char *o = h->b.data + h->b.len;
	size_t w = jh_utf8_clean(s, n, o, 3 * n + 1);
	for (size_t i = 0; i < w; i++)
		if ((unsigned char)o[i] < 0x20)
			o[i] = ' ';
	h->b.len += w;
}

/* 「text」, or "delete" for an empty replacement. */
static void put_replacement(human *h, const char *rep)
{
	if (*rep) {
		puts_(h, "「");
		puts_(h, rep);
		puts_(h, "」");
	} else {
		puts_(h, "delete");
	}
}

/* "  alternatives: 「知识」 (0.62), 「智识」 (0.11)": the ranked answers,
 * best first, each with its probability when the rule gives one; an
 * answer of several edits shows them joined by "+". */
static void put_alternatives(human *h, const jh_finding *f)
{
	puts_(h, "  alternatives:");
	for (size_t i = 0; i < f->n_alternatives; i++) {
		const jh_alternative *a = &f->alternatives[i];
		puts_(h, i ? ", " : " ");
		for (size_t k = 0; k < a->n_edits; k++) {
			if (k)
				puts_(h, "+");
			put_replacement(h, a->edits[k].replacement);
		}
		if (a->score >= 0) {
			char num[32];
			int n = snprintf(num, sizeof num, " (%.2f)", a->score);
			put(h, num, (size_t)n);
		}
	}
	puts_(h, "\n");
}

/* Very long lines (a whole novel without breaks) are shown cut around the
 * span, at character boundaries. */
static void shown_part(human *h, const jh_finding *f, size_t *s, size_t *e)
{
	size_t ls, le;
	line_bounds(h, f->byte_start, &ls, &le);
	*s = ls;
	*e = le;
	if (f->byte_start - ls > 240) {
		*s = f->byte_start - 120;
		while (*s < f->byte_start && ((unsigned char)h->text[*s] & 0xC0) == 0x80)
			(*s)++;
	}
	if (*e - *s > 480) {
		*e = *s + 480;
		while (*e > *s && ((unsigned char)h->text[*e] & 0xC0) == 0x80)
			(*e)--;
	}
}

static void put_finding(human *h, const jh_finding *f)
{
	const char *sev = (unsigned)f->severity < 3 ? sev_color[f->severity] : "";
	col(h, C_BOLD);
	puts_(h, h->name);
	putf(h, ":%zu", f->line);
	putf(h, ":%zu:", f->column);
	col(h, C_RESET);
	puts_(h, " ");
	col(h, sev);
	puts_(h, jh_severity_name(f->severity));
	col(h, C_RESET);
	puts_(h, " ");
	col(h, C_DIM);
	puts_(h, "[");
	puts_(h, f->rule_id);
	puts_(h, "]");
	col(h, C_RESET);
	puts_(h, " ");
	puts_(h, f->message);
	puts_(h, "\n");

	size_t s, e;
	shown_part(h, f, &s, &e);
	puts_(h, "  ");
	col(h, C_DIM);
	puts_(h, "|");
	col(h, C_RESET);
	puts_(h, " ");
	put_source(h, h->text + s, e - s);
	puts_(h, "\n");

	size_t pad = jh_display_width(h->text + s, f->byte_start - s);
	size_t span_end = f->byte_end < e ? f->byte_end : e;
	size_t w = span_end > f->byte_start
	               ? jh_display_width(h->text + f->byte_start, span_end - f->byte_start)
	               : 0;
	puts_(h, "  ");
	col(h, C_DIM);
	puts_(h, "|");
	col(h, C_RESET);
	puts_(h, " ");
	repeat(h, ' ', pad);
	col(h, sev);
	repeat(h, '^', w ? w : 1);
	if (f->has_fix && f->n_edits == 1) {
		puts_(h, f->safety == JH_SAFE ? " fix: " : " suggestion: ");
		put_replacement(h, f->edits[0].replacement);
	}
	col(h, C_RESET);
	puts_(h, "\n");
	if (f->n_alternatives)
		put_alternatives(h, f);
}

int jh_report_human(const char *name, const char *text, size_t len, const jh_findings *findings,
                    unsigned flags, jh_write_fn write, void *payload)
{
	if (!name || (!text && len) || !findings || !write)
		return JH_ERR_ARG;
	size_t n = jh_name_escape(name, NULL, 0);
	char *shown = malloc(n + 1);
	if (!shown)
		return JH_ERR_NOMEM;
	jh_name_escape(name, shown, n + 1);
	human h = {.text = text ? text : "", .len = len, .color = (flags & JH_REPORT_COLOR) != 0,
	           .name = shown};
	int rc = JH_OK;
	for (size_t i = 0; i < findings->count && rc == JH_OK; i++) {
		h.b.len = 0;
		put_finding(&h, &findings->items[i]);
		if (h.nomem)
			rc = JH_ERR_NOMEM;
		else if (write(h.b.data, h.b.len, payload))
			rc = JH_ERR_IO;
	}
	jh_buf_free(&h.b);
	free(shown);
	return rc;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

int jh_report_human_summary(const size_t by_severity[3], size_t files, size_t skipped,
                            jh_write_fn write, void *payload)
{
	if (!by_severity || !write)
		return JH_ERR_ARG;
	size_t e = by_severity[JH_ERROR], w = by_severity[JH_WARNING], i = by_severity[JH_INFO];
	size_t total = e + w + i;
	if (!total)
		return JH_OK;
	char line[256];
	int n = snprintf(line, sizeof line,
	                 "\n%zu finding%s (%zu error%s, %zu warning%s, %zu info) in %zu file%s", total,
	                 plural(total), e, plural(e), w, plural(w), i, files, plural(files));
	if (skipped)
		n += snprintf(line + n, sizeof line - (size_t)n, " checked, %zu binary file%s skipped",
		              skipped, plural(skipped));
	n += snprintf(line + n, sizeof line - (size_t)n, "\n");
	return write(line, (size_t)n, payload) ? JH_ERR_IO : JH_OK;
}
