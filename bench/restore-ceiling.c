/* restore-ceiling — how far a word trigram alone can restore a mask: for
 * each mask of bench/restore (one line on stdin: the hidden word, up to
 * four characters of context on each side, simplified, and the
 * document's own strings of the word's length with their counts), the
 * rank of the hidden word among every word of its length in sunpinyin's
 * lexicon, scored P(w | two words before) P(r1 | .., w) P(r2 | w, r1)
 * with the model's back-off, alone and mixed with a cache of the
 * document's strings (lambda P_model(w | h) + (1 - lambda) P_doc(w)).
 * A measuring tool for bench/restore-ceiling, not part of jinghua: it
 * links the built tree's libjinghua-core.a for the model reader.
 *
 * Input: word TAB left TAB right TAB doc-total TAB s:count,s:count,...
 * Output: in-lexicon TAB rank(lambda 1) TAB rank(lambda 0.7) TAB rank(0.5)
 * (rank -1: not a word of the lexicon).
 *
 * With --lexicon it prints the lexicon's Han words of one to four
 * characters instead (length TAB word), the candidates the libime tool
 * (restore-ceiling-libime.cc) ranks, so that both models rank the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "typo_lm.h"
#include "utf8.h"

#define MAXC 8
static jh_lm *lm;

static int decode(const char *s, int32_t *cp, int max)
{
	int k = 0;
	size_t n = strlen(s);
	for (size_t p = 0; p < n && k < max;)
		p += jh_utf8_decode((const unsigned char *)s + p, n - p, &cp[k++]);
	return k;
}

/* The best segmentation of cp[0, n) from state st0 (Viterbi, words of up
 * to six characters): its words into w, their number returned, the state
 * after them in *fin. */
static int segment(const int32_t *cp, int n, uint32_t *w, jh_lm_state *fin)
{
	double dp[MAXC + 1];
	jh_lm_state st[MAXC + 1];
	int from[MAXC + 1];
	uint32_t id[MAXC + 1], tmp[MAXC];
	dp[0] = 0;
	st[0] = 0;
	for (int i = 1; i <= n; i++) {
		dp[i] = -1e30;
		for (int j = i - 1; j >= 0 && i - j <= 6; j--) {
			uint32_t v = jh_lm_word(lm, cp + j, i - j);
			if (!v && i - j > 1)
				continue;
			jh_lm_state nx;
			double s = dp[j] + jh_lm_next(lm, st[j], v, &nx);
			if (s > dp[i])
				dp[i] = s, st[i] = nx, from[i] = j, id[i] = v;
		}
	}
	int k = 0;
	for (int i = n; i > 0; i = from[i])
		tmp[k++] = id[i];
	for (int a = 0; a < k; a++)
		w[a] = tmp[k - 1 - a];
	*fin = st[n];
	return k;
}

static void print_lexicon(void)
{
	for (uint32_t v = 1; v < jh_lm_count(lm); v++) {
		int32_t c[MAXC];
		int n = jh_lm_word_text(lm, v, c, MAXC);
		if (n < 1 || n > 4 || c[0] < 0x3400)
			continue;
		char b[MAXC * 4 + 1];
		size_t o = 0;
		for (int k = 0; k < n; k++)
			o += jh_utf8_encode(c[k], b + o);
		b[o] = 0;
		printf("%d\t%s\n", n, b);
	}
}

int main(int argc, char **argv)
{
	char err[300];
	if (jh_lm_open(&lm, "/usr/lib/x86_64-linux-gnu/sunpinyin/data/lm_sc.t3g",
	               "/usr/lib/x86_64-linux-gnu/sunpinyin/data/pydict_sc.bin", err, sizeof err)) {
		fprintf(stderr, "restore-ceiling: %s\n", err);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--lexicon")) {
		print_lexicon();
		return 0;
	}
	uint32_t nw = jh_lm_count(lm);
	double *left = malloc(nw * sizeof *left), *right = malloc(nw * sizeof *right),
	       *doc = calloc(nw, sizeof *doc);
	char *ok = malloc(nw);
	static char line[1 << 20];
	static const double lambda[3] = {1.0, 0.7, 0.5};
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		char *f[5] = {line};
		int nf = 1;
		for (char *p = line; nf < 5 && (p = strchr(p, '\t'));)
			*p++ = 0, f[nf++] = p;
		if (nf < 5) {
			puts("0\t-1\t-1\t-1");
			continue;
		}
		int32_t W[MAXC], L[MAXC], R[MAXC];
		int n = decode(f[0], W, MAXC), nl = decode(f[1], L, MAXC), nr = decode(f[2], R, MAXC);
		uint32_t lw[MAXC], rw[MAXC];
		jh_lm_state h = 0, ignore;
		segment(L, nl, lw, &h);
		int kr = segment(R, nr, rw, &ignore);
		uint32_t target = jh_lm_word(lm, W, n);
		if (!target) {
			puts("0\t-1\t-1\t-1");
			continue;
		}
		for (uint32_t v = 1; v < nw; v++) {
			int32_t c[MAXC];
			ok[v] = jh_lm_word_len(lm, v) == n && jh_lm_word_text(lm, v, c, MAXC) == n &&
			        c[0] >= 0x3400;
			if (!ok[v])
				continue;
			jh_lm_state s1, s2, s3;
			left[v] = jh_lm_next(lm, h, v, &s1);
			right[v] = 0;
			if (kr)
				right[v] = jh_lm_next(lm, s1, rw[0], &s2);
			if (kr > 1)
				right[v] += jh_lm_next(lm, s2, rw[1], &s3);
		}
		/* the document's strings of the word's length that are words */
		double total = atof(f[3]);
		uint32_t seen[512];
		int ns = 0;
		for (char *s = f[4]; s && *s && ns < 512;) {
			char *e = strchr(s, ','), *colon;
			if (e)
				*e = 0;
			if ((colon = strrchr(s, ':'))) {
				*colon = 0;
				int32_t c[MAXC];
				int k = decode(s, c, MAXC);
				uint32_t v = k == n ? jh_lm_word(lm, c, k) : 0;
				if (v && ok[v] && total > 0 && !doc[v])
					doc[v] = atof(colon + 1) / total, seen[ns++] = v;
			}
			s = e ? e + 1 : NULL;
		}
		printf("1");
		for (int li = 0; li < 3; li++) {
			double lam = lambda[li];
#define SCORE(v) (log(lam * exp(left[v]) + (1 - lam) * doc[v]) + right[v])
			double t = SCORE(target);
			long better = 0;
			for (uint32_t v = 1; v < nw; v++)
				if (ok[v] && v != target && SCORE(v) > t + 1e-9)
					better++;
			printf("\t%ld", better);
		}
		putchar('\n');
		fflush(stdout);
		for (int i = 0; i < ns; i++)
			doc[seen[i]] = 0;
	}
	return 0;
}
