/* check_script.c — builtin checks of the script family: simplified and
 * traditional characters mixed in one text, conversion errors inside
 * traditional text, look-alike letters from another alphabet, invisible
 * and control characters, half-width katakana.
 *
 * The variant checks hold their own tables (rules/data/script-*.tsv, made
 * by rules/tools/gen-script-tables.py from OpenCC and jieba): which variant
 * a text is in is known only at its end, so they cannot be lexicon rules.
 * In the scan they only count, one table lookup per Han character; the
 * paragraphs that hold something to report are decoded a second time in
 * finish(). */
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

/* ---- small helpers ---- */

static int32_t decode_at(const char *text, size_t len, size_t pos, size_t *n)
{
	int32_t cp;
	*n = jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp);
	return cp;
}

/* Is cp one of the characters of the UTF-8 string set?  UTF-8 is
 * self-synchronising, so a byte search cannot match inside another
 * character. */
static int cp_in(int32_t cp, const char *set)
{
	char u[5];
	if (cp < 0)
		return 0;
	u[jh_utf8_encode(cp, u)] = 0;
	return strstr(set, u) != NULL;
}

/* ==== simplified / traditional ========================================= */

enum { F_HANS = 1, F_HANT = 2, F_SUSPECT = 4 };
enum { V_NONE = 0, V_HANS = 1, V_HANT = 2 };
enum { MODE_CHARS, MODE_PHRASES, MODE_REGIONAL };
enum { MAX_GROUPS = 255, GROUP_FORMS = 3 };

typedef struct {
	int32_t cp;
	uint8_t flags;
	const char *forms;   /* the character in the other variant: "發|髮" */
} char_ent;

/* An entry of the phrase table: offsets of NUL-terminated strings in the
 * table's text, so that the compiled form can be mapped as it is. */
typedef struct {
	uint32_t wrong, right, prev_not, next_not;
	uint32_t wrong_len;
} phrase_ent;

struct script_chars;
static void chars_release(struct script_chars *t);

typedef struct {
	int mode;
	int variant;             /* V_NONE = auto */
	unsigned long para_min;  /* evidence for a paragraph to keep its own variant */
	struct script_chars *chars; /* shared by the rules that read the same file */
	/* the phrase table: built from the file (owned) or mapped from the
	 * cache folder (ph_map) */
	const char *ph_text;
	size_t ph_text_len;
	void *ph_map;
	size_t ph_map_len;
	uint8_t *bmp;            /* flags of every BMP code point: chars->bmp, or a copy */
	int own_bmp;             /* the phrase check adds F_SUSPECT to its own copy */
	const char_ent *ents;    /* chars->ents, sorted by code point */
	size_t n_ents;
	const phrase_ent *ph;
	size_t n_ph;
	const uint32_t *index;   /* open addressing, entry + 1, 0 = empty */
	size_t index_mask;
	size_t max_phrase;       /* longest phrase, in bytes */
	/* regional forms (裏 裡, 爲 為, 着 著): group of each BMP character + 1 */
	uint8_t *group;
	int32_t forms[MAX_GROUPS][GROUP_FORMS];
	int standard;            /* 0 = the document's majority, else 1 + column */
	/* The phrase table is read the first time a traditional paragraph has
	 * a suspect (compiling reads only which characters are suspects). */
	const jh_rule *rule;
	jh_lazy phrases_once;
} variant_cfg;

static const char *const variant_params[] = {"variant", "chars", "phrases", "paragraph-min", NULL};
static const char *const regional_params[] = {"variant", "chars", "regional", "standard",
                                              "paragraph-min", NULL};

static void variant_free(void *p)
{
	variant_cfg *c = p;
	if (!c)
		return;
	chars_release(c->chars);
	if (c->mode == MODE_PHRASES)
		jh_lazy_destroy(&c->phrases_once);
	if (c->ph_map) {
		munmap(c->ph_map, c->ph_map_len);
	} else {
		free((char *)c->ph_text);
		free((phrase_ent *)c->ph);
		free((uint32_t *)c->index);
	}
	if (c->own_bmp)
		free(c->bmp);
	free(c->group);
	free(c);
}

static int cmp_ent(const void *a, const void *b)
{
	const char_ent *x = a, *y = b;
	return (x->cp > y->cp) - (x->cp < y->cp);
}

static const char_ent *find_ent(const variant_cfg *c, int32_t cp)
{
	char_ent key = {cp, 0, NULL};
	return bsearch(&key, c->ents, c->n_ents, sizeof key, cmp_ent);
}

static inline uint8_t char_flags(const variant_cfg *c, int32_t cp)
{
	if (cp < 0x10000)
		return c->bmp[cp];
	const char_ent *e = cp >= 0x20000 ? find_ent(c, cp) : NULL;
	return e ? e->flags : 0;
}

