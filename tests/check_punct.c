/* check_punct.c — the punct and layout families: the builtin checks
 * (pairing, quote style, runs of ！？, line endings, indentation, blank
 * lines, merged paragraphs) case by case, and the real rules on real text:
 * quiet on clean prose, and a text whose punctuation was made half-width
 * and spaced out is restored byte for byte by the safe fixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "interest.h"
#include "tests.h"

#define RULES_DIR JH_SRCDIR "/rules"

/* A builtin rule with a fix, for the cases below. */
#define BUILTIN_RULE(id, check, params, safety) \
	"[" id "]\nkind = builtin\ncheck = " check "\nmessage = m\nfix = $0\nsafety = " safety \
	"\n" params "bad = 甲\ngood = 乙\n"

static char *fix_with(const jh_ruleset *rs, const char *text, int unsafe)
{
	return test_fix(rs, text, unsafe, NULL);
}

/* Findings of one rule set on text: "start-end:replacement;…" for easy
 * comparison (replacement "-" when there is no fix, "~" prefix if unsafe). */
static char *spans_of(const jh_ruleset *rs, const char *text)
{
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	static char buf[4096];
	buf[0] = '\0';
	for (size_t i = 0; i < fs.count; i++) {
		const jh_finding *f = &fs.items[i];
		char one[256];
		snprintf(one, sizeof one, "%zu-%zu:%s%s;", f->byte_start, f->byte_end,
		         f->has_fix && f->safety == JH_UNSAFE ? "~" : "",
		         f->has_fix ? f->edits[0].replacement : "-");
		strncat(buf, one, sizeof buf - strlen(buf) - 1);
	}
	jh_findings_clear(&fs);
	return buf;
}

/* ---- pairs ---- */

START_TEST(pairs_cases)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("punct.unpaired", "pairs", "", "safe"));
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"“你好，”他说。", ""},
		/* the closing mark typed as an opening one: “(0) 你好，(3..12) “(12) */
		{"“你好，“他说。", "12-15:”;"},
		/* narration between two openings: the first is stray */
		{"“他吸了一口气说道“走吧。”", "0-3:~;"},
		/* speech cue, but punctuation between: the first is unclosed */
		{"“走吧。他说道“好。”", "0-3:-;"},
		/* a closing mark at the paragraph start, then another: opens */
		{"”快跑！”他喊道。", "0-3:“;"},
		{"他喊道：”快跑！”", "12-15:“;"},
		{"他喊道，”快跑！”", "12-15:~“;"},
		{"「將軍。", "0-3:-;"},
		{"將軍。」", "9-12:-;"},
		/* a quotation over two paragraphs opens each and closes once */
		{"“第一段，\n“第二段。”", ""},
		{"“第一段，\n\n　　“第二段。”", ""},
		/* but a quote left open before an unquoted paragraph is reported */
		{"“第一段，\n第二段。", "0-3:-;"},
		/* per paragraph: an opening quote does not pair with the next line's close */
		{"“第一段\n第二段”", "0-3:-;22-25:-;"},
		/* brackets nest; a lone one is reported */
		{"（注：见第三章（上））", ""},
		{"他打开了《三国演义，读了起来。", "12-15:-;"},
		{"然后）走了。", "6-9:-;"},
		/* apostrophes are not quotes */
		{"He said “don’t go”.", ""},
		{"players’ 比赛", ""},
		/* nested kinds */
		{"他说：“她告诉我‘别走’。”", ""},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *got = spans_of(rs, cases[i].text);
		ck_assert_msg(!strcmp(got, cases[i].want), "%s: got '%s', want '%s'", cases[i].text, got,
		              cases[i].want);
	}
	char *f = fix_with(rs, "“他吸了一口气说道“走吧。”", 1);
	ck_assert_str_eq(f, "他吸了一口气说道“走吧。”");
	free(f);
	f = fix_with(rs, "“你好，“他说，“走吧。”", 0);
	ck_assert_str_eq(f, "“你好，”他说，“走吧。”");
	free(f);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(pairs_many_marks)
{
	/* More marks than the state holds: the paragraph is skipped, not
	 * misread, and the next paragraph is checked again. */
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("punct.unpaired", "pairs", "", "safe"));
	size_t n = 2000;
	char *text = malloc(n * 3 + 64);
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(text, i % 2 ? "”" : "“");
	strcat(text, "“\n「好");
	const char *got = spans_of(rs, text);
	char want[64];
	snprintf(want, sizeof want, "%zu-%zu:-;", n * 3 + 4, n * 3 + 7);
	ck_assert_str_eq(got, want);
	free(text);
	jh_ruleset_free(rs);
}
END_TEST

