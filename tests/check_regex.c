/* check_regex.c — regex rules: whole-text scans and trigger-driven runs
 * must agree, `lead` and lookbehind reach before the trigger, fix templates
 * expand, a runaway pattern is stopped and reported, and bad bytes in the
 * text are harmless. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glob.h>
#include "regex.h"
#include "regex_pre.h"
#include "rules.h"
#include "utf8.h"
#include "tests.h"

#define SEPARATOR_RULE(id, trigger_line) \
	"[" id "]\nkind = regex\nmessage = 分隔符\n" \
	"pattern = (?<=\\p{Han})[丨｜](?=\\p{Han})\n" trigger_line \
	"fix =\nsafety = safe\nbad = 子丨弹\nfixed = 子弹\ngood = 第一卷丨\n"

START_TEST(trigger_and_scan_agree)
{
	jh_ruleset *rs = test_ruleset(SEPARATOR_RULE("censor.sep-scan", "")
	                              SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\n"));
	/* 子(0) 丨(3) 弹(6) 丨(9) 膛(12) ，(15) 第(18) 一(21) 卷(24) 丨(27) */
	const char *text = "子丨弹丨膛，第一卷丨";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 0, "censor.sep-scan", 3, 6, "");
	test_assert_finding(&fs, 1, "censor.sep-trig", 3, 6, "");
	test_assert_finding(&fs, 2, "censor.sep-scan", 9, 12, "");
	test_assert_finding(&fs, 3, "censor.sep-trig", 9, 12, "");
	jh_findings_clear(&fs);
	char *fixed = test_fix(rs, text, 0, NULL);
	ck_assert_str_eq(fixed, "子弹膛，第一卷丨");
	free(fixed);
	jh_ruleset_free(rs);
}
END_TEST

/* unfixed-document: one match of it anywhere in a text takes the fixes
 * of all the rule's findings in that text away, those before it too, with
 * and without a trigger; a text without it keeps them. */
START_TEST(unfixed_document)
{
	jh_ruleset *rs = test_ruleset(
	    SEPARATOR_RULE("censor.sep-scan", "unfixed-document = [。，][丨｜]\\p{Han}\n")
	        SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\nunfixed-document = [。，][丨｜]\\p{Han}\n"));
	/* 子(0) 丨(3) 弹(6) ，(9) 丨(12) 这(15) 丨(18) 是(21) */
	const char *text = "子丨弹，丨这丨是";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 0, "censor.sep-scan", 3, 6, NULL);
	test_assert_finding(&fs, 1, "censor.sep-trig", 3, 6, NULL);
	test_assert_finding(&fs, 2, "censor.sep-scan", 18, 21, NULL);
	test_assert_finding(&fs, 3, "censor.sep-trig", 18, 21, NULL);
	jh_findings_clear(&fs);
	const char *plain = "子丨弹，这丨是";
	test_check(rs, plain, strlen(plain), &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 0, "censor.sep-scan", 3, 6, "");
	test_assert_finding(&fs, 3, "censor.sep-trig", 15, 18, "");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	/* a bad pattern is the rule's error, on its line */
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_ne(test_ruleset_try(SEPARATOR_RULE("censor.sep-bad", "unfixed-document = (\n"),
	                                  &rs, &ds), JH_OK);
	ck_assert_ptr_nonnull(test_diags_find(&ds, "bad unfixed-document pattern"));
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* skip-lines: a match is dropped where the pattern matches on its line or
 * the line before or after; two lines away it stands. */
START_TEST(skip_lines)
{
	jh_ruleset *rs = test_ruleset(SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\nskip-lines = │\n"));
	/* the first line is next to │, the third holds one, the last is two
	 * lines from it: 子 at 35, 丨 at 38 */
	const char *text = "子丨弹\n│\n子丨弹│\n好\n好\n子丨弹\n";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "censor.sep-trig", 38, 41, "");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* A pattern runs in PCRE2's interpreter for its first calls and is
 * JIT-compiled after JH_JIT_AFTER of them (or as many KB of text, for a
 * rule without a trigger): forty checks of the same text, on both sides
 * of the switch, must give the same findings. */
START_TEST(interpreter_and_jit_agree)
{
	jh_ruleset *rs = test_ruleset(SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\n")
	                              "[typo.dd]\nkind = regex\nmessage = m\npattern = 的的\n"
	                              "bad = 的的\ngood = 的\n");
	const char *text = "子丨弹，说的的话。";
	jh_findings first = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &first);
	ck_assert_uint_eq(first.count, 2);
	test_assert_finding(&first, 0, "censor.sep-trig", 3, 6, "");
	test_assert_finding(&first, 1, "typo.dd", 15, 21, NULL);
	for (int i = 0; i < 40; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, text, strlen(text), &fs);
		ck_assert_uint_eq(fs.count, first.count);
		for (size_t k = 0; k < fs.count; k++) {
			ck_assert_str_eq(fs.items[k].rule_id, first.items[k].rule_id);
			ck_assert_uint_eq(fs.items[k].byte_start, first.items[k].byte_start);
			ck_assert_uint_eq(fs.items[k].byte_end, first.items[k].byte_end);
		}
		jh_findings_clear(&fs);
	}
	jh_findings_clear(&first);
	jh_ruleset_free(rs);
}
END_TEST

/* The trigger positions of a long text reach the rules in chunks
 * (JH_SCAN_EVENT_CHUNK): a match that starts in one chunk and runs past
 * the positions of the next is found once, whole, and the positions it
 * covers start no second match. */
