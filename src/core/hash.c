/* hash.c — the hash of byte strings used by the sets and word maps. */
#include <string.h>
#include "hash.h"

/* Eight bytes at a time, then a final mix: the hash sets and word maps
 * look up short Chinese words (6-15 bytes) millions of times, and FNV's
 * byte-at-a-time loop was a sixth of the cost of a mask suggestion. */
uint64_t jh_hash(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		for (size_t i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
		h ^= h >> 29;
	}
	h *= 0xFF51AFD7ED558CCDULL;
	return h ^ (h >> 32);
}
