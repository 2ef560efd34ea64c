/* check_script.c — the script family's checks with the real rule file and
 * its generated tables: the document's and each paragraph's variant, the
 * variant asked for (rule parameter, jh_check_options.variant), conversion
 * errors found by phrase and not by character, look-alike letters,
 * invisible characters, half-width katakana. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include "tests.h"

#define SCRIPT_RULES JH_SRCDIR "/rules/script.rules"

/* The script rules, with one parameter set before compiling (key may be
 * NULL). */
static jh_ruleset *script_rules(const char *id, const char *key, const char *value)
{
	jh_ruleset *rs = NULL;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	/* the cache folder these tests set, as the command line reads it */
	ck_assert_int_eq(jh_ruleset_set_cache_dir(rs, getenv("JINGHUA_CACHE_DIR")), JH_OK);
	ck_assert_msg(jh_ruleset_load_file(rs, SCRIPT_RULES, test_diag_collect, &ds) == JH_OK, "%s",
	              test_diags_text(&ds));
	if (key)
		ck_assert_int_eq(jh_ruleset_set_param(rs, id, key, value), JH_OK);
	ck_assert_msg(jh_ruleset_compile(rs, test_diag_collect, &ds) == JH_OK, "%s",
	              test_diags_text(&ds));
	test_diags_free(&ds);
	return rs;
}

static void check_with(const jh_ruleset *rs, const char *text, const char *variant,
                       jh_findings *out)
{
	jh_check_options o;
	memset(&o, 0, sizeof o);
	o.variant = variant;
	ck_assert_int_eq(jh_check(rs, text, strlen(text), &o, out), JH_OK);
}

/* The first finding of rule id, or NULL. */
static const jh_finding *first_of(const jh_findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->count; i++)
		if (!strcmp(fs->items[i].rule_id, id))
			return &fs->items[i];
	return NULL;
}

static const char *span(const char *text, const jh_finding *f)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%.*s", (int)(f->byte_end - f->byte_start), text + f->byte_start);
	return buf;
}

START_TEST(variant_minority_in_traditional)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	const char *t = "他們帶著剩下的騎兵向北撤退，这個時候日軍還沒有發現。";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, t, strlen(t), &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.mixed-variant"), 1);
	const jh_finding *f = first_of(&fs, "script.mixed-variant");
	ck_assert_str_eq(span(t, f), "这");
	ck_assert_int_eq(f->safety, JH_SAFE);
	ck_assert_str_eq(f->edits[0].replacement, "這");
	jh_findings_clear(&fs);

	/* 发 has two traditional forms: unsafe, both named */
	t = "騎兵們在山坡後面整隊，準備再一次发起衝鋒。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->safety, JH_UNSAFE);
	ck_assert_str_eq(f->edits[0].replacement, "發");
	ck_assert_msg(strstr(f->message, "發、髮") != NULL, "%s", f->message);
	jh_findings_clear(&fs);

	/* adjacent minority characters are one finding */
	t = "他們帶著剩下的騎兵向北撤退，这个時候日軍還沒有發現。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_str_eq(span(t, f), "这个");
	ck_assert_str_eq(f->edits[0].replacement, "這個");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* Where a simplified character has several traditional forms, the word
 * decides, and the finding covers the whole word (its neighbour valid in
 * both variants too); in simplified text a stray traditional character
 * takes its neighbour along. */
START_TEST(variant_words_decide)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	jh_findings fs = JH_FINDINGS_INIT;
	const char *t = "　　窗外的雨越下越大，她坐在鏡子前，慢慢地梳著头发，聽見門外有人說話。";
	test_check(rs, t, strlen(t), &fs);
	const jh_finding *f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(span(t, f), "头发");
	ck_assert_str_eq(f->edits[0].replacement, "頭髮");
	ck_assert_int_eq(f->safety, JH_SAFE);
	jh_findings_clear(&fs);

	/* 晒 alone is 曬 everywhere, but the word is 曬乾: the finding takes 干 */
	t = "　　雨停了以後，農民們把穀子攤在場院上晒干，準備過幾天再賣。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(span(t, f), "晒干");
	ck_assert_str_eq(f->edits[0].replacement, "曬乾");
	jh_findings_clear(&fs);

	/* no word: next to 后 (後 or 后?) the fix could leave a word half
	 * done, unsafe; after a comma it cannot */
	t = "　　雨停了以後，農民們把穀子攤在場院上晒后再收進倉裡。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(span(t, f), "晒");
	ck_assert_int_eq(f->safety, JH_UNSAFE);
	jh_findings_clear(&fs);
	t = "　　雨停了以後，農民們把穀子攤在場院上晒，干了再收進倉裡。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->safety, JH_SAFE);
	jh_findings_clear(&fs);

	t = "我们等了很久，火车終於开进了站台，大家都松了一口气。";
	test_check(rs, t, strlen(t), &fs);
	f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(span(t, f), "終於");
	ck_assert_str_eq(f->edits[0].replacement, "终于");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* A character the sentence speaks of as a character: info, no fix. */