START_TEST(match_across_trigger_chunks)
{
	jh_ruleset *rs = test_ruleset("[censor.bars]\nkind = regex\nmessage = m\npattern = 丨+\n"
	                              "trigger = 丨\nbad = 子丨弹\ngood = 子弹\n");
	enum { RUN = 70000, AFTER = 10 };
	size_t len = 3 + RUN * 3 + 3 + AFTER * 6;
	char *text = malloc(len + 1), *p = text;
	ck_assert_ptr_nonnull(text);
	memcpy(p, "子", 3), p += 3;
	for (int i = 0; i < RUN; i++)
		memcpy(p, "丨", 3), p += 3;
	memcpy(p, "弹", 3), p += 3;
	for (int i = 0; i < AFTER; i++) /* and ten more, one bar each */
		memcpy(p, "丨子", 6), p += 6;
	*p = '\0';
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, len, &fs);
	ck_assert_uint_eq(fs.count, 1 + AFTER);
	test_assert_finding(&fs, 0, "censor.bars", 3, 3 + RUN * 3, NULL);
	for (int i = 0; i < AFTER; i++) {
		size_t at = 3 + RUN * 3 + 3 + (size_t)i * 6;
		test_assert_finding(&fs, 1 + (size_t)i, "censor.bars", at, at + 3, NULL);
	}
	jh_findings_clear(&fs);
	free(text);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(matches_do_not_overlap)
{
	jh_ruleset *rs = test_ruleset(
		"[typo.dd-scan]\nkind = regex\nmessage = m\npattern = 的的\nbad = 的的\ngood = 的\n"
		"[typo.dd-trig]\nkind = regex\nmessage = m\npattern = 的的\ntrigger = 的\n"
		"bad = 的的\ngood = 的\n");
	jh_findings fs = JH_FINDINGS_INIT;
	/* Five in a row: two matches, the fifth 的 left over. */
	const char *text = "的的的的的";
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 0, "typo.dd-scan", 0, 6, NULL);
	test_assert_finding(&fs, 1, "typo.dd-trig", 0, 6, NULL);
	test_assert_finding(&fs, 2, "typo.dd-scan", 6, 12, NULL);
	test_assert_finding(&fs, 3, "typo.dd-trig", 6, 12, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(lead_reaches_before_trigger)
{
	jh_ruleset *rs = test_ruleset(
		"[punct.dots-lead]\nkind = regex\nmessage = m\npattern = \\p{Han}\\.{3}\ntrigger = .\n"
		"lead = 1\nbad = 说...\ngood = ...\n"
		"[punct.dots-nolead]\nkind = regex\nmessage = m\npattern = \\p{Han}\\.{3}\n"
		"trigger = .\nbad = 说...\ngood = ...\n"
		"[punct.dots-scan]\nkind = regex\nmessage = m\npattern = \\p{Han}\\.{3}\n"
		"bad = 说...\ngood = ...\n");
	/* 他(0) 说(3) ...(6) 好(9): the match starts one character before the
	 * first trigger; without lead it cannot start there. */
	const char *text = "他说...好";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "punct.dots-lead", 3, 9, NULL);
	test_assert_finding(&fs, 1, "punct.dots-scan", 3, 9, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(trigger_words_gate)
{
	/* the same rule with and without words, and a lead: the match starts
	 * before the trigger word (请访问) and must be found from it */
	jh_ruleset *rs = test_ruleset(
		"[censor.site-w]\nkind = regex\nmessage = m\n"
		"pattern = (?:请访问)?(?:www\\.)?(?:biqu|ddxs)[a-z]*\\.la\ntrigger = wbd\n"
		"trigger-words = www biqu ddxs\nlead = 3\nbad = 请访问www.biquge.la\ngood = web.la\n"
		"[censor.site-all]\nkind = regex\nmessage = m\n"
		"pattern = (?:请访问)?(?:www\\.)?(?:biqu|ddxs)[a-z]*\\.la\ntrigger = wbd\n"
		"lead = 3\nbad = 请访问www.biquge.la\ngood = web.la\n");
	static const char *texts[] = {
		"他说请访问www.biquge.la就走了", "bbb ddd wbd ddxs.la www.bad.la biqu.la",
		"请访问biquge.la", "webdb biquge", "ddxsbiqu.la",
	};
	for (size_t c = 0; c < sizeof texts / sizeof *texts; c++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, texts[c], strlen(texts[c]), &fs);
		/* each match of the ungated rule, and the gated one's the same */
		size_t gated = 0, all = 0;
		for (size_t i = 0; i < fs.count; i++)
			if (!strcmp(fs.items[i].rule_id, "censor.site-w"))
				gated++;
			else
				all++;
		ck_assert_msg((gated == all && all > 0) || (c == 3 && all == 0), "text %zu: %zu vs %zu", c,
		              gated, all);
		for (size_t i = 0; i + 1 < fs.count; i += 2) {
			ck_assert_uint_eq(fs.items[i].byte_start, fs.items[i + 1].byte_start);
			ck_assert_uint_eq(fs.items[i].byte_end, fs.items[i + 1].byte_end);
		}
		jh_findings_clear(&fs);
	}
	/* the lead-in is part of the match found from the word */
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, texts[0], strlen(texts[0]), &fs);
	test_assert_finding(&fs, 0, "censor.site-w", 6, 28, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* near-words: the rule runs at a trigger only with one of the words
 * from lead characters before it to near characters after it. */
START_TEST(near_words_gate)
{
	jh_ruleset *rs = test_ruleset(
		"[censor.note]\nkind = regex\nmessage = m\n"
		"pattern = 记住[^。\\n]{0,20}?[a-z]+\\.com\ntrigger = 记住\nlead = 1\n"
		"near-words = .com 本站\nnear = 24\nbad = 请记住abc.com\ngood = 记住了\n");
	static const struct {
		const char *text;
		size_t n;
	} cases[] = {
		{"请记住abc.com。", 1},
		{"记住，记住，记住。abc.com", 0},     /* no match anyway */
		{"请记住这个好地方xyz.com吧", 1},     /* the word 7 characters on */
		{"记住本站", 0},                      /* the word, no match */
		{"记住了。", 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[c].text, strlen(cases[c].text), &fs);
		ck_assert_msg(fs.count == cases[c].n, "case %zu: %zu findings", c, fs.count);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
	/* too near: the word is past the window, so the rule does not run
	 * even though its pattern would match (the window is the author's
	 * promise) */
	rs = test_ruleset("[censor.note]\nkind = regex\nmessage = m\n"
	                  "pattern = 记住[^。\\n]{0,20}?[a-z]+\\.com\ntrigger = 记住\n"
	                  "near-words = .com\nnear = 1\nbad = 记住.com\ngood = 记住了\n");
	jh_findings fs = JH_FINDINGS_INIT;
	const char *far = "记住这个好地方这个好地方这个好地方xyz.com";
	test_check(rs, far, strlen(far), &fs);
	ck_assert_uint_eq(fs.count, 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* The windows of near triggers overlap and the search reads only what is
 * new: a gated rule whose window is sound (its matches reach at most 11
 * characters past the trigger, the window 14) finds what the ungated one
 * finds, on random texts of triggers, words of both lengths and filler. */
START_TEST(near_words_windows)
{
	jh_ruleset *rs = test_ruleset(
		"[censor.gated]\nkind = regex\nmessage = m\npattern = 记[^。]{0,8}?(?:\\.com|本站)\n"
		"trigger = 记\nnear-words = .com 本站\nnear = 14\nbad = 记a.com\ngood = 记了\n"
		"[censor.plain]\nkind = regex\nmessage = m\npattern = 记[^。]{0,8}?(?:\\.com|本站)\n"
		"trigger = 记\nbad = 记a.com\ngood = 记了\n");
	static const char *const pieces[] = {"记", "记", "住", "a", ".com", ".", "本站", "本", "。",
	                                     "好", "\n", "x.co", "站"};
	unsigned seed = 11;
	for (int round = 0; round < 3000; round++) {
		char text[1024];
		size_t len = 0;
		int n = 5 + (int)(seed % 90);
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			const char *p = pieces[(seed >> 9) % (sizeof pieces / sizeof *pieces)];
			memcpy(text + len, p, strlen(p));
			len += strlen(p);
		}
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, text, len, &fs);
		size_t gated = test_count_rule(&fs, "censor.gated"), plain = test_count_rule(&fs, "censor.plain");
		ck_assert_msg(gated == plain, "round %d: %zu gated, %zu plain: %.*s", round, gated, plain,
		              (int)len, text);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(lookbehind_before_trigger)
{
	jh_ruleset *rs = test_ruleset(
		"[typo.men]\nkind = regex\nmessage = m\npattern = (?<=他)们\ntrigger = 们\n"
		"bad = 他们\ngood = 我们\n");
	/* 他(0) 们(3) 我(6) 们(9) 他(12) 们(15) */
	const char *text = "他们我们他们";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "typo.men", 3, 6, NULL);
	test_assert_finding(&fs, 1, "typo.men", 15, 18, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(trigger_ranges_and_astral)
{
	jh_ruleset *rs = test_ruleset(
		"[typo.astral]\nkind = regex\nmessage = m\npattern = \\x{20BB7}野\n"
		"trigger = \\x{20BB7}\nbad = \\u{20BB7}野\ngood = 吉野\n"
		"[typo.range]\nkind = regex\nmessage = m\npattern = [a-c]\\d\ntrigger = a-c\n"
		"bad = b1\ngood = d1\n");
	/* 吉(0) 𠮷(3, 4 bytes) 野(7) a(10) 1(11) d(12) 2(13) c(14) 3(15) */
	const char *text = "吉\xF0\xA0\xAE\xB7野a1d2c3";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 3);
	test_assert_finding(&fs, 0, "typo.astral", 3, 10, NULL);
	test_assert_finding(&fs, 1, "typo.range", 10, 12, NULL);
	test_assert_finding(&fs, 2, "typo.range", 14, 16, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(many_triggered_rules)
{
	/* More rules than trigger-mask bits: rules sharing a bit must still
	 * find only their own matches. */
	enum { N = 70 };
	char *ini = malloc(N * 160);
	char text[N * 3 + 1];
	ck_assert_ptr_nonnull(ini);
	size_t n = 0;
	for (int i = 0; i < N; i++) {
		char ch[4] = {(char)0xE4, (char)(0xB8 + i / 64), (char)(0x80 + i % 64), 0};
		memcpy(text + 3 * i, ch, 3);
		n += (size_t)sprintf(ini + n, "[typo.r%d]\nkind = regex\nmessage = m\npattern = %s\n"
		                     "trigger = %s\nbad = %s\ngood = x\n", i, ch, ch, ch);
	}
	text[3 * N] = '\0';
	jh_ruleset *rs = test_ruleset(ini);
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, 3 * N, &fs);
	ck_assert_uint_eq(fs.count, N);
	for (int i = 0; i < N; i++) {
		char id[16];
		snprintf(id, sizeof id, "typo.r%d", i);
		test_assert_finding(&fs, (size_t)i, id, 3 * (size_t)i, 3 * (size_t)i + 3, NULL);
	}
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	free(ini);
}
END_TEST

START_TEST(fix_templates)
{
	jh_ruleset *rs = test_ruleset(
		"[typo.template]\nkind = regex\nmessage = {match}→{fix}\n"
		"pattern = (\\p{Han})(?<num>[0-9]+)\nfix = [$0|$1|${num}|${2}|$$|$10]\n"
		"safety = unsafe\nbad = 第12章\ngood = 第章\n"
		"[typo.optional]\nkind = regex\nmessage = m\npattern = (x)?(y)\nfix = <$1|$2>\n"
		"safety = safe\nbad = y\ngood = z\n");
	jh_findings fs = JH_FINDINGS_INIT;
	/* 第(0) 1(3) 2(4) 章(5) y(8) */
	test_check(rs, "第12章y", strlen("第12章y"), &fs);
	ck_assert_uint_eq(fs.count, 2);
	/* $10 is group 1 followed by a literal 0. */
	test_assert_finding(&fs, 0, "typo.template", 0, 5, "[第12|第|12|12|$|第0]");
	ck_assert_int_eq(fs.items[0].safety, JH_UNSAFE);
	ck_assert_str_eq(fs.items[0].message, "第12→[第12|第|12|12|$|第0]");
	/* A group that took no part gives nothing. */
	test_assert_finding(&fs, 1, "typo.optional", 8, 9, "<|y>");
	ck_assert_int_eq(fs.items[1].safety, JH_SAFE);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* $3 in a rule whose pattern has one group: another rule's match must not
 * leak into its fix (the match data is shared between the rules). */
START_TEST(template_group_beyond_pattern)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(
		"[typo.three]\nkind = regex\nmessage = m\npattern = (a)(b)(c)\nbad = abc\ngood = ab\n"
		"[typo.one]\nkind = regex\nmessage = m\npattern = (x)y\nfix = [$3]\nsafety = safe\n"
		"bad = xy\ngood = x\n",
		&rs, &ds);
	if (rc != JH_OK) {
		/* Refusing the template when the rule is compiled is fine too. */
		const test_diag *d = test_diags_find(&ds, "$3");
		ck_assert_msg(d && d->rule_id && strcmp(d->rule_id, "typo.one") == 0,
		              "status %d without a diagnostic about $3 of typo.one:%s", rc,
		              test_diags_text(&ds));
	} else {
		jh_findings fs = JH_FINDINGS_INIT;
		/* a(0) b(1) c(2) ' '(3) x(4) y(5) */
		test_check(rs, "abc xy", 6, &fs);
		for (size_t i = 0; i < fs.count; i++) {
			const jh_finding *f = &fs.items[i];
			if (strcmp(f->rule_id, "typo.one") != 0 || !f->has_fix)
				continue;
			ck_assert_msg(strcmp(f->edits[0].replacement, "[]") == 0,
			              "typo.one's fix is '%s', expected '[]'", f->edits[0].replacement);
		}
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

START_TEST(runaway_pattern_is_stopped)
{
	jh_ruleset *rs = test_ruleset(
		"[typo.runaway]\nkind = regex\nmessage = m\npattern = (a+)+$\nbad = a\ngood = b\n"
		"[typo.runaway-trig]\nkind = regex\nmessage = m\npattern = (a+)+$\ntrigger = a\n"
		"bad = a\ngood = b\n"
		"[typo.normal]\nkind = regex\nmessage = m\npattern = b\nbad = b\ngood = a\n");
	enum { N = 5000 };
	char *text = malloc(N + 2);
	ck_assert_ptr_nonnull(text);
	memset(text, 'a', N);
	text[N] = 'b';
	text[N + 1] = '\0';

	test_diags ds = TEST_DIAGS_INIT;
	jh_check_options opts = {.file = "novel.txt", .diag_fn = test_diag_collect, .payload = &ds};
	jh_findings fs = JH_FINDINGS_INIT;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(jh_check(rs, text, N + 1, &opts, &fs), JH_OK);
	double took = seconds_since(&t0);
	ck_assert_msg(took < 5.0, "jh_check took %.1f s", took);

	/* The other rule still ran. */
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.normal", N, N + 1, NULL);
	/* Each runaway rule was reported, a bounded number of times, as a
	 * warning naming the file and the rule. */
	size_t plain = 0, trig = 0;
	for (size_t i = 0; i < ds.count; i++) {
		const test_diag *d = &ds.items[i];
		ck_assert_int_eq(d->severity, JH_WARNING);
		ck_assert_str_eq(d->file, "novel.txt");
		ck_assert_ptr_nonnull(d->rule_id);
		plain += strcmp(d->rule_id, "typo.runaway") == 0;
		trig += strcmp(d->rule_id, "typo.runaway-trig") == 0;
	}
	ck_assert_msg(plain >= 1 && plain <= 16, "typo.runaway: %zu warnings", plain);
	ck_assert_msg(trig >= 1 && trig <= 16, "typo.runaway-trig: %zu warnings", trig);
	ck_assert_uint_eq(plain + trig, ds.count);
	jh_findings_clear(&fs);
	test_diags_free(&ds);
	free(text);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(invalid_utf8_subject)
{
	jh_ruleset *rs = test_ruleset(
		SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\n")
		"[censor.bar]\nkind = regex\nmessage = m\npattern = [丨｜]\nbad = 丨\ngood = 一\n"
		"[punct.dot]\nkind = regex\nmessage = m\npattern = \\p{Han}\\.\ntrigger = .\nlead = 3\n"
		"bad = 中.\ngood = .\n");
	static const struct {
		const char *text;
		size_t len;
		size_t n;
		struct {
			const char *id;
			size_t start, end;
		} want[3];
	} cases[] = {
		/* FF(0) 子(1) 丨(4) 弹(7) C3(10) */
		{"\xFF子丨弹\xC3", 11, 2, {{"censor.sep-trig", 4, 7}, {"censor.bar", 4, 7}}},
		/* lead steps back over stray continuation bytes: 80 80 中(2) .(5) */
		{"\x80\x80中.", 6, 1, {{"punct.dot", 2, 6}}},
		/* a cut character after the last match */
		{"丨\xE4\xB8", 5, 1, {{"censor.bar", 0, 3}}},
		/* the lookbehind sees a bad byte, not a Han character */
		{"\xFF丨弹", 7, 1, {{"censor.bar", 1, 4}}},
		{"\xE4\xB8\xE4\xB8\xE4\xB8...", 9, 0, {{NULL, 0, 0}}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[c].text, cases[c].len, &fs);
		size_t n_regex = fs.count;
		ck_assert_msg(n_regex == cases[c].n, "case %zu: %zu findings, expected %zu", c, n_regex,
		              cases[c].n);
		for (size_t i = 0; i < cases[c].n; i++) {
			const jh_finding *f = &fs.items[i];
			ck_assert_msg(strcmp(f->rule_id, cases[c].want[i].id) == 0 &&
			                  f->byte_start == cases[c].want[i].start &&
			                  f->byte_end == cases[c].want[i].end,
			              "case %zu finding %zu: %s [%zu,%zu)", c, i, f->rule_id, f->byte_start,
			              f->byte_end);
		}
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* The rule set's compiled patterns in the cache folder (regex_cache.c):
 * written by the first compile, taken by the next (same findings), not
 * used when damaged (the codes' hash, cut short), not used for another
 * list of patterns, not written while a pattern fails to compile. */
static int cached_rules(const char *ini, const char *cache, jh_ruleset **out, test_diags *ds)
{
	ck_assert_int_eq(jh_ruleset_new(out), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_cache_dir(*out, cache), JH_OK);
	int rc = jh_ruleset_load_string(*out, TEST_RULES_NAME, ini, TEST_DATA_DIR, test_diag_collect, ds);
	int rc2 = jh_ruleset_compile(*out, test_diag_collect, ds);
	return rc ? rc : rc2;
}

static void cached_findings(const char *ini, const char *cache, const char *text, char *out, size_t size)
{
	jh_ruleset *rs;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_msg(cached_rules(ini, cache, &rs, &ds) == JH_OK, "%s", test_diags_text(&ds));
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < fs.count; i++)
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s:%zu-%zu;", fs.items[i].rule_id,
		                      fs.items[i].byte_start, fs.items[i].byte_end);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}

#define PAIR_RULE(pat) \
	"[typo.pair]\nkind = regex\nmessage = m\npattern = " pat "\nbad = " pat "\ngood = 丙\n"

START_TEST(compiled_patterns_cached)
{
	char dir[] = "/tmp/jh-regex-cache.XXXXXX", file[600] = "";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *ini = SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\n") PAIR_RULE("甲乙");
	const char *text = "子丨弹，甲乙乙甲";
	char cold[400], warm[400];
	cached_findings(ini, dir, text, cold, sizeof cold);
	ck_assert_str_eq(cold, "censor.sep-trig:3-6;typo.pair:12-18;");
	ck_assert_uint_eq(test_files_in(dir, "regex-", file, sizeof file), 1);
	cached_findings(ini, dir, text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	/* a byte of the codes changed: their hash no longer matches */
	struct stat st;
	ck_assert_int_eq(stat(file, &st), 0);
	FILE *f = fopen(file, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, st.st_size - 9, SEEK_SET), 0);
	int c = fgetc(f);
	ck_assert_int_eq(fseek(f, st.st_size - 9, SEEK_SET), 0);
	fputc(c ^ 0x5A, f);
	fclose(f);
	cached_findings(ini, dir, text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	f = fopen(file, "rb"); /* and written again whole */
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, st.st_size - 9, SEEK_SET), 0);
	ck_assert_int_eq(fgetc(f), c);
	fclose(f);
	/* cut short */
	ck_assert_int_eq(truncate(file, st.st_size - 1), 0);
	cached_findings(ini, dir, text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	/* another pattern: its own file, its own findings */
	const char *ini2 = SEPARATOR_RULE("censor.sep-trig", "trigger = 丨｜\n") PAIR_RULE("乙甲");
	cached_findings(ini2, dir, text, warm, sizeof warm);
	ck_assert_str_eq(warm, "censor.sep-trig:3-6;typo.pair:18-24;");
	ck_assert_uint_eq(test_files_in(dir, "regex-", NULL, 0), 2);
	/* a pattern that does not compile: reported every time, nothing cached */
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -f '%s'/regex-*", dir);
	ck_assert_int_eq(system(cmd), 0);
	const char *bad = PAIR_RULE("甲乙") "[typo.badpat]\npattern = (unclosed\nkind = regex\nmessage = m\n"
	                                   "bad = x\ngood = y\n";
	for (int k = 0; k < 2; k++) {
		jh_ruleset *rs;
		test_diags ds = TEST_DIAGS_INIT;
		ck_assert_int_eq(cached_rules(bad, dir, &rs, &ds), JH_ERR_RULES);
		ck_assert_ptr_nonnull(test_diags_find(&ds, "bad pattern"));
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
	ck_assert_uint_eq(test_files_in(dir, "regex-", NULL, 0), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(compile_errors)
{
	/* The pattern is the rule's first key, so its line is also the rule's
	 * line: either is a right place for the error. */
	static const struct {
		const char *ini;
		const char *needle;
	} cases[] = {
		{"[typo.badpat]\npattern = (unclosed\nkind = regex\nmessage = m\nbad = x\ngood = y\n",
		 "bad pattern"},
		{"[typo.badtrig]\ntrigger = \\q\nkind = regex\nmessage = m\npattern = x\nbad = x\n"
		 "good = y\n",
		 "bad trigger"},
		{"[typo.badtrig]\ntrigger = z-a\nkind = regex\nmessage = m\npattern = x\nbad = x\n"
		 "good = y\n",
		 "bad trigger"},
		/* a word no trigger character starts could never let the rule run */
		{"[typo.badwords]\ntrigger = x\ntrigger-words = xy zz\nkind = regex\nmessage = m\n"
		 "pattern = x\nbad = x\ngood = y\n",
		 "bad trigger-words"},
		{"[typo.badwords]\npattern = x\ntrigger-words = x\nkind = regex\nmessage = m\n"
		 "bad = x\ngood = y\n",
		 "bad trigger-words"},
		{"[typo.near]\npattern = x\ntrigger = x\nnear-words = y\nkind = regex\nmessage = m\n"
		 "bad = x\ngood = y\n",
		 "near-words and near go together"},
		{"[typo.near]\npattern = x\nnear = 3\nnear-words = y\nkind = regex\nmessage = m\n"
		 "bad = x\ngood = y\n",
		 "near-words and near go together"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		test_diags ds = TEST_DIAGS_INIT;
		jh_ruleset *rs;
		ck_assert_int_eq(test_ruleset_try(cases[i].ini, &rs, &ds), JH_ERR_RULES);
		const test_diag *d = test_diags_find(&ds, cases[i].needle);
		ck_assert_msg(d != NULL, "case %zu: diagnostics:%s", i, test_diags_text(&ds));
		ck_assert_int_eq(d->severity, JH_ERROR);
		ck_assert_str_eq(d->file, TEST_RULES_NAME);
		ck_assert_msg(d->line == 1 || d->line == 2, "case %zu: line %u", i, d->line);
		ck_assert_ptr_nonnull(d->rule_id);
		unsigned char sel[1];
		jh_ruleset_default_selection(rs, sel);
		ck_assert_int_eq(sel[0], 0);
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
}
END_TEST

/* The check in C before PCRE2 (regex_pre.c): built only for patterns whose
 * every top-level alternative says, from its start, something sure of the
 * characters before t (lookbehinds) or from t on (its first items, as a
 * small automaton), and that set no options; it says no only where PCRE2
 * could not match. */
START_TEST(pre_check_forms)
{
	static const struct {
		const char *pattern;
		unsigned lead;
		const char *want; /* jh_pre_describe */
	} cases[] = {
		{"(?<=\\p{sc=Han})[丨｜](?=\\p{sc=Han})", 0, "<1\\p{sc=Han} [丨｜] (?=\\p{sc=Han})"},
		{"(?<=[，。！？])[ \\t]+(?=x)", 0, "<1[，。！？] [ \\t] [ \\t]* (?=x)"},
		{"(?<=[^\\s])\\t+", 0, "<1[^\\s] \\t \\t*"},
		{"(?<=\\p{Han})a|(?<=[0-9])b", 0, "<1\\p{Han} a | <1[0-9] b"},
		{"(?<!，)(，)，(?!，)|(?<!、)(、)、", 0, "<1!， ， ， | <1!、 、 、"},
		{"x{3,}|(?:y)z", 0, "x x x x* | y z"},
		{"a?b", 0, "a? b"},
		{"(?<=\\p{Han})a", 3, ""},              /* a lead: the match starts earlier */
		{"(?<=\\p{Han})a|(?=b)", 0, "<1\\p{Han} a | (?=b)"},
		{"(?<=\\p{Han})a|.*", 0, ""},           /* an alternative that needs nothing */
		{"(?<=\\p{Han})a|b?", 0, ""},
		{"(?<=不|别)在", 0, "<1{不,别} 在"},     /* a lookbehind of alternatives: their last characters */
		{"(?<=不|不会)在", 0, "<1{不,会} 在"},
		{"(?<=ab)c", 0, "<1b <2a c"},           /* two characters back */
		{"(?<!ab|c)d", 0, "d"},                 /* not one character: passed over */
		{"(?<=\\p{Han})?a", 0, "a"},            /* quantified: may be skipped */
		{"(?<=\\p{Han})(?i)a|(?<=x)b", 0, ""}, /* options reach the next alternative */
		{"(?<=\\Qa\\E)b", 0, ""},
		{"(?<=[a-z])(*SKIP)b", 0, ""},
		{"\\Rx", 0, ""},
		{"a+b", 0, "a a* b"},
		{"ab{0,2}c", 0, "a b* c"},              /* more than the pattern allows: only lets more through */
		{"(ab)c", 0, ""},                       /* a group of two items: not read */
		{"a(ab)c", 0, "a"},                     /* ...and nothing after it */
		{"(说|說|问)到(?=[，。])", 0, "{说,說,问} 到 (?=[，。])"},
		{"(?<![ \\t])[ \\t]++(?=\\r?\\n|\\z)", 0, "<1![ \\t] [ \\t] [ \\t]* (?={\\r,\\n,\\z})"},
		{"(?<!x)(?<=ab|c)d(?=e|$)", 0, "<1!x <1{b,c} d (?={e,\\n,\\z})"},
		{"a(?=)b", 0, "a b"},                   /* an empty lookahead says nothing */
		{"x(?=y|z?)", 0, "x"},                  /* ...nor one that may match nothing */
		{"x(?!y)z", 0, "x z"},                  /* a negative one only takes matches away */
		{"x(?<=\\p{Han}x)y", 0, "x y"},         /* as does a lookbehind after the start */
	};
	jh_pre_classes cs = {0};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_pre pre;
		ck_assert_int_eq(jh_pre_build(&pre, cases[i].pattern, cases[i].lead, &cs), 0);
		char got[512];
		jh_pre_describe(&pre, got, sizeof got);
		ck_assert_msg(!strcmp(got, cases[i].want), "case %zu (%s): '%s', not '%s'", i,
		              cases[i].pattern, got, cases[i].want);
	}
	/* \p{Han} of several patterns is kept once */
	size_t han = 0;
	for (size_t i = 0; i < cs.n; i++)
		han += !strcmp(cs.v[i]->src, "\\p{Han}");
	ck_assert_uint_eq(han, 1);
	jh_pre_classes_free(&cs);
}
END_TEST

/* jh_pre_pair, which the scan keeps per pair of characters, answers as
 * jh_pre_maybe wherever it answers (at every position of a few texts,
 * for checks of one and several alternatives, lookaheads and runs). */
START_TEST(pre_pair_agrees)
{
	static const char *const patterns[] = {
		"(?<=\\p{sc=Han})x|(?<=[，0-9])y|zz", "(?<![ \\t])[ \\t]++(?=\\r?\\n|\\z)|(?<=ab)c",
		"(说|說|问)到(?=[，。])", "(?<!x)(?<=ab|c)d(?=e|$)", "a+b", "x(?!y)z"};
	static const char *const texts[] = {"子xax，y\xF0\xA0\x80\x80xzzz", "a  \nb \tc  d   ",
	                                    "他说到，问到。说到了abcd abde cde xz xyz aab",
	                                    "1y，y z zz\r\n 说到。"};
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	jh_pre_classes cs = {0};
	for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
		jh_pre pre;
		ck_assert_int_eq(jh_pre_build(&pre, patterns[i], 0, &cs), 0);
		for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
			const unsigned char *t = (const unsigned char *)texts[k];
			size_t len = strlen(texts[k]), prev = 0;
			for (size_t p = 0; p < len;) {
				int32_t at, before = -2;
				size_t n = jh_utf8_decode(t + p, len - p, &at);
				if (p)
					jh_utf8_decode(t + prev, p - prev, &before);
				if (p && before >= 0 && before < 0x10000 && at >= 0 && at < 0x10000) {
					int r = jh_pre_pair(&pre, before, at, md);
					if (r >= 0)
						ck_assert_msg(r == jh_pre_maybe(&pre, texts[k], len, p, md),
						              "pattern %zu, text %zu, byte %zu", i, k, p);
				}
				prev = p;
				p += n;
			}
		}
		jh_pre_free(&pre);
	}
	jh_pre_classes_free(&cs);
	pcre2_match_data_free(md);
}
END_TEST

START_TEST(pre_check_answers)
{
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	jh_pre pre;
	jh_pre_classes cs = {0};
	ck_assert_int_eq(jh_pre_build(&pre, "(?<=\\p{sc=Han})x|(?<=[，0-9])y|zz", 0, &cs), 0);
	ck_assert_int_eq(pre.n, 3);
	/* 子(0) x(3) a(4) x(5) ，(6) y(9) 𠀀(10, astral Han) x(14) z(15) z(16) z(17) */
	const char *text = "子xax，y\xF0\xA0\x80\x80xzzz";
	size_t len = strlen(text);
	for (int round = 0; round < 2; round++) { /* the second from the memo */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 0, md), 0); /* nothing before */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 3, md), 1); /* x after 子 */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 5, md), 0); /* x after a */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 9, md), 1); /* y after ， */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 14, md), 1); /* x after 𠀀 */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 15, md), 1); /* zz */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 16, md), 1); /* zz */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 17, md), 0); /* z at the end */
		ck_assert_int_eq(jh_pre_maybe(&pre, text, len, 4, md), 0);  /* a */
	}
	/* A broken sequence where it looks: PCRE2 decides. */
	ck_assert_int_eq(jh_pre_maybe(&pre, "\xE5\xAD" "x", 3, 2, md), 1);
	ck_assert_int_eq(jh_pre_maybe(&pre, "a\x80" "x", 3, 2, md), 1);
	ck_assert_int_eq(jh_pre_maybe(&pre, "z\xE5", 2, 0, md), 1);
	jh_pre_free(&pre);
	/* The walk from t: a run, then a lookahead that takes the end too. */
	ck_assert_int_eq(jh_pre_build(&pre, "(?<![ \\t])[ \\t]++(?=\\r?\\n|\\z)|(?<=ab)c", 0, &cs), 0);
	ck_assert_int_eq(pre.n, 2);
	const char *sp = "a  \nb \tc  d   ";
	size_t spn = strlen(sp);
	ck_assert_int_eq(jh_pre_maybe(&pre, sp, spn, 1, md), 1);  /* "  \n" */
	ck_assert_int_eq(jh_pre_maybe(&pre, sp, spn, 2, md), 0);  /* a space after a space */
	ck_assert_int_eq(jh_pre_maybe(&pre, sp, spn, 5, md), 0);  /* " \tc" */
	ck_assert_int_eq(jh_pre_maybe(&pre, sp, spn, 8, md), 0);  /* "  d" */
	ck_assert_int_eq(jh_pre_maybe(&pre, sp, spn, 11, md), 1); /* "   " at the end */
	ck_assert_int_eq(jh_pre_maybe(&pre, "xabc", 4, 3, md), 1);
	ck_assert_int_eq(jh_pre_maybe(&pre, "xbbc", 4, 3, md), 0);
	ck_assert_int_eq(jh_pre_maybe(&pre, "bc", 2, 1, md), 0);   /* nothing two back */
	jh_pre_free(&pre);
	jh_pre_classes_free(&cs);
	pcre2_match_data_free(md);
}
END_TEST

