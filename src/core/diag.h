/* diag.h — diagnostics handed to the caller's jh_diag_fn. */
#ifndef JH_DIAG_H
#define JH_DIAG_H

#include "jinghua.h"

/* Report a diagnostic through fn (which may be NULL). */
void jh_report(jh_diag_fn fn, void *payload, jh_severity sev, const char *file,
               unsigned line, unsigned column, const char *rule_id, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

#endif
