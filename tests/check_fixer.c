/* check_fixer.c — applying fixes: overlapping edits are never both applied,
 * safe before unsafe, a fix is all its edits or none, characters, the BOM
 * and CRLF are never cut, fixing repeats until nothing changes and fixing
 * a fixed text changes nothing. */
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "tests.h"

static void add_fix(jh_findings *fs, const char *id, size_t start, size_t end, const char *rep,
                    jh_safety safety)
{
	ck_assert_int_eq(jh_findings_add(fs, id, 0, JH_WARNING, start, end, "m", rep,
	                                 rep ? strlen(rep) : 0, safety), JH_OK);
}

/* jh_apply_fixes, checking the output's length and NUL. */
static char *apply(const char *text, size_t len, const jh_findings *fs, int unsafe,
                   size_t *n_applied)
{
	char *out = NULL;
	size_t out_len = 0;
	ck_assert_int_eq(jh_apply_fixes(text, len, fs, unsafe, &out, &out_len, n_applied), JH_OK);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(strlen(out), out_len);
	return out;
}

START_TEST(apply_non_overlapping)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add_fix(&fs, "typo.a", 1, 3, "X", JH_SAFE);
	add_fix(&fs, "typo.b", 2, 4, "Y", JH_SAFE);  /* overlaps the first: skipped */
	add_fix(&fs, "typo.c", 4, 5, "Z", JH_SAFE);
	add_fix(&fs, "typo.d", 5, 5, "!", JH_SAFE);  /* insertion right after: fine */
	add_fix(&fs, "typo.e", 5, 5, "?", JH_SAFE);  /* second insertion at one place: skipped */
	add_fix(&fs, "typo.f", 5, 6, NULL, JH_SAFE); /* no fix */
	size_t n = 0;
	char *out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "aXdZ!f");
	ck_assert_uint_eq(n, 3);
	free(out);
	jh_findings_clear(&fs);

	/* Nothing to apply: the text comes back as it was. */
	out = apply("abc", 3, &fs, 1, &n);
	ck_assert_str_eq(out, "abc");
	ck_assert_uint_eq(n, 0);
	free(out);
	out = apply("", 0, &fs, 1, &n);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

START_TEST(apply_safe_and_unsafe)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add_fix(&fs, "typo.a", 0, 2, "U", JH_UNSAFE);
	add_fix(&fs, "typo.b", 1, 3, "S", JH_SAFE);   /* overlaps the unsafe fix */
	add_fix(&fs, "typo.c", 4, 5, "T", JH_UNSAFE);
	size_t n = 0;
	/* Safe only: the skipped unsafe fix does not block the safe one. */
	char *out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "aSdef");
	ck_assert_uint_eq(n, 1);
	free(out);
	/* With unsafe: the first of two overlapping fixes wins. */
	out = apply("abcdef", 6, &fs, 1, &n);
	ck_assert_str_eq(out, "UcdTf");
	ck_assert_uint_eq(n, 2);
	free(out);
	jh_findings_clear(&fs);
}
END_TEST

/* A finding over [start, end) whose fix is two edits, at its two ends. */
static void add_two_edit_fix(jh_findings *fs, size_t start, size_t end)
{
	ck_assert_int_eq(jh_findings_add(fs, "typo.b", 0, JH_WARNING, start, end, "m", NULL, 0,
	                                 JH_SAFE), JH_OK);
	ck_assert_int_eq(jh_findings_add_edit(fs, fs->count - 1, start, start, "I"), JH_OK);
	ck_assert_int_eq(jh_findings_add_edit(fs, fs->count - 1, end - 1, end, "J"), JH_OK);
	ck_assert_uint_eq(fs->items[fs->count - 1].n_edits, 2);
}

START_TEST(apply_all_edits_or_none)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add_fix(&fs, "typo.a", 0, 2, "Q", JH_SAFE);
	/* A fix of two edits whose first overlaps the one before: neither edit
	 * may be applied, not even the far one. */
	add_two_edit_fix(&fs, 1, 6);
	size_t n = 0;
	char *out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "Qcdef");
	ck_assert_uint_eq(n, 1);
	free(out);
	jh_findings_clear(&fs);

	/* The same two-edit fix alone: both edits. */
	add_two_edit_fix(&fs, 1, 6);
	out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "aIbcdeJ");
	ck_assert_uint_eq(n, 1);
	free(out);
	jh_findings_clear(&fs);
}
END_TEST

/* A fix changes only bytes inside its finding's span: an edit a caller
 * wrote into the plain struct past the span is not applied (nor the rest
 * of that fix), and the fix after it still is. */
