/* builtins.h — checks written in C, driven by the class scan.  Each is
 * declared by a rule (`kind = builtin`, `check = NAME`) that carries its
 * message, severity, fix template and parameters. */
#ifndef JH_BUILTINS_H
#define JH_BUILTINS_H

#include "findings.h"
#include "rules.h"
#include "util.h"

/* One decoded character as the scan hands it to a check. */
typedef struct {
	int32_t cp;          /* -1 for an invalid sequence */
	uint32_t cls;
	size_t pos, len;     /* bytes */
	int32_t prev_cp;     /* the character before (any class), -2 at the start */
	size_t prev_pos;
	size_t han_before;   /* Han characters of the text before this one */
	/* for a tallied check (jh_builtin_def.tally): the BMP Han characters
	 * before this one that have each of its two flags */
	const size_t *tally;
} jh_char;

/* What several checks of one document compute once and share (the layout
 * checks' survey of its lines): one per jh_check, zeroed by the engine,
 * released by jh_doc_shared_free after every finish().  A check whose run
 * has none (shared NULL) computes the same for itself. */
typedef struct jh_doc_shared {
	void *layout;
	void (*layout_free)(void *layout);
} jh_doc_shared;

void jh_doc_shared_free(jh_doc_shared *d);

/* Per-document state of one builtin rule. */
typedef struct jh_brun {
	const char *text;
	size_t len;
	const jh_rule *rule;
	long rule_index;
	const void *cfg;
	jh_findings *out;
	int err;             /* first error (out of memory) */
	/* generic state the checks use as they like */
	int32_t run_cp;
	size_t run_start, run_end, run_len;
	size_t open_start, open_end;
	int open;
	/* A check's own per-document state, for what the fields above cannot
	 * hold (a stack of marks): NULL at the start, allocated by the check
	 * when it first needs it, freed by its finish(). */
	void *state;
	/* jh_check_options.variant ("auto", "hans", "hant" or NULL), for the
	 * script checks. */
	const char *variant;
	/* Where a check reports what goes wrong outside the text (a table
	 * loaded on first use that turns out broken): jh_check_options'. */
	jh_diag_fn diag_fn;
	void *payload;
	/* The Han characters of the whole text, set by the scan before
	 * finish(): a check that only needs their number is not woken by them
	 * (JH_HAN_COUNT). */
	size_t han_total;
	/* tallied: the scan counts this check's characters for it
	 * (jh_builtin_def.tally) and sets tally_total to the text's totals
	 * before finish(); else tally_total is the check's to keep.
	 * tally_mark: four counts of the check's own (tallies at marks). */
	int tallied;
	size_t tally_total[2];
	size_t tally_mark[4];
	/* The document's shared results (see jh_doc_shared), or NULL. */
	jh_doc_shared *shared;
} jh_brun;

/* Which Han characters wake a check that has JH_C_HAN in its wake mask.
 * The scan looks each BMP Han character up in one interest table (a bit
 * per check, built once per rule set from han_wants), so a character no
 * check wants costs a table load and wakes nothing. */
enum {
	JH_HAN_ALL = 0,    /* every Han character */
	JH_HAN_WANTS,      /* those han_mark() marks; its step must still be a no-op on any
	                    * other (it is woken by every astral Han character) */
	JH_HAN_REPEAT,     /* a Han character right after the same character (的的) */
	JH_HAN_COUNT       /* none: it reads c->han_before and run->han_total */
};

typedef struct {
	const char *name;
	uint32_t wake;                /* classes that call step() */
	const char *const *params;    /* parameter keys it accepts */
	int (*compile)(const jh_rule *r, void **cfg, jh_diag_fn diag_fn, void *payload);
	void (*free_cfg)(void *cfg);
	void (*step)(jh_brun *run, const jh_char *c);
	void (*finish)(jh_brun *run);
	/* finish() after every other check's: for a check that emits from
	 * counts alone, perhaps a finding for each mark of a long text (quote
	 * style), so that the checks holding per-paragraph state (script
	 * variants) have freed it before the findings grow.  Nothing else
	 * depends on the order: findings are sorted afterwards. */
	int finish_late;
	int han;                      /* JH_HAN_*: which Han characters wake it */
	/* For JH_HAN_WANTS: set bit in table[cp] for each BMP Han character
	 * cp that must wake it (marking more is harmless, fewer is not). */
	void (*han_mark)(const void *cfg, uint16_t *table, uint16_t bit);
	/* Which ASCII bytes of its wake classes must wake it: ascii_mark()
	 * sets wants[b] to JH_ASCII_ALWAYS or JH_ASCII_AFTER_HAN (only when
	 * the character before is Han), and the class scan steps over the
	 * others; its step must be a no-op on them.  NULL: every ASCII byte
	 * of its classes wakes it. */
	void (*ascii_mark)(const void *cfg, unsigned char wants[128]);
	/* After every rule of the set has compiled, for a check that asks
	 * another rule's compiled pattern instead of keeping a copy of its
	 * conditions (mask-suggest asks censor.mask.symbol's): NULL for most.
	 * An error breaks the rule, as a compile error does. */
	int (*link)(void *cfg, const jh_rule *r, const jh_ruleset *rs, jh_diag_fn diag_fn,
	            void *payload);
	/* Which characters of its wake classes that are neither ASCII nor Han
	 * must wake it: other_mark() calls jh_mark_other() for each (marking
	 * more is harmless, fewer is not).  On the others its step must do
	 * nothing, or only what the next step that wakes it, or finish(), does
	 * the same way (a run of marks closed by the next character it sees).
	 * NULL: every such character of its classes wakes it.  Full stops and
	 * commas woke eight checks each, six of which want only quotes,
	 * brackets or a few marks. */
	void (*other_mark)(const void *cfg, uint16_t *table, uint16_t bit);
	/* A check that only counts the BMP Han characters with one of two
	 * flags of a table, between the characters that do wake it (the
	 * script-variant checks: simplified and traditional forms per
	 * paragraph), may have the scan count them instead (c->tally,
	 * run->tally_total): tally() gives the table (64K entries) and the two
	 * flags, or NULL; the checks that give the same table and flags share
	 * the count.  han_mark_tallied() then marks the Han characters that
	 * must still wake it (as han_mark does); its step, told by
	 * run->tallied, counts no BMP character itself.  The two checks woke
	 * for two Han characters in three of prose. */
	const uint8_t *(*tally)(const void *cfg, uint8_t flags[2]);
	void (*han_mark_tallied)(const void *cfg, uint16_t *table, uint16_t bit);
} jh_builtin_def;

