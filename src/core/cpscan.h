/* cpscan.h — the characters of a set of code points in UTF-8 text, eight
 * at a time where the text is made of three-byte characters (Han, kana,
 * CJK punctuation): for the passes after the scan that look for a few
 * code points in many lines (Japanese forms, the script checks'
 * suspects), where one table lookup a character was most of their cost. */
#ifndef JH_CPSCAN_H
#define JH_CPSCAN_H

#include <stddef.h>
#include <stdint.h>

/* A set of code points of the BMP above U+07FF (three-byte characters):
 * bit (cp - lo) of bits, for lo <= cp < lo + span, span a multiple of 32. */
typedef struct {
	const uint32_t *bits;
	int32_t lo;
	uint32_t span;
} jh_cpset;

static inline int jh_cpset_has(const jh_cpset *s, int32_t cp)
{
	uint32_t k = (uint32_t)(cp - s->lo);
	return cp >= s->lo && k < s->span && ((s->bits[k >> 5] >> (k & 31)) & 1);
}

/* The first q in [p, e) where a three-byte character of the set starts,
 * its lead byte E0-EF and two continuation bytes all before e; else e.
 * The bytes around are stepped over, not decoded: a lead byte is never
 * inside another character, valid or not, so these are the characters
 * a decoding meets, wherever it starts. */
size_t jh_cpset_find3(const unsigned char *t, size_t p, size_t e, const jh_cpset *set);

/* The same by one implementation: 0 portable C, 2 AVX2 (the test
 * compares them). */
size_t jh_cpset_find3_with(int impl, const unsigned char *t, size_t p, size_t e,
                           const jh_cpset *set);

#endif
