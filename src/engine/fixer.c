/* fixer.c — applying fixes: non-overlapping edits, repeated until the text
 * stops changing, never splitting a character, a BOM or a CRLF. */
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "rules.h"
#include "utf8.h"
#include "util.h"

static int is_cont(const char *text, size_t len, size_t pos)
{
	return pos < len && ((unsigned char)text[pos] & 0xC0) == 0x80;
}

/* An edit may not cut a character, the BOM, or a CR from its LF. */
static int edit_ok(const char *text, size_t len, const jh_edit *e)
{
	if (e->byte_start > e->byte_end || e->byte_end > len)
		return 0;
	if (is_cont(text, len, e->byte_start) || is_cont(text, len, e->byte_end))
		return 0;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 && e->byte_start < 3)
		return 0;
	size_t s = e->byte_start, x = e->byte_end;
	if (s > 0 && s < len && text[s - 1] == '\r' && text[s] == '\n')
		return 0;
	if (x > 0 && x < len && text[x - 1] == '\r' && text[x] == '\n')
		return 0;
	size_t rl = strlen(e->replacement);
	return jh_utf8_valid_prefix(e->replacement, rl) == rl;
}

/* The line ending the text uses: CRLF if its first line break is one. */
static int uses_crlf(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	return nl && nl > text && nl[-1] == '\r';
}

static int append_replacement(jh_buf *b, const char *r, int crlf)
{
	for (; *r; r++) {
		if (crlf && *r == '\n' && (b->len == 0 || b->data[b->len - 1] != '\r') &&
		    jh_buf_putc(b, '\r'))
			return JH_ERR_NOMEM;
		if (jh_buf_putc(b, *r))
			return JH_ERR_NOMEM;
	}
	return JH_OK;
}

int jh_apply_fixes(const char *text, size_t len, const jh_findings *fs, int unsafe, char **out,
                   size_t *out_len, size_t *n_applied)
{
	jh_buf b = {0};
	size_t done = 0, applied = 0;
	size_t last_insert = (size_t)-1;
	int crlf = uses_crlf(text, len);
	if (jh_buf_reserve(&b, len + 16))
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		if (!f->has_fix || !f->n_edits || (f->safety == JH_UNSAFE && !unsafe))
			continue;
		/* All edits of a fix, or none: each must follow the last one kept. */
		size_t pos = done;
		int ok = 1;
		for (size_t k = 0; k < f->n_edits && ok; k++) {
			const jh_edit *e = &f->edits[k];
			int insert = e->byte_start == e->byte_end;
			ok = e->byte_start >= pos && jh_edit_in_span(f, e->byte_start, e->byte_end) &&
			     edit_ok(text, len, e) &&
			     !(insert && e->byte_start == last_insert);
			pos = e->byte_end;
		}
		if (!ok)
			continue;
		for (size_t k = 0; k < f->n_edits; k++) {
			const jh_edit *e = &f->edits[k];
			if (jh_buf_append(&b, text + done, e->byte_start - done) ||
			    append_replacement(&b, e->replacement, crlf)) {
				jh_buf_free(&b);
				return JH_ERR_NOMEM;
			}
			done = e->byte_end;
			if (e->byte_start == e->byte_end)
				last_insert = e->byte_start;
		}
		applied++;
	}
	if (jh_buf_append(&b, text + done, len - done)) {
		jh_buf_free(&b);
		return JH_ERR_NOMEM;
	}
	*out = b.data;
	*out_len = b.len;
	if (n_applied)
		*n_applied = applied;
	return JH_OK;
}

/* Is id one of the comma-separated ids in list? */
static int id_listed(const char *list, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && strncmp(p, id, n) == 0)
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

void jh_fix_note_rules(const jh_findings *fs, int unsafe, jh_fix_report *rep)
{
	size_t n = strlen(rep->unstable_rules);
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		if (!f->has_fix || (f->safety == JH_UNSAFE && !unsafe))
			continue;
		if (id_listed(rep->unstable_rules, f->rule_id))
			continue;
		size_t l = strlen(f->rule_id);
		if (n + l + 2 >= sizeof rep->unstable_rules)
			break;
		if (n)
			rep->unstable_rules[n++] = ',';
		memcpy(rep->unstable_rules + n, f->rule_id, l + 1);
		n += l;
	}
}

/* jh_fix's round: jh_check with the options and the round's selection. */
typedef struct {
	const jh_ruleset *rs;
	jh_check_options opts;
} fix_check;

static int check_with(void *ctx, const unsigned char *sel, const char *text, size_t len,
                      jh_findings *out)
{
	fix_check *fc = ctx;
	jh_check_options o = fc->opts;
	o.enabled = sel;
	return jh_check(fc->rs, text, len, &o, out);
}