static int parse_variant(const char *v)
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
	char *text;
	char_ent *ents;          /* sorted by code point */
	size_t n_ents;
	uint8_t *bmp;            /* F_HANS / F_HANT of every BMP code point */
} script_chars;

static void chars_free(void *obj)
{
	script_chars *t = obj;
	free(t->text);
	free(t->ents);
	free(t->bmp);
	free(t);
}

static void chars_release(struct script_chars *t)
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

typedef struct {
	const jh_rule *r;
	const char *file;
	unsigned line;
	jh_diag_fn diag_fn;
	void *payload;
} chars_arg;

static int chars_load(void *arg, void **obj)
{
	const chars_arg *a = arg;
	script_chars *t = calloc(1, sizeof *t);
	if (!t)
		return JH_ERR_NOMEM;
	*obj = t;
	jh_tsv tsv;
	int rc = jh_data_open(&tsv, NULL, a->file, a->r, a->line, a->diag_fn, a->payload);
	if (rc == JH_OK)
		rc = chars_parse(t, &tsv);
	t->text = jh_tsv_take(&tsv);
	return rc;
}

static int chars_get(const jh_rule *r, const char *file, unsigned line, script_chars **out,
                     jh_diag_fn diag_fn, void *payload)
{
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	chars_arg a = {r, file, line, diag_fn, payload};
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

static const phrase_ent *find_phrase(const variant_cfg *c, const char *s, size_t n)
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

static const char *phrases_file(const jh_rule *r, unsigned *line)
{
	*line = r->line;
	const char *file = jh_rule_param(r, "phrases", line);
	return file ? file : "script-phrases.tsv";
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
	const char *file = phrases_file(r, &line);
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	FILE *f = fopen(path, "rb");
	if (!f)
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "cannot read %s", path);
	free(path);
	if (!f)
		return JH_ERR_RULES;
	uint8_t *own = malloc(0x10000);
	if (!own) {
		fclose(f);
		return JH_ERR_NOMEM;
	}
	memcpy(own, c->bmp, 0x10000); /* the shared flags, and this check's suspects */
	c->bmp = own;
	c->own_bmp = 1;
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
	fclose(f);
	/* 150余騎兵, 20裡: checked by numeral_fix(), not by the table */
	c->bmp[0x4F59] |= F_SUSPECT; /* 余 */
	c->bmp[0x88E1] |= F_SUSPECT; /* 裡 */
	c->bmp[0x88CF] |= F_SUSPECT; /* 裏 */
	return JH_OK;
}

typedef struct {
	variant_cfg *c;
	jh_diag_fn diag_fn;
	void *payload;
} phrases_arg;

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

/* The phrase table and its index (jh_lazy: the rule set may serve several
 * threads): mapped from the cache folder, else read, indexed and cached. */
static int load_phrases(void *arg)
{
	const phrases_arg *a = arg;
	variant_cfg *c = a->c;
	const jh_rule *r = c->rule;
	unsigned line;
	const char *file = phrases_file(r, &line);
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
	if (mode == MODE_PHRASES)
		jh_lazy_init(&c->phrases_once);
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
	else if (rc == JH_OK && jh_rule_param(r, "phrases", &line)) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "phrases is a parameter of the conversion check only");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		variant_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

static int chars_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_CHARS);
}

static int phrases_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_PHRASES);
}

static int regional_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl)
{
	return variant_compile_mode(r, out, fn, pl, MODE_REGIONAL);
}

/* Per document: the paragraphs that hold anything worth a second look. */
typedef struct {
	size_t start, end;
	uint32_t hans, hant, suspects;
	int v;               /* the variant it is held to, set in finish() */
} para;

typedef struct {
	para *v;
	size_t n, cap;
	para cur;
} variant_state;

static void para_close(jh_brun *run, variant_state *s, size_t end)
{
	s->cur.end = end;
	if (s->cur.hans || s->cur.hant || s->cur.suspects) {
		if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
			run->err = JH_ERR_NOMEM;
		else
			s->v[s->n++] = s->cur;
	}
	s->cur = (para){end, end, 0, 0, 0, 0};
}

/* What a Han character counts for in this check. */
static inline uint8_t mode_flags(const variant_cfg *cfg, int32_t cp)
{
	uint8_t f = char_flags(cfg, cp);
	if (cfg->mode == MODE_CHARS)
		f &= F_HANS | F_HANT;
	else if (cfg->mode == MODE_REGIONAL) /* its suspects are the regional forms */
		f = (f & (F_HANS | F_HANT)) | (cp < 0x10000 && cfg->group[cp] ? F_SUSPECT : 0);
	return f;
}

/* The next suspect character of [p, end): its position (and length in
 * *n), or SIZE_MAX.  finish() finds them again in the paragraphs it looks
 * at rather than keep every position from the scan: on a long
 * traditional text that list was as big as its findings (40 MB for
 * 200 MB), for a second decoding of the few paragraphs that need it. */
