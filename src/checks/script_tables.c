/* script_tables.c — the tables of the variant checks (rules/data/script-*.tsv,
 * made by rules/tools/gen-script-tables.py from OpenCC and jieba): the
 * characters of each variant, the phrase table of conversion errors (built,
 * or mapped from the cache folder), the regional forms; and the compiling
 * of the variant, conversion and regional checks. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/mman.h>
#include <utf8proc.h>
#include "builtins.h"
#include "charclass.h"
#include "tablecache.h"
#include "utf8.h"

#include "script.h"


void variant_free(void *p)
{
	variant_cfg *c = p;
	if (!c)
		return;
	chars_release(c->chars);
	if (c->mode != MODE_REGIONAL) {
		jh_lazy_destroy(&c->phrases_once);
		jh_lazy_destroy(&c->pairs_once);
	}
	if (c->ph_map) {
		munmap(c->ph_map, c->ph_map_len);
	} else {
		free((char *)c->ph_text);
		free((phrase_ent *)c->ph);
		free((uint32_t *)c->index);
	}
	if (c->own_bmp)
		free(c->bmp);
	free(c->pairs);
	free(c->group);
	free(c);
}

static int cmp_ent(const void *a, const void *b)
{
	const char_ent *x = a, *y = b;
	return (x->cp > y->cp) - (x->cp < y->cp);
}

const char_ent *find_ent(const variant_cfg *c, int32_t cp)
{
	char_ent key = {cp, 0, NULL};
	return bsearch(&key, c->ents, c->n_ents, sizeof key, cmp_ent);
}

int parse_variant(const char *v)
{
	if (!v || !strcmp(v, "auto"))
		return V_NONE;
	if (!strcmp(v, "hans"))
		return V_HANS;
	if (!strcmp(v, "hant"))
		return V_HANT;
	return -1;
}

/* The character table (script-chars.tsv): the three variant checks read
 * the same file, so it is parsed once per process and shared (jh_shared,
 * keyed by its path). */
typedef struct script_chars {
	char *text;              /* the table split in place, or in the map */
	size_t text_len;         /* with its terminating NUL */
	void *map;               /* the compiled form (see chars_map), or NULL */
	size_t map_len;
	char_ent *ents;          /* sorted by code point */
	size_t n_ents;
	uint8_t *bmp;            /* F_HANS / F_HANT of every BMP code point */
} script_chars;

static void chars_free(void *obj)
{
	script_chars *t = obj;
	if (t->map)
		munmap(t->map, t->map_len);
	else
		free(t->text);
	free(t->ents);
	free(t->bmp);
	free(t);
}

void chars_release(struct script_chars *t)
{
	jh_shared_release(t);
}

/* Parse char<TAB>hans|hant<TAB>forms lines; others are skipped. */
static int chars_parse(script_chars *t, jh_tsv *tsv)
{
	size_t cap = 0;
	if (!(t->bmp = calloc(0x10000, 1)))
		return JH_ERR_NOMEM;
	char *f[3];
	size_t fl[3];
	while (jh_tsv_next(tsv, f, fl, 3) == 3) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)f[0], fl[0], &cp);
		if (cp < 0 || n != fl[0])
			continue;
		uint8_t fla = !strcmp(f[1], "hans") ? F_HANS : !strcmp(f[1], "hant") ? F_HANT : 0;
		if (!fla)
			continue;
		if (jh_grow((void **)&t->ents, &cap, t->n_ents + 1, sizeof *t->ents))
			return JH_ERR_NOMEM;
		t->ents[t->n_ents++] = (char_ent){cp, fla, f[2]};
		if (cp < 0x10000)
			t->bmp[cp] |= fla;
	}
	int sorted = 1; /* the generator writes them in order; a hand-edited file may not be */
	for (size_t i = 1; i < t->n_ents && sorted; i++)
		sorted = t->ents[i - 1].cp < t->ents[i].cp;
	if (!sorted)
		qsort(t->ents, t->n_ents, sizeof *t->ents, cmp_ent);
	return JH_OK;
}

