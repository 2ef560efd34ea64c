/* builtins.c — the machinery of checks written in C: finding the check a
 * rule names, validating its parameters, emitting findings.  The checks
 * themselves live in check_<family>.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

void jh_brun_emit_fix(jh_brun *run, size_t start, size_t end, const char *msg, const char *fix,
                      jh_safety safety)
{
	if (run->err)
		return;
	const jh_rule *r = run->rule;
	if (!r->has_fix)
		fix = NULL;
	if (r->safety == JH_UNSAFE)
		safety = JH_UNSAFE;
	int rc = jh_findings_add(run->out, r->id, run->rule_index, r->severity, start, end, msg, fix,
	                         fix ? strlen(fix) : 0, safety);
	if (rc)
		run->err = rc;
}

void jh_brun_emit(jh_brun *run, size_t start, size_t end, const size_t *groups, uint32_t n_groups,
                  const char *message)
{
	jh_brun_emit_safety(run, start, end, groups, n_groups, message, run->rule->safety);
}

void jh_brun_emit_safety(jh_brun *run, size_t start, size_t end, const size_t *groups,
                         uint32_t n_groups, const char *message, jh_safety safety)
{
	if (run->err)
		return;
	const jh_rule *r = run->rule;
	jh_buf fix = {0};
	jh_hit h = {r, run->rule_index, start, end, NULL, 0, safety, NULL};
	if (r->has_fix) {
		size_t ov[2 * 10] = {start, end};
		uint32_t pairs = 1;
		for (uint32_t i = 0; i < n_groups && pairs < 10; i++, pairs++) {
			ov[2 * pairs] = groups[2 * i];
			ov[2 * pairs + 1] = groups[2 * i + 1];
		}
		if (jh_expand_template(r->fix, run->text, ov, pairs, NULL, &fix) || jh_map_fix(r, &fix)) {
			jh_buf_free(&fix);
			run->err = JH_ERR_NOMEM;
			return;
		}
		h.fix = fix.data ? fix.data : "";
		h.fix_len = fix.len;
	}
	int rc = message ? jh_findings_add(run->out, r->id, run->rule_index, r->severity, start, end,
	                                   message, h.fix, h.fix_len, h.safety)
	                 : jh_findings_add_hit(run->out, run->text, &h);
	if (rc)
		run->err = rc;
	jh_buf_free(&fix);
}

int jh_param_uint(const jh_rule *r, const char *key, unsigned long dflt, unsigned long max,
                      unsigned long *out, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *v = jh_rule_param(r, key, &line);
	*out = dflt;
	if (!v)
		return JH_OK;
	char *end;
	unsigned long x = strtoul(v, &end, 10);
	if (!*v || *end || x > max) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "%s must be a whole number from 0 to %lu, not '%s'", key, max, v);
		return JH_ERR_RULES;
	}
	*out = x;
	return JH_OK;
}

/* dir/file, dir defaulting to the rule's data folder. */
static char *data_path(const char *dir, const char *file, const jh_rule *r)
{
	jh_buf path = {0};
	if (!dir)
		dir = r->data_dir ? r->data_dir : ".";
	if (jh_buf_puts(&path, dir) || jh_buf_putc(&path, '/') || jh_buf_puts(&path, file)) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

char *jh_data_path(const jh_rule *r, const char *file) { return data_path(NULL, file, r); }

int jh_data_readable(const jh_rule *r, const char *file, unsigned line, jh_diag_fn diag_fn,
                     void *payload)
{
	char *path = data_path(NULL, file, r);
	if (!path)
		return JH_ERR_NOMEM;
	FILE *f = fopen(path, "rb");
	int err = errno;
	if (!f && err != ENOMEM)
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "cannot read %s", path);
	else if (f)
		fclose(f);
	free(path);
	return f ? JH_OK : err == ENOMEM ? JH_ERR_NOMEM : JH_ERR_RULES;
}

int jh_data_open(jh_tsv *t, const char *dir, const char *file, const jh_rule *r, unsigned line,
                 jh_diag_fn diag_fn, void *payload)
{
	memset(t, 0, sizeof *t);
	char *path = data_path(dir, file, r);
	if (!path)
		return JH_ERR_NOMEM;
	int rc = jh_tsv_open(t, path);
	if (rc == JH_ERR_RULES)
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "cannot read %s", path);
	if (rc)
		free(path);
	else
		t->path = path;
	return rc;
}

int jh_load_char_map(int32_t **out, int32_t lo, int32_t hi, const char *file, const jh_rule *r,
                     unsigned line, jh_diag_fn diag_fn, void *payload)
{
	jh_tsv t;
	int32_t *map = NULL;
	int rc = jh_data_open(&t, NULL, file, r, line, diag_fn, payload);
	if (rc == JH_OK && !(map = calloc((size_t)(hi - lo + 1), sizeof *map)))
		rc = JH_ERR_NOMEM;
	char *f[3];
	size_t fl[3];
	int nf;
	while (rc == JH_OK && (nf = jh_tsv_next(&t, f, fl, 3)) > 0) {
		int32_t a, b = -1;
		if (nf < 2 || !fl[1] || jh_utf8_decode((const unsigned char *)f[0], fl[0], &a) != fl[0] ||
		    a < lo || a > hi)
			continue;
		jh_utf8_decode((const unsigned char *)f[1], fl[1], &b);
		if (b > 0)
			map[a - lo] = b;
	}
	jh_tsv_close(&t);
	if (rc) {
		free(map);
		map = NULL;
	}
	*out = map;
	return rc;
}

