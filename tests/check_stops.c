/* check_stops.c — the stop finder: its SSE2 and AVX2 paths find the same
 * runs of plain characters as the portable C one, on random text and on
 * runs of Han characters with one defect at every byte (invalid UTF-8 at
 * each block boundary), and what it calls plain decodes as valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "charclass.h"
#include "cpscan.h"
#include "interest.h"
#include "stops.h"
#include "tests.h"
#include "utf8.h"

/* The stop list of impl: each run [start, end) it reports, then one
 * character decoded strictly, from the end on; returns the number of
 * entries written to out (pairs). */
static size_t stop_list(int impl, const unsigned char *t, size_t len, size_t *out, size_t cap)
{
	size_t n = 0, p = 0;
	while (p < len && n + 2 <= cap) {
		size_t e = impl < 0 ? jh_plain_end(t, p, len) : jh_plain_end_with(impl, t, p, len);
		out[n++] = p;
		out[n++] = e;
		if (e > p) {
			p = e;
		} else {
			int32_t cp;
			p += jh_utf8_decode(t + p, len - p, &cp);
		}
	}
	return n;
}

static void same_stops_exact(const unsigned char *t, size_t len, const char *what);

/* On a copy of exactly len bytes, so the sanitizer build sees any read
 * past the text's end (a byte at len that the caller's buffer happens to hold). */
static void same_stops(const unsigned char *t, size_t len, const char *what)
{
	unsigned char *c = malloc(len ? len : 1);
	ck_assert(c);
	memcpy(c, t, len);
	same_stops_exact(c, len, what);
	free(c);
}

static void same_stops_exact(const unsigned char *t, size_t len, const char *what)
{
	size_t cap = 2 * len + 4;
	size_t *ref = malloc(cap * sizeof *ref), *got = malloc(cap * sizeof *got);
	ck_assert(ref && got);
	size_t nr = stop_list(0, t, len, ref, cap);
	/* what the portable path calls plain is valid UTF-8, three bytes a character */
	for (size_t k = 0; k < nr; k += 2)
		for (size_t p = ref[k]; p < ref[k + 1]; p += 3) {
			int32_t cp;
			ck_assert_msg(jh_utf8_decode(t + p, len - p, &cp) == 3 && cp >= 0x1000,
			              "%s: byte %zu is not a plain character", what, p);
		}
	for (int impl = -1; impl <= 2; impl++) {
		size_t ng = stop_list(impl, t, len, got, cap);
		ck_assert_msg(ng == nr && memcmp(ref, got, nr * sizeof *ref) == 0,
		              "%s: implementation %d finds other stops than the portable one", what, impl);
	}
	free(ref);
	free(got);
}

START_TEST(stops_defect_at_every_byte)
{
	/* 400 Han characters (1,200 bytes: several AVX2 blocks), then one
	 * defect at byte k, for every k, and the text cut at every k */
	enum { N = 400 };
	unsigned char base[3 * N], t[3 * N];
	for (int i = 0; i < N; i++) {
		int32_t cp = 0x4E00 + (i * 37) % 0x5200;
		base[3 * i] = (unsigned char)(0xE0 | cp >> 12);
		base[3 * i + 1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		base[3 * i + 2] = (unsigned char)(0x80 | (cp & 0x3F));
	}
	static const unsigned char defects[] = {'a', '\n', 0x80, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF};
	for (size_t k = 0; k < sizeof base; k++) {
		for (size_t d = 0; d < sizeof defects; d++) {
			memcpy(t, base, sizeof t);
			t[k] = defects[d];
			same_stops(t, sizeof t, "defect");
		}
		same_stops(base, k, "cut");
	}
}
END_TEST

START_TEST(stops_random)
{
	/* Bytes from a few kinds of piece: plain characters, ASCII, two- and
	 * four-byte sequences, surrogates, overlongs, stray continuations */
	static const char *const pieces[] = {"中", "文", "。", "，", "　", "\xEF\xBC\x81", "a", "\n",
	                                     "é", "𠮷", "\xED\xA0\x80", "\xE0\x80\xAF", "\x80",
	                                     "\xE4\xB8", "\xF0\x9F", "\xE0\xA4\x85", "\xED\x9F\xBF"};
	unsigned seed = 12345;
	unsigned char *t = malloc(20000);
	ck_assert(t);
	for (int round = 0; round < 200; round++) {
		size_t len = 0, want = (size_t)(round * 97 % 19000) + 1;
		int han_bias = round % 4; /* from mostly-defects to mostly-Han texts */
		while (len + 4 < want) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = (seed >> 16) & 0x7FFF;
			const char *p = r % 8 < (unsigned)(4 + han_bias) ? pieces[r % 2]
			                                                 : pieces[r % (sizeof pieces / sizeof *pieces)];
			size_t pl = strlen(p);
			memcpy(t + len, p, pl);
			len += pl;
		}
		same_stops(t, len, "random");
	}
	free(t);
}
END_TEST

