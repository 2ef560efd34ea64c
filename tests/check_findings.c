/* check_findings.c — findings: ordering, merging exact duplicates, and
 * positions (line, column in characters, end column, display column) on
 * multi-line text with CJK characters, CRLF and bad bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "tests.h"

static void add(jh_findings *fs, const char *id, long idx, size_t start, size_t end)
{
	ck_assert_int_eq(jh_findings_add(fs, id, idx, JH_WARNING, start, end, id, NULL, 0, JH_SAFE),
	                 JH_OK);
}

START_TEST(sort_and_merge)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add(&fs, "typo.b", 1, 5, 7);
	add(&fs, "typo.a", 0, 5, 7);
	add(&fs, "typo.a", 0, 0, 3);
	add(&fs, "typo.a", 0, 5, 7);          /* duplicate */
	add(&fs, "typo.c", 2, 5, 6);
	add(&fs, "typo.a", 0, 0, 3);          /* duplicate */
	add(&fs, "encoding.engine", -1, 5, 7); /* an engine finding, no rule */
	jh_findings_sort(&fs, 0);
	ck_assert_uint_eq(fs.count, 5);
	static const struct {
		const char *id;
		size_t start, end;
	} want[] = {
		{"typo.a", 0, 3}, {"typo.c", 5, 6}, {"encoding.engine", 5, 7}, {"typo.a", 5, 7},
		{"typo.b", 5, 7},
	};
	for (size_t i = 0; i < 5; i++) {
		ck_assert_str_eq(fs.items[i].rule_id, want[i].id);
		ck_assert_uint_eq(fs.items[i].byte_start, want[i].start);
		ck_assert_uint_eq(fs.items[i].byte_end, want[i].end);
		/* The message went with its finding. */
		ck_assert_str_eq(fs.items[i].message, want[i].id);
	}
	jh_findings_clear(&fs);
	ck_assert_uint_eq(fs.count, 0);
	ck_assert_ptr_null(fs.items);
}
END_TEST

/* Ranked answers keep their order and their score: none (JH_SCORE_NONE)
 * from jh_findings_add_alternative or a negative score, the probability
 * as given otherwise; a score above 1 or NaN is refused and adds nothing. */
START_TEST(alternative_scores)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add(&fs, "censor.a", 0, 3, 9);
	jh_edit a = {3, 9, "知识"}, b = {3, 9, "智识"}, c = {3, 9, "常识"};
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &a, 1, 0.62), JH_OK);
	ck_assert_int_eq(jh_findings_add_alternative(&fs, 0, &b, 1), JH_OK);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &c, 1, -0.5), JH_OK);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &c, 1, 1.01), JH_ERR_ARG);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &c, 1, 0.0 / 0.0), JH_ERR_ARG);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 1, &c, 1, 0.5), JH_ERR_ARG);
	const jh_finding *f = &fs.items[0];
	ck_assert_uint_eq(f->n_alternatives, 3);
	ck_assert_str_eq(f->alternatives[0].edits[0].replacement, "知识");
	ck_assert_double_eq(f->alternatives[0].score, 0.62);
	ck_assert_str_eq(f->alternatives[1].edits[0].replacement, "智识");
	ck_assert_double_eq(f->alternatives[1].score, JH_SCORE_NONE);
	ck_assert_double_eq(f->alternatives[2].score, JH_SCORE_NONE);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &c, 1, 1.0), JH_OK);
	ck_assert_double_eq(fs.items[0].alternatives[3].score, 1.0);
	ck_assert_double_eq(fs.items[0].alternatives[0].score, 0.62); /* kept when the array grew */
	jh_findings_clear(&fs);
}
END_TEST

/* The list keeps each string once, and its edits, in its own store: equal
 * messages and replacements are one pointer, a message can be changed, an
 * edit added, a fix dropped, and the list cleared and used again. */
