/* config.c — settings per file: .jinghua.ini (found upward from each file,
 * like .editorconfig, or given with --config), profiles, per-path sections,
 * and the command line on top.
 *
 * Order, later wins: each rule's own default → the profile → the config's
 * main section and [rule.id] sections → [path:GLOB] sections matching the
 * file, in order → the command line (--select replaces the selection,
 * --extend-select adds, --ignore removes).
 *
 * Rule parameters change what is compiled, so each distinct combination of
 * rule folders, profile and parameters has its own rule set; they are
 * compiled once and shared (most projects have one). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "config_model.h"
#include "util.h"

/* statuses of the internal calls (the command line's exit codes, which the
 * public calls turn into JH_ERR_CONFIG and JH_ERR_NOMEM) */
enum { EXIT_USAGE = 2, EXIT_IO = 3 };

/* Where errors go: set by the public calls for their thread (the internal
 * calls run under the configuration's lock). */
static __thread jh_diag_fn diag_fn;
static __thread void *diag_payload;

void cfg_set_diag(jh_diag_fn fn, void *payload)
{
	diag_fn = fn;
	diag_payload = payload;
}

static void cfg_diag(const jh_diag *d)
{
	if (diag_fn)
		diag_fn(d, diag_payload);
}

static __thread cfg_via via; /* the line that named the file being read */

cfg_via cfg_set_via(cfg_via v)
{
	cfg_via old = via;
	via = v;
	return old;
}

static void cfg_report(jh_severity sev, const char *file, unsigned line, const char *msg)
{
	char full[1400];
	if (via.key && file && strcmp(file, via.file)) /* say where the file was named */
		snprintf(full, sizeof full, "%s (read for %s = on %s:%u)", msg, via.key, via.file,
		         via.line);
	else
		snprintf(full, sizeof full, "%s", msg);
	jh_diag d = {sev, file, line, 0, NULL, full};
	cfg_diag(&d);
}

void cfg_error(const char *file, unsigned line, const char *fmt, const char *a, const char *b)
{
	char msg[1024];
	snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
	cfg_report(JH_ERROR, file, line, msg);
}

void cfg_warn(const char *file, unsigned line, const char *msg)
{
	cfg_report(JH_WARNING, file, line, msg);
}

/* Rule loading's diagnostics, counted (payload: int error count). */
static void count_diag(const jh_diag *d, void *payload)
{
	int *errors = payload;
	if (errors && d->severity == JH_ERROR)
		(*errors)++;
	cfg_diag(d);
}

static config *load_config(cfg_ctx *x, const char *path)
{
	for (size_t i = 0; i < x->n_all; i++)
		if (!strcmp(x->all[i]->path, path))
			return x->all[i];
	config *c = calloc(1, sizeof *c);
	if (!c || !(c->path = cfg_strdup(path)) || !(c->dir = cfg_strdup(path)) ||
	    cfg_push(&x->all, x->n_all, sizeof *x->all)) {
		cfg_nomem();
		if (c)
			config_free(c);
		free(c);
		x->failed = 1;
		return NULL;
	}
	x->all[x->n_all++] = c;
	char *slash = strrchr(c->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(c->dir, ".");
	c->main.fail_on = -1;
	if (load_into(c, path, 0))
		c->bad = 1;
	if (c->bad)
		x->failed = 1;
	return c;
}

cfg_ctx *cfg_new(const cfg_cli *cli)
{
	cfg_ctx *x = calloc(1, sizeof *x);
	if (!x) {
		cfg_nomem();
		return NULL;
	}
	x->cli = *cli;
	x->none.path = cfg_strdup("(no config)");
	x->none.dir = cfg_strdup(".");
	x->none.main.fail_on = -1;
	if (cli->config) {
		char *abs = jh_path_absolute(cli->config);
		if (!abs)
			cfg_nomem();
		else
			x->forced = load_config(x, abs);
		free(abs);
		if (!x->forced) /* out of memory */
			x->failed = 1;
	}
	return x;
}

void cfg_free(cfg_ctx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n_all; i++) {
		config_free(x->all[i]);
		free(x->all[i]);
	}
	free(x->all);
	config_free(&x->none);
	for (dir_entry *d = x->dirs, *n; d; d = n) {
		n = d->next;
		free(d->dir);
		free(d);
	}
	for (rs_entry *r = x->rulesets, *n; r; r = n) {
		n = r->next;
		free(r->key);
		jh_ruleset_free(r->rs);
		free(r);
	}
	free(x);
}