static size_t next_suspect(const jh_brun *run, size_t p, size_t end, size_t *n)
{
	const variant_cfg *cfg = run->cfg;
	const unsigned char *t = (const unsigned char *)run->text;
	while (p < end) {
		if (t[p] < 0x80) { /* ASCII: never a suspect */
			p++;
			continue;
		}
		/* Three bytes, the form of every BMP Han character: no character
		 * starts inside them, whatever they decode to. */
		if (t[p] >= 0xE0 && t[p] < 0xF0 && p + 2 < run->len && (t[p + 1] & 0xC0) == 0x80 &&
		    (t[p + 2] & 0xC0) == 0x80) {
			int32_t cp = (t[p] & 0x0F) << 12 | (t[p + 1] & 0x3F) << 6 | (t[p + 2] & 0x3F);
			if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) && (mode_flags(cfg, cp) & F_SUSPECT) &&
			    (jh_class_of(cp) & JH_C_HAN)) {
				*n = 3;
				return p;
			}
			p += 3;
			continue;
		}
		int32_t cp = decode_at(run->text, run->len, p, n);
		if (cp >= 0 && (mode_flags(cfg, cp) & F_SUSPECT) && (jh_class_of(cp) & JH_C_HAN))
			return p;
		p += *n ? *n : 1;
	}
	return SIZE_MAX;
}

static void variant_step(jh_brun *run, const jh_char *c)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	if (c->cls & JH_C_NEWLINE) {
		if (s && c->cp != '\r')
			para_close(run, s, c->pos + c->len);
		else if (!s)
			run->run_start = c->pos + c->len; /* start of the paragraph, until state exists */
		return;
	}
	uint8_t f = mode_flags(cfg, c->cp);
	if (!f)
		return;
	if (!s) {
		if (!(s = run->state = calloc(1, sizeof *s))) {
			run->err = JH_ERR_NOMEM;
			return;
		}
		s->cur.start = run->run_start;
	}
	s->cur.hans += !!(f & F_HANS);
	s->cur.hant += !!(f & F_HANT);
	s->cur.suspects += !!(f & F_SUSPECT);
}

/* A paragraph's own variant, when it has enough evidence of it. */
static int para_own(const variant_cfg *cfg, const para *p)
{
	if (p->hans + p->hant >= cfg->para_min) {
		if (p->hans >= 4 * p->hant)
			return V_HANS;
		if (p->hant >= 4 * p->hans)
			return V_HANT;
	}
	return V_NONE;
}

/* The variant each paragraph is held to (in p->v): the one asked for; else,
 * when the minority variant makes up less than a fifth of the document,
 * the document's; else (a long file with chapters in both) its own when it
 * has enough evidence, or that of the nearest paragraph before it (after
 * it, at the start) that has. */
static void para_variants(const variant_cfg *cfg, int forced, para *v, size_t n)
{
	unsigned long hans = 0, hant = 0;
	for (size_t i = 0; i < n; i++) {
		hans += v[i].hans;
		hant += v[i].hant;
	}
	unsigned long minor = hans < hant ? hans : hant;
	if (!hans && !hant)
		return;
	int mixed = hans + hant >= 4 * cfg->para_min && minor * 5 >= hans + hant;
	int doc = forced ? forced : !mixed ? (hant > hans ? V_HANT : V_HANS) : V_NONE;
	if (doc) {
		for (size_t i = 0; i < n; i++)
			v[i].v = doc;
		return;
	}
	int last = V_NONE;
	for (size_t i = 0; i < n; i++) {
		int own = para_own(cfg, &v[i]);
		last = own ? own : last;
		v[i].v = last;
	}
	for (size_t i = n; i-- > 0;) {
		int own = para_own(cfg, &v[i]);
		last = own ? own : i + 1 < n ? v[i + 1].v : V_NONE;
		if (!v[i].v)
			v[i].v = last;
	}
}

/* A run of minority characters [a, b): one finding, converted character by
 * character; safe only if each has a single form in the other variant. */
