/* utf8_valid.c — strict UTF-8 validation of whole texts
 * (jh_utf8_valid_prefix): every document is validated once before it is
 * decoded, so this runs on every byte of every file.
 *
 * The vector paths only tell whether a block holds an error: AVX2 checks
 * 32 bytes with the three nibble lookups of Keiser and Lemire ("Validating
 * UTF-8 in less than one instruction per byte", 2021); SSE2, which has no
 * byte shuffle, checks 16 with range compares.  Each block is read with
 * the three bytes before it, so a character cut by a block boundary is
 * checked in the block where it ends.  At a block with an error, the
 * portable loop takes over at the last character boundary before it and
 * finds the exact position; the portable loop alone serves other CPUs. */
#include <stdint.h>
#include <string.h>
#include "jinghua.h"
#include "stops.h"
#include "utf8.h"

#if defined(__x86_64__) || defined(__i386__)
#define JH_X86 1
#include <immintrin.h>
#endif

/* The portable loop, from i (a character boundary) on. */
static size_t valid_prefix_c(const unsigned char *u, size_t i, size_t len)
{
	while (i < len) {
		/* Fast paths for the two common cases: runs of ASCII, eight bytes at
		 * a time, and the 3-byte sequences of CJK text (E1-EC, EE-EF lead
		 * bytes need no range check beyond 80-BF on both continuations). */
		if (u[i] < 0x80) {
			while (i + 8 <= len) {
				uint64_t w;
				memcpy(&w, u + i, 8);
				if (w & 0x8080808080808080ULL)
					break;
				i += 8;
			}
			while (i < len && u[i] < 0x80)
				i++;
			continue;
		}
		if (i + 3 <= len && u[i] >= 0xE1 && u[i] <= 0xEF && u[i] != 0xED &&
		    (u[i + 1] & 0xC0) == 0x80 && (u[i + 2] & 0xC0) == 0x80) {
			i += 3;
			continue;
		}
		int32_t cp;
		size_t n = jh_utf8_decode(u + i, len - i, &cp);
		if (cp < 0)
			return i;
		i += n;
	}
	return len;
}

#ifdef JH_X86
/* A vector path found an error in the block at i, or could not finish the
 * character that i cuts, having checked every byte before i: the portable
 * loop goes on from the start of that character (a lead byte among the
 * three before i that needs bytes from i on), else from i. */
static size_t finish_c(const unsigned char *u, size_t i, size_t len)
{
	size_t from = i;
	for (size_t k = 1; k <= 3 && k <= i; k++) {
		unsigned b = u[i - k];
		if ((b & 0xC0) != 0x80) {
			if (b >= (k == 1 ? 0xC0u : k == 2 ? 0xE0u : 0xF0u))
				from = i - k;
			break;
		}
	}
	return valid_prefix_c(u, from, len);
}

/* Does a character start in the three bytes before p that needs bytes
 * from p on?  (The only error an ASCII block can show, and the one the
 * end of the text can.) */
static inline int cut_before(const unsigned char *p)
{
	return p[-1] >= 0xC0 || p[-2] >= 0xE0 || p[-3] >= 0xF0;
}

/* Each vector path reads its blocks with the three bytes before them:
 * from the text itself past its first block; the first block from
 * itself shifted, zeros (ASCII) before it; a text shorter than a block
 * and those three bytes from a copy, zeros after it.  A last block that
 * does not fill up is read overlapping the one before. */
#define STAGE 3

/* ---- SSE2: range compares on 16 bytes ---- */

/* The error bytes (nonzero) of the 16 bytes b, whose bytes 1, 2 and 3
 * before are p1, p2, p3. */