START_TEST(store_strings_once)
{
	jh_findings fs = JH_FINDINGS_INIT;
	char msg[40];
	for (int i = 0; i < 3000; i++) { /* past a 64 KB block and the first set growth */
		snprintf(msg, sizeof msg, "message %d", i % 1000);
		ck_assert_int_eq(jh_findings_add(&fs, "typo.a", 0, JH_WARNING, (size_t)i, (size_t)i + 1,
		                                 msg, i % 2 ? "“" : "”", strlen("“"), JH_SAFE),
		                 JH_OK);
	}
	ck_assert_ptr_nonnull(fs.strings);
	ck_assert_ptr_eq(fs.items[0].message, fs.items[1000].message);
	ck_assert_ptr_ne(fs.items[0].message, fs.items[1].message);
	ck_assert_str_eq(fs.items[2999].message, "message 999");
	ck_assert_ptr_eq(fs.items[1].edits[0].replacement, fs.items[3].edits[0].replacement);
	ck_assert_str_eq(fs.items[2].edits[0].replacement, "”");
	ck_assert_uint_eq(fs.items[7].edits[0].byte_start, 7);
	ck_assert_int_eq(jh_finding_set_message(&fs, &fs.items[5], "changed"), JH_OK);
	ck_assert_str_eq(fs.items[5].message, "changed");
	ck_assert_str_eq(fs.items[1005].message, "message 5"); /* the shared string is untouched */
	ck_assert_int_eq(jh_findings_add_edit(&fs, 5, 6, 6, "x"), JH_OK);
	ck_assert_uint_eq(fs.items[5].n_edits, 2);
	ck_assert_str_eq(fs.items[5].edits[0].replacement, "“");
	ck_assert_str_eq(fs.items[5].edits[1].replacement, "x");
	ck_assert_int_eq(jh_findings_add_edit(&fs, 3000, 0, 0, "x"), JH_ERR_ARG);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 4, 3, "x"), JH_ERR_ARG);
	jh_finding_drop_fix(&fs.items[5]);
	ck_assert(!fs.items[5].has_fix && fs.items[5].n_edits == 0);
	jh_findings_clear(&fs);
	ck_assert_ptr_null(fs.strings);
	add(&fs, "typo.b", 1, 0, 1);
	ck_assert_str_eq(fs.items[0].message, "typo.b");
	jh_findings_clear(&fs);
}
END_TEST

/* A finding from a hit: its message filled from the rule's template (the
 * same message and replacement strings for the same hit again), a note
 * read anew each time (a check may say two things from one buffer), and a
 * template read anew after a new check (it may be another rule set's at
 * the same place). */
START_TEST(add_hit_messages)
{
	char tpl[64] = "“{match}”应为“{fix}”（{note}）";
	jh_rule r;
	memset(&r, 0, sizeof r);
	r.id = "typo.x";
	r.severity = JH_WARNING;
	r.message = tpl;
	const char *text = "在次见面，在次abcdefghijklmnopqrstuvwxyz";
	char note[32] = "常见错字";
	jh_findings fs = JH_FINDINGS_INIT;
	jh_hit h = {&r, 3, 0, 6, "再次", 6, JH_SAFE, note};
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_str_eq(fs.items[0].message, "“在次”应为“再次”（常见错字）");
	ck_assert_ptr_eq(fs.items[0].message, fs.items[1].message);
	ck_assert_ptr_eq(fs.items[0].edits[0].replacement, fs.items[1].edits[0].replacement);
	strcpy(note, "另一说");
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_str_eq(fs.items[2].message, "“在次”应为“再次”（另一说）");
	h.start = 15; /* the same bytes elsewhere: the same message */
	h.end = 21;
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_ptr_eq(fs.items[3].message, fs.items[2].message);
	ck_assert_uint_eq(fs.items[3].edits[0].byte_start, 15);
	h.end = 21 + 26; /* a long match */
	h.fix = NULL;
	h.note = NULL;
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_str_eq(fs.items[4].message, "“在次abcdefghijklmnopqrstuvwxyz”应为“”（）");
	ck_assert(!fs.items[4].has_fix && fs.items[4].n_edits == 0);
	strcpy(tpl, "{match}→{fix}");
	jh_findings_new_check(&fs);
	h = (jh_hit){&r, 3, 0, 6, "再次", 6, JH_SAFE, NULL};
	ck_assert_int_eq(jh_findings_add_hit(&fs, text, &h), JH_OK);
	ck_assert_str_eq(fs.items[5].message, "在次→再次");
	ck_assert_str_eq(fs.items[5].rule_id, "typo.x");
	ck_assert_int_eq(fs.items[5].rule_index, 3);
	ck_assert_int_eq(fs.items[5].severity, JH_WARNING);
	jh_findings_clear(&fs);
}
END_TEST