/* The nearest .jinghua.ini from dir upward. */
static config *find_config(cfg_ctx *x, const char *dir)
{
	for (dir_entry *d = x->dirs; d; d = d->next)
		if (!strcmp(d->dir, dir))
			return d->cfg;
	config *found = NULL;
	char *probe = jh_path_join(dir, ".jinghua.ini");
	if (!probe) {
		cfg_nomem();
		return NULL;
	}
	struct stat st;
	int there = stat(probe, &st) == 0;
	cfg_note_stat(probe, there ? &st : NULL); /* one created here later is nearer */
	if (there && S_ISREG(st.st_mode)) {
		found = load_config(x, probe);
	} else if (strcmp(dir, "/") != 0) {
		char *parent = cfg_strdup(dir);
		if (!parent) {
			free(probe);
			return NULL;
		}
		char *slash = strrchr(parent, '/');
		if (slash == parent)
			parent[1] = '\0';
		else if (slash)
			*slash = '\0';
		found = find_config(x, parent);
		free(parent);
	}
	free(probe);
	dir_entry *e = calloc(1, sizeof *e);
	if (!e || !(e->dir = cfg_strdup(dir))) { /* not remembered: looked up again */
		cfg_nomem();
		free(e);
		return found;
	}
	e->cfg = found;
	e->next = x->dirs;
	x->dirs = e;
	return found;
}

static config *config_for(cfg_ctx *x, const char *path, char **abs_out)
{
	char *abs = jh_path_absolute(path);
	if (abs_out)
		*abs_out = abs;
	if (!abs) {
		cfg_nomem();
		return NULL;
	}
	if (x->forced)
		return x->forced;
	if (x->cli.no_config) {
		if (!abs_out)
			free(abs);
		return &x->none;
	}
	char *dir = cfg_strdup(abs);
	if (!dir) {
		if (!abs_out)
			free(abs);
		return NULL;
	}
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	config *c = find_config(x, dir);
	free(dir);
	if (!abs_out)
		free(abs);
	return c ? c : &x->none;
}

/* ---- profiles ---- */


/* The folders a config's rule set is read from, in order. */
static size_t rule_dirs_for(cfg_ctx *x, const config *c, char ***out)
{
	size_t total = !x->cli.no_default_rules + c->n_rule_dirs + x->cli.n_rule_dirs, n = 0;
	char **v = cfg_malloc(total * sizeof *v);
	if (v) {
		if (!x->cli.no_default_rules)
			v[n++] = cfg_strdup(x->cli.rules_dir ? x->cli.rules_dir : jh_rules_dir());
		for (size_t i = 0; i < c->n_rule_dirs; i++)
			v[n++] = cfg_strdup(c->rule_dirs[i]);
		for (size_t i = 0; i < x->cli.n_rule_dirs; i++)
			v[n++] = cfg_strdup(x->cli.rule_dirs[i]);
		for (size_t i = 0; i < n; i++)
			if (!v[i]) { /* out of memory (noted): no folders */
				free_list(v, n);
				v = NULL;
				n = 0;
				break;
			}
	}
	*out = v;
	return n;
}

