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
 *  - A jh_config owns the rule sets and jh_settings it hands out; a
 *    jh_document owns its findings, texts and fixed bytes, and points into
 *    the bytes it was given (keep them until jh_document_free).  Documents
 *    of one configuration may be checked in any number of threads at once.
 *  - jh_diag records handed to a jh_diag_fn are valid only during the call.
 *  - Strings returned by accessors (jh_rule_*) belong to the rule set.
 *
 * A FILE AS THE COMMAND LINE SEES IT: a configuration (found upward from the
 * file, like `jinghua check`), the file's settings, then the document call:
 *
 *     jh_config_options co = JH_CONFIG_OPTIONS_INIT;
 *     co.diag_fn = print_diag;                 // config and rule errors
 *     jh_config *cfg;
 *     const jh_settings *st;
 *     if (jh_config_open(&co, &cfg) || jh_config_settings(cfg, path, &st))
 *         return 2;
 *     jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
 *     o.settings = st;
 *     o.name = path;                           // *.md is read as Markdown
 *     jh_document *doc;
 *     if (jh_document_fix(bytes, len, &o, &doc) == JH_OK) {
 *         size_t n;
 *         const char *fixed = jh_document_fixed(doc, &n, NULL);
 *         if (fixed)                           // in the file's own encoding
 *             fwrite(fixed, 1, n, stdout);
 *         const jh_findings *fs = jh_document_findings(doc);  // what is left
 *         for (size_t i = 0; i < fs->count; i++)
 *             printf("%zu:%zu %s\n", fs->items[i].line, fs->items[i].column,
 *                    fs->items[i].message);
 *         jh_document_free(doc);
 *     }
 *     jh_config_free(cfg);
 *
 * OUT OF MEMORY is an error like the others: a call that runs out returns
 * JH_ERR_NOMEM, having freed what it allocated; the library never exits
 * or aborts.  A rule set stays usable (a table it could not build is built
 * by the next check that needs it); a jh_config whose call ran out is
 * spent (every later call returns JH_ERR_NOMEM: free it, open it again).
 * One dependency cannot keep this: uchardet, which detects an encoding
 * that is not named, aborts when its C++ `new` fails.
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

/* The version these headers are from; jh_version() gives the library's. */
#define JH_VERSION "0.1.0"
#define JH_VERSION_MAJOR 0
#define JH_VERSION_MINOR 1
#define JH_VERSION_PATCH 0

/* The version of the library running (which may be newer than the headers
 * a program was built with); any pointer may be NULL. */
const char *jh_version(int *major, int *minor, int *patch);

typedef enum {
	JH_OK = 0,
	JH_ERR_NOMEM = -1,  /* out of memory */
	JH_ERR_IO = -2,     /* a file could not be read */
	JH_ERR_RULES = -3,  /* rule or lexicon file errors (reported through jh_diag_fn) */
	JH_ERR_ARG = -4,    /* bad argument */
	JH_ERR_STATE = -5,  /* call not allowed now (e.g. load after compile) */
	JH_ERR_CONFIG = -6, /* configuration errors (reported through jh_diag_fn) */
	JH_ERR_CANCELLED = -7, /* the cancel callback asked to stop */
	JH_ERR_ENCODING = -8,  /* unknown encoding name */
	JH_ERR_SPAN = -9       /* an edit outside its finding's span */
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

/* JH_OK, or JH_ERR_NOMEM with *out NULL. */
int jh_ruleset_new(jh_ruleset **out);
void jh_ruleset_free(jh_ruleset *rs);
/* Where compiled tables are cached between runs (NULL or "" = nowhere),
 * for a rule set not yet loaded: the rules folders as read (without
 * parsing their examples until asked for), the lexicons, the compiled
 * patterns and the checks' tables, each rebuilt when a source changed.
 * The library reads no environment variable for it: the command line's
 * default is $JINGHUA_CACHE_DIR, else $XDG_CACHE_HOME/jinghua or
 * ~/.cache/jinghua. */
int jh_ruleset_set_cache_dir(jh_ruleset *rs, const char *dir);
/* The size a cache folder may grow to, for the whole process: after a
 * store, the files used longest ago are removed until the rest fit (and a
 * source's files of its earlier states at once).  0 = no cap; 256 MB by
 * default (the command line's $JINGHUA_CACHE_MAX).  Returns JH_OK. */
int jh_set_cache_limit(unsigned long long bytes);

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
 * problems with it are reported with line 0.  Key "foreign" sets the
 * rule's own scope in Japanese and Korean text instead (sentence, kana,
 * document, never; see rules/README.md).  JH_ERR_ARG if there is no
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

