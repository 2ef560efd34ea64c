/* typo_context_cands.c — typo.context's candidates for a spot: the
 * characters of its syllable or a similar one that complete a word with a
 * neighbour (from the confusion index), those that complete a word of
 * three or four characters, its look-alikes, its group of function
 * characters (with the 的地得 gates), and with pair-margin the words that
 * sound like a two-character word; each is scored and given its margin,
 * and the spot's winner is chosen. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "typo_lm.h"
#include "util.h"
#include "typo_context_spot.h"

static int shares_reading(const ctx_cfg *c, int32_t a, int32_t b, int classes)
{
	const char_info *x = info_of(c, a), *y = info_of(c, b);
	for (int j = 0; x && y && j < MAX_READ && x->syl[j]; j++)
		for (int k = 0; k < MAX_READ && y->syl[k]; k++)
			if (classes ? c->near[x->syl[j] - 1] == c->near[y->syl[k] - 1]
			            : x->syl[j] == y->syl[k])
				return 1;
	return 0;
}

static int kind_of(const ctx_cfg *c, int32_t from, int32_t to)
{
	const char_info *f = info_of(c, from), *t = info_of(c, to);
	if (f && t && f->group && f->group == t->group)
		return K_GROUP;
	if (from == to || shares_reading(c, from, to, 0))
		return K_SAME;
	return shares_reading(c, from, to, 1) ? K_NEAR : K_SHAPE;
}

static int is_stop(const ctx_cfg *c, int32_t cp)
{
	const char_info *in = info_of(c, cp);
	return in && in->stop;
}

/* The margin a candidate must win by: more for a slip out of a real word,
 * for a sound that is only similar, for a look-alike, for a change of a
 * function character.  Proposing one costs nothing more: a candidate
 * completes a word with a neighbour (我门 → 我们), and the extra margin
 * there lost 我们 for 我门 and the like (SIGHAN training sets: correction
 * F1 0.181 → 0.197 at the same precision). */
static double need_of(const ctx_cfg *c, const spot *p, const cand *v)
{
	int32_t orig[2] = {p->s->simp[p->i], v->k > 1 ? p->s->simp[p->i + 1] : 0};
	/* The learned decision was fitted on slips of every kind; a change
	 * inside a function-character group (的/得/地, 阿/啊) keeps its own
	 * margin, which the groups were tuned for (跑的很快 → 得 is lost to
	 * the weights; novel prose: precision 0.912 → 0.914, recall 0.250 →
	 * 0.258). */
	if (c->weights_file && v->k == 1 && v->kind != K_GROUP) {
		double f[CTX_NFEAT];
		ctx_features(c, p->s->simp, p->n, p->i, v->x[0], v->kind, f);
		return ctx_learned_need(c, f);
	}
	if (v->kind == K_GROUP)
		return (double)c->group_margin;
	double need = (double)(v->k > 1 ? c->pair_margin : c->margin);
	if (v->kind == K_NEAR)
		need += (double)c->near_margin;
	else if (v->kind == K_SHAPE)
		need += (double)c->shape_margin;
	for (int j = 0; j < v->k; j++)
		if (is_stop(c, orig[j]))
			return need + (double)c->stop_margin;
	return need;
}

/* Is x[0..k) allowed at the spot: not the text itself; outside simplified
 * text not one of its traditional forms or variants (反覆 is 反复, 著 is
 * 着: a spelling, not a slip); writable in the text's script? */
static int allowed(const spot *p, const int32_t *x, int k)
{
	const ctx_cfg *c = p->c;
	for (int j = 0; j < k; j++) {
		const char_info *in = info_of(c, x[j]);
		int32_t orig = p->s->cp[p->i + j];
		if (!in || x[j] == p->s->simp[p->i + j])
			return 0;
		for (unsigned f = 0; f < in->n_var && p->script >= 0; f++)
			if (c->forms_cp[in->forms + f] == orig)
				return 0;
		if (!p->script && in->trad)
			return 0; /* simplified or traditional? the text does not say yet */
	}
	return 1;
}