/* A fix changes only bytes inside its finding's span: an edit or an
 * answer reaching outside it is refused (JH_ERR_SPAN) and adds nothing;
 * insertions at either end and the whole span are fine. */
START_TEST(edits_inside_span)
{
	jh_findings fs = JH_FINDINGS_INIT;
	add(&fs, "typo.a", 0, 3, 9);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 2, 4, "x"), JH_ERR_SPAN);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 8, 10, "x"), JH_ERR_SPAN);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 10, 10, "x"), JH_ERR_SPAN);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 0, 20, "x"), JH_ERR_SPAN);
	ck_assert(!fs.items[0].has_fix && fs.items[0].n_edits == 0);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 3, 3, "a"), JH_OK);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 9, 9, "b"), JH_OK);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 0, 3, 9, "c"), JH_OK);
	ck_assert_uint_eq(fs.items[0].n_edits, 3);
	jh_edit in = {4, 6, "知识"}, out[2] = {{3, 9, "x"}, {9, 12, "y"}};
	ck_assert_int_eq(jh_findings_add_alternative(&fs, 0, out, 2), JH_ERR_SPAN);
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 0, &out[1], 1, 0.5), JH_ERR_SPAN);
	ck_assert_uint_eq(fs.items[0].n_alternatives, 0);
	ck_assert_int_eq(jh_findings_add_alternative(&fs, 0, &in, 1), JH_OK);
	ck_assert_uint_eq(fs.items[0].n_alternatives, 1);
	/* an empty finding (an insertion point) takes only insertions there */
	add(&fs, "typo.b", 0, 5, 5);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 1, 5, 6, "x"), JH_ERR_SPAN);
	ck_assert_int_eq(jh_findings_add_edit(&fs, 1, 5, 5, "x"), JH_OK);
	ck_assert_str_eq(jh_strerror(JH_ERR_SPAN), "edit outside its finding's span");
	jh_findings_clear(&fs);
}
END_TEST

/* What jh_report_human writes, kept whole. */
typedef struct {
	char data[4096];
	size_t len, calls;
	int fail;
} sink;

static int to_sink(const char *d, size_t n, void *payload)
{
	sink *k = payload;
	k->calls++;
	if (k->fail)
		return 1;
	ck_assert_uint_lt(k->len + n, sizeof k->data);
	memcpy(k->data + k->len, d, n);
	k->len += n;
	k->data[k->len] = '\0';
	return 0;
}

/* The human report of every front end, byte for byte: the name escaped,
 * the caret under the span by display width after a tab and after a cut
 * character (E4 B8: one U+FFFD, one column, as jh_display_width counts it;
 * the CLI printed one U+FFFD a byte and its caret stood one column left of
 * the comma), a CRLF line's CR not shown, fix and suggestion, the ranked
 * answers with their probabilities, one write a finding. */
