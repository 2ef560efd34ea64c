/* check_punct.c — builtin checks of the punct family. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

/* ---- run-on stretches of Han without punctuation ---- */

static const char *const runon_params[] = {"limit", NULL};

static int runon_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned long *limit = malloc(sizeof *limit);
	if (!limit)
		return JH_ERR_NOMEM;
	int rc = jh_param_uint(r, "limit", 50, 100000, limit, diag_fn, payload);
	if (rc) {
		free(limit);
		return rc;
	}
	*out = limit;
	return JH_OK;
}

static void runon_flush(jh_brun *run)
{
	const unsigned long *limit = run->cfg;
	if (run->run_len > *limit) {
		char msg[160];
		snprintf(msg, sizeof msg, "%zu 个汉字之间没有任何标点（上限 %lu），可能缺了标点", run->run_len,
		         *limit);
		jh_brun_emit(run, run->run_start, run->run_end, NULL, 0, msg);
	}
	run->run_len = 0;
}

static void runon_step(jh_brun *run, const jh_char *c)
{
	if (!(c->cls & JH_C_HAN)) {
		runon_flush(run);
		return;
	}
	if (!run->run_len)
		run->run_start = c->pos;
	run->run_len++;
	run->run_end = c->pos + c->len;
}

const jh_builtin_def jh_checks_punct[] = {
	{"run-on", JH_C_HAN | JH_C_CJK_PUNCT | JH_C_ASCII_PUNCT | JH_C_NEWLINE, runon_params,
	 runon_compile, free, runon_step, runon_flush},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