/* ---- the character table's compiled form ----
 *
 * Parsing the 7,900 lines of script-chars.tsv was 2.7 M instructions of
 * every start (a one-line check is 23 M).  The compiled form holds the
 * entries with their forms as offsets into the split text, and the text;
 * the BMP flags are set again from the entries (8,000 stores).  The text
 * stays mapped: the entries point into it. */

#define CHARS_MAGIC "JHCHRS\0\1"

typedef struct {
	int32_t cp;
	uint32_t flags;
	uint32_t forms;          /* offset in the text */
	uint32_t pad;
} chars_cent;

#define CHARS_LAYOUT ((uint32_t)sizeof(chars_cent))

typedef struct {
	uint64_t n_ents, text_len;
} chars_counts;

static int chars_bmp(script_chars *t)
{
	if (!(t->bmp = calloc(0x10000, 1)))
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < t->n_ents; i++)
		if (t->ents[i].cp < 0x10000)
			t->bmp[t->ents[i].cp] |= t->ents[i].flags;
	return JH_OK;
}

/* 0 when t is the checked map (entries in order, offsets in range, the
 * text ending in a NUL); -1 to build it; JH_ERR_NOMEM. */
static int chars_map(script_chars *t, const char *cache, const char *path)
{
	void *map;
	size_t len;
	if (jh_cache_map(cache, path, "chars", CHARS_MAGIC, CHARS_LAYOUT, &map, &len) != 0)
		return -1;
	const char *base = map;
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	chars_counts h = {0};
	int ok = len >= at + sizeof h;
	size_t ents = 0, text = 0;
	if (ok) {
		memcpy(&h, base + at, sizeof h);
		ents = jh_cache_align(at + sizeof h);
		ok = h.n_ents < ((size_t)1 << 24) && h.text_len && h.text_len < UINT32_MAX;
		if (ok) {
			text = jh_cache_align(ents + h.n_ents * sizeof(chars_cent));
			ok = text + h.text_len == len && !base[len - 1];
		}
	}
	const chars_cent *ce = (const chars_cent *)(base + ents);
	for (size_t i = 0; ok && i < h.n_ents; i++)
		ok = ce[i].cp >= 0 && ce[i].cp <= 0x10FFFF && (i == 0 || ce[i - 1].cp < ce[i].cp) &&
		     (ce[i].flags == F_HANS || ce[i].flags == F_HANT) && ce[i].forms < h.text_len;
	if (ok && h.n_ents && !(t->ents = malloc(h.n_ents * sizeof *t->ents))) {
		munmap(map, len);
		return JH_ERR_NOMEM;
	}
	if (!ok) {
		munmap(map, len);
		return -1;
	}
	t->map = map;
	t->map_len = len;
	t->text = (char *)base + text;
	t->text_len = h.text_len;
	for (size_t i = 0; i < h.n_ents; i++)
		t->ents[i] = (char_ent){ce[i].cp, (uint8_t)ce[i].flags, t->text + ce[i].forms};
	t->n_ents = h.n_ents;
	return chars_bmp(t);
}

static void chars_store(const script_chars *t, const char *cache, const char *path)
{
	if (!t->text || t->text_len >= UINT32_MAX)
		return;
	chars_cent *ce = malloc((t->n_ents ? t->n_ents : 1) * sizeof *ce);
	if (!ce)
		return;
	for (size_t i = 0; i < t->n_ents; i++)
		ce[i] = (chars_cent){t->ents[i].cp, t->ents[i].flags, (uint32_t)(t->ents[i].forms - t->text), 0};
	chars_counts h = {t->n_ents, t->text_len};
	const jh_cache_section s[] = {
		{&h, sizeof h},
		{ce, t->n_ents * sizeof *ce},
		{t->text, t->text_len},
	};
	jh_cache_store(cache, path, "chars", CHARS_MAGIC, CHARS_LAYOUT, s, sizeof s / sizeof *s);
	free(ce);
}

