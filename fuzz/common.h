/* common.h — shared by the fuzz targets: the real rules folder, loaded and
 * compiled once per process, and helpers that abort() when a property that
 * must hold for any input does not. */
#ifndef JH_FUZZ_COMMON_H
#define JH_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jinghua.h"

#ifndef JH_FUZZ_RULES_DIR
#define JH_FUZZ_RULES_DIR "rules"
#endif

static void fuzz_quiet_diag(const jh_diag *d, void *payload)
{
	(void)d;
	(void)payload;
}

#define FUZZ_ASSERT(cond, ...)                                                    \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "fuzz property failed: %s (%s:%d): ", #cond, \
			        __FILE__, __LINE__);                              \
			fprintf(stderr, __VA_ARGS__);                             \
			fputc('\n', stderr);                                      \
			abort();                                                  \
		}                                                                 \
	} while (0)

/* $JINGHUA_RULES, else the source tree's rules/. */
static const char *fuzz_rules_dir(void)
{
	const char *dir = getenv("JINGHUA_RULES");
	return dir && *dir ? dir : JH_FUZZ_RULES_DIR;
}

/* The rule set of $JINGHUA_RULES or the source tree's rules/, every rule
 * compiled.  Loading errors are tolerated (other engineers' rule files may
 * be half-written); an empty rule set is not. */
static jh_ruleset *fuzz_rules(void)
{
	static jh_ruleset *rs;
	if (rs)
		return rs;
	const char *dir = fuzz_rules_dir();
	if (jh_ruleset_new(&rs) != JH_OK)
		abort();
	jh_ruleset_load_dir(rs, dir, fuzz_quiet_diag, NULL);
	if (jh_ruleset_compile(rs, fuzz_quiet_diag, NULL) == JH_ERR_NOMEM || jh_ruleset_count(rs) == 0) {
		fprintf(stderr, "fuzz: no rules could be loaded from %s\n", dir);
		abort();
	}
	return rs;
}

/* Every rule on, opt-in ones included, so the fuzzer reaches all of them. */
static const unsigned char *fuzz_all_rules(const jh_ruleset *rs)
{
	static unsigned char *all;
	if (!all) {
		size_t n = jh_ruleset_count(rs);
		if (!(all = malloc(n ? n : 1)))
			abort();
		memset(all, 1, n ? n : 1);
	}
	return all;
}

static int fuzz_utf8_valid(const char *s, size_t n)
{
	return jh_utf8_valid_prefix(s, n) == n;
}

#endif