/* Read-only view of a rule.  Info structs the library fills in the
 * caller's memory (jh_rule_info, jh_example, jh_fix_report) start with a
 * version too, set by the caller (*_INIT; 0 counts as 1): the library
 * writes the fields of that version and no further, so a program built
 * with older headers gets what it knows.  (No field says a rule's own
 * version: rule files carry none; a rule is known by its id, file and
 * line.) */
#define JH_RULE_INFO_VERSION 1
#define JH_RULE_INFO_INIT {JH_RULE_INFO_VERSION}

typedef struct {
	unsigned version;        /* JH_RULE_INFO_VERSION */
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
#define JH_EXAMPLE_VERSION 1
#define JH_EXAMPLE_INIT {JH_EXAMPLE_VERSION}
typedef struct {
	unsigned version;   /* JH_EXAMPLE_VERSION */
	jh_example_kind kind;
	const char *text;
	const char *fixed;  /* expected text after fixing (bad examples), or NULL */
	unsigned line;      /* line in the rule file */
} jh_example;

/* Example i of the rule: JH_OK, JH_ERR_ARG (no such example), or
 * JH_ERR_NOMEM (a rule set read from the cache folder decodes its rules'
 * examples the first time they are asked for). */
int jh_rule_get_example(const jh_rule *rule, size_t i, jh_example *out);

/* The rule told in words, as `jinghua rules --explain ID` prints it (and
 * the language server's hover shows it): id, family, kind, severity, fix,
 * default, where defined, message, description, examples with their fixes,
 * how to switch it off.  UTF-8 lines, from malloc() (the caller free()s
 * it), or NULL for want of memory. */
char *jh_rule_explain(const jh_rule *rule);

/* ---- Findings ----------------------------------------------------------- */

typedef struct {
	size_t byte_start, byte_end;  /* replaced span */
	char *replacement;            /* UTF-8, owned by the findings list */
} jh_edit;

/* One complete answer to a finding: the edits that make it (applied whole
 * or not at all), and how likely it is right.
 *
 * score: a calibrated probability in [0, 1] that this answer is the right
 * one (of about a hundred answers given 0.7, about seventy are right), as
 * the rule measured it on its benchmark; negative (JH_SCORE_NONE) when the
 * rule gives no probability.  Scores of different rules are comparable
 * only as probabilities; a ranking without probabilities has none.
 *
 * Records the library fills and hands out in arrays (jh_edit,
 * jh_alternative, jh_finding) carry no version: their layout is part of
 * the soname (libjinghua.so.0), and a field is added only with a new
 * soname once released (score was added before the first release). */
typedef struct {
	size_t n_edits;
	jh_edit *edits;               /* owned by the findings list */
	double score;                 /* probability in [0, 1], or < 0 for none */
} jh_alternative;

#define JH_SCORE_NONE (-1.0)

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
	jh_safety safety;             /* of the fix and of the alternatives */
	size_t n_edits;
	jh_edit *edits;               /* owned by the findings list */
	/* Ranked answers (mask restorations, typo candidates), best first; when
	 * the finding has a fix, the first is that fix (the edits above).  None
	 * (0, NULL) when the rule knows one answer or none (censor.mask.suggest
	 * gives its ranked words). */
	size_t n_alternatives;
	jh_alternative *alternatives; /* owned by the findings list */
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
 * applied whole or not at all); the finding gets a fix if it had none.
 * A fix changes only bytes inside its finding's span: an edit must lie in
 * [byte_start, byte_end] of the finding (an insertion may sit at either
 * end), else JH_ERR_SPAN and nothing is added.  Widen the finding first
 * when a fix needs more; jh_apply_fixes skips a fix that breaks this. */
