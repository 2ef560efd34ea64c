/* jinghua.h — the whole public API of libjinghua, a linter and fixer for
 * Chinese prose.
 *
 * OWNERSHIP, once for the whole library:
 *  - Every jh_*_new has its jh_*_free.  A jh_ruleset is built by
 *    jh_ruleset_new + jh_ruleset_load_* + jh_ruleset_compile and freed by
 *    jh_ruleset_free.  Once compiled it is never modified, so one rule set can
 *    serve any number of threads at once.  The library's only global state
 *    is a registry of read-only tables (word lists) shared by rule sets
 *    that read the same file, under one lock.
 *  - jh_findings is a plain struct the caller owns (start it with
 *    JH_FINDINGS_INIT).  jh_check appends to it; jh_findings_clear frees what
 *    the list holds and leaves it empty and reusable.  The messages, edits
 *    and replacements of its findings live in the list's own store (equal
 *    strings once): never free() them one by one; change them with
 *    jh_finding_set_message, jh_finding_drop_fix and jh_findings_add_edit.
 *    A finding's rule_id points into the rule set: it lives as long as the
 *    rule set does.
 *  - jh_fix returns the fixed text in a buffer from malloc(); the caller
 *    free()s it.
 *  - jh_diag records handed to a jh_diag_fn are valid only during the call.
 *  - Strings returned by accessors (jh_rule_*) belong to the rule set.
 *
 * Conventions: functions return 0 (JH_OK) or a negative jh_status; byte
 * offsets are 0-based into the text as given; lines and columns are 1-based,
 * columns count characters (code points), end columns are exclusive.
 * Callbacks take their payload last.
 */
#ifndef JINGHUA_H
#define JINGHUA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JH_VERSION "0.1.0"

typedef enum {
	JH_OK = 0,
	JH_ERR_NOMEM = -1,  /* out of memory */
	JH_ERR_IO = -2,     /* a file could not be read */
	JH_ERR_RULES = -3,  /* rule or lexicon file errors (reported through jh_diag_fn) */
	JH_ERR_ARG = -4,    /* bad argument */
	JH_ERR_STATE = -5   /* call not allowed now (e.g. load after compile) */
} jh_status;

const char *jh_strerror(int status);

typedef enum { JH_INFO = 0, JH_WARNING = 1, JH_ERROR = 2 } jh_severity;
typedef enum { JH_SAFE = 0, JH_UNSAFE = 1 } jh_safety;
typedef enum { JH_KIND_REGEX, JH_KIND_LEXICON, JH_KIND_BUILTIN } jh_kind;

const char *jh_severity_name(jh_severity s);
int jh_severity_parse(const char *name, jh_severity *out);  /* 0 or JH_ERR_ARG */

/* ---- Diagnostics: problems in rule files and in the engine's own work ---- */

typedef struct {
	jh_severity severity;  /* JH_ERROR for broken rules; JH_WARNING for skipped work */
	const char *file;      /* file involved, or NULL */
	unsigned line;         /* 1-based, 0 if unknown */
	unsigned column;       /* 1-based, 0 if unknown */
	const char *rule_id;   /* rule involved, or NULL */
	const char *message;
} jh_diag;

typedef void (*jh_diag_fn)(const jh_diag *diag, void *payload);

/* ---- Rule sets ---------------------------------------------------------- */

typedef struct jh_ruleset jh_ruleset;
typedef struct jh_rule jh_rule;

int jh_ruleset_new(jh_ruleset **out);
void jh_ruleset_free(jh_ruleset *rs);

/* Load one rule file (INI, see rules/README.md) or every *.rules file of a
 * folder, in name order.  Lexicons named by the rules are read from the
 * data/ folder beside the rule file.  Errors are reported through diag_fn
 * with file and line; loading goes on with the next rule, and the call
 * returns JH_ERR_RULES if there was any error.  A rule whose id is already
 * loaded replaces the earlier one (so a project folder can override). */
int jh_ruleset_load_file(jh_ruleset *rs, const char *path, jh_diag_fn diag_fn, void *payload);
int jh_ruleset_load_dir(jh_ruleset *rs, const char *dir, jh_diag_fn diag_fn, void *payload);
/* Load rules from a string; name is used in messages and data_dir (may be
 * NULL) is where lexicons are looked up. */