START_TEST(variant_spoken_of)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	jh_findings fs = JH_FINDINGS_INIT;
	const char *t = "小时候我总把“門”写成“门”，老师每次都要纠正我。";
	test_check(rs, t, strlen(t), &fs);
	const jh_finding *f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(span(t, f), "門");
	ck_assert_int_eq(f->severity, JH_INFO);
	ck_assert_uint_eq(f->n_edits, 0);
	jh_findings_clear(&fs);

	/* both forms in a half-converted sentence, with other neighbours: a fix */
	t = "我们在车站等了很久，這个人和这個人都没有来，大家只好先回去了。";
	test_check(rs, t, strlen(t), &fs);
	for (size_t i = 0; i < fs.count; i++)
		if (!strcmp(fs.items[i].rule_id, "script.mixed-variant"))
			ck_assert_uint_gt(fs.items[i].n_edits, 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(variant_clean_text_is_quiet)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const char *const texts[] = {
		"他们带着剩下的骑兵向北撤退，这个时候日军还没有发现。剩余的人在十里外集合。",
		"他們帶著剩下的騎兵向北撤退，這個時候日軍還沒有發現。頭髮亂糟糟的。",
		"頭髮亂糟糟的，他一隻手握著馬韁，只能慢慢地往前走，那只能說明他累了。",
		"", "\n\n", "abc 123",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, texts[i], strlen(texts[i]), &fs);
		ck_assert_msg(fs.count == 0, "%s: %zu findings, first %s", texts[i], fs.count,
		              fs.count ? fs.items[0].rule_id : "");
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* A long file with a chapter in each variant: each paragraph with enough
 * evidence keeps its own; asked for hant, the simplified one is flagged. */
START_TEST(variant_per_paragraph)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
#define HANS_PARA "他们带着剩下的骑兵向北撤退，这个时候日军还没有发现，骑兵团长说等天亮再进攻，" \
	"于是大家在树林里休息，战马也喂过了，谁也没有说话。\n"
#define HANT_PARA "他們帶著剩下的騎兵向北撤退，這個時候日軍還沒有發現，騎兵團長說等天亮再進攻，" \
	"於是大家在樹林裡休息，戰馬也餵過了，誰也沒有說話。\n"
	const char *t = HANS_PARA HANS_PARA HANT_PARA HANT_PARA "短短一行这个。\n";
	size_t first_hant = 2 * strlen(HANS_PARA);
	jh_findings fs = JH_FINDINGS_INIT;
	check_with(rs, t, NULL, &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.mixed-variant"), 1);
	jh_findings_clear(&fs);
	check_with(rs, t, "hant", &fs);
	size_t n = test_count_rule(&fs, "script.mixed-variant");
	ck_assert_uint_ge(n, 10);
	for (size_t i = 0; i < fs.count; i++) /* all in the simplified paragraphs, or the last line */
		ck_assert(fs.items[i].byte_start < first_hant ||
		          fs.items[i].byte_start >= first_hant + 2 * strlen(HANT_PARA));
	jh_findings_clear(&fs);
	check_with(rs, t, "auto", &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.mixed-variant"), 1);
	ck_assert_str_eq(span(t, &fs.items[0]), "这个"); /* a short line after traditional */
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* Invalid UTF-8 before a run: a lead byte and a long tail of stray
 * continuation bytes (found by fuzzing) once counted as one character
 * stepping back and as many stepping forward, overflowing the run's
 * character table.  The run is still reported, from its own bytes. */
START_TEST(variant_run_after_stray_bytes)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	char t[1024];
	size_t n = 0;
	for (int i = 0; i < 2; i++)
		n += (size_t)snprintf(t + n, sizeof t - n, "%s", "他们带着剩下的骑兵向北撤退，这个时候日军还没有发现，骑兵团长说等天亮再进攻，于是大家在树林里休息，战马也喂过了，谁也没有说话。\n");
	memcpy(t + n, "\xE4\xB8\x80", 3), n += 3; /* 一 */
	memset(t + n, 0x80, 90), n += 90;
	n += (size_t)snprintf(t + n, sizeof t - n, "%s", "這個發現。\n");
	jh_findings fs = JH_FINDINGS_INIT;
	jh_check_options o;
	memset(&o, 0, sizeof o);
	ck_assert_int_eq(jh_check(rs, t, n, &o, &fs), JH_OK);
	const jh_finding *f = first_of(&fs, "script.mixed-variant");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_ge(f->byte_start, n - strlen("這個發現。\n"));
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* The classes of issue 19: what a sure conversion is.  Each text, the run
 * reported, its severity and the safety of its fix (sentences written for
 * this test). */
START_TEST(variant_doubt_classes)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const struct {
		const char *text, *span;
		int severity, safety;
	} cases[] = {
		/* a quotation in the other variant, a short term, a title */
		{"村口的石牌坊上刻着“忠孝傳家”，来往的人都要抬头看一眼。", "傳", JH_INFO, JH_UNSAFE},
		{"他把那张写着『龍門客棧』的旧海报贴在了墙上，说是留个纪念。", "龍門", JH_INFO, JH_UNSAFE},
		{"我们读完了《紅樓夢》的前八十回，后面的续书还没有开始读。", "紅樓夢", JH_INFO, JH_UNSAFE},
		{"我们读完了《红樓梦》的前八十回，后面的续书还没有开始读。", "樓", JH_INFO, JH_UNSAFE},
		/* a stray character in speech of the text's own variant */
		{"她回头对我们说：“你们快点過来，这里的风景真好看，别再磨蹭了。”", "過", JH_WARNING,
		 JH_SAFE},
		/* two to one: a weak majority */
		{"这些东西我們還没准备好。", "們還", JH_WARNING, JH_UNSAFE},
		/* a character spoken of, and the same character elsewhere */
		{"那个年代的刻本里，凡是曆字都要缺一笔，所以曆书上的曆也没有写全。", "曆", JH_INFO,
		 JH_UNSAFE},
		/* a simplified form outside the BMP or in Extension A */
		{"我们在展厅里看到了赵孟頫的几幅字，这些作品保存得都很完好。", "頫", JH_INFO, JH_UNSAFE},
		{"这些马的名字很有意思，其中一匹叫作騧，是黑嘴的黄马，跑得很快。", "騧", JH_INFO,
		 JH_UNSAFE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		check_with(rs, cases[i].text, NULL, &fs);
		const jh_finding *f = first_of(&fs, "script.mixed-variant");
		ck_assert_msg(f != NULL, "%s: nothing", cases[i].text);
		ck_assert_msg(!strcmp(span(cases[i].text, f), cases[i].span), "%s: %s", cases[i].text,
		              span(cases[i].text, f));
		ck_assert_msg((int)f->severity == cases[i].severity && (int)f->safety == cases[i].safety,
		              "%s: severity %d safety %d", cases[i].text, (int)f->severity,
		              (int)f->safety);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* A long quotation in the other variant takes no part in the vote: the
 * narration around it is not "converted", in a one-line text or in a long
 * file held paragraph by paragraph; asked for a variant, a quotation is
 * still quoted. */
START_TEST(variant_quotation_does_not_vote)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	const char *t = "他在日记里抄了一段：“我們這些人從小在山裡長大，對外面的世界知道得太少，"
	                "總覺得那裡的一切都離我們很遠。”抄完以后，他看了很久。";
	jh_findings fs = JH_FINDINGS_INIT;
	check_with(rs, t, NULL, &fs);
	ck_assert_uint_ge(test_count_rule(&fs, "script.mixed-variant"), 1);
	for (size_t i = 0; i < fs.count; i++) {
		ck_assert_msg(fs.items[i].byte_start > strlen("他在日记里抄了一段：") &&
		              fs.items[i].byte_end < strlen(t) - strlen("抄完以后，他看了很久。"),
		              "outside the quotation: %s", span(t, &fs.items[i]));
		ck_assert_int_eq(fs.items[i].severity, JH_INFO);
		ck_assert_int_eq(fs.items[i].safety, JH_UNSAFE);
	}
	jh_findings_clear(&fs);
	check_with(rs, t, "hans", &fs);
	for (size_t i = 0; i < fs.count; i++)
		ck_assert_int_eq(fs.items[i].safety, JH_UNSAFE);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(variant_parameter)
{
	/* set before compiling, as the CLI and the config do */
	jh_ruleset *rs = script_rules("script.mixed-variant", "variant", "hans");
	const char *t = "他們帶著剩下的騎兵向北撤退。";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, t, strlen(t), &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.mixed-variant"), 2); /* 們帶, 騎 */
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	char *fixed;
	rs = script_rules("script.mixed-variant", "variant", "hans");
	fixed = test_fix(rs, "這個時候", 1, NULL);
	ck_assert_str_eq(fixed, "这个时候");
	free(fixed);
	jh_ruleset_free(rs);

	jh_ruleset *bad = NULL;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&bad), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_file(bad, SCRIPT_RULES, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_param(bad, "script.mixed-variant", "variant", "zh-tw"), JH_OK);
	ck_assert_int_eq(jh_ruleset_compile(bad, test_diag_collect, &ds), JH_ERR_RULES);
	ck_assert_ptr_nonnull(test_diags_find(&ds, "variant must be auto, hans or hant"));
	test_diags_free(&ds);
	jh_ruleset_free(bad);
}
END_TEST

START_TEST(conversion_errors)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const struct {
		const char *text, *match, *fix;
	} cases[] = {
		{"日軍已經被包圍，將果斷髮起突圍。", "髮起", "發起"},
		{"從這裡到花園口還有100公裡左右。", "公裡", "公里"},
		{"劉國梁便告訴士兵隻管用刺刀捅馬。", "隻管", "只管"},
		{"跑了十幾分鍾後日軍追了上來。", "幾分鍾", "幾分鐘"}, /* the entry 幾分鍾 (几分钟) */
		{"聶桂林帶著剩余1000騎兵向北。", "剩余", "剩餘"},
		{"國梁問道，沒關系我用刺刀習慣了。", "關系", "關係"},
		{"追上來那在十公里範圍外，范圍之內。", "范圍", "範圍"},
		{"這一波衝鋒損失150余騎兵。", "余", "餘"},
		{"咱們最多不過20裡也就一個小時。", "裡", "里"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[i].text, strlen(cases[i].text), &fs);
		const jh_finding *f = first_of(&fs, "script.conversion-error");
		ck_assert_msg(f != NULL, "%s: not found", cases[i].text);
		ck_assert_str_eq(span(cases[i].text, f), cases[i].match);
		ck_assert_int_eq(f->safety, JH_SAFE);
		ck_assert_str_eq(f->edits[0].replacement, cases[i].fix);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* The phrase table is read the first time a traditional paragraph has a
 * suspect character, not when the rules are compiled: with the table gone
 * after compiling, a simplified text is checked without a word, and a
 * traditional one gets the error (its file named) and no phrase finding. */
START_TEST(conversion_table_read_when_needed)
{
	char dir[] = "/tmp/jh-phrases-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char chars[300], phrases[300], cmd[700];
	snprintf(chars, sizeof chars, "%s/script-chars.tsv", dir);
	snprintf(phrases, sizeof phrases, "%s/script-phrases.tsv", dir);
	snprintf(cmd, sizeof cmd, "cp '%s/rules/data/script-chars.tsv' '%s'", JH_SRCDIR, chars);
	ck_assert_int_eq(system(cmd), 0);
	static const char ini0[] = "[script.c]\nkind = builtin\ncheck = conversion\nmessage = {match}\n"
	                           "bad = 將果斷髮起突圍\ngood = 日军发起突围。\n";
	{ /* no table at all: an error at compile, naming it */
		jh_ruleset *none;
		test_diags d0 = TEST_DIAGS_INIT;
		ck_assert_int_eq(jh_ruleset_new(&none), JH_OK);
		ck_assert_int_eq(jh_ruleset_load_string(none, "t.rules", ini0, dir, test_diag_collect, &d0),
		                 JH_OK);
		ck_assert_int_eq(jh_ruleset_compile(none, test_diag_collect, &d0), JH_ERR_RULES);
		const test_diag *d = test_diags_find(&d0, "cannot read");
		ck_assert_msg(d && strstr(d->message, "script-phrases.tsv"), "%s", test_diags_text(&d0));
		jh_ruleset_free(none);
		test_diags_free(&d0);
	}
	FILE *f = fopen(phrases, "w");
	ck_assert_ptr_nonnull(f);
	fputs("# wrong\tright\tprev_not\tnext_not\n髮起\t發起\t\t\n", f);
	fclose(f);
	static const char ini[] = "[script.c]\nkind = builtin\ncheck = conversion\nmessage = {match}\nbad = 將果斷髮起突圍\ngood = 日军发起突围。\n";
	jh_ruleset *rs;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, "t.rules", ini, dir, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	const char *trad = "日軍已經被包圍，將果斷髮起突圍，這是後話。";
	jh_check_options o = {0};
	o.diag_fn = test_diag_collect;
	o.payload = &ds;
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(unlink(phrases), 0);
	const char *simp = "日军已经被包围，将果断发起突围，这是后话。";
	ck_assert_int_eq(jh_check(rs, simp, strlen(simp), &o, &fs), JH_OK);
	ck_assert_uint_eq(ds.count, 0); /* never read */
	ck_assert_int_eq(jh_check(rs, trad, strlen(trad), &o, &fs), JH_OK);
	ck_assert_ptr_null(first_of(&fs, "script.c"));
	const test_diag *d = test_diags_find(&ds, "cannot read");
	ck_assert_msg(d && strstr(d->message, "script-phrases.tsv"), "%s", test_diags_text(&ds));
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);

	/* The same, with the table there: 髮起 is found. */
	f = fopen(phrases, "w");
	ck_assert_ptr_nonnull(f);
	fputs("髮起\t發起\t\t\n", f);
	fclose(f);
	ds = (test_diags)TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_load_string(rs, "t.rules", ini, dir, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_OK);
	ck_assert_int_eq(jh_check(rs, trad, strlen(trad), &o, &fs), JH_OK);
	const jh_finding *hit = first_of(&fs, "script.c");
	ck_assert_msg(hit != NULL, "髮起 not found");
	ck_assert_str_eq(span(trad, hit), "髮起");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
	unlink(phrases);
	unlink(chars);
	rmdir(dir);
}
END_TEST

/* The phrase table's compiled form in the cache folder: written by the
 * first check that needs the table, mapped by the next (same findings),
 * not used when damaged (an index out of range, cut short), and never
 * written without a cache folder. */
static void conversion_findings(const char *text, char *out, size_t size)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL); /* a table is read once per rule set */
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < fs.count; i++)
		if (!strcmp(fs.items[i].rule_id, "script.conversion-error"))
			n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%zu:%s;", fs.items[i].byte_start,
			                      fs.items[i].edits[0].replacement);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}