int jh_findings_add_edit(jh_findings *list, size_t index, size_t byte_start, size_t byte_end,
                         const char *replacement);
/* Add a ranked answer to list->items[index], after those it has: its
 * n_edits edits are copied into the list's store (each inside the
 * finding's span, as for jh_findings_add_edit, else JH_ERR_SPAN).  The first call gives it
 * no score (JH_SCORE_NONE); the second gives its score, a calibrated
 * probability in [0, 1] (JH_ERR_ARG for one above 1 or NaN; any negative
 * value means none). */
int jh_findings_add_alternative(jh_findings *list, size_t index, const jh_edit *edits,
                                size_t n_edits);
int jh_findings_add_scored_alternative(jh_findings *list, size_t index, const jh_edit *edits,
                                       size_t n_edits, double score);

/* ---- Checking ----------------------------------------------------------- */

/* A byte range of the text where findings are not wanted: code in a
 * Markdown file, a region switched off by an inline comment, lines outside
 * a diff.  A finding that overlaps it is dropped (an empty finding, an
 * insertion point, is dropped when start <= point < end). */
typedef struct {
	size_t start, end;
	const unsigned char *rules;       /* per rule (nonzero = dropped here), or NULL for all */
} jh_skip;

/* Asked now and then during a long check: nonzero abandons it (the call
 * returns JH_ERR_CANCELLED), e.g. when an editor's text has changed. */
typedef int (*jh_cancel_fn)(void *payload);

/* Option and info structs start with a version: set it with the *_INIT
 * macro (or JH_*_VERSION), so that a newer library reads an older
 * program's struct as it was.  A zeroed struct (version 0) is version 1. */
#define JH_CHECK_OPTIONS_VERSION 1
#define JH_CHECK_OPTIONS_INIT {JH_CHECK_OPTIONS_VERSION}

