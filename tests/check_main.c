/* check_main.c — runs every suite of the unit tests, and holds the helpers
 * the suites share (tests.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "tests.h"

/* ---- time bounds in CPU seconds ----
 * Check's own timeout is wall time: on a machine shared by a dozen
 * processes a test that needs 3 CPU seconds took over 30 s and failed.  So
 * each test (one process per test under CK_FORK, the default) gets
 * RLIMIT_CPU from a checked fixture: work that grows past the bound ends
 * in SIGXCPU ("CPU time limit exceeded") however loaded the machine.
 * Check's wall timeout stays only as the backstop for a test that hangs
 * without using the CPU.  A fixture takes no argument (and tcase_name() is
 * NULL inside one), so there is one fixture per bound. */
static struct rlimit cpu_before;

/* Sanitizer builds run 2-4 times slower (tests/hostile.sh allows 4 too). */
static double sanitizer_slowdown(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	return 4;
#endif
#endif
	return 1;
}

/* CK_TIMEOUT_MULTIPLIER, Check's knob for slow machines, scales the CPU
 * bound as Check scales its own timeout. */
static double slowdown(void)
{
	const char *e = getenv("CK_TIMEOUT_MULTIPLIER");
	return sanitizer_slowdown() * (e && atof(e) > 0 ? atof(e) : 1);
}

static double cpu_used(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* From what this process has used so far, so that it also holds with
 * CK_FORK=no, where one process runs every test; put back afterwards. */
static void cpu_bound_start(unsigned secs)
{
	ck_assert(getrlimit(RLIMIT_CPU, &cpu_before) == 0);
	struct rlimit r = cpu_before;
	rlim_t want = (rlim_t)(cpu_used() + secs * slowdown()) + 1;
	r.rlim_cur = r.rlim_max != RLIM_INFINITY && want > r.rlim_max ? r.rlim_max : want;
	ck_assert(setrlimit(RLIMIT_CPU, &r) == 0);
}

static void cpu_bound_end(void)
{
	setrlimit(RLIMIT_CPU, &cpu_before);
}

#define CPU_BOUND(n) \
	static void cpu_bound_##n(void) \
	{ \
		cpu_bound_start(n); \
	}
CPU_BOUND(4)
CPU_BOUND(20)
CPU_BOUND(30)
CPU_BOUND(60)
CPU_BOUND(120)
CPU_BOUND(600)

TCase *test_tcase(const char *name, unsigned cpu_secs)
{
	void (*start)(void) = cpu_secs == 4 ? cpu_bound_4 : cpu_secs == 20 ? cpu_bound_20 :
	                      cpu_secs == 30 ? cpu_bound_30 : cpu_secs == 60 ? cpu_bound_60 :
	                      cpu_secs == 120 ? cpu_bound_120 : cpu_secs == 600 ? cpu_bound_600 : NULL;
	if (!start) {
		fprintf(stderr, "check_main: no CPU_BOUND(%u) for test case '%s'\n", cpu_secs, name);
		abort();
	}
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, start, cpu_bound_end);
	/* the backstop for a hang that sleeps (Check applies its multiplier) */
	tcase_set_timeout(tc, (20.0 * cpu_secs + 120) * sanitizer_slowdown());
	return tc;
}

static char *dup_or_null(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	return memcpy(p, s, n);
}

void test_diag_collect(const jh_diag *d, void *payload)
{
	test_diags *ds = payload;
	if (ds->count == ds->cap) {
		size_t cap = ds->cap ? ds->cap * 2 : 16;
		test_diag *v = realloc(ds->items, cap * sizeof *v);
		ck_assert_ptr_nonnull(v);
		ds->items = v;
		ds->cap = cap;
	}
	test_diag *t = &ds->items[ds->count++];
	t->severity = d->severity;
	t->file = dup_or_null(d->file);
	t->line = d->line;
	t->rule_id = dup_or_null(d->rule_id);
	t->message = dup_or_null(d->message ? d->message : "");
}

void test_diags_free(test_diags *ds)
{
	for (size_t i = 0; i < ds->count; i++) {
		free(ds->items[i].file);
		free(ds->items[i].rule_id);
		free(ds->items[i].message);
	}
	free(ds->items);
	ds->items = NULL;
	ds->count = ds->cap = 0;
}

