/* config_read.c — reading .jinghua.ini files and profiles into the model
 * of config_model.h: INI with line numbers, every key checked, errors with
 * file and line (all of them in one run), `extend =` chains. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
		char *item = cfg_strndup(p, len);
		char *t = item ? trim(item) : NULL, *copy;
		if (t && *t && (copy = cfg_strdup(t))) {
			if (cfg_push(&items, n, sizeof *items) == 0)
				items[n++] = copy;
			else
				free(copy);
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

/* ---- reading INI with line numbers (inifile.h) ---- */

typedef struct {
	jh_ini_text in;  /* the reader: lines, continuations, [section] lines */
	unsigned line;   /* the line errors are reported on (in.line, or a section's) */
	const char *file;
	int errors;
	char last_key[64];
	char last_section[256];
	void *target;   /* config or profile */
	int is_profile;
	section *cur_section;
	rule_cfg *cur_rule;
} ini_state;

#define SERR(st, ...) \
	do { \
		(st)->errors++; \
		char m_[512]; \
		snprintf(m_, sizeof m_, __VA_ARGS__); \
		cfg_error((st)->file, (st)->line, "%s%s", m_, NULL); \
	} while (0)

static void add_spec(spec **v, size_t *n, const char *value, unsigned line)
{
	char *copy = cfg_strdup(value);
	if (copy && cfg_push(v, *n, sizeof **v) == 0)
		(*v)[(*n)++] = (spec){copy, line};
	else
		free(copy);
}

static rule_cfg *rule_section(rule_cfg **v, size_t *n, const char *id, unsigned line)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].id, id))
			return &(*v)[i];
	char *copy = cfg_strdup(id);
	if (!copy || cfg_push(v, *n, sizeof **v)) {
		free(copy);
		return NULL; /* out of memory: the section's keys are dropped */
	}
	rule_cfg *r = &(*v)[(*n)++];
	memset(r, 0, sizeof *r);
	r->id = copy;
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
		if (jh_ini_bool(value, &b))
			SERR(st, "enabled must be true or false, not '%s'", value);
		else {
			r->enabled = b;
			r->en_line = st->line;
		}
		return;
	}
	/* anything else is a parameter of the rule's check, validated when the
	 * rule set is compiled */
	if (st->in.cont && !strcmp(name, st->last_key) && r->n_params &&
	    !strcmp(r->params[r->n_params - 1].key, name)) {
		kv *p = &r->params[r->n_params - 1];
		size_t a = strlen(p->value), b = strlen(value);
		char *nv = realloc(p->value, a + b + 2);
		if (!nv) {
			cfg_nomem();
			return;
		}
		p->value = nv;
		p->value[a] = '\n';
		memcpy(p->value + a + 1, value, b + 1);
		return;
	}
	char *k = cfg_strdup(name), *v = cfg_strdup(value);
	if (k && v && cfg_push(&r->params, r->n_params, sizeof *r->params) == 0) {
		r->params[r->n_params++] = (kv){k, v, st->line};
		return;
	}
	free(k);
	free(v);
}