typedef struct {
	const jh_rule *r;
	const char *file, *path;
	unsigned line;
	jh_diag_fn diag_fn;
	void *payload;
} chars_arg;

/* The table mapped from the cache folder, else read and cached. */
static int chars_load(void *arg, void **obj)
{
	const chars_arg *a = arg;
	script_chars *t = calloc(1, sizeof *t);
	if (!t)
		return JH_ERR_NOMEM;
	*obj = t;
	const char *cache = a->r->cache_dir;
	int rc = cache ? chars_map(t, cache, a->path) : -1;
	if (rc >= 0)
		return rc;
	jh_tsv tsv;
	rc = jh_data_open(&tsv, NULL, a->file, a->r, a->line, a->diag_fn, a->payload);
	if (rc == JH_OK)
		rc = chars_parse(t, &tsv);
	t->text_len = tsv.len + 1; /* with jh_tsv's terminating NUL */
	t->text = jh_tsv_take(&tsv);
	if (rc == JH_OK && cache)
		chars_store(t, cache, a->path);
	return rc;
}

static int chars_get(const jh_rule *r, const char *file, unsigned line, script_chars **out,
                     jh_diag_fn diag_fn, void *payload)
{
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	chars_arg a = {r, file, path, line, diag_fn, payload};
	void *obj;
	int rc = jh_shared_get(path, 0, chars_load, &a, chars_free, &obj);
	free(path);
	*out = obj;
	return rc;
}

static int load_chars(variant_cfg *c, const jh_rule *r, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *file = jh_rule_param(r, "chars", &line);
	int rc = chars_get(r, file ? file : "script-chars.tsv", line, &c->chars, diag_fn, payload);
	if (rc)
		return rc;
	c->bmp = c->chars->bmp;
	c->ents = c->chars->ents;
	c->n_ents = c->chars->n_ents;
	return JH_OK;
}

const phrase_ent *find_phrase(const variant_cfg *c, const char *s, size_t n)
{
	if (!c->index || n > c->max_phrase)
		return NULL;
	for (size_t h = jh_hash(s, n) & c->index_mask;; h = (h + 1) & c->index_mask) {
		uint32_t e = c->index[h];
		if (!e)
			return NULL;
		const phrase_ent *p = &c->ph[e - 1];
		if (p->wrong_len == n && !memcmp(c->ph_text + p->wrong, s, n))
			return p;
	}
}

/* Characters that stand where a conversion put the wrong one (髮 in 髮起):
 * only they send the phrase check looking around them. */
static void mark_suspects(variant_cfg *c, const char *w, size_t wl, const char *r, size_t rl)
{
	size_t i = 0, j = 0;
	while (i < wl && j < rl) {
		int32_t a, b;
		size_t na = jh_utf8_decode((const unsigned char *)w + i, wl - i, &a);
		size_t nb = jh_utf8_decode((const unsigned char *)r + j, rl - j, &b);
		if (a != b && a >= 0 && a < 0x10000)
			c->bmp[a] |= F_SUSPECT;
		i += na;
		j += nb;
	}
}

/* The phrase table of the conversion check, or the word table of the
 * mixed-variant check (the same format, keys with a prefix). */
static const char *phrases_file(const variant_cfg *c, unsigned *line)
{
	const jh_rule *r = c->rule;
	*line = r->line;
	const char *file = jh_rule_param(r, "phrases", line);
	return file ? file : c->mode == MODE_CHARS ? "script-words.tsv" : "script-phrases.tsv";
}

/* Mark the suspects of the phrase table open in f (then closed): 1 when
 * it was read to its end. */
static int mark_file(variant_cfg *c, FILE *f)
{
	char *ln = NULL;
	size_t cap = 0;
	ssize_t got;
	while ((got = getline(&ln, &cap, f)) > 0) {
		/* each line split as the table's reader will split it */
		jh_tsv t = {ln, (size_t)got, 0, 0, NULL};
		char *fld[4];
		size_t fl[4];
		int nf = jh_tsv_next(&t, fld, fl, 4);
		if (nf >= 2 && fl[0] && fl[1])
			mark_suspects(c, fld[0], fl[0], fld[1], strcspn(fld[1], "|"));
	}
	free(ln);
	int whole = feof(f) && !ferror(f);
	fclose(f);
	return whole;
}

