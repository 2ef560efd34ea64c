/* builtins.c — the checks implemented in C.  Each needs state across
 * characters (runs, pairs, counts) that a regex would have to rescan for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

void jh_brun_emit(jh_brun *run, size_t start, size_t end, const size_t *groups, uint32_t n_groups,
                  const char *message)
{
	if (run->err)
		return;
	const jh_rule *r = run->rule;
	jh_buf fix = {0};
	jh_hit h = {r, run->rule_index, start, end, NULL, 0, r->safety, NULL};
	if (r->has_fix) {
		size_t ov[2 * 10] = {start, end};
		uint32_t pairs = 1;
		for (uint32_t i = 0; i < n_groups && pairs < 10; i++, pairs++) {
			ov[2 * pairs] = groups[2 * i];
			ov[2 * pairs + 1] = groups[2 * i + 1];
		}
		if (jh_expand_template(r->fix, run->text, ov, pairs, NULL, &fix)) {
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

static int param_uint(const jh_rule *r, const char *key, unsigned long dflt, unsigned long max,
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

/* ---- encoding.invalid-utf8: one finding per run of invalid bytes ---- */

static void invalid_flush(jh_brun *run)
{
	if (!run->open)
		return;
	char msg[160] = "invalid UTF-8 bytes:";
	size_t n = strlen(msg);
	for (size_t i = run->open_start; i < run->open_end && n + 8 < sizeof msg; i++) {
		if (i - run->open_start == 12) {
			snprintf(msg + n, sizeof msg - n, " …");
			break;
		}
		n += (size_t)snprintf(msg + n, sizeof msg - n, " %02X", (unsigned char)run->text[i]);
	}
	jh_brun_emit(run, run->open_start, run->open_end, NULL, 0, msg);
	run->open = 0;
}

static void invalid_step(jh_brun *run, const jh_char *c)
{
	if (run->open && run->open_end == c->pos) {
		run->open_end = c->pos + c->len;
		return;
	}
	invalid_flush(run);
	run->open = 1;
	run->open_start = c->pos;
	run->open_end = c->pos + c->len;
}

/* ---- doubled characters (的的) ---- */

typedef struct {
	jh_strset chars;   /* characters checked; empty = every Han character */
	jh_strset allow;   /* words in which a doubled character is right */
	int allow_aabb;    /* 高高兴兴, 实实在在 */
} doubled_cfg;

static const char *const doubled_params[] = {"chars", "allow", "allow-aabb", NULL};

static int load_words(jh_strset *set, const char *dir, const char *file, const jh_rule *r,
                      unsigned line, jh_diag_fn diag_fn, void *payload)
{
	jh_buf path = {0};
	if (jh_buf_puts(&path, dir) || jh_buf_putc(&path, '/') || jh_buf_puts(&path, file)) {
		jh_buf_free(&path);
		return JH_ERR_NOMEM;
	}
	FILE *f = fopen(path.data, "rb");
	if (!f) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "cannot read word list %s", path.data);
		jh_buf_free(&path);
		return JH_ERR_RULES;
	}
	char *ln = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned no = 0;
	int rc = JH_OK;
	while (rc == JH_OK && (got = getline(&ln, &cap, f)) >= 0) {
		no++;
		size_t n = strcspn(ln, "\t\r\n");
		if (!n || ln[0] == '#')
			continue;
		if (jh_utf8_valid_prefix(ln, n) != n) {
			jh_report(diag_fn, payload, JH_ERROR, path.data, no, 0, r->id, "not valid UTF-8");
			rc = JH_ERR_RULES;
			break;
		}
		rc = jh_strset_add(set, ln, n);
	}
	free(ln);
	fclose(f);
	jh_buf_free(&path);
	return rc;
}

static void doubled_free(void *p)
{
	doubled_cfg *c = p;
	if (!c)
		return;
	jh_strset_free(&c->chars);
	jh_strset_free(&c->allow);
	free(c);
}