START_TEST(human_report)
{
	static const char text[] = "好,的\t好\xE4\xB8,的\n第二行\r\n";
	size_t len = sizeof text - 1;
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(jh_findings_add(&fs, "t.a", 0, JH_WARNING, 3, 4, "半角", "，",
	                                 strlen("，"), JH_SAFE), JH_OK);
	ck_assert_int_eq(jh_findings_add(&fs, "t.b", 1, JH_ERROR, 13, 14, "半角", "，",
	                                 strlen("，"), JH_UNSAFE), JH_OK);
	ck_assert_int_eq(jh_findings_add(&fs, "t.c", 2, JH_INFO, 21, 24, "二？", NULL, 0, JH_UNSAFE),
	                 JH_OK);
	jh_edit a = {21, 24, "贰"}, b = {21, 24, ""};
	ck_assert_int_eq(jh_findings_add_scored_alternative(&fs, 2, &a, 1, 0.625), JH_OK);
	ck_assert_int_eq(jh_findings_add_alternative(&fs, 2, &b, 1), JH_OK);
	jh_findings_locate(&fs, text, len);
	sink k = {.len = 0};
	ck_assert_int_eq(jh_report_human("a\033b.txt", text, len, &fs, 0, to_sink, &k), JH_OK);
	ck_assert_str_eq(k.data,
	                 "a\\x1Bb.txt:1:2: warning [t.a] 半角\n"
	                 "  | 好,的 好\xEF\xBF\xBD,的\n"
	                 "  |   ^ fix: 「，」\n"
	                 "a\\x1Bb.txt:1:7: error [t.b] 半角\n"
	                 "  | 好,的 好\xEF\xBF\xBD,的\n"
	                 "  |          ^ suggestion: 「，」\n"
	                 "a\\x1Bb.txt:2:2: info [t.c] 二？\n"
	                 "  | 第二行\n"
	                 "  |   ^^\n"
	                 "  alternatives: 「贰」 (0.62), delete\n");
	ck_assert_uint_eq(k.calls, 3);
	/* colours: the name bold, the severity in its colour, the rule dim */
	k = (sink){.len = 0};
	ck_assert_int_eq(jh_report_human("x", text, len, &fs, JH_REPORT_COLOR, to_sink, &k), JH_OK);
	ck_assert_ptr_nonnull(strstr(k.data, "\033[1mx:1:2:\033[0m \033[33mwarning\033[0m \033[2m[t.a]\033[0m"));
	ck_assert_ptr_nonnull(strstr(k.data, "\033[31;1m^ suggestion: 「，」\033[0m\n"));
	/* a write that fails ends the report */
	k = (sink){.fail = 1};
	ck_assert_int_eq(jh_report_human("x", text, len, &fs, 0, to_sink, &k), JH_ERR_IO);
	ck_assert_uint_eq(k.calls, 1);
	ck_assert_int_eq(jh_report_human(NULL, text, len, &fs, 0, to_sink, &k), JH_ERR_ARG);
	jh_findings_clear(&fs);

	size_t by[3] = {1, 2, 0};
	k = (sink){.len = 0};
	ck_assert_int_eq(jh_report_human_summary(by, 1, 0, to_sink, &k), JH_OK);
	ck_assert_str_eq(k.data, "\n3 findings (0 errors, 2 warnings, 1 info) in 1 file\n");
	k = (sink){.len = 0};
	by[0] = 0, by[1] = 1;
	ck_assert_int_eq(jh_report_human_summary(by, 3, 2, to_sink, &k), JH_OK);
	ck_assert_str_eq(k.data,
	                 "\n1 finding (0 errors, 1 warning, 0 info) in 3 files checked, 2 binary files skipped\n");
	k = (sink){.len = 0};
	by[1] = 0;
	ck_assert_int_eq(jh_report_human_summary(by, 3, 0, to_sink, &k), JH_OK);
	ck_assert_uint_eq(k.calls, 0);
}
END_TEST

START_TEST(sort_from)
{
	/* Findings before `from` belong to an earlier text: left alone. */
	jh_findings fs = JH_FINDINGS_INIT;
	add(&fs, "typo.z", 9, 9, 10);
	add(&fs, "typo.z", 9, 1, 2);
	add(&fs, "typo.a", 0, 4, 5);
	add(&fs, "typo.a", 0, 2, 3);
	add(&fs, "typo.a", 0, 4, 5);
	jh_findings_sort(&fs, 2);
	ck_assert_uint_eq(fs.count, 4);
	ck_assert_uint_eq(fs.items[0].byte_start, 9);
	ck_assert_uint_eq(fs.items[1].byte_start, 1);
	ck_assert_uint_eq(fs.items[2].byte_start, 2);
	ck_assert_uint_eq(fs.items[3].byte_start, 4);
	jh_findings_clear(&fs);
}
END_TEST

/* Many findings, out of order, several at one start (the sort's radix
 * passes and then its ordering of equal starts): in order of start, end
 * and rule, equal ones in the order they came, exact duplicates once. */
