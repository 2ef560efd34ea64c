/* diag.c — diagnostics handed to the caller's jh_diag_fn. */
#include <stdarg.h>
#include <stdio.h>
#include "diag.h"

void jh_report(jh_diag_fn fn, void *payload, jh_severity sev, const char *file,
               unsigned line, unsigned column, const char *rule_id, const char *fmt, ...)
{
	if (!fn)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	jh_diag d = {sev, file, line, column, rule_id, msg};
	fn(&d, payload);
}
