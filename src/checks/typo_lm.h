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
/* The same, with the tables it builds kept in cache_dir (NULL: none):
 * mapped from there when the files are as they were. */
int jh_lm_open_cached(jh_lm **out, const char *model_path, const char *lexicon_path,
                      const char *cache_dir, char *err, size_t err_len);
void jh_lm_free(jh_lm *lm);

/* The model's id of the word cp[0..n), 0 when the lexicon lacks it. */
uint32_t jh_lm_word(const jh_lm *lm, const int32_t *cp, int n);
/* The same with h = jh_hash_cps(cp, n) known. */
uint32_t jh_lm_word_h(const jh_lm *lm, const int32_t *cp, int n, uint64_t h);

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

/* The words the model has seen after state (a history that has
 * children: a state jh_lm_next returned): fn gets each word id and the
 * natural log of P(word | state) as the model stores it, without backing
 * off.  At most max words are visited (0: all); the return is the number
 * visited. */
typedef void (*jh_lm_child_fn)(void *arg, uint32_t wid, double lp);
size_t jh_lm_children(const jh_lm *lm, jh_lm_state state, size_t max, jh_lm_child_fn fn, void *arg);

/* ln P(word | state) when the model has seen word after the history
 * state (as jh_lm_children would visit it), else -INFINITY: no back-off.
 * And the number of words jh_lm_children would visit (no max). */
double jh_lm_seen(const jh_lm *lm, jh_lm_state state, uint32_t wid);
size_t jh_lm_n_children(const jh_lm *lm, jh_lm_state state);

/* Every bigram of the model: fn(arg, w1, w2, ln P(w2 | w1)). */
typedef void (*jh_lm_bigram_fn)(void *arg, uint32_t w1, uint32_t w2, double lp);
void jh_lm_each_bigram(const jh_lm *lm, jh_lm_bigram_fn fn, void *arg);

/* Characters of word id (0 for none, or longer than JH_LM_MAX_WORD). */
int jh_lm_word_len(const jh_lm *lm, uint32_t id);

#endif