/* ---- quote style ---- */

START_TEST(quote_style)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("punct.quote-style", "quote-style", "", "unsafe"));
	/* 「」 dominant: the “” pair becomes 「」 */
	char *f = fix_with(rs, "「走。」他說。「好。」“是。”", 1);
	ck_assert_str_eq(f, "「走。」他說。「好。」「是。」");
	free(f);
	ck_assert_str_eq(spans_of(rs, "“走。”“好。”「是」"), "24-27:~“;30-33:~”;");
	/* a tie goes to the style seen first */
	ck_assert_str_eq(spans_of(rs, "「走」“好”"), "9-12:~「;15-18:~」;");
	ck_assert_str_eq(spans_of(rs, "“走”‘好’"), "");
	jh_ruleset_free(rs);

	rs = test_ruleset(BUILTIN_RULE("punct.quote-style", "quote-style", "style = 「」\n", "unsafe"));
	ck_assert_str_eq(spans_of(rs, "“走”"), "0-3:~「;6-9:~」;");
	jh_ruleset_free(rs);

	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(test_ruleset_try(BUILTIN_RULE("punct.quote-style", "quote-style",
	                                               "style = square\n", "unsafe"),
	                                  &rs, &ds),
	                 JH_ERR_RULES);
	ck_assert_msg(test_diags_find(&ds, "style must be") != NULL, "%s", test_diags_text(&ds));
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* ---- runs of ！？ ---- */

START_TEST(mark_run)
{
	jh_ruleset *rs = test_ruleset("[punct.mark-run]\nkind = builtin\ncheck = mark-run\n"
	                              "message = m\nmax = 2\nfix = $1\nsafety = unsafe\n"
	                              "bad = 甲\ngood = 乙\n");
	ck_assert_str_eq(spans_of(rs, "好！！"), "");
	ck_assert_str_eq(spans_of(rs, "好！？！"), "3-12:~！？;");
	ck_assert_str_eq(spans_of(rs, "好！！，！！"), "");
	ck_assert_str_eq(spans_of(rs, "！！！"), "0-9:~！！;");
	jh_ruleset_free(rs);
}
END_TEST

/* ---- layout ---- */

START_TEST(line_endings)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("layout.line-endings", "line-endings", "", "safe"));
	ck_assert_str_eq(spans_of(rs, "a\r\nb\r\nc\nd"), "7-8:\r\n;");
	ck_assert_str_eq(spans_of(rs, "a\nb\nc\r\nd\ne\n"), "5-7:\n;");
	ck_assert_str_eq(spans_of(rs, "a\r\nb\r\n"), "");
	char *f = fix_with(rs, "a\nb\r\nc\r\nd\ne\r\n", 0);
	ck_assert_str_eq(f, "a\r\nb\r\nc\r\nd\r\ne\r\n");
	free(f);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(merged_paragraph_keeps_line_endings)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("layout.merged-paragraph", "merged-paragraph", "",
	                                           "unsafe"));
	/* a CRLF file separated by blank lines gets CRLF CRLF */
	char *f = fix_with(rs, "　　甲。\r\n\r\n　　乙。　　丙。\r\n\r\n　　丁。\r\n", 1);
	ck_assert_str_eq(f, "　　甲。\r\n\r\n　　乙。\r\n\r\n　　丙。\r\n\r\n　　丁。\r\n");
	free(f);
	f = fix_with(rs, "　　甲。\n　　乙。　　丙。\n", 1);
	ck_assert_str_eq(f, "　　甲。\n　　乙。\n　　丙。\n");
	free(f);
	/* not after the end of a sentence, or only one 　 */
	ck_assert_str_eq(spans_of(rs, "姓名　　年龄"), "");
	ck_assert_str_eq(spans_of(rs, "床前明月光。　疑是地上霜。"), "");
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(indentation)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("layout.indent", "indent-form", "", "safe")
	                              BUILTIN_RULE("layout.indent-missing", "indent-missing", "",
	                                           "unsafe"));
	const char *doc = "第一章 出征\n\n开头一段没有缩进。\n\n　　第二段。\n\n    第三段。\n\n"
	                  "　　第四段，\n\n接着第四段。\n\n　　第五段。\n　第六段。\n";
	char *f = fix_with(rs, doc, 0);
	ck_assert_str_eq(f, "第一章 出征\n\n开头一段没有缩进。\n\n　　第二段。\n\n　　第三段。\n\n"
	                    "　　第四段，\n\n接着第四段。\n\n　　第五段。\n　第六段。\n");
	free(f);
	f = fix_with(rs, doc, 1);
	ck_assert_str_eq(f, "第一章 出征\n\n　　开头一段没有缩进。\n\n　　第二段。\n\n　　第三段。\n\n"
	                    "　　第四段，\n\n接着第四段。\n\n　　第五段。\n　　第六段。\n");
	free(f);
	/* an unindented document is left alone, whatever a few lines do */
	ck_assert_str_eq(spans_of(rs, "甲。\n乙。\n　　丙。\n丁。\n"), "");
	jh_ruleset_free(rs);
}
END_TEST

