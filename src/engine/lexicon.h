/* lexicon.h — every lexicon entry of every lexicon rule in one Aho-Corasick
 * automaton over code points, stepped by the class scan (one decode of the
 * text serves all matchers). */
#ifndef JH_LEXICON_H
#define JH_LEXICON_H

#include <stddef.h>
#include <stdint.h>
#include "jinghua.h"

typedef struct {
	long rule_index;
	char *wrong;        /* the text to find (UTF-8) */
	size_t wrong_len;   /* in bytes */
	char *right;        /* replacement; "a|b" lists candidates; "" deletes; NULL: no fix */
	char *note;
	char *prev_not;     /* the match does not count after any of these characters */
	char *next_not;     /* ... nor before any of these */
	unsigned line;      /* line in the TSV file */
	int safety;         /* JH_SAFE or JH_UNSAFE from the 6th column, -1: the rule's */
	int32_t next_same;  /* next entry ending at the same automaton state, or -1 */
} jh_lex_entry;

typedef struct jh_lexicon {
	jh_lex_entry *entries;
	size_t n_entries, cap_entries;
	/* automaton; state 0 is the root */
	int32_t *fail;        /* per state */
	int32_t *out;         /* per state: first entry ending here, or -1 */
	int32_t *dict;        /* per state: nearest state on the fail chain with output, or 0 */
	size_t n_states, cap_states;
	/* Root transitions for U+0000..U+FFFF (0 = none), in pages of 256 code
	 * points: a page no word starts in is the shared page of zeros.  One
	 * flat table was 256 KB, 64 fresh pages at every start. */
	int32_t *root_page[256];
	uint64_t *keys;       /* transitions: (state << 21 | cp) + 1, 0 = empty slot */
	int32_t *vals;
	size_t table_bits;
	size_t n_edges;
	/* build-time only */
	int32_t *first_child, *next_sibling, *label;
	int built;
	/* the entries' strings are in this mapped cache file (lexicon_cache.c) */
	void *map;
	size_t map_len;
} jh_lexicon;

extern const int32_t jh_lex_zero_page[256];

void jh_lexicon_init(jh_lexicon *lx);
void jh_lexicon_free(jh_lexicon *lx);

/* Read wrong<TAB>right<TAB>note<TAB>prev_not<TAB>next_not<TAB>safety lines
 * (only the first column is required; '#' starts a comment line) for rule_index. */
int jh_lexicon_load_tsv(jh_lexicon *lx, long rule_index, const char *path, const char *rule_id,
                        jh_diag_fn diag_fn, void *payload);
int jh_lexicon_add(jh_lexicon *lx, long rule_index, const char *wrong, size_t wlen,
                   const char *right, const char *note, const char *prev_not,
                   const char *next_not, unsigned line);
/* Build the automaton after the last add. */
int jh_lexicon_build(jh_lexicon *lx);

/* The entries of the lexicon files listed by name (a key naming them:
 * their paths) in the state ident (their paths, rule indices and stat), as
 * read before, from the cache folder, into an empty lexicon: JH_OK,
 * JH_ERR_NOMEM, or 1 when there is no usable cache file (lx unchanged).
 * jh_lexicon_build still follows. */
int jh_lexicon_cache_load(jh_lexicon *lx, const char *cache_dir, const char *name, uint64_t ident);
/* Write the entries read (before or after the build) to the cache folder. */
void jh_lexicon_cache_store(const jh_lexicon *lx, const char *cache_dir, const char *name,
                            uint64_t ident);

static inline int32_t jh_lex_lookup(const jh_lexicon *lx, int32_t state, int32_t cp)
{
	if (state == 0 && cp < 0x10000)
		return lx->root_page[cp >> 8][cp & 0xFF];
	uint64_t key = (((uint64_t)state << 21) | (uint64_t)cp) + 1;
	size_t mask = ((size_t)1 << lx->table_bits) - 1;
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - lx->table_bits));
	while (lx->keys[i]) {
		if (lx->keys[i] == key)
			return lx->vals[i];
		i = (i + 1) & mask;
	}
	return 0;
}

/* One step of the automaton on code point cp (cp < 0 resets). */
static inline int32_t jh_lex_step(const jh_lexicon *lx, int32_t state, int32_t cp)
{
	if (cp < 0)
		return 0;
	for (;;) {
		int32_t next = jh_lex_lookup(lx, state, cp);
		if (next || state == 0)
			return next;
		state = lx->fail[state];
	}
}

#endif
