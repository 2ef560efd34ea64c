/* ruleset.c — the rule set object: creation, compilation into matchers,
 * lookup, selection and read-only views of rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "builtins.h"
#include "interest.h"
#include "lexicon.h"
#include "regex.h"
#include "rulecache.h"
#include "rules.h"

const char *jh_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = JH_VERSION_MAJOR;
	if (minor)
		*minor = JH_VERSION_MINOR;
	if (patch)
		*patch = JH_VERSION_PATCH;
	return JH_VERSION;
}

const char *jh_strerror(int status)
{
	switch (status) {
	case JH_OK: return "success";
	case JH_ERR_NOMEM: return "out of memory";
	case JH_ERR_IO: return "input/output error";
	case JH_ERR_RULES: return "errors in rule files";
	case JH_ERR_ARG: return "bad argument";
	case JH_ERR_STATE: return "not allowed in this state";
	case JH_ERR_CONFIG: return "errors in the configuration";
	case JH_ERR_CANCELLED: return "cancelled";
	case JH_ERR_ENCODING: return "unknown encoding";
	case JH_ERR_SPAN: return "edit outside its finding's span";
	default: return "unknown error";
	}
}

static const char *const severity_names[] = {"info", "warning", "error"};

const char *jh_severity_name(jh_severity s)
{
	return (unsigned)s < 3 ? severity_names[s] : "?";
}

int jh_severity_parse(const char *name, jh_severity *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, severity_names[i]) == 0) {
			*out = (jh_severity)i;
			return JH_OK;
		}
	return JH_ERR_ARG;
}

int jh_ruleset_new(jh_ruleset **out)
{
	*out = NULL;
	jh_ruleset *rs = calloc(1, sizeof *rs);
	if (!rs)
		return JH_ERR_NOMEM;
	rs->regexes = calloc(1, sizeof *rs->regexes);
	rs->lexicon = calloc(1, sizeof *rs->lexicon);
	rs->builtins = calloc(1, sizeof *rs->builtins);
	if (!rs->regexes || !rs->lexicon || !rs->builtins) {
		jh_ruleset_free(rs);
		return JH_ERR_NOMEM;
	}
	jh_regexes_init(rs->regexes);
	jh_lexicon_init(rs->lexicon);
	*out = rs;
	return JH_OK;
}

int jh_ruleset_set_cache_dir(jh_ruleset *rs, const char *dir)
{
	if (!rs)
		return JH_ERR_ARG;
	if (rs->count || rs->compiled) /* rules already point at the old one */
		return JH_ERR_STATE;
	char *copy = NULL;
	if (dir && *dir && !(copy = jh_strdup(dir)))
		return JH_ERR_NOMEM;
	free(rs->cache_dir);
	rs->cache_dir = copy;
	return JH_OK;
}

void jh_ruleset_free(jh_ruleset *rs)
{
	if (!rs)
		return;
	free(rs->cache_dir);
	for (size_t i = 0; i < rs->count; i++)
		jh_rule_free(rs->rules[i]);
	free(rs->rules);
	jh_rc_unmap(rs); /* after the rules: their strings were in it */
	if (rs->regexes)
		jh_regexes_free(rs->regexes);
	if (rs->lexicon)
		jh_lexicon_free(rs->lexicon);
	if (rs->builtins)
		jh_builtins_free(rs->builtins);
	if (rs->interest)
		jh_interest_free(rs->interest);
	free(rs->interest);
	free(rs->by_id);
	free(rs->regexes);
	free(rs->lexicon);
	free(rs->builtins);
	free(rs);
}

static int compile_lexicon_rule(jh_ruleset *rs, jh_rule *r, long idx, jh_diag_fn fn, void *pl)
{
	if (r->n_params) {
		jh_report(fn, pl, JH_ERROR, r->file, r->params[0].line, 0, r->id,
		          "unknown key '%s' in a lexicon rule", r->params[0].key);
		return JH_ERR_RULES;
	}
	jh_buf path = {0};
	if (jh_buf_puts(&path, r->data_dir) || jh_buf_putc(&path, '/') || jh_buf_puts(&path, r->lexicon)) {
		jh_buf_free(&path);
		return JH_ERR_NOMEM;
	}
	int rc = jh_lexicon_load_tsv(rs->lexicon, idx, path.data, r->id, fn, pl);
	jh_buf_free(&path);
	return rc;
}