/* An indented document with more unindented lines than the survey keeps
 * (4096): indent-missing walks the text itself, with the same findings as
 * for a few such lines. */
START_TEST(indent_missing_many)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("layout.indent-missing", "indent-missing", "",
	                                           "unsafe"));
	static const size_t bare[] = {3, 5000};
	for (size_t c = 0; c < sizeof bare / sizeof *bare; c++) {
		const char *in = "　　这一段的开头有缩进，下面一段的开头没有。\n",
		           *out = "这一段的开头没有缩进，上面一段的开头有缩进。\n";
		size_t n_in = 2 * bare[c] + 10, cap = n_in * strlen(in) + bare[c] * strlen(out) + 1;
		char *doc = malloc(cap), *at = doc;
		ck_assert(doc);
		for (size_t i = 0, k = 0; i < n_in + bare[c]; i++) { /* a bare line after each two */
			const char *line = i % 3 == 2 && k++ < bare[c] ? out : in;
			memcpy(at, line, strlen(line));
			at += strlen(line);
		}
		*at = 0;
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, doc, strlen(doc), &fs);
		ck_assert_uint_eq(fs.count, bare[c]);
		jh_findings_clear(&fs);
		free(doc);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(blank_lines)
{
	jh_ruleset *rs = test_ruleset(BUILTIN_RULE("layout.blank-lines", "blank-lines", "max = 1\n",
	                                           "safe"));
	char *f = fix_with(rs, "甲\n\n\n\n乙\n\n丙\n", 0);
	ck_assert_str_eq(f, "甲\n\n乙\n\n丙\n");
	free(f);
	/* two blank lines between all paragraphs is the document's style */
	ck_assert_str_eq(spans_of(rs, "甲\n\n\n乙\n\n\n丙\n\n\n丁\n"), "");
	ck_assert_str_eq(spans_of(rs, "甲\n\n\n\n乙\n\n\n丙\n\n\n丁\n"), "6-7:;");
	jh_ruleset_free(rs);
}
END_TEST

/* ---- the real rules on real text ---- */

static jh_ruleset *real_rules(void)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	jh_ruleset_load_dir(rs, RULES_DIR, test_diag_collect, &ds);
	jh_ruleset_compile(rs, test_diag_collect, &ds);
	test_diags_free(&ds);
	return rs;
}

static unsigned char *select_rules(const jh_ruleset *rs, const char *spec)
{
	unsigned char *on = calloc(jh_ruleset_count(rs), 1);
	char bad[64];
	ck_assert_int_eq(jh_selection_apply(rs, on, spec, 1, bad, sizeof bad), JH_OK);
	return on;
}

/* Findings as one string: rule, span, message, and the fix when safe. */
static char *findings_text(const jh_ruleset *rs, const char *text, size_t len)
{
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, len, &fs);
	char *buf = NULL;
	size_t n = 0;
	FILE *o = open_memstream(&buf, &n);
	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < fs.count; i++)
		fprintf(o, "%s %zu-%zu %s %zu\n", fs.items[i].rule_id, fs.items[i].byte_start,
		        fs.items[i].byte_end, fs.items[i].message, fs.items[i].n_edits);
	fclose(o);
	jh_findings_clear(&fs);
	return buf;
}

/* A check with other_mark() is woken only at the characters it marks
 * (builtins.h): the real rules give the same findings as when every
 * character of their classes wakes them, on text made of the marks they
 * act on and the ones they must pass over (，。、 …… ！！ “” 「」 《》 □□ ×
 * ＊ · ｜ line separators), shuffled with Han characters and ASCII. */