/* The suspects as found in a phrase table: their code points, in the cache
 * folder (kind "suspects", keyed by the phrase table).  Reading the 600 KB
 * table line by line for them was 3.7 M instructions of every start. */

#define SUSPECTS_MAGIC "JHSUSP\0\1"
#define SUSPECTS_LAYOUT ((uint32_t)sizeof(uint16_t))

static int suspects_map(variant_cfg *c, const char *cache, const char *path)
{
	void *map;
	size_t len;
	if (jh_cache_map(cache, path, "suspects", SUSPECTS_MAGIC, SUSPECTS_LAYOUT, &map, &len) != 0)
		return -1;
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	uint64_t n = 0;
	if (len >= at + sizeof n)
		memcpy(&n, (const char *)map + at, sizeof n);
	at = jh_cache_align(at + sizeof n);
	if (len < at || n != (len - at) / sizeof(uint16_t) || (len - at) % sizeof(uint16_t)) {
		munmap(map, len);
		return -1;
	}
	const uint16_t *cp = (const uint16_t *)((const char *)map + at);
	for (size_t i = 0; i < n; i++)
		c->bmp[cp[i]] |= F_SUSPECT;
	munmap(map, len);
	return 0;
}

static void suspects_store(const variant_cfg *c, const char *cache, const char *path)
{
	uint64_t n = 0;
	for (size_t cp = 0; cp < 0x10000; cp++)
		n += (c->bmp[cp] & F_SUSPECT) != 0;
	uint16_t *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return;
	size_t k = 0;
	for (size_t cp = 0; cp < 0x10000; cp++)
		if (c->bmp[cp] & F_SUSPECT)
			v[k++] = (uint16_t)cp;
	const jh_cache_section s[] = {{&n, sizeof n}, {v, n * sizeof *v}};
	jh_cache_store(cache, path, "suspects", SUSPECTS_MAGIC, SUSPECTS_LAYOUT, s, 2);
	free(v);
}

/* Which characters are suspects: the phrase table read line by line
 * through one small buffer, keeping nothing but their flags (in this
 * check's own copy of the character flags).  The table itself, 600 KB
 * and 4,700 entries, is read only when a traditional paragraph has a
 * suspect: reading it at every start was a third of a hook's page faults,
 * and each new page costs this VM 10-15 us. */
static int scan_suspects(variant_cfg *c, const jh_rule *r, jh_diag_fn diag_fn, void *payload)
{
	unsigned line;
	const char *file = phrases_file(c, &line);
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	uint8_t *own = malloc(0x10000);
	if (!own) {
		free(path);
		return JH_ERR_NOMEM;
	}
	memcpy(own, c->bmp, 0x10000); /* the shared flags, and this check's suspects */
	c->bmp = own;
	c->own_bmp = 1;
	const char *cache = r->cache_dir;
	int mapped = cache && suspects_map(c, cache, path) == 0;
	FILE *f = mapped ? NULL : fopen(path, "rb");
	if (!mapped && !f)
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "cannot read %s", path);
	if (!mapped && !f) {
		free(path);
		return JH_ERR_RULES;
	}
	if (f && mark_file(c, f) && cache)
		suspects_store(c, cache, path);
	free(path);
	/* 150余騎兵, 20裡: checked by numeral_fix(), not by the table */
	c->bmp[0x4F59] |= F_SUSPECT; /* 余 */
	c->bmp[0x88E1] |= F_SUSPECT; /* 裡 */
	c->bmp[0x88CF] |= F_SUSPECT; /* 裏 */
	return JH_OK;
}



