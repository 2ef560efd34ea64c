/* config_read.c — reading .jinghua.ini files and profiles into the model
 * of config_model.h: INI with line numbers, every key checked, errors with
 * file and line (all of them in one run), `extend =` chains. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "config.h"
#include "config_model.h"
#include "inifile.h"
#include "util.h"

/* ---- small things ---- */

char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int parse_fail_on(const char *v, int *out)
{
	jh_severity s;
	if (!strcmp(v, "never"))
		*out = JH_FAIL_NEVER;
	else if (jh_severity_parse(v, &s) == 0)
		*out = (int)s;
	else
		return -1;
	return 0;
}

static int parse_type(const char *v, doc_type *out)
{
	if (!strcmp(v, "auto"))
		*out = TYPE_AUTO;
	else if (!strcmp(v, "text") || !strcmp(v, "txt"))
		*out = TYPE_TEXT;
	else if (!strcmp(v, "markdown") || !strcmp(v, "md"))
		*out = TYPE_MARKDOWN;
	else
		return -1;
	return 0;
}

static int valid_variant(const char *v)
{
	return !strcmp(v, "auto") || !strcmp(v, "hans") || !strcmp(v, "hant");
}

/* Split a list value on commas, Chinese commas, 、 and line breaks. */
size_t split_list(const char *v, char ***out)
{
	size_t n = 0;
	char **items = NULL;
	const char *p = v;
	while (*p) {
		size_t len = 0;
		const char *q = p;
		while (*q && *q != ',' && *q != '\n' && strncmp(q, "，", 3) && strncmp(q, "、", 3))
			q++;
		len = (size_t)(q - p);
		char *item = xstrndup(p, len);
		char *t = trim(item);
		if (*t) {
			items = grow(items, n, sizeof *items);
			items[n++] = xstrdup(t);
		}
		free(item);
		if (!*q)
			break;
		p = q + (*q == ',' || *q == '\n' ? 1 : 3);
	}
	*out = items;
	return n;
}

void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- reading INI with line numbers (see src/rules.c: Debian's inih
 * handler gets none) ---- */

typedef struct {
	const char *text;
	size_t pos;
	unsigned line;
	int at_start;
	int cont;
	const char *file;
	int errors;
	char last_key[64];
	char last_section[256];
	void *target;   /* config or profile */
	int is_profile;
	unsigned section_line; /* line of the last [section] header */
	section *cur_section;
	rule_cfg *cur_rule;
} ini_state;

static char *cfg_reader(char *str, int num, void *stream)
{
	ini_state *st = stream;
	if (!st->text[st->pos] || num < 2)
		return NULL;
	if (st->at_start) {
		st->line++;
		st->cont = st->text[st->pos] == ' ' || st->text[st->pos] == '\t';
	}
	int n = 0;
	while (n < num - 1 && st->text[st->pos]) {
		char c = st->text[st->pos++];
		str[n++] = c;
		if (c == '\n')
			break;
	}
	str[n] = '\0';
	if (st->at_start) {
		const char *p = str + strspn(str, " \t");
		if (*p == '[')
			st->section_line = st->line;
	}
	st->at_start = str[n - 1] == '\n';
	return str;
}

#define SERR(st, ...) \
	do { \
		(st)->errors++; \
		char m_[512]; \
		snprintf(m_, sizeof m_, __VA_ARGS__); \
		cfg_error((st)->file, (st)->line, "%s%s", m_, NULL); \
	} while (0)

static void add_spec(spec **v, size_t *n, const char *value, unsigned line)
{
	*v = grow(*v, *n, sizeof **v);
	(*v)[(*n)++] = (spec){xstrdup(value), line};
}

static rule_cfg *rule_section(rule_cfg **v, size_t *n, const char *id, unsigned line)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].id, id))
			return &(*v)[i];
	*v = grow(*v, *n, sizeof **v);
	rule_cfg *r = &(*v)[(*n)++];
	memset(r, 0, sizeof *r);
	r->id = xstrdup(id);
	r->line = line;
	r->severity = r->enabled = -1;
	return r;
}

