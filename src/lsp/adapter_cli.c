/* adapter_cli.c — the server's adapter on the command line's document
 * pipeline (cfg_settings and check_text of src/cli/), until the library's
 * document API takes those over: then this file is replaced by one on that
 * API and nothing else in src/lsp/ changes.  Configuration discovery,
 * profiles, Markdown and inline switches are the CLI's own code, so the
 * editor sees what `jinghua check` prints. */
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "adapter.h"

struct adapter {
	cfg_cli cli;
	cfg_ctx *cfg;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int adapter_new(const adapter_options *o, adapter **out, char **err)
{
	adapter *a = calloc(1, sizeof *a);
	if (!a)
		return -1;
	a->cli.fail_on = -1;
	a->cli.profile = dup_or_null(o->profile);
	a->cli.variant = dup_or_null(o->variant);
	a->cli.select = dup_or_null(o->select);
	a->cli.ignore = dup_or_null(o->ignore);
	a->cfg = cfg_new(&a->cli);
	if (cfg_failed(a->cfg)) {
		*err = xstrdup("the configuration could not be read (see the server's log)");
		adapter_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

void adapter_free(adapter *a)
{
	if (!a)
		return;
	if (a->cfg)
		cfg_free(a->cfg);
	free((char *)a->cli.profile);
	free((char *)a->cli.variant);
	free((char *)a->cli.select);
	free((char *)a->cli.ignore);
	free(a);
}

/* The settings for a document: by its path, or as stdin would be. */
static int settings_for(adapter *a, const char *path, const char *language,
                        file_settings *out)
{
	int md_lang = language && !strcmp(language, "markdown");
	const char *where = path ? path : md_lang ? "./-.md" : "./-";
	const file_settings *fs;
	if (cfg_settings(a->cfg, where, &fs))
		return -1;
	*out = *fs;
	if (out->type == TYPE_AUTO)
		out->type = md_lang || (path && is_markdown_name(path)) ? TYPE_MARKDOWN : TYPE_TEXT;
	return 0;
}

/* Messages the pipeline prints (unknown switch, ...) go to the log. */
static void log_messages(FILE *f, char **buf, size_t *len)
{
	fclose(f);
	if (*len)
		fwrite(*buf, 1, *len, stderr);
	free(*buf);
}

static void copy_finding(const jh_ruleset *rs, const jh_finding *f, adapter_finding *out)
{
	memset(out, 0, sizeof *out);
	out->rule = xstrdup(f->rule_id ? f->rule_id : "jinghua");
	if (f->rule_index >= 0 && (size_t)f->rule_index < jh_ruleset_count(rs)) {
		jh_rule_info in;
		jh_rule_get_info(jh_ruleset_rule(rs, (size_t)f->rule_index), &in);
		out->rule_file = in.file ? xstrdup(in.file) : NULL;
	}
	out->severity = f->severity;
	out->start = f->byte_start;
	out->end = f->byte_end;
	out->message = xstrdup(f->message ? f->message : "");
	if (!f->has_fix || !f->n_edits)
		return;
	out->alts = xmalloc(sizeof *out->alts);
	out->n_alts = 1;
	adapter_alt *alt = &out->alts[0];
	alt->safe = f->safety == JH_SAFE;
	alt->n_edits = f->n_edits;
	alt->edits = xmalloc(f->n_edits * sizeof *alt->edits);
	for (size_t k = 0; k < f->n_edits; k++)
		alt->edits[k] = (adapter_edit){f->edits[k].byte_start, f->edits[k].byte_end,
		                               xstrdup(f->edits[k].replacement)};
}

int adapter_check(adapter *a, const char *path, const char *language, const char *text,
                  size_t len, int (*cancel)(void *), void *payload, adapter_result *out,
                  char **err)
{
	memset(out, 0, sizeof *out);
	file_settings fs;
	if (settings_for(a, path, language, &fs)) {
		*err = xstrdup("the configuration for this file could not be read");
		return -1;
	}
	(void)cancel; /* the pipeline has no cancel point: a stale result is dropped */
	(void)payload;
	char *mbuf = NULL;
	size_t mlen = 0;
	FILE *msgs = open_memstream(&mbuf, &mlen);
	if (!msgs)
		return -1;
	jh_findings fl = JH_FINDINGS_INIT;
	int rc = check_text(&fs, path ? path : "-", text, len, 0, 0, NULL, NULL, NULL, &fl, msgs);
	log_messages(msgs, &mbuf, &mlen);
	if (rc) {
		*err = xstrdup(jh_strerror(rc));
		jh_findings_clear(&fl);
		return -1;
	}
	out->v = xmalloc((fl.count ? fl.count : 1) * sizeof *out->v);
	for (size_t i = 0; i < fl.count; i++)
		copy_finding(fs.rs, &fl.items[i], &out->v[out->n++]);
	jh_findings_clear(&fl);
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
	file_settings fs;
	if (settings_for(a, path, language, &fs)) {
		*err = xstrdup("the configuration for this file could not be read");
		return -1;
	}
	char *mbuf = NULL;
	size_t mlen = 0, n_fixes = 0;
	FILE *msgs = open_memstream(&mbuf, &mlen);
	if (!msgs)
		return -1;
	jh_findings fl = JH_FINDINGS_INIT;
	*out = NULL;
	int rc = check_text(&fs, path ? path : "-", text, len, 0, 1, out, out_len, &n_fixes, &fl,
	                    msgs);
	log_messages(msgs, &mbuf, &mlen);
	jh_findings_clear(&fl);
	if (rc) {
		free(*out);
		*out = NULL;
		*err = xstrdup(jh_strerror(rc));
		return -1;
	}
	return 0;
}

const jh_rule *adapter_rule(adapter *a, const char *path, const char *language, const char *id)
{
	file_settings fs;
	if (settings_for(a, path, language, &fs))
		return NULL;
	long i = jh_ruleset_find(fs.rs, id);
	return i < 0 ? NULL : jh_ruleset_rule(fs.rs, (size_t)i);
}
