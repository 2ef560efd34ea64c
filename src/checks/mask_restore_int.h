/* mask_restore_int.h — what the two halves of mask restoration share:
 * the model's tables and their form (mask_restore_open.c builds or maps
 * them, mask_restore.c ranks with them).  Internal to those files. */
#ifndef JH_MASK_RESTORE_INT_H
#define JH_MASK_RESTORE_INT_H

#include <stdint.h>
#include "mask_charlm.h"
#include "mask_restore.h"
#include "mask_restore_cache.h"
#include "typo_lm.h"
#include "util.h"

/* List slots per fill length 1..4: two-character words are the usual
 * masked word, so they get the most. */
static const int k_per_len[JH_MR_MAX_FILL + 1] = {0, 12, 32, 6, 6};
#define K_ALL 56
/* The form of the tables build_tables makes, as the cache file records
 * it: change it with anything that changes what they hold (the slots per
 * length, the scores kept, the filter's hash), so that no process maps a
 * cache file of the old form. */
#define TABLES_FORM 2
/* Successor slots per fill length 1..4: the words most likely after
 * each word, by P(w2 | w1) (a walk over the history's successors was a
 * seventh of a mask's cost). */
#define S_PER_LEN 8
#define S_ALL (S_PER_LEN * JH_MR_MAX_FILL)
#define S2T_LO 0x3400
#define S2T_HI 0x9FFF

struct jh_mr {
	jh_lm *lm;
	/* built from the model at the first mask, or mapped from the cache
	 * folder (mask_restore_cache.c):
	 * pred: K_ALL ids per word, by length then score (0 = empty);
	 * every bigram by its second word: the first words before w2 are
	 * rev_w1[rev_off[w2] .. rev_off[w2 + 1]), in id order, with ln P(w2 | w1);
	 * each word's length and unigram, copied from the model so that the
	 * builds and the successor scan read an array, not call across files;
	 * a Bloom filter (one hash) of the lexicon's words of two characters
	 * or more: most stretches of a window are no word, and this says so
	 * without the lexicon's lookup */
	jh_mr_tables t;
	int32_t *s2t;          /* simplified -> usual traditional, per code point (0 = same) */
	jh_cm *cm;             /* the character model of novel prose (optional) */
	/* how the character model weighs in (CM_*, or JH_CM_WEIGHT, _GATE and
	 * _PROPOSE from the environment, read once when it is opened: knobs
	 * for tuning it on bench/restore's tuning split) */
	double cm_weight, cm_gate;
	int cm_propose;
};

/* The character model's weight in a candidate's score, beside the word
 * model's ln P of the same window; the most of its own fills proposed per
 * mask; the mean ln P of the text around a mask below which it is not
 * used (technical prose is not its kind). */
#define CM_WEIGHT 0.3
#define CM_PROPOSE 8
#define CM_GATE (-5.5)

#define BLOOM_BITS 22

static inline uint64_t bloom_bit(const int32_t *cp, int n)
{
	return jh_hash_cps(cp, n) >> (64 - BLOOM_BITS);
}

/* jh_lm_word, with the filter in front. */
static inline uint32_t word_id_h(const jh_mr *m, const int32_t *cp, int n, uint64_t h)
{
	if (n >= 2 && m->t.bloom) {
		uint64_t b = h >> (64 - BLOOM_BITS); /* bloom_bit, from the same hash */
		if (!(m->t.bloom[b >> 6] >> (b & 63) & 1))
			return 0;
	}
	return jh_lm_word_h(m->lm, cp, n, h);
}

static inline uint32_t word_id(const jh_mr *m, const int32_t *cp, int n)
{
	return word_id_h(m, cp, n, jh_hash_cps(cp, n));
}

/* Where the slots of fills of len characters start in a word's K_ALL:
 * after those of every shorter length. */
static inline int slot_base(int len)
{
	int b = 0;
	for (int l = 1; l < len; l++)
		b += k_per_len[l];
	return b;
}

#endif
