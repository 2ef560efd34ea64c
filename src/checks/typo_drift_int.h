/* typo_drift_int.h — what the files of typo.name-drift share (not
 * installed): the configuration, characters by code, the n-gram table,
 * a block's counts and the work a document's blocks reuse.  The table's
 * lookups and the character codes are inline here, as the counting loop
 * and the pairs' walks call them per trigram. */
#ifndef JH_TYPO_DRIFT_INT_H
#define JH_TYPO_DRIFT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "builtins.h"
#include "wordmap.h"

/* How a character sounds and looks: a slip of the input method keeps one
 * of the three (茂 mao / 買 mai, 林 / 材 under 木). */
struct sound {
	int32_t cp;
	char initial[4], final[8];
	unsigned radical;
};

/* What a character is to the counting, as bits: a character a form may
 * hold (Han, not a stop character), a stop character (Han, ends a run),
 * a numeral (never the differing character).  0: not Han. */
enum { CH_NAME = 1, CH_STOP = 2, CH_NUMERAL = 4 };

typedef struct {
	const jh_wordmap *common; /* common words: a pair made of them is real (shared) */
	jh_strset stop;          /* characters never part of a name form */
	uint8_t *class3;         /* CH_* of every three-byte character, by code3 */
	jh_lazy once_class;      /* class3, made for the first text of CLASS_TABLE_MIN */
	int astral_stop;         /* the stop list holds a character beyond the BMP */
	struct sound *sound;     /* sorted by code point */
	size_t n_sound;
	unsigned long min_count; /* frequent form: at least this many */
	unsigned long max_rare;  /* rare form: at most this many */
	unsigned long cohesion;  /* percent: f / each of its bigrams */
	/* The two tables are read the first time the rule runs, not when the
	 * rule set is compiled: a run that does not select the rule (or a
	 * hook on a short file) does not pay for 90 000 lines. */
	const jh_rule *rule;
	const char *words_file, *sound_file; /* the rule's parameters */
	jh_lazy once;            /* the common words */
	jh_lazy once_sound;      /* the sound table, when a pair gets that far */
} drift_cfg;

/* ---- characters by code ----
 *
 * The counting knows a character by a code, not by its code point.  A
 * three-byte sequence (lead 1110aaaa, continuations 10bbbbbb 10cccccc)
 * carries 16 bits; with its bytes in w, the first in the low bits,
 * code3 = (w ^ w >> 6) & 0xFFFF gives every one of the 65,536 sequences
 * its own value in four operations (bit k is w_k ^ w_k+6, and the bits
 * the sequence fixes make the rest solvable: cp_of_code), where the code
 * point takes ten.  A key's character is code3 | CODE3 (no Han
 * character's code is 0), or, beyond the BMP, the code point itself,
 * above every code3. */
#define CODE3 0x10000u
#define ASTRAL 0x20000

static inline uint32_t code3(uint32_t w)
{
	return (w ^ w >> 6) & 0xFFFFu;
}

static inline int32_t cp_of_code(uint32_t code)
{
	if (code >= ASTRAL)
		return (int32_t)code;
	uint32_t y = code & 0xFFFFu;
	uint32_t b = (y >> 8 & 1) | ((y >> 9 & 1) ^ 1) << 1 | ((y >> 4 & 0xF) ^ 0xE) << 2;
	uint32_t c = ((y >> 10 & 0xF) ^ (b >> 2 & 0xF)) | (y >> 14 & 1) << 4 | ((y >> 15 & 1) ^ 1) << 5;
	uint32_t a = (y & 0xF) ^ (3 | (b & 3) << 2);
	return (int32_t)(a << 12 | b << 6 | c);
}

/* Is cp one of the numerals (typo_drift_count.c)? */
int drift_is_numeral(int32_t cp);

/* Is the character of this code a numeral?  Inline: the candidates ask
 * it of every pair. */
static inline int code_is_numeral(const uint8_t *class3, uint32_t code)
{
	if (code >= ASTRAL)
		return 0;
	return class3 ? (class3[code & 0xFFFFu] & CH_NUMERAL) != 0
	              : drift_is_numeral(cp_of_code(code));
}

/* ---- n-gram table ---- */

/* A key packs three character codes of 21 bits, the first character in
 * the low bits (a bigram: two); no code is 0, so no key is.  The counting
 * shifts each new character in at the top, and the oldest falls out at
 * the bottom without a mask. */
#define CP_BITS 21
#define CP_MASK ((uint64_t)0x1FFFFF)
#define KEY2_MASK (((uint64_t)1 << (2 * CP_BITS)) - 1)

static inline uint32_t key_code(uint64_t key, int i)
{
	return (uint32_t)((key >> (CP_BITS * i)) & CP_MASK);
}

/* Bytes of the character of a code. */
static inline size_t code_bytes(uint32_t code)
{
	return code < ASTRAL ? 3 : 4;
}

typedef struct {
	uint64_t key;   /* 0 = empty */
	uint32_t count;
	uint32_t pos;   /* byte offset of the first occurrence (capped) */
} ng_slot;

/* Open addressing with the entries in the slots: a key seen before (most
 * of a text's) costs one multiplication and one slot read.  Counts need
 * no cap: a block of at most 1.25 DRIFT_BLOCK bytes (typo_drift.c) holds
 * fewer trigrams than a uint32_t counts. */
typedef struct {
	ng_slot *s;
	uint32_t *used; /* the occupied slots in order of arrival: the walks and the
	                 * clearing for the next block touch only these */
	size_t cap, n;  /* slots (a power of two, 0 before the first use), keys */
} ng_table;

#define GOLDEN 0x9E3779B97F4A7C15ull

