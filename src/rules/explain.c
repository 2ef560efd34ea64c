/* explain.c — a rule told in words: what `jinghua rules --explain` prints
 * and the language server's hover shows (one text for both). */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include "jinghua.h"
#include "rules.h"

static const char *kind_name(jh_kind k)
{
	return k == JH_KIND_REGEX ? "regex" : k == JH_KIND_LEXICON ? "lexicon" : "builtin";
}

char *jh_rule_explain(const jh_rule *rule)
{
	if (!rule)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return NULL;
	jh_rule_info in;
	jh_rule_get_info(rule, &in);
	fprintf(o, "%s\n  family:   %s\n  kind:     %s\n  severity: %s\n  fix:      %s\n"
	           "  enabled:  %s\n  defined:  %s:%u\n  message:  %s\n",
	        in.id, in.family, kind_name(in.kind), jh_severity_name(in.severity),
	        in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "none",
	        in.enabled_by_default ? "yes" : "no (opt-in)", in.file, in.line, in.message);
	static const char *const foreign[][2] = {
		{"never", "not silenced in Japanese or Korean text"},
		{"document", "silenced in a Japanese or Korean document"},
		{"kana", "silenced there and in a sentence with kana or hangul"},
		{"sentence", "silenced there and in any Japanese or Korean sentence"},
	};
	fprintf(o, "  foreign:  %s (%s)\n", foreign[rule->foreign][0], foreign[rule->foreign][1]);
	if (in.description)
		fprintf(o, "\n  %s\n", in.description);
	fprintf(o, "\n  examples:\n");
	int nomem = 0;
	for (size_t k = 0; k < in.n_examples; k++) {
		jh_example ex;
		/* the examples of a rule from the cache folder are decoded now */
		int rc = jh_rule_get_example(rule, k, &ex);
		if (rc == JH_ERR_NOMEM) {
			nomem = 1;
			break;
		}
		if (rc)
			continue;
		fprintf(o, "    %s %s\n", ex.kind == JH_EXAMPLE_BAD ? "bad: " : "good:", ex.text);
		if (ex.fixed)
			fprintf(o, "      → %s\n", ex.fixed);
	}
	fprintf(o, "\n  switch off: --ignore %s, or in .jinghua.ini: ignore = %s\n"
	           "  in a text:  <!-- jinghua-disable-next-line %s -->\n", in.id, in.id, in.id);
	if (fclose(o) != 0 || nomem) { /* not the rule told without its examples */
		free(buf);
		return NULL;
	}
	return buf;
}