/* The lexicon files compile_lexicon_rule will read, for the lexicon cache
 * (lexicon_cache.c): *name lists rule index and path of each, *ident adds
 * their state.  0, or -1 (none, one not there, no memory: no cache). */
static int lexicon_key(const jh_ruleset *rs, char **name, uint64_t *ident)
{
	jh_buf nm = {0}, path = {0};
	uint64_t h = 0x4C45584943414348ULL;
	int bad = 0;
	char num[32];
	for (size_t i = 0; i < rs->count && !bad; i++) {
		const jh_rule *r = rs->rules[i];
		if (r->broken || r->kind != JH_KIND_LEXICON || r->n_params)
			continue;
		struct stat st;
		path.len = 0;
		snprintf(num, sizeof num, "%zu\t", i);
		bad = jh_buf_puts(&path, r->data_dir) || jh_buf_putc(&path, '/') ||
		      jh_buf_puts(&path, r->lexicon) || stat(path.data, &st) != 0 || jh_buf_puts(&nm, num) ||
		      jh_buf_puts(&nm, path.data) || jh_buf_putc(&nm, '\n');
		uint64_t v[5] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
		                 (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec};
		if (!bad)
			h = (h ^ jh_hash((const char *)v, sizeof v)) * 0x9E3779B97F4A7C15ULL + 1;
	}
	jh_buf_free(&path);
	if (bad || !nm.len || jh_buf_terminate(&nm)) {
		jh_buf_free(&nm);
		return -1;
	}
	*ident = h ^ jh_hash(nm.data, nm.len);
	*name = nm.data;
	return 0;
}

/* A `foreign =` a configuration gave with a value jh_ruleset_set_param
 * could not read. */
static int bad_foreign(const jh_rule *r, jh_diag_fn fn, void *pl)
{
	unsigned line;
	const char *v = jh_rule_param(r, "foreign", &line);
	if (!v)
		return JH_OK;
	jh_report(fn, pl, JH_ERROR, r->file, line, 0, r->id,
	          "foreign must be sentence, kana, document or never, not '%s'", v);
	return JH_ERR_RULES;
}

/* Rule r (index idx) into the matcher of its kind. */
static int compile_rule(jh_ruleset *rs, jh_rule *r, long idx, int lx_cached, int *lx_read_ok,
                        jh_diag_fn fn, void *pl)
{
	int rc = JH_OK;
	switch (r->kind) {
	case JH_KIND_REGEX:
		if (jh_regex_bad_param(r)) {
			const jh_param *bp = jh_regex_bad_param(r);
			jh_report(fn, pl, JH_ERROR, r->file, bp->line, 0, r->id,
			          "unknown key '%s' in a regex rule", bp->key);
			rc = JH_ERR_RULES;
		} else {
			rc = jh_regexes_add(rs->regexes, r, idx, fn, pl);
		}
		break;
	case JH_KIND_LEXICON:
		/* one with parameters is an error, whatever the cache holds */
		rc = lx_cached && !r->n_params ? JH_OK : compile_lexicon_rule(rs, r, idx, fn, pl);
		*lx_read_ok &= rc == JH_OK;
		break;
	case JH_KIND_BUILTIN:
		rc = jh_builtins_add(rs->builtins, r, idx, fn, pl);
		break;
	}
	return rc;
}