static void rule_key(ini_state *st, rule_cfg *r, const char *name, const char *value)
{
	if (!strcmp(name, "severity")) {
		jh_severity s;
		if (jh_severity_parse(value, &s))
			SERR(st, "severity must be error, warning or info, not '%s'", value);
		else {
			r->severity = (int)s;
			r->sev_line = st->line;
		}
		return;
	}
	if (!strcmp(name, "enabled")) {
		int b;
		if (parse_bool(value, &b))
			SERR(st, "enabled must be true or false, not '%s'", value);
		else {
			r->enabled = b;
			r->en_line = st->line;
		}
		return;
	}
	/* anything else is a parameter of the rule's check, validated when the
	 * rule set is compiled */
	if (st->cont && !strcmp(name, st->last_key) && r->n_params &&
	    !strcmp(r->params[r->n_params - 1].key, name)) {
		kv *p = &r->params[r->n_params - 1];
		size_t a = strlen(p->value), b = strlen(value);
		p->value = xrealloc(p->value, a + b + 2);
		p->value[a] = '\n';
		memcpy(p->value + a + 1, value, b + 1);
		return;
	}
	r->params = grow(r->params, r->n_params, sizeof *r->params);
	r->params[r->n_params++] = (kv){xstrdup(name), xstrdup(value), st->line};
}

char *resolve_rel(const char *dir, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	return path_join(dir, p);
}

static void section_key(ini_state *st, config *c, section *s, const char *name, const char *value)
{
	int main_sec = s == &c->main;
	if (!strcmp(name, "select"))
		add_spec(&s->select, &s->n_select, value, st->line);
	else if (!strcmp(name, "extend-select") || !strcmp(name, "enable"))
		add_spec(&s->extend, &s->n_extend, value, st->line);
	else if (!strcmp(name, "ignore") || !strcmp(name, "disable"))
		add_spec(&s->ignore, &s->n_ignore, value, st->line);
	else if (!strcmp(name, "severity"))
		add_spec(&s->severity, &s->n_severity, value, st->line);
	else if (!strcmp(name, "fail-on")) {
		if (parse_fail_on(value, &s->fail_on))
			SERR(st, "fail-on must be error, warning, info or never, not '%s'", value);
	} else if (!strcmp(name, "type")) {
		if (parse_type(value, &s->type))
			SERR(st, "type must be auto, text or markdown, not '%s'", value);
	} else if (!strcmp(name, "encoding")) {
		free(s->encoding);
		s->encoding = NULL;
		if (strcmp(value, "auto")) {
			if (jh_encoding_check(value, NULL, 0))
				SERR(st, "encoding: unknown encoding '%s' (see iconv -l)", value);
			s->encoding = xstrdup(value);
		}
	} else if (!strcmp(name, "variant")) {
		if (!valid_variant(value))
			SERR(st, "variant must be auto, hans or hant, not '%s'", value);
		free(s->variant);
		s->variant = xstrdup(value);
	} else if (!strcmp(name, "words")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			s->words = grow(s->words, s->n_words, sizeof *s->words);
			s->words[s->n_words++] = w[i];
		}
		free(w);
	} else if (!strcmp(name, "words-file")) {
		char *path = resolve_rel(c->dir, value);
		FILE *f = fopen(path, "r");
		if (!f) {
			SERR(st, "cannot read words-file %s: %s", path, strerror(errno));
		} else {
			char *ln = NULL;
			size_t cap = 0;
			while (getline(&ln, &cap, f) > 0) {
				char *t = trim(ln);
				size_t tl = strlen(t);
				if (tl && t[tl - 1] == '\n')
					t[--tl] = '\0';
				t = trim(t);
				char *tab = strchr(t, '\t');
				if (tab)
					*tab = '\0';
				if (!*t || *t == '#')
					continue;
				s->words = grow(s->words, s->n_words, sizeof *s->words);
				s->words[s->n_words++] = xstrdup(t);
			}
			free(ln);
			fclose(f);
		}
		free(path);
	} else if (main_sec && !strcmp(name, "profile")) {
		free(c->profile);
		free(c->profile_from);
		c->profile = xstrdup(value);
		c->profile_line = st->line;
		c->profile_from = xstrdup(c->path);
	} else if (main_sec && !strcmp(name, "rules")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			char *d = resolve_rel(c->dir, w[i]);
			struct stat sb;
			if (stat(d, &sb) || !S_ISDIR(sb.st_mode))
				SERR(st, "rules folder %s does not exist", d);
			c->rule_dirs = grow(c->rule_dirs, c->n_rule_dirs, sizeof *c->rule_dirs);
			c->rule_dirs[c->n_rule_dirs++] = d;
		}
		free_list(w, n);
	} else if (main_sec && !strcmp(name, "exclude")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			if (strlen(w[i]) > GLOB_MAX) {
				SERR(st, "exclude: glob longer than 1024 bytes (%.40s…)", w[i]);
				free(w[i]);
				continue;
			}
			c->exclude = grow(c->exclude, c->n_exclude, sizeof *c->exclude);
			c->exclude[c->n_exclude++] = w[i];
		}
		free(w);
	} else if (main_sec && !strcmp(name, "extend")) {
		/* handled before parsing (see load_config) */
	} else {
		SERR(st, "unknown key '%s'%s", name,
		     main_sec ? " (known: select, extend-select, ignore, severity, fail-on, profile, "
		                "variant, rules, words, words-file, exclude, type, encoding, extend)"
		              : " in a [path:GLOB] section");
	}
}

