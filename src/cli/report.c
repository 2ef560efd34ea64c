/* report.c — printing findings: `human` (file:line:col, the source line and
 * a caret under the span, aligned by display width) and `json`. */
#include <string.h>
#include "cli.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

static const char *sev_color[] = {"\033[36m", "\033[33m", "\033[31;1m"};

void json_string(FILE *out, const char *s, size_t len)
{
	size_t valid = 0;
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (i >= valid) {
			/* Check each UTF-8 sequence once; replace what is invalid. */
			size_t ok = jh_utf8_valid_prefix(s + i, len - i);
			if (ok == 0) {
				fputs("\\ufffd", out);
				continue;
			}
			valid = i + ok;
		}
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x20 || c == 0x7F)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

void report_begin(reporter *r)
{
	r->json_first = 1;
	if (r->format == FMT_JSON)
		fputs("[", r->out);
}

/* The line containing byte pos: [*ls, *le) without its line break. */
static void line_bounds(const char *text, size_t len, size_t pos, size_t *ls, size_t *le)
{
	size_t s = pos > len ? len : pos;
	while (s > 0 && text[s - 1] != '\n')
		s--;
	const char *nl = memchr(text + s, '\n', len - s);
	size_t e = nl ? (size_t)(nl - text) : len;
	if (e > s && text[e - 1] == '\r')
		e--;
	*ls = s;
	*le = e;
}

/* Print a source line, with tabs and control characters shown as one
 * column each so that the caret line stays aligned. */
static void print_source(FILE *out, const char *s, size_t n)
{
	size_t valid = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (i >= valid) {
			size_t ok = jh_utf8_valid_prefix(s + i, n - i);
			if (ok == 0) { /* invalid byte: one replacement character, one column */
				fputs("\xEF\xBF\xBD", out);
				continue;
			}
			valid = i + ok;
		}
		fputc(c < 0x20 ? ' ' : c, out);
	}
}

static void human_finding(reporter *r, const char *path, const char *text, size_t len,
                          const jh_finding *f)
{
	FILE *o = r->out;
	int c = r->color;
	fprintf(o, "%s%s:%zu:%zu:%s %s%s%s %s[%s]%s %s\n", c ? C_BOLD : "", path, f->line, f->column,
	        c ? C_RESET : "", c ? sev_color[f->severity] : "", jh_severity_name(f->severity),
	        c ? C_RESET : "", c ? C_DIM : "", f->rule_id, c ? C_RESET : "", f->message);
	size_t ls, le;
	line_bounds(text, len, f->byte_start, &ls, &le);
	/* Very long lines (a whole novel without breaks) are cut around the span. */
	size_t show_s = ls, show_e = le;
	if (f->byte_start - ls > 240) {
		show_s = f->byte_start - 120;
		while (show_s < f->byte_start && ((unsigned char)text[show_s] & 0xC0) == 0x80)
			show_s++;
	}
	if (show_e - show_s > 480) {
		show_e = show_s + 480;
		while (show_e > show_s && ((unsigned char)text[show_e] & 0xC0) == 0x80)
			show_e--;
	}
	fprintf(o, "  %s|%s ", c ? C_DIM : "", c ? C_RESET : "");
	print_source(o, text + show_s, show_e - show_s);
	fputc('\n', o);
	size_t pad = jh_display_width(text + show_s, f->byte_start - show_s);
	size_t span_end = f->byte_end < show_e ? f->byte_end : show_e;
	size_t w = span_end > f->byte_start ? jh_display_width(text + f->byte_start, span_end - f->byte_start) : 0;
	fprintf(o, "  %s|%s ", c ? C_DIM : "", c ? C_RESET : "");
	for (size_t i = 0; i < pad; i++)
		fputc(' ', o);
	fputs(c ? sev_color[f->severity] : "", o);
	for (size_t i = 0; i < (w ? w : 1); i++)
		fputc('^', o);
	if (f->has_fix && f->n_edits == 1) {
		fprintf(o, " %s ", f->safety == JH_SAFE ? "fix:" : "suggestion:");
		const char *rep = f->edits[0].replacement;
		if (*rep)
			fprintf(o, "「%s」", rep);
		else
			fputs("delete", o);
	}
	fputs(c ? C_RESET : "", o);
	fputc('\n', o);
}

static void json_finding(reporter *r, const char *path, const jh_finding *f)
{
	FILE *o = r->out;
	fputs(r->json_first ? "\n" : ",\n", o);
	r->json_first = 0;
	fputs("{\"file\":", o);
	json_string(o, path, strlen(path));
	fputs(",\"rule\":", o);
	json_string(o, f->rule_id, strlen(f->rule_id));
	fprintf(o, ",\"severity\":\"%s\",\"line\":%zu,\"column\":%zu,\"end_line\":%zu,"
	           "\"end_column\":%zu,\"display_column\":%zu,\"byte_start\":%zu,\"byte_end\":%zu,"
	           "\"message\":",
	        jh_severity_name(f->severity), f->line, f->column, f->end_line, f->end_column,
	        f->display_column, f->byte_start, f->byte_end);
	json_string(o, f->message, strlen(f->message));
	fputs(",\"fix\":", o);
	if (!f->has_fix) {
		fputs("null}", o);
		return;
	}
	fprintf(o, "{\"safety\":\"%s\",\"edits\":[", f->safety == JH_SAFE ? "safe" : "unsafe");
	for (size_t i = 0; i < f->n_edits; i++) {
		const jh_edit *e = &f->edits[i];
		fprintf(o, "%s{\"byte_start\":%zu,\"byte_end\":%zu,\"replacement\":", i ? "," : "",
		        e->byte_start, e->byte_end);
		json_string(o, e->replacement, strlen(e->replacement));
		fputc('}', o);
	}
	fputs("]}}", o);
}

void report_file(reporter *r, const char *path, const char *text, size_t len,
                 const jh_findings *fs)
{
	r->n_files++;
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		r->n_findings++;
		r->by_sev[f->severity]++;
		if (r->format == FMT_JSON)
			json_finding(r, path, f);
		else
			human_finding(r, path, text, len, f);
	}
}

void report_end(reporter *r)
{
	if (r->format == FMT_JSON) {
		fputs(r->json_first ? "]\n" : "\n]\n", r->out);
		return;
	}
	if (r->n_findings)
		fprintf(r->out, "\n%zu finding%s (%zu error%s, %zu warning%s, %zu info) in %zu file%s\n",
		        r->n_findings, r->n_findings == 1 ? "" : "s", r->by_sev[JH_ERROR],
		        r->by_sev[JH_ERROR] == 1 ? "" : "s", r->by_sev[JH_WARNING],
		        r->by_sev[JH_WARNING] == 1 ? "" : "s", r->by_sev[JH_INFO], r->n_files,
		        r->n_files == 1 ? "" : "s");
}
