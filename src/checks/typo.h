/* typo.h — checks of the typo family that live in their own files, for
 * the table in check_typo.c. */
#ifndef JH_TYPO_H
#define JH_TYPO_H

#include "builtins.h"

/* name-drift (typo_drift.c): a name seen many times and once changed. */
extern const char *const jh_drift_params[];
int jh_drift_compile(const jh_rule *r, void **cfg, jh_diag_fn diag_fn, void *payload);
void jh_drift_free(void *cfg);
void jh_drift_finish(jh_brun *run);

/* context (typo_context.c): homophone slips scored by a word model. */
extern const char *const jh_context_params[];
int jh_context_compile(const jh_rule *r, void **cfg, jh_diag_fn diag_fn, void *payload);
void jh_context_free(void *cfg);
void jh_context_finish(jh_brun *run);

#endif
