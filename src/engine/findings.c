/* findings.c — finding records: creation with message templates, ordering,
 * merging duplicates, and turning byte offsets into lines and columns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
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

/* What add_hit made of a template for a short match and fix and a note
 * (the same few do most of the talking: "，" for ",", "" for a trailing
 * space): the interned message and replacement, found again without
 * filling the template nor hashing the message (a malloc, a fill and two
 * interns were 1,250 instructions a finding).  Valid for one check (gen):
 * the template is the rule set's, which may be another at the next check.
 * The match and the fix are kept as two words each (their bytes, zeros
 * after), the note as the list's copy of it. */
#define HIT_SHORT 16
#define HIT_NOTE_MAX 96
#define HIT_MEMO_BITS 8
typedef struct {
	const char *tpl;
	unsigned gen;
	unsigned char mlen, flen, has_fix, nlen;
	uint64_t m[2], f[2];
	const char *note; /* the list's copy, or NULL for none */
	char *msg, *fix;
} hit_memo;

struct jh_strings {
	jh_strset strings;
	jh_arena edits;
	hit_memo *memo; /* 1 << HIT_MEMO_BITS slots, or NULL until wanted */
	jh_edit *spare; /* single edits carved from the arena ahead, n_spare of them */
	size_t n_spare;
	unsigned gen;   /* the current check's; memo slots of others are empty */
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
		free(list->strings->memo);
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

void jh_findings_new_check(jh_findings *list)
{
	if (list->strings)
		list->strings->gen++;
}

/* h's message from tpl into out, which has room for tpl, the match, the
 * fix and the note together (each placeholder is longer than nothing);
 * returns its length.  The text between placeholders is copied a run at
 * a time: a byte at a time, with the buffer grown from 8 bytes, was 5,000
 * instructions a finding. */
static size_t fill_template(char *out, const char *tpl, const char *text, const jh_hit *h,
                            size_t note_len)
{
	size_t n = 0;
	for (const char *p = tpl; *p;) {
		const char *open = strchr(p, '{');
		const char *part = p;
		size_t len;
		if (open != p) { /* the text up to the next placeholder, or the end */
			len = open ? (size_t)(open - p) : strlen(p);
			p += len;
		} else if (p[1] == 'm' && !strncmp(p, "{match}", 7)) {
			part = text + h->start;
			len = h->end - h->start;
			p += 7;
		} else if (p[1] == 'f' && !strncmp(p, "{fix}", 5)) {
			part = h->fix;
			len = h->fix ? h->fix_len : 0;
			p += 5;
		} else if (p[1] == 'n' && !strncmp(p, "{note}", 6)) {
			part = h->note;
			len = note_len;
			p += 6;
		} else { /* a brace of the message itself */
			len = 1;
			p++;
		}
		if (len)
			memcpy(out + n, part, len);
		n += len;
	}
	out[n] = '\0';
	return n;
}

/* The interned message of h, and its interned replacement in *fix (NULL
 * for none). */
static int hit_strings(jh_findings *list, const char *text, const jh_hit *h, char **msg,
                       char **fix)
{
	const char *tpl = h->rule->message;
	size_t note_len = h->note ? strlen(h->note) : 0;
	size_t room = strlen(tpl) + (h->end - h->start) + (h->fix ? h->fix_len : 0) + note_len + 1;
	char small[512], *buf = small;
	if (room > sizeof small && !(buf = malloc(room)))
		return JH_ERR_NOMEM;
	size_t n = fill_template(buf, tpl, text, h, note_len);
	*msg = store_intern(list, buf, n);
	if (buf != small)
		free(buf);
	*fix = NULL;
	if (!*msg || (h->fix && !(*fix = store_intern(list, h->fix, h->fix_len))))
		return JH_ERR_NOMEM;
	return JH_OK;
}

/* The n <= 16 bytes at s as two words, zeros after them: read in
 * overlapping pieces of fixed size, as many bytes as there are and no
 * more (s may end the text). */
static inline void short_words(const char *s, size_t n, uint64_t w[2])
{
	const unsigned char *u = (const unsigned char *)s;
	w[0] = w[1] = 0;
	if (n >= 8) {
		uint64_t hi;
		memcpy(&w[0], s, 8);
		memcpy(&hi, s + n - 8, 8);
		w[1] = n == 8 ? 0 : hi >> (8 * (16 - n));
	} else if (n >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, s, 4);
		memcpy(&hi, s + n - 4, 4);
		w[0] = lo | (uint64_t)hi << (8 * (n - 4));
	} else if (n) {
		w[0] = u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) | (uint64_t)u[n - 1] << (8 * (n - 1));
	}
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
	w[0] = w[1] = 0; /* the same bytes, in the order of the words: for equality only */
	for (size_t i = 0; i < n; i++)
		w[i / 8] |= (uint64_t)u[i] << (8 * (i % 8));
