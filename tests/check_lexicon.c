/* check_lexicon.c — the lexicon automaton (Aho-Corasick over code points)
 * and lexicon rules: overlapping entries, leftmost-longest per rule, one
 * word in two rules, context guards, candidate lists, supplementary-plane
 * characters, and broken TSV files. */
#include <stdlib.h>
#include <string.h>
#include "lexicon.h"
#include "tests.h"
#include "utf8.h"

/* The examples only satisfy the loader; the tests below check the rules. */
#define LEX_RULE(id, file) \
	"[" id "]\nkind = lexicon\nlexicon = " file "\nmessage = {match}→{fix}\nsafety = safe\n" \
	"bad = x\ngood = y\n"

/* ---- the automaton alone ---- */

typedef struct {
	size_t end;
	int32_t entry;
} raw_hit;

static int cmp_raw(const void *a, const void *b)
{
	const raw_hit *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

/* Every entry the automaton reports, stepping as the scanner does. */
static size_t automaton_hits(const jh_lexicon *lx, const char *text, size_t len, raw_hit *out,
                             size_t max)
{
	size_t n = 0, i = 0;
	int32_t state = 0;
	while (i < len) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + i, len - i, &cp);
		state = jh_lex_step(lx, state, cp);
		i += k;
		for (int32_t s = lx->out[state] >= 0 ? state : lx->dict[state]; s > 0; s = lx->dict[s])
			for (int32_t e = lx->out[s]; e >= 0; e = lx->entries[e].next_same) {
				if (n == max)
					ck_abort_msg("more than %zu hits", max);
				out[n++] = (raw_hit){i, e};
			}
	}
	qsort(out, n, sizeof *out, cmp_raw);
	return n;
}

static void add_word(jh_lexicon *lx, long rule, const char *w)
{
	ck_assert_int_eq(jh_lexicon_add(lx, rule, w, strlen(w), NULL, NULL, NULL, NULL, 0), JH_OK);
}

START_TEST(automaton_classic)
{
	/* The textbook example: fail links must find she, he and hers in
	 * "ushers", and 他/们 inside 他们. */
	jh_lexicon lx;
	jh_lexicon_init(&lx);
	add_word(&lx, 0, "he");
	add_word(&lx, 0, "she");
	add_word(&lx, 0, "his");
	add_word(&lx, 0, "hers");
	add_word(&lx, 1, "他");
	add_word(&lx, 1, "他们");
	add_word(&lx, 1, "们");
	ck_assert_int_eq(jh_lexicon_build(&lx), JH_OK);
	/* Adding after the build is refused. */
	ck_assert_int_eq(jh_lexicon_add(&lx, 0, "x", 1, NULL, NULL, NULL, NULL, 0), JH_ERR_STATE);

	raw_hit h[16];
	size_t n = automaton_hits(&lx, "ushers", 6, h, 16);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(h[0].end, 4);
	ck_assert_int_eq(h[0].entry, 0); /* he */
	ck_assert_uint_eq(h[1].end, 4);
	ck_assert_int_eq(h[1].entry, 1); /* she */
	ck_assert_uint_eq(h[2].end, 6);
	ck_assert_int_eq(h[2].entry, 3); /* hers */

	n = automaton_hits(&lx, "我们他们", 12, h, 16);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(h[0].end, 6);
	ck_assert_int_eq(h[0].entry, 6); /* 们 of 我们 */
	ck_assert_uint_eq(h[1].end, 9);
	ck_assert_int_eq(h[1].entry, 4); /* 他 */
	ck_assert_uint_eq(h[2].end, 12);
	ck_assert_int_eq(h[2].entry, 5); /* 他们 */
	ck_assert_uint_eq(h[3].end, 12);
	ck_assert_int_eq(h[3].entry, 6); /* 们 */

	/* An invalid byte resets the automaton: 他 \xFF 们 is not 他们. */
	n = automaton_hits(&lx, "他\xFF们", 7, h, 16);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(h[0].entry, 4);
	ck_assert_int_eq(h[1].entry, 6);
	jh_lexicon_free(&lx);
}
END_TEST

/* Deterministic pseudo-random numbers, so a failure can be replayed. */
static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

