/* check_rules.c — the rule file parser: every field of a good rule, every
 * kind of broken rule (reported with file and line through jh_diag_fn),
 * escapes, overriding, continuation lines, folders, and rule selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "tests.h"

/* A complete regex rule, for tests about something else. */
#define RULE(id) "[" id "]\nkind = regex\nmessage = m\npattern = x\nbad = x\ngood = y\n"

static const jh_rule *rule_by_id(const jh_ruleset *rs, const char *id)
{
	long i = jh_ruleset_find(rs, id);
	ck_assert_msg(i >= 0, "rule %s not loaded", id);
	return jh_ruleset_rule(rs, (size_t)i);
}

START_TEST(good_rule_all_fields)
{
	static const char ini[] =
		"# a comment before the first rule\n"           /* 1 */
		"[typo.sample]\n"                                /* 2 */
		"kind = regex\n"                                 /* 3 */
		"message = 把“{match}”改成“{fix}”\n"             /* 4 */
		"description = 第一行说明\n"                     /* 5 */
		"  第二行说明\n"                                 /* 6 */
		"severity = error\n"                             /* 7 */
		"pattern = 在次\n"                               /* 8 */
		"trigger = 在\n"                                 /* 9 */
		"lead = 1\n"                                     /* 10 */
		"fix = 再次\n"                                   /* 11 */
		"safety = safe\n"                                /* 12 */
		"enabled = false\n"                              /* 13 */
		"bad = 我在次来了\n"                             /* 14 */
		"fixed = 我再次来了\n"                           /* 15 */
		"good = 我再次来了\n"                            /* 16 */
		"good = 零宽\\u{200B}空格\\s\\t\\\\n\n"          /* 17 */
		"\n"                                             /* 18 */
		"[censor.minimal]\n"                             /* 19 */
		"kind = regex\n"                                 /* 20 */
		"message = m\n"                                  /* 21 */
		"pattern = x\n"                                  /* 22 */
		"bad = x\n"                                      /* 23 */
		"good = y\n";                                    /* 24 */
	jh_ruleset *rs = test_ruleset(ini);
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	ck_assert_int_eq(jh_ruleset_find(rs, "typo.sample"), 0);
	ck_assert_int_eq(jh_ruleset_find(rs, "censor.minimal"), 1);
	ck_assert_int_eq(jh_ruleset_find(rs, "typo"), -1);
	ck_assert_ptr_null(jh_ruleset_rule(rs, 2));

	jh_rule_info info = JH_RULE_INFO_INIT;
	jh_rule_get_info(jh_ruleset_rule(rs, 0), &info);
	ck_assert_uint_eq(info.version, JH_RULE_INFO_VERSION); /* the caller's, kept */
	ck_assert_str_eq(info.id, "typo.sample");
	ck_assert_str_eq(info.family, "typo");
	ck_assert_int_eq(info.kind, JH_KIND_REGEX);
	ck_assert_int_eq(info.severity, JH_ERROR);
	ck_assert_str_eq(info.message, "把“{match}”改成“{fix}”");
	ck_assert_str_eq(info.description, "第一行说明 第二行说明");
	ck_assert_int_eq(info.has_fix, 1);
	ck_assert_int_eq(info.safety, JH_SAFE);
	ck_assert_int_eq(info.enabled_by_default, 0);
	ck_assert_str_eq(info.file, TEST_RULES_NAME);
	ck_assert_uint_eq(info.n_examples, 3);

	const jh_rule *r = jh_ruleset_rule(rs, 0);
	ck_assert_str_eq(r->pattern, "在次");
	ck_assert_str_eq(r->trigger, "在");
	ck_assert_uint_eq(r->lead, 1);
	ck_assert_str_eq(r->fix, "再次");

	jh_example ex = JH_EXAMPLE_INIT;
	ck_assert_int_eq(jh_rule_get_example(r, 0, &ex), JH_OK);
	ck_assert_uint_eq(ex.version, JH_EXAMPLE_VERSION);
	ck_assert_int_eq(ex.kind, JH_EXAMPLE_BAD);
	ck_assert_str_eq(ex.text, "我在次来了");
	ck_assert_str_eq(ex.fixed, "我再次来了");
	ck_assert_uint_eq(ex.line, 14);
	ck_assert_int_eq(jh_rule_get_example(r, 1, &ex), JH_OK);
	ck_assert_int_eq(ex.kind, JH_EXAMPLE_GOOD);
	ck_assert_str_eq(ex.text, "我再次来了");
	ck_assert_ptr_null(ex.fixed);
	ck_assert_uint_eq(ex.line, 16);
	ck_assert_int_eq(jh_rule_get_example(r, 2, &ex), JH_OK);
	ck_assert_str_eq(ex.text, "零宽\xE2\x80\x8B空格 \t\\n");
	ck_assert_uint_eq(ex.line, 17);
	ck_assert_int_eq(jh_rule_get_example(r, 3, &ex), JH_ERR_ARG);

	/* Defaults of a rule that says little. */
	jh_rule_get_info(jh_ruleset_rule(rs, 1), &info);
	ck_assert_str_eq(info.family, "censor");
	ck_assert_int_eq(info.severity, JH_WARNING);
	ck_assert_int_eq(info.has_fix, 0);
	ck_assert_int_eq(info.enabled_by_default, 1);
	ck_assert_ptr_null(info.description);
	ck_assert_uint_eq(info.n_examples, 2);

	unsigned char sel[2];
	jh_ruleset_default_selection(rs, sel);
	ck_assert_int_eq(sel[0], 0);
	ck_assert_int_eq(sel[1], 1);
	jh_ruleset_free(rs);
}
END_TEST

