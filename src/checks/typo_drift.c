/* typo_drift.c — names that drift: a name or term of three characters seen
 * many times in a document and once in a form that differs in one
 * character (段興茂 ×8, 段興買 ×1).  No dictionary of names is needed: the
 * document itself says which form is the name.  What keeps real words out
 * is a list of common words (jieba's) and the statistics of the document:
 *
 *  - the frequent form f appears at least min-count times, the rare form r
 *    at most max-rare times;
 *  - neither f nor r, nor their shared part when it is contiguous, nor
 *    the differing character with a neighbour is a common word (日本人 /
 *    日本兵, 高興地 / 高興的, 軍騎兵 / 軍騎馬);
 *  - f holds together: its two halves rarely occur without each other
 *    (巴根說 ×10 is a name and a verb, 巴根 also comes before 道, 的 …);
 *  - the differing character is not a numeral (第三團 / 第四團);
 *  - only one frequent form differs from r at that place.
 *
 * The counting runs once per document in finish(): an open-addressing
 * table of trigram counts keyed by packed code points, sized from the
 * block's length and grown by doubling.  The bigram counts the cohesion
 * test needs are taken in a second pass, only for the halves of frequent
 * forms and only when some pair passed the other table-free tests: most
 * blocks never need them, and counting every bigram doubled the table.
 * No library offers n-gram counting over code points, and this table is
 * fifty lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "typo.h"
#include "utf8.h"
#include "wordmap.h"

/* How a character sounds and looks: a slip of the input method keeps one
 * of the three (茂 mao / 買 mai, 林 / 材 under 木). */
struct sound {
	int32_t cp;
	char initial[4], final[8];
	unsigned radical;
};

typedef struct {
	const jh_wordmap *common; /* common words: a pair made of them is real (shared) */
	jh_strset stop;          /* characters never part of a name form */
	struct sound *sound;     /* sorted by code point */
	size_t n_sound;
	unsigned long min_count; /* frequent form: at least this many */
	unsigned long max_rare;  /* rare form: at most this many */
	unsigned long cohesion;  /* percent: f / each of its bigrams */
	/* The two tables are read the first time the rule runs, not when the
	 * rule set is compiled: a run that does not select the rule (or a
	 * hook on a short file) does not pay for 90 000 lines. */
	const jh_rule *rule;
	const char *words_file, *sound_file; /* the rule's parameters */
	jh_lazy once;            /* the common words */
	jh_lazy once_sound;      /* the sound table, when a pair gets that far */
} drift_cfg;

const char *const jh_drift_params[] = {"words", "stop", "sound", "min-count", "max-rare", "cohesion",
                                       NULL};

void jh_drift_free(void *p)
{
	drift_cfg *c = p;
	if (!c)
		return;
	jh_wm_release_shared(c->common);
	jh_strset_free(&c->stop);
	free(c->sound);
	jh_lazy_destroy(&c->once);
	jh_lazy_destroy(&c->once_sound);
	free(c);
}

static int cmp_sound(const void *a, const void *b)
{
	const struct sound *x = a, *y = b;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

/* Read data/FILE: character<TAB>initial<TAB>final<TAB>radical. */
static int load_sound(drift_cfg *c)
{
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, c->sound_file, c->rule, c->rule->line, NULL, NULL);
	if (rc)
		return rc;
	size_t cap_v = 0;
	char *f[4];
	size_t fl[4];
	/* character<TAB>initial<TAB>final<TAB>radical; a line that is not
	 * that is skipped, as a table with fewer rows only guards less */
	while (rc == JH_OK && jh_tsv_next(&t, f, fl, 4) == 4) {
		struct sound e = {0};
		if (fl[1] >= sizeof e.initial || fl[2] >= sizeof e.final || !fl[3] ||
		    jh_utf8_decode((const unsigned char *)f[0], fl[0], &e.cp) != fl[0] || e.cp < 0)
			continue;
		memcpy(e.initial, f[1], fl[1] + 1);
		memcpy(e.final, f[2], fl[2] + 1);
		char *end;
		e.radical = (unsigned)strtoul(f[3], &end, 10);
		if (jh_grow((void **)&c->sound, &cap_v, c->n_sound + 1, sizeof *c->sound))
			rc = JH_ERR_NOMEM;
		else
			c->sound[c->n_sound++] = e;
	}
	jh_tsv_close(&t);
	size_t i = 1;
	while (i < c->n_sound && c->sound[i - 1].cp <= c->sound[i].cp)
		i++;
	if (rc == JH_OK && i < c->n_sound) /* the generator writes it sorted */
		qsort(c->sound, c->n_sound, sizeof *c->sound, cmp_sound);
	return rc;
}

