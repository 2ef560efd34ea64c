/* cli.h — the jinghua command line: shared types of its parts.  The library
 * does the checking, and reads documents and configurations
 * (jh_document_*, jh_config_* of jinghua.h); the CLI turns arguments, files
 * and git into calls of it, and its findings into reports:
 *
 *   main.c      arguments, commands             git.c, hook.c  --staged, --diff-base, hook
 *   walk.c      PATH arguments → files          fileio.c    binary or text
 *   document.c  one file: read, check/fix, write  pool.c    -j N, output in input order
 *   report.c    human, json, jsonl, statistics   format_*.c  sarif, github, checkstyle, rdjsonl
 *   jsonl.c     --jsonl-filter                   diff.c      unified diffs
 *   xalloc.c    allocation that exits when memory runs out
 */
#ifndef JH_CLI_H
#define JH_CLI_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "jinghua.h"
#include "document.h"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_IO = 3 };
#define FAIL_NEVER JH_FAIL_NEVER

/* ---- xalloc.c: allocation that does not fail (out of memory: the
 * process ends with a message and EXIT_IO; the command line only) ---- */
void die_nomem(void) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* jh_path_join that does not fail */
char *path_join(const char *dir, const char *name);

/* ---- walk.c: turning PATH arguments into a list of files ---- */
typedef struct {
	char **paths;
	unsigned char *walked; /* 1 = found inside a folder, 0 = named by the user */
	size_t n, cap;
} path_list;

/* Append files named by arg ("-" for stdin; folders recursively, sorted,
 * hidden entries skipped).  Errors are printed; returns the number. */
int walk_arg(const char *arg, path_list *out);
int path_list_push(path_list *l, const char *p, int walked);
void path_list_free(path_list *l);

/* ---- fileio.c (reading and writing files is the library's: jh_file_*) ---- */
/* Does data look binary (a NUL byte in the first 8 KB, not UTF-16/32)? */
int looks_binary(const char *data, size_t len);

/* ---- git.c ---- */
/* Run argv, capture stdout (stderr passes through unless quiet).  Returns
 * the exit status, or -1 if it could not run. */
int run_capture(char *const argv[], const char *input, size_t input_len, char **out,
                size_t *out_len, int quiet);
/* Files staged for commit (added, copied, modified, renamed), with their
 * staged content; display names relative to the current folder. */
typedef struct {
	char *name;     /* as shown */
	char *data;
	size_t len;
} staged_file;
int git_staged(const char *const *pathspecs, size_t n, staged_file **out, size_t *n_out);
/* Lines (1-based) added or changed in path since rev (working tree, or the
 * index when staged).  *all = 1 if the whole file is new.  lines is a
 * sorted array of [first, last] pairs. */
int git_changed_lines(const char *rev, const char *path, int staged, size_t **lines,
                      size_t *n_pairs, int *all);
int git_verify_rev(const char *rev);
int hook_command(int argc, char **argv);

/* ---- report.c and format_*.c ---- */
typedef enum {
	FMT_HUMAN, FMT_JSON, FMT_JSONL, FMT_SARIF, FMT_GITHUB, FMT_CHECKSTYLE, FMT_RDJSONL
} out_format;

/* The line a report looked at last (see line_start). */
typedef struct {
	size_t start, brk; /* its first byte; its line break, or the end of the text */
	int valid;
} line_memo;

/* One file as the reporters see it. */
typedef struct {
	const char *name;       /* display name */
	const char *text;       /* UTF-8 text the findings point into */
	size_t len;
	const jh_document *enc; /* for byte offsets in the file as it is, or NULL */
	const jh_ruleset *rs;
	line_memo *memo;        /* remembers a line between findings, or NULL */
} report_doc;

typedef struct {
	const char *id;
	const jh_ruleset *rs;
	jh_severity severity;
	size_t count, fixable, unsafe; /* fixable: by a safe fix; unsafe: only with --unsafe */
} rule_count;

typedef struct {
	out_format format;
	int color;
	int statistics;
	FILE *out;
	int flush_each;          /* empty out after each file (a stream of its own on stderr) */
	/* totals, kept by report_count in the main thread */
	size_t n_files, n_findings, by_sev[3];
	size_t n_skipped;        /* binary files, not checked (not in n_files) */
	int first_chunk;
	rule_count *counts;
	size_t n_counts, cap_counts;
} reporter;

/* Offset in the file as it is of text offset pos. */
size_t orig_offset(const report_doc *d, size_t pos);
/* Offset of the start of the line holding pos (remembered in d->memo). */
size_t line_start(const report_doc *d, size_t pos);
void report_begin(reporter *r);
/* Count one file's findings and print them to r->out, in input order (the
 * main thread, as each file's turn comes).  d->text may be NULL when
 * report_prints says nothing is printed. */
void report_write(reporter *r, const report_doc *d, const jh_findings *fs);
/* report_write in two parts: the totals (main thread) and the findings. */
void report_count(reporter *r, const report_doc *d, const jh_findings *fs);
void report_render(reporter *r, const report_doc *d, const jh_findings *fs);
/* A small document's report rendered by a worker thread into *out (as if
 * it came first; 0, or -1 out of memory: then write it at its turn), and
 * put in its place at its turn: with -j the formatting runs in parallel,
 * while a big document is still written straight to the output. */
int report_prerender(const reporter *r, const report_doc *d, const jh_findings *fs, char **out,
                     size_t *out_len);
void report_put(reporter *r, const report_doc *d, const jh_findings *fs, const char *chunk,
                size_t len);