/* A broken rule: the error names the file, the line and the rule. */
typedef struct {
	const char *ini;
	unsigned line;       /* 0: not checked here (see rule_errors_at_section) */
	const char *needle;  /* part of the message */
	const char *rule_id; /* NULL: the diagnostic names no rule */
} error_case;

static void expect_errors(const error_case *cases, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const error_case *c = &cases[i];
		test_diags ds = TEST_DIAGS_INIT;
		jh_ruleset *rs;
		int rc = test_ruleset_try(c->ini, &rs, &ds);
		ck_assert_msg(rc == JH_ERR_RULES, "case %zu (%s): status %d, expected JH_ERR_RULES", i,
		              c->needle, rc);
		const test_diag *d = test_diags_find(&ds, c->needle);
		ck_assert_msg(d != NULL, "case %zu: no diagnostic with '%s'; got:%s", i, c->needle,
		              test_diags_text(&ds));
		ck_assert_int_eq(d->severity, JH_ERROR);
		ck_assert_msg(d->file && strcmp(d->file, TEST_RULES_NAME) == 0,
		              "case %zu (%s): file %s", i, c->needle, d->file ? d->file : "(none)");
		if (c->line)
			ck_assert_msg(d->line == c->line, "case %zu (%s): line %u, expected %u", i, c->needle,
			              d->line, c->line);
		if (c->rule_id)
			ck_assert_msg(d->rule_id && strcmp(d->rule_id, c->rule_id) == 0,
			              "case %zu (%s): rule %s, expected %s", i, c->needle,
			              d->rule_id ? d->rule_id : "(none)", c->rule_id);
		else
			ck_assert_msg(d->rule_id == NULL, "case %zu (%s): names rule %s", i, c->needle,
			              d->rule_id);
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
}

