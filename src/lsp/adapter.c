/* adapter.c — the server's adapter on libjinghua's document API: the
 * configuration for a document's path (jh_config_*), and a document
 * checked or fixed from its text as the command line checks a file
 * (jh_document_*): Markdown, inline switches, accepted words, alternatives
 * all come from there.  The editor's text is UTF-8 whatever the file's
 * encoding on disk, so the document is read as UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

/* A workspace folder's configuration; the last one (root NULL) is for
 * documents outside every folder. */
struct folder {
	char *root;
	jh_config *cfg;
	int refreshed; /* replaced by the last adapter_refresh */
};

struct adapter {
	adapter_options o; /* a copy, to open a folder's configuration again */
	struct folder *f;
	size_t n;
	char first_error[512]; /* the first configuration error of a call, for its message */
	/* the first of the last call that had one: a configuration that failed
	 * once fails again without repeating its diagnostics */
	char last_error[512];
};

static void log_diag(const jh_diag *d, void *payload)
{
	adapter *a = payload;
	char where[512] = "";
	if (d->file && d->line)
		snprintf(where, sizeof where, "%s:%u: ", d->file, d->line);
	else if (d->file)
		snprintf(where, sizeof where, "%s: ", d->file);
	lsp_log(d->severity == JH_ERROR ? 1 : 2, "jinghua lsp: %s%s%s%s%s", where,
	        d->rule_id ? "[" : "", d->rule_id ? d->rule_id : "", d->rule_id ? "] " : "",
	        d->message);
	if (a && d->severity == JH_ERROR && !a->first_error[0]) {
		snprintf(a->first_error, sizeof a->first_error, "%s%s", where, d->message);
		memcpy(a->last_error, a->first_error, sizeof a->last_error);
	}
}

static char *dup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		abort();
	return p;
}

static int open_config(adapter *a, const adapter_options *o, jh_config **cfg)
{
	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.select = o->select;
	co.ignore = o->ignore;
	co.profile = o->profile;
	co.variant = o->variant;
	co.rules_dir = o->rules_dir;
	co.cache_dir = o->cache_dir;
	co.diag_fn = log_diag;
	co.payload = a;
	return jh_config_open(&co, cfg);
}

static void folders_free(adapter *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->f[i].root);
		jh_config_free(a->f[i].cfg);
	}
	free(a->f);
}

int adapter_new(const adapter_options *o, adapter **out, char **err)
{
	adapter *a = calloc(1, sizeof *a);
	if (!a || !(a->f = calloc(o->n_folders + 1, sizeof *a->f))) {
		free(a);
		*err = dup(jh_strerror(JH_ERR_NOMEM));
		return -1;
	}
	a->o = *o;
	a->o.folders = NULL; /* the server's, and may change: not kept */
	a->o.n_folders = 0;
	a->o.profile = o->profile ? dup(o->profile) : NULL;
	a->o.variant = o->variant ? dup(o->variant) : NULL;
	a->o.select = o->select ? dup(o->select) : NULL;
	a->o.ignore = o->ignore ? dup(o->ignore) : NULL;
	for (size_t i = 0; i <= o->n_folders; i++, a->n++) {
		int rc = i < o->n_folders && !(a->f[i].root = strdup(o->folders[i])) ? JH_ERR_NOMEM
		                                                                    : open_config(a, o, &a->f[i].cfg);
		if (rc) {
			*err = dup(jh_strerror(rc));
			a->n++;
			adapter_free(a);
			return -1;
		}
	}
	*out = a;
	return 0;
}

void adapter_free(adapter *a)
{
	if (!a)
		return;
	folders_free(a);
	free(a->o.profile);
	free(a->o.variant);
	free(a->o.select);
	free(a->o.ignore);
	free(a);
}

/* The folder of path: the innermost workspace folder holding it. */
static struct folder *folder_of(const adapter *a, const char *path)
{
	struct folder *best = &a->f[a->n - 1];
	size_t best_len = 0;
	for (size_t i = 0; path && i + 1 < a->n; i++) {
		size_t n = strlen(a->f[i].root);
		while (n > 1 && a->f[i].root[n - 1] == '/')
			n--;
		if (n > best_len && !strncmp(path, a->f[i].root, n) && (path[n] == '/' || n == 1)) {
			best = &a->f[i];
			best_len = n;
		}
	}
	return best;
}

int adapter_refresh(adapter *a, const char *path)
{
	struct folder *only = path ? folder_of(a, path) : NULL;
	int n = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct folder *f = &a->f[i];
		f->refreshed = 0;
		if ((only && f != only) || !jh_config_stale(f->cfg))
			continue;
		jh_config *fresh;
		int rc = open_config(a, &a->o, &fresh);
		if (rc) {
			lsp_log(1, "jinghua lsp: configuration: %s; keeping the one before", jh_strerror(rc));
			continue;
		}
		jh_config_free(f->cfg);
		f->cfg = fresh;
		f->refreshed = 1;
		n++;
	}
	return n;
}

int adapter_refreshed(const adapter *a, const char *path)
{
	return folder_of(a, path)->refreshed;
}

static int is_markdown_lang(const char *language)
{
	return language && !strcmp(language, "markdown");
}

/* A document without a path (untitled) is configured as stdin would be.
 * NULL after a configuration error, with its message in *err. */
static const jh_settings *settings_for(adapter *a, const char *path, const char *language,
                                       char **err)
{
	const jh_settings *s;
	const char *where = path ? path : is_markdown_lang(language) ? "./-.md" : "./-";
	a->first_error[0] = '\0';
	if (!jh_config_settings(folder_of(a, path)->cfg, where, &s))
		return s;
	if (err)
		*err = dup(a->first_error[0]  ? a->first_error
		           : a->last_error[0] ? a->last_error
		                              : "the configuration has errors");
	return NULL;
}