START_TEST(conversion_table_cache)
{
	char dir[] = "/tmp/jh-phrase-cache.XXXXXX", file[600] = "";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *saved = test_env_set("JINGHUA_CACHE_DIR", dir);
	const char *text = "日軍已經被包圍，將果斷髮起突圍。從這裡到花園口還有100公裡左右。"
	                   "劉國梁便告訴士兵隻管用刺刀捅馬，跑了十幾分鍾後日軍追了上來。";
	char cold[400], warm[400];
	conversion_findings(text, cold, sizeof cold);
	ck_assert_msg(strstr(cold, "發起") && strstr(cold, "公里"), "cold: %s", cold);
	ck_assert_uint_eq(test_files_in(dir, "phrases-", file, sizeof file), 1);
	conversion_findings(text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	/* an index entry out of range: not used, built again */
	FILE *f = fopen(file, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 88, SEEK_SET), 0); /* the index, after the head and the counts */
	fputs("\xff\xff\xff\x7f", f);
	fclose(f);
	conversion_findings(text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	f = fopen(file, "rb"); /* and written again whole */
	ck_assert_ptr_nonnull(f);
	unsigned char at88[4] = {0};
	ck_assert_int_eq(fseek(f, 88, SEEK_SET), 0);
	ck_assert_uint_eq(fread(at88, 1, 4, f), 4);
	fclose(f);
	ck_assert_msg(memcmp(at88, "\xff\xff\xff\x7f", 4) != 0, "the damaged cache was kept");
	/* cut short: not used */
	struct stat st;
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(truncate(file, st.st_size - 1), 0);
	conversion_findings(text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	/* no cache folder: nothing written */
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	setenv("JINGHUA_CACHE_DIR", "", 1);
	conversion_findings(text, warm, sizeof warm);
	ck_assert_str_eq(warm, cold);
	ck_assert_uint_eq(test_files_in(dir, "", NULL, 0), 0);
	test_env_restore("JINGHUA_CACHE_DIR", saved);
}
END_TEST

/* The character table's and the suspects' compiled forms in the cache
 * folder: written by the first compile, mapped by the next (same
 * findings), not used when damaged (an offset out of range, cut short),
 * and not used once the table they came from changes. */
static void script_findings(jh_ruleset *rs, const char *text, char *out, size_t size)
{
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < fs.count; i++)
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s:%zu:%s;", fs.items[i].rule_id,
		                      fs.items[i].byte_start,
		                      fs.items[i].n_edits ? fs.items[i].edits[0].replacement : "");
	jh_findings_clear(&fs);
}

