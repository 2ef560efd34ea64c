/* typo_lm.h — sunpinyin's word trigram model (lm_sc.t3g) and its lexicon
 * (pydict_sc.bin), read at run time from Debian's sunpinyin-data, for
 * typo.context.  Internal to the library.
 *
 * Ownership: jh_lm_open maps both files and builds a word index; the
 * model owns all of it and jh_lm_free releases it.  Every other function
 * only reads, so one model may be shared by threads. */
#ifndef JH_TYPO_LM_H
#define JH_TYPO_LM_H

#include <stddef.h>
#include <stdint.h>

typedef struct jh_lm jh_lm;

/* A history in the model: its level (0 = none) and node index, packed. */
typedef uint32_t jh_lm_state;

#define JH_LM_MAX_WORD 8 /* characters in a word the index holds */

/* Open the model and the lexicon.  On failure *out is NULL, the return is
 * JH_ERR_IO (cannot read) or JH_ERR_RULES (not a model of the expected
 * form: truncated, offsets out of bounds), and err says what, in a
 * sentence. */
int jh_lm_open(jh_lm **out, const char *model_path, const char *lexicon_path, char *err,
               size_t err_len);
void jh_lm_free(jh_lm *lm);

/* The model's id of the word cp[0..n), 0 when the lexicon lacks it. */
uint32_t jh_lm_word(const jh_lm *lm, const int32_t *cp, int n);

/* Words of the lexicon: ids 1..count-1; the characters of one (at most
 * max of them, the return is its length; 0 for no word). */
uint32_t jh_lm_count(const jh_lm *lm);
int jh_lm_word_text(const jh_lm *lm, uint32_t id, int32_t *cp, int max);

/* Natural log of P(word) alone, from a table (id 0, or out of range: an
 * unseen word). */
double jh_lm_unigram(const jh_lm *lm, uint32_t wid);

/* The state at the start of a sentence. */
jh_lm_state jh_lm_start(const jh_lm *lm);

/* Natural log of P(word | state), backing off as the model says, and the
 * state after it.  An unknown word (id 0) gets the model's probability of
 * an unseen word. */
double jh_lm_next(const jh_lm *lm, jh_lm_state state, uint32_t wid, jh_lm_state *next);

#endif
