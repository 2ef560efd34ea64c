/* mask_charlm.h — a character n-gram model of novel and narrative prose
 * (rules/tools/gen-char-lm.py writes it), read beside the word trigram by
 * mask restoration: it proposes fills the word model's lists lack (the
 * story's own words in their contexts) and scores every candidate's
 * window a second time.  Internal to the library.
 *
 * Ownership: jh_cm_open maps the file; jh_cm_free unmaps it.  The other
 * functions only read, so one model may be shared by threads. */
#ifndef JH_MASK_CHARLM_H
#define JH_MASK_CHARLM_H

#include <stddef.h>
#include <stdint.h>
#include "mask_restore.h"

typedef struct jh_cm jh_cm;

/* Map the model at path.  JH_ERR_IO when it cannot be read (an optional
 * data file: the caller goes on without it), JH_ERR_RULES when it is not
 * a model of this form; err says what. */
int jh_cm_open(jh_cm **out, const char *path, char *err, size_t err_len);
void jh_cm_free(jh_cm *m);

/* ln P(the fill f[0..fn) and the right context | the left context) under
 * the model: every candidate of a mask pays for the same right context,
 * so the sums compare. */
double jh_cm_window(const jh_cm *m, const jh_mr_query *q, const int32_t *f, int fn);

/* How familiar q's context is to the model: the mean ln P of its
 * characters (each side on its own, the fill left out); 0 when there are
 * fewer than three to judge by.  Novel prose of the model's kind scores
 * near -4, technical text near -7. */
double jh_cm_context(const jh_cm *m, const jh_mr_query *q);

/* Up to max fills of len characters for q, best first by jh_cm_window
 * (len 1..JH_MR_MAX_FILL): the characters the model lists after the left
 * context and before the right one, combined in a small beam.  Returns
 * how many were written to out (len code points each, simplified). */
int jh_cm_propose(const jh_cm *m, const jh_mr_query *q, int len, int32_t out[][JH_MR_MAX_FILL],
                  double *score, int max);

#endif