/* The script rules read with their tables from data_dir. */
static jh_ruleset *script_rules_from(const char *data_dir, const char *cache)
{
	FILE *f = fopen(SCRIPT_RULES, "rb");
	ck_assert_ptr_nonnull(f);
	static char ini[64 * 1024];
	size_t n = fread(ini, 1, sizeof ini - 1, f);
	fclose(f);
	ck_assert_uint_lt(n, sizeof ini - 1);
	ini[n] = '\0';
	jh_ruleset *rs;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_cache_dir(rs, cache), JH_OK);
	ck_assert_msg(jh_ruleset_load_string(rs, "script.rules", ini, data_dir, test_diag_collect, &ds) == JH_OK,
	              "%s", test_diags_text(&ds));
	ck_assert_msg(jh_ruleset_compile(rs, test_diag_collect, &ds) == JH_OK, "%s", test_diags_text(&ds));
	test_diags_free(&ds);
	return rs;
}

START_TEST(script_tables_cache)
{
	char dir[] = "/tmp/jh-chars-cache.XXXXXX", chars[600] = "", susp[600] = "";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char data[700], cache[700], cmd[2000];
	snprintf(data, sizeof data, "%s/data", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	snprintf(cmd, sizeof cmd, "mkdir '%s' && cp '%s'/rules/data/script-*.tsv '%s'", data, JH_SRCDIR, data);
	ck_assert_int_eq(system(cmd), 0);
	const char *text = "他們帶著剩下的騎兵向北撤退，这個時候日軍還沒有發現。"
	                   "日軍已經被包圍，將果斷髮起突圍。";
	char cold[800], warm[800];
	jh_ruleset *rs = script_rules_from(data, cache);
	script_findings(rs, text, cold, sizeof cold);
	jh_ruleset_free(rs);
	ck_assert_msg(strstr(cold, "script.mixed-variant:") && strstr(cold, "script.conversion-error:"), "cold: %s",
	              cold);
	ck_assert_uint_eq(test_files_in(cache, "chars-", chars, sizeof chars), 1);
	ck_assert_uint_eq(test_files_in(cache, "suspects-", susp, sizeof susp), 1);
	rs = script_rules_from(data, cache);
	script_findings(rs, text, warm, sizeof warm);
	jh_ruleset_free(rs);
	ck_assert_str_eq(warm, cold);
	/* the first entry's forms out of range: not used, built again */
	FILE *f = fopen(chars, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 80, SEEK_SET), 0); /* after the head, the counts, cp and flags */
	fputs("\xff\xff\xff\x7f", f);
	fclose(f);
	rs = script_rules_from(data, cache);
	script_findings(rs, text, warm, sizeof warm);
	jh_ruleset_free(rs);
	ck_assert_str_eq(warm, cold);
	f = fopen(chars, "rb"); /* and written again whole */
	ck_assert_ptr_nonnull(f);
	unsigned char at80[4] = {0};
	ck_assert_int_eq(fseek(f, 80, SEEK_SET), 0);
	ck_assert_uint_eq(fread(at80, 1, 4, f), 4);
	fclose(f);
	ck_assert_msg(memcmp(at80, "\xff\xff\xff\x7f", 4) != 0, "the damaged cache was kept");
	/* both cut short: not used */
	struct stat st;
	ck_assert_int_eq(stat(chars, &st), 0);
	ck_assert_int_eq(truncate(chars, st.st_size - 1), 0);
	ck_assert_int_eq(stat(susp, &st), 0);
	ck_assert_int_eq(truncate(susp, st.st_size - 1), 0);
	rs = script_rules_from(data, cache);
	script_findings(rs, text, warm, sizeof warm);
	jh_ruleset_free(rs);
	ck_assert_str_eq(warm, cold);
	/* the tables changed: 这 is no longer a simplified character, and no
	 * phrase makes 髮 a suspect; the cached forms of the old ones are not
	 * used */
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && grep -v '^这' script-chars.tsv > c.tmp && mv c.tmp script-chars.tsv && "
	         "grep -v '髮' script-phrases.tsv > p.tmp && mv p.tmp script-phrases.tsv",
	         data);
	ck_assert_int_eq(system(cmd), 0);
	rs = script_rules_from(data, cache);
	script_findings(rs, text, warm, sizeof warm);
	jh_ruleset_free(rs);
	ck_assert_msg(!strstr(warm, "script.mixed-variant:") && !strstr(warm, "script.conversion-error:"),
	              "changed tables: %s", warm);
	ck_assert_uint_eq(test_files_in(cache, "chars-", NULL, 0), 2);
	ck_assert_uint_eq(test_files_in(cache, "suspects-", NULL, 0), 2);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(conversion_leaves_words_alone)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const char *const texts[] = {
		"他的頭髮起了一層霜，一隻手握著韁繩。", /* 頭髮, 一隻 are words */
		"那只能說明他很累，皇後來到了大殿。",   /* 那|只能, 皇|後來 */
		"他在控制檯上輸入命令，列出侷限。",     /* 控制檯|上, 列出|侷限 */
		"三十里外還有援軍，十裡面挑一個。",     /* 里 the unit; 十裡面 */
		"把資料安裝到template1裡，引數裡指定。", /* digits of a name */
		/* simplified text: 剩余, 关系, 十里 are right there */
		"剩余的骑兵在十里外集合，没关系，其余的人原地休息，只管往前冲，发起进攻。",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, texts[i], strlen(texts[i]), &fs);
		const jh_finding *f = first_of(&fs, "script.conversion-error");
		ck_assert_msg(f == NULL, "%s: flagged %s", texts[i], f ? span(texts[i], f) : "");
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* A two-character entry whose characters can each end a word with the
 * character before and start one with the character after (額頭|發燙, not
 * 頭髮 written wrong) is no sure conversion error: the fix is unsafe there.
 * Where either neighbour makes no word with it (機器|隻能, 把頭發|盤), the
 * fix stays safe. */