/* Find and read the profile for c.  Returns 0 (with *out NULL if none). */
static int load_profile(cfg_ctx *x, config *c, char **dirs, size_t n_dirs, profile **out)
{
	*out = NULL;
	const char *name = x->cli.profile ? x->cli.profile : c->profile;
	const char *from = x->cli.profile ? NULL : c->profile_from;
	int implicit = !name;
	if (implicit)
		name = "novel"; /* the default profile, when the rules ship one */
	char *path = NULL;
	if (strchr(name, '/') || (strlen(name) > 8 && !strcmp(name + strlen(name) - 8, ".profile"))) {
		char *base = cfg_strdup(from ? from : "./x");
		if (!base)
			return 1;
		char *slash = strrchr(base, '/');
		*slash = '\0';
		path = resolve_rel(base, name);
		free(base);
		if (!path)
			return 1;
	} else {
		for (size_t i = n_dirs; i-- > 0 && !path;) {
			char *p = cfg_malloc(strlen(dirs[i]) + strlen(name) + 32);
			if (!p)
				return 1;
			sprintf(p, "%s/profiles/%s.profile", dirs[i], name);
			cfg_note(p); /* one put in a later folder wins */
			if (access(p, F_OK) == 0)
				path = p;
			else
				free(p);
		}
	}
	cfg_note(path);
	if (!path || access(path, F_OK) != 0) {
		free(path);
		if (implicit)
			return 0;
		if (from)
			cfg_error(from, c->profile_line, "no profile '%s' (looked in profiles/ of the rules folders)",
			          name, NULL);
		else
			cfg_error("--profile", 0, "no profile '%s' (looked in profiles/ of the rules folders)",
			          name, NULL);
		return 1;
	}
	profile *p = calloc(1, sizeof *p);
	if (!p) {
		cfg_nomem();
		free(path);
		return 1;
	}
	p->path = path;
	char why[128];
	char *probe = cfg_slurp(path, why, sizeof why);
	free(probe);
	if (!probe) {
		cfg_error(from ? from : "--profile", from ? c->profile_line : 0,
		          "profile: cannot read %s: %s", path, why);
		profile_free(p);
		return 1;
	}
	cfg_via was = cfg_set_via((cfg_via){from ? "profile" : NULL, from, c->profile_line});
	int bad = parse_ini(path, p, 1);
	cfg_set_via(was);
	if (bad) {
		profile_free(p);
		return 1;
	}
	*out = p;
	return 0;
}

/* ---- rule sets ---- */

typedef struct {
	const char *file;
	unsigned line;
	const char *rule, *key;
} param_origin;

typedef struct {
	int errors;
	param_origin *o;
	size_t n;
} compile_diag;

/* Problems with parameters set from a config or profile are reported by
 * the library with line 0 and the rule's file: say where they were set. */
static void compile_diag_fn(const jh_diag *d, void *payload)
{
	compile_diag *cd = payload;
	if (d->line == 0 && d->rule_id) {
		const param_origin *best = NULL;
		for (size_t i = 0; i < cd->n; i++)
			if (!strcmp(cd->o[i].rule, d->rule_id) &&
			    (!best || strstr(d->message, cd->o[i].key)))
				best = &cd->o[i];
		if (best) {
			jh_diag m = *d;
			m.file = best->file;
			m.line = best->line;
			count_diag(&m, &cd->errors);
			return;
		}
	}
	count_diag(d, &cd->errors);
}

static void add_origin(compile_diag *cd, const char *file, const rule_cfg *r, const kv *p)
{
	if (cfg_push(&cd->o, cd->n, sizeof *cd->o) == 0) /* else the rule's own line is named */
		cd->o[cd->n++] = (param_origin){file, p->line, r->id, p->key};
}

