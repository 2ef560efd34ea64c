/* seg_step.h — one step of a best segmentation of a short window into
 * words (Viterbi), the loop that the mask-suggest check's unigram score
 * (censor_suggest_words.c) and the word trigram ranking (mask_restore.c)
 * both run over the characters around a mask.  Internal to the library.
 *
 * The window's best path to position i is the best over the starts j
 * (from i - 1 back to lo, at most maxw characters back) of the path to j
 * plus the cost of the word [j, i) after it.  The cost function gives
 * that (a log probability; -INFINITY for no word) and, for a model with
 * a history, the state after the word from the state at j.  Ties keep
 * the nearest start.  It is inline so that each caller's cost function
 * is called directly. */
#ifndef JH_SEG_STEP_H
#define JH_SEG_STEP_H

#include <stdint.h>

typedef double (*jh_seg_cost_fn)(void *arg, int j, int i, uint32_t state, uint32_t *next);

/* dp[i] (from[i], st[i] when not NULL) from dp[lo .. i - 1]; init is
 * dp[i]'s value when no start does better. */
static inline void jh_seg_step(double *dp, int *from, uint32_t *st, int i, int lo, int maxw,
                               double init, jh_seg_cost_fn cost, void *arg)
{
	dp[i] = init;
	if (from)
		from[i] = i - 1;
	for (int j = i - 1; j >= lo && i - j <= maxw; j--) {
		uint32_t next = 0;
		double s = dp[j] + cost(arg, j, i, st ? st[j] : 0, &next);
		if (s > dp[i]) {
			dp[i] = s;
			if (from)
				from[i] = j;
			if (st)
				st[i] = next;
		}
	}
}

#endif
