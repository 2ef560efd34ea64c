/* typo_context.c — slips of the input method found from their context
 * (typo.context, opt-in): 炮單 for 炮彈, 安权 for 安全, 嚇的趕緊 for
 * 嚇得趕緊.
 *
 * Each run of Han characters is a sentence to rescore.  A spot is a
 * character that jieba's segmentation leaves alone and that makes no word
 * with a neighbour (slips out of one real word into another won as often
 * wrongly as rightly on the SIGHAN training sets, and cost the most).  Its
 * candidates are the characters an input method or a reader confuses with
 * it (data/typo-similar.tsv, from Unihan): the same syllable under any of
 * its modern readings, a similar syllable (zh/z, n/l, -n/-ng, f/h: the
 * usual slips of speakers and learners), and, for shape, a character whose
 * Cangjie code differs by one letter.  Only a candidate that makes a
 * frequent two-character word with a neighbour is tried (that keeps the
 * candidates few and the suggestions words), except inside the small
 * groups of function characters that are confused whatever their
 * neighbours (的地得, 在再: the `groups` parameter).  With pair-margin set,
 * a two-character word may also be replaced by another word of the same
 * syllables, 上网 for 伤亡.
 *
 * Each candidate is scored with sunpinyin's word trigram model (typo_lm.c;
 * Debian sunpinyin-data, read at run time) on a window of four characters
 * either side, and the best one wins when it raises the log-probability by
 * the margin of its kind: a homophone needs less proof than a similar
 * syllable or a look-alike, and a change of a function character more.
 * The spots' best candidates are then decided together for the sentence
 * (typo_context_decode.c), so that slips close together are fixed
 * together.  Without the model jieba's unigram scores are used.
 *
 * Guards: a pair that the document writes more than once is meant (a name,
 * a term), and so is a rare character (濑名); a candidate that takes a
 * neighbour away from a recurring pair the dictionary does not know (牛岛)
 * is not made; dialogue in quotation marks is skipped; outside simplified
 * text a traditional form or variant of the candidate (反覆 for 反复, 著
 * for 着) is a spelling, not a slip.
 *
 * The dictionary is jieba's dict.txt, read at run time from where Debian
 * installs it (the `dict` parameter), the first time the rule runs: a rule
 * set that does not select the rule never reads it.  Traditional text is
 * looked up through a one-to-one traditional→simplified map and written
 * back in the usual traditional form (data/typo-s2t.tsv, from OpenCC).
 *
 * One file per stage: this one walks the document's runs of Han
 * characters, finds each spot's option and reports the sentence's joint
 * decision; typo_context_score.c scores windows, typo_context_cands.c
 * makes and scores a spot's candidates, typo_context_guard.c holds the
 * guards that look at the whole document, typo_context_decode.c decides a
 * sentence, typo_context_data.c loads the tables, typo_context_learn.c the
 * learned decision. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "findings.h"
#include "typo.h"
#include "utf8.h"
#include "util.h"
#include "typo_context_spot.h"

/* ---- the run ---- */

/* Report x for [i, i+k). */
static void emit(jh_brun *run, const ctx_cfg *c, scratch *s, const cand *v, int i, int script)
{
	char fix[16];
	size_t fl = 0;
	for (int j = 0; j < v->k; j++)
		fl += jh_utf8_encode(script > 0 ? ctx_trad_form(c, v->x[j]) : v->x[j], fix + fl);
	fix[fl] = '\0';
	jh_hit h = {run->rule, run->rule_index, s->pos[i], s->pos[i + v->k], fix, fl, JH_UNSAFE, NULL};
	int rc = jh_findings_add_hit(run->out, run->text, &h);
	if (rc && !run->err)
		run->err = rc;
}

/* A spot's decision depends on nothing but the characters within reach
 * of its windows (as corrected so far), the characters at the spot as
 * written, whether it is part of a word, and the script: the same spot
 * seen again in the document (a repeated phrase, a refrain, a text pasted
 * twice) takes the decision kept, not a new scoring. */
