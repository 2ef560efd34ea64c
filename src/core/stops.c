/* stops.c — the stop finder (see stops.h). */
#include <stdint.h>
#include "stops.h"

#if defined(__x86_64__) || defined(__i386__)
#define JH_X86 1
#include <immintrin.h>
#endif

static inline int plain_at(const unsigned char *t, size_t i, size_t len)
{
	if (i + 2 >= len) /* also i == len: the byte at len is not the text's */
		return 0;
	unsigned b = t[i];
	return b >= 0xE1 && b <= 0xEF && b != 0xED && (t[i + 1] & 0xC0) == 0x80 &&
	       (t[i + 2] & 0xC0) == 0x80;
}

static size_t plain_end_c(const unsigned char *t, size_t i, size_t len)
{
	while (plain_at(t, i, len))
		i += 3;
	return i;
}

#ifdef JH_X86
/* A block of 48 (SSE2) or 96 (AVX2) bytes from a character boundary is
 * plain when its lead bytes are exactly every third byte and the other
 * bytes are all continuation bytes: one compare of two bit masks per
 * vector against the pattern of its offset. */

/* Bits of the lead bytes of 16-byte vector k (0, 1, 2) of a 48-byte block. */
static const uint32_t lead16[3] = {0x9249, 0x4924, 0x2492};

__attribute__((target("sse2"))) static inline void masks16(const unsigned char *p, uint32_t *lead,
                                                            uint32_t *cont)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i c = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xC0)), _mm_set1_epi8((char)0x80));
	/* lead: E1 <= b <= EF and b != ED, as (b - E1) <= 0E unsigned */
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8((char)0xE1));
	__m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(0x0E)), d);
	__m128i ed = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xED));
	*lead = (uint32_t)_mm_movemask_epi8(_mm_andnot_si128(ed, in));
	*cont = (uint32_t)_mm_movemask_epi8(c);
}

__attribute__((target("sse2"))) static size_t plain_end_sse2(const unsigned char *t, size_t i,
                                                              size_t len)
{
	while (i + 48 <= len) {
		int ok = 1;
		for (int k = 0; k < 3 && ok; k++) {
			uint32_t lead, cont;
			masks16(t + i + 16 * k, &lead, &cont);
			ok = lead == lead16[k] && cont == (~lead16[k] & 0xFFFF);
		}
		if (!ok)
			break;
		i += 48;
	}
	return plain_end_c(t, i, len);
}

/* Bits of the lead bytes of 32-byte vector k of a 96-byte block. */
static const uint32_t lead32[3] = {0x49249249, 0x92492492, 0x24924924};

__attribute__((target("avx2"))) static size_t plain_end_avx2(const unsigned char *t, size_t i,
                                                              size_t len)
{
	const __m256i m_c0 = _mm256_set1_epi8((char)0xC0), m_80 = _mm256_set1_epi8((char)0x80);
	const __m256i m_e1 = _mm256_set1_epi8((char)0xE1), m_0e = _mm256_set1_epi8(0x0E);
	const __m256i m_ed = _mm256_set1_epi8((char)0xED);
	while (i + 96 <= len) {
		int ok = 1;
		for (int k = 0; k < 3 && ok; k++) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(t + i + 32 * k));
			__m256i c = _mm256_cmpeq_epi8(_mm256_and_si256(v, m_c0), m_80);
			__m256i d = _mm256_sub_epi8(v, m_e1);
			__m256i in = _mm256_cmpeq_epi8(_mm256_min_epu8(d, m_0e), d);
			__m256i ld = _mm256_andnot_si256(_mm256_cmpeq_epi8(v, m_ed), in);
			uint32_t lead = (uint32_t)_mm256_movemask_epi8(ld), cont = (uint32_t)_mm256_movemask_epi8(c);
			ok = lead == lead32[k] && cont == ~lead32[k];
		}
		if (!ok)
			break;
		i += 96;
	}
	return plain_end_sse2(t, i, len);
}
#endif

size_t jh_plain_end_with(int impl, const unsigned char *t, size_t i, size_t len)
{
#ifdef JH_X86
	if (impl == 2 && __builtin_cpu_supports("avx2"))
		return plain_end_avx2(t, i, len);
	if (impl >= 1)
		return plain_end_sse2(t, i, len);
#endif
	(void)impl;
	return plain_end_c(t, i, len);
}

static int chosen = -1;

int jh_plain_impl(void)
{
	int c = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
	if (c < 0) {
#ifdef JH_X86
		__builtin_cpu_init();
		c = __builtin_cpu_supports("avx2") ? 2 : 1;
#else
		c = 0;
#endif
		__atomic_store_n(&chosen, c, __ATOMIC_RELAXED);
	}
	return c;
}

size_t jh_plain_end(const unsigned char *t, size_t i, size_t len)
{
	/* a lone plain character between stops, the common case in text
	 * that mixes scripts, costs no vector setup */
	if (!plain_at(t, i, len))
		return i;
	if (!(i + 3 < len && plain_at(t, i + 3, len)))
		return i + 3;
	return jh_plain_end_with(jh_plain_impl(), t, i, len);
}