/* Do two characters sound or look alike?  Unknown characters do not. */
static int alike(const drift_cfg *c, int32_t a, int32_t b)
{
	struct sound ka = {a, "", "", 0}, kb = {b, "", "", 0};
	const struct sound *x = bsearch(&ka, c->sound, c->n_sound, sizeof ka, cmp_sound);
	const struct sound *y = bsearch(&kb, c->sound, c->n_sound, sizeof kb, cmp_sound);
	if (!x || !y)
		return 0;
	return (strcmp(x->initial, y->initial) == 0 && strcmp(x->initial, "-") != 0) ||
	       strcmp(x->final, y->final) == 0 || (x->radical && x->radical == y->radical);
}

int jh_drift_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	drift_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once);
	jh_lazy_init(&c->once_sound);
	c->rule = r;
	int rc = JH_OK;
	/* words and sound: checked now, read on first use (drift_load). */
	const char *keys[2] = {"words", "sound"};
	const char **names[2] = {&c->words_file, &c->sound_file};
	for (int k = 0; k < 2 && rc == JH_OK; k++) {
		unsigned line = r->line;
		*names[k] = jh_rule_param(r, keys[k], &line);
		if (*names[k])
			rc = jh_data_readable(r, *names[k], line, diag_fn, payload);
	}
	unsigned line = r->line;
	const char *stop = jh_rule_param(r, "stop", &line);
	if (rc == JH_OK && stop)
		rc = jh_load_words(&c->stop, r->data_dir, stop, r, line, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-count", 5, 1000000, &c->min_count, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "max-rare", 1, 1000, &c->max_rare, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "cohesion", 60, 100, &c->cohesion, diag_fn, payload);
	if (rc == JH_OK && c->min_count <= c->max_rare) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "min-count must be larger than max-rare");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		jh_drift_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* ---- n-gram table ---- */

#define BIGRAM_TAG ((uint64_t)1 << 63)
#define MAX_SLOTS ((size_t)1 << 24) /* 16 M slots: beyond, no new keys */

typedef struct {
	uint64_t key;
	uint32_t count;
	uint32_t pos;   /* byte offset of the first occurrence (capped) */
} ng_slot;

/* The entries lie densely in order of arrival; the hash part holds only
 * their indexes.  The checks walk every entry two or three times, and a
 * sparse table of whole slots made that walk, and the clearing of it for
 * every chapter, cost more than the counting. */
typedef struct {
	ng_slot *e;
	uint32_t *idx;       /* entry index + 1; 0 = empty */
	size_t cap, n, ecap; /* hash slots (a power of two), entries, room in e */
	unsigned shift;      /* 64 - log2(cap): the product's top bits pick the slot */
	int full;
} ng_table;

static inline uint64_t key3(int32_t a, int32_t b, int32_t c)
{
	return ((uint64_t)a << 42) | ((uint64_t)b << 21) | (uint64_t)c;
}

/* Fibonacci hashing: the top bits of the product depend on every bit of
 * the key.  Bits taken from the middle of it (>> 20, as before) depend only
 * on the key's low 20 + log2(cap) bits, i.e. the last character and part of
 * the one before: the masked keys, which differ in the first character
 * only, fell into one cluster. */
static inline size_t slot_of(const ng_table *t, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> t->shift);
}

