/* hover.c — on a finding, what `jinghua rules --explain` says of its rule
 * (message, description, examples, how to switch it off), as Markdown. */
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

typedef struct {
	char *buf;
	size_t len;
	FILE *f;
} mdbuf;

static const char *kind_name(jh_kind k)
{
	return k == JH_KIND_REGEX ? "regex" : k == JH_KIND_LEXICON ? "lexicon" : "builtin";
}

static void explain(FILE *o, const adapter_finding *f, const jh_rule *r)
{
	fprintf(o, "**%s** — %s\n\n", f->rule, f->message);
	if (!r)
		return;
	jh_rule_info in;
	jh_rule_get_info(r, &in);
	fprintf(o, "%s · %s · fix: %s%s\n\n", jh_severity_name(in.severity), kind_name(in.kind),
	        in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "none",
	        in.enabled_by_default ? "" : " · opt-in");
	if (in.description)
		fprintf(o, "%s\n\n", in.description);
	if (in.n_examples)
		fprintf(o, "Examples:\n\n");
	for (size_t k = 0; k < in.n_examples; k++) {
		jh_example ex;
		if (jh_rule_get_example(r, k, &ex))
			continue;
		fprintf(o, "- %s `%s`", ex.kind == JH_EXAMPLE_BAD ? "bad:" : "good:", ex.text);
		if (ex.fixed)
			fprintf(o, " → `%s`", ex.fixed);
		fprintf(o, "\n");
	}
	fprintf(o, "\nSwitch off: `ignore = %s` in .jinghua.ini, or "
	           "`<!-- jinghua-disable-line %s -->` on the line.\n", in.id, in.id);
}

json_t *hover(server *sv, lsp_doc *d, json_t *params)
{
	size_t off;
	if (json_to_offset(&d->lines, d->text, d->len, sv->enc, json_object_get(params, "position"),
	                   &off))
		return NULL;
	mdbuf m = {0};
	m.f = open_memstream(&m.buf, &m.len);
	if (!m.f)
		return NULL;
	size_t a = 0, b = 0, n = 0;
	for (size_t i = 0; i < d->result.n; i++) {
		const adapter_finding *f = &d->result.v[i];
		int inside = (f->start <= off && off < f->end) || (f->start == f->end && f->start == off);
		if (!inside)
			continue;
		if (n++)
			fprintf(m.f, "\n---\n\n");
		else
			a = f->start, b = f->end;
		const jh_rule *r = sv->engine ? adapter_rule(sv->engine, d->path, d->language, f->rule)
		                              : NULL;
		explain(m.f, f, r);
	}
	fclose(m.f);
	json_t *res = json_null();
	if (n)
		res = json_pack("{s:{s:s,s:o},s:o}", "contents", "kind", "markdown", "value",
		                json_text(m.buf, m.len), "range",
		                range_json(&d->lines, d->text, d->len, sv->enc, a, b));
	free(m.buf);
	return res;
}