static int looks_like_rule_id(const char *s)
{
	static const char *const fam[] = {"censor.", "script.", "punct.", "layout.", "typo.",
	                                  "encoding.", NULL};
	for (int i = 0; fam[i]; i++)
		if (!strncmp(s, fam[i], strlen(fam[i])))
			return 1;
	return 0;
}

static int ini_cb(void *user, const char *sec, const char *name, const char *value)
{
	ini_state *st = user;
	if (strcmp(sec, st->last_section)) {
		unsigned key_line = st->line;
		if (*sec && st->section_line)
			st->line = st->section_line; /* say where the section starts */
		snprintf(st->last_section, sizeof st->last_section, "%s", sec);
		st->cur_section = NULL;
		st->cur_rule = NULL;
		if (st->is_profile) {
			profile *p = st->target;
			if (*sec) {
				if (!strncmp(sec, "rule.", 5) && looks_like_rule_id(sec + 5))
					sec += 5;
				if (!looks_like_rule_id(sec))
					SERR(st, "unknown section [%s] (a profile has [family.name] sections)", sec);
				else
					st->cur_rule = rule_section(&p->rules, &p->n_rules, sec, st->line);
			}
		} else {
			config *c = st->target;
			if (!*sec || !strcmp(sec, "jinghua")) {
				st->cur_section = &c->main;
			} else if (!strncmp(sec, "path:", 5) || !strncmp(sec, "path ", 5)) {
				const char *g = sec + 5;
				while (*g == ' ' || *g == '"')
					g++;
				char *glob = xstrdup(g);
				size_t gl = strlen(glob);
				while (gl && (glob[gl - 1] == '"' || glob[gl - 1] == ' '))
					glob[--gl] = '\0';
				if (!gl || c->n_paths >= 64 || gl > GLOB_MAX) {
					SERR(st, gl > GLOB_MAX ? "glob longer than 1024 bytes in [%.40s…]"
					         : gl ? "too many [path:] sections (64 at most)"
					              : "empty glob in [%s]", sec);
					free(glob);
				} else {
					c->paths = grow(c->paths, c->n_paths, sizeof *c->paths);
					section *s = &c->paths[c->n_paths++];
					memset(s, 0, sizeof *s);
					s->glob = glob;
					s->line = st->line;
					s->fail_on = -1;
					st->cur_section = s;
				}
			} else {
				const char *id = sec;
				if (!strncmp(id, "rule.", 5) && looks_like_rule_id(id + 5))
					id += 5;
				if (!looks_like_rule_id(id))
					SERR(st, "unknown section [%s] (use [jinghua], [family.name] or [path:GLOB])",
					     sec);
				else
					st->cur_rule = rule_section(&c->rules, &c->n_rules, id, st->line);
			}
		}
		st->line = key_line;
	}
	if (st->is_profile && !*sec) {
		profile *p = st->target;
		if (!strcmp(name, "enable") || !strcmp(name, "select") || !strcmp(name, "extend-select"))
			add_spec(&p->enable, &p->n_enable, value, st->line);
		else if (!strcmp(name, "disable") || !strcmp(name, "ignore"))
			add_spec(&p->disable, &p->n_disable, value, st->line);
		else if (!strcmp(name, "severity"))
			add_spec(&p->severity, &p->n_severity, value, st->line);
		else
			SERR(st, "unknown key '%s' in a profile (known: enable, disable, severity)", name);
	} else if (st->cur_rule) {
		rule_key(st, st->cur_rule, name, value);
	} else if (st->cur_section) {
		section_key(st, st->target, st->cur_section, name, value);
	}
	snprintf(st->last_key, sizeof st->last_key, "%s", name);
	return 1;
}