/* The hash slot holding key, or the empty one where it would go. */
static inline size_t ng_slot_for(const ng_table *t, uint64_t key)
{
	size_t i = slot_of(t, key);
	while (t->idx[i] && t->e[t->idx[i] - 1].key != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static ng_slot *ng_find(const ng_table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	uint32_t k = t->idx[ng_slot_for(t, key)];
	return k ? &t->e[k - 1] : NULL;
}

static int ng_resize(ng_table *t, size_t cap)
{
	uint32_t *idx = calloc(cap, sizeof *idx);
	ng_slot *e = realloc(t->e, cap / 2 * sizeof *e);
	if (!idx || !e) {
		free(idx);
		if (e)
			t->e = e;
		return JH_ERR_NOMEM;
	}
	free(t->idx);
	t->idx = idx;
	t->e = e;
	t->cap = cap;
	t->shift = 64u - (unsigned)__builtin_ctzll((unsigned long long)cap);
	t->ecap = cap / 2;
	for (size_t k = 0; k < t->n; k++)
		t->idx[ng_slot_for(t, t->e[k].key)] = (uint32_t)k + 1;
	return JH_OK;
}

/* Room for about n keys at a load under one half, before they come: one
 * allocation instead of a cascade of doublings and rehashes. */
static int ng_reserve(ng_table *t, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 2 && cap < MAX_SLOTS)
		cap *= 2;
	return cap > t->cap ? ng_resize(t, cap) : JH_OK;
}

/* Empty, keeping the memory. */
static void ng_clear(ng_table *t)
{
	if (t->cap)
		memset(t->idx, 0, t->cap * sizeof *t->idx);
	t->n = 0;
	t->full = 0;
}

static void ng_free(ng_table *t)
{
	free(t->e);
	free(t->idx);
}

/* The entry for key; a new one (count 0, at pos) if it was not there.
 * NULL when memory runs out or the table is full. */
static ng_slot *ng_upsert(ng_table *t, uint64_t key, size_t pos, int *rc)
{
	if (t->n * 2 >= t->cap) {
		if (t->cap >= MAX_SLOTS)
			t->full = 1;
		else if ((*rc = ng_resize(t, t->cap ? t->cap * 2 : 4096)))
			return NULL;
	}
	size_t i = ng_slot_for(t, key);
	if (t->idx[i])
		return &t->e[t->idx[i] - 1];
	if (t->full)
		return NULL;
	t->e[t->n] = (ng_slot){key, 0, pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos};
	t->idx[i] = (uint32_t)++t->n;
	return &t->e[t->n - 1];
}

/* Counts key once more, a new entry at pos if it was not there.  A key
 * seen before (most trigrams of a text repeat) is counted here, without
 * the call and the checks for room that only a new key needs. */
static inline int ng_add(ng_table *t, uint64_t key, size_t pos)
{
	if (t->cap) {
		for (size_t i = slot_of(t, key);; i = (i + 1) & (t->cap - 1)) {
			uint32_t k = t->idx[i];
			if (!k)
				break;
			if (t->e[k - 1].key == key) {
				t->e[k - 1].count += t->e[k - 1].count < UINT32_MAX;
				return JH_OK;
			}
		}
	}
	int rc = JH_OK;
	ng_slot *s = ng_upsert(t, key, pos, &rc);
	if (s)
		s->count += s->count < UINT32_MAX;
	return rc;
}

static uint32_t ng_count(const ng_table *t, uint64_t key)
{
	const ng_slot *s = ng_find(t, key);
	return s ? s->count : 0;
}

/* ---- the check ---- */

typedef struct {
	size_t rpos, fpos;   /* first bytes of the rare and the frequent form */
	size_t dpos;         /* the differing character in the rare form */
	uint32_t fcount;
} drift_hit;

static int is_numeral(int32_t cp)
{
	static const int32_t nums[] = {0x3007, 0x96F6, 0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94, 0x516D,
	                               0x4E03, 0x516B, 0x4E5D, 0x5341, 0x767E, 0x5343, 0x4E07, 0x842C,
	                               0x4EBF, 0x5104, 0x4E24, 0x5169, 0x51E0, 0x5E7E, 0x534A, 0x591A,
	                               0x7B2C};
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
		if (nums[i] == cp)
			return 1;
	return 0;
}

/* Byte offsets of the three characters at pos, and the end. */
static void tri_offsets(const char *text, size_t len, size_t pos, size_t off[4])
{
	off[0] = pos;
	for (int i = 0; i < 3; i++) {
		int32_t cp;
		off[i + 1] = off[i] + jh_utf8_decode((const unsigned char *)text + off[i], len - off[i], &cp);
	}
}

static int common(const drift_cfg *cfg, const char *text, size_t a, size_t b)
{
	return cfg->common && jh_wm_has(cfg->common, text + a, b - a);
}

/* Is a three-character form at off[] or its part around position i a
 * common word? */
static int word_around(const drift_cfg *cfg, const char *text, const size_t off[4], int i)
{
	if (common(cfg, text, off[0], off[3]))
		return 1;
	if (i > 0 && common(cfg, text, off[i - 1], off[i + 1]))
		return 1;
	return i < 2 && common(cfg, text, off[i], off[i + 2]);
}

static int cmp_hit(const void *a, const void *b)
{
	/* a total order: the first window of a character wins whatever order
	 * the table gave the hits in */
	const drift_hit *x = a, *y = b;
	if (x->dpos != y->dpos)
		return x->dpos < y->dpos ? -1 : 1;
	if (x->rpos != y->rpos)
		return x->rpos < y->rpos ? -1 : 1;
	return x->fpos < y->fpos ? -1 : x->fpos > y->fpos;
}

/* The passes over a block's pairs, each with the tests of the one before:
 * a pair failing them fails the whole test, so a block where no pair
 * passes a cheap pass needs nothing the later ones read. */
enum {
	PASS_PLAIN,  /* numerals, the stop list */
	PASS_COUNTS, /* and cohesion, from the bigram counts */
	PASS_FULL    /* and the common words, then the sound table */
};

static int sound_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = c->sound_file ? load_sound(c) : JH_OK;
	return rc == JH_ERR_NOMEM ? rc : JH_OK; /* a file gone: fewer guards */
}