START_TEST(sort_many)
{
	enum { N = 3000 };
	static const char *const ids[] = {"typo.a", "typo.b", "typo.c"};
	jh_findings fs = JH_FINDINGS_INIT;
	size_t *want = malloc(N * sizeof *want); /* message numbers, in order */
	char msg[16];
	unsigned x = 777;
	for (size_t i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		size_t start = (x >> 8) % 600 * (i % 7 == 0 ? 40000 : 1); /* some past 2^24 */
		long rule = (long)(x >> 20) % 3;
		snprintf(msg, sizeof msg, "%zu", i);
		ck_assert_int_eq(jh_findings_add(&fs, ids[rule], rule, JH_WARNING, start,
		                                 start + (x >> 24) % 3, msg, NULL, 0, JH_SAFE),
		                 JH_OK);
	}
	/* the order by insertion, stable */
	for (size_t i = 0; i < N; i++) {
		size_t j = i;
		const jh_finding *f = &fs.items[i];
		while (j > 0) {
			const jh_finding *g = &fs.items[want[j - 1]];
			if (g->byte_start < f->byte_start ||
			    (g->byte_start == f->byte_start &&
			     (g->byte_end < f->byte_end ||
			      (g->byte_end == f->byte_end && g->rule_index <= f->rule_index))))
				break;
			want[j] = want[j - 1];
			j--;
		}
		want[j] = i;
	}
	size_t kept = 0; /* and without the duplicates */
	for (size_t i = 0; i < N; i++) {
		const jh_finding *f = &fs.items[want[i]];
		if (kept) {
			const jh_finding *g = &fs.items[want[kept - 1]];
			if (g->byte_start == f->byte_start && g->byte_end == f->byte_end &&
			    g->rule_index == f->rule_index)
				continue;
		}
		want[kept++] = want[i];
	}
	char expect[N][16];
	for (size_t i = 0; i < kept; i++)
		snprintf(expect[i], sizeof expect[i], "%zu", want[i]);
	jh_findings_sort(&fs, 0);
	ck_assert_uint_eq(fs.count, kept);
	for (size_t i = 0; i < kept; i++)
		ck_assert_str_eq(fs.items[i].message, expect[i]);
	jh_findings_clear(&fs);
	free(want);
}
END_TEST

/* Line 1: 第(0) 一(3) 行(6) \r(9) \n(10)
 * Line 2: 二(11) 、(14) a(17) b(18) 中(19) 文(22) \r(25) \n(26)
 * Line 3: 第(27) 三(30) 行(33) 的(36) 的(39) 了(42) \n(45)
 * Line 4: empty, at 46 (the end). */
static const char crlf_text[] = "第一行\r\n二、ab中文\r\n第三行的的了\n";

typedef struct {
	size_t start, end;
	size_t line, column, display_column, end_line, end_column;
} position;

static const position crlf_positions[] = {
	{0, 3, 1, 1, 1, 1, 2},       /* 第 */
	{9, 11, 1, 4, 7, 2, 1},      /* the CRLF ending line 1 */
	{19, 22, 2, 5, 7, 2, 6},     /* 中: after 二、 (2 columns each) and ab */
	{25, 27, 2, 7, 11, 3, 1},
	{36, 42, 3, 4, 7, 3, 6},     /* 的的 on line 3 */
	{46, 46, 4, 1, 1, 4, 1},     /* empty span at the end */
};

static void assert_position(const jh_finding *f, const position *p)
{
	ck_assert_msg(f->line == p->line && f->column == p->column &&
	                  f->display_column == p->display_column && f->end_line == p->end_line &&
	                  f->end_column == p->end_column,
	              "[%zu,%zu): at %zu:%zu (display %zu) to %zu:%zu, expected %zu:%zu (display %zu) "
	              "to %zu:%zu",
	              p->start, p->end, f->line, f->column, f->display_column, f->end_line,
	              f->end_column, p->line, p->column, p->display_column, p->end_line,
	              p->end_column);
}

START_TEST(locate_crlf_cjk)
{
	const size_t n = sizeof crlf_positions / sizeof *crlf_positions;
	jh_findings fs = JH_FINDINGS_INIT;
	for (size_t i = 0; i < n; i++)
		add(&fs, "typo.x", 0, crlf_positions[i].start, crlf_positions[i].end);
	jh_findings_locate(&fs, crlf_text, sizeof crlf_text - 1);
	for (size_t i = 0; i < n; i++)
		assert_position(&fs.items[i], &crlf_positions[i]);
	jh_findings_clear(&fs);

	/* Out of order (a reporter adding its own): each still right. */
	for (size_t i = n; i-- > 0;)
		add(&fs, "typo.x", 0, crlf_positions[i].start, crlf_positions[i].end);
	jh_findings_locate(&fs, crlf_text, sizeof crlf_text - 1);
	for (size_t i = 0; i < n; i++)
		assert_position(&fs.items[n - 1 - i], &crlf_positions[i]);
	jh_findings_clear(&fs);
}
END_TEST

