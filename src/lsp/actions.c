/* actions.c — code actions on findings: one quickfix per way to fix a
 * finding (its fix first, then its alternatives), "disable RULE for this
 * line" (an inline switch at the line's end, in Markdown only: the switch
 * is an HTML comment, which in a plain-text chapter would be printed with
 * the novel), and source.fixAll.jinghua,
 * which, like textDocument/formatting, applies the safe fixes to a fixed
 * point.  Called on the worker thread. */
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

#define FIX_ALL_KIND "source.fixAll.jinghua"

static json_t *text_edit(const lsp_doc *d, pos_encoding e, size_t a, size_t b, const char *text,
                         size_t n)
{
	return json_pack("{s:o,s:o}", "range", range_json(&d->lines, d->text, d->len, e, a, b),
	                 "newText", json_text(text, n));
}

static json_t *workspace_edit(const lsp_doc *d, json_t *edits)
{
	return json_pack("{s:{s:o}}", "changes", d->uri, edits);
}

/* s[0..n) for a title, in out (size bytes, at least 8): invalid UTF-8 as
 * U+FFFD (jh_utf8_clean), and when that does not fit, cut at a character
 * boundary with "…". */
static void quote(char *out, size_t size, const char *s, size_t n)
{
	size_t room = size - 4; /* the text, then "…" (3 bytes) and the NUL */
	if (jh_utf8_clean(s, n, out, size) <= room)
		return;
	size_t k = room;
	while (k && ((unsigned char)out[k] & 0xC0) == 0x80)
		k--;
	memcpy(out + k, "…", sizeof "…");
}

/* "Replace “**” with “知识” (censor.mask.suggest, 62%)": the rule, and
 * the answer's probability when the rule gives one (the editor's menu
 * keeps the library's order, best first). */
static void alt_title(const lsp_doc *d, const adapter_finding *f, const adapter_alt *alt,
                      char *out, size_t size)
{
	char who[96];
	if (alt->score >= 0)
		snprintf(who, sizeof who, "%s, %d%%", f->rule, (int)(alt->score * 100 + 0.5));
	else
		snprintf(who, sizeof who, "%s", f->rule);
	if (alt->n_edits != 1) {
		snprintf(out, size, "Fix %s (%zu edits)", who, alt->n_edits);
		return;
	}
	const adapter_edit *ed = &alt->edits[0];
	char from[64], to[64];
	size_t olen = ed->end - ed->start;
	quote(from, sizeof from, d->text + ed->start, olen);
	quote(to, sizeof to, ed->text, strlen(ed->text));
	if (!olen)
		snprintf(out, size, "Insert “%s” (%s)", to, who);
	else if (!*ed->text)
		snprintf(out, size, "Delete “%s” (%s)", from, who);
	else
		snprintf(out, size, "Replace “%s” with “%s” (%s)", from, to, who);
}

/* Does the client's `only` list ask for kind (a listed kind is a prefix
 * at a dot of it)? */
static int wanted(json_t *only, const char *kind)
{
	if (!json_is_array(only))
		return 1;
	size_t i;
	json_t *k;
	json_array_foreach(only, i, k) {
		const char *s = json_string_value(k);
		size_t n = s ? strlen(s) : 0;
		if (s && !strncmp(kind, s, n) && (kind[n] == '\0' || kind[n] == '.'))
			return 1;
	}
	return 0;
}

static void add_quickfixes(const lsp_doc *d, pos_encoding e, size_t i, json_t *out)
{
	const adapter_finding *f = &d->result.v[i];
	for (size_t k = 0; k < f->n_alts; k++) {
		const adapter_alt *alt = &f->alts[k];
		json_t *edits = json_array();
		for (size_t x = 0; x < alt->n_edits; x++)
			json_array_append_new(edits, text_edit(d, e, alt->edits[x].start, alt->edits[x].end,
			                                       alt->edits[x].text,
			                                       strlen(alt->edits[x].text)));
		char title[256];
		alt_title(d, f, alt, title, sizeof title);
		json_t *a = json_pack("{s:s,s:s,s:[o],s:o}", "title", title, "kind", "quickfix",
		                      "diagnostics", diagnostic_json(d, e, i), "edit", workspace_edit(d, edits));
		if (k == 0 && alt->safe)
			json_object_set_new(a, "isPreferred", json_true());
		json_array_append_new(out, a);
	}
}