/* Is r (rare) a drifted form of f (frequent), differing at position i?
 * 1 yes, 0 no, -1 out of memory. */
static int drift_pair(const drift_cfg *cfg, const ng_table *bi, const char *text, size_t len,
                      const ng_slot *f, const ng_slot *r, int i, int pass)
{
	int cheap = pass != PASS_FULL;
	int32_t fc[3] = {(int32_t)(f->key >> 42), (int32_t)((f->key >> 21) & 0x1FFFFF),
	                 (int32_t)(f->key & 0x1FFFFF)};
	int32_t rc = (int32_t)((r->key >> (21 * (2 - i))) & 0x1FFFFF);
	if (is_numeral(fc[i]) || is_numeral(rc))
		return 0;
	/* Cohesion: each half of f is mostly found inside f. */
	for (int h = 0; h < 2 && pass >= PASS_COUNTS; h++) {
		uint64_t bk = BIGRAM_TAG | ((uint64_t)fc[h] << 21) | (uint64_t)fc[h + 1];
		uint32_t bc = ng_count(bi, bk);
		if (i != h && i != h + 1)
			bc -= bc >= r->count ? r->count : bc; /* the rare form shares this half */
		if ((uint64_t)f->count * 100 < (uint64_t)cfg->cohesion * bc)
			return 0;
	}
	size_t fo[4], ro[4];
	tri_offsets(text, len, f->pos, fo);
	tri_offsets(text, len, r->pos, ro);
	for (int k = 0; k < 3 && cfg->stop.count; k++)
		if (jh_strset_has(&cfg->stop, text + fo[k], fo[k + 1] - fo[k]) ||
		    jh_strset_has(&cfg->stop, text + ro[k], ro[k + 1] - ro[k]))
			return 0;
	if (!cheap && cfg->common && cfg->common->n) {
		/* f's own halves may be words (聂桂林: 桂林); the rare form's may not. */
		if (common(cfg, text, fo[0], fo[3]) || word_around(cfg, text, ro, i))
			return 0;
		if (i == 0 && common(cfg, text, fo[1], fo[3]))
			return 0;
		/* The rare form must stand alone: its first character is not the
		 * end of a word before it (一次 + 此动作), its last not the start of
		 * a word after it (分页 + 时候). */
		if (ro[0] > 0) {
			size_t l = ro[0];
			do
				l--;
			while (l > 0 && ((unsigned char)text[l] & 0xC0) == 0x80);
			if (common(cfg, text, l, ro[1]))
				return 0;
		}
		if (ro[3] < len) {
			int32_t cp;
			size_t n = jh_utf8_decode((const unsigned char *)text + ro[3], len - ro[3], &cp);
			if (common(cfg, text, ro[2], ro[3] + n))
				return 0;
		}
		if (i == 2 && common(cfg, text, fo[0], fo[2]))
			return 0;
	}
	/* Last, as its table is read only when a pair gets here. */
	if (!cheap && cfg->sound_file) {
		if (jh_lazy_get(&((drift_cfg *)cfg)->once_sound, sound_read, (void *)cfg))
			return -1;
		if (cfg->n_sound && !alike(cfg, fc[i], rc))
			return 0;
	}
	return 1;
}