int jh_ruleset_compile(jh_ruleset *rs, jh_diag_fn fn, void *pl)
{
	if (rs->compiled)
		return JH_ERR_STATE;
	int result = JH_OK;
	if (jh_regexes_preload(rs->regexes, rs->cache_dir, rs->rules, rs->count))
		return JH_ERR_NOMEM;
	/* the lexicons' entries as read before (lexicon_cache.c) */
	char *lx_name = NULL;
	uint64_t lx_ident = 0;
	int lx_cached = 0, lx_read_ok = 1;
	if (rs->cache_dir && lexicon_key(rs, &lx_name, &lx_ident) == 0) {
		int c = jh_lexicon_cache_load(rs->lexicon, rs->cache_dir, lx_name, lx_ident);
		if (c == JH_ERR_NOMEM) {
			free(lx_name);
			jh_regexes_preload_free(rs->regexes);
			return c;
		}
		lx_cached = c == JH_OK;
	}
	for (size_t i = 0; i < rs->count; i++) {
		jh_rule *r = rs->rules[i];
		if (r->broken) {
			result = JH_ERR_RULES;
			continue;
		}
		int rc = bad_foreign(r, fn, pl);
		if (rc == JH_OK)
			rc = compile_rule(rs, r, (long)i, lx_cached, &lx_read_ok, fn, pl);
		if (rc == JH_ERR_NOMEM) {
			free(lx_name);
			jh_regexes_preload_free(rs->regexes);
			return rc;
		}
		if (rc) {
			r->broken = 1;
			result = JH_ERR_RULES;
		}
	}
	for (size_t k = 0; k < rs->builtins->n; k++) {
		const jh_builtin_slot *s = &rs->builtins->v[k];
		jh_rule *r = rs->rules[s->rule_index];
		if (!s->def->link || r->broken)
			continue;
		int rc = s->def->link(s->cfg, r, rs, fn, pl);
		if (rc == JH_ERR_NOMEM) {
			free(lx_name);
			jh_regexes_preload_free(rs->regexes);
			return rc;
		}
		if (rc) {
			r->broken = 1;
			result = JH_ERR_RULES;
		}
	}
	jh_regexes_preload_done(rs->regexes, rs->cache_dir);
	if (lx_name && !lx_cached && lx_read_ok) {
		/* stored only when the files did not change while they were read */
		char *again = NULL;
		uint64_t now = 0;
		if (lexicon_key(rs, &again, &now) == 0 && now == lx_ident && !strcmp(again, lx_name))
			jh_lexicon_cache_store(rs->lexicon, rs->cache_dir, lx_name, lx_ident);
		free(again);
	}
	free(lx_name);
	int rc = jh_lexicon_build(rs->lexicon);
	if (rc)
		return rc;
	if (!(rs->interest = malloc(sizeof *rs->interest)))
		return JH_ERR_NOMEM;
	rc = jh_interest_build(rs->interest, rs->regexes, rs->lexicon, rs->builtins);
	if (rc) {
		free(rs->interest);
		rs->interest = NULL;
		return rc;
	}
	rs->compiled = 1;
	return result;
}

size_t jh_ruleset_count(const jh_ruleset *rs) { return rs->count; }

const jh_rule *jh_ruleset_rule(const jh_ruleset *rs, size_t i)
{
	return i < rs->count ? rs->rules[i] : NULL;
}

static void index_put(size_t *slots, size_t cap, const char *id, size_t i)
{
	size_t j = jh_hash(id, strlen(id)) & (cap - 1);
	while (slots[j])
		j = (j + 1) & (cap - 1);
	slots[j] = i + 1;
}

int jh_ruleset_index_add(jh_ruleset *rs, size_t i)
{
	if (2 * (rs->count + 1) > rs->by_id_cap) { /* at most half full */
		size_t cap = rs->by_id_cap ? 2 * rs->by_id_cap : 64;
		while (2 * (rs->count + 1) > cap)
			cap *= 2;
		size_t *slots = calloc(cap, sizeof *slots);
		if (!slots)
			return JH_ERR_NOMEM;
		for (size_t j = 0; j < rs->by_id_cap; j++)
			if (rs->by_id[j])
				index_put(slots, cap, rs->rules[rs->by_id[j] - 1]->id, rs->by_id[j] - 1);
		free(rs->by_id);
		rs->by_id = slots;
		rs->by_id_cap = cap;
	}
	index_put(rs->by_id, rs->by_id_cap, rs->rules[i]->id, i);
	return JH_OK;
}

long jh_ruleset_find(const jh_ruleset *rs, const char *id)
{
	if (!rs->by_id_cap)
		return -1;
	size_t j = jh_hash(id, strlen(id)) & (rs->by_id_cap - 1);
	for (; rs->by_id[j]; j = (j + 1) & (rs->by_id_cap - 1))
		if (strcmp(rs->rules[rs->by_id[j] - 1]->id, id) == 0)
			return (long)(rs->by_id[j] - 1);
	return -1;
}

