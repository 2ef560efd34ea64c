/* findings.c — finding records: creation with message templates, ordering,
 * merging duplicates, and turning byte offsets into lines and columns. */
#define _GNU_SOURCE /* qsort_r */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "findings.h"
#include "utf8.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* ---- the store of a list's strings and edits ----
 *
 * A finding used to hold three pieces of its own from malloc: its message,
 * its edit and the replacement.  On a long damaged text the list holds
 * hundreds of thousands of findings that say the same few things (引号风格
 * 不统一 …, the fix “): each string is kept once (a jh_strset) and the edits
 * are carved from an arena, both freed with the list.  A 200 MB check
 * held about 60 MB in those pieces. */

struct jh_strings {
	jh_strset strings;
	jh_arena edits;
};

/* The list's copy of s[0..n), NUL-terminated; the same pointer for equal
 * strings.  NULL when memory runs out. */
static char *store_intern(jh_findings *list, const char *s, size_t n)
{
	if (!list->strings && !(list->strings = calloc(1, sizeof *list->strings)))
		return NULL;
	return (char *)jh_strset_intern(&list->strings->strings, s, n);
}

static jh_edit *store_edits(jh_findings *list, size_t n)
{
	return jh_arena_alloc(&list->strings->edits, n * sizeof(jh_edit), _Alignof(jh_edit));
}

int jh_findings_add_alternative(jh_findings *list, size_t index, const jh_edit *edits,
                                size_t n_edits)
{
	return jh_findings_add_scored_alternative(list, index, edits, n_edits, JH_SCORE_NONE);
}

int jh_findings_add_scored_alternative(jh_findings *list, size_t index, const jh_edit *edits,
                                       size_t n_edits, double score)
{
	if (index >= list->count || !n_edits || !edits || !(score <= 1.0))
		return JH_ERR_ARG;
	if (score < 0)
		score = JH_SCORE_NONE; /* one spelling of "none" for every reporter */
	jh_finding *f = &list->items[index];
	for (size_t i = 0; i < n_edits; i++) {
		if (edits[i].byte_end < edits[i].byte_start)
			return JH_ERR_ARG;
		if (!jh_edit_in_span(f, edits[i].byte_start, edits[i].byte_end))
			return JH_ERR_SPAN;
	}
	jh_edit *e = store_edits(list, n_edits);
	jh_alternative *alt = e ? jh_arena_alloc(&list->strings->edits,
	                                         (f->n_alternatives + 1) * sizeof *alt,
	                                         _Alignof(jh_alternative))
	                        : NULL;
	if (!alt)
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < n_edits; i++) {
		char *rep = store_intern(list, edits[i].replacement, strlen(edits[i].replacement));
		if (!rep)
			return JH_ERR_NOMEM;
		e[i] = (jh_edit){edits[i].byte_start, edits[i].byte_end, rep};
	}
	if (f->n_alternatives) /* the old array stays in the store until the list is cleared */
		memcpy(alt, f->alternatives, f->n_alternatives * sizeof *alt);
	alt[f->n_alternatives] = (jh_alternative){n_edits, e, score};
	f->alternatives = alt;
	f->n_alternatives++;
	return JH_OK;
}

void jh_findings_clear(jh_findings *list)
{
	free(list->items);
	list->items = NULL;
	list->count = list->capacity = 0;
	if (list->strings) {
		jh_strset_free(&list->strings->strings);
		jh_arena_free(&list->strings->edits);
		free(list->strings);
		list->strings = NULL;
	}
}

int jh_finding_set_message(jh_findings *list, jh_finding *f, const char *message)
{
	char *m = store_intern(list, message, strlen(message));
	if (!m)
		return JH_ERR_NOMEM;
	f->message = m;
	return JH_OK;
}

void jh_finding_drop_fix(jh_finding *f)
{
	f->edits = NULL;
	f->n_edits = 0;
	f->has_fix = 0;
}

int jh_findings_add_edit(jh_findings *list, size_t index, size_t byte_start, size_t byte_end,
                         const char *replacement)
{
	if (index >= list->count || byte_end < byte_start)
		return JH_ERR_ARG;
	jh_finding *f = &list->items[index];
	if (!jh_edit_in_span(f, byte_start, byte_end))
		return JH_ERR_SPAN;
	char *rep = store_intern(list, replacement, strlen(replacement));
	jh_edit *e = rep ? store_edits(list, f->n_edits + 1) : NULL;
	if (!e)
		return JH_ERR_NOMEM;
	if (f->n_edits) /* the old array stays in the store until the list is cleared */
		memcpy(e, f->edits, f->n_edits * sizeof *e);
	e[f->n_edits] = (jh_edit){byte_start, byte_end, rep};
	f->edits = e;
	f->n_edits++;
	f->has_fix = 1;
	return JH_OK;
}