#endif
}

/* The memo's slot for h, filled (a miss) or found; NULL when h is not
 * one it keeps (a long match, fix or note) or on want of memory. */
static hit_memo *hit_lookup(jh_findings *list, const char *text, const jh_hit *h, int *rc)
{
	size_t mlen = h->end - h->start, flen = h->fix ? h->fix_len : 0;
	size_t nlen = h->note ? strlen(h->note) : 0;
	*rc = JH_OK;
	if (mlen > HIT_SHORT || flen > HIT_SHORT || nlen > HIT_NOTE_MAX)
		return NULL;
	if (!list->strings && !(list->strings = calloc(1, sizeof *list->strings)))
		return NULL;
	jh_strings *st = list->strings;
	if (!st->memo) {
		if (!(st->memo = calloc((size_t)1 << HIT_MEMO_BITS, sizeof *st->memo)))
			return NULL;
		st->gen++; /* slots of generation 0 are empty */
	}
	const char *tpl = h->rule->message;
	uint64_t m[2], f[2] = {0, 0}, nw[2];
	short_words(text + h->start, mlen, m);
	if (h->fix)
		short_words(h->fix, flen, f);
	short_words(h->note, nlen < 16 ? nlen : 16, nw);
	uint64_t n0 = nw[0] ^ nw[1];
	uint64_t k = (uint64_t)(uintptr_t)tpl * 0x9E3779B97F4A7C15ull ^
	             (m[0] + m[1] * 31 + (mlen << 16 | flen << 8 | nlen << 1 | !!h->fix)) *
	                 0xC2B2AE3D27D4EB4Full ^
	             (f[0] + f[1] * 31 + n0) * 0x165667B19E3779F9ull;
	k ^= k >> 29;
	k *= 0xBF58476D1CE4E5B9ull;
	hit_memo *e = &st->memo[k >> (64 - HIT_MEMO_BITS)];
	if (e->gen == st->gen && e->tpl == tpl && e->mlen == mlen && e->flen == flen &&
	    e->has_fix == !!h->fix && e->nlen == nlen && e->m[0] == m[0] && e->m[1] == m[1] &&
	    e->f[0] == f[0] && e->f[1] == f[1] && (!nlen || !memcmp(e->note, h->note, nlen)))
		return e;
	char *msg, *fix, *note = NULL;
	if ((*rc = hit_strings(list, text, h, &msg, &fix)))
		return NULL;
	if (nlen && !(note = store_intern(list, h->note, nlen))) {
		*rc = JH_ERR_NOMEM;
		return NULL;
	}
	*e = (hit_memo){tpl, st->gen, (unsigned char)mlen, (unsigned char)flen, !!h->fix,
	                (unsigned char)nlen, {m[0], m[1]}, {f[0], f[1]}, note, msg, fix};
	return e;
}