/* Score x[0..k) at the spot and keep it. */
void ctx_try_cand(spot *p, const int32_t *x, int k, int kind)
{
	if (p->nv == MAX_CAND || !allowed(p, x, k))
		return;
	for (int j = 0; j < p->nv; j++)
		if (p->v[j].k == k && p->v[j].x[0] == x[0] && (k == 1 || p->v[j].x[1] == x[1]))
			return;
	if (isnan(p->base[k - 1]))
		p->base[k - 1] = p->score(p->c, p->s, p->n, p->i, k, p->s->simp + p->i);
	cand *v = &p->v[p->nv++];
	v->x[0] = x[0], v->x[1] = k > 1 ? x[1] : 0;
	v->k = k;
	v->kind = kind;
	v->gain = p->score(p->c, p->s, p->n, p->i, k, x) - p->base[k - 1];
	v->need = need_of(p->c, p, v);
}

/* Does x make a word of the dictionary with the characters around the
 * spot (觉得, 记得, 地方)? */
static int in_word(const spot *p, int32_t x)
{
	const int32_t *t = p->s->simp;
	for (int L = 2; L <= MAX_WORD; L++)
		for (int a = p->i - L + 1; a <= p->i; a++) {
			int32_t w[MAX_WORD];
			if (a < 0 || a + L > p->n)
				continue;
			for (int j = 0; j < L; j++)
				w[j] = a + j == p->i ? x : t[a + j];
			if (dict_freq(p->c, w, L))
				return 1;
		}
	return 0;
}

/* The tag of the word of 1 or 2 characters ending before the spot (after,
 * 0) or starting after it (1), whichever the dictionary knows. */
static uint8_t side_tag(const spot *p, int after)
{
	const int32_t *t = p->s->simp;
	uint8_t tag = 0;
	for (int L = 1; L <= 2; L++) {
		int a = after ? p->i + 1 : p->i - L;
		if (a >= 0 && a + L <= p->n)
			tag |= dict_tag(p->c, t + a, L);
	}
	return tag;
}

/* 的 is one Han character in 29 and nearly always a spot: trying it as 得
 * and 地 everywhere was most of the rule's time.  得 is tried only after a
 * verb or adjective (跑的快), 地 only between an adverb-like word or a
 * doubled character and a verb (认真的学习, 慢慢的走), either where it
 * makes a word with its neighbours (觉的 → 觉得, 的方 → 地方).  What the
 * gate puts off is still scored when another candidate wins, so it can
 * stand in the way as before.  On the SIGHAN training sets and the
 * bench's texts this skips half of those candidates and none that won. */
#define CP_DE_OF 0x7684    /* 的 */
#define CP_DE_ADV 0x5730   /* 地 */
#define CP_DE_COMPL 0x5F97 /* 得 */
static int de_gate(const spot *p, int32_t x)
{
	if (p->s->simp[p->i] != CP_DE_OF || (x != CP_DE_ADV && x != CP_DE_COMPL) || in_word(p, x))
		return 1;
	uint8_t left = side_tag(p, 0);
	if (x == CP_DE_COMPL)
		return (left & TAG_PRED) != 0;
	int doubled = p->i >= 2 && p->s->simp[p->i - 1] == p->s->simp[p->i - 2];
	return (side_tag(p, 1) & TAG_VERB) && ((left & TAG_PRED) || doubled);
}

/* 得 or 地 before a verb is not made 的: the model likes 的 everywhere, and
 * there (热得一出去, 认真地听) it was wrong 2 times in 3 on the SIGHAN
 * training sets. */
static int de_before_verb(const spot *p, int32_t x)
{
	int32_t o = p->s->simp[p->i];
	if (x != CP_DE_OF || (o != CP_DE_ADV && o != CP_DE_COMPL))
		return 1;
	return !(side_tag(p, 1) & TAG_VERB);
}

/* Candidates that complete a word of three or four characters around the
 * spot (令一种 → 另一种, 望尘莫急 → 望尘莫及): the index holds, for each
 * such word and each of its characters, that character under the others
 * and its classes; a hash hit is checked in the dictionary. */
