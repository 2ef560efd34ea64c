/* tests.h — shared declarations of the Check unit tests: one suite per
 * library stage, and the helpers every suite uses to build rule sets from
 * INI text and to collect diagnostics. */
#ifndef JH_TESTS_H
#define JH_TESTS_H

#include <check.h>
#include <stddef.h>
#include "jinghua.h"

/* Lexicons and word lists of the test rules. */
#define TEST_DATA_DIR JH_SRCDIR "/tests/data"
/* Name under which inline rule texts are loaded; diagnostics must carry it. */
#define TEST_RULES_NAME "test.rules"

Suite *utf8_suite(void);
Suite *stops_suite(void);
Suite *rules_suite(void);
Suite *rulecache_suite(void);
Suite *lexicon_suite(void);
Suite *regex_suite(void);
Suite *builtins_suite(void);
Suite *findings_suite(void);
Suite *fixer_suite(void);
Suite *examples_suite(void);
Suite *typo_suite(void);
Suite *punct_suite(void);
Suite *script_suite(void);
Suite *censor_suite(void);
Suite *document_suite(void);
Suite *files_suite(void);
Suite *linear_suite(void);

/* A test case whose every test is bounded to cpu_secs CPU seconds (times
 * 4 in a sanitizer build, times CK_TIMEOUT_MULTIPLIER): past that it ends
 * with SIGXCPU.  Wall time bounds it only as a backstop against a hang
 * that sleeps (20 x cpu_secs + 120 s).  cpu_secs is one of the bounds
 * check_main.c has a CPU_BOUND for. */
TCase *test_tcase(const char *name, unsigned cpu_secs);

/* A diagnostic copied out of its callback: jh_diag records are valid only
 * during the call. */
typedef struct {
	jh_severity severity;
	char *file;      /* NULL if the diagnostic had none */
	unsigned line;
	char *rule_id;   /* NULL if the diagnostic had none */
	char *message;
} test_diag;

typedef struct {
	test_diag *items;
	size_t count, cap;
} test_diags;

#define TEST_DIAGS_INIT {NULL, 0, 0}

/* jh_diag_fn that appends to the test_diags given as payload. */
void test_diag_collect(const jh_diag *diag, void *payload);
void test_diags_free(test_diags *ds);
/* Every diagnostic as "file:line: [rule] message" lines, for failure
 * messages; the text lives until the next call. */
const char *test_diags_text(const test_diags *ds);
/* First diagnostic whose message contains needle, or NULL. */
const test_diag *test_diags_find(const test_diags *ds, const char *needle);
/* How many diagnostics have this severity. */
size_t test_diags_count(const test_diags *ds, jh_severity sev);

/* A file of corpus-samples/ (under 1 MB), NUL-terminated; the caller frees it. */
char *test_read_sample(const char *name);
/* How many files in dir have names starting with prefix ("" for all); the
 * path of the first in first (size bytes) when first is not NULL. */
size_t test_files_in(const char *dir, const char *prefix, char *first, size_t size);
/* Set an environment variable for a test; the old value (malloc'd, or
 * NULL) comes back, to hand to test_env_restore. */
char *test_env_set(const char *name, const char *value);
void test_env_restore(const char *name, char *saved);

/* New rule set loaded from INI text (data dir TEST_DATA_DIR) and compiled;
 * fails the test if loading or compiling says anything at all. */
jh_ruleset *test_ruleset(const char *ini);
/* Load INI text into a new rule set and compile it, collecting every
 * diagnostic; returns the first error status of the two steps. */
int test_ruleset_try(const char *ini, jh_ruleset **out, test_diags *diags);

/* jh_check with the rule set's defaults; fails the test on an error. */
void test_check(const jh_ruleset *rs, const char *text, size_t len, jh_findings *out);
/* Number of findings of rule id. */
size_t test_count_rule(const jh_findings *fs, const char *id);
/* jh_fix of a NUL-terminated text; fails the test on an error.  Returns a
 * malloc'd, NUL-terminated string. */
char *test_fix(const jh_ruleset *rs, const char *text, int unsafe, jh_fix_report *report);

/* Assert one finding's rule, byte span and (if has_fix) replacement. */
void test_assert_finding(const jh_findings *fs, size_t i, const char *rule_id, size_t start,
                         size_t end, const char *replacement);

#endif
