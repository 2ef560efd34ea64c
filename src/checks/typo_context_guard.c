/* typo_context_guard.c — typo.context's guards that look at the whole
 * document: a pair of characters the document writes more than once is
 * meant (a name, a term), and a candidate that takes a neighbour away from
 * a recurring pair the dictionary does not know breaks a name. */
#include <stdint.h>
#include <stdlib.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"
#include "typo_context_spot.h"

static size_t pc_at(const pair_count *t, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h ^ h >> 29) & (t->cap - 1);
	while (t->key[i] && t->key[i] != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int pc_grow(pair_count *t)
{
	pair_count g = {calloc(t->cap * 2, sizeof *g.key), calloc(t->cap * 2, 1), t->cap * 2, t->used, 0};
	if (!g.key || !g.n) {
		free(g.key);
		free(g.n);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->key[i]) {
			size_t j = pc_at(&g, t->key[i]);
			g.key[j] = t->key[i], g.n[j] = t->n[i];
		}
	free(t->key);
	free(t->n);
	*t = g;
	return JH_OK;
}

static int pc_build(pair_count *t, const char *text, size_t len)
{
	t->cap = 4096;
	t->key = calloc(t->cap, sizeof *t->key);
	t->n = calloc(t->cap, 1);
	if (!t->key || !t->n)
		return JH_ERR_NOMEM;
	int32_t prev = 0;
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		int32_t cp = -1;
		size_t k;
		if (u[i] < 0x80) { /* ASCII: no Han, and most of some texts */
			prev = 0;
			i++;
			continue;
		}
		if (u[i] >= 0xE4 && u[i] <= 0xE9 && i + 2 < len && (u[i + 1] & 0xC0) == 0x80 &&
		    (u[i + 2] & 0xC0) == 0x80) /* U+4000..U+9FFF, the basic block's bytes */
			cp = (u[i] & 0x0F) << 12 | (u[i + 1] & 0x3F) << 6 | (u[i + 2] & 0x3F), k = 3;
		else
			k = jh_utf8_decode(u + i, len - i, &cp);
		int han = cp >= CJK_LO && cp <= CJK_HI ? 1 : cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		if (han && prev) {
			if (t->used * 2 >= t->cap && pc_grow(t))
				return JH_ERR_NOMEM;
			uint64_t key = (uint64_t)(uint32_t)prev << 32 | (uint32_t)cp;
			size_t j = pc_at(t, key);
			t->used += !t->key[j];
			t->key[j] = key;
			t->n[j] += t->n[j] < 3;
		}
		prev = han ? cp : 0;
		i += k ? k : 1;
	}
	t->built = 1;
	return JH_OK;
}

void ctx_pc_free(pair_count *t)
{
	free(t->key);
	free(t->n);
}

/* Does the pair a b occur in the document at least times (≤ 3) times?
 * Without memory for the table: yes (the guard then keeps quiet). */
static int occurs(pair_count *t, const char *text, size_t len, int32_t a, int32_t b, int times)
{
	if (!t->built && pc_build(t, text, len)) {
		ctx_pc_free(t);
		*t = (pair_count){0};
		return 1;
	}
	size_t j = pc_at(t, (uint64_t)(uint32_t)a << 32 | (uint32_t)b);
	return t->key[j] && t->n[j] >= times;
}

/* Does the candidate take a neighbour away from a name: a pair that the
 * document writes three times or more and the dictionary does not know
 * (牛岛 twelve times, then 牛岛尉: 岛屿 is a word, but 牛岛 is a name)? */
static int breaks_name(const jh_brun *run, const ctx_cfg *c, scratch *s, int n, int i,
                       const cand *v)
{
	int k = v->k;
	if (i >= 2 && ctx_makes_word(c, s->simp[i - 1], v->x[0]) && !dict_freq(c, s->simp + i - 2, 2) &&
	    occurs(&s->pairs, run->text, run->len, s->cp[i - 2], s->cp[i - 1], 3))
		return 1;
	return i + k + 1 < n && ctx_makes_word(c, v->x[k - 1], s->simp[i + k]) &&
	       !dict_freq(c, s->simp + i + k, 2) &&
	       occurs(&s->pairs, run->text, run->len, s->cp[i + k], s->cp[i + k + 1], 3);
}

/* May x be reported for [i, i+k)?  Not when the document writes the pair
 * more than once (then it is meant: a name, a term, 義昌 in 大島義昌) or
 * when it breaks a name. */
int ctx_guard_ok(const jh_brun *run, const ctx_cfg *c, scratch *s, int n, const cand *v, int i)
{
	const char *t = run->text;
	int k = v->k;
	pair_count *pc = &s->pairs;
	if (k > 1 ? occurs(pc, t, run->len, s->cp[i], s->cp[i + 1], 2)
	          : (i > 0 && occurs(pc, t, run->len, s->cp[i - 1], s->cp[i], 2)) ||
	                (i + 1 < n && occurs(pc, t, run->len, s->cp[i], s->cp[i + 1], 2)))
		return 0;
	return !breaks_name(run, c, s, n, i, v);
}