/* The trigram with position i replaced by 0x1FFFFF, which is no code
 * point: forms that differ only there share it. */
static inline uint64_t mask_key(uint64_t key, int i)
{
	return key | ((uint64_t)0x1FFFFF << (21 * (2 - i)));
}

/* A rare form can share a mask with a frequent one only if two of its
 * characters stand where a frequent form has them: one bit per character
 * (folded to FOLD_BITS) and position says which may.  Most trigrams of a
 * text are rare, and this spares them three hash lookups each. */
#define FOLD_BITS 14
#define FOLD(cp) ((uint32_t)(cp) & ((1u << FOLD_BITS) - 1))

typedef struct {
	uint64_t at[3][(1u << FOLD_BITS) / 64];
} place_bits;

static inline void place_set(place_bits *pb, int i, int32_t cp)
{
	pb->at[i][FOLD(cp) >> 6] |= (uint64_t)1 << (FOLD(cp) & 63);
}

static inline int place_has(const place_bits *pb, int i, int32_t cp)
{
	return (int)(pb->at[i][FOLD(cp) >> 6] >> (FOLD(cp) & 63)) & 1;
}

/* A block's frequent forms, by masked key (one position zeroed: two
 * frequent forms with the same mask are both real, marked by count 0),
 * and their characters by place.  Built once per block for its passes. */
typedef struct {
	ng_table masks;
	place_bits *pb;
	size_t n;       /* frequent forms */
} frequent_forms;

static int frequent_build(const drift_cfg *cfg, const ng_table *t, frequent_forms *ff)
{
	*ff = (frequent_forms){0};
	for (size_t s = 0; s < t->n; s++)
		ff->n += t->e[s].count >= cfg->min_count;
	if (!ff->n)
		return JH_OK;
	if (!(ff->pb = calloc(1, sizeof *ff->pb)))
		return JH_ERR_NOMEM;
	int rc = ng_reserve(&ff->masks, 3 * ff->n);
	for (size_t s = 0; s < t->n && rc == JH_OK; s++) {
		const ng_slot *f = &t->e[s];
		if (f->count < cfg->min_count || f->pos == UINT32_MAX)
			continue;
		for (int i = 0; i < 3; i++)
			place_set(ff->pb, i, (int32_t)((f->key >> (21 * (2 - i))) & 0x1FFFFF));
		for (int i = 0; i < 3 && rc == JH_OK; i++) {
			size_t before = ff->masks.n;
			ng_slot *m = ng_upsert(&ff->masks, mask_key(f->key, i), s, &rc);
			if (m) /* 1 = one frequent form; a second one: ambiguous, 0 */
				m->count = ff->masks.n > before;
		}
	}
	return rc;
}

static void frequent_free(frequent_forms *ff)
{
	ng_free(&ff->masks);
	free(ff->pb);
}

/* A rare form r, a frequent form f (their entries) that differ at i. */
typedef struct {
	uint32_t r, f;
	int i;
} drift_pair_at;