static int build_ruleset(cfg_ctx *x, config *c, const jh_ruleset **out)
{
	char **dirs;
	size_t n_dirs = rule_dirs_for(x, c, &dirs);
	int status = 0;
	if (!dirs && !n_dirs && (!x->cli.no_default_rules || c->n_rule_dirs || x->cli.n_rule_dirs))
		return EXIT_IO; /* out of memory */
	if (load_profile(x, c, dirs, n_dirs, &c->prof)) {
		free_list(dirs, n_dirs);
		return EXIT_USAGE;
	}
	/* the key: folders, then every parameter in the order it is applied */
	size_t klen = 0;
	char *key = NULL;
	FILE *k = open_memstream(&key, &klen);
	if (!k) {
		cfg_nomem();
		free_list(dirs, n_dirs);
		return EXIT_IO;
	}
	for (size_t i = 0; i < n_dirs; i++)
		fprintf(k, "d%s%c", dirs[i], 0);
	const profile *p = c->prof;
	for (size_t i = 0; p && i < p->n_rules; i++)
		for (size_t j = 0; j < p->rules[i].n_params; j++)
			fprintf(k, "p%s%c%s%c%s%c", p->rules[i].id, 0, p->rules[i].params[j].key, 0,
			        p->rules[i].params[j].value, 0);
	for (size_t i = 0; i < c->n_rules; i++)
		for (size_t j = 0; j < c->rules[i].n_params; j++)
			fprintf(k, "p%s%c%s%c%s%c", c->rules[i].id, 0, c->rules[i].params[j].key, 0,
			        c->rules[i].params[j].value, 0);
	if (ferror(k) | fclose(k) || !key) { /* open_memstream ran out of memory */
		cfg_nomem();
		free(key);
		free_list(dirs, n_dirs);
		return EXIT_IO;
	}
	/* keys hold NULs: stored as their length, then the bytes */
	for (rs_entry *e = x->rulesets; e; e = e->next) {
		if (!memcmp(e->key, &klen, sizeof klen) && !memcmp(e->key + sizeof klen, key, klen)) {
			*out = e->rs;
			free(key);
			free_list(dirs, n_dirs);
			return 0;
		}
	}
	jh_ruleset *rs = NULL;
	if (jh_ruleset_new(&rs) || jh_ruleset_set_cache_dir(rs, x->cli.cache_dir)) {
		jh_ruleset_free(rs);
		free(key);
		free_list(dirs, n_dirs);
		return EXIT_IO;
	}
	int errors = 0, nomem_rc = 0;
	for (size_t i = 0; i < n_dirs; i++)
		cfg_note_rules_dir(dirs[i]);
	for (size_t i = 0; i < n_dirs; i++)
		if (jh_ruleset_load_dir(rs, dirs[i], count_diag, &errors) == JH_ERR_NOMEM)
			nomem_rc = 1;
	if (nomem_rc) { /* the rules read are not checked: not to be compiled */
		cfg_nomem();
		jh_ruleset_free(rs);
		free(key);
		free_list(dirs, n_dirs);
		return EXIT_IO;
	}
	compile_diag cd = {0};
	for (int pass = 0; pass < 2; pass++) { /* every [rule.id] must name a rule */
		const rule_cfg *rv = pass ? c->rules : p ? p->rules : NULL;
		size_t rn = pass ? c->n_rules : p ? p->n_rules : 0;
		for (size_t i = 0; i < rn; i++)
			if (jh_ruleset_find(rs, rv[i].id) < 0) {
				cfg_error(pass ? c->path : p->path, rv[i].line, "no rule '%s'", rv[i].id, NULL);
				errors++;
			}
	}
	for (int pass = 0; pass < 2; pass++) {
		const rule_cfg *rv = pass ? c->rules : p ? p->rules : NULL;
		size_t rn = pass ? c->n_rules : p ? p->n_rules : 0;
		const char *file = pass ? c->path : p ? p->path : NULL;
		for (size_t i = 0; i < rn; i++) {
			const rule_cfg *r = &rv[i];
			for (size_t j = 0; j < r->n_params; j++) {
				int rc = jh_ruleset_set_param(rs, r->id, r->params[j].key, r->params[j].value);
				if (rc == JH_ERR_ARG)
					break; /* reported above */
				if (rc == JH_ERR_NOMEM)
					nomem_rc = 1;
				add_origin(&cd, file, r, &r->params[j]);
			}
		}
	}
	int rc = jh_ruleset_compile(rs, compile_diag_fn, &cd);
	errors += cd.errors;
	free(cd.o);
	if (rc == JH_ERR_NOMEM || nomem_rc) {
		cfg_nomem();
		status = EXIT_IO;
	} else if (errors) {
		status = EXIT_USAGE;
	}
	if (status) {
		jh_ruleset_free(rs);
		free(key);
		free_list(dirs, n_dirs);
		return status;
	}
	rs_entry *e = calloc(1, sizeof *e);
	if (!e || !(e->key = cfg_malloc(sizeof klen + klen))) {
		cfg_nomem();
		free(e);
		jh_ruleset_free(rs);
		free(key);
		free_list(dirs, n_dirs);
		return EXIT_IO;
	}
	memcpy(e->key, &klen, sizeof klen);
	memcpy(e->key + sizeof klen, key, klen);
	e->rs = rs;
	e->next = x->rulesets;
	x->rulesets = e;
	free(key);
	free_list(dirs, n_dirs);
	*out = rs;
	return 0;
}

/* ---- selection and severities ---- */

static int apply_spec(const jh_ruleset *rs, unsigned char *en, const spec *s, int on,
                      const char *file, const char *what)
{
	char bad[128];
	if (!strcmp(what, "select") && !s->value[strspn(s->value, ", \t")]) {
		/* `select = ,` would silently switch every rule off */
		if (file)
			cfg_error(file, s->line, "select: no rule selected (give rule ids or families)", NULL,
			          NULL);
		else
			cfg_error("--select", 0, "no rule selected (give rule ids or families)", NULL, NULL);
		return 1;
	}
	if (jh_selection_apply(rs, en, s->value, on, bad, sizeof bad)) {
		if (file)
			cfg_error(file, s->line, "%s: no rule or family '%s'", what, bad);
		else
		{
			char opt[32];
			snprintf(opt, sizeof opt, "--%s", what);
			cfg_error(opt, 0, "no rule or family '%s'", bad, NULL);
		}
		return 1;
	}
	return 0;
}