/* A finding of strings already interned. */
static int add_interned(jh_findings *list, const jh_hit *h, char *msg, char *fix)
{
	if (list->count == list->capacity &&
	    jh_grow((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items))
		return JH_ERR_NOMEM;
	jh_edit *e = NULL;
	if (fix) { /* most findings have one edit: taken from a batch */
		jh_strings *st = list->strings;
		if (!st->n_spare) {
			if (!(st->spare = store_edits(list, 64)))
				return JH_ERR_NOMEM;
			st->n_spare = 64;
		}
		e = st->spare++;
		st->n_spare--;
		*e = (jh_edit){h->start, h->end, fix};
	}
	jh_finding *f = &list->items[list->count];
	*f = (jh_finding){.rule_id = h->rule->id,
	                  .rule_index = h->rule_index,
	                  .severity = h->rule->severity,
	                  .byte_start = h->start,
	                  .byte_end = h->end,
	                  .message = msg,
	                  .has_fix = fix != NULL,
	                  .safety = h->safety, /* of its fix, and of the alternatives it may get */
	                  .n_edits = fix != NULL,
	                  .edits = e};
	list->count++;
	return JH_OK;
}

int jh_findings_add_hit(jh_findings *list, const char *text, const jh_hit *h)
{
	int rc;
	hit_memo *e = hit_lookup(list, text, h, &rc);
	if (e)
		return add_interned(list, h, e->msg, e->fix);
	if (rc)
		return rc;
	char *msg, *fix;
	if ((rc = hit_strings(list, text, h, &msg, &fix)))
		return rc;
	return add_interned(list, h, msg, fix);
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

static inline int finding_after(const jh_finding *x, const jh_finding *y)
{
	if (x->byte_start != y->byte_start)
		return x->byte_start > y->byte_start;
	if (x->byte_end != y->byte_end)
		return x->byte_end > y->byte_end;
	return x->rule_index > y->rule_index;
}

/* Sorting the records themselves made qsort take a second array of them
 * (glibc's merge sort): 52 MB more at the peak of a 200 MB check.  Their
 * positions (4 bytes each, and as many for the sort's second array) are
 * sorted instead, and the records moved to their places along the
 * permutation's cycles, one spare record in all.  The sort is a radix
 * sort of the starts, twelve bits a pass (stable: equal starts keep the
 * list's order), then equal starts put in order of end and rule, which
 * only a few share (qsort_r's callback on every pair was 460 instructions
 * a finding).  Each check adds its findings in text order: a list already
 * in order is seen in one pass and left as it is. */
static int sort_in_place(jh_finding *v, size_t n)
{
	if (n > UINT32_MAX)
		return -1;
	size_t i, max = 0;
	int ordered = 1;
	for (i = 1; i < n; i++)
		ordered &= !finding_after(&v[i - 1], &v[i]);
	if (ordered)
		return 0;
	uint32_t *a = malloc(2 * n * sizeof *a), *b = a + n;
	if (!a)
		return -1;
	for (i = 0; i < n; i++) {
		a[i] = (uint32_t)i;
		if (v[i].byte_start > max)
			max = v[i].byte_start;
	}
	/* digits of up to 12 bits, as few passes as the largest start needs;
	 * a few findings (an editor's paragraph): by insertion alone */
	unsigned bits = 0, passes, digit;
	while (bits < sizeof max * 8 && max >> bits)
		bits++;
	passes = n < 32 ? 0 : (bits + 11) / 12;
	digit = passes ? (bits + passes - 1) / passes : 0;
	for (unsigned pass = 0, shift = 0; pass < passes; pass++, shift += digit) {
		size_t count[4096], mask = ((size_t)1 << digit) - 1;
		memset(count, 0, (mask + 1) * sizeof *count);
		for (i = 0; i < n; i++)
			count[v[a[i]].byte_start >> shift & mask]++;
		for (size_t d = 0, sum = 0; d <= mask; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[v[a[i]].byte_start >> shift & mask]++] = a[i];
		uint32_t *t = a;
		a = b;
		b = t;
	}
	for (i = 1; i < n; i++) { /* equal starts by end and rule (all, when few): insertion */
		if (!finding_after(&v[a[i - 1]], &v[a[i]]))
			continue;
		uint32_t k = a[i];
		size_t j = i;
		while (j > 0 && finding_after(&v[a[j - 1]], &v[k])) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = k;
	}
	for (i = 0; i < n; i++) { /* position i takes record a[i] */
		if (a[i] == i)
			continue;
		jh_finding spare = v[i];
		size_t j = i;
		while (a[j] != i) {
			size_t m = a[j];
			v[j] = v[m];
			a[j] = (uint32_t)j;
			j = m;
		}
		v[j] = spare;
		a[j] = (uint32_t)j;
	}
	free(a < b ? a : b);
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
		if (w != r)
			v[w] = v[r];
		w++;
	}
	list->count = from + w;
}

/* A cursor that walks forward through the text counting lines, characters
 * and display columns, so locating all findings costs one pass. */
/* The display widths of the characters a walk asked utf8proc for, by
 * code point (0: an empty slot; those asked for are above 0x7F). */
#define WIDTH_MEMO 32
typedef struct {
	int32_t cp[WIDTH_MEMO];
	unsigned char w[WIDTH_MEMO];
} width_memo;

typedef struct {
	size_t pos, line, col, dcol;
	width_memo *widths;
} cursor;

/* A character the fast paths of advance leave: decoded, and measured as
 * utf8proc says (control characters 1, invalid bytes 1 each). */
/* The display width of a character asked of utf8proc once a walk (by
 * its code point, in the memo). */
static inline unsigned memo_width(width_memo *m, int32_t cp)
{
	unsigned h = ((unsigned)cp ^ (unsigned)cp >> 5) & (WIDTH_MEMO - 1);
	if (m->cp[h] != cp) {
		int w = utf8proc_charwidth(cp);
		m->cp[h] = cp;
		m->w[h] = (unsigned char)(w > 0 ? w : (cp < 0x20 ? 1 : 0));
	}
	return m->w[h];
}

static size_t advance_other(cursor *c, const unsigned char *t, size_t len)
{
	int32_t cp;
	size_t n = jh_utf8_decode(t + c->pos, len - c->pos, &cp);
	c->pos += n;
	c->col++;
	if (cp >= 0x4E00 && cp <= 0x9FEF) { /* width 2 without asking utf8proc */
		c->dcol += 2;
	} else if (cp >= 0x20 && cp < 0x7F) {
		c->dcol++;
	} else if (cp < 0) {
		c->dcol++;
	} else {
		c->dcol += memo_width(c->widths, cp);
	}
	return n;
}

/* Does t[p..] start with a CJK ideograph U+4E00..U+9FEF (three bytes,
 * lead E4..E9)?  UTF-8 keeps the order of code points: a well-formed
 * three-byte sequence is one of them when its bytes, read as a big-endian
 * number, lie between those of the two ends. */
static inline int cjk_at(const unsigned char *t, size_t p, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (len - p >= 4) {
		uint32_t x;
		memcpy(&x, t + p, 4);
		return (x & 0xC0C0F0u) == 0x8080E0u &&
		       (__builtin_bswap32(x) >> 8) - 0xE4B880u <= 0xE9BFAFu - 0xE4B880u;
	}
#endif
	if (len - p < 3 || (t[p + 1] & 0xC0) != 0x80 || (t[p + 2] & 0xC0) != 0x80)
		return 0;
	uint32_t be = (uint32_t)t[p] << 16 | (uint32_t)t[p + 1] << 8 | t[p + 2];
	return be - 0xE4B880u <= 0xE9BFAFu - 0xE4B880u;
}

/* The newlines in t[a..b), and where the last one is (*last, when there
 * is one): counted sixteen bytes a step, the counts of each lane summed
 * every 255 steps (before a lane's byte can overflow), then the last one
 * looked for from b back.  (A memchr for each line was a sixth of the
 * walk; a memrchr and a count, one call each, a tenth.) */
static size_t lines_in(const unsigned char *t, size_t a, size_t b, size_t *last)
{
	size_t n = 0, i = a;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (b - i >= 16) {
		size_t steps = (b - i) / 16 < 255 ? (b - i) / 16 : 255;
		__m128i acc = zero, acc2 = zero;
		size_t k = 0;
		for (; k + 2 <= steps; k += 2, i += 32) { /* two blocks a step */
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + i)), nl));
			acc2 = _mm_sub_epi8(acc2,
			                    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + i + 16)), nl));
		}
		if (k < steps) {
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + i)), nl));
			i += 16;
		}
		__m128i sum = _mm_add_epi64(_mm_sad_epu8(acc, zero), _mm_sad_epu8(acc2, zero));
		n += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
	}
	if (i < b && b >= 16) { /* the rest: the block ending at b, its bytes before i left out */
		static const unsigned char tail[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		                                       1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
		__m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + b - 16)), nl);
		__m128i sum = _mm_sad_epu8(
		    _mm_and_si128(eq, _mm_loadu_si128((const __m128i *)(tail + (b - i)))), zero);
		n += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
		i = b;
	}