/* The pairs of rare and frequent forms that pass the first pass's tests:
 * the one walk over every entry.  The later passes only add tests, so
 * they look at these pairs alone, in the same order. */
static int drift_candidates(const drift_cfg *cfg, const ng_table *t, const frequent_forms *ff,
                            const char *text, size_t len, drift_pair_at **v, size_t *n,
                            size_t *cap)
{
	const ng_table *masks = &ff->masks;
	const place_bits *pb = ff->pb;
	for (size_t s = 0; s < t->n; s++) {
		const ng_slot *r = &t->e[s];
		if (r->count > cfg->max_rare || r->pos == UINT32_MAX)
			continue;
		int32_t c0 = (int32_t)(r->key >> 42), c1 = (int32_t)((r->key >> 21) & 0x1FFFFF),
		        c2 = (int32_t)(r->key & 0x1FFFFF);
		int h0 = place_has(pb, 0, c0), h1 = place_has(pb, 1, c1), h2 = place_has(pb, 2, c2);
		int may[3] = {h1 && h2, h0 && h2, h0 && h1};
		for (int i = 0; i < 3; i++) {
			if (!may[i])
				continue;
			const ng_slot *m = ng_find(masks, mask_key(r->key, i));
			if (!m || !m->count)
				continue;
			if (!drift_pair(cfg, NULL, text, len, &t->e[m->pos], r, i, PASS_PLAIN))
				continue;
			if (jh_grow((void **)v, cap, *n + 1, sizeof **v))
				return JH_ERR_NOMEM;
			(*v)[(*n)++] = (drift_pair_at){(uint32_t)s, m->pos, i};
		}
	}
	return JH_OK;
}

/* Keeps the pairs that pass pass's tests; with hits, adds one for each. */
static int drift_filter(const drift_cfg *cfg, const ng_table *t, const ng_table *bi,
                        const char *text, size_t len, drift_pair_at *v, size_t *n, int pass,
                        drift_hit **hits, size_t *n_hits, size_t *cap_hits)
{
	size_t w = 0;
	for (size_t k = 0; k < *n; k++) {
		const ng_slot *r = &t->e[v[k].r], *f = &t->e[v[k].f];
		int slip = drift_pair(cfg, bi, text, len, f, r, v[k].i, pass);
		if (slip < 0)
			return JH_ERR_NOMEM;
		if (!slip)
			continue;
		v[w++] = v[k];
		if (!hits)
			continue;
		size_t ro[4];
		tri_offsets(text, len, r->pos, ro);
		if (jh_grow((void **)hits, cap_hits, *n_hits + 1, sizeof **hits))
			return JH_ERR_NOMEM;
		(*hits)[(*n_hits)++] = (drift_hit){r->pos, f->pos, ro[v[k].i], f->count};
	}
	*n = w;
	return JH_OK;
}

/* Read the common words, once (jh_lazy): the rule set may serve several
 * threads.  A file gone since compiling means fewer guards, not an error;
 * only running out of memory stops the check. */
static int drift_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = JH_OK;
	if (c->words_file)
		/* the word-model table (wordmap.h): shared, and mapped from the
		 * cache folder after the first run */
		rc = jh_wm_get_shared(c->rule, c->words_file, c->rule->line, 0, &c->common, NULL, NULL);
	return rc == JH_ERR_NOMEM ? rc : JH_OK;
}

static int drift_load(drift_cfg *c)
{
	return jh_lazy_get(&c->once, drift_read, c);
}

/* The document is counted in blocks of about DRIFT_BLOCK bytes (cut at a
 * line end): a name and its drifted form are compared within a block, so
 * the n-gram table stays at a few tens of MB and in cache whatever the
 * file's size (one table over a 200 MB file took gigabytes).  A megabyte
 * is a hundred chapters: a name that drifts is seen often in far less. */
#ifndef DRIFT_BLOCK
#define DRIFT_BLOCK ((size_t)1 << 20)
#endif