/* "censor.mask:info, typo:warning" */
static int apply_severity(const jh_ruleset *rs, signed char *sev, const spec *s, const char *file)
{
	char **items;
	size_t n = split_list(s->value, &items);
	int errors = 0;
	size_t nr = jh_ruleset_count(rs);
	unsigned char *tmp = cfg_malloc(nr ? nr : 1);
	for (size_t i = 0; tmp && i < n; i++) {
		char *colon = strrchr(items[i], ':');
		if (!colon) {
			colon = strrchr(items[i], '=');
		}
		jh_severity sv;
		if (!colon || jh_severity_parse(trim(colon + 1), &sv)) {
			cfg_error(file, s->line, "severity: '%s' is not ID:error|warning|info", items[i], NULL);
			errors++;
			continue;
		}
		*colon = '\0';
		char bad[128];
		memset(tmp, 0, nr);
		if (jh_selection_apply(rs, tmp, trim(items[i]), 1, bad, sizeof bad)) {
			cfg_error(file, s->line, "severity: no rule or family '%s'", bad, NULL);
			errors++;
			continue;
		}
		for (size_t k = 0; k < nr; k++)
			if (tmp[k])
				sev[k] = (signed char)sv;
	}
	free(tmp);
	free_list(items, n);
	return errors;
}

static int apply_rule_cfgs(const jh_ruleset *rs, unsigned char *en, signed char *sev,
                           const rule_cfg *r, size_t n, const char *file)
{
	int errors = 0;
	for (size_t i = 0; i < n; i++) {
		long idx = jh_ruleset_find(rs, r[i].id);
		if (idx < 0) {
			cfg_error(file, r[i].line, "no rule '%s'", r[i].id, NULL);
			errors++;
			continue;
		}
		if (r[i].severity >= 0)
			sev[idx] = (signed char)r[i].severity;
		if (r[i].enabled >= 0)
			en[idx] = (unsigned char)r[i].enabled;
	}
	return errors;
}

static int apply_section(const jh_ruleset *rs, unsigned char *en, signed char *sev,
                         const section *s, const char *file)
{
	int errors = 0;
	size_t nr = jh_ruleset_count(rs);
	for (size_t i = 0; i < s->n_select; i++) {
		if (i == 0)
			memset(en, 0, nr);
		errors += apply_spec(rs, en, &s->select[i], 1, file, "select");
	}
	for (size_t i = 0; i < s->n_extend; i++)
		errors += apply_spec(rs, en, &s->extend[i], 1, file, "extend-select");
	for (size_t i = 0; i < s->n_ignore; i++)
		errors += apply_spec(rs, en, &s->ignore[i], 0, file, "ignore");
	for (size_t i = 0; i < s->n_severity; i++)
		errors += apply_severity(rs, sev, &s->severity[i], file);
	return errors;
}

static char *relative_to(const char *dir, const char *abs)
{
	size_t dl = strlen(dir);
	if (!strcmp(dir, "/"))
		return cfg_strdup(abs + 1);
	if (!strncmp(abs, dir, dl) && abs[dl] == '/')
		return cfg_strdup(abs + dl + 1);
	return cfg_strdup(abs);
}

/* Resolve c: rule set, profile, and every section checked once. */
static int resolve(cfg_ctx *x, config *c)
{
	if (c->resolved)
		return c->bad ? EXIT_USAGE : 0;
	c->resolved = 1;
	/* go on after syntax errors: every mistake is reported in one run */
	int st = build_ruleset(x, c, &c->rs);
	if (st) {
		c->bad = 1;
		return st;
	}
	/* validate every name now, so a wrong one fails before any output */
	size_t nr = jh_ruleset_count(c->rs);
	unsigned char *en = cfg_malloc(nr + 1);
	signed char *sev = cfg_malloc(nr + 1);
	if (!en || !sev) {
		free(en);
		free(sev);
		c->bad = 1;
		return EXIT_IO;
	}
	int errors = 0;
	const profile *p = c->prof;
	jh_ruleset_default_selection(c->rs, en);
	if (p) {
		for (size_t i = 0; i < p->n_enable; i++)
			errors += apply_spec(c->rs, en, &p->enable[i], 1, p->path, "enable");
		for (size_t i = 0; i < p->n_disable; i++)
			errors += apply_spec(c->rs, en, &p->disable[i], 0, p->path, "disable");
		for (size_t i = 0; i < p->n_severity; i++)
			errors += apply_severity(c->rs, sev, &p->severity[i], p->path);
		errors += apply_rule_cfgs(c->rs, en, sev, p->rules, p->n_rules, p->path);
	}
	errors += apply_section(c->rs, en, sev, &c->main, c->path);
	errors += apply_rule_cfgs(c->rs, en, sev, c->rules, c->n_rules, c->path);
	for (size_t i = 0; i < c->n_paths; i++)
		errors += apply_section(c->rs, en, sev, &c->paths[i], c->path);
	free(en);
	free(sev);
	if (errors || c->bad) {
		c->bad = 1;
		return EXIT_USAGE;
	}
	return 0;
}