/* ---- the phrase table, built or mapped ----
 *
 * Its compiled form goes to the cache folder (tablecache.c): after the
 * head, the counts, the index, the entries and the text.  Reading and
 * indexing the 600 KB table took 4 ms of a hook's start on a traditional
 * chapter, most of it 200 fresh pages; the mapped form is read only where
 * a lookup goes. */

#define PHRASES_MAGIC "JHPHRS\0\1"
#define PHRASES_LAYOUT ((uint32_t)sizeof(phrase_ent))

typedef struct {
	uint64_t n_ph, index_size, text_len, max_phrase;
} phrases_counts;

typedef struct {
	size_t counts, index, ents, text, total;
} phrases_layout;

static int phrases_layout_of(const phrases_counts *h, phrases_layout *l)
{
	if (h->index_size < 16 || (h->index_size & (h->index_size - 1)) || h->index_size > UINT32_MAX ||
	    h->n_ph >= h->index_size || !h->text_len || h->text_len > UINT32_MAX)
		return -1;
	size_t p = jh_cache_align(sizeof(jh_cache_head));
	l->counts = p, p = jh_cache_align(p + sizeof *h);
	l->index = p, p = jh_cache_align(p + h->index_size * 4);
	l->ents = p, p = jh_cache_align(p + h->n_ph * sizeof(phrase_ent));
	l->text = p, p += h->text_len;
	l->total = p;
	return 0;
}

/* The compiled form of the table at path, checked: every index and offset
 * in range, the text ending in a NUL.  0 = c's table is the map. */
static int phrases_map(variant_cfg *c, const char *cache, const char *path)
{
	void *map;
	size_t len;
	if (jh_cache_map(cache, path, "phrases", PHRASES_MAGIC, PHRASES_LAYOUT, &map, &len) != 0)
		return -1;
	const char *base = map;
	phrases_counts h = {0};
	phrases_layout l = {0};
	int ok = len >= jh_cache_align(sizeof(jh_cache_head)) + sizeof h;
	if (ok) {
		memcpy(&h, base + jh_cache_align(sizeof(jh_cache_head)), sizeof h);
		ok = !phrases_layout_of(&h, &l) && l.total == len && !base[l.text + h.text_len - 1];
	}
	const uint32_t *index = (const uint32_t *)(base + l.index);
	const phrase_ent *ph = (const phrase_ent *)(base + l.ents);
	for (size_t i = 0; ok && i < h.index_size; i++)
		ok = index[i] <= h.n_ph;
	for (size_t i = 0; ok && i < h.n_ph; i++)
		ok = ph[i].wrong < h.text_len && ph[i].right < h.text_len && ph[i].prev_not < h.text_len &&
		     ph[i].next_not < h.text_len && ph[i].wrong_len < h.text_len - ph[i].wrong;
	if (!ok) {
		munmap(map, len);
		return -1;
	}
	c->ph_map = map;
	c->ph_map_len = len;
	c->index = index;
	c->index_mask = h.index_size - 1;
	c->ph = ph;
	c->n_ph = h.n_ph;
	c->ph_text = base + l.text;
	c->ph_text_len = h.text_len;
	c->max_phrase = h.max_phrase;
	return 0;
}

/* The table read from its file (jh_tsv splits it in place: the fields are
 * NUL-terminated in the text, a missing column is the empty string at the
 * end of the first). */