#define MEMO_KEY (2 * WINDOW + 2 + 3)
struct spot_memo {
	uint32_t gen;          /* the document that kept it; other: empty */
	int32_t key[MEMO_KEY];
	cand v;                /* the spot's option; k = 0: none */
};

static void memo_key(const scratch *s, int n, int i, int word, int script, int32_t *key)
{
	int m = 0;
	for (int j = i - WINDOW; j < i + WINDOW + 2; j++)
		key[m++] = j >= 0 && j < n ? s->simp[j] : 0;
	key[m++] = s->cp[i];
	key[m++] = i + 1 < n ? s->cp[i + 1] : 0;
	key[m++] = word * 4 + script + 2;
}

static struct spot_memo *memo_slot(scratch *s, const int32_t *key)
{
	if (!s->memo)
		return NULL;
	uint64_t h = jh_hash_cps(key, MEMO_KEY);
	return &s->memo[h & (s->memo_cap - 1)];
}

/* With the parameter trace = 1 (off unless a configuration sets it; the
 * library reads no environment), each document's spots and their
 * candidates go to stderr, for bench/typo-eval's candidate recall: one
 * line "doc" per document, then per Han character "c <byte> <why>
 * <candidates as they would be written>" (why: spot, word, rare, nosyl). */
static void trace_spot(FILE *tr, const ctx_cfg *c, const scratch *s, int i, const char *why,
                       const spot *p, int script)
{
	if (!tr)
		return;
	fprintf(tr, "c\t%zu\t%s\t", s->pos[i], why);
	for (int j = 0; p && j < p->nv; j++) {
		char b[16];
		size_t l = 0;
		for (int q = 0; q < p->v[j].k; q++)
			l += jh_utf8_encode(script > 0 ? ctx_trad_form(c, p->v[j].x[q]) : p->v[j].x[q], b + l);
		fprintf(tr, "%s%.*s", j ? " " : "", (int)l, b);
	}
	for (int j = 0; p && j < p->n_later; j++) {
		char b[8];
		size_t l = jh_utf8_encode(script > 0 ? ctx_trad_form(c, p->later[j]) : p->later[j], b);
		fprintf(tr, " %.*s", (int)l, b);
	}
	fputc('\n', tr);
	for (int j = 0; p && j < p->nv; j++) /* for rules/tools/train-typo-context.py */
		if (p->v[j].k == 1)
			ctx_trace_features(tr, c, s->simp, p->n, i, s->pos[i], p->v[j].x[0],
			                   script > 0 ? ctx_trad_form(c, p->v[j].x[0]) : p->v[j].x[0],
			                   p->v[j].kind, p->v[j].gain);
}

/* The option of the spot at i (the sentence as written): its best
 * candidate within slack of its margin that the guards allow; 0 if none. */