__attribute__((target("sse2"))) static inline __m128i errors_sse2(__m128i b, __m128i p1, __m128i p2,
                                                                   __m128i p3)
{
	/* a continuation byte where, and only where, a lead byte 1, 2 or 3
	 * bytes before wants one: nonzero where C0+, E0+, F0+ (saturating) */
	__m128i want = _mm_or_si128(_mm_subs_epu8(p1, _mm_set1_epi8((char)0xBF)),
	                            _mm_or_si128(_mm_subs_epu8(p2, _mm_set1_epi8((char)0xDF)),
	                                         _mm_subs_epu8(p3, _mm_set1_epi8((char)0xEF))));
	__m128i cont = _mm_cmplt_epi8(b, _mm_set1_epi8((char)0xC0)); /* signed: 80-BF only */
	__m128i err = _mm_cmpeq_epi8(_mm_cmpeq_epi8(want, _mm_setzero_si128()), cont);
	/* bytes no character has: C0, C1 (overlong leads) and F5-FF */
	err = _mm_or_si128(err, _mm_cmpeq_epi8(_mm_and_si128(b, _mm_set1_epi8((char)0xFE)),
	                                       _mm_set1_epi8((char)0xC0)));
	err = _mm_or_si128(err, _mm_subs_epu8(b, _mm_set1_epi8((char)0xF4)));
	/* the second bytes that leads E0, ED, F0, F4 forbid (overlongs,
	 * surrogates, above U+10FFFF); signed compares order 80-BF as well */
	err = _mm_or_si128(err, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xE0)),
	                                      _mm_cmplt_epi8(b, _mm_set1_epi8((char)0xA0))));
	err = _mm_or_si128(err, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xED)),
	                                      _mm_cmpgt_epi8(b, _mm_set1_epi8((char)0x9F))));
	err = _mm_or_si128(err, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xF0)),
	                                      _mm_cmplt_epi8(b, _mm_set1_epi8((char)0x90))));
	return _mm_or_si128(err, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xF4)),
	                                       _mm_cmpgt_epi8(b, _mm_set1_epi8((char)0x8F))));
}

__attribute__((target("sse2"))) static inline int any_sse2(__m128i err)
{
	return _mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) != 0xFFFF;
}

/* Is there an error in the 16 bytes at p (p[-3..-1] readable)? */
__attribute__((target("sse2"))) static inline int block_sse2(const unsigned char *p)
{
	__m128i b = _mm_loadu_si128((const __m128i *)p);
	if (!_mm_movemask_epi8(b))
		return cut_before(p);
	return any_sse2(errors_sse2(b, _mm_loadu_si128((const __m128i *)(p - 1)),
	                            _mm_loadu_si128((const __m128i *)(p - 2)),
	                            _mm_loadu_si128((const __m128i *)(p - 3))));
}

/* The same for the first 16 bytes of a text. */
__attribute__((target("sse2"))) static inline int first_sse2(const unsigned char *p)
{
	__m128i b = _mm_loadu_si128((const __m128i *)p);
	return any_sse2(errors_sse2(b, _mm_slli_si128(b, 1), _mm_slli_si128(b, 2), _mm_slli_si128(b, 3)));
}

__attribute__((target("sse2"))) static size_t valid_prefix_sse2(const unsigned char *u, size_t len)
{
	if (len < 16 + STAGE) {
		unsigned char buf[STAGE + 32] = {0};
		memcpy(buf + STAGE, u, len);
		return block_sse2(buf + STAGE) || block_sse2(buf + STAGE + 16) ? finish_c(u, 0, len) : len;
	}
	if (first_sse2(u))
		return finish_c(u, 0, len);
	size_t i = 16;
	for (; i + 16 <= len; i += 16)
		if (block_sse2(u + i))
			return finish_c(u, i, len);
	if (i < len && block_sse2(u + len - 16))
		return finish_c(u, len - 16, len);
	return cut_before(u + len) ? finish_c(u, len, len) : len;
}

/* ---- AVX2: Keiser and Lemire's lookups on 32 bytes ---- */

/* The error bits of the lookups: each is set by the high nibble of the
 * byte before, by its low nibble and by the high nibble of the byte
 * itself when that pair of bytes has the error. */
