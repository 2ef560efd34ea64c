/* mask_restore_cache.h — the tables mask restoration builds from the word
 * trigram model (mask_restore.c), and their compiled form in the cache
 * folder (tablecache.c), so that a process maps them instead of walking
 * the model's 2.5 M bigrams at its first mask.  Internal to the library. */
#ifndef JH_MASK_RESTORE_CACHE_H
#define JH_MASK_RESTORE_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The tables, built (malloc'd) or mapped (pointing into map). */
typedef struct {
	uint32_t form;       /* what the builder computes: a new form is a new cache file */
	uint32_t n_words;
	size_t k_all;        /* predecessor slots per word */
	size_t k_succ;       /* successor slots per word */
	size_t bloom_words;  /* 64-bit words of the Bloom filter */
	size_t n_rev;        /* bigrams in the reverse index */
	uint8_t *wlen;       /* n_words */
	float *uni;          /* n_words */
	uint64_t *bloom;     /* bloom_words */
	uint32_t *pred;      /* n_words * k_all */
	uint32_t *succ;      /* n_words * k_succ */
	uint32_t *rev_off;   /* n_words + 1 */
	uint32_t *rev_w1;    /* n_rev */
	float *rev_lp;       /* n_rev */
	void *map;           /* the mapped cache file, or NULL: the arrays are malloc'd */
	size_t map_len;
} jh_mr_tables;

/* Map the compiled tables of the model file lm (and its lexicon) from
 * cache_dir (NULL: none): 0 when a file for lm as it is now is there, was
 * made from the same lexicon, in the same form, and has the sizes t asks
 * for (t->form, n_words, k_all, k_succ, bloom_words set by the caller) and a sound reverse index; then
 * t's arrays point into it.  -1 otherwise (build them, and store). */
int jh_mr_cache_map(jh_mr_tables *t, const char *cache_dir, const char *lm, const char *lexicon);

/* Write built tables to cache_dir (nothing when NULL or not writable). */
void jh_mr_cache_store(const jh_mr_tables *t, const char *cache_dir, const char *lm,
                       const char *lexicon);

/* Release the tables: unmap, or free the arrays. */
void jh_mr_tables_free(jh_mr_tables *t);

#endif
