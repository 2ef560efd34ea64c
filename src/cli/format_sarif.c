/* format_sarif.c — SARIF 2.1.0, for code-scanning services.  Results are
 * written as files are checked; the tool's rule table, which lists only the
 * rules that were reported, comes after them (JSON members have no order). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void sarif_begin(FILE *o)
{
	fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
	      "\"runs\":[{\"columnKind\":\"unicodeCodePoints\",\"results\":[",
	      o);
}

/* A relative path as a URI reference: percent-encode all but unreserved
 * characters and '/'. */
static void uri(FILE *o, const char *path)
{
	if (!strcmp(path, "<stdin>"))
		path = "stdin";
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	fputc('"', o);
	if (path[0] == '/')
		fputs("file://", o);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			fputc(*p, o);
		else
			fprintf(o, "%%%02X", *p);
	}
	fputc('"', o);
}

static const char *level(jh_severity s)
{
	return s == JH_ERROR ? "error" : s == JH_WARNING ? "warning" : "note";
}

/* One entry of a result's "fixes": its description and replacements. */
static void sarif_fix(FILE *o, const report_doc *d, const char *what, const jh_edit *edits, size_t n,
                      double score, int first)
{
	fprintf(o, "%s{\"description\":{\"text\":\"%s\"},\"artifactChanges\":[{\"artifactLocation\":{\"uri\":",
	        first ? "" : ",", what);
	uri(o, d->name);
	fputs("},\"replacements\":[", o);
	for (size_t i = 0; i < n; i++) {
		const jh_edit *e = &edits[i];
		size_t es = orig_offset(d, e->byte_start), ee = orig_offset(d, e->byte_end);
		fprintf(o, "%s{\"deletedRegion\":{\"byteOffset\":%zu,\"byteLength\":%zu},"
		           "\"insertedContent\":{\"text\":",
		        i ? "," : "", es, ee - es);
		put_json_string(o, e->replacement, strlen(e->replacement));
		fputs("}}", o);
	}
	fputs("]}]", o);
	if (score >= 0) { /* the answer's probability, in the fix's property bag */
		fputs(",\"properties\":{\"score\":", o);
		put_json_score(o, score);
		fputc('}', o);
	}
	fputc('}', o);
}

static const char *fix_label(const jh_finding *f)
{
	return f->safety == JH_SAFE ? "safe fix" : "unsafe fix: check before applying";
}

void sarif_result(FILE *o, const report_doc *d, const jh_finding *f)
{
	size_t bs = orig_offset(d, f->byte_start), be = orig_offset(d, f->byte_end);
	fputs("{\"ruleId\":", o);
	put_json_string(o, f->rule_id, strlen(f->rule_id));
	fprintf(o, ",\"level\":\"%s\",\"message\":{\"text\":", level(f->severity));
	put_json_string(o, f->message, strlen(f->message));
	fputs("},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":", o);
	uri(o, d->name);
	fprintf(o, "},\"region\":{\"startLine\":%zu,\"startColumn\":%zu,\"endLine\":%zu,"
	           "\"endColumn\":%zu,\"byteOffset\":%zu,\"byteLength\":%zu}}}]",
	        f->line, f->column, f->end_line, f->end_column, bs, be - bs);
	if (f->n_alternatives) { /* one SARIF fix per answer; the first is the fix if it has one */
		fputs(",\"fixes\":[", o);
		for (size_t i = 0; i < f->n_alternatives; i++)
			sarif_fix(o, d, i || !f->has_fix ? "alternative: check before applying" : fix_label(f),
			          f->alternatives[i].edits, f->alternatives[i].n_edits,
			          f->alternatives[i].score, i == 0);
		fputc(']', o);
	} else if (f->has_fix && f->n_edits) {
		fputs(",\"fixes\":[", o);
		sarif_fix(o, d, fix_label(f), f->edits, f->n_edits, JH_SCORE_NONE, 1);
		fputc(']', o);
	}
	fputc('}', o);
}

void sarif_end(const reporter *r)
{
	FILE *o = r->out;
	fprintf(o, "%s],\"tool\":{\"driver\":{\"name\":\"jinghua\",\"version\":\"%s\","
	           "\"semanticVersion\":\"%s\",\"rules\":[",
	        r->first_chunk ? "" : "\n", JH_VERSION, JH_VERSION);
	for (size_t i = 0; i < r->n_counts; i++) {
		const rule_count *c = &r->counts[i];
		long idx = c->rs ? jh_ruleset_find(c->rs, c->id) : -1;
		jh_rule_info in = {0};
		if (idx >= 0)
			jh_rule_get_info(jh_ruleset_rule(c->rs, (size_t)idx), &in);
		else
			in.message = "bytes that cannot be decoded in the file's encoding";
		fputs(i ? ",\n{\"id\":" : "\n{\"id\":", o);
		put_json_string(o, c->id, strlen(c->id));
		fputs(",\"shortDescription\":{\"text\":", o);
		put_json_string(o, in.message, strlen(in.message));
		fputc('}', o);
		if (in.description) {
			fputs(",\"fullDescription\":{\"text\":", o);
			put_json_string(o, in.description, strlen(in.description));
			fputc('}', o);
		}
		fprintf(o, ",\"defaultConfiguration\":{\"level\":\"%s\"}",
		        level(idx >= 0 ? in.severity : JH_ERROR));
		if (idx >= 0) {
			fputs(",\"properties\":{\"family\":", o);
			put_json_string(o, in.family, strlen(in.family));
			fprintf(o, ",\"fix\":\"%s\"}",
			        in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "none");
		}
		fputc('}', o);
	}
	fputs("]}}}]}\n", o);
}