static char *slurp(const char *path)
{
	size_t len;
	char *data = jh_read_file(path, &len);
	if (data && strlen(data) != len) {
		free(data);
		errno = EINVAL;
		return NULL;
	}
	return data;
}

int parse_ini(const char *path, void *target, int is_profile)
{
	char *text = slurp(path);
	if (!text) {
		cfg_error(path, 0, "cannot read: %s", strerror(errno), NULL);
		return 1;
	}
	if (jh_utf8_valid_prefix(text, strlen(text)) != strlen(text)) {
		cfg_error(path, 0, "not valid UTF-8 text%s", "", NULL);
		free(text);
		return 1;
	}
	ini_state st = {text, 0, 0, 1, 0, path, 0, "", "\x01", target, is_profile, 0, NULL, NULL};
	int rc = jh_ini_parse_stream(cfg_reader, &st, ini_cb, &st);
	if (rc > 0) {
		st.line = (unsigned)rc;
		SERR(&st, "syntax error (expected [section], key = value, or a comment)");
	} else if (rc < 0) {
		SERR(&st, "cannot parse");
	}
	free(text);
	return st.errors;
}

/* ---- configs ---- */

static void section_free(section *s)
{
	spec *lists[] = {s->select, s->extend, s->ignore, s->severity};
	size_t ns[] = {s->n_select, s->n_extend, s->n_ignore, s->n_severity};
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < ns[k]; i++)
			free(lists[k][i].value);
		free(lists[k]);
	}
	free(s->glob);
	free(s->encoding);
	free(s->variant);
	free_list(s->words, s->n_words);
}

static void rules_free(rule_cfg *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].id);
		for (size_t k = 0; k < r[i].n_params; k++) {
			free(r[i].params[k].key);
			free(r[i].params[k].value);
		}
		free(r[i].params);
	}
	free(r);
}

void profile_free(profile *p)
{
	if (!p)
		return;
	spec *lists[] = {p->enable, p->disable, p->severity};
	size_t ns[] = {p->n_enable, p->n_disable, p->n_severity};
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < ns[k]; i++)
			free(lists[k][i].value);
		free(lists[k]);
	}
	rules_free(p->rules, p->n_rules);
	free(p->path);
	free(p);
}

void config_free(config *c)
{
	section_free(&c->main);
	for (size_t i = 0; i < c->n_paths; i++)
		section_free(&c->paths[i]);
	free(c->paths);
	rules_free(c->rules, c->n_rules);
	free_list(c->rule_dirs, c->n_rule_dirs);
	free_list(c->exclude, c->n_exclude);
	free(c->profile);
	free(c->profile_from);
	profile_free(c->prof);
	for (fsettings *f = c->cache, *next; f; f = next) {
		next = f->next;
		free(f->enabled);
		free(f->severity);
		free(f->accept);
		free(f);
	}
	free(c->path);
	free(c->dir);
}

/* `extend = FILE` names a config this one builds on: read it first. */
static char *find_extend(const char *path)
{
	char *text = slurp(path);
	if (!text)
		return NULL;
	char *res = NULL;
	int in_main = 1;
	for (char *ln = strtok(text, "\n"); ln; ln = strtok(NULL, "\n")) {
		char *t = trim(ln);
		if (*t == '[')
			in_main = !strncmp(t, "[jinghua]", 9);
		else if (in_main && !strncmp(t, "extend", 6)) {
			char *eq = t + 6;
			while (*eq == ' ' || *eq == '\t')
				eq++;
			if (*eq == '=') {
				res = xstrdup(trim(eq + 1));
				break;
			}
		}
	}
	free(text);
	return res;
}

int load_into(config *c, const char *path, int depth)
{
	if (depth > 8) {
		cfg_error(path, 0, "extend: chain too long (a loop?)%s", "", NULL);
		return 1;
	}
	int errors = 0;
	char *ext = find_extend(path);
	if (ext) {
		char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		char *base = resolve_rel(slash ? dir : ".", ext);
		char *save_dir = c->dir;
		char *bdir = xstrdup(base);
		char *bs = strrchr(bdir, '/');
		if (bs)
			*bs = '\0';
		c->dir = bdir;
		errors += load_into(c, base, depth + 1);
		c->dir = save_dir;
		free(bdir);
		free(base);
		free(dir);
		free(ext);
	}
	char *save = c->path;
	c->path = xstrdup(path);
	errors += parse_ini(path, c, 0);
	free(c->path);
	c->path = save;
	return errors;
}
