/* wordmap.h — a word-frequency table (word<TAB>frequency, as jieba's
 * dictionary), the model of mask suggestions and lost characters
 * (check_censor.c).  jh_strset keeps no values, and the model needs a
 * frequency per word and prefix and suffix searches; so this is an
 * open-addressing map over one text buffer (no allocation per word), with
 * a prefix index and a suffix index.
 *
 * The big model is shared: jh_wm_get_shared loads a file once per process
 * (or maps the compiled form a previous run left in the cache folder, see
 * wordmap.c) and counts references. */
#ifndef JH_WORDMAP_H
#define JH_WORDMAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "builtins.h"

/* Prefixes up to this many characters are marked (jh_wm_look's ext): the
 * segmentation of mask suggestions looks at words of at most 5. */
#define JH_WM_PREFIX 4

typedef struct jh_wordmap {
	char *buf;            /* the words, each NUL-terminated */
	uint32_t *off, *freq; /* per entry */
	uint8_t *len;         /* bytes */
	size_t n, cap;
	size_t n_all;         /* entries: the n words, then prefixes that are no word */
	uint64_t *slot;       /* hash slots: tag | WM_EXT | entry + 1, 0 = empty */
	size_t nslot;
	size_t buf_len;       /* bytes in buf, the last a NUL */
	uint32_t *by_prefix;  /* word indexes sorted by bytes */
	/* Word indexes by their last character (runs, in sfx_run), each run
	 * sorted by reversed characters the first time a search needs it:
	 * sorting all 80,000 words so was half of the model's load, and a
	 * text asks for a few dozen last characters. */
	uint32_t *by_suffix;
	struct jh_wm_run { int32_t cp; uint32_t start, n; int sorted; } *sfx_run;
	size_t n_runs;
	pthread_mutex_t sfx_lock;
	void *map;            /* the compiled form, when the arrays point into it */
	size_t map_len;
} jh_wordmap;

/* Read file (the rule's data folder); indexes: build the prefix and suffix
 * indexes and the prefix marks too.  Errors name the file and line. */
int jh_wm_load(jh_wordmap *m, const jh_rule *r, const char *file, unsigned line, int indexes,
               jh_diag_fn diag_fn, void *payload);
void jh_wm_free(jh_wordmap *m);

/* Frequency of s (n bytes), 0 if it is no word. */
uint32_t jh_wm_get(const jh_wordmap *m, const char *s, size_t n);
/* Is s one of the words of the list (whatever its frequency)? */
int jh_wm_has(const jh_wordmap *m, const char *s, size_t n);
/* The same, and in *ext whether a longer word starts with s (indexed maps,
 * up to JH_WM_PREFIX characters). */
uint32_t jh_wm_look(const jh_wordmap *m, const char *s, size_t n, int *ext);

/* First position in idx[lo, hi) whose word is not less than key (n bytes),
 * compared as prefixes (rev = 0, idx = by_prefix) or by characters from
 * the end (rev = 1, idx = by_suffix). */
size_t jh_wm_lower(const jh_wordmap *m, const uint32_t *idx, size_t lo, size_t hi, const char *key,
                   size_t n, int rev);
/* The words whose last character is key's, as [*lo, *hi) of by_suffix,
 * sorted (under a lock the first time: maps are shared by threads). */
void jh_wm_suffix_run(const jh_wordmap *m, const char *key, size_t kn, size_t *lo, size_t *hi);

/* The map of file (indexes: with the prefix and suffix indexes), loaded
 * once per process and shared; release it with jh_wm_release_shared.  A
 * load that fails is not kept. */
int jh_wm_get_shared(const jh_rule *r, const char *file, unsigned line, int indexes,
                     const jh_wordmap **out, jh_diag_fn diag_fn, void *payload);
void jh_wm_release_shared(const jh_wordmap *m);
/* The compiled form in the cache folder (wordmap_cache.c): map it into m
 * if there is one for the source file as it is now (0), or write m's. */
int jh_wm_cache_map(jh_wordmap *m, const char *cache_dir, const char *src);
void jh_wm_cache_store(const jh_wordmap *m, const char *cache_dir, const char *src);
/* An empty map, for a rule without a word list. */
extern const jh_wordmap jh_wm_empty;

#endif
