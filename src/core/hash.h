/* hash.h — hashes of byte strings and of code point sequences. */
#ifndef JH_HASH_H
#define JH_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A hash of n bytes (strings and words: eight bytes at a time). */
uint64_t jh_hash(const char *s, size_t n);

/* A hash of n code points, never 0 (so 0 can mark an empty slot); inline,
 * as the context model looks its dictionary up several times for every
 * character of a text. */
/* jh_hash_cps in parts, for callers that hash every stretch of a window
 * beginning at one place (one step a character instead of one a
 * character of each stretch): JH_FNV0, jh_fnv_step per code point, then
 * jh_hash_fin. */
#define JH_FNV0 1469598103934665603ull

static inline uint64_t jh_fnv_step(uint64_t h, int32_t cp)
{
	return (h ^ (uint32_t)cp) * 1099511628211ull;
}

static inline uint64_t jh_hash_fin(uint64_t h)
{
	/* FNV's low bits are poorly mixed; tables index by them. */
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h ? h : 1;
}

static inline uint64_t jh_hash_cps(const int32_t *cp, int n)
{
	uint64_t h = JH_FNV0;
	for (int i = 0; i < n; i++)
		h = jh_fnv_step(h, cp[i]);
	return jh_hash_fin(h);
}

#endif