static jh_document_options doc_options(const jh_settings *s, const char *path, const char *language)
{
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = s;
	o.name = path ? path : "-";
	o.encoding = "UTF-8";
	o.type = is_markdown_lang(language) ? JH_DOC_MARKDOWN : JH_DOC_AUTO;
	o.diag_fn = log_diag;
	return o;
}

static void copy_edits(const jh_document *doc, const jh_edit *e, size_t n, adapter_alt *alt)
{
	alt->n_edits = n;
	alt->edits = malloc((n ? n : 1) * sizeof *alt->edits);
	if (!alt->edits)
		abort();
	for (size_t k = 0; k < n; k++)
		alt->edits[k] = (adapter_edit){jh_document_file_offset(doc, e[k].byte_start),
		                               jh_document_file_offset(doc, e[k].byte_end),
		                               dup(e[k].replacement)};
}

static void copy_finding(const jh_ruleset *rs, const jh_document *doc, const jh_finding *f,
                         adapter_finding *out)
{
	memset(out, 0, sizeof *out);
	out->rule = dup(f->rule_id ? f->rule_id : "jinghua");
	if (f->rule_index >= 0 && (size_t)f->rule_index < jh_ruleset_count(rs)) {
		jh_rule_info in = JH_RULE_INFO_INIT;
		jh_rule_get_info(jh_ruleset_rule(rs, (size_t)f->rule_index), &in);
		out->rule_file = in.file ? dup(in.file) : NULL;
	}
	out->severity = f->severity;
	out->start = jh_document_file_offset(doc, f->byte_start);
	out->end = jh_document_file_offset(doc, f->byte_end);
	out->message = dup(f->message);
	size_t n = f->n_alternatives ? f->n_alternatives : f->has_fix && f->n_edits ? 1 : 0;
	if (!n)
		return;
	out->alts = calloc(n, sizeof *out->alts);
	if (!out->alts)
		abort();
	out->n_alts = n;
	for (size_t k = 0; k < n; k++) {
		out->alts[k].score = JH_SCORE_NONE;
		if (f->n_alternatives) {
			copy_edits(doc, f->alternatives[k].edits, f->alternatives[k].n_edits, &out->alts[k]);
			out->alts[k].score = f->alternatives[k].score;
		} else {
			copy_edits(doc, f->edits, f->n_edits, &out->alts[k]);
		}
		/* only the rule's own fix can be safe: the others are guesses */
		out->alts[k].safe = k == 0 && f->has_fix && f->safety == JH_SAFE;
	}
}

int adapter_check(adapter *a, const char *path, const char *language, const char *text,
                  size_t len, int (*cancel)(void *), void *payload, adapter_result *out,
                  char **err)
{
	memset(out, 0, sizeof *out);
	const jh_settings *s = settings_for(a, path, language, err);
	if (!s)
		return -1;
	jh_document_options o = doc_options(s, path, language);
	o.cancel = cancel;
	o.cancel_payload = payload;
	jh_document *doc;
	int rc = jh_document_check(text, len, &o, &doc);
	if (rc == JH_ERR_CANCELLED)
		return 1;
	if (rc) {
		*err = dup(jh_strerror(rc));
		return -1;
	}
	const jh_findings *fl = jh_document_findings(doc);
	out->v = malloc((fl->count ? fl->count : 1) * sizeof *out->v);
	if (!out->v)
		abort();
	for (size_t i = 0; i < fl->count; i++)
		copy_finding(s->ruleset, doc, &fl->items[i], &out->v[out->n++]);
	out->markdown = jh_document_is_markdown(doc) == 1;
	jh_document_free(doc);
	return 0;
}

void adapter_result_free(adapter_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		adapter_finding *f = &r->v[i];
		for (size_t k = 0; k < f->n_alts; k++) {
			for (size_t e = 0; e < f->alts[k].n_edits; e++)
				free(f->alts[k].edits[e].text);
			free(f->alts[k].edits);
		}
		free(f->alts);
		free(f->rule);
		free(f->rule_file);
		free(f->message);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}

int adapter_fix(adapter *a, const char *path, const char *language, const char *text,
                size_t len, char **out, size_t *out_len, char **err)
{
	const jh_settings *s = settings_for(a, path, language, err);
	if (!s)
		return -1;
	jh_document_options o = doc_options(s, path, language);
	jh_document *doc;
	int rc = jh_document_fix(text, len, &o, &doc);
	if (rc) {
		*err = dup(jh_strerror(rc));
		return -1;
	}
	size_t n;
	const char *fixed = jh_document_fixed(doc, &n, NULL);
	if (!fixed) {
		const char *why = jh_document_problem(doc);
		*err = dup(why ? why : "the fixes do not settle");
		jh_document_free(doc);
		return -1;
	}
	*out = malloc(n + 1);
	if (!*out)
		abort();
	memcpy(*out, fixed, n);
	(*out)[n] = '\0';
	*out_len = n;
	jh_document_free(doc);
	return 0;
}

const jh_rule *adapter_rule(adapter *a, const char *path, const char *language, const char *id)
{
	const jh_settings *s = settings_for(a, path, language, NULL);
	if (!s)
		return NULL;
	long i = jh_ruleset_find(s->ruleset, id);
	return i < 0 ? NULL : jh_ruleset_rule(s->ruleset, (size_t)i);
}