static int doubled_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	doubled_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	int rc = JH_OK;
	const char *chars = jh_rule_param(r, "chars", NULL);
	for (const char *p = chars; p && *p && rc == JH_OK;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)p, strlen(p), &cp);
		if (cp >= 0 && cp != ' ')
			rc = jh_strset_add(&c->chars, p, n);
		p += n;
	}
	unsigned line = r->line;
	const char *allow = jh_rule_param(r, "allow", &line);
	if (rc == JH_OK && allow)
		rc = load_words(&c->allow, r->data_dir, allow, r, line, diag_fn, payload);
	unsigned long aabb = 1;
	if (rc == JH_OK)
		rc = param_uint(r, "allow-aabb", 1, 1, &aabb, diag_fn, payload);
	c->allow_aabb = (int)aabb;
	if (rc) {
		doubled_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* Is the doubled pair at [a, c) part of an allowed word?  Tries every window
 * of up to three characters on each side. */
static int doubled_allowed(const doubled_cfg *cfg, const char *text, size_t len, size_t a, size_t c)
{
	size_t before[4] = {a}, after[4] = {c};
	int nb = 1, na = 1;
	for (size_t p = a; nb < 4 && p > 0;) {
		do
			p--;
		while (p > 0 && ((unsigned char)text[p] & 0xC0) == 0x80);
		if ((unsigned char)text[p] < 0x80)
			break; /* words do not cross ASCII */
		before[nb++] = p;
	}
	for (size_t p = c; na < 4 && p < len;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (cp < 0x80)
			break;
		p += n;
		after[na++] = p;
	}
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < na; j++) {
			size_t s = before[i], e = after[j];
			if (e - s <= cfg->allow.max_len && jh_strset_has(&cfg->allow, text + s, e - s))
				return 1;
		}
	return 0;
}

/* The doubled pair [a, b) [b, c): is it XXYY or YYXX with X != Y? */
static int doubled_aabb(const char *text, size_t len, size_t a, size_t c, size_t clen)
{
	/* YY before */
	if (a >= 2 * clen && memcmp(text + a - 2 * clen, text + a - clen, clen) == 0 &&
	    memcmp(text + a - clen, text + a, clen) != 0 &&
	    ((unsigned char)text[a - 2 * clen] & 0xC0) != 0x80)
		return 1;
	/* YY after */
	if (c + 2 * clen <= len && memcmp(text + c, text + c + clen, clen) == 0 &&
	    memcmp(text + c, text + a, clen) != 0 && ((unsigned char)text[c] & 0xC0) != 0x80)
		return 1;
	return 0;
}

static void doubled_flush(jh_brun *run)
{
	const doubled_cfg *cfg = run->cfg;
	/* Only a pair: three or more in a row is a stutter or a sound, not a slip. */
	if (run->run_len != 2)
		return;
	size_t a = run->run_start, c = run->run_end, clen = (c - a) / 2, b = a + clen;
	if (cfg->chars.count && !jh_strset_has(&cfg->chars, run->text + a, clen))
		return;
	if (cfg->allow.count && doubled_allowed(cfg, run->text, run->len, a, c))
		return;
	if (cfg->allow_aabb && doubled_aabb(run->text, run->len, a, c, clen))
		return;
	size_t g[2] = {a, b};
	jh_brun_emit(run, a, c, g, 1, NULL);
}

static void doubled_step(jh_brun *run, const jh_char *c)
{
	if (run->run_len && c->cp == run->run_cp && c->prev_pos == run->run_end - c->len &&
	    c->pos == run->run_end) {
		run->run_len++;
		run->run_end = c->pos + c->len;
		return;
	}
	doubled_flush(run);
	run->run_cp = c->cp;
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
}

static void doubled_finish(jh_brun *run) { doubled_flush(run); }

/* ---- run-on stretches of Han without punctuation ---- */

static const char *const runon_params[] = {"limit", NULL};

static int runon_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned long *limit = malloc(sizeof *limit);
	if (!limit)
		return JH_ERR_NOMEM;
	int rc = param_uint(r, "limit", 50, 100000, limit, diag_fn, payload);
	if (rc) {
		free(limit);
		return rc;
	}
	*out = limit;
	return JH_OK;
}

static void runon_flush(jh_brun *run)
{
	const unsigned long *limit = run->cfg;
	if (run->run_len > *limit) {
		char msg[160];
		snprintf(msg, sizeof msg, "%zu 个汉字之间没有任何标点（上限 %lu），可能缺了标点", run->run_len,
		         *limit);
		jh_brun_emit(run, run->run_start, run->run_end, NULL, 0, msg);
	}
	run->run_len = 0;
}

static void runon_step(jh_brun *run, const jh_char *c)
{
	if (!(c->cls & JH_C_HAN)) {
		runon_flush(run);
		return;
	}
	if (!run->run_len)
		run->run_start = c->pos;
	run->run_len++;
	run->run_end = c->pos + c->len;
}

static const jh_builtin_def defs[] = {
	{"invalid-utf8", JH_C_INVALID, NULL, NULL, NULL, invalid_step, invalid_flush},
	{"doubled", JH_C_HAN, doubled_params, doubled_compile, doubled_free, doubled_step, doubled_finish},
	{"run-on", JH_C_HAN | JH_C_CJK_PUNCT | JH_C_ASCII_PUNCT | JH_C_NEWLINE, runon_params,
	 runon_compile, free, runon_step, runon_flush},
};

const jh_builtin_def *jh_builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof defs / sizeof *defs; i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
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