static fsettings *make_settings(cfg_ctx *x, config *c, unsigned long long mask)
{
	const jh_ruleset *rs = c->rs;
	size_t nr = jh_ruleset_count(rs);
	fsettings *f = calloc(1, sizeof *f);
	if (!f || !(f->enabled = cfg_malloc(nr + 1)) || !(f->severity = cfg_malloc(nr + 1))) {
		cfg_nomem();
		if (f)
			free(f->enabled);
		free(f);
		return NULL;
	}
	f->mask = mask;
	memset(f->severity, -1, nr + 1);
	jh_ruleset_default_selection(rs, f->enabled);
	const profile *p = c->prof;
	if (p) {
		for (size_t i = 0; i < p->n_enable; i++)
			apply_spec(rs, f->enabled, &p->enable[i], 1, p->path, "enable");
		for (size_t i = 0; i < p->n_disable; i++)
			apply_spec(rs, f->enabled, &p->disable[i], 0, p->path, "disable");
		for (size_t i = 0; i < p->n_severity; i++)
			apply_severity(rs, f->severity, &p->severity[i], p->path);
		apply_rule_cfgs(rs, f->enabled, f->severity, p->rules, p->n_rules, p->path);
	}
	apply_section(rs, f->enabled, f->severity, &c->main, c->path);
	apply_rule_cfgs(rs, f->enabled, f->severity, c->rules, c->n_rules, c->path);
	file_settings *s = &f->s;
	s->fail_on = c->main.fail_on;
	s->type = c->main.type;
	s->encoding = c->main.encoding;
	s->variant = c->main.variant;
	size_t nw = c->main.n_words;
	for (size_t i = 0; i < c->n_paths; i++)
		if (mask & (1ull << i)) {
			const section *ps = &c->paths[i];
			apply_section(rs, f->enabled, f->severity, ps, c->path);
			if (ps->fail_on >= 0)
				s->fail_on = ps->fail_on;
			if (ps->type != TYPE_AUTO)
				s->type = ps->type;
			if (ps->encoding)
				s->encoding = ps->encoding;
			if (ps->variant)
				s->variant = ps->variant;
			nw += ps->n_words;
		}
	/* the command line last */
	const cfg_cli *cli = &x->cli;
	if (cli->select) {
		memset(f->enabled, 0, nr);
		spec sp = {(char *)cli->select, 0};
		apply_spec(rs, f->enabled, &sp, 1, NULL, "select");
	}
	if (cli->extend_select) {
		spec sp = {(char *)cli->extend_select, 0};
		apply_spec(rs, f->enabled, &sp, 1, NULL, "extend-select");
	}
	if (cli->ignore) {
		spec sp = {(char *)cli->ignore, 0};
		apply_spec(rs, f->enabled, &sp, 0, NULL, "ignore");
	}
	if (cli->fail_on >= 0)
		s->fail_on = cli->fail_on;
	if (s->fail_on < 0)
		s->fail_on = JH_WARNING;
	if (cli->type != TYPE_AUTO)
		s->type = cli->type;
	if (cli->encoding)
		s->encoding = cli->encoding;
	if (cli->variant)
		s->variant = cli->variant;
	if (!(f->accept = cfg_malloc((nw + 1) * sizeof *f->accept))) {
		free(f->enabled);
		free(f->severity);
		free(f);
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < c->main.n_words; i++)
		f->accept[k++] = c->main.words[i];
	for (size_t i = 0; i < c->n_paths; i++)
		if (mask & (1ull << i))
			for (size_t j = 0; j < c->paths[i].n_words; j++)
				f->accept[k++] = c->paths[i].words[j];
	s->version = JH_SETTINGS_VERSION;
	s->ruleset = rs;
	s->cache_dir = cli->cache_dir;
	s->enabled = f->enabled;
	s->severity = f->severity;
	s->accept = (const char *const *)f->accept;
	s->n_accept = k;
	f->next = c->cache;
	c->cache = f;
	return f;
}

