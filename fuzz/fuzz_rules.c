/* fuzz_rules.c — the rule-file parser and compiler on arbitrary INI text:
 * jh_ruleset_load_string then jh_ruleset_compile must return a status, and
 * never crash, whatever the text (lexicons are looked up in the real
 * rules/data/).  When the rules compile, each rule's examples are run and a
 * check over the rule file's own text is done, as `jinghua test-rules`
 * would. */
#include <stdint.h>
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Rule files are C strings: the loader sees the text up to a NUL. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	jh_ruleset *rs;
	if (jh_ruleset_new(&rs) != JH_OK)
		abort();
	int rc = jh_ruleset_load_string(rs, "fuzz.rules", text, JH_FUZZ_RULES_DIR "/data",
	                                fuzz_quiet_diag, NULL);
	FUZZ_ASSERT(rc == JH_OK || rc == JH_ERR_RULES || rc == JH_ERR_IO, "load: %s", jh_strerror(rc));
	rc = jh_ruleset_compile(rs, fuzz_quiet_diag, NULL);
	FUZZ_ASSERT(rc == JH_OK || rc == JH_ERR_RULES || rc == JH_ERR_IO, "compile: %s",
	            jh_strerror(rc));
	if (rc == JH_OK) {
		size_t n = jh_ruleset_count(rs);
		for (size_t i = 0; i < n && i < 16; i++) {
			jh_rule_info in;
			jh_rule_get_info(jh_ruleset_rule(rs, i), &in);
			FUZZ_ASSERT(in.id && in.message, "rule %zu without id or message", i);
			int f = jh_rule_run_examples(rs, i, fuzz_quiet_diag, NULL);
			FUZZ_ASSERT(f >= 0, "examples of %s: %s", in.id, jh_strerror(f));
		}
		jh_findings fs = JH_FINDINGS_INIT;
		rc = jh_check(rs, text, size < 4096 ? size : 4096, NULL, &fs);
		FUZZ_ASSERT(rc == JH_OK, "check: %s", jh_strerror(rc));
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
	free(text);
	return 0;
}
