/* check_linear.c — every regex rule of the real rules/ folder does work
 * linear in the length of the text, on the texts that make backtracking
 * patterns quadratic: long runs of its trigger characters, alone, between
 * Han characters and followed by one, alternating with Han or with another
 * trigger character, and its own examples repeated on one long line.
 *
 * Work is counted, not timed: the patterns are compiled with
 * PCRE2_AUTO_CALLOUT, and each callout adds one, plus how far the match
 * moved since the callout before (a repeat such as [^\n]* crosses many
 * characters between two callouts).  A text of LONG characters (20,000) may
 * cost at most RATIO times one of SHORT (2,000): linear work gives about
 * 10, quadratic 100.
 * Past that bound the callout stops the match, so a quadratic rule fails
 * the test in a moment instead of running for minutes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests.h"
#include "regex.h"
#include "rules.h"
#include "utf8.h"

#define RULES_DIR JH_SRCDIR "/rules"
#ifndef SHORT
#define SHORT 2000
#endif
#define LONG (10 * SHORT)
#define RATIO 25
#define SLACK 20000
/* trigger characters tried per rule, spread over its trigger set */
#define MAX_CHARS 3

typedef struct {
	unsigned long long work, cap;
	PCRE2_SIZE last_start, last_pos;
} work_count;

static int count_callout(pcre2_callout_block *cb, void *data)
{
	work_count *w = data;
	if (cb->start_match != w->last_start)
		w->last_start = w->last_pos = cb->start_match;
	PCRE2_SIZE pos = cb->current_position;
	w->work += 1 + (pos > w->last_pos ? pos - w->last_pos : w->last_pos - pos);
	w->last_pos = pos;
	return w->work > w->cap ? PCRE2_ERROR_CALLOUT : 0;
}

static void quiet(const jh_diag *d, void *payload)
{
	(void)d;
	(void)payload;
}

static void put_cp(jh_buf *b, int32_t cp)
{
	char u[4];
	size_t n = jh_utf8_encode(cp, u);
	ck_assert(jh_buf_append(b, u, n) == JH_OK);
}

/* Text number shape, of about n characters, made of trigger characters a
 * and b and the rule's first bad example; NULL when there is no such
 * shape. */
static char *make_text(int shape, size_t n, int32_t a, int32_t b, const char *example)
{
	jh_buf t = {0};
	const int32_t han = 0x6C49; /* 汉 */
	switch (shape) {
	case 0: /* aaaa... */
		for (size_t i = 0; i < n; i++)
			put_cp(&t, a);
		break;
	case 1: /* aaaa...汉: a run followed by a character */
		for (size_t i = 0; i < n; i++)
			put_cp(&t, a);
		put_cp(&t, han);
		break;
	case 2: /* 汉aaaa...汉。 */
		put_cp(&t, han);
		for (size_t i = 0; i < n; i++)
			put_cp(&t, a);
		put_cp(&t, han);
		put_cp(&t, 0x3002);
		break;
	case 3: /* 汉a汉a... */
		for (size_t i = 0; i < n / 2; i++)
			put_cp(&t, han), put_cp(&t, a);
		break;
	case 4: /* abab... */
		for (size_t i = 0; i < n / 2; i++)
			put_cp(&t, a), put_cp(&t, b);
		break;
	case 5: { /* the example again and again, on one line */
		if (!example || !*example)
			return NULL;
		size_t chars = 0;
		while (chars < n)
			for (const char *p = example; *p; p++) {
				if (*p == '\n' || *p == '\r')
					continue;
				ck_assert(jh_buf_putc(&t, *p) == JH_OK);
				chars += ((unsigned char)*p & 0xC0) != 0x80;
			}
		break;
	}
	default:
		return NULL;
	}
	ck_assert(jh_buf_terminate(&t) == JH_OK);
	return t.data;
}
#define N_SHAPES 6

static unsigned long long work_of(const jh_ruleset *rs, const unsigned char *enabled,
                                  work_count *w, const char *text, unsigned long long cap)
{
	w->work = 0;
	w->cap = cap;
	w->last_start = w->last_pos = (PCRE2_SIZE)-1;
	jh_check_options o = {0};
	o.enabled = enabled;
	o.diag_fn = quiet; /* the stopped matches' warnings */
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_int_eq(jh_check(rs, text, strlen(text), &o, &fs), JH_OK);
	jh_findings_clear(&fs);
	return w->work;
}

