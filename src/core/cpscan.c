/* cpscan.c — see cpscan.h. */
#include <string.h>
#include "cpscan.h"
#include "stops.h"

#if defined(__x86_64__) || defined(__i386__)
#define CP_X86 1
#include <immintrin.h>
#endif

/* Eight three-byte characters from p (24 bytes, read as two 16-byte
 * halves ending by p + 28 <= e), as long as all eight are such and none
 * is in the set: the position where that stops.  The set's words are
 * gathered eight at a time. */
#ifdef CP_X86
__attribute__((target("avx2"))) static size_t chunks_avx2(const unsigned char *t, size_t p, size_t e,
                                                         const jh_cpset *set, int *mixed)
{
	/* each character's three bytes into a 32-bit lane, low byte first */
	const __m256i shuf = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 0, 1,
	                                      2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
	const __m256i form_mask = _mm256_set1_epi32(0x00C0C0F0), form = _mm256_set1_epi32(0x008080E0);
	const __m256i lo = _mm256_set1_epi32(set->lo), span = _mm256_set1_epi32((int)set->span);
	const __m256i m0f = _mm256_set1_epi32(0x0F), m_fc0 = _mm256_set1_epi32(0xFC0);
	const __m256i m3f = _mm256_set1_epi32(0x3F), m1f = _mm256_set1_epi32(31);
	const __m256i one = _mm256_set1_epi32(1), neg = _mm256_set1_epi32(-1);
	for (; p + 28 <= e; p += 24) {
		__m128i a = _mm_loadu_si128((const __m128i *)(t + p));
		__m128i b = _mm_loadu_si128((const __m128i *)(t + p + 12));
		__m256i d = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1), shuf);
		if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_and_si256(d, form_mask), form)) != -1) {
			*mixed = 1; /* not eight three-byte characters */
			break;
		}
		__m256i cp = _mm256_or_si256(
			_mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(d, m0f), 12),
			                _mm256_and_si256(_mm256_srli_epi32(d, 2), m_fc0)),
			_mm256_and_si256(_mm256_srli_epi32(d, 16), m3f));
		__m256i k = _mm256_sub_epi32(cp, lo);
		/* 0 <= k < span (k fits an int: cp is below 0x10000) */
		__m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(k, neg), _mm256_cmpgt_epi32(span, k));
		if (_mm256_testz_si256(in, in))
			continue;
		__m256i w = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)set->bits,
		                                        _mm256_srli_epi32(_mm256_and_si256(k, in), 5), in, 4);
		__m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(k, m1f)), one);
		if (!_mm256_testz_si256(bit, in))
			break; /* one of them: the caller finds which */
	}
	return p;
}
#endif

/* Text of other characters too (Chinese among ASCII words): the three-
 * byte characters of the 32 bytes from p marked at once (a lead E0-EF and
 * two continuation bytes, read up to p + 34 <= e), each looked up.  The
 * first of the set, or p + 32; *leads: how many there were. */
#ifdef CP_X86
__attribute__((target("avx2"))) static size_t block_avx2(const unsigned char *t, size_t p,
                                                        const jh_cpset *set, int *hit, int *leads)
{
	const __m256i f0 = _mm256_set1_epi8((char)0xF0), e0 = _mm256_set1_epi8((char)0xE0);
	const __m256i c0 = _mm256_set1_epi8((char)0xC0), x80 = _mm256_set1_epi8((char)0x80);
	__m256i v0 = _mm256_loadu_si256((const __m256i *)(t + p));
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(t + p + 1));
	__m256i v2 = _mm256_loadu_si256((const __m256i *)(t + p + 2));
	__m256i m = _mm256_and_si256(
		_mm256_cmpeq_epi8(_mm256_and_si256(v0, f0), e0),
		_mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v1, c0), x80),
		                 _mm256_cmpeq_epi8(_mm256_and_si256(v2, c0), x80)));
	uint32_t bits = (uint32_t)_mm256_movemask_epi8(m);
	*leads = __builtin_popcount(bits);
	*hit = 0;
	for (; bits; bits &= bits - 1) {
		size_t q = p + (size_t)__builtin_ctz(bits);
		int32_t cp = (int32_t)((t[q] & 0x0Fu) << 12 | (t[q + 1] & 0x3Fu) << 6 | (t[q + 2] & 0x3Fu));
		if (jh_cpset_has(set, cp)) {
			*hit = 1;
			return q;
		}
	}
	return p + 32;
}
#endif

static size_t find3(int impl, const unsigned char *t, size_t p, size_t e, const jh_cpset *set)
{
	(void)impl;
	int pure = 1; /* the last 32 bytes were three-byte characters: try eight at a time */
	while (p + 2 < e) {
		unsigned c = t[p];
#ifdef CP_X86
		if (impl == 2 && p + 34 <= e && c >= 0x80) {
			int lead = c >= 0xE0 && c <= 0xEF && ((t[p + 1] ^ 0x80u) | (t[p + 2] ^ 0x80u)) < 0x40;
			if (lead && pure) {
				int mixed = 0;
				size_t q = chunks_avx2(t, p, e, set, &mixed);
				if (q > p) {
					p = q;
					continue;
				}
				if (!mixed)
					goto one; /* a member among these eight */
			}
			int hit, leads;
			size_t q = block_avx2(t, p, set, &hit, &leads);
			if (hit)
				return q;
			pure = leads >= 10;
			p = q;
			while (p < e && (t[p] & 0xC0) == 0x80)
				p++; /* to the next character: its lead was looked at if there was one */
			continue;
		}
	one:
#endif
		if (c >= 0xE0 && c <= 0xEF && ((t[p + 1] ^ 0x80u) | (t[p + 2] ^ 0x80u)) < 0x40) {
			int32_t cp = (int32_t)((c & 0x0F) << 12 | (t[p + 1] & 0x3Fu) << 6 | (t[p + 2] & 0x3Fu));
			if (jh_cpset_has(set, cp))
				return p;
			p += 3;
		} else if (c < 0x80) {
			uint64_t w;
			p++;
			while (p + 8 <= e && (memcpy(&w, t + p, 8), !(w & 0x8080808080808080u)))
				p += 8;
		} else {
			p++;
			while (p < e && (t[p] & 0xC0) == 0x80)
				p++;
		}
	}
	return e;
}

size_t jh_cpset_find3_with(int impl, const unsigned char *t, size_t p, size_t e, const jh_cpset *set)
{
#ifdef CP_X86
	if (impl == 2 && !__builtin_cpu_supports("avx2"))
		impl = 0;
#else
	impl = 0;
#endif
	return find3(impl, t, p, e, set);
}

size_t jh_cpset_find3(const unsigned char *t, size_t p, size_t e, const jh_cpset *set)
{
	return find3(jh_plain_impl(), t, p, e, set);
}