int jh_ruleset_load_string(jh_ruleset *rs, const char *name, const char *text,
                           const char *data_dir, jh_diag_fn diag_fn, void *payload);

/* Compile every loaded rule into the matchers (class scan, one lexicon
 * automaton, JIT regexes).  After this the rule set is read-only. */
int jh_ruleset_compile(jh_ruleset *rs, jh_diag_fn diag_fn, void *payload);

/* Set a parameter of a rule's check (as `key = value` in its section
 * would), before jh_ruleset_compile; it is validated when compiled, and
 * problems with it are reported with line 0.  JH_ERR_ARG if there is no
 * rule with this id, JH_ERR_STATE after compiling. */
int jh_ruleset_set_param(jh_ruleset *rs, const char *id, const char *key, const char *value);

size_t jh_ruleset_count(const jh_ruleset *rs);
const jh_rule *jh_ruleset_rule(const jh_ruleset *rs, size_t index);
/* Index of the rule with this id, or -1. */
long jh_ruleset_find(const jh_ruleset *rs, const char *id);

/* Which rules run: one byte per rule (nonzero = on).  Starts from each
 * rule's own default (`enabled =` in its file).  spec is a comma-separated
 * list of rule ids or family prefixes ("censor", "typo.doubled-char");
 * unknown names are an error (JH_ERR_ARG, the name copied to bad_name). */
int jh_ruleset_default_selection(const jh_ruleset *rs, unsigned char *enabled);
int jh_selection_apply(const jh_ruleset *rs, unsigned char *enabled, const char *spec,
                       int on, char *bad_name, size_t bad_name_size);
/* Narrow a selection to the rules that can give an edit a fix applies:
 * a regex or builtin rule without a fix gives none, nor, in a safe fix
 * (unsafe = 0), one marked unsafe (its findings are never safer than the
 * rule; lexicon rules stay, as their entries carry their own safety).
 * The fixed text is the same; the checks of each fix round cost less. */
void jh_selection_for_fix(const jh_ruleset *rs, unsigned char *enabled, int unsafe);

/* Read-only view of a rule. */
typedef struct {
	const char *id;          /* "family.name" */
	const char *family;      /* "censor", "script", "punct", "layout", "typo", "encoding" */
	jh_kind kind;
	jh_severity severity;
	const char *message;
	const char *description; /* longer explanation, may be NULL */
	int has_fix;
	jh_safety safety;
	int enabled_by_default;
	const char *file;        /* where it was defined */
	unsigned line;
	size_t n_examples;
} jh_rule_info;

void jh_rule_get_info(const jh_rule *rule, jh_rule_info *out);

typedef enum { JH_EXAMPLE_BAD, JH_EXAMPLE_GOOD } jh_example_kind;
typedef struct {
	jh_example_kind kind;
	const char *text;
	const char *fixed;  /* expected text after fixing (bad examples), or NULL */
	unsigned line;      /* line in the rule file */
} jh_example;

int jh_rule_get_example(const jh_rule *rule, size_t i, jh_example *out);

/* ---- Findings ----------------------------------------------------------- */

typedef struct {
	size_t byte_start, byte_end;  /* replaced span */
	char *replacement;            /* UTF-8, owned by the findings list */
} jh_edit;

typedef struct {
	const char *rule_id;      /* points into the rule set */
	long rule_index;          /* index in the rule set, -1 for engine findings */
	jh_severity severity;
	size_t byte_start, byte_end;
	size_t line, column;          /* 1-based; column in characters */
	size_t end_line, end_column;  /* end_column is exclusive */
	size_t display_column;        /* 1-based, East Asian Width */
	char *message;                /* owned by the findings list */
	int has_fix;
	jh_safety safety;
	size_t n_edits;
	jh_edit *edits;               /* owned by the findings list */
} jh_finding;

typedef struct jh_strings jh_strings; /* a list's store of strings and edits */

typedef struct {
	jh_finding *items;
	size_t count, capacity;
	jh_strings *strings;          /* owned; NULL until the first finding */
} jh_findings;

#define JH_FINDINGS_INIT {NULL, 0, 0, NULL}

void jh_findings_clear(jh_findings *list);