static size_t block_end(const char *text, size_t len, size_t start)
{
	if (len - start <= DRIFT_BLOCK + DRIFT_BLOCK / 4)
		return len; /* no short last block */
	const char *nl = memchr(text + start + DRIFT_BLOCK, '\n', DRIFT_BLOCK / 4);
	return nl ? (size_t)(nl - text) + 1 : start + DRIFT_BLOCK;
}

/* The code point at s[i] (its length in *n), read from the raw bytes for
 * a three-byte character (E1-EF but ED, with two continuation bytes: always
 * valid: nearly all of Chinese text), else by the strict decoder.  The
 * counting passes read every character of the document, and the
 * decoder's general loop was most of their cost (50 instructions a
 * character of prose). */
static inline int32_t cp_at(const unsigned char *s, size_t i, size_t len, size_t *n)
{
	unsigned b0 = s[i];
	if (b0 >= 0xE1 && b0 <= 0xEF && b0 != 0xED && len - i >= 3 && (s[i + 1] & 0xC0) == 0x80 &&
	    (s[i + 2] & 0xC0) == 0x80) {
		*n = 3;
		return (int32_t)((b0 & 0x0F) << 12 | (s[i + 1] & 0x3Fu) << 6 | (s[i + 2] & 0x3Fu));
	}
	int32_t cp;
	*n = jh_utf8_decode(s + i, len - i, &cp);
	return cp;
}

/* The end of the run of ASCII bytes from i (before end): no Han
 * character is there, and the man pages and other technical text are
 * mostly such runs, read eight bytes at a time. */
static inline size_t ascii_end(const unsigned char *s, size_t i, size_t end)
{
	for (uint64_t w; end - i >= 8; i += 8) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
	}
	while (i < end && s[i] < 0x80)
		i++;
	return i;
}

/* The counts the cohesion test needs: of the two halves of every frequent
 * form, over the block. */
static int count_halves(const drift_cfg *cfg, const ng_table *t, size_t n_frequent, ng_table *bi,
                        const char *text, size_t len, size_t start, size_t end)
{
	int rc = ng_reserve(bi, 2 * n_frequent);
	for (size_t s = 0; s < t->n && rc == JH_OK; s++) {
		uint64_t k = t->e[s].key;
		if (t->e[s].count < cfg->min_count)
			continue;
		uint64_t a = k >> 42, b = (k >> 21) & 0x1FFFFF, c = k & 0x1FFFFF;
		uint64_t halves[2] = {BIGRAM_TAG | a << 21 | b, BIGRAM_TAG | b << 21 | c};
		for (int h = 0; h < 2 && rc == JH_OK; h++)
			ng_upsert(bi, halves[h], 0, &rc); /* count 0 until counted */
	}
	int32_t prev = 0;
	for (size_t i = start; i < end && rc == JH_OK;) {
		if ((unsigned char)text[i] < 0x80) {
			prev = 0;
			i = ascii_end((const unsigned char *)text, i + 1, end);
			continue;
		}
		size_t w;
		int32_t cp = cp_at((const unsigned char *)text, i, len, &w);
		if (cp < 0x3007 || !(jh_class_of(cp) & JH_C_HAN)) {
			prev = 0;
		} else {
			if (prev) {
				ng_slot *slot = ng_find(bi, BIGRAM_TAG | ((uint64_t)prev << 21) | (uint64_t)cp);
				if (slot)
					slot->count += slot->count < UINT32_MAX;
			}
			prev = cp;
		}
		i += w ? w : 1;
	}
	return rc;
}