static void emit_chars(jh_brun *run, size_t a, size_t b, int v)
{
	const variant_cfg *cfg = run->cfg;
	jh_buf fix = {0}, note = {0}, alts = {0};
	int single = 1, rc = 0;
	rc |= jh_buf_puts(&note, v == V_HANT ? "繁体文本中夹杂简体字" : "简体文本中夹杂繁体字");
	for (size_t p = a; p < b && !rc;) {
		size_t n;
		int32_t cp = decode_at(run->text, b, p, &n);
		const char_ent *e = find_ent(cfg, cp);
		const char *forms = e ? e->forms : "";
		size_t first = strcspn(forms, "|");
		if (first)
			rc |= jh_buf_append(&fix, forms, first);
		else
			rc |= jh_buf_append(&fix, run->text + p, n);
		if (forms[first] == '|') {
			single = 0;
			rc |= jh_buf_puts(&alts, alts.len ? "；" : "");
			rc |= jh_buf_append(&alts, run->text + p, n);
			rc |= jh_buf_puts(&alts, "可作");
			for (const char *q = forms; *q; q++)
				rc |= *q == '|' ? jh_buf_puts(&alts, "、") : jh_buf_putc(&alts, *q);
		}
		p += n;
	}
	if (alts.len)
		rc |= jh_buf_puts(&note, "（") || jh_buf_append(&note, alts.data, alts.len) ||
		      jh_buf_puts(&note, "，须按词义选择）");
	rc |= jh_buf_terminate(&fix) || jh_buf_terminate(&note);
	if (rc) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
		            single ? r->safety : JH_UNSAFE, note.data};
		if ((rc = jh_findings_add_hit(run->out, run->text, &h)))
			run->err = rc;
	}
	jh_buf_free(&fix);
	jh_buf_free(&note);
	jh_buf_free(&alts);
}

static void chars_in_para(jh_brun *run, const para *p, int v)
{
	const variant_cfg *cfg = run->cfg;
	uint8_t want = v == V_HANT ? F_HANS : F_HANT;
	size_t a = 0, b = 0;
	int open = 0;
	for (size_t i = p->start; i < p->end && !run->err;) {
		size_t n;
		int32_t cp = decode_at(run->text, p->end, i, &n);
		if (cp >= 0 && (char_flags(cfg, cp) & want)) {
			if (!open)
				a = i;
			open = 1;
			b = i + n;
		} else if (open) {
			emit_chars(run, a, b, v);
			open = 0;
		}
		i += n;
	}
	if (open)
		emit_chars(run, a, b, v);
}

static int is_numeral(int32_t cp)
{
	return (cp >= '0' && cp <= '9') || (cp >= 0xFF10 && cp <= 0xFF19) ||
	       cp_in(cp, "〇一二三四五六七八九十百千萬万兩两幾几");
}

static void emit_fix(jh_brun *run, size_t a, size_t b, const char *right, size_t rlen, int unsafe,
                     const char *note)
{
	const jh_rule *r = run->rule;
	jh_buf fix = {0};
	if (jh_buf_append(&fix, right, rlen) || jh_buf_terminate(&fix)) {
		run->err = JH_ERR_NOMEM;
		jh_buf_free(&fix);
		return;
	}
	jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
	            unsafe ? JH_UNSAFE : r->safety, note};
	int rc = jh_findings_add_hit(run->out, run->text, &h);
	if (rc)
		run->err = rc;
	jh_buf_free(&fix);
}

/* 150余騎兵 → 150餘騎兵, 20裡 → 20里: after a numeral 余 is "more than"
 * and 裡 the unit of length (but 十裡面, 百裡挑一 are left alone). */
static int numeral_fix(jh_brun *run, size_t a, size_t b, int32_t cp)
{
	if (a == 0)
		return 0;
	size_t pb = jh_utf8_prev(run->text, a), n;
	if (!is_numeral(decode_at(run->text, run->len, pb, &n)))
		return 0;
	while (pb > 0 && run->text[pb] >= '0' && run->text[pb] <= '9')
		pb--; /* template1裡: the digit ends a name, it is no number */
	if (isalpha((unsigned char)run->text[pb]) || run->text[pb] == '_')
		return 0;
	if (cp == 0x4F59) {
		emit_fix(run, a, b, "餘", strlen("餘"), 0, "数词后的“余”在繁体中作“餘”");
		return 1;
	}
	int32_t next = b < run->len ? decode_at(run->text, run->len, b, &n) : -1;
	if (next >= 0 && cp_in(next, "面頭头邊边挑"))
		return 0;
	emit_fix(run, a, b, "里", strlen("里"), 0, "表示距离的“里”在繁体中不作“裡/裏”");
	return 1;
}

/* Look for a phrase of the table around the suspect character [a, b) of a
 * traditional paragraph; the longest wins, then the leftmost.  Returns the
 * end of what was reported, or 0. */
