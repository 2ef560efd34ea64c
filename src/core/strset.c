/* strset.c — an open-addressing set of byte strings, keys in an arena. */
#include <stdlib.h>
#include <string.h>
#include "jinghua.h"
#include "hash.h"
#include "strset.h"

static int strset_rehash(jh_strset *s, size_t ncap)
{
	char **keys = calloc(ncap, sizeof *keys);
	size_t *lens = calloc(ncap, sizeof *lens);
	if (!keys || !lens) {
		free(keys);
		free(lens);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->keys[i])
			continue;
		size_t j = jh_hash(s->keys[i], s->lens[i]) & (ncap - 1);
		while (keys[j])
			j = (j + 1) & (ncap - 1);
		keys[j] = s->keys[i];
		lens[j] = s->lens[i];
	}
	free(s->keys);
	free(s->lens);
	s->keys = keys;
	s->lens = lens;
	s->cap = ncap;
	return JH_OK;
}

int jh_strset_reserve(jh_strset *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 64;
	while (cap < 2 * (s->count + n))
		cap *= 2;
	return cap > s->cap ? strset_rehash(s, cap) : JH_OK;
}

const char *jh_strset_intern(jh_strset *s, const char *key, size_t len)
{
	if ((s->count + 1) * 2 > s->cap && strset_rehash(s, s->cap ? s->cap * 2 : 64))
		return NULL;
	size_t j = jh_hash(key, len) & (s->cap - 1);
	for (; s->keys[j]; j = (j + 1) & (s->cap - 1))
		if (s->lens[j] == len && memcmp(s->keys[j], key, len) == 0)
			return s->keys[j]; /* already there */
	char *k = jh_arena_alloc(&s->arena, len + 1, 1);
	if (!k)
		return NULL;
	memcpy(k, key, len);
	k[len] = '\0';
	s->keys[j] = k;
	s->lens[j] = len;
	s->count++;
	if (len > s->max_len)
		s->max_len = len;
	return k;
}

int jh_strset_add(jh_strset *s, const char *key, size_t len)
{
	return jh_strset_intern(s, key, len) ? JH_OK : JH_ERR_NOMEM;
}

int jh_strset_has(const jh_strset *s, const char *key, size_t len)
{
	if (!s->cap)
		return 0;
	size_t j = jh_hash(key, len) & (s->cap - 1);
	while (s->keys[j]) {
		if (s->lens[j] == len && memcmp(s->keys[j], key, len) == 0)
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	return 0;
}

void jh_strset_free(jh_strset *s)
{
	jh_arena_free(&s->arena);
	free(s->keys);
	free(s->lens);
	memset(s, 0, sizeof *s);
}