typedef struct {
	unsigned version;                 /* JH_CHECK_OPTIONS_VERSION */
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
	jh_cancel_fn cancel;              /* or NULL */
	void *cancel_payload;
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

#define JH_FIX_REPORT_VERSION 1
#define JH_FIX_REPORT_INIT {JH_FIX_REPORT_VERSION}
typedef struct {
	unsigned version;           /* JH_FIX_REPORT_VERSION (set by the caller) */
	unsigned rounds;            /* rounds that changed the text */
	size_t edits_applied;
	int converged;              /* 1 if the text settled (maybe without unstable_rules) */
	char unstable_rules[256];   /* ids whose fixes did not settle, comma separated */
} jh_fix_report;

#define JH_FIX_MAX_ROUNDS 8

/* Apply fixes repeatedly until nothing changes (at most JH_FIX_MAX_ROUNDS
 * rounds).  Safe fixes only, or safe and unsafe when unsafe is nonzero.
 * Never applies two overlapping fixes in one round.  A rule whose fixes
 * still change the text after the last round is left out and the fix redone
 * without it: the report names it in unstable_rules, and converged is 1 if
 * the other rules' fixes settled (0, and *out the last round's text, if
 * they did not after a few such tries).  *out is malloc'd and
 * NUL-terminated; *out_len excludes the NUL.  report may be NULL. */
int jh_fix(const jh_ruleset *rs, const char *text, size_t len,
           const jh_check_options *opts, int unsafe,
           char **out, size_t *out_len, jh_fix_report *report);

/* Apply the fixes of the given findings once (those of the chosen safety,
 * skipping any that overlap an earlier one, and any with an edit outside
 * its finding's span).  Returns JH_OK and sets
 * *n_applied. */
int jh_apply_fixes(const char *text, size_t len, const jh_findings *findings,
                   int unsafe, char **out, size_t *out_len, size_t *n_applied);

/* ---- Rules folder ----------------------------------------------------- */

/* The rules folder the library was installed with (also `rulesdir` in
 * jinghua.pc).  Configurations load it first unless told otherwise. */
const char *jh_rules_dir(void);

/* ---- Configuration ------------------------------------------------------ */

/* What the checks of a file depend on, found the way the command line
 * finds it: the nearest .jinghua.ini from the file's folder upward (or one
 * forced file), its `extend =` chain, its profile, [rule.id] sections with
 * parameters and severities, [path:GLOB] sections matching the file, the
 * accepted words (words =, words-file =), then the caller's options on top
 * (select replaces the selection, extend_select adds, ignore removes).
 * Each distinct set of rule folders, profile and parameters is compiled
 * once into a rule set and shared by every file that has it. */
typedef enum { JH_DOC_AUTO = 0, JH_DOC_TEXT = 1, JH_DOC_MARKDOWN = 2 } jh_doc_type;

#define JH_FAIL_NEVER 3  /* fail_on: no finding fails */

typedef struct {
	unsigned version;              /* JH_CONFIG_OPTIONS_VERSION */
	const char *config_file;       /* this file instead of .jinghua.ini found upward, or NULL */
	int no_config;                 /* no configuration file at all */
	const char *rules_dir;         /* the default rules folder, NULL = jh_rules_dir() */
	int no_default_rules;          /* load only the config's and rule_dirs' folders */
	const char *const *rule_dirs;  /* more rule folders, loaded after the config's (later wins) */
	size_t n_rule_dirs;
	const char *select;            /* rule ids or families, comma separated, or NULL */
	const char *extend_select;
	const char *ignore;
	const char *profile;           /* profile name or file, NULL = the config's (or "novel") */
	const char *variant;           /* "auto", "hans", "hant", or NULL = the config's */
	const char *encoding;          /* "auto", a name, or NULL = the config's */
	jh_doc_type type;              /* JH_DOC_AUTO = the config's, else by file name */
	int fail_on;                   /* -1 = the config's (default warning), a jh_severity,
	                                  or JH_FAIL_NEVER */
	const char *cache_dir;         /* folder for compiled tables; NULL or "" = no cache */
	jh_diag_fn diag_fn;            /* configuration and rule file errors (file, line) */
	void *payload;
} jh_config_options;

#define JH_CONFIG_OPTIONS_VERSION 1
#define JH_CONFIG_OPTIONS_INIT \
	{JH_CONFIG_OPTIONS_VERSION, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, \
	 NULL, JH_DOC_AUTO, -1, NULL, NULL, NULL}

typedef struct jh_config jh_config;

/* The settings of one file, owned by the configuration (valid until
 * jh_config_free), read-only: any thread may use them at once. */
typedef struct {
	unsigned version;              /* JH_SETTINGS_VERSION of the library */
	const jh_ruleset *ruleset;
	const unsigned char *enabled;  /* per rule */
	const signed char *severity;   /* per rule, -1 = the rule's own */
	const char *const *accept;     /* accepted words */
	size_t n_accept;
	int fail_on;                   /* a jh_severity or JH_FAIL_NEVER */
	jh_doc_type type;
	const char *encoding;          /* NULL = auto */
	const char *variant;           /* NULL = auto */
	const char *cache_dir;         /* NULL = none */
} jh_settings;
#define JH_SETTINGS_VERSION 1

/* Open a configuration.  A forced config_file is read at once: its errors
 * are reported and the call returns JH_ERR_CONFIG (*out is NULL).  Other
 * files are read when a path first needs them. */
int jh_config_open(const jh_config_options *opts, jh_config **out);
void jh_config_free(jh_config *cfg);
/* The settings for the file at path (it need not exist: its folder and
 * name are what count).  JH_ERR_CONFIG after errors in a config, a profile
 * or the rules (reported through the diag_fn of the options), JH_ERR_NOMEM
 * (the configuration is spent, see OUT OF MEMORY above).  The calls on one
 * configuration are serialised by a lock. */
int jh_config_settings(jh_config *cfg, const char *path, const jh_settings **out);
/* Is path left out of a folder walk: not one of the `extensions =` of its
 * config (by default txt, text, md, markdown, mdx), or matching its
 * `exclude =`?  1 yes, 0 no.  A file a user names is read whatever this says. */
int jh_config_excluded(jh_config *cfg, const char *path);
/* The rule set of the options alone (no configuration file). */
int jh_config_ruleset(jh_config *cfg, const jh_ruleset **out);
/* Has a file the configuration has read so far changed since (1), or not
 * (0)?  The files are those read or looked for: each .jinghua.ini found
 * and each one looked for in vain on the way up (one created nearer
 * counts), their extend = files, profiles, word files, the rules folders
 * and their .rules files; a file counts as changed when its inode, size or
 * modification time is not what it was, or it appeared or went.  A stat
 * per file; the settings handed out stay valid.  A stale configuration is
 * not read again: open a new one (and free this one when its settings are
 * no longer used).  A server with several workspace folders keeps one per
 * folder and replaces only the stale one. */
int jh_config_stale(jh_config *cfg);

/* Is name an encoding documents can be read in (as `encoding =` or
 * jh_document_options.encoding)?  0, or JH_ERR_ENCODING; canonical (may be
 * NULL) gets the name as the library spells it ("GB18030" for "gbk"). */
int jh_encoding_check(const char *name, char *canonical, size_t size);

/* ---- Documents: a file's bytes in, findings (and fixed bytes) out ------- */

/* A document is checked as the command line checks a file: its bytes are
 * decoded (BOM, UTF-8, the encoding asked for, else detected; undecodable
 * bytes are reported as encoding.undecodable and kept), a Markdown file's
 * prose is what the rules see (code, URLs and markup are not checked, and
 * a fix never touches them), inline switches (<!-- jinghua-disable ... -->)
 * and accepted words drop findings, and `lines` keeps only findings on the
 * lines asked for.  Findings point into the document's text (UTF-8; its
 * lines and columns are the file's); jh_document_file_offset gives their
 * offsets in the file's own bytes. */
typedef struct {
	unsigned version;              /* JH_DOCUMENT_OPTIONS_VERSION */
	const jh_settings *settings;   /* from jh_config_settings (required) */
	const char *name;              /* for messages and, with type AUTO, the type (*.md) */
	const char *encoding;          /* NULL = the settings' */
	jh_doc_type type;              /* JH_DOC_AUTO = the settings', else by name */
	const size_t *lines;           /* report only findings touching these lines: sorted */
	size_t n_line_pairs;           /*   [first, last] pairs, 1-based; NULL = every line */
	int unsafe;                    /* fix: unsafe fixes too */
	int to_utf8;                   /* fix: the fixed bytes in UTF-8 (BOM dropped) */
	jh_diag_fn diag_fn;            /* warnings: unknown switches, Markdown, engine */
	void *payload;
	jh_cancel_fn cancel;           /* or NULL */
	void *cancel_payload;
} jh_document_options;

#define JH_DOCUMENT_OPTIONS_VERSION 1
#define JH_DOCUMENT_OPTIONS_INIT {JH_DOCUMENT_OPTIONS_VERSION}

typedef struct jh_document jh_document;

/* Check the file's bytes (not copied: they must outlive the document).
 * Returns 0, JH_ERR_ENCODING (unknown encoding name), JH_ERR_CANCELLED,
 * JH_ERR_NOMEM or JH_ERR_ARG; *out is set only on success. */
int jh_document_check(const char *bytes, size_t len, const jh_document_options *opts,
                      jh_document **out);
/* Fix the file to a fixed point: check and apply on the document's text
 * (never on the Markdown prose alone) until nothing changes, then encode
 * the text back.  The findings are those left in the fixed text.  No fixed
 * bytes are given (jh_document_fixed returns NULL, jh_document_problem says
 * why) when the fixes do not settle even with the unsettled rules left out
 * as jh_fix does (the report's converged = 0; when they settle without
 * them, a warning diagnostic names the rules left out), the file would not be written back byte for byte in its
 * encoding, or, with to_utf8, bytes cannot be decoded. */
int jh_document_fix(const char *bytes, size_t len, const jh_document_options *opts,
                    jh_document **out);
void jh_document_free(jh_document *doc);

/* The findings, sorted, in the document's text (after a fix: the fixed
 * text).  Owned by the document. */
const jh_findings *jh_document_findings(const jh_document *doc);
/* The UTF-8 text the findings point into (undecodable bytes are 0xFF). */
const char *jh_document_text(const jh_document *doc, size_t *len);
/* The text the file's bytes decode to (before any fix). */
const char *jh_document_original_text(const jh_document *doc, size_t *len);
/* Offset in the file's bytes (after a fix: the fixed bytes) of an offset
 * in the document's text. */
size_t jh_document_file_offset(const jh_document *doc, size_t text_offset);
/* "UTF-8", "GB18030", "BIG5", "UTF-16LE", ... */
const char *jh_document_encoding(const jh_document *doc);
/* Number of bytes that could not be decoded. */
size_t jh_document_undecodable(const jh_document *doc);
/* Was the file read as Markdown? */
int jh_document_is_markdown(const jh_document *doc);
/* After jh_document_fix: the bytes to write (the file's encoding, or UTF-8
 * with to_utf8), or NULL (see jh_document_problem); the same bytes as the
 * input when nothing changed.  The report may be NULL. */
const char *jh_document_fixed(const jh_document *doc, size_t *len, jh_fix_report *report);
/* Why jh_document_fixed gives no bytes, or NULL. */
const char *jh_document_problem(const jh_document *doc);

/* ---- Files: read whole, written back atomically ------------------------ */

/* What `jinghua check FILE` and `jinghua fix FILE` do with the file, for
 * every front end: read it whole without reading forever, and write the
 * fixed bytes back without losing data or metadata. */
typedef struct jh_file jh_file;

/* The most a stream gives before jh_file_read refuses it: 1 GiB. */
#define JH_STREAM_MAX 1073741824

/* Read a whole file (path NULL: standard input).  A regular file is read
 * at its size (and on, if it grows while read); a stream (standard input,
 * a FIFO) up to stream_max bytes (0: JH_STREAM_MAX), past which the call
 * fails with errno EFBIG rather than grow until memory runs out.  A device
 * or socket is refused, not read (/dev/zero never ends): errno ENODEV and
 * *why "a device, not read".  A file that changes while it is read is
 * read, and marked (jh_file_changed).  Returns JH_OK (*out set, freed with
 * jh_file_free), JH_ERR_NOMEM, or JH_ERR_IO with errno set and *why a
 * message, or NULL when strerror(errno) says it (why may be NULL). */
int jh_file_read(const char *path, size_t stream_max, jh_file **out, const char **why);
void jh_file_free(jh_file *f);
/* The bytes read (NUL-terminated, owned by f). */
const char *jh_file_data(const jh_file *f, size_t *len);
/* The bytes, handed over (the caller free()s them; jh_file_data gives ""
 * from now on); f still knows the file for jh_file_replace. */
char *jh_file_take(jh_file *f, size_t *len);
/* Did the file change while it was read?  (Its bytes may be half old, half
 * new: jh_file_replace refuses to write over it.) */
int jh_file_changed(const jh_file *f);
/* Its permission bits (07777); 0 for standard input. */
unsigned jh_file_mode(const jh_file *f);

/* Do these bytes look binary, not text: a NUL byte in the first 8 KB (as
 * git and grep judge), unless a byte-order mark or the regular NUL bytes
 * of UTF-16 say it is UTF-16 or UTF-32 text?  1 or 0.  The command line
 * skips such a file (check) or passes it through (fix --stdout). */
int jh_looks_binary(const char *data, size_t len);

/* Give the file f was read from the content data, as `jinghua fix` does:
 * through a symlink to its target (the link stays a link); a temporary
 * file in the same folder, with the old file's mode, owner (when allowed),
 * extended attributes and POSIX ACLs, flushed to disk, then renamed over
 * it, so a crash leaves the old file or the new, never half of one.  The
 * file is left as it is (JH_ERR_IO, *why says why) when it is not a
 * regular file (errno EINVAL), is read-only (no write permission bit, even
 * for root; EACCES), its attributes cannot be copied, or it changed while
 * it was read or since (EAGAIN; unless it already holds data, as when two
 * fixes run at once: then JH_OK).  JH_ERR_ARG for standard input.  Returns
 * JH_OK, JH_ERR_NOMEM or JH_ERR_IO with errno set and *why as for
 * jh_file_read. */
int jh_file_replace(const jh_file *f, const char *data, size_t len, const char **why);

/* From now on SIGINT, SIGTERM and SIGHUP, where they would kill the
 * process (their disposition is the default), first remove the temporary
 * files of jh_file_replace calls in progress; a signal that is ignored or
 * has a handler stays as it is (the write then ends before the handler's
 * effect).  A default SIGXFSZ is ignored, so that past a file size limit a
 * write fails with EFBIG instead of killing the process.  Call it once,
 * from a program that replaces files (it changes process-wide state). */
void jh_file_guard_signals(void);

/* ---- Reports for people ------------------------------------------------ */

/* Where a report's bytes go; nonzero stops the report (JH_ERR_IO). */
typedef int (*jh_write_fn)(const char *data, size_t len, void *payload);

#define JH_REPORT_COLOR 1 /* ANSI colours (`jinghua check --color always`) */

/* The findings of one document as `jinghua check` prints them, one write
 * a finding: "NAME:LINE:COL: SEVERITY [RULE] MESSAGE", the source line
 * (cut around the span when long; tabs and control characters a space,
 * invalid UTF-8 as jh_utf8_clean makes it), a caret line under the span
 * aligned by display width with the fix or suggestion, and the ranked
 * answers with their probabilities.  name is escaped as jh_name_escape
 * does; text is what the findings point into (jh_document_text).  flags:
 * 0 or JH_REPORT_COLOR.  JH_OK, JH_ERR_NOMEM or JH_ERR_IO. */
int jh_report_human(const char *name, const char *text, size_t len, const jh_findings *findings,
                    unsigned flags, jh_write_fn write, void *payload);
/* The line that ends such a report: "\n3 findings (1 error, 2 warnings,
 * 0 info) in 2 files", and " checked, N binary files skipped" when some
 * were; nothing when by_severity (indexed by jh_severity) counts none. */
int jh_report_human_summary(const size_t by_severity[3], size_t files, size_t skipped,
                            jh_write_fn write, void *payload);

/* ---- Rule self-tests ---------------------------------------------------- */

/* Run a rule's examples: each bad example must give a finding of this rule
 * (and, if it has an expected fix, fixing with this rule alone must give
 * it); each good example must give none.  Failures are reported through
 * diag_fn.  Returns the number of failures (>= 0) or a negative status. */
int jh_rule_run_examples(const jh_ruleset *rs, size_t rule_index,
                         jh_diag_fn diag_fn, void *payload);

/* ---- Text utilities ----------------------------------------------------- */

/* The column of byte offset pos in its line in UTF-16 code units, 1-based
 * (what LSP and most editors count): a character outside the BMP counts 2,
 * an invalid byte 1.  text is UTF-8, pos at most len. */
size_t jh_utf16_column(const char *text, size_t len, size_t pos);

/* Length of the longest valid UTF-8 prefix of s. */
size_t jh_utf8_valid_prefix(const char *s, size_t len);
/* Display width of s (East Asian Width; each invalid sequence, as
 * jh_utf8_clean replaces it, counts 1). */
size_t jh_display_width(const char *s, size_t len);
/* s with each invalid UTF-8 sequence (each maximal subpart, as Unicode
 * recommends and Python's "replace" decodes) replaced by U+FFFD: bytes
 * that may not be UTF-8 as every front end shows them or writes them as
 * JSON.  Writes at most size bytes to out, NUL included (as snprintf; out
 * may be NULL when size is 0), and returns the length of the whole, at
 * most 3 * len. */
size_t jh_utf8_clean(const char *s, size_t len, char *out, size_t size);
/* A file name for people, as every front end prints one: control bytes
 * (C0, DEL, C1) and bytes that are not UTF-8 written as \xHH, the rest as
 * it is.  Writes at most size bytes to out, NUL included (as snprintf),
 * and returns the length of the whole, at most 4 * strlen(name). */
size_t jh_name_escape(const char *name, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
