/* typo_context_spot.h — what typo.context's stages share while checking
 * a document: the run's scratch (its characters, the model's answers, the
 * spot memo, the document's pairs), a spot and its candidates.
 * typo_context_score.c scores windows, typo_context_cands.c finds and
 * scores a spot's candidates, typo_context_guard.c holds the guards that
 * look at the whole document, typo_context.c the run.  Not installed. */
#ifndef JH_TYPO_CONTEXT_SPOT_H
#define JH_TYPO_CONTEXT_SPOT_H

#include <stdint.h>
#include "builtins.h"
#include "typo_context.h"

/* How often each pair of adjacent Han characters occurs in the document
 * (at most 3), counted in one pass the first time a guard asks: asking
 * memmem over the whole document for every winner made a big document
 * quadratic (9 MB of manual pages: most of the rule's time). */
typedef struct {
	uint64_t *key; /* a << 32 | b, 0 = empty */
	uint8_t *n;
	size_t cap, used;
	int built;
} pair_count;

#define MAX_CAND 192

typedef struct {
	int32_t x[2];
	int k;            /* characters replaced: 1 or 2 */
	int kind;
	double gain, need;
} cand;

/* A trigram answer kept: each candidate is scored on a window that shares
 * most of its words with the original's, so the same (history, word)
 * pairs come back again and again, and the model's lookups are binary
 * searches in 60 MB. */
struct tri_slot {
	uint64_t key; /* history << 32 | word + 1; 0 = empty */
	float logp;
	uint32_t next;
};
#define TRI_SLOTS ((size_t)1 << 15)

typedef struct ctx_scratch {
	int32_t *cp, *simp;
	size_t *pos;
	double *best;
	int *step;
	unsigned char *single;
	size_t cap;
	cand *opt;            /* the spots' options, in order */
	jd_opt *jopt;
	struct tri_slot *tri; /* the model's answers, TRI_SLOTS of them */
	pair_count pairs;     /* the document's pairs, for the guards */
	struct spot_memo *memo; /* spots decided (this document's: gen) */
	size_t memo_cap, memo_alloc; /* slots used in this document, allocated */
	uint32_t gen;           /* the document's number, for the memo */
	/* The spot's original window (k = 1, 2 characters replaced): the
	 * model's ids of its spans and its best unigram paths, so that a
	 * candidate only looks up the spans that hold it and recomputes the
	 * paths left of it.  base_ok[k - 1] is cleared at each spot. */
	int base_ok[2];
	uint32_t base_id[2][2 * WINDOW + 4][LM_SEG];
	double base_best[2][2 * WINDOW + 5];
	int base_step[2][2 * WINDOW + 5];
	uint32_t base_word[2][2 * WINDOW + 5];
} scratch;

/* A spot: the run, where, what is there, and what has been tried. */
typedef struct {
	const ctx_cfg *c;
	scratch *s;
	int n, i, script; /* script: 1 traditional, -1 simplified, 0 not known */
	int word;         /* the character is part of a word already */
	double (*score)(const ctx_cfg *, scratch *, int, int, int, const int32_t *);
	double base[2];   /* the original window's score for k = 1, 2 (NAN: not yet) */
	cand v[MAX_CAND];
	int nv;
	int32_t later[GROUP_LEN]; /* group candidates the 的 gate put off */
	int n_later;
} spot;

static inline int32_t ctx_simp_of(const ctx_cfg *c, int32_t cp)
{
	const char_info *in = info_of(c, cp);
	return in && in->simp ? in->simp : cp;
}

/* Do a b make a word of min-freq or more?  Asked about 20 times a spot
 * (a look-alike with either neighbour), nearly always no: the Bloom filter
 * of those words answers most without the dictionary. */
static inline int ctx_makes_word(const ctx_cfg *c, int32_t a, int32_t b)
{
	int32_t w[2] = {a, b};
	return a && b && (!c->pair_bloom || bloom_maybe(c->pair_bloom, a, b)) &&
	       dict_freq(c, w, 2) >= c->min_freq;
}

/* The form of simplified x to write in traditional text. */
static inline int32_t ctx_trad_form(const ctx_cfg *c, int32_t x)
{
	const char_info *in = info_of(c, x);
	return in && in->trad ? in->trad : x;
}

/* ---- typo_context_score.c ---- */
/* Best unigram log-probability of s[0..n) (jieba's DAG, right to left);
 * single[i] is set when the best path leaves character i alone. */
double ctx_segment(const ctx_cfg *c, const int32_t *s, int n, double *best, int *step, unsigned char *single);
/* The scratch holds n characters (and one boundary more). */
int ctx_scratch_fit(scratch *s, size_t n);
void ctx_scratch_free(scratch *s);
/* A scratch for one document, from the pool or new (NULL: no memory);
 * given back after it, for the next. */
scratch *ctx_scratch_take(ctx_cfg *c);
void ctx_scratch_give(ctx_cfg *c, scratch *s);
/* The window of [i, i+k) with x written there, scored without the model
 * (the best unigram path) or with it. */
double ctx_uni_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x);
double ctx_lm_window(const ctx_cfg *c, scratch *s, int n, int i, int k, const int32_t *x);

/* ---- typo_context_guard.c ---- */
void ctx_pc_free(pair_count *t);
/* May v be reported for [i, i+k) (not a pair the document writes more
 * than once, not breaking a name)? */
int ctx_guard_ok(const jh_brun *run, const ctx_cfg *c, scratch *s, int n, const cand *v, int i);

/* ---- typo_context_cands.c ---- */
/* Score x[0..k) at the spot and keep it. */
void ctx_try_cand(spot *p, const int32_t *x, int k, int kind);
/* The candidates for the one character at the spot, between l and r. */
void ctx_single_cands(spot *p, int32_t l, int32_t r);
/* With pair-margin: the words that sound like the two-character word at
 * the spot (上网 for 伤亡). */
void ctx_pair_cands(spot *p);
/* The spot's winner within slack of its margin, or NULL. */
const cand *ctx_best_of(const spot *p, double slack);

#endif