/* Check and apply from text until nothing changes, at most
 * JH_FIX_MAX_ROUNDS applied rounds.  Returns 1 when it settled, 0 when the
 * last check still had edits (noted in rep), or an error (< 0).  *cur is
 * the last text, malloc'd, or NULL when no round changed text or on an
 * error. */
static int run_rounds(jh_round_check check, void *ctx, const unsigned char *sel, int unsafe,
                      const char *text, size_t len, char **cur, size_t *cur_len,
                      jh_fix_report *rep, jh_findings *last)
{
	*cur = NULL;
	*cur_len = len;
	rep->rounds = 0;
	rep->edits_applied = 0;
	for (unsigned round = 0;; round++) {
		const char *t = *cur ? *cur : text;
		jh_findings fs = JH_FINDINGS_INIT;
		char *next = NULL;
		size_t next_len = 0, applied = 0;
		int rc = check(ctx, sel, t, *cur_len, &fs);
		if (rc == JH_OK)
			rc = jh_apply_fixes(t, *cur_len, &fs, unsafe, &next, &next_len, &applied);
		if (rc) { /* the text of the round before goes too: the caller gets none */
			jh_findings_clear(&fs);
			free(*cur);
			*cur = NULL;
			*cur_len = len;
			return rc;
		}
		int changed = applied && (next_len != *cur_len || memcmp(next, t, *cur_len) != 0);
		if (!changed || round == JH_FIX_MAX_ROUNDS) {
			free(next);
			if (changed) /* still changing: the caller says what */
				*last = fs;
			else
				jh_findings_clear(&fs);
			return !changed;
		}
		jh_findings_clear(&fs);
		rep->rounds = round + 1;
		rep->edits_applied += applied;
		free(*cur);
		*cur = next;
		*cur_len = next_len;
	}
}

/* Deselect the rules whose fixes are still in fs; how many were. */
static size_t leave_out(const jh_findings *fs, int unsafe, unsigned char *sel, size_t n_sel)
{
	size_t n = 0;
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		if (!f->has_fix || (f->safety == JH_UNSAFE && !unsafe))
			continue;
		if (f->rule_index >= 0 && (size_t)f->rule_index < n_sel && sel[f->rule_index]) {
			sel[f->rule_index] = 0;
			n++;
		}
	}
	return n;
}

int jh_fix_rounds(jh_round_check check, void *ctx, unsigned char *sel, size_t n_sel, int unsafe,
                  const char *text, size_t len, char **out, size_t *out_len, jh_fix_report *rep)
{
	rep->converged = 0;
	rep->unstable_rules[0] = '\0';
	/* A rule whose fixes keep changing the text after the last round is
	 * left out and the fix redone from the start without it, so the rules
	 * that do settle are kept (their fixes are safe on their own); a few
	 * times, since leaving one out can unsettle no other but may. */
	for (int attempt = 0; attempt < 3; attempt++) {
		jh_findings last = JH_FINDINGS_INIT;
		int rc = run_rounds(check, ctx, sel, unsafe, text, len, out, out_len, rep, &last);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			rep->converged = 1;
			return JH_OK;
		}
		jh_fix_note_rules(&last, unsafe, rep);
		size_t dropped = leave_out(&last, unsafe, sel, n_sel);
		jh_findings_clear(&last);
		if (!dropped || attempt == 2)
			return JH_OK; /* *out is the last text; converged stays 0 */
		free(*out);
	}
	return JH_OK;
}

int jh_fix(const jh_ruleset *rs, const char *text, size_t len, const jh_check_options *opts,
           int unsafe, char **out, size_t *out_len, jh_fix_report *report)
{
	jh_fix_report local = JH_FIX_REPORT_INIT;
	jh_fix_report *rep = report ? report : &local;
	unsigned version = rep->version; /* the caller's (version 1's fields are all) */
	memset(rep, 0, sizeof *rep);
	rep->version = version;
	if (!rs || !out || !out_len || (!text && len))
		return JH_ERR_ARG;
	if (!text)
		text = "";
	/* each round is a check: only of the rules that can give an edit */
	unsigned char *sel = malloc(rs->count ? rs->count : 1);
	if (!sel)
		return JH_ERR_NOMEM;
	if (opts && opts->enabled)
		memcpy(sel, opts->enabled, rs->count);
	else
		jh_ruleset_default_selection(rs, sel);
	jh_selection_for_fix(rs, sel, unsafe);
	fix_check fc = {rs, {0}};
	if (opts)
		fc.opts = *opts;
	char *fixed = NULL;
	size_t fixed_len = len;
	int rc = jh_fix_rounds(check_with, &fc, sel, rs->count, unsafe, text, len, &fixed,
	                       &fixed_len, rep);
	free(sel);
	if (rc)
		return rc;
	if (!fixed && !(fixed = jh_strndup(text, len)))
		return JH_ERR_NOMEM;
	*out = fixed;
	*out_len = fixed_len;
	return JH_OK;
}