START_TEST(other_marks_change_nothing)
{
	jh_ruleset *marked = real_rules();
	jh_interest_mark_all_others = 1;
	jh_ruleset *all = real_rules();
	jh_interest_mark_all_others = 0;
	static const char *const pieces[] = {
		"，", "。", "、", "……", "！", "？", "“", "”", "「", "」", "『", "』", "《", "》", "（",
		"）", "【", "】", "‘", "’", "□", "□□", "×", "＊＊", "·", "•", "｜", "丨", "\u2028",
		"　", "：", "；", "—", "他", "说", "子", "弹", "的", "國", "们", "这", "是", "好", "\n",
		"\n\n", "a", " ", "\"", "*", "!", ".", "很好", "天下第一樓", "研究研究", "的的", "！！！！", "？！？！", "〈", "〉"};
	unsigned seed = 7;
	for (int round = 0; round < 300; round++) {
		char text[2048];
		size_t len = 0;
		int n = 20 + (int)(seed % 120);
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			const char *p = pieces[(seed >> 8) % (sizeof pieces / sizeof *pieces)];
			size_t pl = strlen(p);
			if (len + pl >= sizeof text)
				break;
			memcpy(text + len, p, pl);
			len += pl;
		}
		text[len] = '\0';
		char *a = findings_text(marked, text, len), *b = findings_text(all, text, len);
		ck_assert_msg(!strcmp(a, b), "round %d, text: %s\nmarked:\n%s\nall:\n%s", round, text, a,
		              b);
		free(a);
		free(b);
	}
	jh_ruleset_free(marked);
	jh_ruleset_free(all);
}
END_TEST

/* The script-variant checks with their characters tallied by the scan
 * (builtins.h tally) give the findings they give when woken at each: on
 * random texts of simplified and traditional words, suspects of broken
 * conversions, quotation marks, 字, astral characters and line ends. */
START_TEST(tally_changes_nothing)
{
	jh_ruleset *tallied = real_rules();
	jh_interest_no_tally = 1;
	jh_ruleset *woken = real_rules();
	jh_interest_no_tally = 0;
	static const char *const pieces[] = {
		"這個國家", "这个国家", "頭髮", "發展", "後來", "皇後", "裡面", "公裡", "說", "说", "們",
		"们", "的", "字", "漢字", "「", "」", "“", "”", "『", "』", "\"", "。", "，", "\n", "\r\n",
		"\n\n", "𠀀", "𪚥", "余", "鍾", "鐘", "時間", "时间", "他寫了一個", "繁体字“發”", "著",
		"着", "爲", "为", "a", " "};
	unsigned seed = 3;
	for (int round = 0; round < 400; round++) {
		char text[4096];
		size_t len = 0;
		int n = 10 + (int)(seed % 200);
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			const char *p = pieces[(seed >> 8) % (sizeof pieces / sizeof *pieces)];
			size_t pl = strlen(p);
			if (len + pl >= sizeof text)
				break;
			memcpy(text + len, p, pl);
			len += pl;
		}
		text[len] = '\0';
		char *a = findings_text(tallied, text, len), *b = findings_text(woken, text, len);
		ck_assert_msg(!strcmp(a, b), "round %d, text: %s\ntallied:\n%s\nwoken:\n%s", round, text,
		              a, b);
		free(a);
		free(b);
	}
	jh_ruleset_free(tallied);
	jh_ruleset_free(woken);
}
END_TEST

/* Clean prose of several kinds, none of which the punct and layout rules
 * may flag: numbers, times, URLs, file names, English inside Chinese,
 * dialogue in both quote styles, ranges, list numbering. */
static const char *const clean[] = {
	"　　重机枪11.5毫米的子弹打在马身上就是一个窟窿，日军冲锋到500米重机枪就开火了。\n",
	"　　二十七日上午10:30，大岛义昌到达连山关，共缴获步枪3,000支。\n",
	"　　详见 https://example.com/search?q=中文&p=2 的说明，或发邮件到 a.b@example.org。\n",
	"　　请打开报告.docx，把第3.2节的表格复制到 README.md 里。\n",
	"　　他用英语喊道：“Hello, is anyone there? Come out!”没有人回答。\n",
	"　　「將軍，必須調集更多的大炮才行。」**夫上校跑過來，「他們的火力太強了！」\n",
	"　　他沉默了很久……终于开口：“我……我不知道。”她低下头——没有再说话。\n",
	"　　京沪高速（北京—上海）全长1262公里，1949—1953年间修过三次。\n",
	"　　一、立即撤退；二、保存实力；三、等待援军。\n",
	"　　他只会说 yes, no 和 thank you，屏幕上跳出一行字：Game over!\n",
	"　　函数f(x)的值，以及 print(“你好”) 的输出，都写在《使用手册》第2章【附录】里。\n",
	"　　“你们大人呢？”袁世凱大聲問著其中一個管帶。\n",
};

