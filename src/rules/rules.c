/* rules.c — reading rule files (INI, parsed by inih) into jh_rule records.
 *
 * Format (one section per rule, see rules/README.md):
 *   [family.name]
 *   kind = regex | lexicon | builtin
 *   message = ...              {match} {fix} {note} are filled in
 *   severity = error | warning | info
 *   pattern / trigger / lead   (regex)   lexicon = FILE.tsv   check = NAME
 *   fix = TEMPLATE             safety = safe | unsafe
 *   foreign = sentence | kana | document | never   (Japanese and Korean text)
 *   bad = ... / fixed = ...    good = ...
 * Any other key is a parameter of the rule's check, validated when compiled.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "inifile.h"
#include "rulecache.h"
#include "rules.h"
#include "utf8.h"

static const char *const families[] = {"censor", "script", "punct", "layout", "typo", "encoding", NULL};

void jh_rule_free(jh_rule *r)
{
	if (!r)
		return;
	if (r->mapped) { /* strings in the mapped cache file, but for parameters set later */
		for (size_t i = r->n_params_mapped; i < r->n_params; i++) {
			free(r->params[i].key);
			free(r->params[i].value);
		}
		free(r->params);
		free(r->examples);
		free(r);
		return;
	}
	free(r->id);
	free(r->family);
	free(r->message);
	free(r->description);
	free(r->fix);
	free(r->map);
	free(r->pattern);
	free(r->trigger);
	free(r->trigger_words);
	free(r->near_words);
	free(r->lexicon);
	free(r->data_dir);
	free(r->check);
	for (size_t i = 0; i < r->n_params; i++) {
		free(r->params[i].key);
		free(r->params[i].value);
	}
	free(r->params);
	for (size_t i = 0; i < r->n_examples; i++) {
		free(r->examples[i].text);
		free(r->examples[i].fixed);
	}
	free(r->examples);
	free(r->file);
	free(r);
}

int jh_rule_add_param(jh_rule *r, const char *key, const char *value, unsigned line)
{
	if (jh_grow((void **)&r->params, &r->cap_params, r->n_params + 1, sizeof *r->params))
		return JH_ERR_NOMEM;
	jh_param *p = &r->params[r->n_params];
	p->key = jh_strdup(key);
	p->value = jh_strdup(value);
	p->line = line;
	if (!p->key || !p->value) {
		free(p->key);
		free(p->value);
		return JH_ERR_NOMEM;
	}
	r->n_params++;
	return JH_OK;
}

const char *jh_rule_param(const jh_rule *r, const char *key, unsigned *line)
{
	/* Last definition wins, as for every other key. */
	for (size_t i = r->n_params; i-- > 0;)
		if (strcmp(r->params[i].key, key) == 0) {
			if (line)
				*line = r->params[i].line;
			return r->params[i].value;
		}
	return NULL;
}

