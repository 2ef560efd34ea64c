/* rules.h — the rule model shared by the loader, the compiler and the
 * matchers.  A rule is plain data read from a rules/NAME.rules INI file. */
#ifndef JH_RULES_H
#define JH_RULES_H

#include "jinghua.h"
#include "util.h"

typedef struct {
	char *key, *value;
	unsigned line;
} jh_param;

typedef struct {
	jh_example_kind kind;
	char *text;
	char *fixed;
	unsigned line;
} jh_example_def;

/* Where a Japanese or Korean span silences a rule (`foreign =`, applied by
 * foreign.c): never; only in a foreign document; also in a sentence marked
 * by kana or hangul; in any foreign sentence, one Japanese by its kanji
 * forms alone included. */
typedef enum { JH_FOREIGN_NEVER, JH_FOREIGN_DOCUMENT, JH_FOREIGN_KANA, JH_FOREIGN_SENTENCE } jh_foreign;

struct jh_rule {
	char *id;
	char *family;
	jh_kind kind;
	int kind_set;
	jh_severity severity;
	char *message;
	char *description;
	int has_fix;
	int no_fix;           /* lexicon: `no-fix = 1`, its second column is not a fix */
	char *fix;            /* replacement template (regex: $0, $1, ${name}) */
	int32_t *map;         /* fix character map: from, to, from, to, ... */
	size_t n_map;         /* number of pairs */
	jh_safety safety;
	int safety_set;
	int enabled_by_default;
	jh_foreign foreign;   /* where Japanese and Korean text silences it */
	char *pattern;        /* regex */
	char *trigger;        /* regex: characters where a match can start */
	unsigned lead;        /* regex: match may start this many characters before a trigger */
	char *trigger_words;  /* regex: words, one of which starts at a trigger it runs at */
	char *near_words;     /* regex: words, one of which is near a trigger it runs at */
	unsigned near;        /* regex: how near, in characters after the trigger */
	char *lexicon;        /* lexicon: file name under data/ */
	char *data_dir;       /* folder lexicons are read from */
	const char *cache_dir; /* the rule set's cache folder (owned by it), or NULL */
	char *check;          /* builtin: check name */
	jh_param *params;
	size_t n_params, cap_params;
	jh_example_def *examples;
	size_t n_examples, cap_examples;
	char *file;
	unsigned line;
	int broken;           /* had a load error; not compiled */
	unsigned load_id;     /* which load defined it (to validate overrides) */
	/* from the cache folder (rulecache.c): the strings above, the first
	 * n_params_mapped parameters' and the examples' point into the rule
	 * set's mapped cache file; the examples are decoded when first asked
	 * for (jh_rule_examples), from lazy_ex */
	int mapped;
	size_t n_params_mapped;
	const void *lazy_ex;
	const char *lazy_pool;
	/* compiled */
	long regex_slot;      /* index in the regex matcher, or -1 */
	long builtin_slot;    /* index in the builtin table, or -1 */
};

struct jh_regexes;
struct jh_lexicon;
struct jh_builtins;
struct jh_triggers;

struct jh_ruleset {
	jh_rule **rules;
	size_t count, cap;
	unsigned loads;       /* number of load calls so far */
	int compiled;
	struct jh_regexes *regexes;
	struct jh_lexicon *lexicon;
	struct jh_builtins *builtins;
	struct jh_interest *interest; /* built by jh_ruleset_compile */
	char *cache_dir;      /* compiled tables are cached here, or NULL */
	/* Rule ids by hash (open addressing; slot = rule index + 1, 0 empty):
	 * a load of 100,000 rules looked each new id up among all before. */
	size_t *by_id;
	size_t by_id_cap;
	struct jh_rc_log *log; /* set while a folder's load is recorded for the cache */
	struct jh_rc_map *maps; /* cache files the rules point into */
	size_t n_maps;
};

void jh_rule_free(jh_rule *r);
/* r's examples (r->n_examples of them), decoded from the cache file the
 * first time; NULL when memory ran out for that. */
const jh_example_def *jh_rule_examples(const jh_rule *r);
/* Enter rules[i] into the id index (its id must not be there yet). */
int jh_ruleset_index_add(jh_ruleset *rs, size_t i);
/* The jh_foreign a `foreign =` value names: 0, or -1 for none. */
int jh_foreign_parse(const char *value, jh_foreign *out);
/* Append a parameter (copied; line 0 when not from a file): the last of a
 * key wins.  JH_OK or JH_ERR_NOMEM. */
int jh_rule_add_param(jh_rule *r, const char *key, const char *value, unsigned line);
/* Value of a parameter, or NULL; *line gets its line if found. */
const char *jh_rule_param(const jh_rule *r, const char *key, unsigned *line);

/* Expand \n \t \s \\ \u{XXXX} escapes (and \xHH raw bytes when raw is
 * nonzero: examples of invalid input) of an example or fix value.  Returns
 * NULL and sets *err on a bad escape. */
char *jh_unescape(const char *s, int raw, const char **err);
/* Was it memory that jh_unescape lacked (not a bad escape)? */
#define JH_UNESCAPE_NOMEM(err) ((err) && !strcmp((err), "out of memory"))

#endif