enum {
	TOO_SHORT = 1 << 0,  /* a lead byte not followed by a continuation */
	TOO_LONG = 1 << 1,   /* ASCII followed by a continuation */
	OVERLONG_3 = 1 << 2, /* E0 80-9F */
	TOO_LARGE = 1 << 3,  /* F4 90-BF, F5-FF 90-BF */
	SURROGATE = 1 << 4,  /* ED A0-BF */
	OVERLONG_2 = 1 << 5, /* C0-C1 80-BF */
	OVERLONG_4 = 1 << 6, /* F0 80-8F; TOO_LARGE_1000: F5-FF 80-8F */
	TOO_LARGE_1000 = 1 << 6,
	TWO_CONTS = 1 << 7, /* a continuation after a continuation: allowed only
	                     * where a lead 2 or 3 bytes before wants it */
	CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

/* Indexed by the high nibble of the byte before, its low nibble, and the
 * high nibble of the byte itself. */
static const unsigned char before_high[16] = {
	TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
	TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
	TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
	TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4};
static const unsigned char before_low[16] = {
	CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
	CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000,
	CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
	CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
	CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
	CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
	CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000};
static const unsigned char own_high[16] = {
	TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
	TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
	TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
	TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
	TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
	TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT};

/* A table of 16 in both lanes, for the shuffle that looks it up. */
__attribute__((target("avx2"))) static inline __m256i table_avx2(const unsigned char *t)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

/* The error bytes (nonzero) of the 32 bytes b, whose bytes 1, 2 and 3
 * before are p1, p2, p3. */
__attribute__((target("avx2"))) static inline __m256i errors_avx2(__m256i b, __m256i p1, __m256i p2,
                                                                   __m256i p3)
{
	const __m256i nib = _mm256_set1_epi8(0x0F);
	__m256i sc = _mm256_and_si256(
		_mm256_and_si256(
			_mm256_shuffle_epi8(table_avx2(before_high),
			                    _mm256_and_si256(_mm256_srli_epi16(p1, 4), nib)),
			_mm256_shuffle_epi8(table_avx2(before_low), _mm256_and_si256(p1, nib))),
		_mm256_shuffle_epi8(table_avx2(own_high), _mm256_and_si256(_mm256_srli_epi16(b, 4), nib)));
	/* a second or third continuation is wanted where the byte 2 before is
	 * E0+ or the byte 3 before F0+: bit 7 of the saturating differences */
	__m256i want23 = _mm256_and_si256(
		_mm256_or_si256(_mm256_subs_epu8(p2, _mm256_set1_epi8((char)(0xE0 - 0x80))),
		                _mm256_subs_epu8(p3, _mm256_set1_epi8((char)(0xF0 - 0x80)))),
		_mm256_set1_epi8((char)0x80));
	return _mm256_xor_si256(want23, sc);
}

__attribute__((target("avx2"))) static inline __m256i errors_at_avx2(const unsigned char *p, __m256i b)
{
	return errors_avx2(b, _mm256_loadu_si256((const __m256i *)(p - 1)),
	                   _mm256_loadu_si256((const __m256i *)(p - 2)),
	                   _mm256_loadu_si256((const __m256i *)(p - 3)));
}

/* Is there an error in the 64 bytes at p (p[-3..-1] readable)? */
__attribute__((target("avx2"))) static inline int pair_avx2(const unsigned char *p)
{
	__m256i b0 = _mm256_loadu_si256((const __m256i *)p);
	__m256i b1 = _mm256_loadu_si256((const __m256i *)(p + 32));
	if (!_mm256_movemask_epi8(_mm256_or_si256(b0, b1)))
		return cut_before(p);
	__m256i e = _mm256_or_si256(errors_at_avx2(p, b0), errors_at_avx2(p + 32, b1));
	return !_mm256_testz_si256(e, e);
}

/* In the 32 bytes at p (p[-3..-1] readable)? */
__attribute__((target("avx2"))) static inline int block_avx2(const unsigned char *p)
{
	__m256i b = _mm256_loadu_si256((const __m256i *)p);
	if (!_mm256_movemask_epi8(b))
		return cut_before(p);
	__m256i e = errors_at_avx2(p, b);
	return !_mm256_testz_si256(e, e);
}

/* In the first 32 bytes of a text?  Its bytes before, shifted in across
 * the two lanes: [0 | low lane] aligned against b. */
__attribute__((target("avx2"))) static inline int first_avx2(const unsigned char *p)
{
	__m256i b = _mm256_loadu_si256((const __m256i *)p);
	__m256i lo = _mm256_permute2x128_si256(b, b, 0x08);
	__m256i e = errors_avx2(b, _mm256_alignr_epi8(b, lo, 15), _mm256_alignr_epi8(b, lo, 14),
	                        _mm256_alignr_epi8(b, lo, 13));
	return !_mm256_testz_si256(e, e);
}

__attribute__((target("avx2"))) static size_t valid_prefix_avx2(const unsigned char *u, size_t len)
{
	if (len < 32 + STAGE) {
		unsigned char buf[STAGE + 64] = {0};
		memcpy(buf + STAGE, u, len);
		return pair_avx2(buf + STAGE) ? finish_c(u, 0, len) : len;
	}
	if (first_avx2(u))
		return finish_c(u, 0, len);
	size_t i = 32;
	for (; i + 64 <= len; i += 64)
		if (pair_avx2(u + i))
			return finish_c(u, i, len);
	if (i + 32 <= len && block_avx2(u + i))
		return finish_c(u, i, len);
	if (len % 32 && block_avx2(u + len - 32))
		return finish_c(u, len - 32, len);
	return cut_before(u + len) ? finish_c(u, len, len) : len;
}
#endif

size_t jh_utf8_valid_prefix_with(int impl, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
#ifdef JH_X86
	if (impl == 2 && __builtin_cpu_supports("avx2"))
		return valid_prefix_avx2(u, len);
	if (impl >= 1)
		return valid_prefix_sse2(u, len);
#endif
	(void)impl;
	return valid_prefix_c(u, 0, len);
}

size_t jh_utf8_valid_prefix(const char *s, size_t len)
{
	int impl = jh_plain_impl();
#ifdef JH_X86
	if (impl == 2) /* the CPU has it: jh_plain_impl asked */
		return valid_prefix_avx2((const unsigned char *)s, len);
#endif
	return jh_utf8_valid_prefix_with(impl, s, len);
}

/* ---- lead bytes, for the encoding guess on text that is not all UTF-8 ---- */

static size_t leads_c(const unsigned char *u, size_t len, size_t *longer)
{
	size_t n = 0, l = 0;
	for (size_t i = 0; i < len; i++) {
		n += u[i] >= 0xC0;
		l += u[i] >= 0xE0;
	}
	*longer = l;
	return n;
}

#ifdef JH_X86
__attribute__((target("sse2"))) static size_t leads_sse2(const unsigned char *u, size_t len,
                                                              size_t *longer)
{
	/* bytes XOR 80 compare as signed: C0+ becomes 40+, E0+ 60+; the
	 * counts go up in byte lanes (-1 a match), summed before 255 */
	const __m128i flip = _mm_set1_epi8((char)0x80), zero = _mm_setzero_si128();
	__m128i sum_n = zero, sum_l = zero;
	size_t i = 0;
	while (i + 16 <= len) {
		__m128i cn = zero, cl = zero;
		for (int k = 0; k < 255 && i + 16 <= len; k++, i += 16) {
			__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(u + i)), flip);
			cn = _mm_sub_epi8(cn, _mm_cmpgt_epi8(x, _mm_set1_epi8(0x3F)));
			cl = _mm_sub_epi8(cl, _mm_cmpgt_epi8(x, _mm_set1_epi8(0x5F)));
		}
		sum_n = _mm_add_epi64(sum_n, _mm_sad_epu8(cn, zero));
		sum_l = _mm_add_epi64(sum_l, _mm_sad_epu8(cl, zero));
	}
	uint64_t sn[2], sl[2];
	_mm_storeu_si128((__m128i *)sn, sum_n);
	_mm_storeu_si128((__m128i *)sl, sum_l);
	size_t tail_l, n = leads_c(u + i, len - i, &tail_l);
	*longer = tail_l + (size_t)(sl[0] + sl[1]);
	return n + (size_t)(sn[0] + sn[1]);
}
#endif

size_t jh_utf8_leads_with(int impl, const char *s, size_t len, size_t *longer)
{
	const unsigned char *u = (const unsigned char *)s;
#ifdef JH_X86
	if (impl >= 1)
		return leads_sse2(u, len, longer);
#endif
	(void)impl;
	return leads_c(u, len, longer);
}

size_t jh_utf8_leads(const char *s, size_t len, size_t *longer)
{
	return jh_utf8_leads_with(jh_plain_impl(), s, len, longer);
}