#endif
	for (; i < b; i++)
		n += t[i] == '\n';
	if (!n)
		return 0;
	size_t e = b;
#ifdef __SSE2__
	for (; e - a >= 16; e -= 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(
		    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + e - 16)), nl));
		if (m) {
			*last = e - 16 + 31 - (size_t)__builtin_clz(m);
			return n;
		}
	}
#endif
	while (t[--e] != '\n') /* there is one in t[a..e) */
		;
	*last = e;
	return n;
}

#ifdef __SSE2__
/* The sixteen bytes at t + p (p the start of a character) measured at
 * once when they hold only ASCII and CJK ideographs (three bytes, lead
 * E4..E9; the ends of the range, U+4E00 and U+9FEF, told by the second
 * byte, E9 BF left to the walk a character at a time): returns the bytes
 * taken (whole characters: 14 to 16), or 0 for a block with anything
 * else.  Each byte gets a weight, 1 for a character's first byte plus 32
 * times its display width (DEL none), summed by _mm_sad_epu8. */
static size_t measure16(const unsigned char *t, size_t p, size_t *col, size_t *dcol)
{
	static const unsigned char keep_bytes[32] = {255, 255, 255, 255, 255, 255, 255, 255,
	                                             255, 255, 255, 255, 255, 255, 255, 255};
	const __m128i zero = _mm_setzero_si128();
	__m128i v = _mm_loadu_si128((const __m128i *)(t + p));
	__m128i ascii = _mm_cmpgt_epi8(v, _mm_set1_epi8(-1));
	__m128i del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F));
	__m128i w, one = _mm_set1_epi8(1), w_ascii = _mm_set1_epi8(1 + 32);
	size_t k = 16;
	unsigned high = (unsigned)_mm_movemask_epi8(v);
	if (!high) {
		w = _mm_andnot_si128(del, w_ascii);
		w = _mm_or_si128(w, _mm_and_si128(del, one));
	} else {
		__m128i cont = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xC0)),
		                              _mm_set1_epi8((char)0x80));
		__m128i off = _mm_sub_epi8(v, _mm_set1_epi8((char)0xE4));
		__m128i lead = _mm_cmpeq_epi8(_mm_min_epu8(off, _mm_set1_epi8(5)), off);
		unsigned C = (unsigned)_mm_movemask_epi8(cont), L = (unsigned)_mm_movemask_epi8(lead);
		if (high & ~(C | L))
			return 0; /* another kind of character, or an invalid byte */
		if (L & 0xC000) /* a character running past the block: the bytes before it */
			k = L & 0x4000 ? 14 : 15;
		unsigned keep = (1u << k) - 1;
		L &= keep;
		if ((C & keep) != (L << 1 | L << 2))
			return 0; /* a lead without its two continuation bytes, or a stray one */
		/* E4 needs a second byte from B8 (U+4E00 on), E9 one below BF
		 * (U+9FC0 on is left to the walk): the second bytes beside
		 * their leads */
		__m128i nx = _mm_srli_si128(v, 1);
		__m128i low = _mm_andnot_si128(
		    _mm_cmpeq_epi8(_mm_and_si128(nx, _mm_set1_epi8((char)0xF8)), _mm_set1_epi8((char)0xB8)),
		    _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE4)));
		__m128i high9 = _mm_and_si128(_mm_cmpeq_epi8(nx, _mm_set1_epi8((char)0xBF)),
		                              _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE9)));
		if ((unsigned)_mm_movemask_epi8(_mm_or_si128(low, high9)) & L)
			return 0; /* below U+4E00, or perhaps above U+9FEF */
		/* DEL is ASCII of width 0: 33 - 32 */
		w = _mm_sub_epi8(_mm_and_si128(ascii, w_ascii), _mm_and_si128(del, _mm_set1_epi8(32)));
		w = _mm_add_epi8(w, _mm_and_si128(lead, _mm_set1_epi8(1 + 64)));
		w = _mm_and_si128(w, _mm_loadu_si128((const __m128i *)(keep_bytes + 16 - k)));
	}
	__m128i sum = _mm_sad_epu8(w, zero);
	size_t s = (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
	*col += s & 31;
	*dcol += s >> 5;
	return k;
}
#endif

