/* format_ci.c — formats CI services read: GitHub Actions workflow commands
 * (`github`), Checkstyle XML (`checkstyle`), reviewdog's diagnostic JSON
 * lines (`rdjsonl`). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* ---- github: ::error file=F,line=L,col=C::message ---- */

static void gh_escape(FILE *o, const char *s, int property)
{
	for (; *s; s++) {
		switch (*s) {
		case '%': fputs("%25", o); break;
		case '\r': fputs("%0D", o); break;
		case '\n': fputs("%0A", o); break;
		case ':': fputs(property ? "%3A" : ":", o); break;
		case ',': fputs(property ? "%2C" : ",", o); break;
		default:
			/* other control bytes (from a file name) would reach the log raw */
			if ((unsigned char)*s < 0x20 || *s == 0x7F)
				fprintf(o, "%%%02X", (unsigned char)*s);
			else
				fputc(*s, o);
		}
	}
}

void github_finding(FILE *o, const report_doc *d, const jh_finding *f)
{
	static const char *const cmd[] = {"notice", "warning", "error"};
	fprintf(o, "::%s file=", cmd[f->severity]);
	gh_escape(o, d->name, 1);
	fprintf(o, ",line=%zu,endLine=%zu,col=%zu", f->line, f->end_line, f->column);
	if (f->end_line == f->line)
		fprintf(o, ",endColumn=%zu", f->end_column > f->column ? f->end_column - 1 : f->column);
	fputs(",title=", o);
	gh_escape(o, f->rule_id, 1);
	fputs("::", o);
	gh_escape(o, f->message, 0);
	if (f->has_fix && f->n_edits == 1)
		fputs(f->safety == JH_SAFE ? " (fixable: jinghua fix)" : " (suggestion: jinghua fix --unsafe)", o);
	fputc('\n', o);
}

/* ---- checkstyle ---- */

static void xml_escape_clean(FILE *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '&': fputs("&amp;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\n': fputs("&#10;", o); break;
		case '\t': fputs("&#9;", o); break;
		default:
			if (c < 0x20) /* not allowed in XML 1.0 */
				fputs("\xEF\xBF\xBD", o);
			else
				fputc(c, o);
		}
	}
}

/* XML of s; invalid UTF-8 as every front end shows it (jh_utf8_clean). */
static void xml_escape(FILE *o, const char *s)
{
	size_t len = strlen(s);
	if (jh_utf8_valid_prefix(s, len) == len) {
		xml_escape_clean(o, s);
		return;
	}
	size_t n = jh_utf8_clean(s, len, NULL, 0);
	char *clean = xmalloc(n + 1);
	jh_utf8_clean(s, len, clean, n + 1);
	xml_escape_clean(o, clean);
	free(clean);
}

void checkstyle_begin(FILE *o)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<checkstyle version=\"4.3\">\n", o);
}

void checkstyle_file(FILE *o, const report_doc *d, const jh_findings *fs)
{
	if (!fs->count)
		return;
	fputs("<file name=\"", o);
	xml_escape(o, d->name);
	fputs("\">\n", o);
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		fprintf(o, "<error line=\"%zu\" column=\"%zu\" severity=\"%s\" message=\"", f->line,
		        f->column, jh_severity_name(f->severity));
		xml_escape(o, f->message);
		fputs("\" source=\"jinghua.", o);
		xml_escape(o, f->rule_id);
		fputs("\"/>\n", o);
	}
	fputs("</file>\n", o);
}

void checkstyle_end(FILE *o)
{
	fputs("</checkstyle>\n", o);
}

/* ---- rdjsonl: reviewdog's Diagnostic, one a line; columns in bytes ---- */

static void rd_pos(FILE *o, const report_doc *d, size_t line, size_t pos)
{
	size_t ls = line_start(d, pos);
	fprintf(o, "{\"line\":%zu,\"column\":%zu}", line, orig_offset(d, pos) - orig_offset(d, ls) + 1);
}

void rdjson_finding(FILE *o, const report_doc *d, const jh_finding *f)
{
	static const char *const sev[] = {"INFO", "WARNING", "ERROR"};
	fputs("{\"message\":", o);
	put_json_string(o, f->message, strlen(f->message));
	fputs(",\"location\":{\"path\":", o);
	put_json_string(o, d->name, strlen(d->name));
	fputs(",\"range\":{\"start\":", o);
	rd_pos(o, d, f->line, f->byte_start);
	fputs(",\"end\":", o);
	rd_pos(o, d, f->end_line, f->byte_end);
	fprintf(o, "}},\"severity\":\"%s\",\"source\":{\"name\":\"jinghua\"},\"code\":{\"value\":",
	        sev[f->severity]);
	put_json_string(o, f->rule_id, strlen(f->rule_id));
	fputc('}', o);
	/* reviewdog applies suggestions as they are: safe fixes only */
	if (f->has_fix && f->safety == JH_SAFE && f->n_edits == 1) {
		const jh_edit *e = &f->edits[0];
		fputs(",\"suggestions\":[{\"range\":{\"start\":", o);
		rd_pos(o, d, f->line, e->byte_start);
		fputs(",\"end\":", o);
		rd_pos(o, d, f->end_line, e->byte_end);
		fputs("},\"text\":", o);
		put_json_string(o, e->replacement, strlen(e->replacement));
		fputs("}]", o);
	}
	fputc('}', o);
}