static size_t phrase_at(jh_brun *run, const para *pp, size_t a, size_t b, size_t done)
{
	const variant_cfg *cfg = run->cfg;
	enum { K = 3 };
	size_t bounds[2 * K + 2];
	int nb = 0, na = 0;
	size_t before[K], after[K];
	for (size_t p = a; nb < K && p > pp->start && p > done;) {
		size_t q = jh_utf8_prev(run->text, p), n;
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		before[nb++] = p = q;
	}
	for (size_t p = b; na < K && p < pp->end;) {
		size_t n;
		int32_t cp = decode_at(run->text, run->len, p, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		after[na++] = p += n;
	}
	int m = 0;
	for (int i = nb - 1; i >= 0; i--)
		bounds[m++] = before[i];
	int self = m;
	bounds[m++] = a;
	bounds[m++] = b;
	for (int i = 0; i < na; i++)
		bounds[m++] = after[i];
	/* bounds[0..m) are character starts and the last end; the suspect is
	 * the character from bounds[self] to bounds[self+1] */
	for (int l = 4; l >= 2; l--)
		for (int s = self - l + 1; s <= self; s++) {
			if (s < 0 || s + l > m - 1)
				continue;
			size_t ws = bounds[s], we = bounds[s + l];
			const phrase_ent *e = find_phrase(cfg, run->text + ws, we - ws);
			if (!e)
				continue;
			size_t n;
			const char *prev_not = cfg->ph_text + e->prev_not, *next_not = cfg->ph_text + e->next_not;
			const char *right = cfg->ph_text + e->right;
			if (ws > 0 && *prev_not &&
			    cp_in(decode_at(run->text, run->len, jh_utf8_prev(run->text, ws), &n), prev_not))
				continue;
			if (we < run->len && *next_not && cp_in(decode_at(run->text, run->len, we, &n), next_not))
				continue;
			size_t rl = strcspn(right, "|");
			emit_fix(run, ws, we, right, rl, right[rl] == '|', NULL);
			return we;
		}
	return 0;
}

/* The suspects of paragraph p. */
static void phrases_in_para(jh_brun *run, const para *p)
{
	size_t done = p->start, n;
	for (size_t i = p->start; (i = next_suspect(run, i, p->end, &n)) != SIZE_MAX && !run->err;
	     i += n) {
		if (i < done)
			continue;
		int32_t cp = decode_at(run->text, run->len, i, &n);
		size_t end = phrase_at(run, p, i, i + n, done);
		if (!end && (cp == 0x4F59 || cp == 0x88E1 || cp == 0x88CF) && numeral_fix(run, i, i + n, cp))
			end = i + n;
		if (end)
			done = end;
	}
}

/* Regional forms in the traditional paragraphs: each group's form is the
 * standard asked for, else the one the text uses most; the others are
 * reported.  Unsafe: 著 is also the OpenCC form of zhù (著名), so 著 → 着 needs
 * a reader. */
static void regional_finish(jh_brun *run, const variant_state *s)
{
	const variant_cfg *cfg = run->cfg;
	uint32_t (*count)[GROUP_FORMS] = calloc(MAX_GROUPS, sizeof *count);
	if (!count) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	size_t n;
	for (size_t i = 0; i < s->n; i++) { /* count the forms used in traditional paragraphs */
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX; a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			for (int f = 0; f < GROUP_FORMS; f++)
				count[g][f] += cfg->forms[g][f] == cp;
		}
	}
	int32_t want[MAX_GROUPS] = {0};
	for (int g = 0; g < MAX_GROUPS; g++) {
		if (cfg->standard) {
			want[g] = cfg->forms[g][cfg->standard - 1];
			continue;
		}
		int best = -1;
		for (int f = 0; f < GROUP_FORMS; f++)
			if (count[g][f] && (best < 0 || count[g][f] > count[g][best]))
				best = f;
		want[g] = best >= 0 ? cfg->forms[g][best] : 0;
	}
	for (size_t i = 0; i < s->n && !run->err; i++) {
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; !run->err && (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX;
		     a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			if (!want[g] || want[g] == cp)
				continue;
			char u[5];
			u[jh_utf8_encode(want[g], u)] = 0;
			emit_fix(run, a, a + n, u, strlen(u), 1, NULL);
		}
	}
	free(count);
}

static void variant_finish(jh_brun *run)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	if (!s)
		return;
	para_close(run, s, run->len);
	int forced = parse_variant(run->variant);
	if (forced <= 0)
		forced = cfg->variant;
	para_variants(cfg, forced, s->v, s->n);
	for (size_t i = 0; i < s->n && !run->err; i++) {
		const para *p = &s->v[i];
		if (cfg->mode == MODE_CHARS && ((p->v == V_HANT && p->hans) || (p->v == V_HANS && p->hant)))
			chars_in_para(run, p, p->v);
		if (cfg->mode == MODE_PHRASES && p->v == V_HANT && p->suspects) {
			phrases_arg a = {(variant_cfg *)cfg, run->diag_fn, run->payload};
			int rc = jh_lazy_get(&((variant_cfg *)cfg)->phrases_once, load_phrases, &a);
			if (rc == JH_ERR_NOMEM)
				run->err = rc;
			if (rc) /* a table gone since compiling: reported, no phrase findings */
				break;
			phrases_in_para(run, p);
		}
	}
	if (cfg->mode == MODE_REGIONAL)
		regional_finish(run, s);
	free(s->v);
	free(s);
	run->state = NULL;
}