/* Will report_write print anything for these findings? */
int report_prints(const reporter *r, const jh_findings *fs);
void report_end(reporter *r);
/* JSON string with escapes (invalid UTF-8 shown as U+FFFD). */
void put_json_string(FILE *out, const char *s, size_t len);
/* A score as JSON: null when negative (none), else the shortest decimal
 * that reads back as the same double, with ".0" on a whole number (as
 * Python's json module writes a float, so the binding's report is the
 * same bytes). */
void put_json_score(FILE *out, double score);
/* A file name for people, as jh_name_escape writes it (control bytes and
 * bytes that are not UTF-8 as \\xHH). */
void put_name(FILE *o, const char *name);
/* "jinghua: NAME: " and the message: every stderr line about a file. */
void file_msg(FILE *o, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void json_finding(FILE *o, const report_doc *d, const jh_finding *f);
/* format_sarif.c */
void sarif_begin(FILE *o);
void sarif_result(FILE *o, const report_doc *d, const jh_finding *f);
void sarif_end(const reporter *r);
/* format_ci.c */
void github_finding(FILE *o, const report_doc *d, const jh_finding *f);
void checkstyle_begin(FILE *o);
void checkstyle_file(FILE *o, const report_doc *d, const jh_findings *fs);
void checkstyle_end(FILE *o);
void rdjson_finding(FILE *o, const report_doc *d, const jh_finding *f);
/* Rule description for a finding's rule id (NULL if none). */
const char *rule_message(const jh_ruleset *rs, const char *id);

/* ---- diff.c ---- */
/* Print a unified diff of a → b, labelled with path. */
void print_unified_diff(FILE *out, const char *path, const char *a, size_t alen, const char *b,
                        size_t blen);

/* ---- document.c: one input from bytes to findings (and fixed bytes) ---- */
typedef enum { MODE_CHECK, MODE_FIX, MODE_DIFF, MODE_STDOUT } run_mode;

typedef struct {
	run_mode mode;
	int unsafe;
	int to_utf8;
	int quiet;
	const char *diff_base;  /* --diff-base REV */
	int staged;
	reporter *rep;          /* format settings (read-only while threads run) */
} run_opts;

/* What processing one input produced, kept until its turn to be printed
 * (pool.c prints in input order): messages for stderr, the text for stdout
 * (fix --stdout, or the two texts of a --diff), and the findings with the
 * text they point into.  The report itself is written at that turn, from
 * the findings, straight to the output: it is never held whole in memory.
 * Every pointer below points into buffers the result owns (own, dec). */
typedef struct {
	char *err;            /* stderr messages, printed first */
	size_t err_len;
	const char *text;     /* fixed text for stdout, or the new side of the diff */
	size_t text_len;
	const char *diff_a;   /* non-NULL: print a unified diff of diff_a → text */
	size_t diff_a_len;
	jh_findings findings; /* to count, report and free */
	report_doc doc;       /* what they point into (doc.text NULL: nothing to print) */
	int over;             /* findings at or above fail-on */
	int io_error;
	int skipped;          /* a binary file, not checked */
	size_t bytes;
	char *report;         /* a small document's report, rendered by its worker, or NULL */
	size_t report_len;
	char *own[4];         /* buffers the views above point into */
	jh_file *file;        /* the file as read, when it was read from disk */
	jh_document *jdoc;    /* the checked or fixed document the views point into */
} doc_result;

/* Process one input: name is its display name (kept in the result: it must
 * outlive it), path where it is on disk (for writing and the file type;
 * NULL for stdin and git content), data its bytes (taken over, malloc'd) or
 * NULL to read path. */
void process_input(const file_settings *fs, const run_opts *ro, const char *name, const char *path,
                   char *data, size_t len, doc_result *res);
void doc_result_free(doc_result *r);

/* Diagnostics of a document into FILE *payload, as the command line prints
 * them (JH_INFO: a note, without a severity word). */
void doc_diag(const jh_diag *d, void *payload);
/* Diagnostics of rules and configuration to stderr (payload: int error
 * count, or NULL). */
void print_diag(const jh_diag *d, void *payload);

/* ---- pool.c: -j N workers, results in input order ---- */
typedef int (*pool_next_fn)(void *ctx, size_t index, void **job);   /* 0 = no more */
typedef void (*pool_work_fn)(void *ctx, void *job, void **result);
typedef void (*pool_emit_fn)(void *ctx, size_t index, void *result); /* in order */
typedef void (*pool_tick_fn)(void *ctx);                               /* progress */

void pool_run(unsigned threads, void *ctx, pool_next_fn next, pool_work_fn work, pool_emit_fn emit,
              pool_tick_fn tick);
unsigned default_threads(void);

/* ---- jsonl.c ---- */
/* stdin to stdout, as `--jsonl-filter` runs. */
int jsonl_filter(jh_config *cfg, int fix, int unsafe, unsigned threads);
/* The longest record line taken by default, in bytes before its \n; the
 * CLI's JINGHUA_JSONL_MAX_LINE changes it.  A longer line is answered with
 * an error line and dropped as it is read. */
#define JSONL_MAX_LINE ((size_t)256 << 20)
typedef struct {
	int fix, unsafe;
	unsigned threads;     /* 0: 1 */
	size_t max_line;      /* 0: JSONL_MAX_LINE */
} jsonl_options;
/* The filter on any two streams (fuzz/fuzz_jsonl.c feeds it a buffer). */
int jsonl_stream(jh_config *cfg, const jsonl_options *o, FILE *in, FILE *out);

#endif