int jh_ruleset_default_selection(const jh_ruleset *rs, unsigned char *enabled)
{
	for (size_t i = 0; i < rs->count; i++)
		enabled[i] = rs->rules[i]->enabled_by_default && !rs->rules[i]->broken;
	return JH_OK;
}

/* Does name select rule id?  Exact id, or a prefix ending at a dot. */
static int selects(const char *name, size_t n, const char *id)
{
	return strncmp(name, id, n) == 0 && (id[n] == '\0' || id[n] == '.');
}

void jh_selection_for_fix(const jh_ruleset *rs, unsigned char *enabled, int unsafe)
{
	for (size_t i = 0; i < rs->count; i++) {
		const jh_rule *r = rs->rules[i];
		if (r->kind != JH_KIND_LEXICON && (!r->has_fix || (!unsafe && r->safety == JH_UNSAFE)))
			enabled[i] = 0;
	}
}

int jh_selection_apply(const jh_ruleset *rs, unsigned char *enabled, const char *spec, int on,
                       char *bad_name, size_t bad_name_size)
{
	const char *p = spec;
	while (*p) {
		size_t n = strcspn(p, ", ");
		if (n) {
			int hit = 0;
			if (n == 3 && strncmp(p, "all", 3) == 0) {
				hit = 1;
				for (size_t i = 0; i < rs->count; i++)
					enabled[i] = on && !rs->rules[i]->broken;
			}
			for (size_t i = 0; i < rs->count && !hit; i++)
				hit = selects(p, n, rs->rules[i]->id);
			if (!hit) {
				if (bad_name && bad_name_size)
					snprintf(bad_name, bad_name_size, "%.*s", (int)n, p);
				return JH_ERR_ARG;
			}
			for (size_t i = 0; i < rs->count; i++)
				if (selects(p, n, rs->rules[i]->id))
					enabled[i] = on && !rs->rules[i]->broken;
		}
		p += n;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return JH_OK;
}

void jh_rule_get_info(const jh_rule *r, jh_rule_info *out)
{
	/* version 1's fields: every version has them */
	out->id = r->id;
	out->family = r->family;
	out->kind = r->kind;
	out->severity = r->severity;
	out->message = r->message;
	out->description = r->description;
	out->has_fix = r->has_fix;
	out->safety = r->safety;
	out->enabled_by_default = r->enabled_by_default && !r->broken;
	out->file = r->file;
	out->line = r->line;
	out->n_examples = r->n_examples;
}

int jh_rule_get_example(const jh_rule *r, size_t i, jh_example *out)
{
	if (i >= r->n_examples)
		return JH_ERR_ARG;
	const jh_example_def *ex = jh_rule_examples(r); /* decoded the first time */
	if (!ex)
		return JH_ERR_NOMEM;
	/* version 1's fields: every version has them */
	out->kind = ex[i].kind;
	out->text = ex[i].text;
	out->fixed = ex[i].fixed;
	out->line = ex[i].line;
	return JH_OK;
}

int jh_ruleset_set_param(jh_ruleset *rs, const char *id, const char *key, const char *value)
{
	if (!rs || !id || !key || !value)
		return JH_ERR_ARG;
	if (rs->compiled)
		return JH_ERR_STATE;
	long idx = jh_ruleset_find(rs, id);
	if (idx < 0)
		return JH_ERR_ARG;
	jh_rule *r = rs->rules[idx];
	/* a key of the rule, not of its check; a value that names no scope is
	 * kept as a parameter, for jh_ruleset_compile to report */
	if (!strcmp(key, "foreign") && !jh_foreign_parse(value, &r->foreign))
		return JH_OK;
	/* Appended: the last definition of a key wins, and the rule file's own
	 * line stays for messages about it. */
	return jh_rule_add_param(r, key, value, 0);
}

#ifndef JH_RULES_DIR
#define JH_RULES_DIR "/usr/local/share/jinghua/rules"
#endif

const char *jh_rules_dir(void)
{
	return JH_RULES_DIR;
}
