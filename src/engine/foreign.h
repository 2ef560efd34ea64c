/* foreign.h — Japanese and Korean sentences inside Chinese text. */
#ifndef JH_FOREIGN_H
#define JH_FOREIGN_H

#include "jinghua.h"
#include "rules.h"

/* Drop the findings from index first that lie in Japanese or Korean text,
 * as each rule's `foreign =` says: of `sentence` rules inside a Japanese
 * sentence (hiragana, or Japanese-only kanji forms: two, or one with kana
 * near) or a Korean one (hangul), or inside a paragraph made half or more
 * of such sentences; of `kana` rules in such a sentence marked by kana or
 * hangul; of those and the `document` rules in a document more than half
 * of whose lines have hiragana or hangul. */
int jh_foreign_drop(jh_findings *out, size_t first, const char *text, size_t len,
                    const jh_rule *const *rules, size_t n_rules);

/* Whether cp is a Japanese form a Chinese text would not write: in
 * foreign_forms.h's first table or its wider one (駅: Jōyō, in HKSCS but in
 * neither GB 2312, Big5, the General Standard table nor OpenCC). */
int jh_japanese_wide_form(int32_t cp);

#endif
