/* adapter.h — what the language server needs from libjinghua, in the
 * server's terms: check a document (its text, path and languageId), fix it
 * to a fixed point, look a rule up.  One file implements it on the
 * library's API; nothing else in src/lsp/ calls the checking code.
 *
 * Offsets are bytes into the text given.  A result owns all its strings.
 * An adapter is used by one thread at a time (the server's worker).
 */
#ifndef JH_LSP_ADAPTER_H
#define JH_LSP_ADAPTER_H

#include <stddef.h>

#include "jinghua.h"

typedef struct {
	/* NULL = as the configuration of the file says (owned) */
	char *profile, *variant, *select, *ignore;
	/* the default rules folder (NULL: the installed one) and the cache
	 * folder (NULL: none), as the command line finds them (not owned) */
	const char *rules_dir, *cache_dir;
	/* the workspace folders' paths (owned): each has a configuration of
	 * its own, so that a change in one reads that one again alone */
	char **folders;
	size_t n_folders;
} adapter_options;

typedef struct {
	size_t start, end;
	char *text;
} adapter_edit;

/* One way to fix a finding: a complete set of edits, applied together. */
typedef struct {
	adapter_edit *edits;
	size_t n_edits;
	int safe;
	double score;  /* the rule's probability that it is right, or < 0 */
} adapter_alt;

typedef struct {
	char *rule;
	char *rule_file;    /* where the rule is defined, or NULL */
	jh_severity severity;
	size_t start, end;
	char *message;
	adapter_alt *alts;  /* the first is the rule's fix; none when it has no fix */
	size_t n_alts;
} adapter_finding;

typedef struct {
	adapter_finding *v;
	size_t n;
	int markdown; /* read as Markdown: an HTML comment is a switch nobody sees */
} adapter_result;

typedef struct adapter adapter;

/* Returns 0, or -1 with a message in *err (malloc'd). */
int adapter_new(const adapter_options *o, adapter **out, char **err);
void adapter_free(adapter *a);

/* Open again the configuration of path's workspace folder (path NULL:
 * of every folder) if the library calls it stale (jh_config_stale).  The
 * number of configurations replaced; adapter_refreshed then tells which
 * documents they cover.  One that cannot be opened again is kept. */
int adapter_refresh(adapter *a, const char *path);
/* Was path's configuration replaced by the last adapter_refresh? */
int adapter_refreshed(const adapter *a, const char *path);

/* cancel is polled during a long check; when it returns nonzero the check
 * stops.  Returns 0, 1 when cancelled, or -1 with a message in *err. */
int adapter_check(adapter *a, const char *path, const char *language, const char *text,
                  size_t len, int (*cancel)(void *), void *payload, adapter_result *out,
                  char **err);
void adapter_result_free(adapter_result *r);

/* The text with its safe fixes applied to a fixed point (malloc'd).
 * Returns 0 or -1 with a message in *err. */
int adapter_fix(adapter *a, const char *path, const char *language, const char *text,
                size_t len, char **out, size_t *out_len, char **err);

/* The rule a finding of this document names, or NULL; valid until the
 * adapter is freed. */
const jh_rule *adapter_rule(adapter *a, const char *path, const char *language, const char *id);

#endif
