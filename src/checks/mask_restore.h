/* mask_restore.h — ranking the words a censor mask may hide, scored with
 * sunpinyin's word trigram model (typo_lm.h), for the mask-suggest check
 * (check_censor.c).  Internal to the library.
 *
 * Ownership: jh_mr_open opens the model and builds its successor and
 * predecessor tables; jh_mr_free releases all of it.  jh_mr_rank only
 * reads the model, so one may be shared by threads. */
#ifndef JH_MASK_RESTORE_H
#define JH_MASK_RESTORE_H

#include <stddef.h>
#include <stdint.h>
#include "jinghua.h"
#include "rules.h"

#define JH_MR_MAX_FILL 4 /* characters a fill may have */
#define JH_MR_CTX 4      /* Han characters of context read on each side */

typedef struct jh_mr jh_mr;

/* Where a candidate came from (bits): the model's own are JH_MR_SRC_LM. */
enum { JH_MR_SRC_LM = 1, JH_MR_SRC_LISTED = 2, JH_MR_SRC_DOC = 4, JH_MR_SRC_DICT = 8,
       JH_MR_SRC_TOPIC = 16, /* frequent in the document around the mask */
       JH_MR_SRC_CHAR = 32 /* the character model's (mask_charlm.h) */ };

/* One ranked restoration: its characters as the model reads them
 * (simplified), the text to write into the document (in the document's
 * script), and its probability among the candidates. */
typedef struct {
	int32_t cp[JH_MR_MAX_FILL];
	int n;
	char text[JH_MR_MAX_FILL * 4 + 1];
	size_t text_len;
	unsigned src;
	double score; /* natural log, unnormalised */
	double p;     /* normalised over every candidate of the mask */
	int cross;    /* the fill and a neighbour make one word of the model */
} jh_mr_alt;

/* A mask and its context: up to JH_MR_CTX Han characters on each side,
 * simplified, in text order; the mask's length in characters and whether
 * it is written in '*' (the two-star mask sites write for any word). */
typedef struct {
	int32_t left[JH_MR_CTX], right[JH_MR_CTX];
	int nl, nr;
	int run, star;
	int bos;         /* the left context begins a line (or the text) */
	int traditional; /* the context was traditional: write fills so */
} jh_mr_query;

/* Open the model (lm, lexicon: sunpinyin's files) and s2t (rule data:
 * simplified<TAB>traditional forms, the usual first; may be NULL).
 * JH_ERR_IO when the model is not installed (the caller may go on
 * without it); other errors are reported through diag_fn. */
int jh_mr_open(jh_mr **out, const jh_rule *r, const char *lm, const char *lexicon,
               const char *s2t, unsigned s2t_line, jh_diag_fn diag_fn, void *payload);
void jh_mr_free(jh_mr *m);

/* Score with the character model at path beside the word model, and take
 * its fills as candidates (mask_charlm.h).  JH_ERR_IO when the file
 * cannot be read (an optional data file: ranking goes on without it). */
int jh_mr_use_charlm(jh_mr *m, const char *path, char *err, size_t err_len);

/* The ranked restorations of q, best first, at most max of them; extra
 * holds candidates of other sources (listed words, the document's own
 * strings, dictionary words spanning the mask; their cp and n set, text
 * optional), merged by characters with the model's.  Returns the number
 * written, or -1 for want of memory. */
int jh_mr_rank(const jh_mr *m, const jh_mr_query *q, const jh_mr_alt *extra, int n_extra,
               jh_mr_alt *out, int max);

/* Whether a fill of n characters is a likely one for q's mask: one mask
 * character per hidden character, or `**` for a word of any length.  The
 * others are left out of the ranking (jh_mr_rank drops them): the mask's
 * length prior makes them nearly always lose, and scoring them was a
 * third of a mask's cost. */
int jh_mr_fits(const jh_mr_query *q, int n);

/* The calibrated probability that alternative a is right, from its share
 * p among the candidates and the document's evidence: whether the
 * document writes it elsewhere between the same neighbouring character on
 * each side (near1) and the same two on each side (near2); and whether
 * it completes a word with its neighbours (cross); whether the model
 * ranks it first (first).  A logistic
 * model fitted by bench/restore on its tuning split. */
double jh_mr_calibrate(double p, int near1, int near2, int cross, int first);

#endif