static int spot_option(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int i, int script,
                       FILE *tr, cand *out)
{
	const char_info *in = info_of(c, s->simp[i]);
	/* A rare character is seldom what an input method offers first:
	 * it is chosen (濑 in 濑名, a name) */
	if (!in || !in->syl[0] || c->single_logp[s->simp[i] - CJK_LO] < c->rare_logp) {
		trace_spot(tr, c, s, i, in && in->syl[0] ? "rare" : "nosyl", NULL, script);
		return 0;
	}
	int32_t l = i > 0 ? s->simp[i - 1] : 0, r = i + 1 < n ? s->simp[i + 1] : 0;
	int word = !s->single[i] || ctx_makes_word(c, l, s->simp[i]) || ctx_makes_word(c, s->simp[i], r);
	if (word && (!c->lm || !c->pair_margin)) {
		trace_spot(tr, c, s, i, "word", NULL, script);
		return 0; /* only a pair of characters may replace a word */
	}
	int32_t key[MEMO_KEY];
	memo_key(s, n, i, word, script, key);
	struct spot_memo *m = tr ? NULL : memo_slot(s, key);
	if (m && m->gen == s->gen && memcmp(m->key, key, sizeof key) == 0) {
		*out = m->v;
		return m->v.k && ctx_guard_ok(run, c, s, n, out, i);
	}
	spot sp, *p = &sp;
	p->nv = p->n_later = 0;
	p->c = c, p->s = s, p->n = n, p->i = i, p->script = script, p->word = word;
	p->score = c->lm ? ctx_lm_window : ctx_uni_window;
	p->base[0] = p->base[1] = NAN;
	s->base_ok[0] = s->base_ok[1] = 0;
	ctx_single_cands(p, l, r);
	if (c->lm && c->pair_margin)
		ctx_pair_cands(p);
	double slack = (double)c->joint_slack;
	const cand *v = ctx_best_of(p, slack);
	if ((v || tr) && p->n_later) {
		/* what the gate put off may still win or stand in the way */
		for (int j = 0; j < p->n_later; j++)
			ctx_try_cand(p, &p->later[j], 1, K_GROUP);
		p->n_later = 0;
		v = ctx_best_of(p, slack);
	}
	trace_spot(tr, c, s, i, "spot", p, script);
	cand none = {{0, 0}, 0, 0, 0, 0};
	if (m) {
		m->gen = s->gen;
		memcpy(m->key, key, sizeof key);
		m->v = v ? *v : none;
	}
	if (!v)
		return 0;
	*out = *v;
	return ctx_guard_ok(run, c, s, n, out, i);
}

/* jd_decode's callback: the option's gain with the options near written
 * into the sentence. */
typedef struct {
	const ctx_cfg *c;
	scratch *s;
	int n;
} rescore_ctx;

static double rescore(void *arg, int opt, const int *near, int nn)
{
	rescore_ctx *r = arg;
	scratch *s = r->s;
	int32_t saved[2 * JD_MAX_CHG];
	for (int q = 0; q < nn; q++)
		for (int j = 0; j < s->jopt[near[q]].k; j++) {
			saved[2 * q + j] = s->simp[s->jopt[near[q]].i + j];
			s->simp[s->jopt[near[q]].i + j] = s->opt[near[q]].x[j];
		}
	double (*score)(const ctx_cfg *, scratch *, int, int, int, const int32_t *) =
		r->c->lm ? ctx_lm_window : ctx_uni_window;
	const jd_opt *o = &s->jopt[opt];
	s->base_ok[0] = s->base_ok[1] = 0;
	double base = score(r->c, s, r->n, o->i, o->k, s->simp + o->i);
	double gain = score(r->c, s, r->n, o->i, o->k, s->opt[opt].x) - base;
	s->base_ok[0] = s->base_ok[1] = 0;
	for (int q = nn - 1; q >= 0; q--)
		for (int j = 0; j < s->jopt[near[q]].k; j++)
			s->simp[s->jopt[near[q]].i + j] = saved[2 * q + j];
	return gain;
}

/* Every character with a syllable is a spot (without the model: only
 * those that make no word with a neighbour).  Each spot's option is found
 * against the sentence as written; then the options are decided together
 * (jd_decode), so two slips close together are fixed together. */
static void check_run(jh_brun *run, const ctx_cfg *c, scratch *s, int n, int script, FILE *tr)
{
	if (n < 2)
		return;
	ctx_segment(c, s->simp, n, s->best, s->step, s->single);
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (!spot_option(run, c, s, n, i, script, tr, &s->opt[m]))
			continue;
		s->jopt[m] = (jd_opt){i, s->opt[m].k, s->opt[m].gain, s->opt[m].need};
		if (tr) {
			char b[16];
			size_t l = 0;
			for (int q = 0; q < s->opt[m].k; q++)
				l += jh_utf8_encode(script > 0 ? ctx_trad_form(c, s->opt[m].x[q]) : s->opt[m].x[q],
				                    b + l);
			fprintf(tr, "o\t%zu\t%.*s\t%.2f\t%.2f\n", s->pos[i], (int)l, b, s->opt[m].gain,
			        s->opt[m].need);
		}
		m++;
	}
	if (!m)
		return;
	int take[JD_MAX_CHG];
	rescore_ctx rc = {c, s, n};
	int nt = jd_decode(s->jopt, m, WINDOW + 1, rescore, &rc, take);
	for (int q = 0; q < nt; q++)
		emit(run, c, s, &s->opt[take[q]], s->jopt[take[q]].i, script);
}

