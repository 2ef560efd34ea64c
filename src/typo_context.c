/* typo_context.c — homophone slips found from their context (typo.context,
 * opt-in): 炮單 for 炮彈, 住守 for 駐守.
 *
 * Each run of Han characters is segmented the way jieba does it: a DAG of
 * the dictionary words that start at each character, and the path of
 * highest unigram probability (log of word frequency over the total).  A
 * character that the best path leaves alone, and that makes no word with
 * either neighbour, is suspicious.  Its candidates are the characters with
 * the same Mandarin syllable (initial and final, tones dropped: what a
 * pinyin input method offers for the same keys).  A candidate wins when it
 * makes a frequent two-character word with a neighbour, raises the
 * probability of the window around it by a clear margin, and no other
 * candidate comes close.  Guards: function characters (the stop list of
 * typo.name-drift) are never changed nor proposed, a pair that the
 * document writes more than once is meant (a name, a term), and dialogue
 * in quotation marks is skipped.
 *
 * With sunpinyin's word trigram model (typo_lm.c; Debian sunpinyin-data,
 * read at run time) every character that is no function character is a
 * spot: its candidates come from a confusion index (same syllable,
 * completes a frequent word with a neighbour; or a two-character word of
 * the same syllables when the original pair is a word, 上网 for 伤亡), and
 * the window is rescored with the trigram model.  Without the model the
 * unigram scoring above is used.
 *
 * The dictionary is jieba's dict.txt, read at run time from where Debian
 * installs it (the `dict` parameter), the first time the rule runs: a rule
 * set that does not select the rule never reads it.  Traditional text is
 * looked up through a one-to-one traditional→simplified map. */
#define _GNU_SOURCE 1 /* memmem */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "findings.h"
#include "typo.h"
#include "typo_lm.h"
#include "utf8.h"
#include "util.h"

#define MAX_WORD 4   /* characters in a dictionary word we use */
#define WINDOW 6     /* characters rescored on each side of a candidate */

/* Dictionary: words of 1-4 Han characters (as code points) → frequency,
 * open addressing.  jh_strset has no values, hence this table. */
typedef struct {
	uint64_t h;      /* hash of the code points, 0 = empty */
	int32_t cp[MAX_WORD];
	uint32_t freq;
} dict_slot;

typedef struct {
	int32_t cp, simp;
} t2s_pair;

typedef struct {
	int32_t cp;
	uint32_t syllable; /* index of initial+final, for homophone groups */
} syl_pair;

/* Confusion index: for a key (which side, a neighbour character, a
 * syllable) the characters x of that syllable that make a frequent word
 * with the neighbour on that side; for a key (two syllables) the
 * two-character words that sound so.  Values in conf_val, [start, start+n). */
typedef struct {
	uint64_t key;   /* 0 = empty */
	uint32_t start, n;
} conf_slot;

typedef struct {
	char *dict_path;
	char *model_path, *lexicon_path; /* sunpinyin's word trigram model */
	jh_strset stop;
	t2s_pair *t2s;
	size_t n_t2s;
	syl_pair *syl;      /* sorted by code point */
	size_t n_syl;
	syl_pair *by_syl;   /* the same, sorted by syllable */
	unsigned long min_freq, margin, word_margin;
	/* Everything above the parameters and below is loaded on first use
	 * (the rule is opt-in; start-up must not pay for its tables). */
	jh_lazy once;
	const jh_rule *rule;
	const char *files[3];     /* stop, sound, t2s */
	unsigned lines[3];
	dict_slot *dict;
	size_t dict_cap;
	double log_total;
	/* Fast paths, because every character of the text is looked up four
	 * times: the single characters of the basic block in an array, and a
	 * Bloom filter of the first two characters of every longer word (most
	 * pairs of characters start no word, and the filter fits in cache). */
	float *single_logp;      /* U+4E00..U+9FFF, 0 = not a word */
	uint64_t *prefix_bloom;  /* PREFIX_BITS bits */
	/* With the model: its handle, and the confusion index (below). */
	jh_lm *lm;
	conf_slot *conf;
	size_t conf_cap;
	int32_t *conf_val;
	size_t n_conf_val;
} ctx_cfg;

#define PREFIX_BITS ((size_t)1 << 23)

const char *const jh_context_params[] = {"dict",     "lm",       "lm-words", "stop",        "sound",
                                         "t2s",      "min-freq", "margin", "word-margin", NULL};