static int drift_block(jh_brun *run, ng_table *t, size_t start, size_t end)
{
	const drift_cfg *cfg = run->cfg;
	const char *text = run->text;
	size_t len = run->len;
	int32_t c1 = 0, c2 = 0;     /* the two Han characters before, 0 = none */
	size_t p1 = 0, p2 = 0;
	/* A Han character is three bytes: at most a trigram per three bytes
	 * (a chapter's table is made once, at its size); a long block starts
	 * at 32,768 keys and grows, as repeated text has few distinct ones. */
	size_t most = (end - start) / 3;
	int rc = ng_reserve(t, most < 32768 ? most : 32768);
	for (size_t i = start; i < end && rc == JH_OK;) {
		if ((unsigned char)text[i] < 0x80) {
			c1 = c2 = 0;
			i = ascii_end((const unsigned char *)text, i + 1, end);
			continue;
		}
		size_t n;
		int32_t cp = cp_at((const unsigned char *)text, i, len, &n);
		if (cp < 0x3007 || !(jh_class_of(cp) & JH_C_HAN)) {
			c1 = c2 = 0;
		} else {
			if (c1)
				rc = ng_add(t, key3(c1, c2, cp), p1);
			c1 = c2, p1 = p2;
			c2 = cp, p2 = i;
		}
		i += n ? n : 1;
	}
	drift_hit *hits = NULL;
	size_t n_hits = 0, cap_hits = 0;
	ng_table bi = {0};
	/* Most texts a hook sees are short: without a frequent form there is
	 * nothing to compare, and the tables need not be read. */
	frequent_forms ff = {0};
	if (rc == JH_OK)
		rc = frequent_build(cfg, t, &ff);
	/* any pair at all, before counting bigrams, before reading the tables? */
	drift_pair_at *pairs = NULL;
	size_t n_pairs = 0, cap_pairs = 0;
	if (rc == JH_OK && ff.n)
		rc = drift_candidates(cfg, t, &ff, text, len, &pairs, &n_pairs, &cap_pairs);
	if (rc == JH_OK && n_pairs)
		rc = count_halves(cfg, t, ff.n, &bi, text, len, start, end);
	if (rc == JH_OK && n_pairs)
		rc = drift_filter(cfg, t, &bi, text, len, pairs, &n_pairs, PASS_COUNTS, NULL, NULL, NULL);
	if (rc == JH_OK && n_pairs)
		rc = drift_load((drift_cfg *)cfg); /* the lazy part of a shared rule set */
	if (rc == JH_OK && n_pairs)
		rc = drift_filter(cfg, t, &bi, text, len, pairs, &n_pairs, PASS_FULL, &hits, &n_hits,
		                  &cap_hits);
	free(pairs);
	frequent_free(&ff);
	ng_free(&bi);
	if (rc == JH_OK) {
		if (n_hits > 1) /* hits is NULL when there are none: not for qsort */
			qsort(hits, n_hits, sizeof *hits, cmp_hit);
		size_t last = SIZE_MAX;
		for (size_t k = 0; k < n_hits; k++) {
			if (hits[k].dpos == last)
				continue; /* one finding per character, from its first window */
			last = hits[k].dpos;
			size_t ro[4], fo[4];
			tri_offsets(text, len, hits[k].rpos, ro);
			tri_offsets(text, len, hits[k].fpos, fo);
			size_t g[2] = {fo[0], fo[3]};
			size_t at = run->out->count;
			jh_brun_emit(run, ro[0], ro[3], g, 1, NULL);
			/* The frequent form is an answer to check, not a fix: where
			 * a text spells a name two ways both are often right
			 * (transliterations, a quoted misprint, an idiom that shares
			 * two characters), and the document cannot tell which
			 * (README, "How often an unsafe fix is right").  So not even
			 * `fix --unsafe` applies it; the message still names it. */
			if (!run->err && run->out->count == at + 1) {
				jh_finding *f = &run->out->items[at];
				if (f->has_fix && f->n_edits == 1) {
					int e = jh_findings_add_alternative(run->out, at, f->edits, 1);
					if (e)
						run->err = e;
					else
						jh_finding_drop_fix(&run->out->items[at]);
				}
			}
		}
	}
	free(hits);
	return rc;
}

void jh_drift_finish(jh_brun *run)
{
	ng_table t = {0};
	int rc = JH_OK;
	for (size_t start = 0, end; start < run->len && rc == JH_OK; start = end) {
		end = block_end(run->text, run->len, start);
		ng_clear(&t); /* the next block starts empty, in the same memory */
		rc = drift_block(run, &t, start, end);
	}
	if (rc)
		run->err = rc;
	ng_free(&t);
}