START_TEST(bad_values)
{
	static const error_case cases[] = {
		{"[typo.k]\nkind = magic\nmessage = m\npattern = x\nbad = x\ngood = y\n", 2,
		 "kind must be", "typo.k"},
		{"[typo.k]\nkind = regex\nseverity = fatal\nmessage = m\npattern = x\nbad = x\ngood = y\n",
		 3, "severity must be", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = y\nsafety = maybe\n"
		 "bad = x\ngood = y\n",
		 6, "safety must be", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nenabled = perhaps\nbad = x\ngood = y\n",
		 5, "enabled must be", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nlead = 65\nbad = x\ngood = y\n", 5,
		 "lead must be", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nlead = two\nbad = x\ngood = y\n", 5,
		 "lead must be", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nnear = 0\nbad = x\ngood = y\n", 5,
		 "near must be", "typo.k"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(unknown_kind_breaks_rule)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	test_ruleset_try("[typo.k]\nkind = magic\nmessage = m\npattern = x\nbad = x\ngood = y\n"
	                 RULE("typo.fine"), &rs, &ds);
	/* The broken rule is kept (so it can be listed) but never runs. */
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	jh_rule_info info;
	jh_rule_get_info(rule_by_id(rs, "typo.k"), &info);
	ck_assert_int_eq(info.enabled_by_default, 0);
	jh_rule_get_info(rule_by_id(rs, "typo.fine"), &info);
	ck_assert_int_eq(info.enabled_by_default, 1);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(missing_keys)
{
	static const error_case cases[] = {
		{"[typo.k]\nmessage = m\npattern = x\nbad = x\ngood = y\n", 0, "missing 'kind'", "typo.k"},
		{"[typo.k]\nkind = regex\npattern = x\nbad = x\ngood = y\n", 0, "missing 'message'",
		 "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\nbad = x\ngood = y\n", 0,
		 "regex rule without 'pattern'", "typo.k"},
		{"[typo.k]\nkind = lexicon\nmessage = m\nsafety = safe\nbad = x\ngood = y\n", 0,
		 "lexicon rule without", "typo.k"},
		{"[typo.k]\nkind = builtin\nmessage = m\nbad = x\ngood = y\n", 0,
		 "builtin rule without 'check'", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = y\nbad = x\ngood = y\n", 0,
		 "safety = safe", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\n", 0,
		 "at least one 'bad' and one 'good'", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\ngood = x\n", 0,
		 "at least one 'bad' and one 'good'", "typo.k"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(fixed_without_bad)
{
	static const error_case cases[] = {
		/* first example of the rule */
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfixed = y\nbad = x\ngood = y\n", 5,
		 "'fixed' must follow", "typo.k"},
		/* after a good example */
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\ngood = y\nfixed = y\n", 7,
		 "'fixed' must follow", "typo.k"},
		/* a second 'fixed' for one 'bad' */
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = y\nsafety = safe\nbad = x\n"
		 "fixed = y\nfixed = z\ngood = y\n",
		 9, "'fixed' must follow", "typo.k"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(bad_escapes)
{
#define ESC_RULE(line) "[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\n" line "\n"
	static const error_case cases[] = {
		{ESC_RULE("good = a\\qb"), 6, "unknown escape", "typo.k"},
		{ESC_RULE("good = \\u{110000}"), 6, "not a Unicode scalar value", "typo.k"},
		{ESC_RULE("good = \\u{D800}"), 6, "not a Unicode scalar value", "typo.k"},
		{ESC_RULE("good = \\u{}"), 6, "not a Unicode scalar value", "typo.k"},
		{ESC_RULE("good = \\u{12G4}"), 6, "bad hex digits", "typo.k"},
		{ESC_RULE("good = \\u{1234567}"), 6, "bad hex digits", "typo.k"},
		{ESC_RULE("good = \\u{200B"), 6, "not a Unicode scalar value", "typo.k"},
		{ESC_RULE("good = \\u200B"), 6, "followed by {HEX}", "typo.k"},
		{ESC_RULE("good = ab\\"), 6, "unknown escape", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = \\q\nsafety = safe\n"
		 "bad = x\ngood = y\n",
		 5, "fix: unknown escape", "typo.k"},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = y\nsafety = safe\n"
		 "bad = x\nfixed = \\u{D800}\ngood = y\n",
		 8, "fixed: \\u{...} is not", "typo.k"},
	};
#undef ESC_RULE
	expect_errors(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(bad_rule_ids)
{
	static const error_case cases[] = {
		{RULE("foo.bar"), 0, "bad rule id [foo.bar]", "foo.bar"},
		{RULE("typo"), 0, "bad rule id [typo]", "typo"},
		{RULE("typo."), 0, "bad rule id [typo.]", "typo."},
		{RULE("typo.Upper"), 0, "bad rule id [typo.Upper]", "typo.Upper"},
		{RULE("typo.名字"), 0, "bad rule id", "typo.名字"},
		{RULE("typos.x"), 0, "bad rule id [typos.x]", "typos.x"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);

	/* Every family and the characters a name may use are accepted. */
	jh_ruleset *rs = test_ruleset(RULE("censor.a-1") RULE("script.b.c") RULE("punct.d")
	                              RULE("layout.e") RULE("typo.f") RULE("encoding.g"));
	ck_assert_uint_eq(jh_ruleset_count(rs), 6);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(syntax_errors)
{
	static const error_case cases[] = {
		{"[typo.k]\nkind = regex\nmessage = m\n这一行没有等号\npattern = x\nbad = x\ngood = y\n",
		 4, "syntax error", NULL},
		{"# comment\nkind = regex\n" RULE("typo.k"), 2, "outside any", NULL},
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\ngood = y\n  z\n", 7,
		 "cannot continue", "typo.k"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(unknown_keys)
{
	static const error_case cases[] = {
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\ncolour = red\nbad = x\ngood = y\n", 5,
		 "unknown key 'colour'", "typo.k"},
		/* a builtin parameter given to a regex rule */
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\ngood = y\nlimit = 5\n", 7,
		 "unknown key 'limit'", "typo.k"},
		{"[typo.k]\nkind = lexicon\nlexicon = lex-overlap.tsv\nmessage = m\nsafety = safe\n"
		 "bad = x\ngood = y\nchars = 的\n",
		 8, "unknown key 'chars'", "typo.k"},
		{"[typo.k]\nkind = builtin\ncheck = doubled\nmessage = m\nbad = x\ngood = y\nlimit = 5\n",
		 7, "unknown key 'limit'", "typo.k"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);

	/* The rule is not compiled, so it is off even when selected. */
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	test_ruleset_try(cases[0].ini, &rs, &ds);
	unsigned char sel[1] = {1};
	jh_ruleset_default_selection(rs, sel);
	ck_assert_int_eq(sel[0], 0);
	ck_assert_int_eq(jh_selection_apply(rs, sel, "typo.k", 1, NULL, 0), JH_OK);
	ck_assert_int_eq(sel[0], 0);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* Errors about a rule as a whole belong to its [section] line, which is
 * also the line jh_rule_info gives for "defined at". */
START_TEST(rule_errors_at_section)
{
	static const error_case cases[] = {
		{"# c\n[typo.k]\nmessage = m\npattern = x\nbad = x\ngood = y\n", 2, "missing 'kind'",
		 "typo.k"},
		{"# c\n[typo.k]\nkind = regex\npattern = x\nbad = x\ngood = y\n", 2, "missing 'message'",
		 "typo.k"},
		{"# c\n[typo.k]\nkind = regex\nmessage = m\nbad = x\ngood = y\n", 2, "without 'pattern'",
		 "typo.k"},
		{"# c\n[typo.k]\nkind = regex\nmessage = m\npattern = x\nfix = y\nbad = x\ngood = y\n", 2,
		 "safety = safe", "typo.k"},
		{"# c\n[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\n", 2,
		 "at least one 'bad'", "typo.k"},
		{"# c\n" RULE("foo.bar"), 2, "bad rule id", "foo.bar"},
	};
	expect_errors(cases, sizeof cases / sizeof *cases);

	jh_ruleset *rs = test_ruleset("# c\n\n" RULE("typo.k"));
	jh_rule_info info;
	jh_rule_get_info(jh_ruleset_rule(rs, 0), &info);
	ck_assert_uint_eq(info.line, 3);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(escapes_in_examples)
{
	jh_ruleset *rs = test_ruleset("[censor.zero-width]\n"
	                              "kind = regex\n"
	                              "message = 零宽字符\n"
	                              "pattern = \\x{200B}\n"
	                              "fix = \\u{1F600}\n"
	                              "safety = unsafe\n"
	                              "bad = 子\\u{200B}弹\n"
	                              "fixed = 子\\u{1f600}弹\n"
	                              "good = 子弹\\u{20BB7}\n");
	const jh_rule *r = jh_ruleset_rule(rs, 0);
	jh_example ex;
	jh_rule_get_example(r, 0, &ex);
	ck_assert_str_eq(ex.text, "子\xE2\x80\x8B弹");
	ck_assert_str_eq(ex.fixed, "子\xF0\x9F\x98\x80弹");
	jh_rule_get_example(r, 1, &ex);
	ck_assert_str_eq(ex.text, "子弹\xF0\xA0\xAE\xB7");
	ck_assert_str_eq(r->fix, "\xF0\x9F\x98\x80");
	/* The escaped character is really in the example: the rule finds it. */
	ck_assert_int_eq(jh_rule_run_examples(rs, 0, NULL, NULL), 0);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(same_id_replaces)
{
	/* Within one text: the later definition wins, in the earlier's place,
	 * with a warning that names both lines. */
	jh_ruleset *rs;
	test_diags dup = TEST_DIAGS_INIT;
	ck_assert_int_eq(test_ruleset_try("[typo.a]\nkind = regex\nmessage = first\npattern = x\n"
	                                  "severity = error\nbad = x\ngood = y\n"
	                                  RULE("typo.b")
	                                  "[typo.a]\nkind = regex\nmessage = second\npattern = y\n"
	                                  "bad = y\ngood = x\n", &rs, &dup), JH_OK);
	ck_assert_uint_eq(dup.count, 1);
	ck_assert_int_eq(dup.items[0].severity, JH_WARNING);
	ck_assert_ptr_nonnull(strstr(dup.items[0].message, "defined again (first on line 1)"));
	ck_assert_uint_gt(dup.items[0].line, 8);
	test_diags_free(&dup);
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	ck_assert_int_eq(jh_ruleset_find(rs, "typo.a"), 0);
	jh_rule_info info;
	jh_rule_get_info(jh_ruleset_rule(rs, 0), &info);
	ck_assert_str_eq(info.message, "second");
	/* Nothing of the first definition survives. */
	ck_assert_int_eq(info.severity, JH_WARNING);
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, "xy", 2, &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "typo.a"), 1);
	test_assert_finding(&fs, 0, "typo.b", 0, 1, NULL);
	test_assert_finding(&fs, 1, "typo.a", 1, 2, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	/* Across loads (a project folder over the defaults). */
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, "defaults.rules", RULE("typo.a") RULE("typo.b"),
	                                        NULL, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, "project.rules",
	                                        "[typo.a]\nkind = regex\nmessage = mine\n"
	                                        "pattern = y\nbad = y\ngood = x\n",
	                                        NULL, test_diag_collect, &ds), JH_OK);
	ck_assert_msg(ds.count == 0, "diagnostics:%s", test_diags_text(&ds));
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	jh_rule_get_info(rule_by_id(rs, "typo.a"), &info);
	ck_assert_str_eq(info.message, "mine");
	ck_assert_str_eq(info.file, "project.rules");
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* A rule that replaces one from an earlier load is checked like any other:
 * an override missing its message must not load silently. */
START_TEST(override_is_validated)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, "defaults.rules", RULE("typo.a"), NULL,
	                                        test_diag_collect, &ds), JH_OK);
	int rc = jh_ruleset_load_string(rs, "project.rules",
	                                "[typo.a]\nkind = regex\npattern = y\nbad = y\ngood = x\n",
	                                NULL, test_diag_collect, &ds);
	const test_diag *d = test_diags_find(&ds, "missing 'message'");
	ck_assert_msg(rc == JH_ERR_RULES && d != NULL,
	              "override without message: status %d, diagnostics:%s", rc, test_diags_text(&ds));
	ck_assert_str_eq(d->file, "project.rules");
	jh_rule_info info;
	jh_rule_get_info(rule_by_id(rs, "typo.a"), &info);
	ck_assert_int_eq(info.enabled_by_default, 0);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(continuation_lines)
{
	jh_ruleset *rs = test_ruleset("[typo.multi]\n"      /* 1 */
	                              "kind = regex\n"       /* 2 */
	                              "message = 第一段\n"   /* 3 */
	                              "\t第二段\n"           /* 4 */
	                              "pattern = 在\n"       /* 5 */
	                              "  次\n"               /* 6 */
	                              "\t(?=来)\n"           /* 7 */
	                              "bad = 我在次来了\n"   /* 8 */
	                              "good = 我在次去了\n"); /* 9 */
	const jh_rule *r = jh_ruleset_rule(rs, 0);
	ck_assert_str_eq(r->pattern, "在次(?=来)");
	ck_assert_str_eq(r->message, "第一段第二段");
	jh_example ex;
	jh_rule_get_example(r, 0, &ex);
	ck_assert_uint_eq(ex.line, 8);
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, "我在次来了，在次去", strlen("我在次来了，在次去"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.multi", 3, 9, NULL);
	ck_assert_str_eq(fs.items[0].message, "第一段第二段");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(rule_text_forms)
{
	/* A BOM and CRLF line ends (a file saved on Windows), and values with
	 * ';' and '#', which are not comments inside a value. */
	static const char ini[] = "\xEF\xBB\xBF[punct.semi]\r\n"       /* 1 */
	                          "kind = regex\r\n"                     /* 2 */
	                          "message = 半角分号 ; 不是注释\r\n"     /* 3 */
	                          "pattern = ;(?=#)\r\n"                 /* 4 */
	                          "bad = a;#b\r\n"                       /* 5 */
	                          "good = a ; b # c\r\n"                 /* 6 */
	                          "severity = fatal\r\n";                /* 7 */
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(test_ruleset_try(ini, &rs, &ds), JH_ERR_RULES);
	ck_assert_msg(ds.count == 1 && ds.items[0].line == 7 &&
	                  strstr(ds.items[0].message, "severity") != NULL,
	              "diagnostics:%s", test_diags_text(&ds));
	ck_assert_uint_eq(jh_ruleset_count(rs), 1);
	jh_rule_info info;
	jh_rule_get_info(jh_ruleset_rule(rs, 0), &info);
	ck_assert_str_eq(info.id, "punct.semi");
	ck_assert_str_eq(info.message, "半角分号 ; 不是注释");
	const jh_rule *r = jh_ruleset_rule(rs, 0);
	ck_assert_str_eq(r->pattern, ";(?=#)");
	jh_example ex;
	jh_rule_get_example(r, 0, &ex);
	ck_assert_str_eq(ex.text, "a;#b");
	ck_assert_uint_eq(ex.line, 5);
	jh_rule_get_example(r, 1, &ex);
	ck_assert_str_eq(ex.text, "a ; b # c");
	ck_assert_int_eq(jh_rule_run_examples(rs, 0, NULL, NULL), 0);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(long_lines)
{
	/* Long patterns and examples are common; the INI reader must not cut
	 * a line at some buffer size. */
	char good[700] = "", pattern[700] = "";
	for (int i = 0; i < 150; i++)
		strcat(good, "好");
	for (int i = 0; i < 60; i++)
		strcat(pattern, i ? "|在次" : "在次");
	char ini[2048];
	snprintf(ini, sizeof ini,
	         "[typo.long]\nkind = regex\nmessage = m\npattern = %s\nbad = 在次\ngood = %s\n"
	         RULE("typo.after"),
	         pattern, good);
	jh_ruleset *rs = test_ruleset(ini);
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	const jh_rule *r = jh_ruleset_rule(rs, 0);
	ck_assert_str_eq(r->pattern, pattern);
	jh_example ex;
	jh_rule_get_example(r, 1, &ex);
	ck_assert_str_eq(ex.text, good);
	jh_rule_get_example(jh_ruleset_rule(rs, 1), 0, &ex);
	ck_assert_uint_eq(ex.line, 11);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(load_dir_in_name_order)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_dir(rs, TEST_DATA_DIR "/rules-dir", test_diag_collect, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "status %d:%s", rc, test_diags_text(&ds));
	ck_assert_uint_eq(jh_ruleset_count(rs), 2);
	jh_rule_info info;
	jh_rule_get_info(rule_by_id(rs, "typo.dir-override"), &info);
	ck_assert_str_eq(info.message, "from b");
	ck_assert_str_eq(info.file, TEST_DATA_DIR "/rules-dir/b.rules");
	jh_rule_get_info(rule_by_id(rs, "typo.dir-lex"), &info);
	ck_assert_str_eq(info.file, TEST_DATA_DIR "/rules-dir/a.rules");
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	/* The lexicon came from data/ beside a.rules. */
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, "我在次来", strlen("我在次来"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.dir-lex", 3, 9, "再次");
	ck_assert_str_eq(fs.items[0].message, "“在次”应为“再次”");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(missing_files)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_file(rs, TEST_DATA_DIR "/no-such.rules", test_diag_collect,
	                                      &ds), JH_ERR_IO);
	ck_assert_uint_eq(ds.count, 1);
	ck_assert_str_eq(ds.items[0].file, TEST_DATA_DIR "/no-such.rules");
	ck_assert_int_eq(jh_ruleset_load_dir(rs, TEST_DATA_DIR "/no-such-dir", test_diag_collect,
	                                     &ds), JH_ERR_IO);
	ck_assert_uint_eq(ds.count, 2);
	ck_assert_str_eq(ds.items[1].file, TEST_DATA_DIR "/no-such-dir");
	ck_assert_uint_eq(jh_ruleset_count(rs), 0);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* encoding.invalid-utf8 needs bad examples that are not UTF-8, in a rule
 * file that is: \xHH escapes give the bytes, in encoding rules only. */
START_TEST(encoding_example_bytes)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_file(rs, TEST_DATA_DIR "/encoding-escape.rules", test_diag_collect,
	                              &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "status %d:%s", rc, test_diags_text(&ds));
	ck_assert_uint_eq(jh_ruleset_count(rs), 1);
	jh_example ex;
	jh_rule_get_example(jh_ruleset_rule(rs, 0), 0, &ex);
	ck_assert_str_eq(ex.text, "a\xFF" "b");
	jh_rule_get_example(jh_ruleset_rule(rs, 0), 1, &ex);
	ck_assert_str_eq(ex.text, "截断的\xE4\xB8");
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_rule_run_examples(rs, 0, test_diag_collect, &ds), 0);
	jh_ruleset_free(rs);
	test_diags_free(&ds);

	/* Other families keep their examples valid UTF-8. */
	static const error_case other[] = {
		{"[typo.k]\nkind = regex\nmessage = m\npattern = x\nbad = x\\xFF\ngood = y\n", 5,
		 "not valid UTF-8",
		 "typo.k"},
	};
	expect_errors(other, 1);
}
END_TEST

START_TEST(state_errors)
{
	jh_ruleset *rs = test_ruleset(RULE("typo.a"));
	ck_assert_int_eq(jh_ruleset_load_string(rs, "late.rules", RULE("typo.b"), NULL, NULL, NULL),
	                 JH_ERR_STATE);
	ck_assert_int_eq(jh_ruleset_compile(rs, NULL, NULL), JH_ERR_STATE);
	ck_assert_uint_eq(jh_ruleset_count(rs), 1);
	jh_ruleset_free(rs);

	/* jh_check before compiling. */
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(jh_check(rs, "x", 1, NULL, &fs), JH_ERR_STATE);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(selection)
{
	jh_ruleset *rs = test_ruleset(RULE("typo.doubled") RULE("typo.doubled.extra")
	                              RULE("typo.confusion") RULE("censor.mask")
	                              "[punct.width]\nkind = regex\nmessage = m\npattern = x\n"
	                              "enabled = false\nbad = x\ngood = y\n");
	unsigned char sel[5];
	char bad[32];
	ck_assert_int_eq(jh_ruleset_default_selection(rs, sel), JH_OK);
	ck_assert_mem_eq(sel, "\1\1\1\1\0", 5);

	/* A family prefix. */
	ck_assert_int_eq(jh_selection_apply(rs, sel, "typo", 0, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\0\0\0\1\0", 5);
	/* An id selects itself and the ids below it, not typo.confusion. */
	ck_assert_int_eq(jh_selection_apply(rs, sel, "typo.doubled", 1, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\1\1\0\1\0", 5);
	/* A list, with spaces; a rule off by default can be switched on. */
	ck_assert_int_eq(jh_selection_apply(rs, sel, "punct.width, censor ,typo.confusion", 1, bad,
	                                    sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\1\1\1\1\1", 5);
	ck_assert_int_eq(jh_selection_apply(rs, sel, "typo.doubled.extra", 0, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\1\0\1\1\1", 5);
	ck_assert_int_eq(jh_selection_apply(rs, sel, "all", 0, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\0\0\0\0\0", 5);
	ck_assert_int_eq(jh_selection_apply(rs, sel, "all", 1, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\1\1\1\1\1", 5);
	ck_assert_int_eq(jh_selection_apply(rs, sel, "", 0, bad, sizeof bad), JH_OK);
	ck_assert_mem_eq(sel, "\1\1\1\1\1", 5);

	/* Unknown names, including a prefix that does not end at a dot. */
	ck_assert_int_eq(jh_selection_apply(rs, sel, "typo.dou", 0, bad, sizeof bad), JH_ERR_ARG);
	ck_assert_str_eq(bad, "typo.dou");
	ck_assert_int_eq(jh_selection_apply(rs, sel, "ty", 0, bad, sizeof bad), JH_ERR_ARG);
	ck_assert_str_eq(bad, "ty");
	ck_assert_int_eq(jh_selection_apply(rs, sel, "censor,nosuch", 0, bad, sizeof bad), JH_ERR_ARG);
	ck_assert_str_eq(bad, "nosuch");
	ck_assert_int_eq(jh_selection_apply(rs, sel, "nosuch", 0, bad, 4), JH_ERR_ARG);
	ck_assert_str_eq(bad, "nos");
	ck_assert_int_eq(jh_selection_apply(rs, sel, "nosuch", 0, NULL, 0), JH_ERR_ARG);
	jh_ruleset_free(rs);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = test_tcase("parse", 4);
	tcase_add_test(tc, good_rule_all_fields);
	tcase_add_test(tc, bad_values);
	tcase_add_test(tc, unknown_kind_breaks_rule);
	tcase_add_test(tc, missing_keys);
	tcase_add_test(tc, fixed_without_bad);
	tcase_add_test(tc, bad_escapes);
	tcase_add_test(tc, bad_rule_ids);
	tcase_add_test(tc, syntax_errors);
	tcase_add_test(tc, unknown_keys);
	tcase_add_test(tc, rule_errors_at_section);
	tcase_add_test(tc, escapes_in_examples);
	tcase_add_test(tc, same_id_replaces);
	tcase_add_test(tc, override_is_validated);
	tcase_add_test(tc, continuation_lines);
	tcase_add_test(tc, rule_text_forms);
	tcase_add_test(tc, long_lines);
	suite_add_tcase(s, tc);
	tc = test_tcase("files", 4);
	tcase_add_test(tc, load_dir_in_name_order);
	tcase_add_test(tc, missing_files);
	tcase_add_test(tc, encoding_example_bytes);
	tcase_add_test(tc, state_errors);
	suite_add_tcase(s, tc);
	tc = test_tcase("selection", 4);
	tcase_add_test(tc, selection);
	suite_add_tcase(s, tc);
	return s;
}