/* ==== look-alike letters =============================================== */

/* Cyrillic and Greek letters drawn like Latin ones, and back.  Hand-written
 * because neither utf8proc nor Debian's unicode-data carries Unicode's
 * confusables.txt; these are its single-letter pairs between the three
 * alphabets that look the same in common fonts. */
static const struct {
	int32_t other, latin;
} confusables[] = {
	{0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'},
	{0x041E, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0405, 'S'},
	{0x0406, 'I'}, {0x0408, 'J'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'}, {0x0440, 'p'},
	{0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'},
	{0x04BB, 'h'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
	{0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'},
	{0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'},
	{0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03BF, 'o'}, {0x03BD, 'v'},
};

enum { S_NONE, S_LATIN, S_CYRL, S_GREEK, S_DIGIT };

static int script_of(int32_t cp)
{
	if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
		return S_LATIN;
	if (cp >= '0' && cp <= '9')
		return S_DIGIT;
	if ((cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7))
		return S_LATIN;
	if (cp >= 0x0370 && cp <= 0x03FF && cp != 0x037E && cp != 0x0387)
		return S_GREEK;
	if (cp >= 0x0400 && cp <= 0x052F)
		return S_CYRL;
	return S_NONE;
}

/* The look-alike of cp in script `to`, or -1. */
static int32_t lookalike(int32_t cp, int from, int to)
{
	for (size_t i = 0; i < sizeof confusables / sizeof *confusables; i++) {
		int32_t o = confusables[i].other;
		int os = o < 0x400 ? S_GREEK : S_CYRL;
		if (from == S_LATIN && to == os && confusables[i].latin == cp)
			return o;
		if (to == S_LATIN && from == os && o == cp)
			return confusables[i].latin;
	}
	return -1;
}

typedef struct {
	int digits;   /* find 0/1 in letter words instead of other alphabets */
} lookalike_cfg;

static const char *const lookalike_params[] = {"find", NULL};

static int lookalike_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *v = jh_rule_param(r, "find", &line);
	if (v && strcmp(v, "letters") && strcmp(v, "digits")) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "find must be letters or digits, not '%s'", v);
		return JH_ERR_RULES;
	}
	lookalike_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	c->digits = v && !strcmp(v, "digits");
	*out = c;
	return JH_OK;
}

static void word_letters(jh_brun *run, size_t a, size_t b)
{
	int count[5] = {0}, plain[5] = {0};
	for (size_t p = a, n; p < b; p += n)
		count[script_of(decode_at(run->text, b, p, &n))]++;
	int other = count[S_CYRL] ? S_CYRL : S_GREEK;
	if (!count[S_LATIN] || !count[other] || (count[S_CYRL] && count[S_GREEK]))
		return; /* one alphabet: the common case, decided without the table */
	for (size_t p = a, n; p < b; p += n) { /* letters that look like no other */
		int32_t cp = decode_at(run->text, b, p, &n);
		int s = script_of(cp);
		if (s == S_LATIN ? lookalike(cp, S_LATIN, S_CYRL) < 0 && lookalike(cp, S_LATIN, S_GREEK) < 0
		                 : lookalike(cp, s, S_LATIN) < 0)
			plain[s]++;
	}
	/* the word's alphabet: the one most of its letters are in; a tie
	 * (ΔE, ОК) says nothing */
	if (count[S_LATIN] == count[other])
		return;
	int major = count[S_LATIN] > count[other] ? S_LATIN : other;
	int minor = major == S_LATIN ? other : S_LATIN;
	jh_buf fix = {0};
	int rc = 0, all = 1;
	for (size_t p = a, n; p < b && !rc; p += n) {
		int32_t cp = decode_at(run->text, b, p, &n);
		int32_t to = script_of(cp) == minor ? lookalike(cp, minor, major) : -1;
		if (script_of(cp) == minor && to < 0)
			all = 0;
		if (to >= 0) {
			char u[4];
			size_t k = jh_utf8_encode(to, u);
			rc = jh_buf_append(&fix, u, k);
		} else {
			rc = jh_buf_append(&fix, run->text + p, n);
		}
	}
	if (!all) { /* ΔE, μm: a letter of the other alphabet meant as itself */
		jh_buf_free(&fix);
		return;
	}
	const char *note = minor == S_LATIN ? (other == S_CYRL ? "西里尔文单词中夹着拉丁字母"
	                                                     : "希腊文单词中夹着拉丁字母")
	                   : other == S_CYRL ? "拉丁文单词中夹着形似的西里尔字母"
	                                     : "拉丁文单词中夹着形似的希腊字母";
	if (rc || jh_buf_terminate(&fix)) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		/* safe when the rest of the word settles the alphabet: twice as
		 * many letters, one of them drawn only that way */
		int safe = plain[major] > 0 && count[major] >= 2 * count[minor];
		jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
		            safe ? r->safety : JH_UNSAFE, note};
		if ((rc = jh_findings_add_hit(run->out, run->text, &h)))
			run->err = rc;
	}
	jh_buf_free(&fix);
}

/* Micr0soft, goog1e: 0 or 1 between lower-case letters in a word of
 * letters only.  Product names (Win10, H1N1, a11y, l10n) have other digits,
 * capitals round the digit, or too few letters. */
static void word_digits(jh_brun *run, size_t a, size_t b)
{
	const char *t = run->text;
	int letters = 0, bad = 0, found = 0;
	for (size_t p = a; p < b; p++) {
		unsigned char ch = (unsigned char)t[p];
		if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z')
			letters++;
		else if (ch == '0' || ch == '1') {
			size_t q = p;
			while (q < b && (t[q] == '0' || t[q] == '1'))
				q++;
			if (p > a && q < b && t[p - 1] >= 'a' && t[p - 1] <= 'z' && t[q] >= 'a' && t[q] <= 'z' &&
			    q - p <= 2)
				found = 1;
			else
				bad = 1;
			p = q - 1;
		} else
			bad = 1; /* another digit, or not ASCII */
	}
	if (!found || bad || letters < 4)
		return;
	jh_buf fix = {0};
	for (size_t p = a; p < b; p++)
		if (jh_buf_putc(&fix, t[p] == '0' ? 'o' : t[p] == '1' ? 'l' : t[p])) {
			run->err = JH_ERR_NOMEM;
			jh_buf_free(&fix);
			return;
		}
	emit_fix(run, a, b, fix.data, fix.len, 1, "英文单词中的数字0/1疑为字母o/l");
	jh_buf_free(&fix);
}

static void lookalike_flush(jh_brun *run)
{
	const lookalike_cfg *cfg = run->cfg;
	if (!run->run_len)
		return;
	if (cfg->digits)
		word_digits(run, run->run_start, run->run_end);
	else if (run->open) /* only a word with a non-ASCII letter can mix alphabets */
		word_letters(run, run->run_start, run->run_end);
	run->run_len = 0;
	run->open = 0;
}

static void lookalike_step(jh_brun *run, const jh_char *c)
{
	if (script_of(c->cp) == S_NONE) {
		lookalike_flush(run);
		return;
	}
	if (run->run_len && c->pos == run->run_end) {
		run->run_end += c->len;
		run->run_len++;
		run->open |= c->cp >= 0x80;
		return;
	}
	lookalike_flush(run);
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
	run->open = c->cp >= 0x80;
}

static void lookalike_finish(jh_brun *run) { lookalike_flush(run); }

/* ==== invisible and control characters ================================= */

static int is_rtl(int32_t cp)
{
	return (cp >= 0x0590 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) ||
	       (cp >= 0xFE70 && cp <= 0xFEFC);
}

/* Is cp at [pos, pos+len) one to remove?  Zero-width spaces and joiners, a
 * BOM after the start (censor.zero-width), soft hyphens and variation
 * selectors next to CJK (censor.invisible) are censor's. */
static int unwanted(const char *text, size_t len, int32_t cp, size_t pos, size_t n)
{
	if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
	    (cp >= 0x2061 && cp <= 0x2064))
		return 1;
	if (cp < 0x20)
		return cp != '\t' && cp != '\n' && cp != '\r';
	if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F && cp != 0x85))
		return 1;
	if (cp == 0x200E || cp == 0x200F || cp == 0x061C) {
		size_t k;
		int32_t prev = pos ? decode_at(text, len, jh_utf8_prev(text, pos), &k) : -1;
		int32_t next = pos + n < len ? decode_at(text, len, pos + n, &k) : -1;
		return !is_rtl(prev) && !is_rtl(next); /* marks belong next to Arabic, Hebrew */
	}
	return 0;
}

