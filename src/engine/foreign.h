/* foreign.h — Japanese and Korean sentences inside Chinese text. */
#ifndef JH_FOREIGN_H
#define JH_FOREIGN_H

#include "jinghua.h"
#include "rules.h"

/* Drop the findings from index first on of the script and punctuation
 * rules (not the half-width katakana check) that lie inside a Japanese
 * sentence (one with hiragana) or a Korean one (hangul), or inside a paragraph
 * made half or more of such sentences. */
int jh_foreign_drop(jh_findings *out, size_t first, const char *text, size_t len,
                    const jh_rule *const *rules, size_t n_rules);

#endif