START_TEST(quiet_on_clean_text)
{
	jh_ruleset *rs = real_rules();
	unsigned char *on = select_rules(rs, "punct,layout");
	/* the spacing rules are for the docs profile, not novels */
	char bad[64];
	ck_assert_int_eq(
	    jh_selection_apply(rs, on, "layout.space-cjk-latin,layout.space-cjk-digit,layout.space-cjk-bracket", 0,
	                       bad, sizeof bad),
	    JH_OK);
	jh_check_options opts = {0};
	opts.enabled = on;
	jh_findings fs = JH_FINDINGS_INIT;
	for (size_t i = 0; i < sizeof clean / sizeof *clean; i++) {
		ck_assert_int_eq(jh_check(rs, clean[i], strlen(clean[i]), &opts, &fs), JH_OK);
		ck_assert_msg(fs.count == 0, "%s: %s at %zu: %s", clean[i], fs.items[0].rule_id,
		              fs.items[0].byte_start, fs.items[0].message);
	}
	free(on);
	jh_ruleset_free(rs);
}
END_TEST

/* Replace each occurrence of from that follows a Han character by to (a
 * new string): the damage half-width conversion does in Chinese text. */
static char *replace_after_han(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *out = malloc(strlen(s) * (tl > fl ? tl : 1) + 1), *o = out;
	for (const char *p = s; *p;) {
		/* a Han character of the BMP is E3..E9 xx xx in UTF-8 */
		int after_han = p - s >= 3 && (unsigned char)p[-3] >= 0xE4 && (unsigned char)p[-3] <= 0xE9;
		if (after_han && !strncmp(p, from, fl)) {
			memcpy(o, to, tl);
			o += tl;
			p += fl;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The width and spacing artifacts peers fix, made on purpose: every
 * ，。！？：； after a Han character turned half-width, and a space put
 * after each ，  The safe fixes must give back exactly the text before. */
START_TEST(safe_fixes_restore_width_and_spaces)
{
	static const char *const samples[] = {"000_a5949cc1b610da24.txt", "002_39197a4f12f91164.txt",
	                                      "punct-dialogue.txt"};
	static const char *const damage[][2] = {
		{"，", ", "}, {"。", "."}, {"！", "!"}, {"？", "?"}, {"：", ":"}, {"；", ";"},
	};
	jh_ruleset *rs = real_rules();
	unsigned char *on = select_rules(rs, "punct.halfwidth,punct.halfwidth-period,punct.space-after-fullwidth,"
	                                     "punct.space-before-fullwidth");
	jh_check_options opts = {0};
	opts.enabled = on;
	for (size_t s = 0; s < sizeof samples / sizeof *samples; s++) {
		char *orig = test_read_sample(samples[s]);
		char *text = orig, *next;
		for (size_t d = 0; d < sizeof damage / sizeof *damage; d++) {
			next = replace_after_han(text, damage[d][0], damage[d][1]);
			if (text != orig)
				free(text);
			text = next;
		}
		/* a mark at the end of a line gets no space after it */
		for (char *p = text; (p = strstr(p, ", \n")); p++)
			memmove(p + 1, p + 2, strlen(p + 2) + 1);
		char *fixed;
		size_t flen;
		ck_assert_int_eq(jh_fix(rs, text, strlen(text), &opts, 0, &fixed, &flen, NULL), JH_OK);
		ck_assert_msg(flen == strlen(orig) && !memcmp(fixed, orig, flen),
		              "%s: the safe fixes did not restore the text", samples[s]);
		free(fixed);
		free(text);
		free(orig);
	}
	free(on);
	jh_ruleset_free(rs);
}
END_TEST

/* A copy of s (n bytes) that ends right before a page no byte of which
 * can be read: a read past the text's end is a crash in any build, not
 * only under AddressSanitizer.  *map and *maplen are for munmap. */
static char *at_page_end(const char *s, size_t n, void **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (n / pg + 2) * pg;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mprotect(m + len - pg, pg, PROT_NONE), 0);
	*map = m;
	*maplen = len;
	return memcpy(m + len - pg - n, s, n);
}

/* A URL or address at the very end of the text (no line break after it),
 * on a line with a finding of a family that must not edit it: where the
 * URL ends was looked for one byte past the text after its last dot and
 * letters (found by fuzzing: "\0www.a").  The comma before it is still
 * reported, and nothing in the URL is. */
START_TEST(url_at_text_end)
{
	static const struct {
		const char *text;
		size_t n, url; /* its length, where the URL starts */
	} cases[] = {
		{"\0www.a", 6, 1},
		{"好,见www.example.com", 22, 7},
		{"好,见www.example.com.cn", 25, 7},
		{"好,见 https://example.com/a/报告.docx", 41, 8},
		{"好,写信到a.b@example.org", 28, 13},
	};
	jh_ruleset *rs = real_rules();
	jh_check_options opts = {0};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = cases[i].n, maplen;
		ck_assert_uint_eq(n, i == 0 ? 6 : strlen(cases[i].text));
		void *map;
		const char *t = at_page_end(cases[i].text, n, &map, &maplen);
		jh_findings fs = JH_FINDINGS_INIT;
		ck_assert_int_eq(jh_check(rs, t, n, &opts, &fs), JH_OK);
		int comma = 0;
		for (size_t k = 0; k < fs.count; k++) {
			const jh_finding *f = &fs.items[k];
			comma |= f->byte_start == 3 && !strncmp(f->rule_id, "punct.", 6);
			ck_assert_msg(strncmp(f->rule_id, "punct.", 6) || f->byte_end <= cases[i].url,
			              "%s: %s at %zu-%zu", cases[i].text, f->rule_id, f->byte_start, f->byte_end);
		}
		ck_assert_msg(i == 0 || comma, "%s: the comma is not reported", cases[i].text);
		jh_findings_clear(&fs);
		munmap(map, maplen);
	}
	jh_ruleset_free(rs);
}
END_TEST

/* A span of verbatim text whose match begins before its first key (the
 * scheme before ://, ſ matched for s) or that is a string literal or a
 * code span: the half-width comma inside it is not reported, the one
 * before it is.  (verbatim.c starts PCRE2 only from the characters that
 * can open a span before a key.) */
START_TEST(verbatim_spans_around_keys)
{
	static const struct {
		const char *text, *span;
	} cases[] = {
		{"好,见http://a.b/文,档", "http://a.b/文,档"},
		{"好,见HTTP://a.b/文,档", "HTTP://a.b/文,档"},
		{"好,见http\xC5\xBF://a.b/文,档", "http\xC5\xBF://a.b/文,档"},
		{"好,见www.a.b/文,档", "www.a.b/文,档"},
		{"好,写 printf(\"%s,出错了\\n\") 的", "\"%s,出错了\\n\""},
		{"好,写`好,坏`的", "`好,坏`"},
	};
	jh_ruleset *rs = real_rules();
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *t = cases[i].text, *sp = strstr(t, cases[i].span);
		ck_assert(sp);
		size_t a = (size_t)(sp - t), b = a + strlen(cases[i].span);
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, t, strlen(t), &fs);
		int comma = 0;
		for (size_t k = 0; k < fs.count; k++) {
			const jh_finding *f = &fs.items[k];
			if (strncmp(f->rule_id, "punct.", 6))
				continue;
			comma |= f->byte_start == 3;
			ck_assert_msg(f->byte_end <= a || f->byte_start >= b, "%s: %s at %zu-%zu", t,
			              f->rule_id, f->byte_start, f->byte_end);
		}
		ck_assert_msg(comma, "%s: the comma before the span is not reported", t);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

Suite *punct_suite(void)
{
	Suite *s = suite_create("punct and layout");
	TCase *tc = test_tcase("builtins", 4);
	tcase_add_test(tc, pairs_cases);
	tcase_add_test(tc, pairs_many_marks);
	tcase_add_test(tc, quote_style);
	tcase_add_test(tc, mark_run);
	tcase_add_test(tc, line_endings);
	tcase_add_test(tc, merged_paragraph_keeps_line_endings);
	tcase_add_test(tc, indentation);
	tcase_add_test(tc, indent_missing_many);
	tcase_add_test(tc, blank_lines);
	suite_add_tcase(s, tc);
	tc = test_tcase("real rules", 30);
	tcase_add_test(tc, quiet_on_clean_text);
	tcase_add_test(tc, safe_fixes_restore_width_and_spaces);
	tcase_add_test(tc, url_at_text_end);
	tcase_add_test(tc, other_marks_change_nothing);
	tcase_add_test(tc, tally_changes_nothing);
	tcase_add_test(tc, verbatim_spans_around_keys);
	suite_add_tcase(s, tc);
	return s;
}
