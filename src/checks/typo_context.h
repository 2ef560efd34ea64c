/* typo_context.h — shared by typo.context's files: the tables of
 * typo_context_data.c (compiling, the character tables, the dictionary,
 * the confusion index, loading the model), the learned decision and the
 * sentence's decoder; typo_context_spot.h adds what the run's stages
 * share.  Not installed. */
#ifndef JH_TYPO_CONTEXT_H
#define JH_TYPO_CONTEXT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "builtins.h"
#include "typo_lm.h"
#include "util.h"

#define MAX_WORD 4   /* characters in a dictionary word we use */
#define WINDOW 4     /* characters rescored on each side of a candidate */
#define LM_SEG 4     /* longest word of the model's lexicon a window is cut into */
/* The span of the per-character tables (readings, unigram scores), not
 * "a Han character" (jh_class_of): the typo data covers the URO alone. */
#define CJK_LO 0x4E00
#define CJK_HI 0x9FFF
#define MAX_READ 3   /* readings of a character we index */
#define MAX_SYL 1024 /* syllable names, plain and similar (about 600) */

/* Dictionary: words of 1-4 Han characters (as code points) → frequency,
 * open addressing.  jh_strset has no values, hence this table. */
typedef struct {
	uint64_t h;      /* hash of the code points, 0 = empty */
	int32_t cp[MAX_WORD];
	uint32_t freq;
	uint8_t tag;     /* TAG_* of jieba's part of speech */
} dict_slot;

/* What jieba's part-of-speech tag says of a word, for the 的地得 gate. */
enum { TAG_VERB = 1, TAG_PRED = 2 }; /* v…; v…, a…, d…, z, ug (过) */

/* What the tables say of one character of the basic CJK block. */
typedef struct {
	uint16_t syl[MAX_READ]; /* syllable ids + 1, most common first; 0 = none */
	uint16_t n_shape;       /* look-alikes: shape_cp[shape .. shape+n_shape) */
	uint32_t shape;
	int32_t simp;           /* simplified form (0: itself) */
	int32_t trad;           /* usual traditional form (0: itself) */
	uint32_t forms;         /* traditional forms, then variants: forms_cp[forms ..] */
	uint8_t n_forms, n_var; /* forms; forms and variants */
	uint8_t group;          /* function-character group + 1, 0 = none */
	uint8_t stop;           /* a function character */
	uint8_t hans;           /* written in simplified text only (复, not 几) */
} char_info;

/* Confusion index: for a key (which side, a neighbour character, a
 * similar-syllable class) the characters x of that class that make a
 * frequent word with the neighbour on that side; for a key (two classes)
 * the two-character words that sound so.  Values in conf_val,
 * [start, start+n) (pairs: 2n values). */
typedef struct {
	uint64_t key;   /* 0 = empty */
	uint32_t start, n;
} conf_slot;

enum { K_SAME, K_NEAR, K_SHAPE, K_GROUP }; /* a candidate's kind */

/* The learned decision's features (typo_context_learn.c): gain, bias,
 * kind, function characters, frequencies, words made, position. */
#define CTX_NFEAT 14

#define MAX_GROUPS 32
#define CTX_POOL 8 /* scratches kept: one for each thread that checks at once */
#define GROUP_LEN 8