/* The interest table's "not Han" bit, which lets the scan skip a run of
 * Han characters without asking their class, says exactly what
 * jh_class_of() says of every three-byte code point. */
START_TEST(interest_not_han_is_class)
{
	jh_interest it;
	ck_assert_int_eq(jh_interest_build(&it, NULL, NULL, NULL), 0);
	for (int32_t cp = 0x800; cp < 0x10000; cp++) {
		int han = (jh_class_of(cp) & JH_C_HAN) != 0;
		int marked = (it.bits[cp] & JH_I_NOT_HAN) != 0;
		if (han == marked)
			ck_abort_msg("U+%04lX: class %s, interest bit %d", (long)cp, han ? "han" : "not han",
			             marked);
	}
	for (int32_t cp = 0; cp < 0x800; cp++)
		ck_assert(!(it.bits[cp] & JH_I_NOT_HAN)); /* not in runs: only three-byte ones are read */
	jh_interest_free(&it);
}
END_TEST

/* More Han checks than the interest table has lanes (JH_I_LANES): those
 * past the lanes must still see every Han character they want, however
 * far into a long line, and a check woken by a repeated character (的的)
 * must still be woken by repeats only, not by every Han character (it
 * took each character for the second of a pair: 我们我们 was “们我”
 * doubled). */
START_TEST(doubled_word_past_lanes)
{
	char ini[8192];
	size_t at = 0;
	int n_words = JH_I_LANES + 2;
	for (int k = 0; k < n_words; k++)
		at += (size_t)snprintf(ini + at, sizeof ini - at,
		                       "[typo.w%d]\nkind = builtin\ncheck = doubled-word\n"
		                       "words = typo-doubled-words.tsv\nmessage = m\n"
		                       "bad = 他说我们我们去吧。\ngood = 他说我们去吧。\n\n",
		                       k);
	snprintf(ini + at, sizeof ini - at,
	         "[typo.dd]\nkind = builtin\ncheck = doubled\nmessage = m\n"
	         "bad = 他的的书\ngood = 他的书\n");
	jh_ruleset *rs = NULL;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_string(rs, "lanes.rules", ini, JH_SRCDIR "/rules/data",
	                                test_diag_collect, &ds);
	if (rc == JH_OK)
		rc = jh_ruleset_compile(rs, test_diag_collect, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "%s", test_diags_text(&ds));
	test_diags_free(&ds);
	/* a long line of Han characters, none the same as the one before */
	static const char cycle[] = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏";
	size_t cl = strlen(cycle), reps = 400;
	char *text = malloc(cl * reps + 128);
	ck_assert_ptr_nonnull(text);
	size_t len = 0;
	for (size_t r = 0; r < reps; r++, len += cl)
		memcpy(text + len, cycle, cl);
	size_t dw = len;
	len += (size_t)sprintf(text + len, "我们我们去看");
	size_t dd = len + strlen("他");
	len += (size_t)sprintf(text + len, "他的的书。");
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, len, &fs);
	for (int k = 0; k < n_words; k++) {
		char id[32];
		snprintf(id, sizeof id, "typo.w%d", k);
		ck_assert_msg(test_count_rule(&fs, id) == 1, "%s: %zu findings", id,
		              test_count_rule(&fs, id));
	}
	ck_assert_uint_eq(test_count_rule(&fs, "typo.dd"), 1);
	for (size_t i = 0; i < fs.count; i++) {
		const jh_finding *f = &fs.items[i];
		int is_dd = strcmp(f->rule_id, "typo.dd") == 0;
		ck_assert_uint_eq(f->byte_start, is_dd ? dd : dw);
		ck_assert_uint_eq(f->byte_end, is_dd ? dd + 6 : dw + 12);
	}
	jh_findings_clear(&fs);
	free(text);
	jh_ruleset_free(rs);
}
END_TEST