/* Traditional or simplified: the variant asked for, else what the
 * characters seen so far say. */
static int script_of(const jh_brun *run, long trad, long simp)
{
	if (run->variant && strcmp(run->variant, "hant") == 0)
		return 1;
	if (run->variant && strcmp(run->variant, "hans") == 0)
		return -1;
	return trad > simp ? 1 : simp > trad ? -1 : 0;
}

/* This document's memo: about one spot in 30 bytes of text, at most
 * 65536 slots, a new number so that the slots of the documents before are
 * empty; no memory for it: no memo. */
static void memo_start(scratch *s, size_t len)
{
	size_t cap = 256;
	while (cap < 65536 && cap * 32 < len)
		cap <<= 1;
	if (cap > s->memo_alloc) {
		free(s->memo);
		s->memo = calloc(cap, sizeof *s->memo);
		s->memo_alloc = s->memo ? cap : 0;
		s->gen = 0;
	}
	if (++s->gen == 0) { /* numbers used up: clear the slots */
		memset(s->memo, 0, s->memo_alloc * sizeof *s->memo);
		s->gen = 1;
	}
	s->memo_cap = s->memo ? cap : 0;
}

/* The document's runs of Han characters outside dialogue, each checked. */
static void scratch_run(jh_brun *run, const ctx_cfg *c, scratch *s)
{
	const char *t = run->text;
	size_t len = run->len, i = 0;
	int n = 0, quote = 0;
	FILE *tr = c->trace ? stderr : NULL;
	if (tr)
		fputs("doc\n", tr);
	long trad = 0, simp = 0;
	while (i <= len) {
		int32_t cp = -1;
		size_t k = i < len ? jh_utf8_decode((const unsigned char *)t + i, len - i, &cp) : 1;
		int han = cp > 0 && (jh_class_of(cp) & JH_C_HAN);
		if (han && !quote) {
			if (ctx_scratch_fit(s, (size_t)n + 1)) {
				run->err = JH_ERR_NOMEM;
				break;
			}
			const char_info *in = info_of(c, cp);
			s->cp[n] = cp;
			s->simp[n] = in && in->simp ? in->simp : cp;
			trad += s->simp[n] != cp;
			simp += in && in->hans;
			s->pos[n] = i;
			s->pos[n + 1] = i + k;
			n++;
		} else {
			check_run(run, c, s, n, script_of(run, trad, simp), tr);
			n = 0;
			/* Dialogue is skipped: speech has its own words. */
			if (jh_opens_speech(cp))
				quote = 1;
			else if (cp == 0x201D || cp == 0x300D || cp == 0x300F || cp == '\n')
				quote = 0;
		}
		i += k ? k : 1;
	}
}

void jh_context_finish(jh_brun *run)
{
	/* the rule set is shared read-only; its lazy tables (written once,
	 * under jh_lazy's lock) and the scratch pool (under its own) are the
	 * parts written */
	ctx_cfg *c = (ctx_cfg *)run->cfg;
	lazy_arg a = {c, run->diag_fn, run->payload};
	if (jh_lazy_get(&c->once, load_tables, &a) != JH_OK || !c->dict_cap)
		return;
	scratch *sp = ctx_scratch_take(c);
	if (!sp) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	memo_start(sp, run->len);
	scratch_run(run, c, sp);
	ctx_scratch_give(c, sp);
}