/* cli.h — the jinghua command line: shared types of its parts (walk, file
 * io, reporters, diff).  The library does the checking; this is glue. */
#ifndef JH_CLI_H
#define JH_CLI_H

#include <stdio.h>
#include <sys/types.h>
#include "jinghua.h"

/* ---- walk.c: turning PATH arguments into a list of files ---- */
typedef struct {
	char **paths;
	size_t n, cap;
} path_list;

/* Append files named by arg ("-" for stdin; folders recursively, sorted,
 * hidden entries skipped).  Errors are printed; returns the number. */
int walk_arg(const char *arg, path_list *out);
void path_list_free(path_list *l);

/* ---- fileio.c ---- */
typedef struct {
	char *data;
	size_t len;
	mode_t mode;
	int is_stdin;
} file_data;

typedef enum { READ_OK, READ_IO_ERROR, READ_BINARY, READ_UTF16 } read_status;

/* Read a whole file ("-" = stdin).  On READ_IO_ERROR errno is set. */
read_status read_input(const char *path, file_data *out);
void file_data_free(file_data *f);
/* Replace path's content atomically: temp file in the same folder, fsync,
 * rename, original mode kept.  Returns 0 or -1 with errno set. */
int write_atomic(const char *path, const char *data, size_t len, mode_t mode);

/* ---- report.c ---- */
typedef enum { FMT_HUMAN, FMT_JSON } out_format;

typedef struct {
	out_format format;
	int color;
	FILE *out;
	size_t n_files, n_findings, by_sev[3];
	int json_first;
} reporter;

void report_begin(reporter *r);
void report_file(reporter *r, const char *path, const char *text, size_t len,
                 const jh_findings *fs);
void report_end(reporter *r);
/* JSON string with escapes (invalid UTF-8 shown as U+FFFD). */
void json_string(FILE *out, const char *s, size_t len);

/* ---- diff.c ---- */
/* Print a unified diff of a → b, labelled with path. */
void print_unified_diff(FILE *out, const char *path, const char *a, size_t alen, const char *b,
                        size_t blen);

#endif