START_TEST(automaton_matches_naive_search)
{
	/* A small alphabet (with one 2-byte, one 1-byte and one 4-byte
	 * character) makes words overlap and share prefixes and suffixes. */
	static const char *const alpha[] = {"的", "了", "是", "不", "在", "a", "é", "\xF0\xA0\xAE\xB7"};
	enum { N_WORDS = 1500, TEXT_CHARS = 4000, MAX_HITS = 200000 };
	uint32_t seed = 12345;
	jh_lexicon lx;
	jh_lexicon_init(&lx);
	char (*words)[32] = calloc(N_WORDS, sizeof *words);
	ck_assert_ptr_nonnull(words);
	for (int w = 0; w < N_WORDS; w++) {
		int chars = 1 + (int)(lcg(&seed) % 5);
		for (int c = 0; c < chars; c++)
			strcat(words[w], alpha[lcg(&seed) % 8]);
		add_word(&lx, w % 3, words[w]);
	}
	ck_assert_int_eq(jh_lexicon_build(&lx), JH_OK);

	char *text = malloc(TEXT_CHARS * 4 + 1);
	ck_assert_ptr_nonnull(text);
	text[0] = '\0';
	size_t len = 0;
	for (int c = 0; c < TEXT_CHARS; c++) {
		const char *ch = alpha[lcg(&seed) % 8];
		memcpy(text + len, ch, strlen(ch) + 1);
		len += strlen(ch);
	}

	raw_hit *got = malloc(MAX_HITS * sizeof *got), *want = malloc(MAX_HITS * sizeof *want);
	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	size_t n_got = automaton_hits(&lx, text, len, got, MAX_HITS);
	size_t n_want = 0;
	/* Every word at every character boundary. */
	for (size_t i = 0; i < len;) {
		for (int w = 0; w < N_WORDS; w++) {
			size_t wl = strlen(words[w]);
			if (i + wl <= len && memcmp(text + i, words[w], wl) == 0) {
				if (n_want == MAX_HITS)
					ck_abort_msg("more than %d hits", MAX_HITS);
				want[n_want++] = (raw_hit){i + wl, w};
			}
		}
		int32_t cp;
		i += jh_utf8_decode((const unsigned char *)text + i, len - i, &cp);
	}
	qsort(want, n_want, sizeof *want, cmp_raw);
	ck_assert_uint_gt(n_want, 1000);
	ck_assert_uint_eq(n_got, n_want);
	for (size_t i = 0; i < n_want; i++)
		if (got[i].end != want[i].end || got[i].entry != want[i].entry)
			ck_abort_msg("hit %zu: automaton (%zu, %d), naive (%zu, %d)", i, got[i].end,
			             got[i].entry, want[i].end, want[i].entry);
	free(got);
	free(want);
	free(text);
	free(words);
	jh_lexicon_free(&lx);
}
END_TEST

/* ---- lexicon rules ---- */

