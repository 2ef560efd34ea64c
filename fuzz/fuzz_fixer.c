/* fuzz_fixer.c — jh_fix on arbitrary bytes with the real rules/, safe and
 * unsafe: the output is valid UTF-8 whenever the input is, every invalid
 * byte of the input is kept, in order, and fixing the output again changes
 * nothing (when the first fix settled).  Any failure abort()s. */
#include <stdint.h>
#include "common.h"
#include "utf8.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_rules();
	return 0;
}

/* The invalid bytes of s, concatenated. */
static char *invalid_bytes(const char *s, size_t len, size_t *n_out)
{
	char *v = malloc(len ? len : 1);
	size_t n = 0, i = 0;
	if (!v)
		abort();
	while (i < len) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (cp < 0) {
			memcpy(v + n, s + i, k);
			n += k;
		}
		i += k;
	}
	*n_out = n;
	return v;
}

static void fix_once(const jh_ruleset *rs, const char *text, size_t len, int unsafe, char **out,
                     size_t *out_len, jh_fix_report *rep)
{
	jh_check_options opts = {JH_CHECK_OPTIONS_VERSION, fuzz_all_rules(rs), NULL, "fuzz.txt", fuzz_quiet_diag, NULL};
	int rc = jh_fix(rs, text, len, &opts, unsafe, out, out_len, rep);
	FUZZ_ASSERT(rc == JH_OK, "jh_fix: %s", jh_strerror(rc));
	FUZZ_ASSERT((*out)[*out_len] == '\0', "fixed text not NUL-terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jh_ruleset *rs = fuzz_rules();
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	int valid = fuzz_utf8_valid(text, size);
	size_t n_bad_in;
	char *bad_in = invalid_bytes(text, size, &n_bad_in);
	for (int unsafe = 0; unsafe < 2; unsafe++) {
		char *once = NULL, *twice = NULL;
		size_t once_len = 0, twice_len = 0;
		jh_fix_report r1, r2;
		fix_once(rs, text, size, unsafe, &once, &once_len, &r1);
		if (valid)
			FUZZ_ASSERT(fuzz_utf8_valid(once, once_len),
			            "fix%s made valid UTF-8 invalid at byte %zu", unsafe ? " --unsafe" : "",
			            jh_utf8_valid_prefix(once, once_len));
		size_t n_bad_out;
		char *bad_out = invalid_bytes(once, once_len, &n_bad_out);
		FUZZ_ASSERT(n_bad_out == n_bad_in && memcmp(bad_in, bad_out, n_bad_in) == 0,
		            "fix%s changed the invalid bytes (%zu before, %zu after)",
		            unsafe ? " --unsafe" : "", n_bad_in, n_bad_out);
		free(bad_out);
		if (r1.converged) {
			fix_once(rs, once, once_len, unsafe, &twice, &twice_len, &r2);
			FUZZ_ASSERT(twice_len == once_len && memcmp(once, twice, once_len) == 0,
			            "fix%s is not idempotent (%zu bytes once, %zu twice; rules %s)",
			            unsafe ? " --unsafe" : "", once_len, twice_len, r2.unstable_rules);
		}
		free(once);
		free(twice);
	}
	free(bad_in);
	free(text);
	return 0;
}