/* The code point finder (jh_cpset_find3): eight characters at a time with
 * AVX2 finds what the portable loop finds, and that is the first whole
 * three-byte character of the set a strict decoding meets: on runs of
 * Han characters with a member, an ASCII byte, a stray or missing
 * continuation byte, or a two- or four-byte character at every offset,
 * and the text cut at every byte (exact allocations: no read past it). */
START_TEST(cpset_every_offset)
{
	enum { N = 120 };
	uint32_t bits[(0xA000 - 0x4E00) / 32] = {0};
	bits[(0x6C49 - 0x4E00) / 32] |= 1u << ((0x6C49 - 0x4E00) % 32); /* 汉 */
	bits[(0x5B57 - 0x4E00) / 32] |= 1u << ((0x5B57 - 0x4E00) % 32); /* 字 */
	jh_cpset set = {bits, 0x4E00, 0xA000 - 0x4E00};
	unsigned char base[3 * N];
	for (int i = 0; i < N; i++) { /* 中文 ..., no member */
		int32_t cp = 0x4E2D + (i % 40) * 3;
		base[3 * i] = (unsigned char)(0xE0 | (cp >> 12));
		base[3 * i + 1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		base[3 * i + 2] = (unsigned char)(0x80 | (cp & 0x3F));
	}
	static const char *const put[] = {"\xE6\xB1\x89", "\xE5\xAD\x97", "a", "\x80", "\xE6\xB1",
	                                  "\xC3\xA9", "\xF0\x9F\x98\x80", "\xE3\x80\x82",
	                                  "\xED\xA0\x80", "\xE0\x80\x80"};
	unsigned char t[3 * N + 8];
	for (size_t k = 0; k < 3 * N; k++)
		for (size_t d = 0; d < sizeof put / sizeof *put; d++) {
			size_t pl = strlen(put[d]), len = 3 * N;
			memcpy(t, base, k);
			memcpy(t + k, put[d], pl);
			memcpy(t + k + pl, base + k, 3 * N - k);
			len += pl;
			for (size_t cut = len; cut + 40 >= len && cut > 0; cut -= 7) {
				unsigned char *c = malloc(cut);
				ck_assert(c);
				memcpy(c, t, cut);
				/* the reference: decode strictly, in order */
				size_t ref = cut;
				for (size_t p = 0, n; p < cut; p += n) {
					int32_t cp;
					n = jh_utf8_decode(c + p, cut - p, &cp);
					if (n == 3 && jh_cpset_has(&set, cp)) {
						ref = p;
						break;
					}
				}
				for (int impl = 0; impl <= 2; impl += 2)
					ck_assert_msg(jh_cpset_find3_with(impl, c, 0, cut, &set) == ref,
					              "impl %d, put %zu at %zu, cut %zu", impl, d, k, cut);
				free(c);
			}
		}
}
END_TEST

Suite *stops_suite(void)
{
	Suite *s = suite_create("stops");
	TCase *tc = test_tcase("stops", 120);
	tcase_add_test(tc, stops_defect_at_every_byte);
	tcase_add_test(tc, stops_random);
	tcase_add_test(tc, interest_not_han_is_class);
	tcase_add_test(tc, doubled_word_past_lanes);
	tcase_add_test(tc, cpset_every_offset);
	suite_add_tcase(s, tc);
	return s;
}
