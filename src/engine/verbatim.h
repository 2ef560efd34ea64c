/* verbatim.h — URLs, e-mail addresses, paths and format specifiers: the
 * parts of a text that prose rules do not edit. */
#ifndef JH_VERBATIM_H
#define JH_VERBATIM_H

#include "jinghua.h"
#include "rules.h"

/* Is a rule of this family kept out of verbatim spans?  punct, layout,
 * script and typo: yes; censor (censor.url is about URLs) and encoding: no. */
int jh_verbatim_family(const char *family);

/* Drop the findings from index first on (sorted by position) of those
 * families whose span or edits lie inside a URL, address or path, or touch
 * a format specifier (%s, $1, {name}) even at its edge. */
int jh_verbatim_drop(jh_findings *out, size_t first, const char *text, size_t len,
                     const jh_rule *const *rules, size_t n_rules);

/* The verbatim patterns are matched by PCRE2's interpreter until the text
 * it has searched (in all checks of the process) reaches this many bytes,
 * then by JIT copies, kept for the process. */
#define JH_VERBATIM_JIT_AFTER 2048

/* Make the JIT copies now (a test that counts allocations makes them
 * before it counts, as it compiles the patterns by a first check). */
void jh_verbatim_jit_now(void);

#endif
