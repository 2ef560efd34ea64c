/* check_encoding.c — builtin checks of the encoding family. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

/* ---- encoding.invalid-utf8: one finding per run of invalid bytes ---- */

static void invalid_flush(jh_brun *run)
{
	if (!run->open)
		return;
	/* Chinese as every other message, worded as encoding.undecodable's */
	char msg[160] = "无效的 UTF-8 字节（原样保留）：";
	size_t n = strlen(msg);
	for (size_t i = run->open_start; i < run->open_end && n + 8 < sizeof msg; i++) {
		if (i - run->open_start == 12) {
			snprintf(msg + n, sizeof msg - n, " …");
			break;
		}
		n += (size_t)snprintf(msg + n, sizeof msg - n, " %02X", (unsigned char)run->text[i]);
	}
	jh_brun_emit(run, run->open_start, run->open_end, NULL, 0, msg);
	run->open = 0;
}

static void invalid_step(jh_brun *run, const jh_char *c)
{
	if (run->open && run->open_end == c->pos) {
		run->open_end = c->pos + c->len;
		return;
	}
	invalid_flush(run);
	run->open = 1;
	run->open_start = c->pos;
	run->open_end = c->pos + c->len;
}

const jh_builtin_def jh_checks_encoding[] = {
	{"invalid-utf8", JH_C_INVALID, NULL, NULL, NULL, invalid_step, invalid_flush},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