const char *test_diags_text(const test_diags *ds)
{
	/* Bounded: Check sends failure messages through a pipe in one piece. */
	static char buf[8192];
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ds->count && n + 1 < sizeof buf; i++) {
		const test_diag *d = &ds->items[i];
		int w = snprintf(buf + n, sizeof buf - n, "\n  %s:%u: %s [%s] %s", d->file ? d->file : "-",
		                 d->line, jh_severity_name(d->severity), d->rule_id ? d->rule_id : "-",
		                 d->message);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

const test_diag *test_diags_find(const test_diags *ds, const char *needle)
{
	for (size_t i = 0; i < ds->count; i++)
		if (strstr(ds->items[i].message, needle))
			return &ds->items[i];
	return NULL;
}

size_t test_diags_count(const test_diags *ds, jh_severity sev)
{
	size_t n = 0;
	for (size_t i = 0; i < ds->count; i++)
		n += ds->items[i].severity == sev;
	return n;
}

int test_ruleset_try(const char *ini, jh_ruleset **out, test_diags *diags)
{
	jh_ruleset *rs = NULL;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_string(rs, TEST_RULES_NAME, ini, TEST_DATA_DIR, test_diag_collect,
	                                diags);
	int crc = jh_ruleset_compile(rs, test_diag_collect, diags);
	*out = rs;
	return rc ? rc : crc;
}

jh_ruleset *test_ruleset(const char *ini)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(ini, &rs, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "rules did not load cleanly (status %d):%s", rc,
	              test_diags_text(&ds));
	test_diags_free(&ds);
	return rs;
}

char *test_env_set(const char *name, const char *value)
{
	const char *old = getenv(name);
	char *saved = old ? strdup(old) : NULL;
	setenv(name, value, 1);
	return saved;
}

void test_env_restore(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

size_t test_files_in(const char *dir, const char *prefix, char *first, size_t size)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null", dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = 0;
	char line[256];
	while (fgets(line, sizeof line, p)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (!n && first)
			snprintf(first, size, "%s/%.*s", dir, (int)strcspn(line, "\n"), line);
		n++;
	}
	pclose(p);
	return n;
}

char *test_read_sample(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/corpus-samples/%s", JH_SRCDIR, name);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	char *buf = malloc(1 << 20);
	ck_assert_ptr_nonnull(buf);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	ck_assert_msg(feof(f), "%s is over 1 MB: not a sample", path);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

void test_check(const jh_ruleset *rs, const char *text, size_t len, jh_findings *out)
{
	ck_assert_int_eq(jh_check(rs, text, len, NULL, out), JH_OK);
}

size_t test_count_rule(const jh_findings *fs, const char *id)
{
	size_t n = 0;
	for (size_t i = 0; i < fs->count; i++)
		n += strcmp(fs->items[i].rule_id, id) == 0;
	return n;
}

char *test_fix(const jh_ruleset *rs, const char *text, int unsafe, jh_fix_report *report)
{
	char *out = NULL;
	size_t out_len = 0;
	ck_assert_int_eq(jh_fix(rs, text, strlen(text), NULL, unsafe, &out, &out_len, report), JH_OK);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(strlen(out), out_len);
	return out;
}

void test_assert_finding(const jh_findings *fs, size_t i, const char *rule_id, size_t start,
                         size_t end, const char *replacement)
{
	ck_assert_msg(i < fs->count, "finding %zu expected, only %zu found", i, fs->count);
	const jh_finding *f = &fs->items[i];
	ck_assert_msg(strcmp(f->rule_id, rule_id) == 0, "finding %zu: rule %s, expected %s", i,
	              f->rule_id, rule_id);
	ck_assert_msg(f->byte_start == start && f->byte_end == end,
	              "finding %zu (%s): bytes [%zu,%zu), expected [%zu,%zu)", i, rule_id,
	              f->byte_start, f->byte_end, start, end);
	if (!replacement) {
		ck_assert_msg(!f->has_fix, "finding %zu (%s) has a fix, expected none", i, rule_id);
		return;
	}
	ck_assert_msg(f->has_fix && f->n_edits == 1, "finding %zu (%s): expected one edit", i, rule_id);
	ck_assert_msg(f->edits[0].byte_start == start && f->edits[0].byte_end == end,
	              "finding %zu (%s): edit span differs from the finding", i, rule_id);
	ck_assert_msg(strcmp(f->edits[0].replacement, replacement) == 0,
	              "finding %zu (%s): replacement '%s', expected '%s'", i, rule_id,
	              f->edits[0].replacement, replacement);
}

int main(void)
{
	SRunner *sr = srunner_create(utf8_suite());
	srunner_add_suite(sr, stops_suite());
	srunner_add_suite(sr, rules_suite());
	srunner_add_suite(sr, rulecache_suite());
	srunner_add_suite(sr, lexicon_suite());
	srunner_add_suite(sr, regex_suite());
	srunner_add_suite(sr, builtins_suite());
	srunner_add_suite(sr, findings_suite());
	srunner_add_suite(sr, fixer_suite());
	srunner_add_suite(sr, examples_suite());
	srunner_add_suite(sr, typo_suite());
	srunner_add_suite(sr, punct_suite());
	srunner_add_suite(sr, script_suite());
	srunner_add_suite(sr, censor_suite());
	srunner_add_suite(sr, document_suite());
	srunner_add_suite(sr, files_suite());
	srunner_add_suite(sr, linear_suite());
	/* CK_ENV: CK_VERBOSITY=verbose lists every test when asked. */
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