/* The high half of key × 2^64/φ, whose every bit depends on every bit of
 * the key: its low bits pick the slot.  Bits taken from the low half, or
 * from its middle, depend only on the key's low bits: keys that differ in
 * one character only fell into one cluster.  (The top bits of the low
 * half would do as well, but need the shift in a register the counting
 * loop cannot spare.) */
static inline uint64_t mix(uint64_t key)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t)((unsigned __int128)key * GOLDEN >> 64);
#else
	uint64_t kl = key & 0xFFFFFFFFu, kh = key >> 32, gl = GOLDEN & 0xFFFFFFFFu, gh = GOLDEN >> 32;
	uint64_t ll = kl * gl, lh = kl * gh, hl = kh * gl, hh = kh * gh;
	uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* The slot from bits 4 and up of mix: the counting loop masks a byte
 * offset (mix & (cap - 1) << 4) and so saves a shift. */
static inline size_t slot_of(const ng_table *t, uint64_t key)
{
	return (size_t)(mix(key) >> 4) & (t->cap - 1);
}

static inline ng_slot *ng_find(const ng_table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(t, key);; i = (i + 1) & (t->cap - 1)) {
		if (t->s[i].key == key)
			return &t->s[i];
		if (!t->s[i].key)
			return NULL;
	}
}

/* The table at cap slots (a power of two), its keys moved over. */
int drift_ng_resize(ng_table *t, size_t cap);

/* Room for n keys at a load of at most one half. */
static inline int ng_reserve(ng_table *t, size_t n)
{
	size_t cap = 64;
	while (cap < 2 * n + 2)
		cap *= 2;
	return cap > t->cap ? drift_ng_resize(t, cap) : JH_OK;
}

/* Empty, keeping the memory. */
static inline void ng_clear(ng_table *t)
{
	for (size_t k = 0; k < t->n; k++)
		t->s[t->used[k]].key = 0;
	t->n = 0;
}

static inline void ng_free(ng_table *t)
{
	free(t->s);
	free(t->used);
	*t = (ng_table){0};
}

/* A new key (not in the table), with count and pos; NULL when memory
 * runs out. */
ng_slot *drift_ng_insert(ng_table *t, uint64_t key, uint32_t count, size_t pos);

/* The entry for key, a new one (count 0, at pos) if it was not there. */
static inline ng_slot *ng_upsert(ng_table *t, uint64_t key, size_t pos)
{
	ng_slot *e = ng_find(t, key);
	return e ? e : drift_ng_insert(t, key, 0, pos);
}

/* A block's counts: every trigram of the runs of characters a form may
 * hold, and the last bigram of each such run of two or more. */
typedef struct {
	ng_table tri;
	uint64_t *tails;
	size_t n_tails, cap_tails;
} drift_counts;

/* A pair that passed the tests: where its forms stand, for the finding. */
typedef struct {
	size_t rpos, fpos;   /* first bytes of the rare and the frequent form */
	size_t dpos;         /* the differing character in the rare form */
	uint32_t r, f;       /* their slots in the trigram table */
	int i;               /* where they differ */
} drift_hit;

/* A rare form can share a mask with a frequent one only if two of its
 * characters stand where a frequent form has them: one bit per character
 * (folded to FOLD_BITS) and position says which may.  Most trigrams of a
 * text are rare, and this spares them three hash lookups each. */
#define FOLD_BITS 14
#define FOLD(code) ((uint32_t)(code) & ((1u << FOLD_BITS) - 1))

typedef struct {
	uint64_t at[3][(1u << FOLD_BITS) / 64];
} place_bits;

/* A rare form r, a frequent form f (their slots) that differ at i. */
typedef struct {
	uint32_t r, f;
	int i;
} drift_pair_at;

/* What a document's blocks reuse: the counts, the frequent forms by
 * masked key (count 1: one form, its slot in pos; 0: two or more), the
 * bigrams the cohesion test asks for, the pairs and the hits. */
typedef struct {
	const uint8_t *class3; /* cfg->class3, or NULL for a short text */
	drift_counts dc;
	ng_table masks, halves;
	place_bits pb;
	uint32_t *rare, *freq; /* slots of the rare and of the frequent forms */
	size_t n_rare, cap_rare, n_freq, cap_freq;
	drift_pair_at *pairs;
	size_t n_pairs, cap_pairs;
	drift_hit *hits;
	size_t n_hits, cap_hits;
} drift_work;

/* ---- typo_drift.c ---- */
/* The sound table, read once (jh_lazy's load). */
int drift_sound_read(void *arg);
/* Do two characters sound or look alike? */
int drift_alike(const drift_cfg *c, int32_t a, int32_t b);
/* The common words, read once. */
int drift_load(drift_cfg *c);

/* ---- typo_drift_count.c ---- */
/* cfg->class3, built once (jh_lazy's load). */
int drift_build_classes(void *arg);
/* The character at s[*i] by the strict decoder: its CH_* class, its code. */
unsigned drift_char_slow(const drift_cfg *c, const uint8_t *class3, const unsigned char *s,
                         size_t len, size_t *i, uint32_t *code);
/* The trigrams and run tails of the block [start, end) into dc. */
int drift_count_block(const drift_cfg *cfg, const uint8_t *class3, const unsigned char *s,
                      size_t len, size_t start, size_t end, drift_counts *dc);

/* ---- typo_drift_pairs.c ---- */
void drift_tri_offsets(const char *text, size_t len, size_t pos, size_t off[4]);
int drift_forms_sort(const drift_cfg *cfg, drift_work *w);
int drift_frequent_build(drift_work *w);
int drift_candidates(const drift_cfg *cfg, drift_work *w);
/* The pairs that pass every test, as w->hits. */
int drift_hits(jh_brun *run, drift_work *w, size_t start, size_t end);

#endif