/* Triggered rules with a check before PCRE2 find what the same rules
 * without a trigger (one scan of the whole text, no check) find. */
START_TEST(pre_check_agrees_with_scan)
{
	static const char *const pats[] = {
	    "(?<!，)(，)，(?!，)|(?<!、)(、)、(?!、)",
	    "(?<=[\\p{sc=Han}，。])\\.{3,}(?![.A-Za-z])|。{3,}|(?<=\\p{sc=Han})…(?!…)",
	    "(?<=\\p{sc=Han})(?=[A-Za-z])|[A-Za-z](?=\\p{sc=Han})",
	    "(?<=\\p{sc=Han})[ \\x{A0}](?=\\p{sc=Han})",
	};
	static const char *const trig[] = {"，、", ".。…", "A-Za-z", "\\s\\x{A0}"};
	static const char *const ex[][2] = {
	    {"好，，走", "好，走"}, {"好。。。", "好。"}, {"中a", "ab"}, {"中 文", "a b"}};
	const char *text = "他说，，好。。。走吧...x，、、abc中文English混排 的 字…。\xE5\xAD，，\xFF、、末";
	for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
		char rules[1024];
		snprintf(rules, sizeof rules,
		         "[punct.t-scan]\nkind = regex\nmessage = m\npattern = %s\nbad = %s\ngood = %s\n"
		         "[punct.t-trig]\nkind = regex\nmessage = m\npattern = %s\ntrigger = %s\n"
		         "bad = %s\ngood = %s\n",
		         pats[i], ex[i][0], ex[i][1], pats[i], trig[i], ex[i][0], ex[i][1]);
		jh_ruleset *rs = test_ruleset(rules);
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, text, strlen(text), &fs);
		size_t scan = 0, trig_n = 0;
		for (size_t k = 0; k < fs.count; k++)
			*(strcmp(fs.items[k].rule_id, "punct.t-scan") ? &trig_n : &scan) += 1;
		ck_assert_msg(scan == trig_n && scan > 0, "pattern %zu: %zu by scan, %zu by trigger", i,
		              scan, trig_n);
		for (size_t k = 0; k + 1 < fs.count; k += 2) /* sorted by place, then rule */
			ck_assert_uint_eq(fs.items[k].byte_start, fs.items[k + 1].byte_start);
		jh_findings_clear(&fs);
		jh_ruleset_free(rs);
	}
}
END_TEST