char *resolve_rel(const char *dir, const char *p)
{
	char *r = p[0] == '/' ? jh_strdup(p) : jh_path_join(dir, p);
	if (!r)
		cfg_nomem();
	return r;
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
			int ec = jh_encoding_check(value, NULL, 0);
			if (ec == JH_ERR_NOMEM)
				cfg_nomem();
			else if (ec)
				SERR(st, "encoding: unknown encoding '%s' (see iconv -l)", value);
			s->encoding = cfg_strdup(value);
		}
	} else if (!strcmp(name, "variant")) {
		if (!valid_variant(value))
			SERR(st, "variant must be auto, hans or hant, not '%s'", value);
		free(s->variant);
		s->variant = cfg_strdup(value);
	} else if (!strcmp(name, "words")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			if (cfg_push(&s->words, s->n_words, sizeof *s->words) == 0)
				s->words[s->n_words++] = w[i];
			else
				free(w[i]);
		}
		free(w);
	} else if (!strcmp(name, "words-file")) {
		char *path = resolve_rel(c->dir, value);
		char why[128];
		char *text = path ? cfg_slurp(path, why, sizeof why) : NULL;
		if (!path) {
			/* out of memory (noted) */
		} else if (!text) {
			SERR(st, "cannot read words-file %s: %s", path, why);
		} else {
			for (char *ln = text, *next; ln; ln = next) {
				next = strchr(ln, '\n');
				if (next)
					*next++ = '\0';
				char *t = trim(ln);
				char *tab = strchr(t, '\t');
				if (tab)
					*tab = '\0';
				t = trim(t);
				if (!*t || *t == '#')
					continue;
				char *copy = cfg_strdup(t);
				if (copy && cfg_push(&s->words, s->n_words, sizeof *s->words) == 0)
					s->words[s->n_words++] = copy;
				else
					free(copy);
			}
			free(text);
		}
		free(path);
	} else if (main_sec && !strcmp(name, "profile")) {
		free(c->profile);
		free(c->profile_from);
		c->profile = cfg_strdup(value);
		c->profile_line = st->line;
		c->profile_from = cfg_strdup(c->path);
	} else if (main_sec && !strcmp(name, "rules")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			char *d = resolve_rel(c->dir, w[i]);
			struct stat sb;
			if (!d)
				continue;
			if (stat(d, &sb) || !S_ISDIR(sb.st_mode))
				SERR(st, "rules folder %s does not exist", d);
			if (cfg_push(&c->rule_dirs, c->n_rule_dirs, sizeof *c->rule_dirs) == 0)
				c->rule_dirs[c->n_rule_dirs++] = d;
			else
				free(d);
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
			if (cfg_push(&c->exclude, c->n_exclude, sizeof *c->exclude) == 0)
				c->exclude[c->n_exclude++] = w[i];
			else
				free(w[i]);
		}
		free(w);
	} else if (main_sec && !strcmp(name, "extensions")) {
		char **w;
		size_t n = split_list(value, &w);
		for (size_t i = 0; i < n; i++) {
			/* ".txt" and "txt" alike; "none" (or a lone ".") = no extension */
			char *e = w[i] + (w[i][0] == '.');
			if (!strcmp(e, "none"))
				*e = '\0';
			if (strchr(e, '.') || strchr(e, '/') || strlen(e) > 32) {
				SERR(st, "extensions: '%s' is not a file extension (txt, md, none or *)", w[i]);
				free(w[i]);
				continue;
			}
			for (char *q = e; *q; q++)
				if (*q >= 'A' && *q <= 'Z')
					*q = (char)(*q - 'A' + 'a');
			memmove(w[i], e, strlen(e) + 1);
			if (cfg_push(&c->exts, c->n_exts, sizeof *c->exts) == 0)
				c->exts[c->n_exts++] = w[i];
			else
				free(w[i]);
		}
		free(w);
	} else if (main_sec && !strcmp(name, "extend")) {
		/* handled before parsing (see load_config) */
	} else {
		SERR(st, "unknown key '%s'%s", name,
		     main_sec ? " (known: select, extend-select, ignore, severity, fail-on, profile, "
		                "variant, rules, words, words-file, exclude, extensions, type, encoding, "
		                "extend)"
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

/* Does a later value of key replace an earlier one in the current
 * section (rather than add to it, as lists do)?  Then giving it twice is
 * worth a warning. */
static int replaces(const ini_state *st, const char *key)
{
	if (st->cur_rule) /* severity, enabled and the check's parameters */
		return 1;
	static const char *const scalars[] = {"fail-on", "type", "encoding", "variant", "profile",
	                                      NULL};
	if (!st->cur_section)
		return 0;
	for (int i = 0; scalars[i]; i++)
		if (!strcmp(key, scalars[i]))
			return 1;
	return 0;
}

static int ini_cb(void *user, const char *sec, const char *name, const char *value)
{
	ini_state *st = user;
	st->line = st->in.line;
	if (strcmp(sec, st->last_section)) {
		unsigned key_line = st->line;
		if (*sec && st->in.section_line)
			st->line = st->in.section_line; /* say where the section starts */
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
				char *glob = cfg_strdup(g);
				size_t gl = glob ? strlen(glob) : 0;
				while (gl && (glob[gl - 1] == '"' || glob[gl - 1] == ' '))
					glob[--gl] = '\0';
				if (!glob) {
					/* out of memory (noted): the section's keys are dropped */
				} else if (!gl || c->n_paths >= 64 || gl > GLOB_MAX) {
					SERR(st, gl > GLOB_MAX ? "glob longer than 1024 bytes in [%.40s…]"
					         : gl ? "too many [path:] sections (64 at most)"
					              : "empty glob in [%s]", sec);
					free(glob);
				} else if (cfg_push(&c->paths, c->n_paths, sizeof *c->paths)) {
					free(glob);
				} else {
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
	if (!st->in.cont && replaces(st, name)) {
		unsigned before = jh_ini_repeat(&st->in, name);
		if (before) {
			char m[160];
			snprintf(m, sizeof m, "key '%s' given again (first on line %u): the later value is used",
			         name, before);
			cfg_warn(st->file, st->line, m);
		}
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

/* Config files, profiles and word files are regular files of at most
 * CONF_MAX bytes: a FIFO would block the open (or never end), a device
 * such as /dev/zero never ends.  The open does not wait for a FIFO's
 * writer (O_NONBLOCK); what it opened is checked before anything is read. */
#define CONF_MAX ((size_t)64 << 20)

/* The whole file, NUL-terminated, or NULL with *why saying what is wrong
 * (with the line of a NUL byte). */
char *cfg_slurp(const char *path, char *why, size_t why_size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0) {
		snprintf(why, why_size, "%s", strerror(errno));
		cfg_note_stat(path, NULL);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	cfg_note_stat(path, &sb); /* as read: a change while reading counts */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(why, why_size, "not a regular file (%s)",
		         S_ISDIR(sb.st_mode) ? "a folder" : S_ISFIFO(sb.st_mode) ? "a FIFO" : "a device");
		close(fd);
		return NULL;
	}
	if ((unsigned long long)sb.st_size > CONF_MAX) {
		snprintf(why, why_size, "larger than %zu MB", CONF_MAX >> 20);
		close(fd);
		return NULL;
	}
	size_t cap = (size_t)sb.st_size + 2, len = 0; /* one more: a file that grew */
	char *data = cfg_malloc(cap);
	if (!data) {
		snprintf(why, why_size, "out of memory");
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t n = read(fd, data + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_size, "%s", strerror(errno));
			free(data);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap - 1) {
			if (cap > CONF_MAX) {
				snprintf(why, why_size, "larger than %zu MB", CONF_MAX >> 20);
				free(data);
				close(fd);
				return NULL;
			}
			char *nd = realloc(data, cap * 2);
			if (!nd) {
				cfg_nomem();
				snprintf(why, why_size, "out of memory");
				free(data);
				close(fd);
				return NULL;
			}
			data = nd;
			cap *= 2;
		}
	}
	close(fd);
	data[len] = '\0';
	if (strlen(data) != len) {
		unsigned line = 1;
		for (const char *q = data; *q; q++)
			line += *q == '\n';
		snprintf(why, why_size, "a NUL byte on line %u: not a text file", line);
		free(data);
		return NULL;
	}
	return data;
}

int parse_ini(const char *path, void *target, int is_profile)
{
	char why[128];
	char *text = cfg_slurp(path, why, sizeof why);
	if (!text) {
		cfg_error(path, 0, "cannot read: %s", why, NULL);
		return 1;
	}
	if (jh_utf8_valid_prefix(text, strlen(text)) != strlen(text)) {
		cfg_error(path, 0, "not valid UTF-8 text%s", "", NULL);
		free(text);
		return 1;
	}
	ini_state st = {.file = path, .last_section = "\x01", .target = target,
	                .is_profile = is_profile};
	int too_long;
	int rc = jh_ini_parse_text(&st.in, text, ini_cb, &st, &too_long);
	if (rc > 0) {
		st.line = (unsigned)rc;
		if (too_long)
			SERR(&st, "line longer than %d bytes", JH_INI_MAX_LINE);
		else
			SERR(&st, "syntax error (expected [section], key = value, or a comment)");
	} else if (rc == -2) { /* inih's buffer: out of memory */
		cfg_nomem();
		st.errors++;
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
	free_list(c->exts, c->n_exts);
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
static char *find_extend(const char *path, unsigned *at)
{
	char why[128];
	char *text = cfg_slurp(path, why, sizeof why);
	if (!text)
		return NULL; /* parse_ini says why */
	char *res = NULL;
	int in_main = 1;
	unsigned line = 0;
	for (char *ln = text, *next; ln; ln = next) {
		next = strchr(ln, '\n');
		if (next)
			*next++ = '\0';
		line++;
		*at = line;
		char *t = trim(ln);
		if (*t == '[')
			in_main = !strncmp(t, "[jinghua]", 9);
		else if (in_main && !strncmp(t, "extend", 6)) {
			char *eq = t + 6;
			while (*eq == ' ' || *eq == '\t')
				eq++;
			if (*eq == '=') {
				res = cfg_strdup(trim(eq + 1));
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
	unsigned ext_line = 0;
	char *ext = find_extend(path, &ext_line);
	char *dir = ext ? cfg_strdup(path) : NULL;
	char *base = NULL, *bdir = NULL;
	if (dir) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		base = resolve_rel(slash ? dir : ".", ext);
		bdir = base ? cfg_strdup(base) : NULL;
	}
	if (bdir) {
		char *save_dir = c->dir;
		char *bs = strrchr(bdir, '/');
		if (bs)
			*bs = '\0';
		c->dir = bdir;
		char why[128];
		char *probe = cfg_slurp(base, why, sizeof why);
		if (!probe) /* named here, so the error is this line's */
			cfg_error(path, ext_line, "extend: cannot read %s: %s", base, why), errors++;
		else {
			cfg_via was = cfg_set_via((cfg_via){"extend", path, ext_line});
			errors += load_into(c, base, depth + 1);
			cfg_set_via(was);
		}
		free(probe);
		c->dir = save_dir;
	}
	free(bdir);
	free(base);
	free(dir);
	free(ext);
	char *save = c->path;
	if (!(c->path = cfg_strdup(path))) {
		c->path = save;
		return errors + 1; /* out of memory (noted) */
	}
	errors += parse_ini(path, c, 0);
	free(c->path);
	c->path = save;
	return errors;
}