static int phrases_build(variant_cfg *c, jh_tsv *t)
{
	if (t->len >= UINT32_MAX)
		return JH_ERR_RULES;
	size_t lines = 1, cap = 0;
	for (const char *q = t->data; (q = memchr(q, '\n', t->len - (size_t)(q - t->data))); q++)
		lines++;
	phrase_ent *ph = NULL;
	if (jh_grow((void **)&ph, &cap, lines, sizeof *ph))
		return JH_ERR_NOMEM;
	const char *base = t->data;
	char *f[4];
	size_t fl[4];
	int nf;
	size_t n = 0;
	while ((nf = jh_tsv_next(t, f, fl, 4)) > 0) {
		if (nf < 2 || !fl[0] || !fl[1])
			continue;
		uint32_t empty = (uint32_t)(f[0] + fl[0] - base);
		ph[n++] = (phrase_ent){(uint32_t)(f[0] - base), (uint32_t)(f[1] - base),
		                       nf > 2 ? (uint32_t)(f[2] - base) : empty,
		                       nf > 3 ? (uint32_t)(f[3] - base) : empty, (uint32_t)fl[0]};
		if (fl[0] > c->max_phrase)
			c->max_phrase = fl[0];
	}
	size_t size = 16;
	while (size < 2 * n)
		size *= 2;
	uint32_t *index = calloc(size, sizeof *index);
	if (!index) {
		free(ph);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t h = jh_hash(base + ph[i].wrong, ph[i].wrong_len) & (size - 1);
		while (index[h])
			h = (h + 1) & (size - 1);
		index[h] = (uint32_t)i + 1;
	}
	c->ph_text_len = t->len + 1; /* with jh_tsv's terminating NUL */
	c->ph_text = jh_tsv_take(t);
	c->ph = ph;
	c->n_ph = n;
	c->index = index;
	c->index_mask = size - 1;
	return JH_OK;
}

static void phrases_store(const variant_cfg *c, const char *cache, const char *path)
{
	phrases_counts h = {c->n_ph, c->index_mask + 1, c->ph_text_len, c->max_phrase};
	phrases_layout l;
	if (phrases_layout_of(&h, &l))
		return;
	const jh_cache_section s[] = {
		{&h, sizeof h},
		{c->index, (c->index_mask + 1) * 4},
		{c->ph, c->n_ph * sizeof *c->ph},
		{c->ph_text, c->ph_text_len},
	};
	jh_cache_store(cache, path, "phrases", PHRASES_MAGIC, PHRASES_LAYOUT, s, sizeof s / sizeof *s);
}

/* The conversion check's filter of the phrase table (script.h,
 * phrase_pair): the pairs of neighbouring characters in its keys.
 * Without memory for it there is no filter, and every window is looked
 * up. */
static int pairs_build(void *arg)
{
	variant_cfg *c = arg;
	uint64_t *pairs = calloc((1u << PAIR_BITS_LOG) / 64, 8);
	if (!pairs)
		return JH_OK; /* no filter: the same findings */
	for (size_t i = 0; i < c->n_ph; i++) {
		const char *w = c->ph_text + c->ph[i].wrong;
		size_t n = c->ph[i].wrong_len, at[3] = {0, 0, 0};
		int k = 0;
		for (size_t p = 0; p <= n; p++) {
			if (p < n && ((unsigned char)w[p] & 0xC0) == 0x80)
				continue; /* a character starts at every other byte, and n ends one */
			at[k < 3 ? k : 2] = p;
			if (k >= 2) {
				if (at[2] - at[0] <= 8) {
					uint64_t h = pair_hash(w + at[0], at[2] - at[0]);
					pairs[h >> 6] |= 1ull << (h & 63);
				}
				at[0] = at[1];
				at[1] = at[2];
			}
			k++;
		}
	}
	__atomic_store_n(&c->pairs, pairs, __ATOMIC_RELEASE);
	return JH_OK;
}

/* phrase_at counts the suspects it looks up without the filter: it is
 * made when they reach a quarter of the table's entries (making it costs
 * about a hundred instructions an entry, a suspect without it about a
 * thousand), so that a short text does not pay for it. */
void phrase_filter_count(const variant_cfg *cfg)
{
	variant_cfg *c = (variant_cfg *)cfg;
	if (__atomic_add_fetch(&c->pair_asks, 1, __ATOMIC_RELAXED) == c->n_ph / 4 + 1)
		jh_lazy_get(&c->pairs_once, pairs_build, c);
}

/* The phrase table and its index (jh_lazy: the rule set may serve several
 * threads): mapped from the cache folder, else read, indexed and cached. */