START_TEST(locate_odd_characters)
{
	/* \t(0) FF(1) 中(2) e(5) U+0301(6) x(8) 𠮷(9) y(13): a tab and a bad
	 * byte are one column each, a combining accent is a character of width
	 * 0, a plane-2 character is one character of width 2. */
	const char text[] = "\t\xFF中e\xCC\x81x\xF0\xA0\xAE\xB7y";
	jh_findings fs = JH_FINDINGS_INIT;
	add(&fs, "typo.x", 0, 1, 2);
	add(&fs, "typo.x", 0, 8, 9);
	add(&fs, "typo.x", 0, 13, 14);
	jh_findings_locate(&fs, text, sizeof text - 1);
	static const position want[] = {
		{1, 2, 1, 2, 2, 1, 3},
		{8, 9, 1, 6, 6, 1, 7},
		{13, 14, 1, 8, 9, 1, 9},
	};
	for (size_t i = 0; i < 3; i++)
		assert_position(&fs.items[i], &want[i]);
	jh_findings_clear(&fs);
}
END_TEST

/* Long lines of every kind of character the walk measures a block or a
 * character at a time (ASCII, CJK ideographs and the ends of their range,
 * punctuation, DEL, a bad byte, a zero-width space, a lead byte cut short
 * by ASCII), each finding's position against the sum of the pieces before
 * it. */
START_TEST(locate_long_lines)
{
	static const struct {
		const char *s;
		size_t chars, width; /* a piece of text: its characters and display width */
	} pieces[] = {
		{"a", 1, 1},
		{"Z ", 2, 2},
		{"中", 1, 2},
		{"文字", 2, 4},
		{"\xEF\xBC\x8C", 1, 2}, /* ， */
		{"\xE2\x80\x9C", 1, 1}, /* “ */
		{"\xE4\xB8\x80", 1, 2}, /* U+4E00 */
		{"\xE9\xBF\xAF", 1, 2}, /* U+9FEF */
		{"\xE9\xBF\xB0", 1, 2}, /* U+9FF0 */
		{"\xE4\xB7\xBF", 1, 1}, /* U+4DFF */
		{"\x7F", 1, 0},
		{"\xFF", 1, 1},
		{"\t", 1, 1},
		{"\xE2\x80\x8B", 1, 0}, /* U+200B */
		{"\xE4\xB8" "a", 2, 2},  /* a lead cut short: one column, then a */
		{"\n", 0, 0},
	};
	const size_t n_pieces = sizeof pieces / sizeof *pieces, max = 4000;
	char *text = malloc(max * 8);
	position *want = malloc(max * sizeof *want);
	size_t len = 0, line = 1, col = 1, dcol = 1, n = 0;
	unsigned x = 12345;
	for (size_t i = 0; i < max; i++) {
		x = x * 1103515245u + 12345u;
		size_t k = (x >> 16) % (n_pieces * 4); /* mostly ASCII and CJK */
		if (k >= n_pieces)
			k %= 4;
		if (k == n_pieces - 1 && (x >> 8) % 8) /* a line break now and then */
			k = 2;
		size_t plen = strlen(pieces[k].s);
		int found = (x >> 12) % 3 == 0; /* a finding on this piece */
		if (found)
			want[n] = (position){len, len + plen, line, col, dcol, 0, 0};
		memcpy(text + len, pieces[k].s, plen);
		len += plen;
		if (k == n_pieces - 1) {
			line++;
			col = dcol = 1;
		} else {
			col += pieces[k].chars;
			dcol += pieces[k].width;
		}
		if (found) {
			want[n].end_line = line;
			want[n].end_column = col;
			n++;
		}
	}
	jh_findings fs = JH_FINDINGS_INIT;
	for (size_t i = 0; i < n; i++)
		add(&fs, "typo.x", 0, want[i].start, want[i].end);
	jh_findings_locate(&fs, text, len);
	for (size_t i = 0; i < n; i++)
		assert_position(&fs.items[i], &want[i]);
	jh_findings_clear(&fs);
	free(text);
	free(want);
}
END_TEST

