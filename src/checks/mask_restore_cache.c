/* mask_restore_cache.c — the compiled form of mask restoration's tables in
 * the cache folder (see mask_restore_cache.h).
 *
 * Building them (every bigram of the model read twice: the predecessor
 * lists and the reverse index) costs about 490 M instructions and 40 MB,
 * at the first mask of every process; mapping the compiled form costs a
 * stat, an mmap and a walk over the reverse index's offsets, and only the
 * pages a mask reads come into memory.  The file is keyed by the model
 * file (tablecache.c); the lexicon, which gives the word ids, is named in
 * the counts and checked too.  After the head: the counts, then the
 * arrays as they are in memory.
 *
 * What is checked before use: the sizes, and the reverse index's offsets
 * (monotonic, inside its arrays).  The word ids the lists hold index
 * nothing here: every use bounds-checks them (jh_lm_word_text, the
 * lengths' range tests) or only compares them, so a damaged id gives a
 * wrong suggestion, never a read out of bounds; and the files are ours,
 * written whole and renamed. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "mask_restore_cache.h"
#include "tablecache.h"

#define CACHE_MAGIC "JHMREST\1"
#define KIND "restore"

typedef struct {
	uint64_t form, n_words, k_all, k_succ, bloom_words, n_rev;
	uint64_t lex_dev, lex_ino, lex_size, lex_mtime_sec, lex_mtime_nsec;
} mr_counts;

/* This machine's layout and the tables' form: both name the file (a
 * process of another form, an older jinghua, keeps its own). */
static uint32_t layout_code(const jh_mr_tables *t)
{
	return (uint32_t)(t->form << 16 | sizeof(float) << 8 | sizeof(uint64_t));
}

/* Byte offsets of the sections, as jh_cache_store lays them out. */
typedef struct {
	size_t counts, wlen, uni, bloom, pred, succ, rev_off, rev_w1, rev_lp, total;
} cache_layout;

static void layout_of(const mr_counts *h, cache_layout *l)
{
	size_t p = jh_cache_align(sizeof(jh_cache_head));
	l->counts = p, p = jh_cache_align(p + sizeof *h);
	l->wlen = p, p = jh_cache_align(p + h->n_words);
	l->uni = p, p = jh_cache_align(p + h->n_words * sizeof(float));
	l->bloom = p, p = jh_cache_align(p + h->bloom_words * 8);
	l->pred = p, p = jh_cache_align(p + h->n_words * h->k_all * 4);
	l->succ = p, p = jh_cache_align(p + h->n_words * h->k_succ * 4);
	l->rev_off = p, p = jh_cache_align(p + (h->n_words + 1) * 4);
	l->rev_w1 = p, p = jh_cache_align(p + h->n_rev * 4);
	l->rev_lp = p, p += h->n_rev * sizeof(float);
	l->total = p;
}

static int counts_of(mr_counts *h, const jh_mr_tables *t, const char *lexicon)
{
	struct stat st;
	if (stat(lexicon, &st) != 0)
		return -1;
	memset(h, 0, sizeof *h);
	h->form = t->form;
	h->n_words = t->n_words;
	h->k_all = t->k_all;
	h->k_succ = t->k_succ;
	h->bloom_words = t->bloom_words;
	h->n_rev = t->n_rev;
	h->lex_dev = (uint64_t)st.st_dev;
	h->lex_ino = (uint64_t)st.st_ino;
	h->lex_size = (uint64_t)st.st_size;
	h->lex_mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	h->lex_mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	return 0;
}

static int rev_ok(const uint32_t *off, uint32_t n_words, size_t n_rev)
{
	if (off[0] != 0 || off[n_words] != n_rev)
		return 0;
	for (uint32_t w = 0; w < n_words; w++)
		if (off[w + 1] < off[w])
			return 0;
	return 1;
}

int jh_mr_cache_map(jh_mr_tables *t, const char *cache_dir, const char *lm, const char *lexicon)
{
	void *map;
	size_t len;
	if (!cache_dir || jh_cache_map(cache_dir, lm, KIND, CACHE_MAGIC, layout_code(t), &map, &len) != 0)
		return -1;
	char *base = map;
	mr_counts h, want;
	cache_layout l;
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	int ok = len >= at + sizeof h && counts_of(&want, t, lexicon) == 0;
	if (ok) {
		memcpy(&h, base + at, sizeof h);
		want.n_rev = h.n_rev; /* the one count the caller does not know */
		ok = !memcmp(&h, &want, sizeof h) && h.n_rev < UINT32_MAX;
	}
	if (ok) {
		layout_of(&h, &l);
		ok = l.total == len;
	}
	if (ok)
		ok = rev_ok((const uint32_t *)(base + l.rev_off), t->n_words, h.n_rev);
	if (!ok) {
		munmap(map, len);
		return -1;
	}
	t->n_rev = h.n_rev;
	t->wlen = (uint8_t *)(base + l.wlen);
	t->uni = (float *)(base + l.uni);
	t->bloom = (uint64_t *)(base + l.bloom);
	t->pred = (uint32_t *)(base + l.pred);
	t->succ = (uint32_t *)(base + l.succ);
	t->rev_off = (uint32_t *)(base + l.rev_off);
	t->rev_w1 = (uint32_t *)(base + l.rev_w1);
	t->rev_lp = (float *)(base + l.rev_lp);
	t->map = map;
	t->map_len = len;
	return 0;
}

void jh_mr_cache_store(const jh_mr_tables *t, const char *cache_dir, const char *lm,
                       const char *lexicon)
{
	mr_counts h;
	if (!cache_dir || t->map || counts_of(&h, t, lexicon) != 0)
		return;
	const jh_cache_section s[] = {
		{&h, sizeof h},
		{t->wlen, t->n_words},
		{t->uni, t->n_words * sizeof(float)},
		{t->bloom, t->bloom_words * 8},
		{t->pred, (size_t)t->n_words * t->k_all * 4},
		{t->succ, (size_t)t->n_words * t->k_succ * 4},
		{t->rev_off, ((size_t)t->n_words + 1) * 4},
		{t->rev_w1, t->n_rev * 4},
		{t->rev_lp, t->n_rev * sizeof(float)},
	};
	jh_cache_store(cache_dir, lm, KIND, CACHE_MAGIC, layout_code(t), s, sizeof s / sizeof *s);
}

void jh_mr_tables_free(jh_mr_tables *t)
{
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->wlen);
		free(t->uni);
		free(t->bloom);
		free(t->pred);
		free(t->succ);
		free(t->rev_off);
		free(t->rev_w1);
		free(t->rev_lp);
	}
	memset(t, 0, sizeof *t);
}