int load_phrases(void *arg)
{
	const phrases_arg *a = arg;
	variant_cfg *c = a->c;
	const jh_rule *r = c->rule;
	unsigned line;
	const char *file = phrases_file(c, &line);
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	const char *cache = r->cache_dir;
	if (cache && phrases_map(c, cache, path) == 0) {
		free(path);
		return JH_OK;
	}
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, file, r, line, a->diag_fn, a->payload);
	if (rc == JH_OK) {
		rc = phrases_build(c, &t);
		if (rc == JH_ERR_RULES)
			jh_report(a->diag_fn, a->payload, JH_ERROR, r->file, line, 0, r->id,
			          "%s: too large (4 GB at most)", path);
		jh_tsv_close(&t);
	}
	if (rc == JH_OK && cache)
		phrases_store(c, cache, path);
	free(path);
	return rc;
}

/* data/script-regional.tsv: OpenCC standard, Taiwan and Hong Kong forms of
 * one character, one group a line. */
static int load_regional(variant_cfg *c, const jh_rule *r, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *file = jh_rule_param(r, "regional", &line);
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, file ? file : "script-regional.tsv", r, line, diag_fn, payload);
	if (rc)
		return rc;
	if (!(c->group = calloc(0x10000, 1))) {
		jh_tsv_close(&t);
		return JH_ERR_NOMEM;
	}
	const char *std = jh_rule_param(r, "standard", &line);
	c->standard = !std || !strcmp(std, "auto") ? 0 : !strcmp(std, "opencc") ? 1
	              : !strcmp(std, "tw") ? 2 : !strcmp(std, "hk") ? 3 : -1;
	if (c->standard < 0) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "standard must be auto, opencc, tw or hk, not '%s'", std);
		jh_tsv_close(&t);
		return JH_ERR_RULES;
	}
	int g = 0;
	char *f[GROUP_FORMS];
	size_t fl[GROUP_FORMS];
	int nf;
	while (g < MAX_GROUPS && (nf = jh_tsv_next(&t, f, fl, GROUP_FORMS)) > 0) {
		if (nf < GROUP_FORMS)
			continue;
		for (int k = 0; k < GROUP_FORMS; k++) {
			int32_t cp;
			jh_utf8_decode((const unsigned char *)f[k], fl[k], &cp);
			c->forms[g][k] = cp;
			if (cp > 0 && cp < 0x10000)
				c->group[cp] = (uint8_t)(g + 1);
		}
		g++;
	}
	jh_tsv_close(&t);
	return JH_OK;
}

static int variant_compile_mode(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload,
                                int mode)
{
	variant_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	c->mode = mode;
	c->rule = r;
	if (mode != MODE_REGIONAL) {
		jh_lazy_init(&c->phrases_once);
		jh_lazy_init(&c->pairs_once);
	}
	unsigned line = r->line;
	const char *v = jh_rule_param(r, "variant", &line);
	int rc = JH_OK;
	if ((c->variant = parse_variant(v)) < 0) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "variant must be auto, hans or hant, not '%s'", v);
		rc = JH_ERR_RULES;
	}
	if (rc == JH_OK)
		rc = jh_param_uint(r, "paragraph-min", 20, 1000000, &c->para_min, diag_fn, payload);
	if (rc == JH_OK)
		rc = load_chars(c, r, diag_fn, payload);
	if (rc == JH_OK && mode == MODE_PHRASES)
		rc = scan_suspects(c, r, diag_fn, payload);
	else if (rc == JH_OK && mode == MODE_REGIONAL)
		rc = load_regional(c, r, diag_fn, payload);
	else if (rc == JH_OK && mode == MODE_REGIONAL && jh_rule_param(r, "phrases", &line)) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "phrases is a parameter of the variant and conversion checks only");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		variant_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

int chars_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_CHARS);
}

int phrases_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_PHRASES);
}

int regional_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_REGIONAL);
}

/* Per document: the paragraphs that hold anything worth a second look. */
const uint8_t *variant_tally_table(const variant_cfg *c)
{
	return c->chars ? c->chars->bmp : NULL;
}
