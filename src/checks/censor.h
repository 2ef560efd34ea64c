/* censor.h — shared by the censor family's files: check_censor.c
 * (missing-chars) and censor_suggest.c (mask-suggest).  Not installed. */
#ifndef JH_CENSOR_H
#define JH_CENSOR_H

#include <stdint.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

/* ---- helpers on the text ---- */

static inline int is_han(int32_t cp) { return cp >= 0 && (jh_class_of(cp) & JH_C_HAN); }

/* Character at pos (its code point and length); -1 at the end. */
static inline int32_t cp_at(const char *t, size_t len, size_t pos, size_t *n)
{
	int32_t cp = -1;
	*n = pos < len ? jh_utf8_decode((const unsigned char *)t + pos, len - pos, &cp) : 0;
	return cp;
}

static inline int32_t cp_before(const char *t, size_t pos, size_t *start)
{
	if (pos == 0) {
		*start = 0;
		return -1;
	}
	size_t s = jh_utf8_start_back(t, pos), n;
	*start = s;
	return cp_at(t, pos, s, &n);
}

/* The lazy loads' argument: the table to fill and where to report. */
typedef struct {
	void *cfg;
	jh_diag_fn diag_fn;
	void *payload;
} lazy_arg;

#endif
