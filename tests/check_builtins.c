/* check_builtins.c — the checks written in C: doubled characters (with
 * their allow-list, AABB words and stutters), run-on stretches, and
 * invalid UTF-8 reported once per run of bad bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtins.h"
#include "tests.h"

#define DOUBLED_RULE(id, params) \
	"[" id "]\nkind = builtin\ncheck = doubled\nmessage = “{match}”重复了\nfix = $1\n" \
	"safety = safe\n" params "bad = 他的的书\nfixed = 他的书\ngood = 他的书\n"

typedef struct {
	const char *text;
	size_t n;             /* findings expected */
	size_t spans[2][2];   /* their byte spans */
} span_case;

static void expect_spans(const jh_ruleset *rs, const char *id, const span_case *cases,
                         size_t count)
{
	for (size_t c = 0; c < count; c++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[c].text, strlen(cases[c].text), &fs);
		ck_assert_msg(fs.count == cases[c].n, "%s: %zu findings, expected %zu", cases[c].text,
		              fs.count, cases[c].n);
		for (size_t i = 0; i < cases[c].n; i++) {
			ck_assert_str_eq(fs.items[i].rule_id, id);
			ck_assert_msg(fs.items[i].byte_start == cases[c].spans[i][0] &&
			                  fs.items[i].byte_end == cases[c].spans[i][1],
			              "%s: finding %zu at [%zu,%zu), expected [%zu,%zu)", cases[c].text, i,
			              fs.items[i].byte_start, fs.items[i].byte_end, cases[c].spans[i][0],
			              cases[c].spans[i][1]);
		}
		jh_findings_clear(&fs);
	}
}

