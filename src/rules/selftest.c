/* selftest.c — running a rule's own examples: the rule file is its test. */
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "util.h"

static int has_rule_finding(const jh_findings *fs, long idx)
{
	for (size_t i = 0; i < fs->count; i++)
		if (fs->items[i].rule_index == idx)
			return 1;
	return 0;
}

int jh_rule_run_examples(const jh_ruleset *rs, size_t idx, jh_diag_fn fn, void *pl)
{
	if (idx >= rs->count)
		return JH_ERR_ARG;
	const jh_rule *r = rs->rules[idx];
	if (r->broken) {
		jh_report(fn, pl, JH_ERROR, r->file, r->line, 0, r->id, "rule did not compile");
		return 1;
	}
	unsigned char *only = calloc(rs->count, 1);
	if (!only)
		return JH_ERR_NOMEM;
	only[idx] = 1;
	jh_check_options opts = {JH_CHECK_OPTIONS_VERSION, only, NULL, r->file, NULL, NULL};
	int failures = 0;
	const jh_example_def *ex = jh_rule_examples(r);
	if (r->n_examples && !ex) {
		free(only);
		return JH_ERR_NOMEM;
	}
	for (size_t k = 0; k < r->n_examples; k++) {
		const jh_example_def *e = &ex[k];
		size_t len = strlen(e->text);
		jh_findings fs = JH_FINDINGS_INIT;
		int rc = jh_check(rs, e->text, len, &opts, &fs);
		if (rc) {
			jh_findings_clear(&fs);
			free(only);
			return rc;
		}
		int hit = has_rule_finding(&fs, (long)idx);
		jh_findings_clear(&fs);
		if (e->kind == JH_EXAMPLE_BAD && !hit) {
			failures++;
			jh_report(fn, pl, JH_ERROR, r->file, e->line, 0, r->id,
			          "bad example is not found: %s", e->text);
		} else if (e->kind == JH_EXAMPLE_GOOD && hit) {
			failures++;
			jh_report(fn, pl, JH_ERROR, r->file, e->line, 0, r->id,
			          "good example is flagged: %s", e->text);
		}
		if (e->kind != JH_EXAMPLE_BAD || !e->fixed)
			continue;
		char *fixed = NULL, *again = NULL;
		size_t flen = 0, alen = 0;
		rc = jh_fix(rs, e->text, len, &opts, 1, &fixed, &flen, NULL);
		if (rc == JH_OK)
			rc = jh_fix(rs, fixed, flen, &opts, 1, &again, &alen, NULL);
		if (rc) {
			free(fixed);
			free(only);
			return rc;
		}
		if (flen != strlen(e->fixed) || memcmp(fixed, e->fixed, flen) != 0) {
			failures++;
			jh_report(fn, pl, JH_ERROR, r->file, e->line, 0, r->id,
			          "fix of '%s' gives '%s', expected '%s'", e->text, fixed, e->fixed);
		} else if (alen != flen || memcmp(again, fixed, flen) != 0) {
			failures++;
			jh_report(fn, pl, JH_ERROR, r->file, e->line, 0, r->id,
			          "fixing '%s' twice gives '%s', not the same as once", e->text, again);
		}
		free(fixed);
		free(again);
	}
	free(only);
	return failures;
}