static const char multi_rules[] =
	"[typo.lex]\nkind = lexicon\nlexicon = lex-overlap.tsv\nmessage = {match}→{fix}\n"
	"safety = safe\nbad = 他\ngood = 你\n"
	"[punct.comma]\nkind = regex\nmessage = 半角逗号\npattern = (?<=\\p{Han}),(?=\\p{Han})\n"
	"trigger = ,\nfix = ，\nsafety = safe\nbad = 好,走\ngood = a,b\n"
	"[typo.dd-re]\nkind = regex\nmessage = m\npattern = 的的\nbad = 的的\ngood = 的\n"
	"[typo.doubled]\nkind = builtin\ncheck = doubled\nmessage = m\nbad = 的的\ngood = 的\n";

/* 他(0) 们(3) 说(6) \r\n(9)  好(11) ,(14) 走(15) \r\n(18)
 * 第(20) 三(23) 行(26) 的(29) 的(32) 了(35) \n(38) */
static const char multi_text[] = "他们说\r\n好,走\r\n第三行的的了\n";

START_TEST(check_positions)
{
	jh_ruleset *rs = test_ruleset(multi_rules);
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, multi_text, sizeof multi_text - 1, &fs);
	ck_assert_uint_eq(fs.count, 4);
	/* Sorted by position across matchers; one span, two rules: rule order. */
	test_assert_finding(&fs, 0, "typo.lex", 0, 6, "它们");
	test_assert_finding(&fs, 1, "punct.comma", 14, 15, "，");
	test_assert_finding(&fs, 2, "typo.dd-re", 29, 35, NULL);
	test_assert_finding(&fs, 3, "typo.doubled", 29, 35, NULL);
	static const position want[] = {
		{0, 6, 1, 1, 1, 1, 3},
		{14, 15, 2, 2, 3, 2, 3},
		{29, 35, 3, 4, 7, 3, 6},
		{29, 35, 3, 4, 7, 3, 6},
	};
	for (size_t i = 0; i < 4; i++) {
		assert_position(&fs.items[i], &want[i]);
		ck_assert_int_eq(fs.items[i].rule_index, jh_ruleset_find(rs, fs.items[i].rule_id));
	}
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(check_options)
{
	jh_ruleset *rs = test_ruleset(multi_rules);
	jh_findings fs = JH_FINDINGS_INIT;
	/* punct.comma off; typo.lex raised to error, typo.dd-re lowered to info. */
	const unsigned char enabled[4] = {1, 0, 1, 1};
	const signed char severity[4] = {JH_ERROR, -1, JH_INFO, -1};
	jh_check_options opts = {.enabled = enabled, .severity = severity};
	ck_assert_int_eq(jh_check(rs, multi_text, sizeof multi_text - 1, &opts, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 3);
	test_assert_finding(&fs, 0, "typo.lex", 0, 6, "它们");
	ck_assert_int_eq(fs.items[0].severity, JH_ERROR);
	test_assert_finding(&fs, 1, "typo.dd-re", 29, 35, NULL);
	ck_assert_int_eq(fs.items[1].severity, JH_INFO);
	test_assert_finding(&fs, 2, "typo.doubled", 29, 35, NULL);
	ck_assert_int_eq(fs.items[2].severity, JH_WARNING);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(check_appends)
{
	/* A second jh_check adds to the list; the first text's findings keep
	 * their order and positions. */
	jh_ruleset *rs = test_ruleset(multi_rules);
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, multi_text, sizeof multi_text - 1, &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_check(rs, "\n的的", strlen("\n的的"), &fs);
	ck_assert_uint_eq(fs.count, 6);
	test_assert_finding(&fs, 3, "typo.doubled", 29, 35, NULL);
	ck_assert_uint_eq(fs.items[3].line, 3);
	test_assert_finding(&fs, 4, "typo.dd-re", 1, 7, NULL);
	ck_assert_uint_eq(fs.items[4].line, 2);
	ck_assert_uint_eq(fs.items[4].column, 1);
	test_assert_finding(&fs, 5, "typo.doubled", 1, 7, NULL);

	/* Cleared, the list is empty and can be used again. */
	jh_findings_clear(&fs);
	ck_assert_uint_eq(fs.count, 0);
	test_check(rs, "的的", strlen("的的"), &fs);
	ck_assert_uint_eq(fs.count, 2);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(check_skip_and_accept)
{
	jh_ruleset *rs = test_ruleset(multi_rules);
	/* Without options: 他们 [0,6) typo.lex, , [14,15) punct.comma,
	 * 的的 [29,35) typo.dd-re and typo.doubled. */
	static const unsigned char only_lex[4] = {1, 0, 0, 0};
	static const struct {
		jh_skip skip[3];
		size_t n_skip;
		const char *accept[2];
		size_t n_accept;
		size_t n;
		size_t starts[4];
	} cases[] = {
		/* a range over one finding drops it */
		{{{0, 6, NULL}}, 1, {NULL}, 0, 3, {14, 29, 29}},
		/* touching is not overlapping */
		{{{6, 14, NULL}, {15, 29, NULL}, {35, 39, NULL}}, 3, {NULL}, 0, 4, {0, 14, 29, 29}},
		/* a range inside a finding drops it */
		{{{30, 31, NULL}}, 1, {NULL}, 0, 2, {0, 14}},
		/* a range for one rule only */
		{{{0, 39, only_lex}}, 1, {NULL}, 0, 3, {14, 29, 29}},
		/* ranges sorted by start, the long one first */
		{{{0, 30, NULL}, {1, 2, NULL}, {31, 32, NULL}}, 3, {NULL}, 0, 0, {0}},
		/* an accepted word around a finding drops it */
		{{{0}}, 0, {"的的了"}, 1, 2, {0, 14}},
		{{{0}}, 0, {"他们说", "三行的的"}, 2, 1, {14}},
		/* ... but not one that only overlaps it */
		{{{0}}, 0, {"们说", "行的"}, 2, 4, {0, 14, 29, 29}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		jh_check_options opts = {.skip = cases[c].skip, .n_skip = cases[c].n_skip,
		                         .accept = cases[c].accept, .n_accept = cases[c].n_accept};
		jh_findings fs = JH_FINDINGS_INIT;
		ck_assert_int_eq(jh_check(rs, multi_text, sizeof multi_text - 1, &opts, &fs), JH_OK);
		ck_assert_msg(fs.count == cases[c].n, "case %zu: %zu findings, expected %zu", c, fs.count,
		              cases[c].n);
		for (size_t i = 0; i < fs.count; i++)
			ck_assert_msg(fs.items[i].byte_start == cases[c].starts[i],
			              "case %zu: finding %zu at %zu, expected %zu", c, i,
			              fs.items[i].byte_start, cases[c].starts[i]);
		/* What is left is still located. */
		if (fs.count)
			ck_assert_uint_ge(fs.items[0].line, 1);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(check_arguments)
{
	jh_ruleset *rs = test_ruleset(multi_rules);
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(jh_check(rs, NULL, 0, NULL, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 0);
	ck_assert_int_eq(jh_check(rs, "", 0, NULL, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 0);
	ck_assert_int_eq(jh_check(rs, NULL, 3, NULL, &fs), JH_ERR_ARG);
	ck_assert_int_eq(jh_check(NULL, "x", 1, NULL, &fs), JH_ERR_ARG);
	ck_assert_int_eq(jh_check(rs, "x", 1, NULL, NULL), JH_ERR_ARG);
	/* len, not a NUL, ends the text. */
	ck_assert_int_eq(jh_check(rs, "的的\0的的", 13, NULL, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 2, "typo.dd-re", 7, 13, NULL);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

Suite *findings_suite(void)
{
	Suite *s = suite_create("findings");
	TCase *tc = test_tcase("list", 4);
	tcase_add_test(tc, sort_and_merge);
	tcase_add_test(tc, sort_from);
	tcase_add_test(tc, sort_many);
	tcase_add_test(tc, store_strings_once);
	tcase_add_test(tc, add_hit_messages);
	tcase_add_test(tc, alternative_scores);
	tcase_add_test(tc, edits_inside_span);
	tcase_add_test(tc, human_report);
	suite_add_tcase(s, tc);
	tc = test_tcase("locate", 4);
	tcase_add_test(tc, locate_crlf_cjk);
	tcase_add_test(tc, locate_odd_characters);
	tcase_add_test(tc, locate_long_lines);
	suite_add_tcase(s, tc);
	tc = test_tcase("check", 4);
	tcase_add_test(tc, check_positions);
	tcase_add_test(tc, check_options);
	tcase_add_test(tc, check_appends);
	tcase_add_test(tc, check_skip_and_accept);
	tcase_add_test(tc, check_arguments);
	suite_add_tcase(s, tc);
	return s;
}