START_TEST(doubled_flagged)
{
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.doubled", "allow = doubled-allow.txt\n"));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 他(0) 的(3) 的(6) 书(9) */
	test_check(rs, "他的的书", strlen("他的的书"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.doubled", 3, 9, "的");
	ck_assert_str_eq(fs.items[0].message, "“的的”重复了");
	ck_assert_int_eq(fs.items[0].severity, JH_WARNING);
	jh_findings_clear(&fs);

	static const span_case cases[] = {
		{"好的的", 1, {{3, 9}}},              /* at the end of the text */
		{"的的好", 1, {{0, 6}}},              /* at the start */
		{"一二二三四四", 2, {{3, 9}, {12, 18}}},
		{"的的。了了", 2, {{0, 6}, {9, 15}}}, /* punctuation ends a pair */
		{"的，的", 0, {{0}}},
		{"的 的", 0, {{0}}},                  /* not adjacent */
		{"的\xFF的", 0, {{0}}},
		{"aa", 0, {{0}}},                      /* only Han characters */
	};
	expect_spans(rs, "typo.doubled", cases, sizeof cases / sizeof *cases);

	char *fixed = test_fix(rs, "他的的书了了。", 0, NULL);
	ck_assert_str_eq(fixed, "他的书了。");
	free(fixed);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(builtin_fix_template_checked)
{
	/* a builtin fills $0-$9 only: another template is a rule-file error
	 * (it used to fail every finding as "out of memory"; found by fuzzing) */
	const char *bad[] = {"$y", "${name}"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char ini[256];
		snprintf(ini, sizeof ini,
		         "[typo.p]\nkind = builtin\ncheck = doubled\nmessage = m\nfix = %s\n"
		         "safety = safe\nbad = 的的\ngood = 的\n", bad[i]);
		test_diags ds = TEST_DIAGS_INIT;
		jh_ruleset *rs;
		ck_assert_int_eq(test_ruleset_try(ini, &rs, &ds), JH_ERR_RULES);
		ck_assert_msg(test_diags_find(&ds, "not a template a builtin check can fill") != NULL,
		              "%s: %s", bad[i], test_diags_text(&ds));
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.q", ""));
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_not_flagged)
{
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.doubled", "allow = doubled-allow.txt\n"));
	static const span_case cases[] = {
		{"的的确确", 0, {{0}}},    /* AABB */
		{"他高高兴兴地走了", 0, {{0}}},
		{"干干净净", 0, {{0}}},
		{"谢谢你", 0, {{0}}},      /* allow-listed */
		{"我们常常去", 0, {{0}}},
		{"你谢谢", 0, {{0}}},
		{"是是是", 0, {{0}}},      /* three or more: a stutter, not a slip */
		{"不不不不", 0, {{0}}},
		{"嗯嗯嗯，好", 0, {{0}}},
	};
	expect_spans(rs, "typo.doubled", cases, sizeof cases / sizeof *cases);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_params)
{
	/* Without AABB, each pair of 高高兴兴 is a finding; an allow-list entry
	 * for the whole word still covers the pair inside it. */
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.no-aabb", "allow = doubled-allow.txt\n"
	                                                           "allow-aabb = 0\n"));
	static const span_case no_aabb[] = {
		{"高高兴兴", 2, {{0, 6}, {6, 12}}},
		{"的的确确", 0, {{0}}},
		{"谢谢", 0, {{0}}},
	};
	expect_spans(rs, "typo.no-aabb", no_aabb, sizeof no_aabb / sizeof *no_aabb);
	jh_ruleset_free(rs);

	/* chars limits the check to the characters listed. */
	rs = test_ruleset(DOUBLED_RULE("typo.some", "chars = 的了\n"));
	static const span_case some[] = {
		/* 我(0) 我(3) 们(6) 的(9) 的(12) 书(15) */
		{"我我们的的书", 1, {{9, 15}}},
		{"了了", 1, {{0, 6}}},
		{"谢谢", 0, {{0}}},
	};
	expect_spans(rs, "typo.some", some, sizeof some / sizeof *some);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_allow_list_bom)
{
	/* A word list saved with a BOM and CRLF: its first word counts too. */
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.doubled",
	                                           "allow = doubled-allow-bom.txt\n"));
	static const span_case cases[] = {
		{"谢谢你", 0, {{0}}},
		{"常常去", 0, {{0}}},
		{"的的书", 1, {{0, 6}}},
	};
	expect_spans(rs, "typo.doubled", cases, sizeof cases / sizeof *cases);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_aabb_mixed_lengths)
{
	/* 高 is 3 bytes in UTF-8, 𠮷 (U+20BB7) 4: AABB is about characters. */
	jh_ruleset *rs = test_ruleset(DOUBLED_RULE("typo.doubled", ""));
	static const span_case cases[] = {
		{"高高\xF0\xA0\xAE\xB7\xF0\xA0\xAE\xB7", 0, {{0}}},
		{"\xF0\xA0\xAE\xB7\xF0\xA0\xAE\xB7高高", 0, {{0}}},
		/* still found when it is only a pair */
		{"吉\xF0\xA0\xAE\xB7\xF0\xA0\xAE\xB7吉", 1, {{3, 11}}},
	};
	expect_spans(rs, "typo.doubled", cases, sizeof cases / sizeof *cases);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_bad_params)
{
	static const struct {
		const char *params;
		unsigned line;   /* the parameter's line: header is line 1 */
		const char *needle;
	} cases[] = {
		{"allow-aabb = 2\n", 7, "allow-aabb must be"},
		{"allow = no-such-list.txt\n", 7, "/no-such-list.txt"},
		{"colour = red\n", 7, "unknown key 'colour'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char ini[512];
		snprintf(ini, sizeof ini, "%s%s%s",
		         "[typo.p]\nkind = builtin\ncheck = doubled\nmessage = m\nfix = $1\nsafety = safe\n",
		         cases[i].params, "bad = 的的\ngood = 的\n");
		test_diags ds = TEST_DIAGS_INIT;
		jh_ruleset *rs;
		ck_assert_int_eq(test_ruleset_try(ini, &rs, &ds), JH_ERR_RULES);
		const test_diag *d = test_diags_find(&ds, cases[i].needle);
		ck_assert_msg(d != NULL, "case %zu:%s", i, test_diags_text(&ds));
		ck_assert_str_eq(d->file, TEST_RULES_NAME);
		ck_assert_uint_eq(d->line, cases[i].line);
		ck_assert_str_eq(d->rule_id, "typo.p");
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}

	/* An unknown check name. */
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(test_ruleset_try("[typo.p]\nkind = builtin\ncheck = no-such-check\n"
	                                  "message = m\nbad = x\ngood = y\n", &rs, &ds),
	                 JH_ERR_RULES);
	ck_assert_msg(test_diags_find(&ds, "unknown builtin check 'no-such-check'") != NULL, "%s",
	              test_diags_text(&ds));
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

#define RUNON_RULE(id, params) \
	"[" id "]\nkind = builtin\ncheck = run-on\nmessage = 太长\n" params \
	"bad = 一二三四五六\ngood = 一二三，四五六\n"

START_TEST(run_on_limit)
{
	jh_ruleset *rs = test_ruleset(RUNON_RULE("punct.run-on", "limit = 5\n"));
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, "一二三四五六", strlen("一二三四五六"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "punct.run-on", 0, 18, NULL);
	ck_assert_str_eq(fs.items[0].message, "6 个汉字之间没有任何标点（上限 5），可能缺了标点");
	jh_findings_clear(&fs);

	static const span_case cases[] = {
		{"一二三四五", 0, {{0}}},               /* exactly the limit */
		{"一二三，四五六七八", 0, {{0}}},
		{"一二三\n四五六七", 0, {{0}}},         /* a line break ends a run */
		{"一二三四五六，七", 1, {{0, 18}}},
		{"好。一二三四五六七", 1, {{6, 27}}},
		{"一二三四五六。一二三四五六", 2, {{0, 18}, {21, 39}}},
	};
	expect_spans(rs, "punct.run-on", cases, sizeof cases / sizeof *cases);
	jh_ruleset_free(rs);

	/* The default limit is 50. */
	rs = test_ruleset(RUNON_RULE("punct.run-on", ""));
	char text[52 * 3 + 1] = "";
	for (int i = 0; i < 50; i++)
		strcat(text, "字");
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 0);
	strcat(text, "字");
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "punct.run-on", 0, 153, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(test_ruleset_try(RUNON_RULE("punct.run-on", "limit = many\n"), &rs, &ds),
	                 JH_ERR_RULES);
	const test_diag *d = test_diags_find(&ds, "limit must be");
	ck_assert_msg(d != NULL, "%s", test_diags_text(&ds));
	ck_assert_uint_eq(d->line, 5);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* Parameters set through the API (a config file's) instead of the rule
 * file: same checks, no line to point at. */
START_TEST(params_from_api)
{
	jh_ruleset *rs;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, TEST_RULES_NAME,
	                                        RUNON_RULE("punct.run-on", "limit = 5\n"),
	                                        TEST_DATA_DIR, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_param(rs, "punct.run-on", "limit", "2"), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_param(rs, "punct.nosuch", "limit", "2"), JH_ERR_ARG);
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	ck_assert_msg(ds.count == 0, "%s", test_diags_text(&ds));
	ck_assert_int_eq(jh_ruleset_set_param(rs, "punct.run-on", "limit", "3"), JH_ERR_STATE);
	jh_findings fs = JH_FINDINGS_INIT;
	/* The API's value wins over the file's 5. */
	test_check(rs, "一二三，四五", strlen("一二三，四五"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "punct.run-on", 0, 9, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	/* A bad value, and a key the check does not take: errors, line 0. */
	static const char *const bad[][2] = {{"limit", "lots"}, {"colour", "red"}};
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
		ck_assert_int_eq(jh_ruleset_load_string(rs, TEST_RULES_NAME,
		                                        RUNON_RULE("punct.run-on", ""), TEST_DATA_DIR,
		                                        test_diag_collect, &ds), JH_OK);
		ck_assert_int_eq(jh_ruleset_set_param(rs, "punct.run-on", bad[i][0], bad[i][1]), JH_OK);
		ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_ERR_RULES);
		ck_assert_uint_eq(ds.count, 1);
		ck_assert_msg(strstr(ds.items[0].message, bad[i][0]) != NULL, "%s",
		              test_diags_text(&ds));
		ck_assert_uint_eq(ds.items[0].line, 0);
		ck_assert_str_eq(ds.items[0].rule_id, "punct.run-on");
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
}
END_TEST

#define INVALID_RULE \
	"[encoding.invalid-utf8]\nkind = builtin\ncheck = invalid-utf8\nseverity = error\n" \
	"message = 无效的 UTF-8\nbad = a\xFF" "b\ngood = ab\n"

START_TEST(invalid_utf8_runs)
{
	jh_ruleset *rs = test_ruleset(INVALID_RULE);
	jh_findings fs = JH_FINDINGS_INIT;
	/* a b FF FE 中(4) E4 B8(7): two runs, the second a cut character */
	const char text[] = "ab\xFF\xFE中\xE4\xB8";
	test_check(rs, text, sizeof text - 1, &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "encoding.invalid-utf8", 2, 4, NULL);
	ck_assert_str_eq(fs.items[0].message, "无效的 UTF-8 字节（原样保留）： FF FE");
	ck_assert_int_eq(fs.items[0].severity, JH_ERROR);
	ck_assert_uint_eq(fs.items[0].column, 3);
	test_assert_finding(&fs, 1, "encoding.invalid-utf8", 7, 9, NULL);
	ck_assert_str_eq(fs.items[1].message, "无效的 UTF-8 字节（原样保留）： E4 B8");
	/* FF FE are two invalid subparts: 中 is the fifth character. */
	ck_assert_uint_eq(fs.items[1].column, 6);
	jh_findings_clear(&fs);

	static const span_case cases[] = {
		{"中文", 0, {{0}}},
		{"\xC0\x80", 1, {{0, 2}}},                       /* overlong: two subparts, one run */
		{"\xED\xA0\x80\xED\xB0\x80", 1, {{0, 6}}},       /* a surrogate pair */
		{"\xE4\xB8\xE4\xB8\xAD", 1, {{0, 2}}},           /* cut, then a good 中 */
		{"\x80x\x80", 2, {{0, 1}, {2, 3}}},
	};
	expect_spans(rs, "encoding.invalid-utf8", cases, sizeof cases / sizeof *cases);

	/* A long run is one finding with a shortened message. */
	char bad[41];
	memset(bad, 0xFF, 40);
	bad[40] = '\0';
	test_check(rs, bad, 40, &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "encoding.invalid-utf8", 0, 40, NULL);
	ck_assert_str_eq(fs.items[0].message,
	                 "无效的 UTF-8 字节（原样保留）： FF FF FF FF FF FF FF FF FF FF FF FF …");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(builtins_together)
{
	/* All three in one scan: each keeps its own state. */
	jh_ruleset *rs = test_ruleset(INVALID_RULE DOUBLED_RULE("typo.doubled", "")
	                              RUNON_RULE("punct.run-on", "limit = 3\n"));
	/* 的(0) 的(3) ，(6) 一(9) 二(12) 三(15) 四(18) FF(21) */
	const char text[] = "的的，一二三四\xFF";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, sizeof text - 1, &fs);
	ck_assert_uint_eq(fs.count, 3);
	test_assert_finding(&fs, 0, "typo.doubled", 0, 6, "的");
	test_assert_finding(&fs, 1, "punct.run-on", 9, 21, NULL);
	test_assert_finding(&fs, 2, "encoding.invalid-utf8", 21, 22, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* The character maps of mask suggestions (t2s, s2t): a line of one field
 * or with a character outside the range is skipped, not the end of the
 * file (both loaders stopped at a line without a tab). */
START_TEST(char_map_skips_bad_lines)
{
	char dir[] = "/tmp/jh-charmap-XXXXXX", path[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/m.tsv", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("# comment\n國\t国\n孤\nab\tc\n學\t学\t备注\n樣\t\n們\t们\n", f);
	fclose(f);
	jh_rule r = {0};
	r.data_dir = dir;
	r.file = "t.rules";
	r.id = "t.map";
	int32_t *map = NULL;
	ck_assert_int_eq(jh_load_char_map(&map, 0x3400, 0x9FFF, "m.tsv", &r, 1, NULL, NULL), JH_OK);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(map[0x570B - 0x3400], 0x56FD); /* 國 国 */
	ck_assert_int_eq(map[0x5B78 - 0x3400], 0x5B66); /* 學 学, a third field */
	ck_assert_int_eq(map[0x6A23 - 0x3400], 0);      /* 樣, written the same */
	ck_assert_int_eq(map[0x5011 - 0x3400], 0x4EEC); /* 們 们, after the line of one field */
	ck_assert_int_eq(map[0x5B64 - 0x3400], 0);      /* 孤, one field */
	free(map);
	remove(path);
	rmdir(dir);
}
END_TEST

Suite *builtins_suite(void)
{
	Suite *s = suite_create("builtins");
	TCase *tc = test_tcase("doubled", 4);
	tcase_add_test(tc, char_map_skips_bad_lines);
	tcase_add_test(tc, doubled_flagged);
	tcase_add_test(tc, builtin_fix_template_checked);
	tcase_add_test(tc, doubled_not_flagged);
	tcase_add_test(tc, doubled_params);
	tcase_add_test(tc, doubled_allow_list_bom);
	tcase_add_test(tc, doubled_aabb_mixed_lengths);
	tcase_add_test(tc, doubled_bad_params);
	suite_add_tcase(s, tc);
	tc = test_tcase("run-on", 4);
	tcase_add_test(tc, run_on_limit);
	tcase_add_test(tc, params_from_api);
	suite_add_tcase(s, tc);
	tc = test_tcase("invalid-utf8", 4);
	tcase_add_test(tc, invalid_utf8_runs);
	tcase_add_test(tc, builtins_together);
	suite_add_tcase(s, tc);
	return s;
}