START_TEST(regex_rules_are_linear)
{
	jh_ruleset *rs;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	work_count w = {0};
	rs->regexes->compile_opts = PCRE2_AUTO_CALLOUT;
	rs->regexes->callout = count_callout;
	rs->regexes->callout_data = &w;
	ck_assert_int_eq(jh_ruleset_load_dir(rs, RULES_DIR, quiet, NULL), JH_OK);
	ck_assert_int_eq(jh_ruleset_compile(rs, quiet, NULL), JH_OK);
	const jh_regexes *rx = rs->regexes;
	ck_assert_uint_gt(rx->n, 10);

	/* Every code point's trigger bits, once: the characters of each rule. */
	int32_t *chars[64] = {NULL};
	size_t n_chars[64] = {0}, cap_chars[64] = {0};
	for (int32_t cp = 1; cp <= 0x10FFFF; cp++) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		for (uint64_t m = jh_trigger_mask(rx, cp); m; m &= m - 1) {
			int bit = __builtin_ctzll(m);
			ck_assert(!jh_grow((void **)&chars[bit], &cap_chars[bit], n_chars[bit] + 1,
			                   sizeof **chars));
			chars[bit][n_chars[bit]++] = cp;
		}
	}

	unsigned char *enabled = calloc(rs->count, 1);
	ck_assert_ptr_nonnull(enabled);
	jh_buf failures = {0};
	size_t runs = 0;
	for (size_t k = 0; k < rx->n; k++) {
		const jh_rule *r = rs->rules[rx->v[k].rule_index];
		const char *example = NULL;
		for (size_t e = 0; e < r->n_examples && !example; e++)
			if (r->examples[e].kind == JH_EXAMPLE_BAD)
				example = r->examples[e].text;
		/* a rule without a trigger: the characters of its example */
		int32_t own[MAX_CHARS];
		const int32_t *set = chars[rx->v[k].bit];
		size_t n_set = rx->v[k].triggered ? n_chars[rx->v[k].bit] : 0;
		if (!rx->v[k].triggered && example) {
			for (const char *p = example; *p && n_set < MAX_CHARS;) {
				p += jh_utf8_decode((const unsigned char *)p, strlen(p), &own[n_set]);
				if (own[n_set] > 0)
					n_set++;
			}
			set = own;
		}
		memset(enabled, 0, rs->count);
		enabled[rx->v[k].rule_index] = 1;
		size_t tries = n_set < MAX_CHARS ? n_set : MAX_CHARS;
		for (size_t c = 0; c < tries; c++) {
			int32_t a = set[c * n_set / tries];
			int32_t b = set[((c + 1) % tries) * n_set / tries];
			for (int shape = 0; shape < N_SHAPES; shape++) {
				if (shape == 5 && c > 0)
					break; /* the example does not depend on the character */
				char *s_short = make_text(shape, SHORT, a, b, example);
				if (!s_short)
					continue;
				char *s_long = make_text(shape, LONG, a, b, example);
				unsigned long long w1 = work_of(rs, enabled, &w, s_short, (unsigned long long)-1);
				unsigned long long cap = RATIO * w1 + SLACK;
				unsigned long long w2 = work_of(rs, enabled, &w, s_long, cap);
				runs++;
				if (getenv("JH_LINEAR_VERBOSE"))
					fprintf(stderr, "%s shape %d U+%04X: %llu %llu\n", r->id, shape, (unsigned)a, w1, w2);
				if (w2 > cap) {
					char line[200];
					snprintf(line, sizeof line, "\n  %s: shape %d, U+%04X/U+%04X: %llu at %d chars, over %llu at %d",
					         r->id, shape, (unsigned)a, (unsigned)b, w1, SHORT, cap, LONG);
					ck_assert(jh_buf_puts(&failures, line) == JH_OK);
				}
				free(s_short);
				free(s_long);
			}
		}
	}
	ck_assert(jh_buf_terminate(&failures) == JH_OK);
	ck_assert_msg(failures.len == 0, "regex rules whose work grows faster than the text "
	              "(callouts + characters crossed; at most %d x for 10 x the text):%s",
	              RATIO, failures.data);
	ck_assert_uint_gt(runs, rx->n);
	jh_buf_free(&failures);
	free(enabled);
	for (int b = 0; b < 64; b++)
		free(chars[b]);
	jh_ruleset_free(rs);
}
END_TEST

Suite *linear_suite(void)
{
	Suite *s = suite_create("linear");
	TCase *tc = test_tcase("default regex rules", 600);
	tcase_add_test(tc, regex_rules_are_linear);
	suite_add_tcase(s, tc);
	return s;
}