static void quiet_diag(const jh_diag *d, void *payload)
{
	(void)d;
	(void)payload;
}

/* Appends the file at path to *text (NUL-free texts only matter here). */
static void add_file(char **text, size_t *len, const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		*text = realloc(*text, *len + n + 1);
		ck_assert_ptr_nonnull(*text);
		memcpy(*text + *len, buf, n);
		*len += n;
	}
	fclose(f);
}

/* The check of every default rule that has one, at every character
 * boundary of the corpus samples and of a text of the cases the checks
 * read (spaces before line ends and the end, runs, broken bytes): where
 * it says no, PCRE2 finds no match starting there. */
START_TEST(pre_check_never_misses)
{
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_dir(rs, JH_SRCDIR "/rules", quiet_diag, NULL), JH_OK);
	ck_assert_int_eq(jh_ruleset_compile(rs, quiet_diag, NULL), JH_OK);
	char *text = NULL;
	size_t len = 0;
	glob_t g;
	ck_assert_int_eq(glob(JH_SRCDIR "/corpus-samples/*.txt", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++)
		add_file(&text, &len, g.gl_pathv[i]);
	globfree(&g);
	static const char extra[] =
	    "他说 \n 好，\n\n走， \r\n\r\n　　来  \t\n末 ab , c, 中,文 中:x 中 :b 是. 好?!"
	    "……。。。...，，、、；；：：--—— 中・文 中 文 中\xC2\xA0文 www.x.com中biquge.la "
	    "中a中 pīn中 中x中 中□中 \xE2\x80\x8B\xEF\xBB\xBF中\xE2\x80\x8C中 \xE5\xAD，，\xFF、、"
	    "跑的很快 不在等 说到，\t\tx\t \n  ";
	text = realloc(text, len + sizeof extra);
	ck_assert_ptr_nonnull(text);
	memcpy(text + len, extra, sizeof extra);
	len += sizeof extra - 1;
	const jh_regexes *rx = rs->regexes;
	pcre2_match_data *md = pcre2_match_data_create(rx->max_ovector, NULL);
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	size_t checked = 0, said_no = 0;
	for (size_t k = 0; k < rx->n; k++) {
		const jh_rx *x = &rx->v[k];
		if (!x->pre.n)
			continue;
		checked++;
		pcre2_code *jit = pcre2_code_copy(x->code);
		ck_assert_int_eq(pcre2_jit_compile(jit, PCRE2_JIT_COMPLETE), 0);
		for (size_t t = 0; t < len; t++) {
			if (((unsigned char)text[t] & 0xC0) == 0x80 ||
			    jh_pre_maybe(&x->pre, text, len, t, md))
				continue;
			said_no++;
			pcre2_set_offset_limit(mc, t);
			int rc = pcre2_jit_match(jit, (PCRE2_SPTR)text, len, t, 0, md, mc);
			ck_assert_msg(rc == PCRE2_ERROR_NOMATCH, "%s: the check said no at byte %zu (%.12s)",
			              rs->rules[x->rule_index]->id, t, text + t);
		}
		pcre2_code_free(jit);
	}
	ck_assert_uint_gt(checked, 15);
	ck_assert_uint_gt(said_no, len);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	free(text);
	jh_ruleset_free(rs);
}
END_TEST

