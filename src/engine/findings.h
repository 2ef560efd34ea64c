/* findings.h — building, ordering and locating findings. */
#ifndef JH_FINDINGS_H
#define JH_FINDINGS_H

#include "jinghua.h"
#include "rules.h"

/* What a matcher knows about one finding before it is added. */
typedef struct {
	const jh_rule *rule;
	long rule_index;
	size_t start, end;        /* span in the text */
	const char *fix;          /* replacement of the span, or NULL for no fix */
	size_t fix_len;
	jh_safety safety;
	const char *note;         /* for {note} in the message, or NULL */
} jh_hit;

/* Add a finding for hit; the rule's message template is filled with
 * {match} (the span's text), {fix} and {note}. */
int jh_findings_add_hit(jh_findings *list, const char *text, const jh_hit *hit);

/* A new check begins adding to list: what add_hit remembers of the last
 * one's templates is forgotten (its rule set may be gone). */
void jh_findings_new_check(jh_findings *list);

/* Add a finding with a ready message and optional single-edit fix. */
int jh_findings_add(jh_findings *list, const char *rule_id, long rule_index, jh_severity sev,
                    size_t start, size_t end, const char *message, const char *fix,
                    size_t fix_len, jh_safety safety);

/* Expand $0..$9, ${N}, ${name} and $$ in a fix template, with groups given as
 * offset pairs (PCRE2 ovector layout, unset = SIZE_MAX).  code (a
 * pcre2_code *, may be NULL) resolves group names. */
int jh_expand_template(const char *tpl, const char *text, const size_t *ov, uint32_t pairs,
                       const void *code, jh_buf *out);

/* The reference of a fix template at p (which points at a '$'): returns
 * its last character, and the group it names in *group (JH_TPL_DOLLAR
 * for "$$", -1 for a name code does not have), or NULL when it is not a
 * reference ("$x", "${}", a name of 64 bytes or more).  What
 * jh_expand_template expands and regex.c checks at load, read one way. */
#define JH_TPL_DOLLAR (-2)
const char *jh_template_ref(const char *p, const void *code, long *group);

/* Rewrite fix (UTF-8, NUL-terminated) through the rule's character map, if
 * it has one. */
int jh_map_fix(const jh_rule *r, jh_buf *fix);

/* Does the edit lie inside the finding's span (an insertion at either end
 * too)?  A fix changes only bytes of its finding: jh_findings_add_edit,
 * the alternatives and jh_apply_fixes hold every edit to it. */
static inline int jh_edit_in_span(const jh_finding *f, size_t start, size_t end)
{
	return f->byte_start <= start && start <= end && end <= f->byte_end;
}

/* Sort by position (start, end, rule) and drop exact duplicates. */
void jh_findings_sort(jh_findings *list, size_t from);

/* Add the ids of the rules whose fixes are still in fs to rep->unstable_rules
 * (a fix loop's last round: what did not settle). */
void jh_fix_note_rules(const jh_findings *fs, int unsafe, jh_fix_report *rep);

/* One round's check: the findings of text with the rules sel selects. */
typedef int (*jh_round_check)(void *ctx, const unsigned char *sel, const char *text,
                              size_t len, jh_findings *out);

/* Fix text to a fixed point with check (the one loop of jh_fix and
 * jh_document_fix): *out is the fixed text (malloc'd), or NULL when no round
 * changed it or on an error (nothing is left to free then).  Rules still
 * changing the text after JH_FIX_MAX_ROUNDS are deselected in sel (n_sel
 * entries) and the fix is redone without them: rep->unstable_rules names
 * them, and converged is 1 if the rest settled. */
int jh_fix_rounds(jh_round_check check, void *ctx, unsigned char *sel, size_t n_sel, int unsafe,
                  const char *text, size_t len, char **out, size_t *out_len, jh_fix_report *rep);

#endif