START_TEST(conversion_split_reading)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const struct {
		const char *text, *match;
		int safety; /* -1: no fix, the conversion an alternative */
	} cases[] = {
		{"他額頭發燙，整個人昏昏沉沉的，一句話也說不出來。", "頭發", -1},
		{"碼頭發燙的鐵板上坐著幾個工人，誰也不想再搬貨了。", "頭發", -1},
		{"她心頭發顫，轉身就走，連門也沒有關上。", "頭發", -1},
		{"他撓了撓頭發，轉身就走，連門也沒有關上。", "頭發", JH_SAFE},
		{"她把頭發盤起來，戴上帽子，匆匆出了門。", "頭發", JH_SAFE},
		{"這台機器隻能在晚上運行，白天要關掉。", "隻能", JH_SAFE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[i].text, strlen(cases[i].text), &fs);
		const jh_finding *f = first_of(&fs, "script.conversion-error");
		ck_assert_msg(f != NULL, "%s: not found", cases[i].text);
		ck_assert_str_eq(span(cases[i].text, f), cases[i].match);
		if (cases[i].safety < 0) {
			ck_assert_msg(!f->has_fix && f->n_alternatives == 1, "%s: a fix", cases[i].text);
			ck_assert_str_eq(f->alternatives[0].edits[0].replacement, "頭髮");
			ck_assert_int_eq(f->severity, JH_INFO);
		} else {
			ck_assert_msg(f->has_fix && (int)f->safety == cases[i].safety, "%s: safety %d",
			              cases[i].text, (int)f->safety);
		}
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* A run beside a Japanese form (駅, in HKSCS but written by no Chinese
 * text) is never converted in part by a safe fix: 東京駅 → 东京駅 is
 * neither language.  Under a line of kana such a line is Japanese and
 * left alone; elsewhere the fix is unsafe.  Without the form it stays
 * safe. */
START_TEST(variant_japanese_forms_near)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	static const struct {
		const char *text, *match;
		int safety; /* -1: no finding */
	} cases[] = {
		{"我们约在東京駅碰头，然后一起去吃饭，这几年他过得还不错。", "東", JH_UNSAFE},
		{"第七章　新宿駅東口\n他们在那里等了很久，谁也没有说话，后来才一起离开。", "東", JH_UNSAFE},
		{"我们约在東京站碰头，然后一起去吃饭，这几年他过得还不错。", "東", JH_SAFE},
		{"她在信里写道：“駅前の本屋で待っています。”\n新宿駅東口\n"
		 "后来他们一起回国了，在一家贸易公司工作，这几年过得还不错。",
		 NULL, -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[i].text, strlen(cases[i].text), &fs);
		const jh_finding *f = first_of(&fs, "script.mixed-variant");
		if (cases[i].safety < 0) {
			ck_assert_msg(f == NULL, "%s: flagged %s", cases[i].text, f ? span(cases[i].text, f) : "");
		} else {
			ck_assert_msg(f != NULL, "%s: not found", cases[i].text);
			ck_assert_str_eq(span(cases[i].text, f), cases[i].match);
			ck_assert_msg((int)f->safety == cases[i].safety, "%s: safety %d", cases[i].text,
			              (int)f->safety);
		}
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(invisible_and_controls)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	const char *t = "他说\u202E这是\u2066最后\u2069一次了。";
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, t, strlen(t), &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.invisible-control"), 3);
	jh_findings_clear(&fs);
	char *fixed = test_fix(rs, "日军\a\a的骑兵\x1b冲了过来。", 0, NULL);
	ck_assert_str_eq(fixed, "日军的骑兵冲了过来。");
	free(fixed);
	/* censor's (U+200B, U+FEFF, a soft hyphen), emoji joiners and
	 * variation selectors, a tab, CRLF: not ours */
	t = "他\u200B说\uFEFF。👨\u200D👩\u200D👧👍\uFE0F\t好\r\nhy\u00ADphen，他\u00AD说";
	test_check(rs, t, strlen(t), &fs);
	ck_assert_uint_eq(test_count_rule(&fs, "script.invisible-control"), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(lookalikes)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	char *fixed = test_fix(rs, "打开Windоws和Сhina的Mосква", 0, NULL);
	ck_assert_str_eq(fixed, "打开Windows和China的Москва");
	free(fixed);
	static const char *const texts[] = {"ΔE小于3", "5μm", "ОК", "Москва和Αθήνα", "β-carotene"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, texts[i], strlen(texts[i]), &fs);
		ck_assert_msg(test_count_rule(&fs, "script.lookalike") == 0, "%s", texts[i]);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(halfwidth_kana)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	char *fixed = test_fix(rs, "他在ｺﾝﾋﾞﾆ买水，(ﾟ∀ﾟ)ﾉ", 0, NULL);
	ck_assert_str_eq(fixed, "他在コンビニ买水，(ﾟ∀ﾟ)ﾉ");
	free(fixed);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(regional_forms)
{
	jh_ruleset *rs = script_rules(NULL, NULL, NULL);
	unsigned char *on = calloc(jh_ruleset_count(rs), 1);
	char bad[64];
	ck_assert_int_eq(jh_selection_apply(rs, on, "script.regional", 1, bad, sizeof bad), JH_OK);
	jh_check_options o;
	memset(&o, 0, sizeof o);
	o.enabled = on;
	jh_findings fs = JH_FINDINGS_INIT;
	const char *t = "他在屋裡坐著，手裡拿著信。後來又走到院子裏，為了等人。";
	ck_assert_int_eq(jh_check(rs, t, strlen(t), &o, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 1);
	ck_assert_str_eq(span(t, &fs.items[0]), "裏");
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "裡");
	ck_assert_int_eq(fs.items[0].safety, JH_UNSAFE);
	jh_findings_clear(&fs);
	/* simplified: 着 and 著 are both right */
	t = "他坐着看一本很著名的书，手里拿着笔。";
	ck_assert_int_eq(jh_check(rs, t, strlen(t), &o, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 0);
	free(on);
	jh_ruleset_free(rs);
	/* a standard asked for */
	rs = script_rules("script.regional", "standard", "hk");
	on = calloc(jh_ruleset_count(rs), 1);
	jh_selection_apply(rs, on, "script.regional", 1, bad, sizeof bad);
	o.enabled = on;
	t = "他在屋裡坐著，手裡拿著信。";
	ck_assert_int_eq(jh_check(rs, t, strlen(t), &o, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 2);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "裏");
	jh_findings_clear(&fs);
	free(on);
	jh_ruleset_free(rs);
}
END_TEST

Suite *script_suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = test_tcase("script", 4);
	tcase_add_test(tc, variant_minority_in_traditional);
	tcase_add_test(tc, variant_clean_text_is_quiet);
	tcase_add_test(tc, variant_per_paragraph);
	tcase_add_test(tc, variant_run_after_stray_bytes);
	tcase_add_test(tc, variant_parameter);
	tcase_add_test(tc, variant_doubt_classes);
	tcase_add_test(tc, variant_quotation_does_not_vote);
	tcase_add_test(tc, conversion_errors);
	tcase_add_test(tc, conversion_split_reading);
	tcase_add_test(tc, variant_japanese_forms_near);
	tcase_add_test(tc, conversion_table_read_when_needed);
	tcase_add_test(tc, conversion_table_cache);
	tcase_add_test(tc, script_tables_cache);
	tcase_add_test(tc, conversion_leaves_words_alone);
	tcase_add_test(tc, invisible_and_controls);
	tcase_add_test(tc, lookalikes);
	tcase_add_test(tc, halfwidth_kana);
	tcase_add_test(tc, regional_forms);
	tcase_add_test(tc, variant_words_decide);
	tcase_add_test(tc, variant_spoken_of);
	suite_add_tcase(s, tc);
	return s;
}