/* Check the command line's rule names once against the base rule set. */
static int check_cli_names(cfg_ctx *x, const jh_ruleset *rs)
{
	size_t nr = jh_ruleset_count(rs);
	unsigned char *en = cfg_malloc(nr + 1);
	if (!en)
		return EXIT_IO;
	int errors = 0;
	const char *v[] = {x->cli.select, x->cli.extend_select, x->cli.ignore};
	const char *names[] = {"select", "extend-select", "ignore"};
	for (int i = 0; i < 3; i++)
		if (v[i]) {
			spec sp = {(char *)v[i], 0};
			errors += apply_spec(rs, en, &sp, 1, NULL, names[i]);
		}
	free(en);
	return errors ? EXIT_USAGE : 0;
}

int cfg_settings(cfg_ctx *x, const char *path, const file_settings **out)
{
	char *abs = NULL;
	config *c = config_for(x, path, &abs);
	if (!c) { /* out of memory */
		free(abs);
		return EXIT_IO;
	}
	int st = resolve(x, c);
	if (st) {
		free(abs);
		return st;
	}
	if (!x->cli_checked) {
		x->cli_checked = 1;
		if ((st = check_cli_names(x, c->rs))) {
			c->bad = 1;
			free(abs);
			return st;
		}
	}
	unsigned long long mask = 0;
	if (c->n_paths) {
		char *rel = relative_to(c->dir, abs);
		if (!rel) {
			free(abs);
			return EXIT_IO;
		}
		for (size_t i = 0; i < c->n_paths; i++)
			if (glob_match(c->paths[i].glob, rel))
				mask |= 1ull << i;
		free(rel);
	}
	free(abs);
	for (fsettings *f = c->cache; f; f = f->next)
		if (f->mask == mask) {
			*out = &f->s;
			return 0;
		}
	fsettings *f = make_settings(x, c, mask);
	if (!f)
		return EXIT_IO;
	*out = &f->s;
	return 0;
}

/* Files a folder walk or --staged reads unless `extensions =` says
 * otherwise: prose only.  Source code and data (.c, .py, .json, .html …)
 * hold string literals a fix must never rewrite, and files with no
 * extension are as often Makefile, LICENSE or scripts as chapters. */
static const char *const prose_exts[] = {"txt", "text", "md", "markdown", "mdx"};

static int ext_is(const char *ext, size_t len, const char *want)
{
	if (!strcmp(want, "*"))
		return 1;
	if (strlen(want) != len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char ch = ext[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch != want[i])
			return 0;
	}
	return 1;
}

static int ext_read(const config *c, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	const char *ext = dot && dot != base ? dot + 1 : base + strlen(base);
	size_t len = strlen(ext);
	if (c && c->n_exts) {
		for (size_t i = 0; i < c->n_exts; i++)
			if (ext_is(ext, len, c->exts[i]))
				return 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof prose_exts / sizeof *prose_exts; i++)
		if (ext_is(ext, len, prose_exts[i]))
			return 1;
	return 0;
}

int cfg_excluded(cfg_ctx *x, const char *path)
{
	char *abs = NULL;
	config *c = config_for(x, path, &abs);
	int hit = !ext_read(c, path);
	if (!hit && c && c->n_exclude) {
		char *rel = relative_to(c->dir, abs);
		for (size_t i = 0; rel && i < c->n_exclude && !hit; i++)
			hit = glob_match(c->exclude[i], rel);
		free(rel);
	}
	free(abs);
	return hit;
}

int cfg_base_ruleset(cfg_ctx *x, const jh_ruleset **out)
{
	config *c = x->forced ? x->forced : x->cli.no_config ? &x->none : NULL;
	if (!c) {
		char *abs = NULL;
		c = config_for(x, "./.", &abs);
		free(abs);
		if (!c)
			return EXIT_IO;
	}
	int st = resolve(x, c);
	if (st)
		return st;
	*out = c->rs;
	return 0;
}

int cfg_failed(const cfg_ctx *x)
{
	return x->failed;
}