static void invisible_flush(jh_brun *run)
{
	if (!run->run_len)
		return;
	char note[128];
	size_t n;
	int32_t cp = decode_at(run->text, run->len, run->run_start, &n);
	const char *what = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)
	                       ? "双向文字控制符"
	                   : cp == 0x200E || cp == 0x200F || cp == 0x061C ? "方向标记"
	                   : cp >= 0x2061                                 ? "不可见运算符"
	                                                                  : "控制字符";
	snprintf(note, sizeof note, "%sU+%04X%s", what, (unsigned)cp,
	         run->run_len > 1 ? "等不可见字符" : "");
	emit_fix(run, run->run_start, run->run_end, "", 0, 0, note);
	run->run_len = 0;
}

static void invisible_step(jh_brun *run, const jh_char *c)
{
	if (c->cp < 0 || !unwanted(run->text, run->len, c->cp, c->pos, c->len)) {
		invisible_flush(run);
		return;
	}
	if (run->run_len && c->pos == run->run_end) {
		run->run_end += c->len;
		run->run_len++;
		return;
	}
	invisible_flush(run);
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
}

static void invisible_finish(jh_brun *run) { invisible_flush(run); }

/* ==== full-width letters and digits ==================================== */

/* ＡＴＴＡＣＫ → ATTACK: one finding a run (a lexicon gives one a character).
 * U+FF01–U+FF5E are ASCII shifted by 0xFEE0; the class scan wakes us on the
 * letters and digits only, so full-width punctuation is not touched. */
