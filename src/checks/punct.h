/* punct.h — the punct family's checks of a separator in a word (period,
 * in-word: check_punct_word.c), declared for the family's one table of
 * builtins, jh_checks_punct[] in check_punct.c.  Internal to the library. */
#ifndef JH_CHECKS_PUNCT_H
#define JH_CHECKS_PUNCT_H

#include <stdint.h>
#include "builtins.h"

/* a half-width full stop between two Han characters (`period`) */
extern const char *const jh_punct_period_params[];
int jh_punct_period_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload);
void jh_punct_period_free(void *p);
void jh_punct_period_step(jh_brun *run, const jh_char *c);
void jh_punct_period_ascii(const void *cfg, unsigned char wants[128]);

/* one space or dot pushed into a word that filters catch (`in-word`);
 * its configuration is the period's, freed by jh_punct_period_free */
extern const char *const jh_punct_inword_params[];
int jh_punct_inword_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload);
void jh_punct_inword_step(jh_brun *run, const jh_char *c);
void jh_punct_inword_han_mark(const void *cfg, uint16_t *table, uint16_t bit);
void jh_punct_inword_ascii(const void *cfg, unsigned char wants[128]);
void jh_punct_inword_other(const void *cfg, uint16_t *table, uint16_t bit);

#endif