START_TEST(apply_only_inside_span)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add_fix(&fs, "typo.a", 1, 2, "X", JH_SAFE);
	add_fix(&fs, "typo.b", 4, 5, "Y", JH_SAFE);
	jh_edit wide = {0, 3, "Z"}; /* the finding is [1, 2) */
	fs.items[0].edits = &wide;
	size_t n = 0;
	char *out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "abcdYf");
	ck_assert_uint_eq(n, 1);
	free(out);
	wide = (jh_edit){1, 2, "Z"}; /* inside: applied */
	out = apply("abcdef", 6, &fs, 0, &n);
	ck_assert_str_eq(out, "aZcdYf");
	ck_assert_uint_eq(n, 2);
	free(out);
	fs.items[0].edits = NULL;
	fs.items[0].n_edits = 0;
	fs.items[0].has_fix = 0;
	jh_findings_clear(&fs);
}
END_TEST

START_TEST(apply_never_splits)
{
	/* 中(0) 文(3) */
	static const struct {
		size_t start, end;
		const char *rep;
		const char *want;
	} cases[] = {
		{1, 3, "x", "中文"},          /* starts inside 中 */
		{0, 4, "x", "中文"},          /* ends inside 文 */
		{3, 6, "字", "中字"},
		{6, 6, "。", "中文。"},
		{3, 6, "\xFF", "中文"},       /* replacement is not UTF-8 */
		{3, 6, "\xE5\xAD", "中文"},   /* replacement is a cut character */
		{4, 9, "x", "中文"},          /* past the end */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		add_fix(&fs, "typo.a", cases[i].start, cases[i].end, cases[i].rep, JH_SAFE);
		char *out = apply("中文", 6, &fs, 1, NULL);
		ck_assert_msg(strcmp(out, cases[i].want) == 0, "case %zu: '%s', expected '%s'", i, out,
		              cases[i].want);
		free(out);
		jh_findings_clear(&fs);
	}
}
END_TEST

