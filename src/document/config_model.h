/* config_model.h — what a .jinghua.ini and a profile hold, once read, and
 * the configuration context; shared by config_read.c (reading) and
 * config.c (resolution, rule sets, settings).  Not installed. */
#ifndef JH_CONFIG_MODEL_H
#define JH_CONFIG_MODEL_H

#include <stdlib.h>
#include "document.h"


typedef struct {
	char *value;
	unsigned line;
} spec; /* a list of rule names, or ID:SEVERITY pairs, with where it was set */

typedef struct {
	char *key, *value;
	unsigned line;
} kv;

typedef struct {
	char *id;
	unsigned line;
	int severity;       /* -1 unset */
	int enabled;        /* -1 unset */
	unsigned sev_line, en_line;
	kv *params;
	size_t n_params;
} rule_cfg;

typedef struct {
	char *glob;         /* NULL for the main section */
	unsigned line;
	spec *select, *extend, *ignore, *severity;
	size_t n_select, n_extend, n_ignore, n_severity;
	int fail_on;        /* -1 unset */
	doc_type type;
	char *encoding, *variant;
	char **words;
	size_t n_words;
} section;

typedef struct config {
	char *path, *dir;
	section main;
	section *paths;
	size_t n_paths;
	rule_cfg *rules;
	size_t n_rules;
	char **rule_dirs;
	size_t n_rule_dirs;
	char *profile;
	unsigned profile_line;
	char *profile_from;     /* the file that named the profile */
	char **exclude;
	size_t n_exclude;
	/* `extensions =`: which files a folder walk or --staged reads (lower
	 * case, no dot; "" = files without one, "*" = all); none given = the
	 * prose defaults of cfg_excluded */
	char **exts;
	size_t n_exts;
	/* resolved */
	int resolved, bad;
	const jh_ruleset *rs;
	struct profile *prof;
	struct fsettings *cache;
} config;

typedef struct profile {
	char *path;
	spec *enable, *disable, *severity;
	size_t n_enable, n_disable, n_severity;
	rule_cfg *rules;
	size_t n_rules;
} profile;

typedef struct fsettings {
	unsigned long long mask; /* which path sections matched */
	file_settings s;
	unsigned char *enabled;
	signed char *severity;
	char **accept;
	struct fsettings *next;
} fsettings;

typedef struct rs_entry {
	char *key;
	jh_ruleset *rs;
	struct rs_entry *next;
} rs_entry;

typedef struct dir_entry {
	char *dir;
	config *cfg; /* NULL: none here or above */
	struct dir_entry *next;
} dir_entry;

struct cfg_ctx {
	cfg_cli cli;
	config *forced;        /* --config */
	config **all;
	size_t n_all;
	dir_entry *dirs;
	rs_entry *rulesets;
	config none;           /* no config file */
	int failed;
	int cli_checked;       /* the options' rule names checked once */
};

/* Out of memory while a configuration is read or resolved: the reading
 * goes on without what could not be allocated (all that was allocated
 * stays owned by the model, so nothing leaks), cfg_nomem() notes it for
 * the calling thread, and the public call that ran it returns
 * JH_ERR_NOMEM (the configuration is spent: every later call does too).
 * The helpers below note it themselves and return NULL or -1. */
void cfg_nomem(void);
/* Was memory short since the last call (and forget it)? */
int cfg_take_nomem(void);
void *cfg_malloc(size_t n);
char *cfg_strdup(const char *s);
char *cfg_strndup(const char *s, size_t n);
/* Room for one more element after the n of *v (arrays grow by one: sizes
 * here are tiny).  0, or -1 with *v as it was. */
int cfg_push(void *v, size_t n, size_t elem);

/* ---- config_stamp.c: the files a configuration was read from ---- */
typedef struct {
	char *path;
	int present;
	unsigned long long dev, ino;
	long long size, sec;
	long nsec;
} cfg_stamp;
typedef struct {
	cfg_stamp *v;
	size_t n;
} cfg_stamps;
struct stat;
/* Where this thread's reading notes its files (NULL: nowhere). */
void cfg_set_watch(cfg_stamps *s);
/* Note path as st shows it (NULL: absent), or as stat shows it now; a
 * rules folder with its .rules files. */
void cfg_note_stat(const char *path, const struct stat *st);
void cfg_note(const char *path);
void cfg_note_rules_dir(const char *dir);
/* 1 when a noted file is not as it was noted. */
int cfg_stamps_changed(const cfg_stamps *s);
void cfg_stamps_free(cfg_stamps *s);

/* ---- config_read.c ---- */
/* s without leading and trailing blanks (in place). */
char *trim(char *s);
/* A comma-separated list, trimmed, empty items dropped. */
size_t split_list(const char *v, char ***out);
void free_list(char **v, size_t n);
/* p relative to dir (an absolute p as it is); malloc'd. */
char *resolve_rel(const char *dir, const char *p);
/* Read path (and its extend = chain) into c.  Returns the number of errors
 * (reported). */
int load_into(config *c, const char *path, int depth);
/* Read a profile file into p; the number of errors. */
int parse_ini(const char *path, void *target, int is_profile);
/* A config, profile or word file whole: a regular file of at most 64 MB,
 * without NUL bytes; NULL with *why saying what is wrong. */
char *cfg_slurp(const char *path, char *why, size_t why_size);
void config_free(config *c);
void profile_free(profile *p);

#endif
