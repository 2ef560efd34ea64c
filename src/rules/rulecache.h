/* rulecache.h — a rules folder as read, kept in the cache folder, so that
 * a start maps it instead of parsing the INI files (4.7 M instructions of
 * a one-line check's 11.9 M).  See rulecache.c. */
#ifndef JH_RULECACHE_H
#define JH_RULECACHE_H

#include "rules.h"

/* What a folder's load did that its cache file must hold: the rules in the
 * order they were first defined (indices in the rule set), the example
 * files read, and whether anything was reported (then nothing is stored:
 * a cached load reports nothing). */
typedef struct jh_rc_log {
	size_t *pushed;
	size_t n_pushed, cap_pushed;
	char **xfiles;
	size_t n_xfiles, cap_xfiles;
	unsigned diags;
	int failed; /* memory ran out for the log itself */
} jh_rc_log;

/* Called by the loader while rs->log is set. */
void jh_rc_log_push(jh_rc_log *log, size_t idx);
void jh_rc_log_file(jh_rc_log *log, const char *path);
void jh_rc_log_free(jh_rc_log *log);

/* The state of the folder's rule files (names[0..n), sorted) now: 0 with
 * *ident, -1 when one cannot be looked at (no cache then). */
int jh_rc_ident(const char *dir, char *const *names, size_t n, uint64_t *ident);

/* Apply the cached load of dir to rs, as a parse of its files would:
 * JH_OK, JH_ERR_NOMEM (the rules applied so far stay, unchecked, as after
 * a parse that ran out), or 1: no usable cache file (nothing applied). */
int jh_rc_load(jh_ruleset *rs, const char *dir, size_t n_files, uint64_t ident);

/* Write the cache file of the load just made (loads0: rs->loads before it). */
void jh_rc_store(const jh_ruleset *rs, const char *dir, size_t n_files, unsigned loads0,
                 uint64_t ident, const jh_rc_log *log);

/* Munmap what jh_rc_load mapped (the rule set's, freed with it). */
void jh_rc_unmap(jh_ruleset *rs);

#endif