START_TEST(apply_keeps_bom_and_crlf)
{
	static const char bom_text[] = "\xEF\xBB\xBF中";
	static const char crlf_text[] = "ab\r\ncd";
	static const struct {
		const char *text;
		size_t start, end;
		const char *rep;
		const char *want;
	} cases[] = {
		{bom_text, 0, 3, "", bom_text},                 /* delete the BOM */
		{bom_text, 0, 0, "x", bom_text},                /* insert before it */
		{bom_text, 0, 6, "字", bom_text},
		{bom_text, 3, 3, "x", "\xEF\xBB\xBFx中"},       /* after it: fine */
		{crlf_text, 2, 3, "", crlf_text},               /* delete the CR alone */
		{crlf_text, 3, 4, "", crlf_text},               /* delete the LF alone */
		{crlf_text, 3, 3, "x", crlf_text},              /* insert between them */
		{crlf_text, 1, 3, "B", crlf_text},              /* end between them */
		{crlf_text, 2, 4, "。\n", "ab。\r\ncd"},        /* the pair as a whole */
		{crlf_text, 1, 2, "x\ny", "ax\r\ny\r\ncd"},     /* new breaks follow the text */
		{crlf_text, 1, 2, "x\r\ny", "ax\r\ny\r\ncd"},   /* not doubled */
		{"ab\ncd", 1, 2, "x\ny", "ax\ny\ncd"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		add_fix(&fs, "layout.a", cases[i].start, cases[i].end, cases[i].rep, JH_SAFE);
		char *out = apply(cases[i].text, strlen(cases[i].text), &fs, 1, NULL);
		ck_assert_msg(strcmp(out, cases[i].want) == 0, "case %zu: '%s', expected '%s'", i, out,
		              cases[i].want);
		free(out);
		jh_findings_clear(&fs);
	}
}
END_TEST

static const char fix_rules[] =
	"[censor.separator]\nkind = regex\nmessage = 分隔符\n"
	"pattern = (?<=\\p{Han})[丨｜](?=\\p{Han})\ntrigger = 丨｜\nfix =\nsafety = safe\n"
	"bad = 子丨弹\nfixed = 子弹\ngood = 第一卷丨\n"
	"[punct.comma]\nkind = regex\nmessage = 半角逗号\npattern = (?<=\\p{Han}),(?=\\p{Han})\n"
	"trigger = ,\nfix = ，\nsafety = safe\nbad = 好,走\nfixed = 好，走\ngood = a,b\n"
	"[typo.doubled]\nkind = builtin\ncheck = doubled\nmessage = m\nfix = $1\nsafety = safe\n"
	"bad = 的的\nfixed = 的\ngood = 的\n"
	"[typo.lex]\nkind = lexicon\nlexicon = lex-rule-a.tsv\nmessage = m\nsafety = safe\n"
	"bad = 在次\nfixed = 再次\ngood = 再次\n"
	"[censor.invisible]\nkind = regex\nmessage = 不可见字符\npattern = [\\x{200B}\\x{FEFF}]\n"
	"fix =\nsafety = safe\nbad = 中\\u{200B}文\nfixed = 中文\ngood = 中文\n"
	"[layout.merged]\nkind = regex\nmessage = 段落粘连\npattern = 。\\x{3000}\\x{3000}\n"
	"fix = 。\\n\\u{3000}\\u{3000}\nsafety = unsafe\nbad = 甲。\\u{3000}\\u{3000}乙\n"
	"fixed = 甲。\\n\\u{3000}\\u{3000}乙\ngood = 甲。\n";

START_TEST(selection_for_fix)
{
	/* the fix rounds check only rules that can give an edit: a regex
	 * without a fix goes, an unsafe one goes from a safe fix only, the
	 * lexicon rule stays (its entries have their own safety) */
	jh_ruleset *rs = test_ruleset(
		"[censor.nofix]\nkind = regex\nmessage = m\npattern = \\*\nbad = 甩*\ngood = 甩\n"
		"[typo.lex]\nkind = lexicon\nlexicon = lex-rule-a.tsv\nmessage = m\nsafety = unsafe\n"
		"bad = 在次\nfixed = 再次\ngood = 再次\n"
		"[layout.merged]\nkind = regex\nmessage = m\npattern = 。\\x{3000}\nfix = 。\\n\n"
		"safety = unsafe\nbad = 甲。\\u{3000}乙\nfixed = 甲。\\n乙\ngood = 甲。\n"
		"[punct.comma]\nkind = regex\nmessage = m\npattern = ,\nfix = ，\nsafety = safe\n"
		"bad = 好,走\nfixed = 好，走\ngood = 好\n");
	size_t n = jh_ruleset_count(rs);
	ck_assert_uint_eq(n, 4);
	unsigned char sel[4];
	for (int unsafe = 0; unsafe < 2; unsafe++) {
		jh_ruleset_default_selection(rs, sel);
		jh_selection_for_fix(rs, sel, unsafe);
		for (size_t i = 0; i < n; i++) {
			jh_rule_info info;
			jh_rule_get_info(jh_ruleset_rule(rs, i), &info);
			const char *id = info.id;
			int want = !strcmp(id, "typo.lex") || !strcmp(id, "punct.comma") ||
			           (unsafe && !strcmp(id, "layout.merged"));
			ck_assert_msg(sel[i] == want, "%s (unsafe %d): %d", id, unsafe, sel[i]);
		}
	}
	/* and the fixed text is what a fix with every rule gives */
	const char *text = "他甩*出,在次。\xE3\x80\x80走";
	char *out;
	size_t out_len;
	ck_assert_int_eq(jh_fix(rs, text, strlen(text), NULL, 1, &out, &out_len, NULL), JH_OK);
	ck_assert_str_eq(out, "他甩*出，再次。\n走");
	free(out);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(fix_idempotent)
{
	jh_ruleset *rs = test_ruleset(fix_rules);
	static const struct {
		const char *text, *want;
		unsigned rounds;
		size_t edits;
	} cases[] = {
		{"他说,子丨弹在次的的打来了。\n他的的的书", "他说，子弹再次的打来了。\n他的的的书", 1, 4},
		/* Removing the separator makes a pair that the next round fixes. */
		{"好的丨的书", "好的书", 2, 2},
		{"没有问题。", "没有问题。", 0, 0},
		{"", "", 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_fix_report rep;
		char *once = test_fix(rs, cases[i].text, 0, &rep);
		ck_assert_msg(strcmp(once, cases[i].want) == 0, "case %zu: '%s', expected '%s'", i, once,
		              cases[i].want);
		ck_assert_int_eq(rep.converged, 1);
		ck_assert_msg(rep.rounds == cases[i].rounds && rep.edits_applied == cases[i].edits,
		              "case %zu: %u rounds, %zu edits; expected %u, %zu", i, rep.rounds,
		              rep.edits_applied, cases[i].rounds, cases[i].edits);
		ck_assert_str_eq(rep.unstable_rules, "");
		char *twice = test_fix(rs, once, 0, &rep);
		ck_assert_str_eq(twice, once);
		ck_assert_uint_eq(rep.edits_applied, 0);
		ck_assert_uint_eq(rep.rounds, 0);
		free(once);
		free(twice);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(fix_keeps_bom_and_crlf)
{
	jh_ruleset *rs = test_ruleset(fix_rules);
	/* A BOM at the start stays; the same character inside the text goes. */
	char *out = test_fix(rs, "\xEF\xBB\xBF中\xEF\xBB\xBF文\xE2\x80\x8B", 0, NULL);
	ck_assert_str_eq(out, "\xEF\xBB\xBF中文");
	free(out);

	/* Splitting merged paragraphs (unsafe) writes the text's own line end. */
	out = test_fix(rs, "甲。\xE3\x80\x80\xE3\x80\x80乙\r\n丙\r\n", 1, NULL);
	ck_assert_str_eq(out, "甲。\r\n\xE3\x80\x80\xE3\x80\x80乙\r\n丙\r\n");
	free(out);
	out = test_fix(rs, "甲。\xE3\x80\x80\xE3\x80\x80乙\n丙\n", 1, NULL);
	ck_assert_str_eq(out, "甲。\n\xE3\x80\x80\xE3\x80\x80乙\n丙\n");
	free(out);
	/* ... and only with unsafe fixes allowed. */
	out = test_fix(rs, "甲。\xE3\x80\x80\xE3\x80\x80乙\n", 0, NULL);
	ck_assert_str_eq(out, "甲。\xE3\x80\x80\xE3\x80\x80乙\n");
	free(out);
	jh_ruleset_free(rs);
}
END_TEST

/* Is name one of the comma-separated ids in list? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
		p += k;
		if (*p == ',')
			p++;
	}
	return 0;
}

START_TEST(fix_not_converging)
{
	/* A fix that never settles is left out: the text as it was. */
	jh_ruleset *rs = test_ruleset(
		"[typo.grow]\nkind = regex\nmessage = m\npattern = a\nfix = aa\nsafety = safe\n"
		"bad = a\ngood = b\n");
	jh_fix_report rep = JH_FIX_REPORT_INIT;
	char *out = test_fix(rs, "a", 0, &rep);
	ck_assert_uint_eq(rep.version, JH_FIX_REPORT_VERSION); /* the caller's, kept */
	ck_assert_int_eq(rep.converged, 1);
	ck_assert_uint_eq(rep.rounds, 0);
	ck_assert_str_eq(out, "a");
	ck_assert_uint_eq(rep.edits_applied, 0);
	ck_assert_str_eq(rep.unstable_rules, "typo.grow");
	free(out);
	jh_ruleset_free(rs);

	/* Two unstable rules, one id inside the other: both are named and left
	 * out; the rule that settles keeps its fix. */
	rs = test_ruleset("[typo.aa]\nkind = regex\nmessage = m\npattern = x\nfix = xx\nsafety = safe\n"
	                  "bad = x\ngood = b\n"
	                  "[typo.a]\nkind = regex\nmessage = m\npattern = y\nfix = yy\nsafety = safe\n"
	                  "bad = y\ngood = b\n"
	                  "[typo.ok]\nkind = regex\nmessage = m\npattern = q\nfix = r\nsafety = safe\n"
	                  "bad = q\ngood = b\n");
	out = test_fix(rs, "xqy", 0, &rep);
	ck_assert_int_eq(rep.converged, 1);
	ck_assert_str_eq(out, "xry");
	ck_assert_uint_eq(rep.edits_applied, 1);
	ck_assert_msg(listed(rep.unstable_rules, "typo.aa") && listed(rep.unstable_rules, "typo.a") &&
	                  !listed(rep.unstable_rules, "typo.ok"),
	              "unstable rules: '%s'", rep.unstable_rules);
	free(out);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(fix_arguments)
{
	jh_ruleset *rs = test_ruleset(fix_rules);
	char *out = NULL;
	size_t len = 1;
	ck_assert_int_eq(jh_fix(rs, NULL, 0, NULL, 0, &out, &len, NULL), JH_OK);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(len, 0);
	free(out);
	out = NULL;
	/* Same contract as jh_check: no text but a length is a bad argument. */
	ck_assert_int_eq(jh_fix(rs, NULL, 5, NULL, 0, &out, &len, NULL), JH_ERR_ARG);
	ck_assert_ptr_null(out);
	jh_ruleset_free(rs);
}
END_TEST

Suite *fixer_suite(void)
{
	Suite *s = suite_create("fixer");
	TCase *tc = test_tcase("apply", 4);
	tcase_add_test(tc, apply_non_overlapping);
	tcase_add_test(tc, apply_safe_and_unsafe);
	tcase_add_test(tc, apply_all_edits_or_none);
	tcase_add_test(tc, apply_only_inside_span);
	tcase_add_test(tc, apply_never_splits);
	tcase_add_test(tc, apply_keeps_bom_and_crlf);
	suite_add_tcase(s, tc);
	tc = test_tcase("fix", 4);
	tcase_add_test(tc, fix_idempotent);
	tcase_add_test(tc, fix_keeps_bom_and_crlf);
	tcase_add_test(tc, fix_not_converging);
	tcase_add_test(tc, selection_for_fix);
	tcase_add_test(tc, fix_arguments);
	suite_add_tcase(s, tc);
	return s;
}
