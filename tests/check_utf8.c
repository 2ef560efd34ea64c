/* check_utf8.c — strict UTF-8 decoding (RFC 3629, Unicode table 3-7), the
 * maximal-subpart lengths the scanner steps by, display widths, and the
 * validator's vector paths (SSE2, AVX2) against the decoder. */
#include <stdlib.h>
#include <string.h>
#include "tests.h"
#include "utf8.h"

typedef struct {
	const char *bytes;
	size_t len;
	size_t n;    /* expected return of jh_utf8_decode */
	int32_t cp;  /* expected code point, -1 for invalid */
} decode_case;

static void run_cases(const decode_case *cases, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const decode_case *c = &cases[i];
		int32_t cp = -7;
		size_t n = jh_utf8_decode((const unsigned char *)c->bytes, c->len, &cp);
		ck_assert_msg(n == c->n && cp == c->cp, "case %zu: got n=%zu cp=%ld, expected n=%zu cp=%ld",
		              i, n, (long)cp, c->n, (long)c->cp);
	}
}

START_TEST(decode_valid)
{
	static const decode_case cases[] = {
		{"A", 1, 1, 'A'},
		{"\x00", 1, 1, 0},
		{"\x7F", 1, 1, 0x7F},
		{"\xC2\x80", 2, 2, 0x80},
		{"\xC3\xA9", 2, 2, 0xE9},
		{"\xDF\xBF", 2, 2, 0x7FF},
		{"\xE0\xA0\x80", 3, 3, 0x800},
		{"\xE4\xB8\xAD", 3, 3, 0x4E2D},         /* 中 */
		{"\xED\x9F\xBF", 3, 3, 0xD7FF},         /* last before the surrogates */
		{"\xEE\x80\x80", 3, 3, 0xE000},         /* first after them */
		{"\xEF\xBB\xBF", 3, 3, 0xFEFF},         /* BOM */
		{"\xEF\xBF\xBF", 3, 3, 0xFFFF},
		{"\xF0\x90\x80\x80", 4, 4, 0x10000},
		{"\xF0\xA0\xAE\xB7", 4, 4, 0x20BB7},    /* 𠮷 */
		{"\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF},
		/* Only the first character is decoded. */
		{"\xE4\xB8\xAD\xE6\x96\x87", 6, 3, 0x4E2D},
	};
	run_cases(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(decode_overlong)
{
	/* The lead byte alone is the maximal subpart: no well-formed sequence
	 * starts C0, C1, E0 80..9F or F0 80..8F. */
	static const decode_case cases[] = {
		{"\xC0\x80", 2, 1, -1},
		{"\xC0\xAF", 2, 1, -1},
		{"\xC1\xBF", 2, 1, -1},
		{"\xE0\x80\x80", 3, 1, -1},
		{"\xE0\x9F\xBF", 3, 1, -1},
		{"\xF0\x80\x80\x80", 4, 1, -1},
		{"\xF0\x8F\xBF\xBF", 4, 1, -1},
	};
	run_cases(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(decode_surrogates)
{
	static const decode_case cases[] = {
		{"\xED\xA0\x80", 3, 1, -1}, /* U+D800 */
		{"\xED\xAD\xBF", 3, 1, -1},
		{"\xED\xBF\xBF", 3, 1, -1}, /* U+DFFF */
	};
	run_cases(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(decode_above_max)
{
	static const decode_case cases[] = {
		{"\xF4\x90\x80\x80", 4, 1, -1}, /* U+110000 */
		{"\xF4\xBF\xBF\xBF", 4, 1, -1},
		{"\xF5\x80\x80\x80", 4, 1, -1},
		{"\xF7\xBF\xBF\xBF", 4, 1, -1},
		{"\xF8\x88\x80\x80\x80", 5, 1, -1},
		{"\xFC\x84\x80\x80\x80\x80", 6, 1, -1},
		{"\xFE", 1, 1, -1},
		{"\xFF", 1, 1, -1},
	};
	run_cases(cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(decode_truncated)
{
	static const decode_case cases[] = {
		/* Cut by the end of the buffer: the whole valid prefix is one subpart. */
		{"\xC3", 1, 1, -1},
		{"\xE4\xB8", 2, 2, -1},
		{"\xE0\xA0", 2, 2, -1},
		{"\xED\x9F", 2, 2, -1},
		{"\xF0\x9F", 2, 2, -1},
		{"\xF0\x9F\x98", 3, 3, -1},
		{"\xF4\x8F\xBF", 3, 3, -1},
		/* len stops the decoder before bytes that would complete it. */
		{"\xE4\xB8\xAD", 2, 2, -1},
		{"\xF0\xA0\xAE\xB7", 3, 3, -1},
		/* Cut by a byte that cannot continue it. */
		{"\xE4\xB8\x41", 3, 2, -1},
		{"\xE4\x41", 2, 1, -1},
		{"\xE4\xB8\xE4\xB8\xAD", 5, 2, -1},
		{"\xF0\x9F\x98\x41", 4, 3, -1},
		{"\xF0\x9F\xC0", 3, 2, -1},
		{"\xC3\xC3\xA9", 3, 1, -1},
		/* Continuation bytes with no lead. */
		{"\x80", 1, 1, -1},
		{"\xBF\xBF", 2, 1, -1},
	};
	run_cases(cases, sizeof cases / sizeof *cases);
}
END_TEST

/* An independent statement of Unicode table 3-7 (well-formed byte
 * sequences), used to check the decoder on every short byte sequence. */
static const struct {
	unsigned char lo[4], hi[4];
	int n;
} wellformed[] = {
	{{0x00}, {0x7F}, 1},
	{{0xC2, 0x80}, {0xDF, 0xBF}, 2},
	{{0xE0, 0xA0, 0x80}, {0xE0, 0xBF, 0xBF}, 3},
	{{0xE1, 0x80, 0x80}, {0xEC, 0xBF, 0xBF}, 3},
	{{0xED, 0x80, 0x80}, {0xED, 0x9F, 0xBF}, 3},
	{{0xEE, 0x80, 0x80}, {0xEF, 0xBF, 0xBF}, 3},
	{{0xF0, 0x90, 0x80, 0x80}, {0xF0, 0xBF, 0xBF, 0xBF}, 4},
	{{0xF1, 0x80, 0x80, 0x80}, {0xF3, 0xBF, 0xBF, 0xBF}, 4},
	{{0xF4, 0x80, 0x80, 0x80}, {0xF4, 0x8F, 0xBF, 0xBF}, 4},
};

/* Expected result for s[0..len): the length of a well-formed sequence, or,
 * as a negative number, the longest prefix of one (at least 1). */
static int reference(const unsigned char *s, size_t len)
{
	int best = 1;
	for (size_t r = 0; r < sizeof wellformed / sizeof *wellformed; r++) {
		int k = 0;
		while (k < wellformed[r].n && (size_t)k < len && s[k] >= wellformed[r].lo[k] &&
		       s[k] <= wellformed[r].hi[k])
			k++;
		if (k == wellformed[r].n)
			return k;
		if (k > best)
			best = k;
	}
	return -best;
}

static void compare(const unsigned char *s, size_t len)
{
	int32_t cp;
	size_t n = jh_utf8_decode(s, len, &cp);
	int want = reference(s, len);
	int got = cp < 0 ? -(int)n : (int)n;
	/* ck_assert costs a message to the parent each time: test first. */
	if (got != want)
		ck_abort_msg("bytes %02X %02X %02X %02X (len %zu): got %d, expected %d", s[0],
		             len > 1 ? s[1] : 0, len > 2 ? s[2] : 0, len > 3 ? s[3] : 0, len, got, want);
}

START_TEST(decode_exhaustive)
{
	/* Every 1-, 2- and 3-byte sequence; 4-byte ones with the interesting
	 * last bytes (just below, at and above the continuation range). */
	static const unsigned char last[] = {0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
	unsigned char s[4];
	for (unsigned a = 0; a < 256; a++) {
		s[0] = (unsigned char)a;
		compare(s, 1);
		for (unsigned b = 0; b < 256; b++) {
			s[1] = (unsigned char)b;
			compare(s, 2);
			if (a < 0xC2)
				continue; /* cannot start a longer sequence; covered above */
			for (unsigned c = 0; c < 256; c++) {
				s[2] = (unsigned char)c;
				compare(s, 3);
				if (a < 0xF0)
					continue;
				for (size_t k = 0; k < sizeof last; k++) {
					s[3] = last[k];
					compare(s, 4);
				}
			}
		}
	}
}
END_TEST

START_TEST(encode_roundtrip)
{
	/* Every scalar value survives encode + decode with its natural length. */
	char buf[4];
	for (int32_t cp = 0; cp <= 0x10FFFF; cp++) {
		if (cp == 0xD800)
			cp = 0xE000;
		size_t n = jh_utf8_encode(cp, buf);
		size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		int32_t back;
		if (n != want)
			ck_abort_msg("U+%04lX encoded in %zu bytes", (long)cp, n);
		if (jh_utf8_decode((const unsigned char *)buf, n, &back) != n || back != cp)
			ck_abort_msg("U+%04lX does not decode back", (long)cp);
	}
}
END_TEST

START_TEST(valid_prefix)
{
	ck_assert_uint_eq(jh_utf8_valid_prefix("", 0), 0);
	ck_assert_uint_eq(jh_utf8_valid_prefix("abc", 3), 3);
	ck_assert_uint_eq(jh_utf8_valid_prefix("a\0b", 3), 3);
	ck_assert_uint_eq(jh_utf8_valid_prefix("中文", 6), 6);
	ck_assert_uint_eq(jh_utf8_valid_prefix("中文\xFF", 7), 6);
	ck_assert_uint_eq(jh_utf8_valid_prefix("ab\xE4\xB8", 4), 2);
	ck_assert_uint_eq(jh_utf8_valid_prefix("\xC0\x80", 2), 0);
	ck_assert_uint_eq(jh_utf8_valid_prefix("a\xED\xA0\x80z", 5), 1);
	ck_assert_uint_eq(jh_utf8_valid_prefix("\xF0\xA0\xAE\xB7x", 5), 5);
	/* len, not the NUL, ends the text: a character cut by len is invalid. */
	ck_assert_uint_eq(jh_utf8_valid_prefix("中文", 5), 3);
}
END_TEST

/* The valid prefix by the decoder alone, one character at a time: what
 * every implementation of jh_utf8_valid_prefix must say. */
static size_t decoder_prefix(const unsigned char *t, size_t len)
{
	size_t i = 0;
	while (i < len) {
		int32_t cp;
		size_t n = jh_utf8_decode(t + i, len - i, &cp);
		if (cp < 0)
			break;
		i += n;
	}
	return i;
}

/* Every implementation on a copy of exactly len bytes (the sanitizer
 * build sees a read past the end) gives the decoder's answer. */
static void same_prefix(const unsigned char *t, size_t len, const char *what, size_t at)
{
	unsigned char *c = malloc(len ? len : 1);
	ck_assert(c);
	memcpy(c, t, len);
	size_t want = decoder_prefix(c, len);
	for (int impl = 0; impl <= 2; impl++) {
		size_t got = jh_utf8_valid_prefix_with(impl, (const char *)c, len);
		if (got != want)
			ck_abort_msg("%s at %zu, length %zu: implementation %d says %zu, the decoder %zu", what,
			             at, len, impl, got, want);
	}
	ck_assert_uint_eq(jh_utf8_valid_prefix((const char *)c, len), want);
	free(c);
}

/* Texts of each kind of character, with one defect written over them at
 * every offset (across the 16- and 32-byte blocks and the three bytes a
 * block reads before it), and cut at every length. */
START_TEST(valid_prefix_defect_at_every_byte)
{
	static const char *const kinds[] = {
		"中文的文字，是這樣寫的。", "plain ASCII text, and more of it\n", "é ü ß ж ω",
		"𠮷野家🙂", "a中é𠮷\n\t中文", "\xE0\xA4\x85\xED\x9F\xBF\xEF\xBF\xBF\xF4\x8F\xBF\xBF\xC2\x80"};
	static const char *const defects[] = {
		"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xC2", "\xC2\x41", "\xDF\xC0",
		"\xE0\x80\x80", "\xE0\x9F\xBF", "\xE4\xB8", "\xE4", "\xE4\x41", "\xED\xA0\x80",
		"\xED\xBF\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF", "\xF0\x9F\x99",
		"\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF8\x88\x80\x80\x80", "\xFE", "\xFF",
		"\xE4\xB8\xAD\xAD", "\xF0\x9F\x99\x82\x82"};
	enum { LEN = 150 };
	unsigned char base[LEN], t[LEN];
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		size_t kl = strlen(kinds[k]), n = 0;
		while (n + kl <= LEN) { /* whole copies: the base is valid */
			memcpy(base + n, kinds[k], kl);
			n += kl;
		}
		ck_assert_uint_eq(decoder_prefix(base, n), n);
		for (size_t at = 0; at <= n; at++) {
			same_prefix(base, at, "cut", at);
			for (size_t d = 0; d < sizeof defects / sizeof *defects; d++) {
				size_t dl = strlen(defects[d]);
				if (at + dl > n)
					continue;
				memcpy(t, base, n);
				memcpy(t + at, defects[d], dl);
				same_prefix(t, n, defects[d], at);
				same_prefix(t, at + dl, defects[d], at); /* the defect last */
			}
		}
	}
}
END_TEST

/* Every lead byte C0-FF followed by bytes from each range a second,
 * third or fourth byte can fall in, at the offsets around a block's
 * start and end. */
START_TEST(valid_prefix_sequences_at_block_edges)
{
	static const unsigned char next[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
	                                     0xBF, 0xC0, 0xC2, 0xE0, 0xE4, 0xF0, 0xF4, 0xFF};
	static const unsigned char last[] = {0x41, 0x80, 0xBF, 0xC0};
	static const size_t offsets[] = {0, 14, 15, 16, 29, 30, 31, 61};
	enum { N = 16, LEN = 64 };
	unsigned char t[LEN];
	for (unsigned lead = 0xC0; lead <= 0xFF; lead++)
		for (size_t a = 0; a < N; a++)
			for (size_t b = 0; b < N; b++)
				for (size_t c = 0; c < sizeof last; c++)
					for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++) {
						size_t at = offsets[o];
						memset(t, 'x', sizeof t);
						const unsigned char seq[] = {(unsigned char)lead, next[a], next[b], last[c]};
						size_t sl = at + 4 <= LEN ? 4 : LEN - at;
						memcpy(t + at, seq, sl);
						/* exactly LEN, and cut just after the sequence */
						for (int cut = 0; cut < 2; cut++) {
							size_t len = cut ? at + sl : LEN;
							size_t want = decoder_prefix(t, len);
							for (int impl = 0; impl <= 2; impl++)
								if (jh_utf8_valid_prefix_with(impl, (const char *)t, len) != want)
									ck_abort_msg("%02X %02X %02X %02X at %zu, length %zu: "
									             "implementation %d", lead, next[a], next[b],
									             last[c], at, len, impl);
						}
					}
}
END_TEST

START_TEST(valid_prefix_random)
{
	/* mostly valid text of every kind, now and then a defect */
	static const char *const pieces[] = {"中", "文", "。", "a", "\n", " ", "é", "ж", "𠮷", "🙂",
	                                     "\xEF\xBF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF",
	                                     "\xF4\x8F\xBF\xBF", "\x80", "\xE4\xB8", "\xF0\x9F",
	                                     "\xED\xA0\x80", "\xC0\xAF", "\xFF"};
	enum { VALID = 14 };
	unsigned seed = 4242;
	unsigned char *t = malloc(4096);
	ck_assert(t);
	for (int round = 0; round < 3000; round++) {
		size_t len = 0, want = (size_t)(round * 131 % 4000);
		unsigned defect_every = 1u + (unsigned)(round % 5) * 200u; /* from dense to rare */
		while (len + 4 <= want) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = (seed >> 8) & 0xFFFFF;
			const char *p = r % defect_every == 0 ? pieces[VALID + r / defect_every % 6]
			                                      : pieces[r / 7 % VALID];
			size_t pl = strlen(p);
			memcpy(t + len, p, pl);
			len += pl;
		}
		same_prefix(t, len, "random", (size_t)round);
	}
	free(t);
}
END_TEST

/* The lead-byte counts: the SSE2 sums (byte lanes added up before they
 * wrap) agree with a count of each byte. */
START_TEST(lead_counts)
{
	unsigned seed = 99;
	enum { MAX = 70000 }; /* more than 255 vectors of 16: the lanes are summed */
	unsigned char *t = malloc(MAX);
	ck_assert(t);
	for (int round = 0; round < 40; round++) {
		size_t len = round < 20 ? (size_t)round * 3 : (size_t)(round * 7919) % MAX;
		size_t n = 0, l = 0;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			t[i] = round % 2 ? (unsigned char)(0xC0 + (seed >> 16) % 64) : (unsigned char)(seed >> 16);
			n += t[i] >= 0xC0;
			l += t[i] >= 0xE0;
		}
		for (int impl = 0; impl <= 2; impl++) {
			size_t got_l = 0, got = jh_utf8_leads_with(impl, (const char *)t, len, &got_l);
			ck_assert_msg(got == n && got_l == l, "length %zu, implementation %d: %zu %zu, not %zu %zu",
			              len, impl, got, got_l, n, l);
		}
	}
	free(t);
}
END_TEST

START_TEST(display_width)
{
	ck_assert_uint_eq(jh_display_width("", 0), 0);
	ck_assert_uint_eq(jh_display_width("abc", 3), 3);
	ck_assert_uint_eq(jh_display_width("中文", 6), 4);
	ck_assert_uint_eq(jh_display_width("中a文b", 8), 6);
	ck_assert_uint_eq(jh_display_width("，。", 6), 4);           /* full-width punctuation */
	ck_assert_uint_eq(jh_display_width("ＡＢ", 6), 4);           /* full-width letters */
	ck_assert_uint_eq(jh_display_width("\xE3\x80\x80", 3), 2);   /* U+3000 ideographic space */
	ck_assert_uint_eq(jh_display_width("\xF0\xA0\xAE\xB7", 4), 2); /* 𠮷, plane 2 */
	ck_assert_uint_eq(jh_display_width("e\xCC\x81", 3), 1);      /* combining accent: 0 */
	ck_assert_uint_eq(jh_display_width("\t", 1), 1);
	ck_assert_uint_eq(jh_display_width("\xFF", 1), 1);
	ck_assert_uint_eq(jh_display_width("a\xE4\xB8", 3), 2);      /* one invalid subpart = 1 */
}
END_TEST

START_TEST(count_chars)
{
	ck_assert_uint_eq(jh_utf8_count("", 0), 0);
	ck_assert_uint_eq(jh_utf8_count("中文ab", 8), 4);
	/* 中, a, FF, then the cut E4 B8 as one subpart. */
	ck_assert_uint_eq(jh_utf8_count("中a\xFF\xE4\xB8", 7), 4);
}
END_TEST

/* A name for people: control bytes (C0, DEL, C1 as U+0080-U+009F) and
 * bytes that are not UTF-8 as \xHH, characters as they are (U+00A0 is
 * one); cut like snprintf when out is short, the whole length returned. */
/* Invalid UTF-8 as every front end shows it: one U+FFFD for each maximal
 * invalid subpart (a cut character is one, a stray byte one, each byte of
 * an overlong or a surrogate one, as Unicode and Python's "replace" do);
 * the output cut as snprintf cuts, with the whole length returned. */
START_TEST(utf8_clean)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{"第一章 ok", 12, "第一章 ok"},
		{"a\xE4\xB8z", 4, "a\xEF\xBF\xBDz"},             /* a cut 丸: one */
		{"\xFF\xFE", 2, "\xEF\xBF\xBD\xEF\xBF\xBD"},      /* two stray bytes */
		{"\xC0\x80", 2, "\xEF\xBF\xBD\xEF\xBF\xBD"},      /* an overlong NUL */
		{"\xED\xA0\x80!", 4, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!"}, /* a surrogate */
		{"\xF0\x9F\x98", 3, "\xEF\xBF\xBD"},             /* a cut emoji at the end */
		{"a\0b", 3, "a\0b"},                              /* NUL is valid */
	};
	char out[64];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t want = strlen(cases[i].want) + (i == 6 ? 2 : 0);
		ck_assert_uint_eq(jh_utf8_clean(cases[i].in, cases[i].len, out, sizeof out), want);
		ck_assert_msg(memcmp(out, cases[i].want, want) == 0 && out[want] == '\0', "case %zu", i);
		ck_assert_uint_eq(jh_utf8_clean(cases[i].in, cases[i].len, NULL, 0), want);
	}
	/* cut short: size - 1 bytes and the NUL, the whole length returned */
	ck_assert_uint_eq(jh_utf8_clean("ab\xFF" "cd", 5, out, 4), 7);
	ck_assert_str_eq(out, "ab\xEF");
	/* as wide as jh_display_width counts it */
	ck_assert_uint_eq(jh_display_width("\xE4\xB8", 2), 1);
}
END_TEST

START_TEST(name_escape)
{
	char out[64];
	ck_assert_uint_eq(jh_name_escape("第一章.txt", out, sizeof out), strlen("第一章.txt"));
	ck_assert_str_eq(out, "第一章.txt");
	const char *bad = "a\x1b[1m\xc2\x9b\xc2\xa0\x7f\r\n\xff\xe4\xb8.txt";
	const char *want = "a\\x1B[1m\\xC2\\x9B\xc2\xa0\\x7F\\x0D\\x0A\\xFF\\xE4\\xB8.txt";
	ck_assert_uint_eq(jh_name_escape(bad, out, sizeof out), strlen(want));
	ck_assert_str_eq(out, want);
	ck_assert_uint_eq(jh_name_escape(bad, out, 6), strlen(want));
	ck_assert_str_eq(out, "a\\x1B");
	ck_assert_uint_eq(jh_name_escape("\x01", NULL, 0), 4);
	ck_assert_uint_le(jh_name_escape("\xff\xff", out, sizeof out), 4 * 2);
}
END_TEST

Suite *utf8_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = test_tcase("decode", 30);
	tcase_add_test(tc, decode_valid);
	tcase_add_test(tc, decode_overlong);
	tcase_add_test(tc, decode_surrogates);
	tcase_add_test(tc, decode_above_max);
	tcase_add_test(tc, decode_truncated);
	tcase_add_test(tc, decode_exhaustive);
	tcase_add_test(tc, encode_roundtrip);
	suite_add_tcase(s, tc);
	tc = test_tcase("text", 4);
	tcase_add_test(tc, valid_prefix);
	tcase_add_test(tc, display_width);
	tcase_add_test(tc, count_chars);
	tcase_add_test(tc, utf8_clean);
	tcase_add_test(tc, name_escape);
	suite_add_tcase(s, tc);
	tc = test_tcase("validate", 60);
	tcase_add_test(tc, valid_prefix_defect_at_every_byte);
	tcase_add_test(tc, valid_prefix_sequences_at_block_edges);
	tcase_add_test(tc, valid_prefix_random);
	tcase_add_test(tc, lead_counts);
	suite_add_tcase(s, tc);
	return s;
}
