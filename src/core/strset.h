/* strset.h — an open-addressing set of byte strings. */
#ifndef JH_STRSET_H
#define JH_STRSET_H

#include <stddef.h>
#include "arena.h"

/* Open-addressing set of byte strings (used for allow-lists and to keep
 * each of many equal strings once).  The keys live in the set's arena, not
 * in a malloc each: word lists of 100,000 entries are read at start-up or
 * first use. */
typedef struct {
	char **keys;
	size_t *lens;
	size_t cap, count;
	size_t max_len;  /* longest key, in bytes */
	jh_arena arena;
} jh_strset;

int jh_strset_add(jh_strset *s, const char *key, size_t len);
/* The set's NUL-terminated copy of key, added if it was not there: equal
 * strings get the same pointer.  NULL when memory runs out. */
const char *jh_strset_intern(jh_strset *s, const char *key, size_t len);
/* Room for n more keys without rehashing (for a list of known length). */
int jh_strset_reserve(jh_strset *s, size_t n);
int jh_strset_has(const jh_strset *s, const char *key, size_t len);
void jh_strset_free(jh_strset *s);

#endif