typedef struct {
	char *dict_path;
	char *model_path, *lexicon_path; /* sunpinyin's word trigram model */
	unsigned long min_freq, min_char_freq, margin, near_margin, shape_margin, stop_margin, group_margin,
		pair_margin, joint_slack, long_freq,
		trace; /* 1: list each spot and its candidates on stderr (bench/typo-eval) */
	const char *weights_file; /* the learned decision; NULL: the margins */
	unsigned weights_line;
	double weight[CTX_NFEAT];
	int32_t group_cp[MAX_GROUPS][GROUP_LEN]; /* the `groups` parameter, 0-ended */
	int n_groups;
	/* The documents' scratches, kept for the next document: a check of
	 * one sentence must not allocate and clear the model's answer cache
	 * (512 KB) and the spot memo again (typo_context_score.c). */
	pthread_mutex_t pool_lock;
	struct ctx_scratch *pool[CTX_POOL];
	int n_pool;
	/* Everything below is loaded on first use (the rule is opt-in;
	 * start-up must not pay for its tables). */
	jh_lazy once;
	const jh_rule *rule;
	const char *files[4];     /* stop, similar, t2s, s2t */
	unsigned lines[4];
	jh_strset stop;
	char_info *info;          /* CJK_LO..CJK_HI */
	int32_t *shape_cp, *forms_cp;
	size_t n_shape, n_forms;
	char syl_name[MAX_SYL][8];
	uint16_t syl_slot[2 * MAX_SYL]; /* name hash → id + 1 */
	uint16_t near[MAX_SYL];         /* id → id of its class (plain name) */
	int n_syl;
	dict_slot *dict;
	size_t dict_cap;
	double log_total;
	float rare_logp;         /* single_logp of a character of min-char-freq */
	/* Fast paths, because every character of the text is looked up four
	 * times: the single characters of the basic block in an array, and a
	 * Bloom filter of the first two characters of every longer word (most
	 * pairs of characters start no word, and the filter fits in cache). */
	float *single_logp;      /* U+4E00..U+9FFF, 0 = not a word */
	uint64_t *prefix_bloom;  /* PREFIX_BITS bits */
	uint64_t *prefix3_bloom; /* the same, first three characters of longer words */
	uint64_t *pair_bloom;    /* two-character words of min-freq or more (made by conf_build) */
	jh_lm *lm;
	uint32_t *lm_single;     /* the model's ids of U+4E00..U+9FFF */
	uint64_t *lm_bloom;      /* first two characters of the model's words */
	conf_slot *conf;
	size_t conf_cap;
	int32_t *conf_val;
	size_t n_conf_val;
} ctx_cfg;

#define PREFIX_BITS ((size_t)1 << 23)

static inline const char_info *info_of(const ctx_cfg *c, int32_t cp)
{
	return cp >= CJK_LO && cp <= CJK_HI ? &c->info[cp - CJK_LO] : NULL;
}

/* The code points of s[0..n), at most max of them; -1 if s is not valid
 * UTF-8 or holds more. */
static inline uint64_t pair_hash(int32_t a, int32_t b)
{
	uint64_t h = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static inline int bloom_maybe(const uint64_t *bloom, int32_t a, int32_t b)
{
	uint64_t h = pair_hash(a, b);
	size_t i = (size_t)(h >> 40) & (PREFIX_BITS - 1), j = (size_t)h & (PREFIX_BITS - 1);
	return (bloom[i >> 6] >> (i & 63) & 1) && (bloom[j >> 6] >> (j & 63) & 1);
}

static inline void bloom_add(uint64_t *bloom, int32_t a, int32_t b)
{
	uint64_t h = pair_hash(a, b);
	size_t i = (size_t)(h >> 40) & (PREFIX_BITS - 1), j = (size_t)h & (PREFIX_BITS - 1);
	bloom[i >> 6] |= (uint64_t)1 << (i & 63);
	bloom[j >> 6] |= (uint64_t)1 << (j & 63);
}

static inline int prefix_maybe(const ctx_cfg *c, int32_t a, int32_t b)
{
	return bloom_maybe(c->prefix_bloom, a, b);
}

/* Three characters as a pair for the Bloom filters. */
static inline int32_t fold3(int32_t b, int32_t x)
{
	return (int32_t)((uint32_t)b * 0x01000193u ^ (uint32_t)x * 0x9E3779B1u);
}

/* Do a, b, x start a word of three or four characters? */
static inline int prefix3_maybe(const ctx_cfg *c, int32_t a, int32_t b, int32_t x)
{
	return bloom_maybe(c->prefix3_bloom, a, fold3(b, x));
}

enum { CONF_LONG = 0, CONF_LEFT = 1, CONF_RIGHT = 2, CONF_PAIR = 3 };

/* ---- typo_context_data.c ---- */
/* The tables, read at the first run (jh_lazy: the stop list, the
 * character tables, the dictionary, the confusion index, the model). */
typedef struct {
	ctx_cfg *c;
	jh_diag_fn diag_fn;
	void *payload;
} lazy_arg;
int load_tables(void *arg);
/* typo_context_score.c: the scratches the pool keeps, freed. */
void ctx_pool_free(ctx_cfg *c);
int decode_all(const char *s, size_t n, int32_t *out, int max);
dict_slot *dict_find(const ctx_cfg *c, const int32_t *cp, int n, uint64_t h);
uint32_t dict_freq(const ctx_cfg *c, const int32_t *cp, int n);
uint8_t dict_tag(const ctx_cfg *c, const int32_t *cp, int n);

/* The confusion index's keys and lookups, inline: a spot asks it a
 * dozen times, nearly always for a key that is not there. */
static inline uint64_t conf_key(unsigned type, uint32_t a, uint32_t b)
{
	return (uint64_t)type << 62 | (uint64_t)(a & 0x3FFFFFFF) << 32 | b;
}

/* A full mix of the key (splitmix64's finaliser): one multiply left the
 * low bits of the slot to the syllable class alone, and the probes of a
 * key that is not there (nearly every lookup) ran through clusters of
 * 10-20 slots. */
static inline size_t conf_at(const ctx_cfg *c, uint64_t key)
{
	uint64_t h = key;
	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ h >> 27) * 0x94d049bb133111ebull;
	return (size_t)(h ^ h >> 31) & (c->conf_cap - 1);
}

