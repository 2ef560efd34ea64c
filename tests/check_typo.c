/* check_typo.c — the checks of the typo family written in C: doubled
 * words (exactly twice, only listed words), skip-chars of the doubled
 * check, and names that drift (the frequent form as the fix, and the
 * guards that keep real pairs of words out).  The rules use the real data
 * files in rules/data, so the tests also hold the generated lists to what
 * the rules promise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests.h"

#define RULES_DATA JH_SRCDIR "/rules/data"

static jh_ruleset *typo_ruleset(const char *ini)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs = NULL;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_string(rs, TEST_RULES_NAME, ini, RULES_DATA, test_diag_collect, &ds);
	if (rc == JH_OK)
		rc = jh_ruleset_compile(rs, test_diag_collect, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "rules did not load (%d):%s", rc,
	              test_diags_text(&ds));
	test_diags_free(&ds);
	return rs;
}

static size_t count(const jh_ruleset *rs, const char *text, jh_findings *fs)
{
	jh_findings_clear(fs);
	test_check(rs, text, strlen(text), fs);
	return fs->count;
}

#define DWORD_RULE \
	"[typo.dw]\nkind = builtin\ncheck = doubled-word\nwords = typo-doubled-words.tsv\n" \
	"message = “{match}”\nfix = $1\nsafety = unsafe\nbad = 我们我们走\nfixed = 我们走\n" \
	"good = 我们走\n"

START_TEST(doubled_word)
{
	jh_ruleset *rs = typo_ruleset(DWORD_RULE);
	jh_findings fs = JH_FINDINGS_INIT;
	/* 他(0) 说(3) 我们(6) 我们(12) 走(18) */
	ck_assert_uint_eq(count(rs, "他说我们我们走", &fs), 1);
	test_assert_finding(&fs, 0, "typo.dw", 6, 18, "我们");
	ck_assert_uint_eq(count(rs, "为什么为什么", &fs), 1);       /* three characters */
	test_assert_finding(&fs, 0, "typo.dw", 0, 18, "为什么");
	ck_assert_uint_eq(count(rs, "我们我们我们", &fs), 0);       /* three times: a chant */
	ck_assert_uint_eq(count(rs, "研究研究", &fs), 0);           /* verbs reduplicate */
	ck_assert_uint_eq(count(rs, "不是不是，我错了", &fs), 0);   /* excluded on purpose */
	ck_assert_uint_eq(count(rs, "我们，我们", &fs), 0);         /* not adjacent */
	ck_assert_uint_eq(count(rs, "我们", &fs), 0);
	ck_assert_uint_eq(count(rs, "", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_skip_chars)
{
	jh_ruleset *rs = typo_ruleset(
		"[typo.dc]\nkind = builtin\ncheck = doubled\nskip-chars = 的了\nmessage = m\n"
		"bad = 炮炮兵\ngood = 他的的书\n");
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "他的的书了了", &fs), 0);
	ck_assert_uint_eq(count(rs, "向炮炮兵阵地", &fs), 1);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

#define DRIFT_RULE(extra) \
	"[typo.drift]\nkind = builtin\ncheck = name-drift\nwords = typo-common-words.tsv\n" \
	"stop = typo-drift-stop.tsv\nsound = typo-char-sound.tsv\n" extra \
	"message = “{match}”→“{fix}”\nfix = $1\nsafety = unsafe\n" \
	"bad = 段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。段興買殿後。\n" \
	"good = 段興茂大喜。\n"

START_TEST(name_drift)
{
	jh_ruleset *rs = typo_ruleset(DRIFT_RULE(""));
	jh_findings fs = JH_FINDINGS_INIT;
	const char *text = "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。段興買殿後。";
	ck_assert_uint_eq(count(rs, text, &fs), 1);
	size_t at = (size_t)(strstr(text, "段興買") - text);
	test_assert_finding(&fs, 0, "typo.drift", at, at + 9, "段興茂");
	/* Four times is not enough with min-count 5. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興買殿後。", &fs), 0);
	/* Twice rare is not a slip with max-rare 1. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。"
	                            "段興買殿後。段興買走了。", &fs), 0);
	/* Numerals are never the slip. */
	ck_assert_uint_eq(count(rs, "第三团出发。第三团冲锋。第三团撤退。第三团休息。第三团开饭。"
	                            "第四团跟上。", &fs), 0);
	/* Characters that neither sound nor look alike: two names. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。"
	                            "段興國殿後。", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	rs = typo_ruleset(DRIFT_RULE("min-count = 3\n"));
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂冷靜。段興買殿後。", &fs), 1);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(name_drift_bad_params)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs = NULL;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	jh_ruleset_load_string(rs, TEST_RULES_NAME,
	                       "[typo.drift]\nkind = builtin\ncheck = name-drift\nmin-count = 1\n"
	                       "message = m\nbad = x\ngood = y\n",
	                       RULES_DATA, test_diag_collect, &ds);
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_ERR_RULES);
	ck_assert_ptr_nonnull(test_diags_find(&ds, "min-count"));
	test_diags_free(&ds);
	jh_ruleset_free(rs);
}
END_TEST

#define CONTEXT_RULE(dict) \
	"[typo.ctx]\nkind = builtin\ncheck = context\ndict = " dict "\n" \
	"stop = typo-drift-stop.tsv\nsound = typo-char-sound.tsv\nt2s = typo-t2s.tsv\n" \
	"message = “{match}”→“{fix}”\nfix = $0\nsafety = unsafe\nbad = 还是炮單威力\n" \
	"good = 炮弹\n"
#define JIEBA_DICT "/usr/lib/python3/dist-packages/jieba/dict.txt"

START_TEST(context_homophone)
{
	FILE *f = fopen(JIEBA_DICT, "rb");
	if (!f)
		return; /* python3-jieba not installed: nothing to score with */
	fclose(f);
	jh_ruleset *rs = typo_ruleset(CONTEXT_RULE(JIEBA_DICT));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 還是(0) 炮(6) 單(9) 威力(12) */
	ck_assert_uint_eq(count(rs, "不論射速、還是炮單威力", &fs), 1);
	const char *t = "不論射速、還是炮單威力";
	size_t at = (size_t)(strstr(t, "單") - t);
	test_assert_finding(&fs, 0, "typo.ctx", at, at + 3, "彈");
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 1);            /* simplified: 弹 */
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "弹");
	ck_assert_uint_eq(count(rs, "还是炮弹威力", &fs), 0);
	ck_assert_uint_eq(count(rs, "“还是炮单威力”", &fs), 0);          /* dialogue */
	ck_assert_uint_eq(count(rs, "还是炮单威力，炮单威力", &fs), 0);  /* written twice */
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(context_without_dictionary)
{
	jh_ruleset *rs = typo_ruleset(CONTEXT_RULE("/nonexistent/dict.txt"));
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

Suite *typo_suite(void)
{
	Suite *s = suite_create("typo");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, doubled_word);
	tcase_add_test(tc, doubled_skip_chars);
	tcase_add_test(tc, name_drift);
	tcase_add_test(tc, name_drift_bad_params);
	tcase_add_test(tc, context_homophone);
	tcase_add_test(tc, context_without_dictionary);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