Suite *regex_suite(void)
{
	Suite *s = suite_create("regex");
	TCase *tc = test_tcase("match", 4);
	tcase_add_test(tc, trigger_and_scan_agree);
	tcase_add_test(tc, unfixed_document);
	tcase_add_test(tc, skip_lines);
	tcase_add_test(tc, matches_do_not_overlap);
	tcase_add_test(tc, interpreter_and_jit_agree);
	tcase_add_test(tc, match_across_trigger_chunks);
	tcase_add_test(tc, lead_reaches_before_trigger);
	tcase_add_test(tc, lookbehind_before_trigger);
	tcase_add_test(tc, trigger_words_gate);
	tcase_add_test(tc, near_words_gate);
	tcase_add_test(tc, near_words_windows);
	tcase_add_test(tc, trigger_ranges_and_astral);
	tcase_add_test(tc, many_triggered_rules);
	tcase_add_test(tc, fix_templates);
	tcase_add_test(tc, template_group_beyond_pattern);
	tcase_add_test(tc, invalid_utf8_subject);
	tcase_add_test(tc, compile_errors);
	tcase_add_test(tc, compiled_patterns_cached);
	tcase_add_test(tc, pre_check_forms);
	tcase_add_test(tc, pre_check_answers);
	tcase_add_test(tc, pre_pair_agrees);
	tcase_add_test(tc, pre_check_agrees_with_scan);
	tcase_add_test(tc, pre_check_never_misses);
	suite_add_tcase(s, tc);
	/* The CPU bound is the backstop if the limits do not work. */
	tc = test_tcase("limits", 20);
	tcase_add_test(tc, runaway_pattern_is_stopped);
	suite_add_tcase(s, tc);
	return s;
}
