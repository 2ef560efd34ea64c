/* check_examples.c — every rule in the real rules/ folder loads, compiles
 * and passes its own examples (bad ones found and fixed as written, good
 * ones left alone).  This is what makes a rule file its own test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests.h"

#define RULES_DIR JH_SRCDIR "/rules"

START_TEST(rules_folder_loads)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_dir(rs, RULES_DIR, test_diag_collect, &ds);
	int crc = jh_ruleset_compile(rs, test_diag_collect, &ds);
	/* Every diagnostic is printed, not only the first failure. */
	if (ds.count)
		fprintf(stderr, "%s: load/compile diagnostics:%s\n", RULES_DIR, test_diags_text(&ds));
	ck_assert_msg(rc == JH_OK && crc == JH_OK && test_diags_count(&ds, JH_ERROR) == 0,
	              "rules in %s do not load cleanly (load %d, compile %d):%s", RULES_DIR, rc, crc,
	              test_diags_text(&ds));
	ck_assert_msg(jh_ruleset_count(rs) >= 1, "no rules found in %s", RULES_DIR);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(every_rule_passes_its_examples)
{
	test_diags load = TEST_DIAGS_INIT, fails = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	/* Load problems are rules_folder_loads' to report; here each rule
	 * that loaded is run, broken ones count as failing. */
	jh_ruleset_load_dir(rs, RULES_DIR, test_diag_collect, &load);
	jh_ruleset_compile(rs, test_diag_collect, &load);
	size_t n = jh_ruleset_count(rs), failing_rules = 0, examples = 0;
	for (size_t i = 0; i < n; i++) {
		jh_rule_info info;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &info);
		examples += info.n_examples;
		int f = jh_rule_run_examples(rs, i, test_diag_collect, &fails);
		ck_assert_msg(f >= 0, "%s: jh_rule_run_examples failed with status %d", info.id, f);
		if (f > 0)
			failing_rules++;
	}
	if (fails.count)
		fprintf(stderr, "%s: failing examples:%s\n", RULES_DIR, test_diags_text(&fails));
	ck_assert_msg(failing_rules == 0, "%zu of %zu rules fail their examples (%zu failures):%s",
	              failing_rules, n, fails.count, test_diags_text(&fails));
	ck_assert_msg(n >= 1 && examples >= 2 * n, "%zu rules with %zu examples in %s", n, examples,
	              RULES_DIR);
	jh_ruleset_free(rs);
	test_diags_free(&load);
	test_diags_free(&fails);
}
END_TEST

/* Every edit of a finding's fix and of its ranked answers lies inside the
 * finding's span: a fix changes only bytes the finding names (what a user
 * sees underlined is what changes).  Nothing in the engine enforces it, so
 * each rule is held to it here: every rule on, on every example of every
 * rule (examples written for one rule meet all the others), on the corpus
 * samples and on the verbatim-span texts of tests/data/trust, whose
 * brackets around ANSI colour sequences, paths and URLs are fixed piece by
 * piece around the span (verbatim.c, edit_hits). */
static size_t edits_outside(const jh_ruleset *rs, const unsigned char *all, const char *text,
                            size_t len, const char *what)
{
	jh_check_options o = JH_CHECK_OPTIONS_INIT;
	o.enabled = all;
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(jh_check(rs, text, len, &o, &fs), JH_OK);
	size_t bad = 0;
	for (size_t i = 0; i < fs.count; i++) {
		const jh_finding *f = &fs.items[i];
		for (size_t a = 0; a <= f->n_alternatives; a++) {
			const jh_edit *e = a ? f->alternatives[a - 1].edits : f->edits;
			size_t n = a ? f->alternatives[a - 1].n_edits : f->n_edits;
			for (size_t k = 0; k < n; k++)
				if (e[k].byte_start < f->byte_start || e[k].byte_end > f->byte_end) {
					if (bad++ < 10)
						fprintf(stderr, "%s: %s [%zu, %zu): edit [%zu, %zu) outside it\n", what,
						        f->rule_id, f->byte_start, f->byte_end, e[k].byte_start,
						        e[k].byte_end);
				}
		}
	}
	jh_findings_clear(&fs);
	return bad;
}

START_TEST(every_fix_stays_in_its_span)
{
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	jh_ruleset_load_dir(rs, RULES_DIR, NULL, NULL);
	ck_assert_int_eq(jh_ruleset_compile(rs, NULL, NULL), JH_OK);
	size_t n = jh_ruleset_count(rs), bad = 0, texts = 0;
	unsigned char *all = malloc(n);
	ck_assert_ptr_nonnull(all);
	memset(all, 1, n);
	for (size_t i = 0; i < n; i++) {
		jh_rule_info info = JH_RULE_INFO_INIT;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &info);
		for (size_t k = 0; k < info.n_examples; k++) {
			jh_example ex = JH_EXAMPLE_INIT;
			ck_assert_int_eq(jh_rule_get_example(jh_ruleset_rule(rs, i), k, &ex), JH_OK);
			bad += edits_outside(rs, all, ex.text, strlen(ex.text), info.id);
			texts++;
		}
	}
	static const char *const dirs[] = {"corpus-samples", "tests/data/trust"};
	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", JH_SRCDIR, dirs[d]);
		DIR *dir = opendir(path);
		ck_assert_msg(dir != NULL, "cannot list %s", path);
		for (struct dirent *de; (de = readdir(dir));) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s/%s", JH_SRCDIR, dirs[d], de->d_name);
			jh_file *f;
			if (jh_file_read(path, 0, &f, NULL) != JH_OK)
				continue; /* a folder */
			size_t len;
			const char *text = jh_file_data(f, &len);
			bad += edits_outside(rs, all, text, len, path);
			texts++;
			jh_file_free(f);
		}
		closedir(dir);
	}
	ck_assert_msg(bad == 0, "%zu edits outside their finding's span in %zu texts", bad, texts);
	ck_assert_uint_gt(texts, 2 * n);
	free(all);
	jh_ruleset_free(rs);
}
END_TEST

Suite *examples_suite(void)
{
	Suite *s = suite_create("examples");
	/* Many rules, each example checked and fixed twice. */
	TCase *tc = test_tcase("rules", 60);
	tcase_add_test(tc, rules_folder_loads);
	tcase_add_test(tc, every_rule_passes_its_examples);
	tcase_add_test(tc, every_fix_stays_in_its_span);
	suite_add_tcase(s, tc);
	return s;
}