/* One character at t + p: ASCII (one column wide, DEL none), a CJK
 * ideograph by its bytes, or anything else decoded and measured as
 * utf8proc says (asked once a walk: advance_other).  Returns the next
 * position. */
static inline size_t measure_char(const unsigned char *t, size_t p, size_t len, size_t *col,
                                  size_t *dcol, width_memo *widths)
{
	unsigned b = t[p];
	if (b < 0x80) {
		++*col;
		*dcol += b != 0x7F;
		return p + 1;
	}
	if (cjk_at(t, p, len)) {
		++*col;
		*dcol += 2;
		return p + 3;
	}
	cursor c = {p, 0, *col, *dcol, widths};
	advance_other(&c, t, len);
	*col = c.col;
	*dcol = c.dcol;
	return c.pos;
}

/* The lines up to stop are counted, not walked one by one (a memchr a
 * line was a sixth of the walk), and the characters of the last line are
 * measured sixteen bytes at a time where they are ASCII and CJK
 * ideographs (measure16), else one by one without decoding the common
 * ones nor asking utf8proc.  Findings lie hundreds of bytes apart and
 * this walk covers the lines they are on: decoding each character was 38
 * instructions. */
static void advance(cursor *c, const unsigned char *t, size_t len, size_t to)
{
	size_t stop = to < len ? to : len;
	/* a BOM is no character of the text: line 1's columns start after it */
	if (c->pos == 0 && stop >= 3 && len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3))
		c->pos = 3;
	if (c->pos < stop) {
		size_t last, n = lines_in(t, c->pos, stop, &last);
		if (n) {
			c->line += n;
			c->col = c->dcol = 1;
			c->pos = last + 1;
		}
	}
	size_t p = c->pos, col = c->col, dcol = c->dcol;
	while (p < stop) {
		size_t lim = stop;
#ifdef __SSE2__
		if (stop - p >= 16) {
			size_t k = measure16(t, p, &col, &dcol);
			if (k) {
				p += k;
				continue;
			}
			lim = p + 16; /* the block's characters one by one, then try again */
		}
#endif
		do
			p = measure_char(t, p, len, &col, &dcol, c->widths);
		while (p < lim);
	}
	c->pos = p;
	c->col = col;
	c->dcol = dcol;
}