/* The values of key: *n of them (pairs: 2 *n) from the returned pointer. */
static inline const int32_t *conf_get(const ctx_cfg *c, uint64_t key, uint32_t *n)
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

/* The distinct similar-syllable classes of cp, at most MAX_READ. */
static inline int classes_of(const ctx_cfg *c, int32_t cp, uint32_t *out)
{
	const char_info *in = info_of(c, cp);
	int n = 0;
	for (int k = 0; in && k < MAX_READ && in->syl[k]; k++) {
		uint32_t cl = c->near[in->syl[k] - 1];
		int dup = 0;
		for (int j = 0; j < n; j++)
			dup |= out[j] == cl;
		if (!dup)
			out[n++] = cl;
	}
	return n;
}

static inline uint32_t conf_long_hash(const int32_t *w, int L, int o)
{
	uint64_t h = (uint64_t)(L * 8 + o) * 0x9E3779B97F4A7C15ull;
	for (int j = 0; j < L; j++)
		if (j != o)
			h = (h ^ (uint32_t)w[j]) * 0x100000001B3ull;
	return (uint32_t)(h >> 34) | 1; /* 30 bits, never 0: type 0 keys */
}

/* ---- typo_context_learn.c ---- */
extern const char *const CTX_FEAT_NAME[CTX_NFEAT];
/* The features of candidate x (of kind K_*) for the character at i of
 * t[0..n) (simplified), f[0] (the gain) left 0. */
void ctx_features(const ctx_cfg *c, const int32_t *t, int n, int i, int32_t x, int kind, double *f);
/* The trace line of candidate x (written: as the text would have it). */
void ctx_trace_features(FILE *tr, const ctx_cfg *c, const int32_t *t, int n, int i, size_t pos,
                        int32_t x, int32_t written, int kind, double gain);
/* The margin the weights ask of a candidate with features f. */
double ctx_learned_need(const ctx_cfg *c, const double *f);
int ctx_load_weights(ctx_cfg *c, jh_diag_fn diag_fn, void *payload);

/* ---- typo_context_decode.c ---- */
/* One spot's option: its best candidate for [i, i+k), with its gain
 * against the sentence as written and the margin it needs. */
typedef struct {
	int i, k;
	double gain, need;
} jd_opt;
#define JD_MAX_CHG 32 /* options one sentence may take */
/* The gain of option opt with the options near[0..n) (earlier, within
 * reach) written into the sentence. */
typedef double (*jd_rescore)(void *ctx, int opt, const int *near, int n);
/* The options (in order of position) to take together: their indices in
 * out (room for JD_MAX_CHG), how many. */
int jd_decode(const jd_opt *o, int m, int reach, jd_rescore fn, void *ctx, int *out);

#endif
