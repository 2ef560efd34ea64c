/* hover.c — on a finding, what `jinghua rules --explain` says of its rule
 * (message, description, examples, how to switch it off), in Markdown. */
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

typedef struct {
	char *buf;
	size_t len;
	FILE *f;
} mdbuf;

/* The finding, then its rule as `jinghua rules --explain` tells it
 * (jh_rule_explain), in a code block: its lines are laid out for a fixed
 * font, and examples keep their spaces and punctuation.  The fence is
 * longer than any run of backquotes in the text (a Markdown rule's
 * example may hold ```). */
static void explain(FILE *o, const adapter_finding *f, const jh_rule *r)
{
	fprintf(o, "**%s** — %s\n\n", f->rule, f->message);
	char *text = r ? jh_rule_explain(r) : NULL;
	if (!text)
		return;
	size_t run = 0, longest = 0;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	int fence = longest < 3 ? 3 : (int)longest + 1;
	fprintf(o, "%.*s\n%s%.*s\n", fence, "````````````````````````````````", text, fence,
	        "````````````````````````````````");
	free(text);
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
