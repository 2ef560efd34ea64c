/* publish.c — a document's findings as LSP diagnostics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

static int lsp_severity(jh_severity s)
{
	return s == JH_ERROR ? 1 : s == JH_WARNING ? 2 : 3;
}

json_t *diagnostic_json(const lsp_doc *d, pos_encoding e, size_t i)
{
	const adapter_finding *f = &d->result.v[i];
	json_t *diag = json_pack("{s:o,s:i,s:s,s:s,s:o,s:{s:I}}", "range",
	                 range_json(&d->lines, d->text, d->len, e, f->start, f->end), "severity",
	                 lsp_severity(f->severity), "code", f->rule, "source", "jinghua", "message",
	                 json_text(f->message, strlen(f->message)), "data", "index", (json_int_t)i);
	/* the rule's file, with its description and examples, is its documentation */
	char *href = f->rule_file && f->rule_file[0] == '/' ? path_to_uri(f->rule_file) : NULL;
	if (diag && href)
		json_object_set_new(diag, "codeDescription", json_pack("{s:s}", "href", href));
	free(href);
	return diag;
}

json_t *diagnostics_json(const lsp_doc *d, pos_encoding e)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < d->result.n; i++) {
		json_t *diag = diagnostic_json(d, e, i);
		if (diag)
			json_array_append_new(arr, diag);
	}
	return arr;
}

json_t *failure_diagnostic(const char *why)
{
	char msg[600];
	snprintf(msg, sizeof msg, "jinghua could not check this file: %s", why);
	return json_pack("[{s:{s:{s:i,s:i},s:{s:i,s:i}},s:i,s:s,s:o}]", "range", "start", "line", 0,
	                 "character", 0, "end", "line", 0, "character", 0, "severity", 1, "source",
	                 "jinghua", "message", json_text(msg, strlen(msg)));
}

void publish_diagnostics(const char *uri, long version, json_t *diagnostics)
{
	json_t *p = json_pack("{s:s,s:o}", "uri", uri, "diagnostics", diagnostics);
	if (version >= 0)
		json_object_set_new(p, "version", json_integer(version));
	rpc_notify("textDocument/publishDiagnostics", p);
}

long diagnostic_index(json_t *diag)
{
	json_t *i = json_object_get(json_object_get(diag, "data"), "index");
	return json_is_integer(i) ? (long)json_integer_value(i) : -1;
}