/* " <!-- jinghua-disable-line RULE -->" at the end of the finding's line. */
static json_t *disable_action(const lsp_doc *d, pos_encoding e, size_t i)
{
	const adapter_finding *f = &d->result.v[i];
	size_t line, col;
	offset_to_pos(&d->lines, d->text, d->len, e, f->start, &line, &col);
	size_t end = line + 1 < d->lines.n ? d->lines.start[line + 1] : d->len;
	while (end > d->lines.start[line] && (d->text[end - 1] == '\n' || d->text[end - 1] == '\r'))
		end--;
	char ins[160], title[160];
	snprintf(ins, sizeof ins, " <!-- jinghua-disable-line %s -->", f->rule);
	snprintf(title, sizeof title, "Disable %s for this line", f->rule);
	json_t *edits = json_pack("[o]", text_edit(d, e, end, end, ins, strlen(ins)));
	return json_pack("{s:s,s:s,s:[o],s:o}", "title", title, "kind", "quickfix", "diagnostics",
	                 diagnostic_json(d, e, i), "edit", workspace_edit(d, edits));
}

/* The smallest single edit that turns a into b (cut at character
 * boundaries so that every encoding can express it); [] when equal. */
static json_t *diff_edits(const lsp_doc *d, pos_encoding e, const char *b, size_t blen)
{
	const char *a = d->text;
	size_t alen = d->len, pre = 0, suf = 0;
	json_t *edits = json_array();
	if (alen == blen && !memcmp(a, b, alen))
		return edits;
	while (pre < alen && pre < blen && a[pre] == b[pre])
		pre++;
	while (pre > 0 && ((unsigned char)a[pre] & 0xC0) == 0x80)
		pre--;
	while (suf < alen - pre && suf < blen - pre && a[alen - 1 - suf] == b[blen - 1 - suf])
		suf++;
	while (suf > 0 && ((unsigned char)a[alen - suf] & 0xC0) == 0x80)
		suf--;
	json_array_append_new(edits, text_edit(d, e, pre, alen - suf, b + pre, blen - suf - pre));
	return edits;
}

int fix_all_edits(server *sv, const char *uri, json_t **edits, long *for_version, char **why)
{
	*edits = NULL;
	if (why)
		*why = NULL;
	doc_copy c; /* fixing a long chapter takes a while: on a copy, the store unlocked */
	if (docs_copy(&sv->docs, uri, &c))
		return RPC_INVALID_PARAMS;
	char *fixed = NULL, *err = NULL;
	size_t flen = 0;
	int code = 0;
	if (!sv->engine ||
	    adapter_fix(sv->engine, c.path, c.language, c.text, c.len, &fixed, &flen, &err)) {
		lsp_log(1, "jinghua lsp: %s: fix: %s", uri, err ? err : "failed");
		code = LSP_FIX_FAILED;
		if (why) {
			*why = err ? err : strdup("no configuration could be read");
			err = NULL;
		}
	} else {
		pthread_mutex_lock(&sv->docs.lock);
		lsp_doc *d = docs_unchanged(&sv->docs, uri, &c);
		if (d)
			*edits = diff_edits(d, sv->enc, fixed, flen);
		else
			code = LSP_CONTENT_MODIFIED;
		pthread_mutex_unlock(&sv->docs.lock);
		if (for_version)
			*for_version = c.version;
	}
	free(err);
	free(fixed);
	doc_copy_free(&c);
	return code;
}

static int any_safe_fix(const lsp_doc *d)
{
	for (size_t i = 0; i < d->result.n; i++)
		if (d->result.v[i].n_alts && d->result.v[i].alts[0].safe)
			return 1;
	return 0;
}

static json_t *fix_all_action(lsp_doc *d, json_t *edits)
{
	json_t *a = json_pack("{s:s,s:s,s:{s:s}}", "title", "Fix all safe jinghua findings", "kind",
	                      FIX_ALL_KIND, "data", "uri", d->uri);
	if (edits)
		json_object_set_new(a, "edit", workspace_edit(d, json_incref(edits)));
	return a;
}

json_t *code_actions(server *sv, lsp_doc *d, json_t *params, json_t *fix_all)
{
	size_t a, b;
	json_t *ctx = json_object_get(params, "context");
	json_t *only = json_object_get(ctx, "only");
	if (json_to_range(&d->lines, d->text, d->len, sv->enc, json_object_get(params, "range"), &a,
	                  &b))
		return NULL;
	json_t *out = json_array();
	int quick = wanted(only, "quickfix");
	for (size_t i = 0; quick && i < d->result.n; i++) {
		const adapter_finding *f = &d->result.v[i];
		if (f->start > b || f->end < a)
			continue;
		add_quickfixes(d, sv->enc, i, out);
		if (d->result.markdown)
			json_array_append_new(out, disable_action(d, sv->enc, i));
	}
	/* fix-all only when asked for by kind, or when there is something safe to fix */
	if ((json_is_array(only) && wanted(only, FIX_ALL_KIND)) ||
	    (!json_is_array(only) && any_safe_fix(d))) {
		if (fix_all || sv->resolve_edit)
			json_array_append_new(out, fix_all_action(d, fix_all));
	}
	return out;
}