static void long_cands(spot *p)
{
	const ctx_cfg *c = p->c;
	const int32_t *t = p->s->simp;
	int32_t sx = t[p->i];
	uint32_t cl[MAX_READ];
	int ncl = classes_of(c, sx, cl);
	for (int L = 3; L <= MAX_WORD; L++)
		for (int o = 0; o < L; o++) {
			int a = p->i - o;
			if (a < 0 || a + L > p->n)
				continue;
			int32_t w[MAX_WORD];
			memcpy(w, t + a, (size_t)L * sizeof *w);
			uint32_t h = conf_long_hash(w, L, o);
			for (int j = 0; j < ncl; j++) {
				uint32_t nv;
				const int32_t *v = conf_get(c, conf_key(CONF_LONG, h, cl[j]), &nv);
				for (uint32_t k = 0; k < nv; k++) {
					w[o] = v[k];
					if (dict_freq(c, w, L) >= c->long_freq)
						ctx_try_cand(p, &v[k], 1, kind_of(c, sx, v[k]));
				}
			}
		}
}

/* Candidates for the one character at the spot: from the index (they
 * complete a word with a neighbour and sound alike), its look-alikes that
 * complete a word, its group of function characters. */
void ctx_single_cands(spot *p, int32_t l, int32_t r)
{
	const ctx_cfg *c = p->c;
	int32_t sx = p->s->simp[p->i];
	const char_info *in = info_of(c, sx);
	/* A slip out of a word into another character: many candidates, and
	 * on the SIGHAN training sets about as many wrong as right. */
	if (p->word)
		return;
	for (int k = 0; in && in->group && c->group_cp[in->group - 1][k]; k++)
		if (!de_before_verb(p, c->group_cp[in->group - 1][k]))
			continue;
		else if (de_gate(p, c->group_cp[in->group - 1][k]))
			ctx_try_cand(p, &c->group_cp[in->group - 1][k], 1, K_GROUP);
		else
			p->later[p->n_later++] = c->group_cp[in->group - 1][k];
	uint32_t cl[MAX_READ];
	int ncl = classes_of(c, sx, cl);
	for (int side = 0; side < 2; side++) {
		int32_t nb = side ? r : l;
		for (int j = 0; nb && j < ncl; j++) {
			uint32_t nv;
			const int32_t *v =
				conf_get(c, conf_key(side ? CONF_RIGHT : CONF_LEFT, (uint32_t)nb, cl[j]), &nv);
			for (uint32_t k = 0; k < nv; k++)
				ctx_try_cand(p, &v[k], 1, kind_of(c, sx, v[k]));
		}
	}
	if (c->long_freq)
		long_cands(p);
	for (unsigned k = 0; in && k < in->n_shape; k++) {
		int32_t x = c->shape_cp[in->shape + k];
		if (ctx_makes_word(c, l, x) || ctx_makes_word(c, x, r))
			ctx_try_cand(p, &x, 1, kind_of(c, sx, x));
	}
}

/* When characters i and i+1 make a word: the words that sound like it
 * with both characters changed (上网 for 伤亡). */
void ctx_pair_cands(spot *p)
{
	const ctx_cfg *c = p->c;
	const int32_t *w = p->s->simp + p->i;
	if (p->i + 1 >= p->n || dict_freq(c, w, 2) == 0)
		return;
	uint32_t ca[MAX_READ], cb[MAX_READ];
	int na = classes_of(c, w[0], ca), nb = classes_of(c, w[1], cb);
	for (int a = 0; a < na; a++)
		for (int b = 0; b < nb; b++) {
			uint32_t nv;
			const int32_t *v = conf_get(c, conf_key(CONF_PAIR, ca[a], cb[b]), &nv);
			for (uint32_t k = 0; k < nv; k++, v += 2) {
				if (v[0] == w[0] || v[1] == w[1])
					continue;
				/* the same syllables only: similar ones are many more
				 * words to score, and win next to never */
				if (kind_of(c, w[0], v[0]) == K_SAME && kind_of(c, w[1], v[1]) == K_SAME)
					ctx_try_cand(p, v, 2, K_SAME);
			}
		}
}

/* The candidate that wins by the most over its margin, if it also beats
 * every other candidate by 2 and comes within slack of its margin; NULL
 * if none.  (With slack 0: the winner of the spot alone.) */
const cand *ctx_best_of(const spot *p, double slack)
{
	const cand *best = NULL;
	for (int j = 0; j < p->nv; j++)
		if (!best || p->v[j].gain - p->v[j].need > best->gain - best->need)
			best = &p->v[j];
	if (!best || best->gain < best->need - slack)
		return NULL;
	for (int j = 0; j < p->nv; j++)
		if (&p->v[j] != best && p->v[j].gain > best->gain - 2)
			return NULL;
	return best;
}

