/* mask_restore_open.c — opening mask restoration's model (see
 * mask_restore.h): the word trigram, the successor and predecessor lists
 * built from its bigrams (or mapped from the cache folder,
 * mask_restore_cache.c), the lexicon's filter, the simplified-to-
 * traditional table, and the optional character model. */
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "mask_restore_int.h"
#include "utf8.h"

static int build_bloom(jh_mr *m)
{
	m->t.bloom = calloc(m->t.bloom_words, sizeof *m->t.bloom);
	if (!m->t.bloom)
		return JH_ERR_NOMEM;
	for (uint32_t id = 1; id < m->t.n_words; id++) {
		int32_t cp[JH_LM_MAX_WORD];
		int n = jh_lm_word_text(m->lm, id, cp, JH_LM_MAX_WORD);
		if (n >= 2 && n <= JH_LM_MAX_WORD) {
			uint64_t b = bloom_bit(cp, n);
			m->t.bloom[b >> 6] |= (uint64_t)1 << (b & 63);
		}
	}
	return JH_OK;
}

/* ---- successor and predecessor lists ---- */

typedef struct {
	jh_mr *m;
	float *ps; /* scores of the slots being filled */
	float *ss; /* and of the successor slots */
} build_arg;


/* Put id (score s) into the k sorted slots v, f. */
static void keep_in(uint32_t *v, float *f, int k, uint32_t id, float s)
{
	if (v[k - 1] && f[k - 1] >= s)
		return;
	int i = k - 1;
	while (i > 0 && (!v[i - 1] || f[i - 1] < s)) {
		v[i] = v[i - 1];
		f[i] = f[i - 1];
		i--;
	}
	v[i] = id;
	f[i] = s;
}

/* Put id (score s) into the sorted slots of its length in list row. */
static void keep(uint32_t *ids, float *sc, size_t row, int len, uint32_t id, float s)
{
	size_t at = row * K_ALL + (size_t)slot_base(len);
	keep_in(ids + at, sc + at, k_per_len[len], id, s);
}

static void on_bigram(void *arg, uint32_t w1, uint32_t w2, double lp)
{
	build_arg *a = arg;
	jh_mr *m = a->m;
	if (w1 >= m->t.n_words || w2 >= m->t.n_words || !w1 || !w2)
		return;
	m->t.rev_off[w2 + 1]++; /* the reverse index's counts, in the same pass */
	int l1 = m->t.wlen[w1];
	if (l1 >= 1 && l1 <= JH_MR_MAX_FILL) /* before w2, by P(w1) P(w2 | w1) */
		keep(m->t.pred, a->ps, w2, l1, w1, (float)(lp + (double)m->t.uni[w1]));
	int l2 = m->t.wlen[w2];
	if (l2 >= 1 && l2 <= JH_MR_MAX_FILL) { /* after w1, by P(w2 | w1) */
		size_t at = (size_t)w1 * S_ALL + (size_t)(l2 - 1) * S_PER_LEN;
		keep_in(m->t.succ + at, a->ss + at, S_PER_LEN, w2, (float)lp);
	}
}

typedef struct {
	jh_mr *m;
	uint32_t *fill; /* next free entry per w2 */
} rev_arg;

static void rev_put(void *arg, uint32_t w1, uint32_t w2, double lp)
{
	rev_arg *a = arg;
	/* the bigrams on_bigram counted, no others: an uncounted one (the
	 * sentence start, id 0, as first word) would run into the next
	 * word's list and leave it unsorted */
	if (w1 >= a->m->t.n_words || w2 >= a->m->t.n_words || !w1 || !w2)
		return;
	uint32_t at = a->fill[w2]++;
	a->m->t.rev_w1[at] = w1;
	a->m->t.rev_lp[at] = (float)lp;
}

/* The reverse bigram index, from the counts on_bigram made: the model's
 * first words come in id order, so each w2's list is sorted. */
static int build_rev(jh_mr *m)
{
	rev_arg a = {m, NULL};
	for (uint32_t w = 0; w < m->t.n_words; w++)
		m->t.rev_off[w + 1] += m->t.rev_off[w];
	size_t total = m->t.n_rev = m->t.rev_off[m->t.n_words];
	m->t.rev_w1 = malloc((total ? total : 1) * sizeof *m->t.rev_w1);
	m->t.rev_lp = malloc((total ? total : 1) * sizeof *m->t.rev_lp);
	a.fill = malloc((size_t)m->t.n_words * sizeof *a.fill);
	if (!m->t.rev_w1 || !m->t.rev_lp || !a.fill) {
		free(a.fill);
		return JH_ERR_NOMEM;
	}
	memcpy(a.fill, m->t.rev_off, (size_t)m->t.n_words * sizeof *a.fill);
	jh_lm_each_bigram(m->lm, rev_put, &a);
	free(a.fill);
	return JH_OK;
}