int jh_findings_add(jh_findings *list, const char *rule_id, long rule_index, jh_severity sev,
                    size_t start, size_t end, const char *message, const char *fix,
                    size_t fix_len, jh_safety safety)
{
	if (jh_grow((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items))
		return JH_ERR_NOMEM;
	jh_finding *f = &list->items[list->count];
	memset(f, 0, sizeof *f);
	f->rule_id = rule_id;
	f->rule_index = rule_index;
	f->severity = sev;
	f->byte_start = start;
	f->byte_end = end;
	if (!(f->message = store_intern(list, message, strlen(message))))
		return JH_ERR_NOMEM;
	f->safety = safety; /* of its fix, and of the alternatives it may get */
	if (fix) {
		char *rep = store_intern(list, fix, fix_len);
		if (!rep || !(f->edits = store_edits(list, 1)))
			return JH_ERR_NOMEM;
		f->edits[0] = (jh_edit){start, end, rep};
		f->n_edits = 1;
		f->has_fix = 1;
	}
	list->count++;
	return JH_OK;
}

static int fill_template(jh_buf *out, const char *tpl, const char *text, const jh_hit *h)
{
	/* room for the template and the match at once, and the text between
	 * the placeholders copied a run at a time: a byte at a time, with the
	 * buffer grown from 8 bytes, was 5,000 instructions a finding */
	if (jh_buf_reserve(out, strlen(tpl) + (h->end - h->start) + h->fix_len))
		return JH_ERR_NOMEM;
	for (const char *p = tpl; *p;) {
		size_t run = *p == '{' ? 0 : strcspn(p, "{");
		if (run) {
			if (jh_buf_append(out, p, run))
				return JH_ERR_NOMEM;
			p += run;
		} else if (!strncmp(p, "{match}", 7)) {
			if (jh_buf_append(out, text + h->start, h->end - h->start))
				return JH_ERR_NOMEM;
			p += 7;
		} else if (!strncmp(p, "{fix}", 5)) {
			if (h->fix && jh_buf_append(out, h->fix, h->fix_len))
				return JH_ERR_NOMEM;
			p += 5;
		} else if (!strncmp(p, "{note}", 6)) {
			if (h->note && jh_buf_puts(out, h->note))
				return JH_ERR_NOMEM;
			p += 6;
		} else { /* a brace of the message itself */
			if (jh_buf_putc(out, *p++))
				return JH_ERR_NOMEM;
		}
	}
	return jh_buf_terminate(out);
}

int jh_findings_add_hit(jh_findings *list, const char *text, const jh_hit *h)
{
	jh_buf msg = {0};
	int rc = fill_template(&msg, h->rule->message, text, h);
	if (rc == JH_OK)
		rc = jh_findings_add(list, h->rule->id, h->rule_index, h->rule->severity, h->start,
		                     h->end, msg.data, h->fix, h->fix_len, h->safety);
	jh_buf_free(&msg);
	return rc;
}

static int cmp_finding(const void *a, const void *b)
{
	const jh_finding *x = a, *y = b;
	if (x->byte_start != y->byte_start)
		return x->byte_start < y->byte_start ? -1 : 1;
	if (x->byte_end != y->byte_end)
		return x->byte_end < y->byte_end ? -1 : 1;
	if (x->rule_index != y->rule_index)
		return x->rule_index < y->rule_index ? -1 : 1;
	return 0;
}

/* Positions into v, ordered by the finding they name; equal findings keep
 * their order (the index decides), as a stable sort would. */
static int cmp_index(const void *a, const void *b, void *ctx)
{
	const jh_finding *v = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = cmp_finding(&v[i], &v[j]);
	return c ? c : i < j ? -1 : i > j;
}

/* Sorting the records themselves made qsort take a second array of them
 * (glibc's merge sort): 52 MB more at the peak of a 200 MB check.  An
 * array of 4-byte indexes is sorted instead and the records are moved to
 * their places along the permutation's cycles, one spare record in all. */
static int sort_in_place(jh_finding *v, size_t n)
{
	if (n > UINT32_MAX)
		return -1;
	uint32_t *idx = malloc(n * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof *idx, cmp_index, v);
	for (size_t i = 0; i < n; i++) { /* position i takes record idx[i] */
		if (idx[i] == i)
			continue;
		jh_finding spare = v[i];
		size_t j = i;
		while (idx[j] != i) {
			size_t k = idx[j];
			v[j] = v[k];
			idx[j] = (uint32_t)j;
			j = k;
		}
		v[j] = spare;
		idx[j] = (uint32_t)j;
	}
	free(idx);
	return 0;
}

void jh_findings_sort(jh_findings *list, size_t from)
{
	if (list->count - from < 2)
		return;
	jh_finding *v = list->items + from;
	size_t n = list->count - from;
	if (sort_in_place(v, n)) /* no room for the indexes: the records themselves */
		qsort(v, n, sizeof *v, cmp_finding);
	size_t w = 1;
	for (size_t r = 1; r < n; r++) {
		if (cmp_finding(&v[r], &v[w - 1]) == 0 && strcmp(v[r].rule_id, v[w - 1].rule_id) == 0)
			continue; /* its strings stay in the list's store */
		v[w++] = v[r];
	}
	list->count = from + w;
}

/* A cursor that walks forward through the text counting lines, characters
 * and display columns, so locating all findings costs one pass. */
typedef struct {
	size_t pos, line, col, dcol;
} cursor;

/* Whole lines are skipped with memchr, and the common characters (ASCII
 * and the CJK ideographs U+4E00..U+9FEF, wide in every Unicode version
 * utf8proc knows) are measured without asking utf8proc: findings lie
 * hundreds of bytes apart and this walk covered the whole text. */
static void advance(cursor *c, const unsigned char *t, size_t len, size_t to)
{
	size_t stop = to < len ? to : len;
	const unsigned char *nl;
	/* a BOM is no character of the text: line 1's columns start after it */
	if (c->pos == 0 && stop >= 3 && len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3))
		c->pos = 3;
	while (c->pos < stop && (nl = memchr(t + c->pos, '\n', stop - c->pos))) {
		c->line++;
		c->col = c->dcol = 1;
		c->pos = (size_t)(nl - t) + 1;
	}
	while (c->pos < stop) {
		int32_t cp;
		size_t n = jh_utf8_decode(t + c->pos, len - c->pos, &cp);
		c->pos += n;
		c->col++;
		if (cp >= 0x4E00 && cp <= 0x9FEF) { /* width 2 without asking utf8proc: a fast
		                                     * path for display columns, not "Han" */
			c->dcol += 2;
		} else if (cp >= 0x20 && cp < 0x7F) {
			c->dcol++;
		} else if (cp < 0) {
			c->dcol++;
		} else {
			int w = utf8proc_charwidth(cp);
			c->dcol += w > 0 ? (size_t)w : (cp < 0x20 ? 1 : 0);
		}
	}
}

