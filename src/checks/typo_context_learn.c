/* typo_context_learn.c — typo.context's learned decision: the margin a
 * candidate must win by, from a logistic regression over what is known of
 * the candidate at its spot (rules/tools/train-typo-context.py writes the
 * weights, data/typo-context-weights.tsv, from slips it puts into clean
 * text).
 *
 * The model says a candidate is right when
 *     w_gain * gain + sum_j w_j * f_j + bias > 0,
 * gain being the language model's log-probability change.  With w_gain > 0
 * that is gain > need, need = -(sum_j w_j f_j + bias) / w_gain: the learned
 * model is a margin for each candidate, so the spot's choice and the
 * sentence's joint decision (typo_context_decode.c) stay as they are with
 * hand-set margins, and gain - need is the model's log-odds over w_gain. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "datafile.h"
#include "typo_context.h"
#include "utf8.h"

const char *const CTX_FEAT_NAME[CTX_NFEAT] = {
	"gain",      "bias",    "near",    "shape",    "group",   "stop-from", "stop-to",
	"logp-from", "logp-to", "word-to", "word-from", "long-to", "long-from", "edge"};

static double logp_of(const ctx_cfg *c, int32_t x)
{
	float l = x >= CJK_LO && x <= CJK_HI ? c->single_logp[x - CJK_LO] : 0;
	return l ? (double)l : -c->log_total;
}

/* The log frequency (+1) of the best two-character word x makes with a
 * neighbour of the spot at i. */
static double word_with(const ctx_cfg *c, const int32_t *t, int n, int i, int32_t x)
{
	uint32_t best = 0;
	if (i > 0) {
		int32_t w[2] = {t[i - 1], x};
		uint32_t f = dict_freq(c, w, 2);
		best = f > best ? f : best;
	}
	if (i + 1 < n) {
		int32_t w[2] = {x, t[i + 1]};
		uint32_t f = dict_freq(c, w, 2);
		best = f > best ? f : best;
	}
	return log1p((double)best);
}

/* Does x at i make a word of three or four characters with its
 * neighbours? */
static int long_word(const ctx_cfg *c, const int32_t *t, int n, int i, int32_t x)
{
	for (int L = 3; L <= MAX_WORD; L++)
		for (int a = i - L + 1; a <= i; a++) {
			int32_t w[MAX_WORD];
			if (a < 0 || a + L > n)
				continue;
			for (int j = 0; j < L; j++)
				w[j] = a + j == i ? x : t[a + j];
			if (dict_freq(c, w, L))
				return 1;
		}
	return 0;
}

static int stop_char(const ctx_cfg *c, int32_t x)
{
	const char_info *in = info_of(c, x);
	return in && in->stop;
}

void ctx_features(const ctx_cfg *c, const int32_t *t, int n, int i, int32_t x, int kind, double *f)
{
	int32_t o = t[i];
	memset(f, 0, CTX_NFEAT * sizeof *f);
	f[1] = 1;
	f[2] = kind == K_NEAR, f[3] = kind == K_SHAPE, f[4] = kind == K_GROUP;
	f[5] = stop_char(c, o), f[6] = stop_char(c, x);
	f[7] = logp_of(c, o), f[8] = logp_of(c, x);
	f[9] = word_with(c, t, n, i, x), f[10] = word_with(c, t, n, i, o);
	f[11] = long_word(c, t, n, i, x), f[12] = long_word(c, t, n, i, o);
	f[13] = i == 0 || i == n - 1;
}

/* With trace = 1: "f <byte> <candidate as written> <features>", the gain
 * first, one line per candidate. */
void ctx_trace_features(FILE *tr, const ctx_cfg *c, const int32_t *t, int n, int i, size_t pos,
                        int32_t x, int32_t written, int kind, double gain)
{
	double f[CTX_NFEAT];
	char b[8];
	ctx_features(c, t, n, i, x, kind, f);
	f[0] = gain;
	size_t l = jh_utf8_encode(written, b);
	fprintf(tr, "f\t%zu\t%.*s", pos, (int)l, b);
	for (int q = 0; q < CTX_NFEAT; q++)
		fprintf(tr, "\t%.4g", f[q]);
	fputc('\n', tr);
}

double ctx_learned_need(const ctx_cfg *c, const double *f)
{
	double z = 0;
	for (int j = 1; j < CTX_NFEAT; j++)
		z += c->weight[j] * f[j];
	return -z / c->weight[0];
}

/* data/typo-context-weights.tsv: feature<TAB>weight, every feature once;
 * the gain's weight must be positive (else there is no margin). */
int ctx_load_weights(ctx_cfg *c, jh_diag_fn diag_fn, void *payload)
{
	const jh_rule *r = c->rule;
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, c->weights_file, r, c->weights_line, diag_fn, payload);
	char *fl[2];
	size_t len[2];
	unsigned seen = 0;
	int nf;
	while (rc == JH_OK && (nf = jh_tsv_next(&t, fl, len, 2)) > 0) {
		int j = 0;
		while (j < CTX_NFEAT && strcmp(fl[0], CTX_FEAT_NAME[j]) != 0)
			j++;
		char *end = NULL;
		double w = nf == 2 ? strtod(fl[1], &end) : 0;
		if (j == CTX_NFEAT || nf != 2 || end == fl[1] || *end || !isfinite(w) ||
		    (seen >> j & 1) || (j == 0 && w <= 0)) {
			jh_report(diag_fn, payload, JH_ERROR, t.path, t.line, 0, r->id,
			          "not a line 'feature<TAB>weight' of a known feature, once each (gain > 0)");
			rc = JH_ERR_RULES;
			break;
		}
		c->weight[j] = w;
		seen |= 1u << j;
	}
	if (rc == JH_OK && seen != (1u << CTX_NFEAT) - 1) {
		jh_report(diag_fn, payload, JH_ERROR, t.path, 0, 0, r->id, "a feature's weight is missing");
		rc = JH_ERR_RULES;
	}
	jh_tsv_close(&t);
	return rc;
}
