/* check_examples.c — every rule in the real rules/ folder loads, compiles
 * and passes its own examples (bad ones found and fixed as written, good
 * ones left alone).  This is what makes a rule file its own test. */
#include <stdio.h>
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

Suite *examples_suite(void)
{
	Suite *s = suite_create("examples");
	/* Many rules, each example checked and fixed twice. */
	TCase *tc = test_tcase("rules", 60);
	tcase_add_test(tc, rules_folder_loads);
	tcase_add_test(tc, every_rule_passes_its_examples);
	suite_add_tcase(s, tc);
	return s;
}
