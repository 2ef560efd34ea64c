/* utf8.h — strict UTF-8 decoding (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF).  Hand-written because the scanner decodes every
 * byte of the text once and needs the error length inline; utf8proc's
 * iterate() does the same job but reports no maximal-subpart length. */
#ifndef JH_UTF8_H
#define JH_UTF8_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Decode the code point at s[0..len).  Returns its length in bytes (1-4) and
 * stores it in *cp, or, for an invalid sequence, stores -1 and returns the
 * length of the maximal invalid subpart (>= 1) so the caller can step over
 * it and report it once. */
static inline size_t jh_utf8_decode(const unsigned char *s, size_t len, int32_t *cp)
{
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t n;
	int32_t v;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*cp = -1;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if (i >= len || s[i] < lo || s[i] > hi) {
			*cp = -1;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = v;
	return n;
}

/* Start of the character before pos (pos > 0): steps back over
 * continuation bytes. */
static inline size_t jh_utf8_prev(const char *s, size_t pos)
{
	do
		pos--;
	while (pos > 0 && ((unsigned char)s[pos] & 0xC0) == 0x80);
	return pos;
}

/* Start of the character that ends at end (end > 0), for texts that may
 * be invalid: a character has at most 4 bytes, so a run of stray
 * continuation bytes is one character per byte, never one long character
 * (that overflowed the context buffers of mask suggestions). */
static inline size_t jh_utf8_start_back(const char *s, size_t end)
{
	size_t p = end;
	do
		p--;
	while (p > 0 && end - p < 4 && ((unsigned char)s[p] & 0xC0) == 0x80);
	return ((unsigned char)s[p] & 0xC0) == 0x80 ? end - 1 : p;
}

/* Encode cp (valid scalar value) into out (4 bytes); returns the length. */
size_t jh_utf8_encode(int32_t cp, char *out);

/* Number of code points in s[0..len) (invalid subparts count one each). */
size_t jh_utf8_count(const char *s, size_t len);

/* jh_utf8_valid_prefix (jinghua.h; utf8_valid.c) by one implementation: 0
 * portable C, 1 SSE2, 2 AVX2 (the test compares them; one the build or CPU
 * lacks falls back to the next). */
size_t jh_utf8_valid_prefix_with(int impl, const char *s, size_t len);

/* The bytes C0 and up in s[0..len), and in *longer those E0 and up: in
 * valid UTF-8, its characters of two bytes or more, and of three or more. */
size_t jh_utf8_leads(const char *s, size_t len, size_t *longer);
size_t jh_utf8_leads_with(int impl, const char *s, size_t len, size_t *longer);

/* The first byte of [p, e) that is not ASCII, or e: sixteen bytes at a
 * time where SSE2 is (x86-64's baseline).  ASCII is decoded a byte at a
 * time, so skipping it lands where decoding would. */
static inline size_t jh_ascii_end(const unsigned char *t, size_t p, size_t e)
{
#ifdef __SSE2__
	for (; p < e && e - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(t + p)));
		if (m)
			return p + (size_t)__builtin_ctz(m);
	}
#endif
	while (p < e && t[p] < 0x80)
		p++;
	return p;
}

#endif