/* For other_mark(): set bit in table[cp] if cp is a BMP code point that is
 * neither ASCII nor Han (the table's Han entries hold Han checks' lanes). */
void jh_mark_other(uint16_t *table, uint16_t bit, int32_t cp);

enum { JH_ASCII_NONE = 0, JH_ASCII_ALWAYS = 1, JH_ASCII_AFTER_HAN = 2 };

const jh_builtin_def *jh_builtin_find(const char *name);

/* Each family's checks, ended by an entry with name NULL. */
extern const jh_builtin_def jh_checks_encoding[], jh_checks_censor[], jh_checks_censor_suggest[],
	jh_checks_script[],
	jh_checks_script_chars[], jh_checks_punct[], jh_checks_layout[], jh_checks_typo[];

/* Helpers for checks: a whole-number parameter (dflt when absent), and a
 * word list (first TSV column) read from the rule's data folder. */
int jh_param_uint(const jh_rule *r, const char *key, unsigned long dflt, unsigned long max,
                  unsigned long *out, jh_diag_fn diag_fn, void *payload);
/* For a check whose whole config is one whole-number parameter: *out gets
 * a malloc'd unsigned long (free it with free). */
int jh_compile_uint(const jh_rule *r, const char *key, unsigned long dflt, unsigned long max,
                    void **out, jh_diag_fn diag_fn, void *payload);
/* At compile time, for a table loaded on first use (see jh_lazy): is the
 * file there and readable?  A missing file is still an error of the rule
 * file, reported when the rules are compiled. */
/* The path of a file of the rule's data folder (malloc'd), or NULL. */
char *jh_data_path(const jh_rule *r, const char *file);
int jh_data_readable(const jh_rule *r, const char *file, unsigned line, jh_diag_fn diag_fn,
                     void *payload);
/* Open dir/file (dir NULL: the rule's data folder) as a jh_tsv; a file
 * that cannot be read is reported against the rule's line.  t->path names
 * the file in messages about its lines. */
int jh_data_open(jh_tsv *t, const char *dir, const char *file, const jh_rule *r, unsigned line,
                 jh_diag_fn diag_fn, void *payload);
int jh_load_words(jh_strset *set, const char *dir, const char *file, const jh_rule *r,
                  unsigned line, jh_diag_fn diag_fn, void *payload);
/* A map of one character to another from a data file of lines
 * "FROM<TAB>TO...": *out (calloc'd, hi - lo + 1 entries) holds, for each
 * FROM of a single code point in lo..hi, the first code point of TO; 0
 * where no line says (an empty TO, written the same, says nothing).
 * Further fields, and lines of one field, are ignored. */
int jh_load_char_map(int32_t **out, int32_t lo, int32_t hi, const char *file, const jh_rule *r,
                     unsigned line, jh_diag_fn diag_fn, void *payload);

typedef struct {
	long rule_index;
	const jh_builtin_def *def;
	void *cfg;
} jh_builtin_slot;

typedef struct jh_builtins {
	jh_builtin_slot *v;
	size_t n, cap;
	uint32_t wake;        /* union of all wake masks */
} jh_builtins;

void jh_builtins_free(jh_builtins *b);
int jh_builtins_add(jh_builtins *b, jh_rule *r, long rule_index, jh_diag_fn diag_fn, void *payload);

/* Emit a finding from a builtin: span, and groups for the fix template
 * ($1.. as offset pairs after $0 = the span). */
void jh_brun_emit(jh_brun *run, size_t start, size_t end, const size_t *groups, uint32_t n_groups,
                  const char *message);
/* A finding with a fix the check computed itself (not from the rule's
 * template).  The rule's `safety = unsafe` makes every fix unsafe; a rule
 * without `fix` gets findings without fixes. */
void jh_brun_emit_fix(jh_brun *run, size_t start, size_t end, const char *msg, const char *fix,
                      jh_safety safety);
/* The same with a safety of its own: a finding the rule cannot fix as
 * surely as its others (a less likely case of the same slip). */
void jh_brun_emit_safety(jh_brun *run, size_t start, size_t end, const size_t *groups,
                         uint32_t n_groups, const char *message, jh_safety safety);

#endif