static void fullwidth_flush(jh_brun *run)
{
	if (!run->run_len)
		return;
	char fix[256], *o = fix;
	size_t a = run->run_start, b = run->run_end, n;
	int letters = 0, digits = 0;
	jh_buf buf = {0};
	for (size_t p = a; p < b; p += n) {
		int32_t cp = decode_at(run->text, b, p, &n) - 0xFEE0;
		digits += cp >= '0' && cp <= '9';
		letters += !(cp >= '0' && cp <= '9');
		*o++ = (char)cp;
		if (o - fix == (long)sizeof fix) { /* a long run: flush the stack buffer */
			if (jh_buf_append(&buf, fix, sizeof fix))
				run->err = JH_ERR_NOMEM;
			o = fix;
		}
	}
	if (jh_buf_append(&buf, fix, (size_t)(o - fix)))
		run->err = JH_ERR_NOMEM;
	if (!run->err)
		emit_fix(run, a, b, buf.data, buf.len, 0,
		         letters && digits ? "全角字母和数字" : digits ? "全角数字" : "全角字母");
	jh_buf_free(&buf);
	run->run_len = 0;
}

static void fullwidth_step(jh_brun *run, const jh_char *c)
{
	if (run->run_len && c->pos == run->run_end) {
		run->run_end += c->len;
		run->run_len++;
		return;
	}
	fullwidth_flush(run);
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
}

static void fullwidth_finish(jh_brun *run) { fullwidth_flush(run); }

/* ==== half-width katakana ============================================== */

/* ｶﾀｶﾅ → カタカナ: NFKC (utf8proc) joins a sound mark to its letter.  A
 * run needs three characters, two of them letters, so the arms and eyes of
 * kaomoji ((ﾟ∀ﾟ), ヽ(ﾟ∀ﾟ)ﾉ) are left alone. */
static void kana_flush(jh_brun *run)
{
	if (run->run_len >= 3 && run->open >= 2) {
		utf8proc_uint8_t *out = NULL;
		utf8proc_ssize_t n = utf8proc_map(
			(const utf8proc_uint8_t *)run->text + run->run_start,
			(utf8proc_ssize_t)(run->run_end - run->run_start), &out,
			UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
		if (n < 0)
			run->err = n == UTF8PROC_ERROR_NOMEM ? JH_ERR_NOMEM : run->err;
		else
			emit_fix(run, run->run_start, run->run_end, (const char *)out, (size_t)n, 0, NULL);
		free(out);
	}
	run->run_len = 0;
	run->open = 0;
}

static void kana_step(jh_brun *run, const jh_char *c)
{
	int half = c->cp >= 0xFF66 && c->cp <= 0xFF9F;
	if (!half) {
		kana_flush(run);
		return;
	}
	if (!(run->run_len && c->pos == run->run_end)) {
		kana_flush(run);
		run->run_start = c->pos;
		run->run_end = c->pos;
	}
	run->run_end += c->len;
	run->run_len++;
	run->open += c->cp <= 0xFF9D; /* letters, not sound marks */
}

static void kana_finish(jh_brun *run) { kana_flush(run); }

const jh_builtin_def jh_checks_script[] = {
	{"variant", JH_C_HAN | JH_C_NEWLINE, variant_params, chars_compile, variant_free, variant_step,
	 variant_finish},
	{"conversion", JH_C_HAN | JH_C_NEWLINE, variant_params, phrases_compile, variant_free,
	 variant_step, variant_finish},
	{"regional", JH_C_HAN | JH_C_NEWLINE, regional_params, regional_compile, variant_free,
	 variant_step, variant_finish},
	{"lookalike", JH_C_LATIN | JH_C_DIGIT | JH_C_OTHER, lookalike_params, lookalike_compile, free,
	 lookalike_step, lookalike_finish},
	{"invisible", JH_C_INVISIBLE | JH_C_OTHER, NULL, NULL, NULL, invisible_step, invisible_finish},
	{"fullwidth", JH_C_FULLWIDTH_ALNUM, NULL, NULL, NULL, fullwidth_step, fullwidth_finish},
	{"halfwidth-kana", JH_C_KANA, NULL, NULL, NULL, kana_step, kana_finish},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