static int build_lists(jh_mr *m)
{
	size_t cells = (size_t)m->t.n_words * K_ALL;
	size_t scells = (size_t)m->t.n_words * S_ALL;
	m->t.pred = calloc(cells, sizeof *m->t.pred);
	m->t.succ = calloc(scells, sizeof *m->t.succ);
	m->t.rev_off = calloc((size_t)m->t.n_words + 1, sizeof *m->t.rev_off);
	build_arg a = {m, malloc(cells * sizeof(float)), malloc(scells * sizeof(float))};
	int rc = JH_OK;
	if (!m->t.pred || !m->t.succ || !m->t.rev_off || !a.ps || !a.ss)
		rc = JH_ERR_NOMEM;
	else
		jh_lm_each_bigram(m->lm, on_bigram, &a);
	free(a.ps);
	free(a.ss);
	return rc ? rc : build_rev(m);
}

/* ---- opening ---- */

int jh_mr_use_charlm(jh_mr *m, const char *path, char *err, size_t err_len)
{
	jh_cm_free(m->cm);
	m->cm = NULL;
	const char *w = getenv("JH_CM_WEIGHT"), *g = getenv("JH_CM_GATE"), *k = getenv("JH_CM_PROPOSE");
	m->cm_weight = w ? atof(w) : CM_WEIGHT;
	m->cm_gate = g ? atof(g) : CM_GATE;
	m->cm_propose = k ? atoi(k) : CM_PROPOSE;
	if (m->cm_propose > CM_PROPOSE)
		m->cm_propose = CM_PROPOSE;
	if (m->cm_propose < 0)
		m->cm_propose = 0;
	return jh_cm_open(&m->cm, path, err, err_len);
}

void jh_mr_free(jh_mr *m)
{
	if (!m)
		return;
	jh_lm_free(m->lm);
	jh_cm_free(m->cm);
	jh_mr_tables_free(&m->t);
	free(m->s2t);
	free(m);
}

/* The tables from the model: lengths, unigrams, the filter, the lists. */
static int build_tables(jh_mr *m)
{
	m->t.wlen = malloc(m->t.n_words ? m->t.n_words : 1);
	m->t.uni = malloc((m->t.n_words ? m->t.n_words : 1) * sizeof *m->t.uni);
	int rc = m->t.wlen && m->t.uni ? JH_OK : JH_ERR_NOMEM;
	for (uint32_t w = 0; rc == JH_OK && w < m->t.n_words; w++) {
		int l = jh_lm_word_len(m->lm, w);
		m->t.wlen[w] = (uint8_t)(l <= JH_MR_MAX_FILL ? l : 0);
		m->t.uni[w] = (float)jh_lm_unigram(m->lm, w);
	}
	if (rc == JH_OK)
		rc = build_bloom(m);
	if (rc == JH_OK)
		rc = build_lists(m);
	return rc;
}

int jh_mr_open(jh_mr **out, const jh_rule *r, const char *lm, const char *lexicon,
               const char *s2t, unsigned s2t_line, jh_diag_fn diag_fn, void *payload)
{
	*out = NULL;
	jh_mr *m = calloc(1, sizeof *m);
	if (!m)
		return JH_ERR_NOMEM;
	char err[300];
	int rc = jh_lm_open_cached(&m->lm, lm, lexicon, r->cache_dir, err, sizeof err);
	if (rc && rc != JH_ERR_IO)
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id, "%s", err);
	if (rc == JH_OK) {
		m->t.n_words = jh_lm_count(m->lm);
		m->t.form = TABLES_FORM;
		m->t.k_all = K_ALL;
		m->t.k_succ = S_ALL;
		m->t.bloom_words = (size_t)1 << (BLOOM_BITS - 6);
		if (jh_mr_cache_map(&m->t, r->cache_dir, lm, lexicon) != 0) {
			rc = build_tables(m);
			if (rc == JH_OK)
				jh_mr_cache_store(&m->t, r->cache_dir, lm, lexicon);
		}
	}
	if (rc == JH_OK && s2t)
		rc = jh_load_char_map(&m->s2t, S2T_LO, S2T_HI, s2t, r, s2t_line, diag_fn, payload);
	if (rc) {
		jh_mr_free(m);
		return rc;
	}
	*out = m;
	return JH_OK;
}