int jh_load_words(jh_strset *set, const char *dir, const char *file, const jh_rule *r,
                      unsigned line, jh_diag_fn diag_fn, void *payload)
{
	jh_tsv t;
	int rc = jh_data_open(&t, dir, file, r, line, diag_fn, payload);
	char *w;
	size_t n, lines = 0;
	for (const char *p = t.data; rc == JH_OK && (p = memchr(p, '\n', t.len - (size_t)(p - t.data)));
	     p++)
		lines++;
	if (rc == JH_OK)
		rc = jh_strset_reserve(set, lines + 1);
	while (rc == JH_OK && jh_tsv_next(&t, &w, &n, 1)) {
		n = strcspn(w, "\t"); /* the first column */
		if (jh_utf8_valid_prefix(w, n) != n) {
			jh_report(diag_fn, payload, JH_ERROR, t.path, t.line, 0, r->id, "not valid UTF-8");
			rc = JH_ERR_RULES;
		} else if (n) {
			rc = jh_strset_add(set, w, n);
		}
	}
	jh_tsv_close(&t);
	return rc;
}

int jh_compile_uint(const jh_rule *r, const char *key, unsigned long dflt, unsigned long max,
                    void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned long *v = malloc(sizeof *v);
	if (!v)
		return JH_ERR_NOMEM;
	int rc = jh_param_uint(r, key, dflt, max, v, diag_fn, payload);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	return JH_OK;
}

/* The checks of every family; each family file defines its own table. */
static const jh_builtin_def *const tables[] = {
	jh_checks_encoding, jh_checks_censor, jh_checks_censor_suggest, jh_checks_script,
	jh_checks_script_chars, jh_checks_punct,
	jh_checks_layout, jh_checks_typo,
};

void jh_mark_other(uint16_t *table, uint16_t bit, int32_t cp)
{
	if (cp >= 0x80 && cp < 0x10000 && !(jh_class_of(cp) & JH_C_HAN))
		table[cp] |= bit;
}

const jh_builtin_def *jh_builtin_find(const char *name)
{
	for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
		for (const jh_builtin_def *d = tables[t]; d->name; d++)
			if (strcmp(d->name, name) == 0)
				return d;
	return NULL;
}

void jh_doc_shared_free(jh_doc_shared *d)
{
	if (d->layout && d->layout_free)
		d->layout_free(d->layout);
	d->layout = NULL;
}

void jh_builtins_free(jh_builtins *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].def->free_cfg)
			b->v[i].def->free_cfg(b->v[i].cfg);
	free(b->v);
	memset(b, 0, sizeof *b);
}

int jh_builtins_add(jh_builtins *b, jh_rule *r, long rule_index, jh_diag_fn diag_fn, void *payload)
{
	const jh_builtin_def *def = jh_builtin_find(r->check);
	if (!def) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "unknown builtin check '%s'", r->check);
		return JH_ERR_RULES;
	}
	for (size_t i = 0; i < r->n_params; i++) {
		int ok = 0;
		for (const char *const *p = def->params; p && *p && !ok; p++)
			ok = strcmp(*p, r->params[i].key) == 0;
		if (!ok) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->params[i].line, 0, r->id,
			          "unknown key '%s' (check '%s' takes no such parameter)", r->params[i].key,
			          def->name);
			return JH_ERR_RULES;
		}
	}
	if (r->has_fix) {
		/* A builtin hands its fix at most $0-$9; a template that cannot
		 * expand (${name}, $x) is an error of the rule file, not a failure
		 * at every finding (which jh_brun_emit could only call out of
		 * memory). */
		size_t ov[20] = {0};
		jh_buf probe = {0};
		int trc = jh_expand_template(r->fix, "", ov, 10, NULL, &probe);
		jh_buf_free(&probe);
		if (trc == JH_ERR_NOMEM)
			return trc;
		if (trc) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "fix '%s' is not a template a builtin check can fill ($0-$9, $$)",
			          r->fix);
			return JH_ERR_RULES;
		}
	}
	void *cfg = NULL;
	if (def->compile) {
		int rc = def->compile(r, &cfg, diag_fn, payload);
		if (rc)
			return rc;
	}
	if (jh_grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v)) {
		if (def->free_cfg)
			def->free_cfg(cfg);
		return JH_ERR_NOMEM;
	}
	b->v[b->n] = (jh_builtin_slot){rule_index, def, cfg};
	r->builtin_slot = (long)b->n++;
	b->wake |= def->wake;
	return JH_OK;
}
