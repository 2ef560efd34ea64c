/* censor_suggest.h — what the parts of the mask-suggest check share
 * (censor_suggest.c: the check, its configuration and its report;
 * censor_suggest_words.c: candidates from the dictionary and the list of
 * masked words, and their unigram score; censor_suggest_doc.c: the
 * document's own strings around the same context).  Internal to the
 * library. */
#ifndef JH_CENSOR_SUGGEST_H
#define JH_CENSOR_SUGGEST_H

#include <stddef.h>
#include <stdint.h>
#include "builtins.h"
#include "mask_restore.h"
#include "regex.h" /* pcre2_code */
#include "wordmap.h"

#define T2S_LO 0x3400
#define T2S_HI 0x9FFF

typedef struct {
	const jh_wordmap *words; /* general model: word -> frequency (shared, see jh_wm_get_shared) */
	jh_wordmap masked;  /* words sites mask */
	int32_t *t2s;    /* traditional -> simplified, per code point T2S_LO..T2S_HI (0 = same) */
	/* The masked words by their first and by their last character: a mask
	 * looks up the few characters that make a word with its neighbours
	 * instead of testing every listed word (ms_touching). */
	struct ms_key { int32_t cp; uint32_t i; } *by_first, *by_last;
	unsigned long max_suggestions, min_joins, fill_percent;
	jh_mr *mr;       /* the word trigram model (mask_restore.c); NULL: not installed */
	const char *lm_file, *lm_words_file, *s2t_file;
	const char *char_lm_file; /* the character model (optional data file) */
	unsigned s2t_line;
	/* The three tables above are loaded at the first mask (most texts
	 * have none; the word list is 900 KB to read and sort). */
	jh_lazy once;
	const jh_rule *rule;
	const char *words_file, *masked_file, *t2s_file;
	unsigned words_line, masked_line, t2s_line;
	/* symbol-rule's compiled pattern (censor.mask.symbol): a □ ○ × … run
	 * is a mask here exactly where that rule finds it; NULL: no such rule
	 * named, every run the walk sees is one */
	const pcre2_code *symbol;
} ms_cfg;

#define MS_CTX 4          /* Han characters of context on each side */
#define MS_MAX_FILL 4     /* characters a masked word may have */
#define MS_MAX_CAND 64

typedef struct {
	char w[MS_MAX_FILL * 4 + 1];
	size_t n;
	double score;
	uint64_t key; /* ms_key8 of w: compared before the bytes */
} ms_cand;

#define MS_SEG (MS_CTX * 2 + MS_MAX_FILL)

/* A mask's candidates as ms_add gathers them: a word found again is
 * merged by a hash of its key, not by a walk over the list, and the
 * weakest, which a new word replaces once the list is full, is found
 * again only when it changes (both walks were a twentieth of a mask). */
#define MS_ADD_SLOTS 128
typedef struct {
	ms_cand v[MS_MAX_CAND];
	int n;
	int weak;                  /* the first entry of least score; -1: not known */
	int tomb;                  /* slots left by replaced entries */
	int8_t slot[MS_ADD_SLOTS]; /* index + 1 of an entry by its key; 0 free, -1 left */
} ms_list;

void ms_list_init(ms_list *l);
void ms_list_reindex(ms_list *l);

/* What every candidate of one mask shares: the simplified context on each
 * side, the Viterbi scores of the left context alone and the word scores
 * of stretches inside the right context.  ms_score recomputed them for
 * each of the hundreds of candidates a mask gets; ms_score_in reuses
 * them and gives the same scores (the same sums in the same order). */
typedef struct {
	char left[MS_CTX * 4 + 1], right[MS_CTX * 4 + 1];
	size_t lpos[MS_CTX + 1], rpos[MS_CTX + 1]; /* character starts, and the end */
	int nlc, nrc;                               /* characters on each side */
	double dp[MS_CTX + 1];
	int from[MS_CTX + 1];
	double rlp[MS_CTX + 1][MS_CTX + 1];         /* word score of right [a, b) */
	uint8_t lext[MS_CTX + 1];                   /* left [j, end) begins a longer word */
} ms_ctx;

#define MS_DOC_WINDOW 100000 /* bytes searched on each side for recurring context */
#define MS_DOC_HITS 12       /* occurrences used per side: enough to find a recurring name */

#define MS_LISTED 1e6 /* the score of a listed word left to the model */

/* The document's index of Han character pairs (censor_suggest_doc.c),
 * one per run of the check. */
typedef struct ms_state ms_state;

/* censor_suggest_words.c */
size_t ms_simplify(const ms_cfg *c, const char *s, size_t n, char *out);
int ms_context(const char *t, size_t len, size_t pos, size_t end, size_t *lb, size_t *ra);
uint32_t ms_freq(const ms_cfg *c, const jh_wordmap *m, const char *s, size_t n);
void ms_ctx_init(const ms_cfg *c, const char *t, const size_t *lb, int nl, const size_t *ra,
                 int nr, ms_ctx *x);
double ms_score(const ms_cfg *c, const ms_ctx *x, const char *w, size_t wn, int *joins);
void ms_add(ms_list *l, const char *w, size_t wn, double score);
void ms_combine(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl,
                const size_t *ra, int nr, ms_list *l);
int cmp_cand(const void *a, const void *b);
int ms_index_masked(const jh_wordmap *m, int last, struct ms_key **out);
int ms_candidates(const ms_cfg *c, const ms_ctx *x, const char *t, const size_t *lb, int nl,
                  const size_t *ra, int nr, ms_list *l, unsigned fit);

/* censor_suggest_doc.c */
int ms_blocks(ms_state *st, const char *t, size_t len, size_t lo, size_t hi);
int ms_window(ms_state *st, const char *t, size_t s, size_t lo, size_t hi, const size_t *lb,
              int nl, const size_t *ra, int nr);
int ms_topic_candidates(const ms_cfg *c, ms_state *st, const char *t, size_t len, size_t s,
                        ms_list *l);
void ms_state_free(ms_state *st);
size_t ms_find(const ms_state *st, const char *t, size_t q, size_t hi, const char *key, size_t kn);
int ms_doc_candidates(const ms_cfg *c, const ms_ctx *x, ms_state *st, const char *t, size_t len,
                      size_t s, size_t e, const size_t *lb, int nl, const size_t *ra, int nr,
                      ms_list *l);
int ms_near(const ms_state *st, const char *t, size_t lo, size_t hi, const size_t *lb, int nl,
            const size_t *ra, int nr, int k, const char *fill, size_t fn);
ms_state *ms_state_new(void);

#endif
