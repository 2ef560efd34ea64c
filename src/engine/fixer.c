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
	char *cur = jh_strndup(text ? text : "", len);
	if (!cur)
		return JH_ERR_NOMEM;
	size_t cur_len = len;
	int rc = JH_OK;
	rep->converged = 0;
	/* each round is a check: only of the rules that can give an edit */
	unsigned char *sel = malloc(rs->count ? rs->count : 1);
	if (!sel) {
		free(cur);
		return JH_ERR_NOMEM;
	}
	if (opts && opts->enabled)
		memcpy(sel, opts->enabled, rs->count);
	else
		jh_ruleset_default_selection(rs, sel);
	jh_selection_for_fix(rs, sel, unsafe);
	jh_check_options fix_opts = {0};
	if (opts)
		fix_opts = *opts;
	fix_opts.enabled = sel;
	opts = &fix_opts;
	for (unsigned round = 0; round < JH_FIX_MAX_ROUNDS; round++) {
		jh_findings fs = JH_FINDINGS_INIT;
		rc = jh_check(rs, cur, cur_len, opts, &fs);
		char *next = NULL;
		size_t next_len = 0, applied = 0;
		if (rc == JH_OK)
			rc = jh_apply_fixes(cur, cur_len, &fs, unsafe, &next, &next_len, &applied);
		if (rc) {
			jh_findings_clear(&fs);
			break;
		}
		rep->rounds = round + 1;
		int changed = applied && (next_len != cur_len || memcmp(next, cur, cur_len) != 0);
		if (!changed) {
			free(next);
			jh_findings_clear(&fs);
			rep->converged = 1;
			break;
		}
		rep->edits_applied += applied;
		if (round + 1 == JH_FIX_MAX_ROUNDS)
			jh_fix_note_rules(&fs, unsafe, rep);
		jh_findings_clear(&fs);
		free(cur);
		cur = next;
		cur_len = next_len;
	}
	if (rc) {
		free(cur);
		free(sel);
		return rc;
	}
	if (!rep->converged) {
		/* One more look: if the last round left nothing to do, it did converge. */
		jh_findings fs = JH_FINDINGS_INIT;
		char *next = NULL;
		size_t next_len, applied = 0;
		if (jh_check(rs, cur, cur_len, opts, &fs) == JH_OK &&
		    jh_apply_fixes(cur, cur_len, &fs, unsafe, &next, &next_len, &applied) == JH_OK &&
		    (!applied || (next_len == cur_len && memcmp(next, cur, cur_len) == 0))) {
			rep->converged = 1;
			rep->unstable_rules[0] = '\0';
		}
		free(next);
		jh_findings_clear(&fs);
	}
	free(sel);
	*out = cur;
	*out_len = cur_len;
	return JH_OK;
}