void jh_context_free(void *p)
{
	ctx_cfg *c = p;
	if (!c)
		return;
	free(c->dict_path);
	free(c->model_path);
	free(c->lexicon_path);
	jh_lm_free(c->lm);
	free(c->conf);
	free(c->conf_val);
	jh_strset_free(&c->stop);
	free(c->t2s);
	free(c->syl);
	free(c->by_syl);
	free(c->dict);
	free(c->single_logp);
	free(c->prefix_bloom);
	jh_lazy_destroy(&c->once);
	free(c);
}

static int cmp_t2s(const void *a, const void *b)
{
	const t2s_pair *x = a, *y = b;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

static int cmp_syl_cp(const void *a, const void *b)
{
	const syl_pair *x = a, *y = b;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

static int cmp_syl_syl(const void *a, const void *b)
{
	const syl_pair *x = a, *y = b;
	if (x->syllable != y->syllable)
		return x->syllable < y->syllable ? -1 : 1;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

static FILE *open_data(const jh_rule *r, const char *file, unsigned line, jh_diag_fn diag_fn,
                       void *payload)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", r->data_dir ? r->data_dir : ".", file);
	FILE *f = fopen(path, "rb");
	if (!f)
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id, "cannot read %s", path);
	return f;
}

static int32_t first_cp(const char *s)
{
	int32_t cp;
	size_t n = jh_utf8_decode((const unsigned char *)s, strlen(s), &cp);
	return n && n == strlen(s) ? cp : -1;
}

/* typo-t2s.tsv: traditional<TAB>simplified. */
static int load_t2s(ctx_cfg *c, FILE *f)
{
	char *ln = NULL, a[8], b[8];
	size_t cap = 0, cap_v = 0;
	int rc = JH_OK;
	while (rc == JH_OK && getline(&ln, &cap, f) >= 0) {
		if (ln[0] == '#' || sscanf(ln, "%7[^\t]\t%7[^\t\r\n]", a, b) != 2)
			continue;
		t2s_pair p = {first_cp(a), first_cp(b)};
		if (p.cp < 0 || p.simp < 0)
			continue;
		if (jh_grow((void **)&c->t2s, &cap_v, c->n_t2s + 1, sizeof *c->t2s))
			rc = JH_ERR_NOMEM;
		else
			c->t2s[c->n_t2s++] = p;
	}
	free(ln);
	qsort(c->t2s, c->n_t2s, sizeof *c->t2s, cmp_t2s);
	return rc;
}

/* typo-char-sound.tsv: character<TAB>initial<TAB>final<TAB>radical.  The
 * syllable is numbered by first appearance of its initial+final. */
static int load_syl(ctx_cfg *c, FILE *f)
{
	char *ln = NULL, ch[8], ini[4], fin[8];
	size_t cap = 0, cap_v = 0, n_names = 0, cap_names = 0;
	char (*names)[12] = NULL;
	int rc = JH_OK;
	while (rc == JH_OK && getline(&ln, &cap, f) >= 0) {
		if (ln[0] == '#' || sscanf(ln, "%7[^\t]\t%3[^\t]\t%7[^\t]", ch, ini, fin) != 3)
			continue;
		char key[12];
		snprintf(key, sizeof key, "%s%s", ini, fin);
		size_t k = 0;
		while (k < n_names && strcmp(names[k], key) != 0)
			k++;
		if (k == n_names) {
			if (jh_grow((void **)&names, &cap_names, n_names + 1, sizeof *names)) {
				rc = JH_ERR_NOMEM;
				break;
			}
			memcpy(names[n_names++], key, sizeof key);
		}
		syl_pair p = {first_cp(ch), (uint32_t)k};
		if (p.cp < 0)
			continue;
		if (jh_grow((void **)&c->syl, &cap_v, c->n_syl + 1, sizeof *c->syl))
			rc = JH_ERR_NOMEM;
		else
			c->syl[c->n_syl++] = p;
	}
	free(ln);
	free(names);
	if (rc == JH_OK && c->n_syl) {
		c->by_syl = malloc(c->n_syl * sizeof *c->by_syl);
		if (!c->by_syl)
			return JH_ERR_NOMEM;
		memcpy(c->by_syl, c->syl, c->n_syl * sizeof *c->syl);
		qsort(c->syl, c->n_syl, sizeof *c->syl, cmp_syl_cp);
		qsort(c->by_syl, c->n_syl, sizeof *c->by_syl, cmp_syl_syl);
	}
	return rc;
}

int jh_context_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	ctx_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once);
	c->rule = r;
	int rc = JH_OK;
	unsigned line = r->line;
	const char *v = jh_rule_param(r, "dict", &line);
	if (v && !(c->dict_path = strdup(v)))
		rc = JH_ERR_NOMEM;
	v = jh_rule_param(r, "lm", &line);
	if (v && !(c->model_path = strdup(v)))
		rc = JH_ERR_NOMEM;
	v = jh_rule_param(r, "lm-words", &line);
	if (v && !(c->lexicon_path = strdup(v)))
		rc = JH_ERR_NOMEM;
	const char *keys[] = {"stop", "sound", "t2s"};
	for (int k = 0; k < 3 && rc == JH_OK; k++) {
		c->lines[k] = r->line;
		c->files[k] = jh_rule_param(r, keys[k], &c->lines[k]);
		if (!c->files[k]) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "check 'context' needs '%s'", keys[k]);
			rc = JH_ERR_RULES;
		} else {
			rc = jh_data_readable(r, c->files[k], c->lines[k], diag_fn, payload);
		}
	}
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-freq", 300, 100000000, &c->min_freq, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "margin", 4, 100, &c->margin, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "word-margin", 10, 100, &c->word_margin, diag_fn, payload);
	if (rc) {
		jh_context_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

typedef struct {
	ctx_cfg *c;
	jh_diag_fn diag_fn;
	void *payload;
} lazy_arg;

static void dict_load(ctx_cfg *c);
static int lm_load(ctx_cfg *c, jh_diag_fn diag_fn, void *payload);

/* The first use: the stop list, the sound and t2s tables, the dictionary. */
static int load_tables(void *arg)
{
	lazy_arg *a = arg;
	ctx_cfg *c = a->c;
	const jh_rule *r = c->rule;
	int rc = jh_load_words(&c->stop, r->data_dir, c->files[0], r, c->lines[0], a->diag_fn,
	                       a->payload);
	for (int k = 1; k < 3 && rc == JH_OK; k++) {
		FILE *f = open_data(r, c->files[k], c->lines[k], a->diag_fn, a->payload);
		if (!f) {
			rc = JH_ERR_RULES;
		} else {
			rc = k == 1 ? load_syl(c, f) : load_t2s(c, f);
			fclose(f);
		}
	}
	if (rc == JH_OK)
		dict_load(c);
	if (rc == JH_OK && c->dict_cap && c->model_path && c->lexicon_path)
		rc = lm_load(c, a->diag_fn, a->payload);
	return rc;
}

/* ---- dictionary ---- */


static dict_slot *dict_find(const ctx_cfg *c, const int32_t *cp, int n, uint64_t h)
{
	for (size_t i = h & (c->dict_cap - 1);; i = (i + 1) & (c->dict_cap - 1)) {
		dict_slot *s = &c->dict[i];
		if (!s->h)
			return s;
		if (s->h == h && memcmp(s->cp, cp, n * sizeof *cp) == 0 && (n == MAX_WORD || !s->cp[n]))
			return s;
	}
}

static inline uint64_t pair_hash(int32_t a, int32_t b)
{
	uint64_t h = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static inline int prefix_maybe(const ctx_cfg *c, int32_t a, int32_t b)
{
	uint64_t h = pair_hash(a, b);
	size_t i = (size_t)(h >> 40) & (PREFIX_BITS - 1), j = (size_t)h & (PREFIX_BITS - 1);
	return (c->prefix_bloom[i >> 6] >> (i & 63) & 1) && (c->prefix_bloom[j >> 6] >> (j & 63) & 1);
}

static inline void prefix_add(ctx_cfg *c, int32_t a, int32_t b)
{
	uint64_t h = pair_hash(a, b);
	size_t i = (size_t)(h >> 40) & (PREFIX_BITS - 1), j = (size_t)h & (PREFIX_BITS - 1);
	c->prefix_bloom[i >> 6] |= (uint64_t)1 << (i & 63);
	c->prefix_bloom[j >> 6] |= (uint64_t)1 << (j & 63);
}

static uint32_t dict_freq(const ctx_cfg *c, const int32_t *cp, int n)
{
	if (!c->dict_cap)
		return 0;
	if (n >= 2 && !prefix_maybe(c, cp[0], cp[1]))
		return 0;
	const dict_slot *s = dict_find(c, cp, n, jh_hash_cps(cp, n));
	return s->h ? s->freq : 0;
}

/* Read jieba's dict.txt (word freq tag): Han words of 1-4 characters. */
static void dict_load(ctx_cfg *c)
{
	FILE *f = c->dict_path ? fopen(c->dict_path, "rb") : NULL;
	if (!f)
		return; /* no dictionary: the rule finds nothing */
	c->dict_cap = (size_t)1 << 20; /* 1 M slots for jieba's 350 k words */
	c->dict = calloc(c->dict_cap, sizeof *c->dict);
	c->single_logp = calloc(0xA000 - 0x4E00, sizeof *c->single_logp);
	c->prefix_bloom = calloc(PREFIX_BITS / 64, sizeof *c->prefix_bloom);
	if (!c->dict || !c->single_logp || !c->prefix_bloom) {
		free(c->dict);
		free(c->single_logp);
		free(c->prefix_bloom);
		c->dict = NULL, c->single_logp = NULL, c->prefix_bloom = NULL;
		c->dict_cap = 0;
		fclose(f);
		return;
	}
	char *ln = NULL;
	size_t cap = 0, n_words = 0;
	double total = 0;
	while (getline(&ln, &cap, f) >= 0 && n_words < c->dict_cap / 2) {
		char *sp = strchr(ln, ' ');
		if (!sp)
			continue;
		int32_t cp[MAX_WORD] = {0};
		int n = 0, ok = 1;
		for (const char *p = ln; p < sp && ok;) {
			int32_t x;
			size_t k = jh_utf8_decode((const unsigned char *)p, (size_t)(sp - p), &x);
			ok = n < MAX_WORD && x > 0 && (jh_class_of(x) & JH_C_HAN);
			if (ok)
				cp[n++] = x;
			p += k ? k : 1;
		}
		unsigned long freq = strtoul(sp + 1, NULL, 10);
		total += (double)freq;
		if (!ok || !n || !freq)
			continue;
		if (n >= 2)
			prefix_add(c, cp[0], cp[1]);
		uint64_t h = jh_hash_cps(cp, n);
		dict_slot *s = dict_find(c, cp, n, h);
		if (!s->h) {
			s->h = h;
			memcpy(s->cp, cp, sizeof cp);
			n_words++;
		}
		s->freq = freq > UINT32_MAX ? UINT32_MAX : (uint32_t)freq;
	}
	free(ln);
	fclose(f);
	c->log_total = log(total > 1 ? total : 1);
	for (int32_t x = 0x4E00; x < 0xA000; x++) {
		const dict_slot *s = dict_find(c, &x, 1, jh_hash_cps(&x, 1));
		c->single_logp[x - 0x4E00] = (float)(log(s->h ? s->freq : 1) - c->log_total);
	}
}


/* ---- scoring ---- */

static int32_t simp_of(const ctx_cfg *c, int32_t cp)
{
	t2s_pair k = {cp, 0};
	const t2s_pair *p = bsearch(&k, c->t2s, c->n_t2s, sizeof k, cmp_t2s);
	return p ? p->simp : cp;
}

/* Best unigram log-probability of s[0..n) (jieba's DAG, right to left);
 * single[i] is set when the best path leaves character i alone. */
static double segment(const ctx_cfg *c, const int32_t *s, int n, double *best, int *step,
                      unsigned char *single)
{
	best[n] = 0;
	for (int i = n - 1; i >= 0; i--) {
		double l1;
		if (s[i] >= 0x4E00 && s[i] < 0xA000) {
			l1 = c->single_logp[s[i] - 0x4E00];
		} else {
			uint32_t f1 = dict_freq(c, s + i, 1);
			l1 = log(f1 ? f1 : 1) - c->log_total;
		}
		best[i] = l1 + best[i + 1];
		step[i] = 1;
		for (int L = 2; L <= MAX_WORD && i + L <= n && prefix_maybe(c, s[i], s[i + 1]); L++) {
			uint32_t f = dict_freq(c, s + i, L);
			if (f && log(f) - c->log_total + best[i + L] > best[i]) {
				best[i] = log(f) - c->log_total + best[i + L];
				step[i] = L;
			}
		}
	}
	if (single && n > 0) {
		memset(single, 0, (size_t)n);
		for (int i = 0; i < n; i += step[i])
			single[i] = step[i] == 1;
	}
	return best[0];
}

static int is_stop(const ctx_cfg *c, int32_t cp)
{
	char b[4];
	size_t n = jh_utf8_encode(cp, b);
	return jh_strset_has(&c->stop, b, n);
}

/* How many times the bytes [a, b) occur in the text (stops at 2). */
static int occurs_twice(const char *text, size_t len, size_t a, size_t b)
{
	int k = 0;
	for (const char *p = text; k < 2 && (p = memmem(p, len - (size_t)(p - text), text + a, b - a));
	     p++)
		k++;
	return k >= 2;
}

typedef struct {
	int32_t *cp, *simp;
	size_t *pos;
	double *best;
	int *step;
	unsigned char *single;
	size_t cap;
} scratch;

static int scratch_fit(scratch *s, size_t n)
{
	if (n + 1 <= s->cap)
		return JH_OK;
	size_t cap = (n + 1) * 2;
	int32_t *cp = realloc(s->cp, cap * sizeof *cp);
	if (cp)
		s->cp = cp;
	int32_t *simp = realloc(s->simp, cap * sizeof *simp);
	if (simp)
		s->simp = simp;
	size_t *pos = realloc(s->pos, (cap + 1) * sizeof *pos);
	if (pos)
		s->pos = pos;
	double *best = realloc(s->best, (cap + 1) * sizeof *best);
	if (best)
		s->best = best;
	int *step = realloc(s->step, (cap + 1) * sizeof *step);
	if (step)
		s->step = step;
	unsigned char *single = realloc(s->single, cap);
	if (single)
		s->single = single;
	if (!cp || !simp || !pos || !best || !step || !single)
		return JH_ERR_NOMEM;
	s->cap = cap;
	return JH_OK;
}

/* Score the window around i with character i replaced by simplified x. */
static double window_score(const ctx_cfg *c, scratch *s, int n, int i, int32_t x)
{
	int a = i - WINDOW < 0 ? 0 : i - WINDOW, b = i + WINDOW + 1 > n ? n : i + WINDOW + 1;
	int32_t w[2 * WINDOW + 1];
	double best[2 * WINDOW + 2];
	int step[2 * WINDOW + 2];
	for (int k = a; k < b; k++)
		w[k - a] = k == i ? x : s->simp[k];
	return segment(c, w, b - a, best, step, NULL);
}


/* ---- the word trigram model ---- */

#define LM_SEG 4 /* longest word of the model's lexicon a window is cut into */

enum { CONF_LEFT = 1, CONF_RIGHT = 2, CONF_PAIR = 3 };

static uint64_t conf_key(unsigned type, uint32_t a, uint32_t b)
{
	return (uint64_t)type << 62 | (uint64_t)(a & 0x3FFFFFFF) << 32 | b;
}

static size_t conf_at(const ctx_cfg *c, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	return (size_t)(h ^ h >> 29) & (c->conf_cap - 1);
}

/* The values of key: *n of them from the returned pointer. */
static const int32_t *conf_get(const ctx_cfg *c, uint64_t key, uint32_t *n)
{
	*n = 0;
	if (!c->conf_cap)
		return NULL;
	for (size_t i = conf_at(c, key);; i = (i + 1) & (c->conf_cap - 1)) {
		const conf_slot *s = &c->conf[i];
		if (!s->key)
			return NULL;
		if (s->key == key) {
			*n = s->n;
			return c->conf_val + s->start;
		}
	}
}

static const syl_pair *syllable_of(const ctx_cfg *c, int32_t cp)
{
	syl_pair key = {cp, 0};
	return bsearch(&key, c->syl, c->n_syl, sizeof key, cmp_syl_cp);
}

typedef struct {
	uint64_t key;
	int32_t v[2];
} conf_entry;

static int cmp_conf(const void *a, const void *b)
{
	const conf_entry *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The index, from the dictionary's two-character words of min-freq or
 * more whose characters have a syllable and are no function characters. */
static int conf_build(ctx_cfg *c)
{
	conf_entry *e = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < c->dict_cap; i++) {
		const dict_slot *d = &c->dict[i];
		if (!d->h || !d->cp[1] || d->cp[2] || d->freq < c->min_freq)
			continue;
		const syl_pair *a = syllable_of(c, d->cp[0]), *b = syllable_of(c, d->cp[1]);
		if (!a || !b || is_stop(c, d->cp[0]) || is_stop(c, d->cp[1]))
			continue;
		if (jh_grow((void **)&e, &cap, n + 3, sizeof *e)) {
			free(e);
			return JH_ERR_NOMEM;
		}
		e[n++] = (conf_entry){conf_key(CONF_LEFT, (uint32_t)d->cp[0], b->syllable), {d->cp[1], 0}};
		e[n++] = (conf_entry){conf_key(CONF_RIGHT, (uint32_t)d->cp[1], a->syllable), {d->cp[0], 0}};
		e[n++] = (conf_entry){conf_key(CONF_PAIR, a->syllable, b->syllable), {d->cp[0], d->cp[1]}};
	}
	qsort(e, n, sizeof *e, cmp_conf);
	c->conf_cap = 1;
	while (c->conf_cap < n + 16)
		c->conf_cap <<= 1;
	c->conf = calloc(c->conf_cap, sizeof *c->conf);
	c->conf_val = malloc((n * 2 + 1) * sizeof *c->conf_val);
	if (!c->conf || !c->conf_val) {
		free(e);
		return JH_ERR_NOMEM;
	}
	for (size_t k = 0; k < n;) {
		size_t j = k;
		uint32_t start = (uint32_t)c->n_conf_val;
		for (; j < n && e[j].key == e[k].key; j++) {
			c->conf_val[c->n_conf_val++] = e[j].v[0];
			if ((e[j].key >> 62) == CONF_PAIR)
				c->conf_val[c->n_conf_val++] = e[j].v[1];
		}
		size_t i = conf_at(c, e[k].key);
		while (c->conf[i].key)
			i = (i + 1) & (c->conf_cap - 1);
		c->conf[i] = (conf_slot){e[k].key, start, (uint32_t)(j - k)};
		k = j;
	}
	free(e);
	return JH_OK;
}

/* The model, if the package is there.  Missing files leave the rule with
 * its unigram scoring; a broken file is reported, and the rule then finds
 * nothing. */
static int lm_load(ctx_cfg *c, jh_diag_fn diag_fn, void *payload)
{
	char err[300];
	int rc = jh_lm_open(&c->lm, c->model_path, c->lexicon_path, err, sizeof err);
	if (rc == JH_ERR_IO)
		return JH_OK;
	if (rc) {
		const jh_rule *r = c->rule;
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id, "%s", err);
		return rc;
	}
	return conf_build(c);
}

/* Log-probability of w[0..n) under the trigram model, cut into words of
 * the model's lexicon by the best unigram path. */
static double lm_score(const ctx_cfg *c, const int32_t *w, int n)
{
	double best[2 * WINDOW + 4];
	uint32_t id[2 * WINDOW + 4];
	int step[2 * WINDOW + 4];
	best[n] = 0;
	for (int i = n - 1; i >= 0; i--) {
		id[i] = jh_lm_word(c->lm, w + i, 1);
		step[i] = 1;
		best[i] = jh_lm_unigram(c->lm, id[i]) + best[i + 1];
		for (int L = 2; L <= LM_SEG && i + L <= n; L++) {
			uint32_t x = jh_lm_word(c->lm, w + i, L);
			if (x && jh_lm_unigram(c->lm, x) + best[i + L] > best[i]) {
				best[i] = jh_lm_unigram(c->lm, x) + best[i + L];
				id[i] = x, step[i] = L;
			}
		}
	}
	double total = 0;
	jh_lm_state st = 0;
	for (int i = 0; i < n; i += step[i])
		total += jh_lm_next(c->lm, st, id[i], &st);
	return total;
}

/* The window around [i, i+k) with those characters replaced by x. */
static double lm_window(const ctx_cfg *c, const scratch *s, int n, int i, int k, const int32_t *x)
{
	int a = i - WINDOW < 0 ? 0 : i - WINDOW, b = i + k + WINDOW > n ? n : i + k + WINDOW;
	int32_t w[2 * WINDOW + 4];
	for (int j = a; j < b; j++)
		w[j - a] = j >= i && j < i + k ? x[j - i] : s->simp[j];
	return lm_score(c, w, b - a);
}

/* The form of simplified sx to write in traditional text: a character of
 * the same syllable that the t2s map turns into sx, if any. */
static int32_t trad_form(const ctx_cfg *c, int32_t sx)
{
	const syl_pair *me = syllable_of(c, sx);
	if (!me)
		return sx;
	for (size_t k = 0; k < c->n_syl; k++) /* winners only: rare */
		if (c->by_syl[k].syllable == me->syllable && c->by_syl[k].cp != sx &&
		    simp_of(c, c->by_syl[k].cp) == sx)
			return c->by_syl[k].cp;
	return sx;
}

/* Report x for [i, i+k) unless the document writes the pair more than
 * once: then it is meant (a name, a term: 義昌 in 大島義昌). */
static int lm_emit(jh_brun *run, const ctx_cfg *c, const scratch *s, int n, int i, int k,
                   const int32_t *x, int trad)
{
	const char *t = run->text;
	if (k > 1 ? occurs_twice(t, run->len, s->pos[i], s->pos[i + k])
	          : (i > 0 && occurs_twice(t, run->len, s->pos[i - 1], s->pos[i + 1])) ||
	                (i + 1 < n && occurs_twice(t, run->len, s->pos[i], s->pos[i + 2])))
		return 0;
	char fix[16];
	size_t fl = 0;
	for (int j = 0; j < k; j++)
		fl += jh_utf8_encode(trad ? trad_form(c, x[j]) : x[j], fix + fl);
	fix[fl] = '\0';
	jh_hit h = {run->rule, run->rule_index, s->pos[i], s->pos[i + k], fix, fl, JH_UNSAFE, NULL};
	int rc = jh_findings_add_hit(run->out, t, &h);
	if (rc && !run->err)
		run->err = rc;
	return 1;
}

/* With the model: every character that is no function character, and
 * every pair of them, is a spot; its candidates come from the confusion
 * index (they complete a frequent word), and the best wins when it raises
 * the window's trigram log-probability by the margin (word-margin when
 * the original already makes a word: a slip into another real word needs
 * more proof) and beats the runner-up by 2. */
static void check_run_lm(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int trad)
{
	if (n < 2)
		return;
	segment(c, s->simp, n, s->best, s->step, s->single);
	for (int i = 0; i < n; i++) {
		const syl_pair *me = is_stop(c, s->cp[i]) ? NULL : syllable_of(c, s->cp[i]);
		if (!me)
			continue;
		int32_t l = i > 0 ? s->simp[i - 1] : 0, r = i + 1 < n ? s->simp[i + 1] : 0;
		int32_t pair[2];
		int word = !s->single[i] || (l && (pair[0] = l, pair[1] = s->simp[i], dict_freq(c, pair, 2))) ||
		           (r && (pair[0] = s->simp[i], pair[1] = r, dict_freq(c, pair, 2)));
		double need = word ? (double)c->word_margin : (double)c->margin;
		/* The candidates compete: each character x that completes a word
		 * with a neighbour, and each two-character word that sounds like
		 * characters i and i+1 (上网 for 伤亡). */
		double top = -INFINITY, second = -INFINITY;
		int32_t win[2] = {0, 0};
		int win_k = 0;
		for (int side = 0; side < 2; side++) {
			int32_t nb = side ? r : l;
			if (!nb)
				continue;
			uint32_t nv;
			const int32_t *v =
				conf_get(c, conf_key(side ? CONF_RIGHT : CONF_LEFT, (uint32_t)nb, me->syllable), &nv);
			for (uint32_t k = 0; k < nv; k++) {
				int32_t x = v[k];
				if (x == s->simp[i] || (win_k == 1 && x == win[0]))
					continue;
				double sc = lm_window(c, s, n, i, 1, &x);
				if (sc > top)
					second = top, top = sc, win[0] = x, win_k = 1;
				else if (sc > second)
					second = sc;
			}
		}
		/* ...when the two make a word already: a non-word is one slip */
		const syl_pair *next = r && !is_stop(c, s->cp[i + 1]) ? syllable_of(c, s->cp[i + 1]) : NULL;
		if (next && dict_freq(c, s->simp + i, 2)) {
			uint32_t nv;
			const int32_t *v = conf_get(c, conf_key(CONF_PAIR, me->syllable, next->syllable), &nv);
			for (uint32_t k = 0; k < nv; k++, v += 2) {
				if (v[0] == s->simp[i] || v[1] == s->simp[i + 1])
					continue;
				double sc = lm_window(c, s, n, i, 2, v);
				if (sc > top)
					second = top, top = sc, win[0] = v[0], win[1] = v[1], win_k = 2;
				else if (sc > second)
					second = sc;
			}
		}
		if (!win_k)
			continue;
		if (win_k == 2)
			need = (double)c->word_margin; /* a whole word changed */
		double base = lm_window(c, s, n, i, 1, s->simp + i);
		if (top - base >= need && top - second >= 2 && lm_emit(run, c, s, n, i, win_k, win, trad))
			i += win_k - 1;
	}
}

static void check_run(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int trad)
{
	if (n < 3)
		return;
	segment(c, s->simp, n, s->best, s->step, s->single);
	for (int i = 0; i < n; i++) {
		if (!s->single[i] || is_stop(c, s->cp[i]))
			continue;
		int32_t l = i > 0 ? s->simp[i - 1] : 0, r = i + 1 < n ? s->simp[i + 1] : 0;
		int32_t pair[2];
		/* The character makes no word with a neighbour. */
		if (l && (pair[0] = l, pair[1] = s->simp[i], dict_freq(c, pair, 2)))
			continue;
		if (r && (pair[0] = s->simp[i], pair[1] = r, dict_freq(c, pair, 2)))
			continue;
		syl_pair key = {s->cp[i], 0};
		const syl_pair *me = bsearch(&key, c->syl, c->n_syl, sizeof key, cmp_syl_cp);
		if (!me)
			continue;
		double base = window_score(c, s, n, i, s->simp[i]);
		double top = -INFINITY, second = -INFINITY;
		int32_t win = 0, win_simp = 0;
		/* The homophones: the run of by_syl with the same syllable. */
		syl_pair lo = {0, me->syllable};
		size_t k = 0, hi = c->n_syl;
		while (k < hi) { /* lower bound */
			size_t m = (k + hi) / 2;
			if (cmp_syl_syl(&c->by_syl[m], &lo) < 0)
				k = m + 1;
			else
				hi = m;
		}
		for (; k < c->n_syl && c->by_syl[k].syllable == me->syllable; k++) {
			int32_t x = c->by_syl[k].cp, sx = simp_of(c, x);
			if (x == s->cp[i] || sx == s->simp[i] || is_stop(c, x))
				continue;
			/* Simplified text gets simplified candidates only. */
			if (!trad && sx != x)
				continue;
			int word = 0;
			if (l && (pair[0] = l, pair[1] = sx, dict_freq(c, pair, 2) >= c->min_freq))
				word = 1;
			if (r && (pair[0] = sx, pair[1] = r, dict_freq(c, pair, 2) >= c->min_freq))
				word = 1;
			if (!word)
				continue;
			double sc = window_score(c, s, n, i, sx);
			if (sx == win_simp) { /* the same word in another form */
				if (trad && win == win_simp && x != sx)
					win = x; /* traditional text: the traditional form */
				continue;
			}
			if (sc > top) {
				second = top;
				top = sc, win = x, win_simp = sx;
			} else if (sc > second) {
				second = sc;
			}
		}
		if (!win || top - base < (double)c->margin || top - second < 2)
			continue;
		/* A pair the document writes more than once is meant (a name, a
		 * term: 義昌 in 大島義昌, 收枪). */
		if ((i > 0 && occurs_twice(run->text, run->len, s->pos[i - 1], s->pos[i + 1])) ||
		    (i + 1 < n && occurs_twice(run->text, run->len, s->pos[i], s->pos[i + 2])))
			continue;
		char fix[8];
		size_t fl = jh_utf8_encode(win, fix);
		fix[fl] = '\0';
		jh_hit h = {run->rule, run->rule_index, s->pos[i], s->pos[i + 1], fix, fl, JH_UNSAFE, NULL};
		int rc = jh_findings_add_hit(run->out, run->text, &h);
		if (rc && !run->err)
			run->err = rc;
	}
}

void jh_context_finish(jh_brun *run)
{
	/* the rule set is shared read-only; its lazy tables are the one part
	 * written, once, under jh_lazy's lock */
	ctx_cfg *c = (ctx_cfg *)run->cfg;
	lazy_arg a = {c, run->diag_fn, run->payload};
	if (jh_lazy_get(&c->once, load_tables, &a) != JH_OK || !c->dict_cap)
		return;
	scratch s = {0};
	const char *t = run->text;
	size_t len = run->len, i = 0;
	int n = 0, quote = 0, trad = 0;
	while (i <= len) {
		int32_t cp = -1;
		size_t k = i < len ? jh_utf8_decode((const unsigned char *)t + i, len - i, &cp) : 1;
		int han = cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		if (han && !quote) {
			if (scratch_fit(&s, (size_t)n + 1)) {
				run->err = JH_ERR_NOMEM;
				break;
			}
			s.cp[n] = cp;
			s.simp[n] = simp_of(c, cp);
			trad |= s.simp[n] != cp;
			s.pos[n] = i;
			s.pos[n + 1] = i + k;
			n++;
		} else {
			if (c->lm)
				check_run_lm(run, c, &s, n, trad);
			else
				check_run(run, c, &s, n, trad);
			n = 0;
			/* Dialogue is skipped: speech has its own words. */
			if (cp == 0x201C || cp == 0x300C || cp == 0x300E)
				quote = 1;
			else if (cp == 0x201D || cp == 0x300D || cp == 0x300F || cp == '\n')
				quote = 0;
		}
		i += k ? k : 1;
	}
	free(s.cp);
	free(s.simp);
	free(s.pos);
	free(s.best);
	free(s.step);
	free(s.single);
}