/* Give finding f of list another message (copied into the list). */
int jh_finding_set_message(jh_findings *list, jh_finding *f, const char *message);
/* Take a finding's fix away (it stays a finding). */
void jh_finding_drop_fix(jh_finding *f);
/* Add an edit to the fix of list->items[index] (a fix of several edits is
 * applied whole or not at all); the finding gets a fix if it had none. */
int jh_findings_add_edit(jh_findings *list, size_t index, size_t byte_start, size_t byte_end,
                         const char *replacement);

/* ---- Checking ----------------------------------------------------------- */

/* A byte range of the text where findings are not wanted: code in a
 * Markdown file, a region switched off by an inline comment, lines outside
 * a diff.  A finding that overlaps it is dropped (an empty finding, an
 * insertion point, is dropped when start <= point < end). */
typedef struct {
	size_t start, end;
	const unsigned char *rules;       /* per rule (nonzero = dropped here), or NULL for all */
} jh_skip;

typedef struct {
	const unsigned char *enabled;     /* per rule, or NULL for the defaults */
	const signed char *severity;      /* per rule override (-1 = keep), or NULL */
	const char *file;                 /* name for diagnostics, or NULL */
	jh_diag_fn diag_fn;               /* engine warnings (runaway regex, ...) */
	void *payload;
	/* Fields below were added later; zero them (C designated initialisers
	 * or memset) and old callers keep the old behaviour. */
	const jh_skip *skip;              /* ranges sorted by start, or NULL */
	size_t n_skip;
	const char *const *accept;        /* accepted words (names, terms): a finding that lies */
	size_t n_accept;                  /*   inside an occurrence of one is dropped */
	const char *variant;              /* "auto", "hans" or "hant" (NULL = auto): the script
	                                     variant the document is meant to be in, from
	                                     --variant or the config; for the script rules */
} jh_check_options;

/* Check text (any bytes; invalid UTF-8 becomes encoding.invalid-utf8
 * findings) and append the findings to out, sorted by position, duplicates
 * merged, with lines and columns filled in, less those dropped by
 * opts->skip and opts->accept.  opts may be NULL. */
int jh_check(const jh_ruleset *rs, const char *text, size_t len,
             const jh_check_options *opts, jh_findings *out);

/* Fill line/column/display_column of findings whose byte offsets are set
 * (used by jh_check; exposed for reporters that add their own findings). */
void jh_findings_locate(jh_findings *list, const char *text, size_t len);

/* ---- Fixing ------------------------------------------------------------- */

typedef struct {
	unsigned rounds;            /* check/apply rounds done */
	size_t edits_applied;
	int converged;              /* 0 if still changing after max rounds */
	char unstable_rules[256];   /* ids still producing edits, comma separated */
} jh_fix_report;

#define JH_FIX_MAX_ROUNDS 8

/* Apply fixes repeatedly until nothing changes (at most JH_FIX_MAX_ROUNDS
 * rounds).  Safe fixes only, or safe and unsafe when unsafe is nonzero.
 * Never applies two overlapping fixes in one round.  *out is malloc'd and
 * NUL-terminated; *out_len excludes the NUL.  report may be NULL. */
int jh_fix(const jh_ruleset *rs, const char *text, size_t len,
           const jh_check_options *opts, int unsafe,
           char **out, size_t *out_len, jh_fix_report *report);

/* Apply the fixes of the given findings once (those of the chosen safety,
 * skipping any that overlap an earlier one).  Returns JH_OK and sets
 * *n_applied. */
int jh_apply_fixes(const char *text, size_t len, const jh_findings *findings,
                   int unsafe, char **out, size_t *out_len, size_t *n_applied);

/* ---- Rule self-tests ---------------------------------------------------- */

/* Run a rule's examples: each bad example must give a finding of this rule
 * (and, if it has an expected fix, fixing with this rule alone must give
 * it); each good example must give none.  Failures are reported through
 * diag_fn.  Returns the number of failures (>= 0) or a negative status. */
int jh_rule_run_examples(const jh_ruleset *rs, size_t rule_index,
                         jh_diag_fn diag_fn, void *payload);

/* ---- Text utilities ----------------------------------------------------- */

/* Length of the longest valid UTF-8 prefix of s. */
size_t jh_utf8_valid_prefix(const char *s, size_t len);
/* Display width of s (East Asian Width; invalid bytes count 1). */
size_t jh_display_width(const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