START_TEST(leftmost_longest)
{
	jh_ruleset *rs = test_ruleset(LEX_RULE("typo.overlap", "lex-overlap.tsv"));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 他(0) 们(3) 好(6) 他(9) 他(12) 们(15) 们(18) */
	const char *text = "他们好他他们们";
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 4);
	test_assert_finding(&fs, 0, "typo.overlap", 0, 6, "它们");
	test_assert_finding(&fs, 1, "typo.overlap", 9, 12, "它");
	test_assert_finding(&fs, 2, "typo.overlap", 12, 18, "它们");
	test_assert_finding(&fs, 3, "typo.overlap", 18, 21, NULL); /* 们 has no fix */
	ck_assert_str_eq(fs.items[0].message, "他们→它们");
	ck_assert_int_eq(fs.items[0].safety, JH_SAFE);
	jh_findings_clear(&fs);

	char *fixed = test_fix(rs, text, 0, NULL);
	ck_assert_str_eq(fixed, "它们好它它们们");
	free(fixed);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(entry_in_two_rules)
{
	jh_ruleset *rs = test_ruleset(LEX_RULE("typo.lex-a", "lex-rule-a.tsv")
	                              LEX_RULE("typo.lex-b", "lex-rule-b.tsv"));
	jh_findings fs = JH_FINDINGS_INIT;
	/* Each rule takes its own leftmost-longest matches: typo.lex-b's 在次
	 * hides its 次来, whatever typo.lex-a found. */
	test_check(rs, "在次来", strlen("在次来"), &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "typo.lex-a", 0, 6, "再次");
	test_assert_finding(&fs, 1, "typo.lex-b", 0, 6, "在此");
	jh_findings_clear(&fs);

	test_check(rs, "次来", strlen("次来"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.lex-b", 0, 6, "此来");
	jh_findings_clear(&fs);

	/* With typo.lex-a off, its entries are not reported. */
	unsigned char only_b[2] = {0, 1};
	jh_check_options opts = {.enabled = only_b};
	ck_assert_int_eq(jh_check(rs, "在次来", strlen("在次来"), &opts, &fs), JH_OK);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.lex-b", 0, 6, "在此");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(context_guards)
{
	jh_ruleset *rs = test_ruleset("[censor.guards]\nkind = lexicon\nlexicon = lex-guards.tsv\n"
	                              "message = {match}→{fix}（{note}）\nsafety = safe\n"
	                              "bad = 央军\ngood = 中央军\n");
	static const struct {
		const char *text;
		size_t start, end; /* start == end: no finding */
		const char *fix;
	} cases[] = {
		{"央军来了", 0, 6, "中央军"},        /* nothing before: the guard does not apply */
		{"中央军来了", 0, 0, NULL},          /* prev_not 中 */
		{"他说央军来了", 6, 12, "中央军"},
		{"我不在等了", 3, 9, "不再"},
		{"他不在乎", 0, 0, NULL},            /* next_not 乎 */
		{"他不在意", 0, 0, NULL},            /* next_not 意 */
		{"他不在", 3, 9, "不再"},            /* nothing after */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		jh_findings fs = JH_FINDINGS_INIT;
		test_check(rs, cases[i].text, strlen(cases[i].text), &fs);
		if (cases[i].start == cases[i].end) {
			ck_assert_msg(fs.count == 0, "%s: %zu findings, expected none", cases[i].text,
			              fs.count);
		} else {
			ck_assert_msg(fs.count == 1, "%s: %zu findings, expected 1", cases[i].text, fs.count);
			test_assert_finding(&fs, 0, "censor.guards", cases[i].start, cases[i].end,
			                    cases[i].fix);
		}
		if (i == 0)
			ck_assert_str_eq(fs.items[0].message, "央军→中央军（“中”字被吃掉）");
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(candidates_and_fixes)
{
	jh_ruleset *rs = test_ruleset(LEX_RULE("typo.candidates", "lex-candidates.tsv"));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 做为(0) 再接再励(6) 屏蔽词(18) 某某某(27) 甲乙(36) */
	const char *text = "做为再接再励屏蔽词某某某甲乙";
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 5);
	/* Several candidates: the first is offered, but a person must choose. */
	test_assert_finding(&fs, 0, "typo.candidates", 0, 6, "作为");
	ck_assert_int_eq(fs.items[0].safety, JH_UNSAFE);
	test_assert_finding(&fs, 1, "typo.candidates", 6, 18, "再接再厉");
	ck_assert_int_eq(fs.items[1].safety, JH_SAFE);
	test_assert_finding(&fs, 2, "typo.candidates", 18, 27, NULL); /* no second column */
	test_assert_finding(&fs, 3, "typo.candidates", 27, 36, "");   /* empty: delete */
	test_assert_finding(&fs, 4, "typo.candidates", 36, 42, "甲 乙"); /* \s escape */
	jh_findings_clear(&fs);

	char *safe = test_fix(rs, "做为再接再励某某某。", 0, NULL);
	ck_assert_str_eq(safe, "做为再接再厉。");
	free(safe);
	char *all = test_fix(rs, "做为再接再励某某某。", 1, NULL);
	ck_assert_str_eq(all, "作为再接再厉。");
	free(all);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(supplementary_plane)
{
	jh_ruleset *rs = test_ruleset(LEX_RULE("typo.astral", "lex-astral.tsv"));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 𠮷(0, 4 bytes) 野(4) 家(7) 吉(10) 𠮷(13) */
	const char *text = "\xF0\xA0\xAE\xB7野家吉\xF0\xA0\xAE\xB7";
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "typo.astral", 0, 7, "吉野");
	test_assert_finding(&fs, 1, "typo.astral", 10, 17, "吉吉");
	ck_assert_uint_eq(fs.items[1].column, 4);
	ck_assert_uint_eq(fs.items[1].end_column, 6);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* A lexicon saved by a Windows editor: a BOM and CRLF line ends.  The
 * BOM belongs to the file, not to the first word (inih skips it in rule
 * files too), and no fix may end in a CR. */
START_TEST(bom_and_crlf)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(LEX_RULE("typo.windows", "lex-bom-crlf.tsv"), &rs, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "status %d:%s", rc, test_diags_text(&ds));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 在(0) 次(3) 。(6) 次(9) 来(12) */
	const char *text = "在次。次来";
	test_check(rs, text, strlen(text), &fs);
	ck_assert_uint_eq(fs.count, 2);
	test_assert_finding(&fs, 0, "typo.windows", 0, 6, "再次");
	test_assert_finding(&fs, 1, "typo.windows", 9, 15, "此来");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(invalid_utf8_line)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(LEX_RULE("typo.broken", "lex-bad-utf8.tsv")
	                          LEX_RULE("typo.fine", "lex-overlap.tsv"), &rs, &ds);
	ck_assert_int_eq(rc, JH_ERR_RULES);
	const test_diag *d = test_diags_find(&ds, "not valid UTF-8");
	ck_assert_msg(d != NULL, "diagnostics:%s", test_diags_text(&ds));
	ck_assert_int_eq(d->severity, JH_ERROR);
	ck_assert_str_eq(d->file, TEST_DATA_DIR "/lex-bad-utf8.tsv");
	ck_assert_uint_eq(d->line, 3);
	ck_assert_str_eq(d->rule_id, "typo.broken");
	unsigned char sel[2];
	jh_ruleset_default_selection(rs, sel);
	ck_assert_int_eq(sel[0], 0);
	ck_assert_int_eq(sel[1], 1);
	/* A broken lexicon rule reports nothing, even for its good lines. */
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, "好的他", strlen("好的他"), &fs);
	ck_assert_uint_eq(fs.count, 1);
	test_assert_finding(&fs, 0, "typo.fine", 6, 9, "它");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(bad_columns)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(LEX_RULE("typo.broken", "lex-bad-columns.tsv"), &rs, &ds);
	ck_assert_int_eq(rc, JH_ERR_RULES);
	const test_diag *d = test_diags_find(&ds, "empty first column");
	ck_assert_msg(d != NULL, "diagnostics:%s", test_diags_text(&ds));
	ck_assert_str_eq(d->file, TEST_DATA_DIR "/lex-bad-columns.tsv");
	ck_assert_uint_eq(d->line, 2);
	d = test_diags_find(&ds, "unknown escape");
	ck_assert_msg(d != NULL, "diagnostics:%s", test_diags_text(&ds));
	ck_assert_str_eq(d->file, TEST_DATA_DIR "/lex-bad-columns.tsv");
	ck_assert_uint_eq(d->line, 3);
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

START_TEST(missing_lexicon)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	int rc = test_ruleset_try(LEX_RULE("typo.broken", "no-such.tsv"), &rs, &ds);
	ck_assert_int_eq(rc, JH_ERR_RULES);
	const test_diag *d = test_diags_find(&ds, "cannot read lexicon");
	ck_assert_msg(d != NULL, "diagnostics:%s", test_diags_text(&ds));
	ck_assert_str_eq(d->file, TEST_DATA_DIR "/no-such.tsv");
	ck_assert_str_eq(d->rule_id, "typo.broken");
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

Suite *lexicon_suite(void)
{
	Suite *s = suite_create("lexicon");
	TCase *tc = test_tcase("automaton", 30);
	tcase_add_test(tc, automaton_classic);
	tcase_add_test(tc, automaton_matches_naive_search);
	suite_add_tcase(s, tc);
	tc = test_tcase("rules", 4);
	tcase_add_test(tc, leftmost_longest);
	tcase_add_test(tc, entry_in_two_rules);
	tcase_add_test(tc, context_guards);
	tcase_add_test(tc, candidates_and_fixes);
	tcase_add_test(tc, supplementary_plane);
	tcase_add_test(tc, bom_and_crlf);
	tcase_add_test(tc, invalid_utf8_line);
	tcase_add_test(tc, bad_columns);
	tcase_add_test(tc, missing_lexicon);
	suite_add_tcase(s, tc);
	return s;
}
