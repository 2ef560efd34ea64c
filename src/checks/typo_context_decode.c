/* typo_context_decode.c — typo.context's decision for a whole sentence:
 * which of the spots' best candidates to write together.
 *
 * Each spot brings at most one option (its best candidate, scored against
 * the sentence as written).  Taken alone an option is kept when its gain
 * reaches its margin.  But a sentence with two slips close together scores
 * each of them against the other slip: the context the model sees is still
 * wrong, so each gain is lower than it would be with the other fixed, and
 * a greedy left-to-right pass keeps neither or only one (on the SIGHAN
 * training sets, 256 of 1,136 changed sentences had two slips of which one
 * was fixed).  Here a beam search over the options decides them together:
 * a hypothesis is a set of options taken; an option taken within reach of
 * an earlier one of the same hypothesis is rescored with that one written
 * (the callback), and a run of options within reach of each other (a
 * cluster) is kept only when the sum of their gains over their margins is
 * at least 0 — an option short of its margin is kept only when a neighbour
 * it helps makes up for it, never carried by a far one.
 *
 * Hand-written: it is a few dozen lines of search over a handful of
 * options per sentence, specific to how the spots are scored. */
#include <stdlib.h>
#include <string.h>
#include "typo_context.h"

#define BEAM 16

typedef struct {
	double score;  /* sum over the options taken of gain − need */
	double open;   /* the same over the last cluster */
	int last_end;  /* end of the last option taken, −1: none */
	int n;
	int chg[JD_MAX_CHG]; /* indices of the options taken */
} hyp;

static int by_score(const void *a, const void *b)
{
	const hyp *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->n - y->n; /* fewer changes first */
}

/* Can h take option j?  Not over its last one; not after a cluster that
 * fell short and that j cannot reach any more. */
static int can_take(const hyp *h, const jd_opt *o, int reach)
{
	if (h->n == JD_MAX_CHG || (h->last_end >= 0 && o->i < h->last_end))
		return 0;
	return h->last_end < 0 || o->i - h->last_end < reach || h->open >= 0;
}

int jd_decode(const jd_opt *o, int m, int reach, jd_rescore fn, void *ctx, int *out)
{
	hyp beam[BEAM], next[2 * BEAM];
	int nb = 1;
	beam[0] = (hyp){0, 0, -1, 0, {0}};
	for (int j = 0; j < m; j++) {
		int nn = 0;
		for (int b = 0; b < nb; b++) {
			const hyp *h = &beam[b];
			/* a short cluster that no later option can reach is dead */
			if (h->last_end >= 0 && h->open < 0 && o[j].i - h->last_end >= reach)
				continue;
			next[nn++] = *h;
			if (!can_take(h, &o[j], reach))
				continue;
			int near[JD_MAX_CHG], nnear = 0;
			for (int k = 0; k < h->n; k++)
				if (o[j].i - (o[h->chg[k]].i + o[h->chg[k]].k) < reach)
					near[nnear++] = h->chg[k];
			double gain = nnear ? fn(ctx, j, near, nnear) : o[j].gain;
			double d = gain - o[j].need;
			hyp *g = &next[nn++];
			*g = *h;
			int joined = h->last_end >= 0 && o[j].i - h->last_end < reach;
			g->open = joined ? g->open + d : d;
			g->score += d;
			g->last_end = o[j].i + o[j].k;
			g->chg[g->n++] = j;
		}
		qsort(next, (size_t)nn, sizeof *next, by_score);
		nb = nn < BEAM ? nn : BEAM;
		memcpy(beam, next, (size_t)nb * sizeof *beam);
	}
	for (int b = 0; b < nb; b++)
		if (beam[b].n && beam[b].open >= 0 && beam[b].score >= 0) {
			memcpy(out, beam[b].chg, (size_t)beam[b].n * sizeof *out);
			return beam[b].n;
		} else if (!beam[b].n) {
			return 0; /* nothing taken scores better than any set that is kept */
		}
	return 0;
}