int jh_foreign_parse(const char *value, jh_foreign *out)
{
	static const char *const names[] = {"never", "document", "kana", "sentence"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(value, names[i])) {
			*out = (jh_foreign)i;
			return 0;
		}
	return -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *jh_unescape(const char *s, int raw, const char **err)
{
	jh_buf b = {0};
	*err = NULL;
	if (jh_buf_reserve(&b, strlen(s)))
		goto nomem;
	for (const char *p = s; *p; p++) {
		if (*p != '\\') { /* the text up to the next escape, in one piece */
			size_t run = strcspn(p, "\\");
			if (jh_buf_append(&b, p, run))
				goto nomem;
			p += run - 1;
			continue;
		}
		p++;
		char c;
		switch (*p) {
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		case 's': c = ' '; break;
		case '\\': c = '\\'; break;
		case 'x': {
			/* a raw byte: only for examples of invalid input */
			if (!raw) {
				*err = "\\xHH (a raw byte) is allowed only in examples";
				goto fail;
			}
			int h1 = hexval(p[1]), h2 = h1 < 0 ? -1 : hexval(p[2]);
			if (h1 < 0 || h2 < 0) {
				*err = "\\x must be followed by two hex digits";
				goto fail;
			}
			if (jh_buf_putc(&b, (char)(h1 * 16 + h2)))
				goto nomem;
			p += 2;
			continue;
		}
		case 'u': {
			if (p[1] != '{') {
				*err = "\\u must be followed by {HEX}";
				goto fail;
			}
			long v = 0;
			int digits = 0;
			for (p += 2; *p && *p != '}'; p++, digits++) {
				int h = hexval(*p);
				if (h < 0 || digits >= 6) {
					*err = "bad hex digits in \\u{...}";
					goto fail;
				}
				v = v * 16 + h;
			}
			if (*p != '}' || digits == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
				*err = "\\u{...} is not a Unicode scalar value";
				goto fail;
			}
			char enc[4];
			if (jh_buf_append(&b, enc, jh_utf8_encode((int32_t)v, enc)))
				goto nomem;
			continue;
		}
		default:
			*err = "unknown escape (use \\n \\t \\r \\s \\\\ \\u{HEX} \\xHH)";
			goto fail;
		}
		if (jh_buf_putc(&b, c))
			goto nomem;
	}
	if (jh_buf_terminate(&b))
		goto nomem;
	return b.data;
nomem:
	*err = "out of memory";
fail:
	jh_buf_free(&b);
	return NULL;
}

/* ---- INI loading ---- */

typedef struct {
	jh_ruleset *rs;
	const char *file;
	const char *data_dir;
	jh_diag_fn diag_fn;
	void *payload;
	jh_ini_text in;      /* the reader: lines, continuations, [section] lines */
	unsigned line;       /* the line errors are reported on (in.line, or a rule's) */
	jh_rule *cur;        /* rule being read, owned by rs once pushed */
	char last_key[32];
	int errors;
	int nomem;           /* the handler stopped inih: memory ran out */
	unsigned cur_section_line; /* the [section] line the current rule came from */
} loader;

#define LWARN(ld, ...) \
	jh_report((ld)->diag_fn, (ld)->payload, JH_WARNING, (ld)->file, (ld)->line, 0, \
	          (ld)->cur ? (ld)->cur->id : NULL, __VA_ARGS__)

/* A key that may appear once a rule (examples may repeat): say so when it
 * comes again. */
static void note_key(loader *ld, const char *name)
{
	if (!strcmp(name, "bad") || !strcmp(name, "good") || !strcmp(name, "fixed") ||
	    !strcmp(name, "bad-file") || !strcmp(name, "good-file"))
		return;
	unsigned before = jh_ini_repeat(&ld->in, name);
	if (before)
		LWARN(ld, "key '%s' given again (first on line %u): the later value is used", name,
		      before);
}

#define LERR(ld, ...) \
	do { \
		(ld)->errors++; \
		jh_report((ld)->diag_fn, (ld)->payload, JH_ERROR, (ld)->file, (ld)->line, 0, \
		          (ld)->cur ? (ld)->cur->id : NULL, __VA_ARGS__); \
	} while (0)

static int is_family(const char *f, size_t n)
{
	for (int i = 0; families[i]; i++)
		if (strlen(families[i]) == n && memcmp(families[i], f, n) == 0)
			return 1;
	return 0;
}

static int valid_id(const char *id)
{
	const char *dot = strchr(id, '.');
	if (!dot || dot == id || !dot[1] || !is_family(id, (size_t)(dot - id)))
		return 0;
	for (const char *p = dot + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
			return 0;
	return 1;
}

static int push_rule(loader *ld, const char *section)
{
	jh_rule *r = calloc(1, sizeof *r);
	if (!r)
		return JH_ERR_NOMEM;
	r->id = jh_strdup(section);
	r->file = jh_strdup(ld->file);
	r->data_dir = jh_strdup(ld->data_dir ? ld->data_dir : ".");
	r->cache_dir = ld->rs->cache_dir;
	r->line = ld->in.section_line ? ld->in.section_line : ld->line;
	r->load_id = ld->rs->loads;
	r->severity = JH_WARNING;
	r->enabled_by_default = 1;
	r->regex_slot = r->builtin_slot = -1;
	if (!r->id || !r->file || !r->data_dir) {
		jh_rule_free(r);
		return JH_ERR_NOMEM;
	}
	const char *dot = strchr(section, '.');
	r->family = jh_strndup(section, dot ? (size_t)(dot - section) : strlen(section));
	if (!r->family) {
		jh_rule_free(r);
		return JH_ERR_NOMEM;
	}
	ld->cur = r;
	if (!valid_id(section)) {
		unsigned at = ld->line;
		ld->line = r->line; /* the error is about the [section] line */
		LERR(ld, "bad rule id [%s]: must be family.name with family one of censor, script, "
		         "punct, layout, typo, encoding and name of a-z 0-9 - .", section);
		ld->line = at;
		r->broken = 1;
	}
	ld->cur_section_line = r->line;
	/* A later definition of the same id replaces the earlier one: on
	 * purpose from another file (an override), by mistake in the same. */
	long at = jh_ruleset_find(ld->rs, section);
	if (at >= 0 && ld->rs->rules[at]->load_id == ld->rs->loads) {
		unsigned here = ld->line;
		ld->line = r->line;
		LWARN(ld, "rule [%s] defined again (first on line %u): the later definition is used",
		      section, ld->rs->rules[at]->line);
		ld->line = here;
	}
	if (at >= 0) {
		jh_rule_free(ld->rs->rules[at]);
		ld->rs->rules[at] = r;
		if (ld->rs->log)
			jh_rc_log_push(ld->rs->log, (size_t)at);
		return JH_OK;
	}
	if (jh_grow((void **)&ld->rs->rules, &ld->rs->cap, ld->rs->count + 1, sizeof *ld->rs->rules)) {
		jh_rule_free(r);
		ld->cur = NULL;
		return JH_ERR_NOMEM;
	}
	ld->rs->rules[ld->rs->count] = r;
	if (jh_ruleset_index_add(ld->rs, ld->rs->count)) {
		jh_rule_free(r);
		ld->cur = NULL;
		return JH_ERR_NOMEM;
	}
	if (ld->rs->log)
		jh_rc_log_push(ld->rs->log, ld->rs->count);
	ld->rs->count++;
	return JH_OK;
}

static int set_string(loader *ld, char **slot, const char *value)
{
	free(*slot);
	*slot = jh_strdup(value);
	return *slot ? JH_OK : JH_ERR_NOMEM;
}

/* Append a continuation line to a string value (multi-line values). */
static int append_line(char **slot, const char *value, const char *sep)
{
	size_t a = *slot ? strlen(*slot) : 0, b = strlen(value), s = strlen(sep);
	char *p = realloc(*slot, a + s + b + 1);
	if (!p)
		return JH_ERR_NOMEM;
	memcpy(p + a, sep, s);
	memcpy(p + a + s, value, b + 1);
	*slot = p;
	return JH_OK;
}


/* Take ownership of text as an example of r. */
static int push_example(loader *ld, jh_rule *r, jh_example_kind kind, char *text)
{
	if (jh_utf8_valid_prefix(text, strlen(text)) != strlen(text)) {
		/* Only examples of encoding rules may hold invalid bytes (\xHH). */
		if (strcmp(r->family, "encoding") != 0) {
			LERR(ld, "example is not valid UTF-8");
			free(text);
			return JH_OK;
		}
	}
	if (jh_grow((void **)&r->examples, &r->cap_examples, r->n_examples + 1, sizeof *r->examples)) {
		free(text);
		return JH_ERR_NOMEM;
	}
	jh_example_def *e = &r->examples[r->n_examples++];
	e->kind = kind;
	e->text = text;
	e->fixed = NULL;
	e->line = ld->line;
	return JH_OK;
}

static int add_example(loader *ld, jh_rule *r, jh_example_kind kind, const char *value)
{
	const char *err;
	char *text = jh_unescape(value, 1, &err);
	if (!text && JH_UNESCAPE_NOMEM(err))
		return JH_ERR_NOMEM;
	if (!text) {
		LERR(ld, "%s", err);
		return JH_OK;
	}
	return push_example(ld, r, kind, text);
}

/* bad-file / good-file = NAME: an example too long for a rule line (a
 * document-level check needs a whole chapter), read from data/NAME. */
static int add_example_file(loader *ld, jh_rule *r, jh_example_kind kind, const char *value)
{
	jh_buf path = {0};
	if (jh_buf_puts(&path, ld->data_dir ? ld->data_dir : ".") || jh_buf_putc(&path, '/') ||
	    jh_buf_puts(&path, value)) {
		jh_buf_free(&path);
		return JH_ERR_NOMEM;
	}
	size_t len;
	char *text = jh_read_file(path.data, &len);
	if (ld->rs->log) /* its state is part of the cached load's */
		jh_rc_log_file(ld->rs->log, path.data);
	if (!text)
		LERR(ld, "cannot read example file %s", path.data);
	else if (strlen(text) != len) {
		LERR(ld, "example file %s holds a NUL byte", path.data);
		free(text);
		text = NULL;
	}
	jh_buf_free(&path);
	return text ? push_example(ld, r, kind, text) : JH_OK;
}

/* map = ,，.。  — pairs of characters: the fix text is rewritten through it,
 * so one rule can turn each of several marks into its own counterpart. */
static int parse_map(loader *ld, jh_rule *r, const char *value)
{
	const char *err;
	char *v = jh_unescape(value, 0, &err);
	if (!v && JH_UNESCAPE_NOMEM(err))
		return JH_ERR_NOMEM;
	if (!v) {
		LERR(ld, "map: %s", err);
		return JH_OK;
	}
	size_t len = strlen(v), n = 0;
	int32_t *cps = malloc((len + 1) * sizeof *cps);
	if (!cps) {
		free(v);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < len;) {
		int32_t cp;
		i += jh_utf8_decode((const unsigned char *)v + i, len - i, &cp);
		cps[n++] = cp;
	}
	free(v);
	if (n == 0 || n % 2) {
		LERR(ld, "map must list pairs of characters (from, to, from, to, ...)");
		free(cps);
		r->broken = 1;
		return JH_OK;
	}
	free(r->map);
	r->map = cps;
	r->n_map = n / 2;
	return JH_OK;
}

static int handle_key(loader *ld, jh_rule *r, const char *name, const char *value)
{
	int cont = ld->in.cont && strcmp(name, ld->last_key) == 0;
	if (cont) {
		/* Only free text and patterns may span lines. */
		if (!strcmp(name, "pattern"))
			return append_line(&r->pattern, value, "");
		if (!strcmp(name, "description"))
			return append_line(&r->description, value, " ");
		if (!strcmp(name, "message"))
			return append_line(&r->message, value, "");
		if (!strcmp(name, "trigger-words"))
			return append_line(&r->trigger_words, value, " ");
		if (!strcmp(name, "near-words"))
			return append_line(&r->near_words, value, " ");
		LERR(ld, "key '%s' cannot continue on an indented line", name);
		return JH_OK;
	}
	jh_copy_str(ld->last_key, sizeof ld->last_key, name);
	note_key(ld, name);

	if (!strcmp(name, "kind")) {
		if (!strcmp(value, "regex"))
			r->kind = JH_KIND_REGEX;
		else if (!strcmp(value, "lexicon"))
			r->kind = JH_KIND_LEXICON;
		else if (!strcmp(value, "builtin"))
			r->kind = JH_KIND_BUILTIN;
		else {
			LERR(ld, "kind must be regex, lexicon or builtin, not '%s'", value);
			r->broken = 1;
			return JH_OK;
		}
		r->kind_set = 1;
		return JH_OK;
	}
	if (!strcmp(name, "severity")) {
		if (jh_severity_parse(value, &r->severity))
			LERR(ld, "severity must be error, warning or info, not '%s'", value);
		return JH_OK;
	}
	if (!strcmp(name, "safety")) {
		if (!strcmp(value, "safe"))
			r->safety = JH_SAFE;
		else if (!strcmp(value, "unsafe"))
			r->safety = JH_UNSAFE;
		else {
			LERR(ld, "safety must be safe or unsafe, not '%s'", value);
			return JH_OK;
		}
		r->safety_set = 1;
		return JH_OK;
	}
	if (!strcmp(name, "enabled")) {
		if (jh_ini_bool(value, &r->enabled_by_default))
			LERR(ld, "enabled must be true or false, not '%s'", value);
		return JH_OK;
	}
	if (!strcmp(name, "foreign")) {
		if (jh_foreign_parse(value, &r->foreign))
			LERR(ld, "foreign must be sentence, kana, document or never, not '%s'", value);
		return JH_OK;
	}
	if (!strcmp(name, "lead")) {
		char *end;
		unsigned long v = strtoul(value, &end, 10);
		if (!*value || *end || v > 64)
			LERR(ld, "lead must be a number of characters from 0 to 64");
		else
			r->lead = (unsigned)v;
		return JH_OK;
	}
	if (!strcmp(name, "near")) {
		char *end;
		unsigned long v = strtoul(value, &end, 10);
		if (!*value || *end || v < 1 || v > 1000)
			LERR(ld, "near must be a number of characters from 1 to 1000");
		else
			r->near = (unsigned)v;
		return JH_OK;
	}
	if (!strcmp(name, "fix")) {
		const char *err;
		char *v = jh_unescape(value, 0, &err);
		if (!v && JH_UNESCAPE_NOMEM(err))
			return JH_ERR_NOMEM;
		if (!v) {
			LERR(ld, "fix: %s", err);
			r->broken = 1;
			return JH_OK;
		}
		free(r->fix);
		r->fix = v;
		r->has_fix = 1;
		return JH_OK;
	}
	if (!strcmp(name, "no-fix")) {
		/* a lexicon whose matches cannot be repaired (口口: the word is
		 * lost) but whose guards need the later columns, so the second
		 * one cannot just be missing */
		if (strcmp(value, "1"))
			LERR(ld, "no-fix must be 1");
		else
			r->no_fix = 1;
		return JH_OK;
	}
	if (!strcmp(name, "map"))
		return parse_map(ld, r, value);
	if (!strcmp(name, "bad"))
		return add_example(ld, r, JH_EXAMPLE_BAD, value);
	if (!strcmp(name, "good"))
		return add_example(ld, r, JH_EXAMPLE_GOOD, value);
	if (!strcmp(name, "bad-file"))
		return add_example_file(ld, r, JH_EXAMPLE_BAD, value);
	if (!strcmp(name, "good-file"))
		return add_example_file(ld, r, JH_EXAMPLE_GOOD, value);
	if (!strcmp(name, "fixed")) {
		jh_example_def *e = r->n_examples ? &r->examples[r->n_examples - 1] : NULL;
		if (!e || e->kind != JH_EXAMPLE_BAD || e->fixed) {
			LERR(ld, "'fixed' must follow the 'bad' example it belongs to");
			return JH_OK;
		}
		const char *err;
		if (!(e->fixed = jh_unescape(value, 1, &err)) && JH_UNESCAPE_NOMEM(err))
			return JH_ERR_NOMEM;
		if (!e->fixed)
			LERR(ld, "fixed: %s", err);
		return JH_OK;
	}
	struct {
		const char *key;
		char **slot;
	} strings[] = {
		{"message", &r->message}, {"description", &r->description}, {"pattern", &r->pattern},
		{"trigger", &r->trigger}, {"trigger-words", &r->trigger_words},
		{"near-words", &r->near_words},
		{"lexicon", &r->lexicon}, {"check", &r->check},
	};
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		if (!strcmp(name, strings[i].key))
			return set_string(ld, strings[i].slot, value);

	/* Anything else is a parameter; the check it belongs to validates it. */
	return jh_rule_add_param(r, name, value, ld->line);
}

static int ini_cb(void *user, const char *section, const char *name, const char *value)
{
	loader *ld = user;
	ld->line = ld->in.line;
	if (!*section) {
		LERR(ld, "key '%s' outside any [family.name] section", name);
		return 1;
	}
	/* inih reports a section only through its keys. */
	/* the same [section] twice in a row reaches us as one section:
	 * a new header line tells them apart */
	if (!ld->cur || strcmp(ld->cur->id, section) != 0 ||
	    (ld->in.section_line && ld->in.section_line != ld->cur_section_line)) {
		if (push_rule(ld, section))
			return !(ld->nomem = 1);
		ld->last_key[0] = '\0';
	}
	if (handle_key(ld, ld->cur, name, value) == JH_OK)
		return 1;
	ld->nomem = 1; /* the only way it fails */
	return 0;
}

/* Checks that need the whole section: required keys per kind. */
static void finish_rules(loader *ld)
{
	/* Every rule this load defined, overrides of earlier rules included. */
	for (size_t i = 0; i < ld->rs->count; i++) {
		jh_rule *r = ld->rs->rules[i];
		if (r->load_id != ld->rs->loads)
			continue;
		unsigned save = ld->line;
		jh_rule *save_cur = ld->cur;
		ld->line = r->line;
		ld->cur = r;
		if (!r->kind_set) {
			LERR(ld, "missing 'kind' (regex, lexicon or builtin)");
			r->broken = 1;
		} else if (r->kind == JH_KIND_REGEX && !r->pattern) {
			LERR(ld, "regex rule without 'pattern'");
			r->broken = 1;
		} else if (r->kind == JH_KIND_LEXICON && !r->lexicon) {
			LERR(ld, "lexicon rule without 'lexicon' file");
			r->broken = 1;
		} else if (r->kind == JH_KIND_BUILTIN && !r->check) {
			LERR(ld, "builtin rule without 'check'");
			r->broken = 1;
		}
		if (!r->message) {
			LERR(ld, "missing 'message'");
			r->broken = 1;
		}
		if (r->no_fix && r->kind != JH_KIND_LEXICON) {
			LERR(ld, "no-fix is for lexicon rules (leave out 'fix' instead)");
			r->broken = 1;
		}
		if (r->kind == JH_KIND_LEXICON && !r->no_fix)
			r->has_fix = 1; /* the fixes are the lexicon's second column */
		if (r->has_fix && !r->safety_set) {
			LERR(ld, "a rule with a fix must say 'safety = safe' or 'safety = unsafe'");
			r->broken = 1;
		}
		int bad = 0, good = 0;
		for (size_t k = 0; k < r->n_examples; k++)
			r->examples[k].kind == JH_EXAMPLE_BAD ? bad++ : good++;
		if (!bad || !good) {
			LERR(ld, "every rule needs at least one 'bad' and one 'good' example");
		}
		ld->line = save;
		ld->cur = save_cur;
	}
}

static int load_text(jh_ruleset *rs, const char *name, const char *text, const char *data_dir,
                     jh_diag_fn diag_fn, void *payload)
{
	if (rs->compiled)
		return JH_ERR_STATE;
	loader ld = {rs, name, data_dir, diag_fn, payload};
	rs->loads++;
	int too_long;
	int rc = jh_ini_parse_text(&ld.in, text, ini_cb, &ld, &too_long);
	if (rc == -2 || ld.nomem) /* the rules read so far are the rule set's, not checked */
		return JH_ERR_NOMEM;
	if (rc > 0) {
		/* Our handler never fails but on memory, so this is a line inih could
		 * not read; inih names only the first such line. */
		ld.line = (unsigned)rc;
		ld.cur = NULL;
		if (too_long)
			LERR(&ld, "line longer than %d bytes", JH_INI_MAX_LINE);
		else
			LERR(&ld, "syntax error (expected [family.name], key = value, or a comment)");
	}
	finish_rules(&ld);
	return ld.errors ? JH_ERR_RULES : JH_OK;
}

int jh_ruleset_load_string(jh_ruleset *rs, const char *name, const char *text,
                           const char *data_dir, jh_diag_fn diag_fn, void *payload)
{
	return load_text(rs, name, text, data_dir, diag_fn, payload);
}

int jh_ruleset_load_file(jh_ruleset *rs, const char *path, jh_diag_fn diag_fn, void *payload)
{
	size_t len;
	char *text = jh_read_file(path, &len);
	if (!text) {
		int err = errno;
		jh_report(diag_fn, payload, JH_ERROR, path, 0, 0, NULL, "cannot read rule file: %s",
		          strerror(err));
		return err == ENOMEM ? JH_ERR_NOMEM : JH_ERR_IO;
	}
	if (strlen(text) != len || jh_utf8_valid_prefix(text, len) != len) {
		size_t at = jh_utf8_valid_prefix(text, len);
		if (strlen(text) < at)
			at = strlen(text);
		unsigned line = 1;
		for (size_t i = 0; i < at; i++)
			line += text[i] == '\n';
		jh_report(diag_fn, payload, JH_ERROR, path, line, 0, NULL,
		          "rule file is not valid UTF-8 text (byte %zu)", at);
		free(text);
		return JH_ERR_RULES;
	}
	/* Lexicons live in data/ beside the rule file. */
	const char *slash = strrchr(path, '/');
	jh_buf dir = {0};
	int rc = slash ? jh_buf_append(&dir, path, (size_t)(slash - path)) : jh_buf_puts(&dir, ".");
	if (rc == JH_OK)
		rc = jh_buf_puts(&dir, "/data");
	if (rc == JH_OK)
		rc = load_text(rs, path, text, dir.data, diag_fn, payload);
	jh_buf_free(&dir);
	free(text);
	return rc;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A diagnostic function that counts what it passes on: a load that
 * reported anything is not cached. */
typedef struct {
	jh_diag_fn fn;
	void *payload;
	unsigned *count;
} counted;

static void count_diag(const jh_diag *d, void *payload)
{
	counted *c = payload;
	(*c->count)++;
	if (c->fn)
		c->fn(d, c->payload);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int jh_ruleset_load_dir(jh_ruleset *rs, const char *dir, jh_diag_fn diag_fn, void *payload)
{
	DIR *d = opendir(dir);
	if (!d) {
		int err = errno;
		jh_report(diag_fn, payload, JH_ERROR, dir, 0, 0, NULL, "cannot open rules folder: %s",
		          strerror(err));
		return err == ENOMEM ? JH_ERR_NOMEM : JH_ERR_IO;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = JH_OK;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 7 || strcmp(e->d_name + l - 6, ".rules") != 0 || e->d_name[0] == '.')
			continue;
		if (jh_grow((void **)&names, &cap, n + 1, sizeof *names) ||
		    !(names[n] = jh_strdup(e->d_name))) {
			rc = JH_ERR_NOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 1) /* names is NULL in a folder without rule files: not for qsort */
		qsort(names, n, sizeof *names, cmp_str);
	/* the folder as read before, from the cache folder (rulecache.c) */
	uint64_t ident = 0;
	int cached = rc == JH_OK && n && rs->cache_dir && !rs->compiled && !rs->log &&
	             jh_rc_ident(dir, names, n, &ident) == 0;
	if (cached) {
		int c = jh_rc_load(rs, dir, n, ident);
		if (c != 1) {
			free_names(names, n);
			return c;
		}
	}
	jh_rc_log log = {0};
	counted cd = {diag_fn, payload, &log.diags};
	unsigned loads0 = rs->loads;
	if (cached) {
		rs->log = &log;
		diag_fn = count_diag;
		payload = &cd;
	}
	for (size_t i = 0; i < n; i++) {
		if (rc != JH_ERR_NOMEM) {
			jh_buf p = {0};
			if (jh_buf_puts(&p, dir) || jh_buf_putc(&p, '/') || jh_buf_puts(&p, names[i])) {
				rc = JH_ERR_NOMEM;
			} else {
				int r = jh_ruleset_load_file(rs, p.data, diag_fn, payload);
				if (r && rc == JH_OK)
					rc = r;
				if (r == JH_ERR_NOMEM)
					rc = r;
			}
			jh_buf_free(&p);
		}
	}
	if (cached) {
		rs->log = NULL;
		uint64_t after;
		/* stored only when the files did not change while they were read */
		if (rc == JH_OK && jh_rc_ident(dir, names, n, &after) == 0 && after == ident)
			jh_rc_store(rs, dir, n, loads0, ident, &log);
		jh_rc_log_free(&log);
	}
	free_names(names, n);
	return rc;
}