void jh_findings_locate(jh_findings *list, const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	width_memo widths;
	memset(&widths, 0, sizeof widths);
	cursor c = {0, 1, 1, 1, &widths}, e = c;
	for (size_t i = 0; i < list->count; i++) {
		jh_finding *f = &list->items[i];
		if (c.pos && f->byte_start >= e.pos && e.pos > c.pos)
			c = e; /* on from the last span's end (not from 0: a BOM is skipped only there) */
		else if (f->byte_start < c.pos) /* unsorted input: restart */
			c = (cursor){0, 1, 1, 1, &widths};
		advance(&c, t, len, f->byte_start);
		f->line = c.line;
		f->column = c.col;
		f->display_column = c.dcol;
		/* the span, mostly a character or two on the line: walked here
		 * up to a line break, the rest (if any) by advance */
		e = c;
		size_t end = f->byte_end < len ? f->byte_end : len;
		if (e.pos) /* (at 0, advance skips a BOM) */
			while (e.pos < end && t[e.pos] != '\n')
				e.pos = measure_char(t, e.pos, len, &e.col, &e.dcol, e.widths);
		if (e.pos < end)
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
		if (*p != '$') { /* the run up to the next reference, at once */
			size_t run = strcspn(p, "$");
			if (jh_buf_append(out, p, run))
				return JH_ERR_NOMEM;
			p += run - 1;
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

/* fix[0..len) through r's map into out (room for 4 bytes a byte of fix:
 * no character grows more); returns the length. */
static size_t map_chars(const jh_rule *r, const char *fix, size_t len, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)fix + i, len - i, &cp);
		size_t k = 0;
		while (k < r->n_map && r->map[2 * k] != cp)
			k++;
		if (k < r->n_map) {
			o += jh_utf8_encode(r->map[2 * k + 1], out + o);
		} else {
			memcpy(out + o, fix + i, n);
			o += n;
		}
		i += n;
	}
	return o;
}

int jh_map_fix(const jh_rule *r, jh_buf *fix)
{
	if (!r->n_map || !fix->data || !fix->len) /* data is NUL-terminated */
		return JH_OK;
	/* a fix is mostly a character or two: mapped on the stack and put
	 * back in fix's own buffer (a malloc and a free a finding before) */
	char small[256], *out = small;
	if (fix->len > sizeof small / 4 && !(out = malloc(4 * fix->len)))
		return JH_ERR_NOMEM;
	size_t n = map_chars(r, fix->data, fix->len, out);
	fix->len = 0;
	int rc = jh_buf_append(fix, out, n);
	if (out != small)
		free(out);
	return rc;
}
