/* findings.c — finding records: creation with message templates, ordering,
 * merging duplicates, and turning byte offsets into lines and columns. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "findings.h"
#include "utf8.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static void finding_free(jh_finding *f)
{
	free(f->message);
	for (size_t i = 0; i < f->n_edits; i++)
		free(f->edits[i].replacement);
	free(f->edits);
}

void jh_findings_clear(jh_findings *list)
{
	for (size_t i = 0; i < list->count; i++)
		finding_free(&list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = list->capacity = 0;
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
	if (!(f->message = jh_strdup(message)))
		return JH_ERR_NOMEM;
	if (fix) {
		f->edits = malloc(sizeof *f->edits);
		if (!f->edits || !(f->edits[0].replacement = jh_strndup(fix, fix_len))) {
			free(f->edits);
			free(f->message);
			return JH_ERR_NOMEM;
		}
		f->edits[0].byte_start = start;
		f->edits[0].byte_end = end;
		f->n_edits = 1;
		f->has_fix = 1;
		f->safety = safety;
	}
	list->count++;
	return JH_OK;
}

static int fill_template(jh_buf *out, const char *tpl, const char *text, const jh_hit *h)
{
	for (const char *p = tpl; *p; p++) {
		if (*p == '{') {
			if (!strncmp(p, "{match}", 7)) {
				if (jh_buf_append(out, text + h->start, h->end - h->start))
					return JH_ERR_NOMEM;
				p += 6;
				continue;
			}
			if (!strncmp(p, "{fix}", 5)) {
				if (h->fix && jh_buf_append(out, h->fix, h->fix_len))
					return JH_ERR_NOMEM;
				p += 4;
				continue;
			}
			if (!strncmp(p, "{note}", 6)) {
				if (h->note && jh_buf_puts(out, h->note))
					return JH_ERR_NOMEM;
				p += 5;
				continue;
			}
		}
		if (jh_buf_putc(out, *p))
			return JH_ERR_NOMEM;
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

void jh_findings_sort(jh_findings *list, size_t from)
{
	if (list->count - from < 2)
		return;
	jh_finding *v = list->items + from;
	size_t n = list->count - from;
	qsort(v, n, sizeof *v, cmp_finding);
	size_t w = 1;
	for (size_t r = 1; r < n; r++) {
		if (cmp_finding(&v[r], &v[w - 1]) == 0 && strcmp(v[r].rule_id, v[w - 1].rule_id) == 0) {
			finding_free(&v[r]);
			continue;
		}
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
		if (cp >= 0x4E00 && cp <= 0x9FEF) {
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
		if (p[1] == '$') {
			if (jh_buf_putc(out, '$'))
				return JH_ERR_NOMEM;
			p++;
			continue;
		} else if (p[1] >= '0' && p[1] <= '9') {
			group = p[1] - '0';
			p++;
		} else if (p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			char name[64];
			size_t n = end ? (size_t)(end - p - 2) : 0;
			if (n == 0 || n >= sizeof name)
				return JH_ERR_ARG;
			memcpy(name, p + 2, n);
			name[n] = '\0';
			char *num_end;
			group = strtol(name, &num_end, 10);
			if (*num_end)
				group = code ? pcre2_substring_number_from_name(code, (PCRE2_SPTR)name) : -1;
			p = end;
		} else {
			return JH_ERR_ARG;
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