void jh_findings_locate(jh_findings *list, const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	cursor c = {0, 1, 1, 1};
	for (size_t i = 0; i < list->count; i++) {
		jh_finding *f = &list->items[i];
		if (f->byte_start < c.pos) /* unsorted input: restart */
			c = (cursor){0, 1, 1, 1};
		advance(&c, t, len, f->byte_start);
		f->line = c.line;
		f->column = c.col;
		f->display_column = c.dcol;
		cursor e = c;
		advance(&e, t, len, f->byte_end);
		f->end_line = e.line;
		f->end_column = e.col;
	}
}

const char *jh_template_ref(const char *p, const void *code, long *group)
{
	if (p[1] == '$') {
		*group = JH_TPL_DOLLAR;
		return p + 1;
	}
	if (p[1] >= '0' && p[1] <= '9') {
		*group = p[1] - '0';
		return p + 1;
	}
	if (p[1] != '{')
		return NULL;
	const char *end = strchr(p + 2, '}');
	char name[64];
	size_t n = end ? (size_t)(end - p - 2) : 0;
	if (n == 0 || n >= sizeof name)
		return NULL;
	memcpy(name, p + 2, n);
	name[n] = '\0';
	char *num_end;
	*group = strtol(name, &num_end, 10);
	if (*num_end)
		*group = code ? pcre2_substring_number_from_name(code, (PCRE2_SPTR)name) : -1;
	return end;
}

int jh_expand_template(const char *tpl, const char *text, const size_t *ov, uint32_t pairs,
                       const void *code, jh_buf *out)
{
	for (const char *p = tpl; *p; p++) {
		if (*p != '$') {
			if (jh_buf_putc(out, *p))
				return JH_ERR_NOMEM;
			continue;
		}
		long group;
		if (!(p = jh_template_ref(p, code, &group)))
			return JH_ERR_ARG;
		if (group == JH_TPL_DOLLAR) {
			if (jh_buf_putc(out, '$'))
				return JH_ERR_NOMEM;
			continue;
		}
		if (group < 0)
			return JH_ERR_ARG;
		if ((uint32_t)group < pairs && ov[2 * group] != (size_t)-1 &&
		    jh_buf_append(out, text + ov[2 * group], ov[2 * group + 1] - ov[2 * group]))
			return JH_ERR_NOMEM;
	}
	return jh_buf_terminate(out);
}

int jh_map_fix(const jh_rule *r, jh_buf *fix)
{
	if (!r->n_map || !fix->data)
		return JH_OK;
	jh_buf out = {0};
	if (jh_buf_reserve(&out, fix->len))
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < fix->len;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)fix->data + i, fix->len - i, &cp);
		size_t k = 0;
		while (k < r->n_map && r->map[2 * k] != cp)
			k++;
		char enc[4];
		int rc = k < r->n_map ? jh_buf_append(&out, enc, jh_utf8_encode(r->map[2 * k + 1], enc))
		                      : jh_buf_append(&out, fix->data + i, n);
		if (rc) {
			jh_buf_free(&out);
			return JH_ERR_NOMEM;
		}
		i += n;
	}
	jh_buf_free(fix);
	*fix = out;
	return jh_buf_terminate(fix);
}
