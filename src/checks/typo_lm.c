/* typo_lm.c — reader of sunpinyin's threaded back-off trigram model and
 * of the word list of its pinyin lexicon (see typo_lm.h).
 *
 * lm_sc.t3g, little-endian 32-bit words:
 *   N, use_log, level sizes [N+1],
 *   probability table (65536 floats), back-off weight table (16384 floats),
 *   levels 0..N-1 of 12-byte nodes, then level N of 8-byte leaves.
 * A node holds a word id (18 bits), the index of its back-off weight (14),
 * of its probability (16), the index of its first child in the next level
 * (23 bits split in two), and a thread: the level and index of the node to
 * back off to.  A node's children run to the first child of the node after
 * it (every level ends with a sentinel).  Level 0 is the single root; a
 * word missing from the root's children gets the root's own probability.
 * A leaf holds a word id, a probability index and its thread.  With
 * use_log the tables hold -log p, else p.
 *
 * pydict_sc.bin: word count, node count, offset of the strings; from that
 * offset, the words in id order as NUL-terminated UCS-4 strings.  The trie
 * of pinyin before them is not needed here.
 *
 * Every offset read from either file is checked against the file's size
 * and the level it points into, so a truncated or corrupt file is an error
 * at open or, deep in the trie, an unseen word: never a read out of
 * bounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "jinghua.h"
#include "tablecache.h"
#include "typo_lm.h"
#include "util.h"

#define PR_SIZE 65536
#define BOW_SIZE 16384
#define MAX_N 4
#define LOG_FLOOR (-50.0)

typedef struct {
	uint64_t h;  /* 0 = empty */
	uint32_t id;
} word_slot;

struct jh_lm {
	const unsigned char *model, *lex;
	size_t model_size, lex_size;
	unsigned n;                      /* order */
	uint32_t level_size[MAX_N + 1];
	const unsigned char *level[MAX_N + 1];
	float log_pr[PR_SIZE], log_bow[BOW_SIZE];
	/* the lexicon: where each word's characters start (in 4-byte units
	 * from the start of lex) and its length */
	uint32_t n_words;
	uint32_t *word_off;
	uint8_t *word_len;
	word_slot *index;
	size_t index_cap;
	jh_lm_state start;
	float *uni;                      /* log P(word) by id */
	/* the root's child for each word id (-1: none), so that the most
	 * common lookup is not a binary search over every word; NULL when
	 * the model holds a word twice under the root */
	int32_t *root_child;
	uint32_t root_cap;
	/* the tables above from the cache folder (lm_cache_map), or NULL:
	 * word_off, word_len, index, uni and root_child point into it */
	void *cache;
	size_t cache_len;
};

static float rdf(const unsigned char *p)
{
	uint32_t u = jh_rd32(p);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* ---- nodes ---- */

typedef struct {
	uint32_t wid, bow, pr, ch, bon, bol;
} node;

static node get_node(const jh_lm *lm, unsigned lvl, uint32_t i)
{
	const unsigned char *p = lm->level[lvl] + (size_t)i * 12;
	uint32_t a = jh_rd32(p), b = jh_rd32(p + 4), c = jh_rd32(p + 8);
	node x = {a & 0x3FFFF, a >> 18, b & 0xFFFF, (c >> 25) << 16 | b >> 16, c & 0x7FFFFF,
	          c >> 23 & 3};
	return x;
}

static node get_leaf(const jh_lm *lm, uint32_t i)
{
	const unsigned char *p = lm->level[lm->n] + (size_t)i * 8;
	uint32_t a = jh_rd32(p), b = jh_rd32(p + 4);
	node x = {a & 0x3FFFF, 0, (b >> 25) << 14 | a >> 18, 0, b & 0x7FFFFF, b >> 23 & 3};
	return x;
}

static node get_any(const jh_lm *lm, unsigned lvl, uint32_t i)
{
	return lvl == lm->n ? get_leaf(lm, i) : get_node(lm, lvl, i);
}

/* Is (lvl, i) a node that may be read, sentinels excluded? */
static int valid(const jh_lm *lm, unsigned lvl, uint32_t i)
{
	return lvl <= lm->n && (uint64_t)i + 1 < lm->level_size[lvl];
}

static jh_lm_state pack(unsigned lvl, uint32_t i)
{
	return (jh_lm_state)lvl << 24 | (i & 0xFFFFFF);
}

static inline uint32_t child_of(const jh_lm *lm, unsigned lvl, uint32_t i);

/* The history a state leaves for the next word: a leaf or a node without
 * children stands for its thread. */
static jh_lm_state historify(const jh_lm *lm, unsigned lvl, uint32_t i)
{
	if (!valid(lm, lvl, i))
		return 0;
	if (lvl < lm->n && child_of(lm, lvl, i + 1) != child_of(lm, lvl, i))
		return pack(lvl, i);
	node x = get_any(lm, lvl, i);
	if (x.bol >= lvl || !valid(lm, x.bol, x.bon) || x.bol >= lm->n)
		return 0;
	return pack(x.bol, x.bol ? x.bon : 0);
}

/* The word id of entry m of level lvl (a node, or a leaf at the last
 * level), without decoding the rest. */
static inline uint32_t wid_at(const jh_lm *lm, unsigned lvl, uint32_t m)
{
	return jh_rd32(lm->level[lvl] + (size_t)m * (lvl == lm->n ? 8 : 12)) & 0x3FFFF;
}

/* The probability index of entry m of level lvl, as get_any(...).pr,
 * without decoding the rest (the table builds read millions). */
static inline uint32_t pr_at(const jh_lm *lm, unsigned lvl, uint32_t m)
{
	if (lvl == lm->n) {
		const unsigned char *p = lm->level[lvl] + (size_t)m * 8;
		return (jh_rd32(p + 4) >> 25) << 14 | jh_rd32(p) >> 18;
	}
	return jh_rd32(lm->level[lvl] + (size_t)m * 12 + 4) & 0xFFFF;
}

/* The first child of node (lvl, i), as get_node(...).ch. */
static inline uint32_t child_of(const jh_lm *lm, unsigned lvl, uint32_t i)
{
	const unsigned char *p = lm->level[lvl] + (size_t)i * 12;
	return (jh_rd32(p + 8) >> 25) << 16 | jh_rd32(p + 4) >> 16;
}

/* The child of node (lvl, i) for word wid, as its index in level lvl+1,
 * or -1. */
static long find_child(const jh_lm *lm, unsigned lvl, uint32_t i, uint32_t wid)
{
	if (lvl == 0 && lm->root_child)
		return wid < lm->root_cap ? lm->root_child[wid] : -1;
	uint32_t lo = child_of(lm, lvl, i), hi = child_of(lm, lvl, i + 1);
	if (lo > hi || hi > lm->level_size[lvl + 1])
		return -1;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		uint32_t w = wid_at(lm, lvl + 1, m);
		if (w < wid)
			lo = m + 1;
		else if (w > wid)
			hi = m;
		else
			return (long)m;
	}
	return -1;
}

double jh_lm_next(const jh_lm *lm, jh_lm_state state, uint32_t wid, jh_lm_state *next)
{
	unsigned lvl = state >> 24;
	uint32_t i = state & 0xFFFFFF;
	double cost = 0;
	if (lvl >= lm->n || !valid(lm, lvl, i))
		lvl = 0, i = 0;
	if (lvl == 0)
		i = 0;
	for (;;) {
		/* id 0 is the model's sentence boundary: never a word of text */
		long m = wid ? find_child(lm, lvl, i, wid) : -1;
		if (m >= 0) {
			*next = historify(lm, lvl + 1, (uint32_t)m);
			return cost + lm->log_pr[pr_at(lm, lvl + 1, (uint32_t)m)];
		}
		node x = get_node(lm, lvl, i); /* decoded only to back off */
		cost += lm->log_bow[x.bow];
		/* the thread goes down a level each time: the walk ends */
		if (lvl == 0 || x.bol >= lvl || (x.bol && !valid(lm, x.bol, x.bon)))
			break;
		lvl = x.bol;
		i = lvl ? x.bon : 0;
	}
	*next = 0;
	return cost + lm->log_pr[get_node(lm, 0, 0).pr];
}

double jh_lm_unigram(const jh_lm *lm, uint32_t wid)
{
	return wid < lm->n_words ? lm->uni[wid] : lm->uni[0];
}

jh_lm_state jh_lm_start(const jh_lm *lm)
{
	return lm->start;
}

size_t jh_lm_children(const jh_lm *lm, jh_lm_state state, size_t max, jh_lm_child_fn fn, void *arg)
{
	unsigned lvl = state >> 24;
	uint32_t i = lvl ? state & 0xFFFFFF : 0;
	if (lvl >= lm->n || !valid(lm, lvl, i))
		return 0;
	uint32_t lo = child_of(lm, lvl, i), hi = child_of(lm, lvl, i + 1);
	if (lo > hi || hi > lm->level_size[lvl + 1])
		return 0;
	if (max && hi - lo > max)
		hi = lo + (uint32_t)max;
	for (uint32_t m = lo; m < hi; m++)
		fn(arg, wid_at(lm, lvl + 1, m), lm->log_pr[pr_at(lm, lvl + 1, m)]);
	return hi - lo;
}

double jh_lm_seen(const jh_lm *lm, jh_lm_state state, uint32_t wid)
{
	unsigned lvl = state >> 24;
	uint32_t i = lvl ? state & 0xFFFFFF : 0;
	if (!lvl || lvl >= lm->n || !valid(lm, lvl, i) || !wid)
		return -INFINITY;
	long m = find_child(lm, lvl, i, wid);
	return m < 0 ? -INFINITY : lm->log_pr[pr_at(lm, lvl + 1, (uint32_t)m)];
}

size_t jh_lm_n_children(const jh_lm *lm, jh_lm_state state)
{
	unsigned lvl = state >> 24;
	uint32_t i = lvl ? state & 0xFFFFFF : 0;
	if (lvl >= lm->n || !valid(lm, lvl, i))
		return 0;
	uint32_t lo = child_of(lm, lvl, i), hi = child_of(lm, lvl, i + 1);
	return lo > hi || hi > lm->level_size[lvl + 1] ? 0 : hi - lo;
}

void jh_lm_each_bigram(const jh_lm *lm, jh_lm_bigram_fn fn, void *arg)
{
	if (lm->n < 2)
		return;
	uint32_t lo = child_of(lm, 0, 0), hi = child_of(lm, 0, 1);
	if (lo > hi || hi >= lm->level_size[1])
		return;
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t w1 = wid_at(lm, 1, i);
		uint32_t a = child_of(lm, 1, i), b = child_of(lm, 1, i + 1);
		if (a > b || b > lm->level_size[2])
			continue;
		for (uint32_t m = a; m < b; m++)
			fn(arg, w1, wid_at(lm, 2, m), lm->log_pr[pr_at(lm, 2, m)]);
	}
}

int jh_lm_word_len(const jh_lm *lm, uint32_t id)
{
	return id < lm->n_words ? lm->word_len[id] : 0;
}

/* ---- lexicon ---- */


static int same_word(const jh_lm *lm, uint32_t id, const int32_t *cp, int n)
{
	if (lm->word_len[id] != n)
		return 0;
	const unsigned char *p = lm->lex + (size_t)lm->word_off[id] * 4;
	for (int k = 0; k < n; k++)
		if ((int32_t)jh_rd32(p + 4 * k) != cp[k])
			return 0;
	return 1;
}

uint32_t jh_lm_word(const jh_lm *lm, const int32_t *cp, int n)
{
	if (n < 1 || n > JH_LM_MAX_WORD)
		return 0;
	return jh_lm_word_h(lm, cp, n, jh_hash_cps(cp, n));
}

uint32_t jh_lm_word_h(const jh_lm *lm, const int32_t *cp, int n, uint64_t h)
{
	if (n < 1 || n > JH_LM_MAX_WORD)
		return 0;
	for (size_t i = h & (lm->index_cap - 1);; i = (i + 1) & (lm->index_cap - 1)) {
		const word_slot *s = &lm->index[i];
		if (!s->h)
			return 0;
		if (s->h == h && same_word(lm, s->id, cp, n))
			return s->id;
	}
}

uint32_t jh_lm_count(const jh_lm *lm)
{
	return lm->n_words;
}

int jh_lm_word_text(const jh_lm *lm, uint32_t id, int32_t *cp, int max)
{
	if (id >= lm->n_words)
		return 0;
	int n = lm->word_len[id];
	const unsigned char *p = lm->lex + (size_t)lm->word_off[id] * 4;
	for (int k = 0; k < n && k < max; k++)
		cp[k] = (int32_t)jh_rd32(p + 4 * k);
	return n;
}

/* ---- opening ---- */

static int load_model(jh_lm *lm, const char *path, char *err, size_t len)
{
	int rc = jh_map_file(path, 8, &lm->model, &lm->model_size, err, len);
	if (rc)
		return rc;
	const unsigned char *m = lm->model;
	size_t size = lm->model_size;
	if ((lm->n = jh_rd32(m)) < 1 || lm->n > MAX_N)
		return jh_fail(err, len, JH_ERR_RULES, "%s: not a sunpinyin model (order)", path);
	uint64_t off = 8 + 4 * (uint64_t)(lm->n + 1);
	uint64_t tables = off, nodes = tables + 4 * (uint64_t)(PR_SIZE + BOW_SIZE);
	if (nodes > size)
		return jh_fail(err, len, JH_ERR_RULES, "%s: truncated", path);
	uint64_t end = nodes;
	for (unsigned l = 0; l <= lm->n; l++) {
		lm->level_size[l] = jh_rd32(m + 8 + 4 * l);
		/* a level ends with a sentinel; indexes are 23 bits */
		if (lm->level_size[l] < 2 || lm->level_size[l] > 0x7FFFFF)
			return jh_fail(err, len, JH_ERR_RULES, "%s: bad size of level %u", path, l);
		lm->level[l] = m + end;
		end += (uint64_t)lm->level_size[l] * (l == lm->n ? 8 : 12);
	}
	if (end > size)
		return jh_fail(err, len, JH_ERR_RULES, "%s: truncated (%zu of %llu bytes)", path, size,
		            (unsigned long long)end);
	if (lm->level_size[0] != 2)
		return jh_fail(err, len, JH_ERR_RULES, "%s: bad root", path);
	return JH_OK;
}

/* The probability and back-off tables of the model, as logarithms. */
static void model_tables(jh_lm *lm)
{
	const unsigned char *m = lm->model;
	unsigned use_log = jh_rd32(m + 4);
	uint64_t tables = 8 + 4 * (uint64_t)(lm->n + 1);
	for (size_t k = 0; k < PR_SIZE + BOW_SIZE; k++) {
		double v = rdf(m + tables + 4 * k);
		double lg = use_log ? -v : (v > 0 ? log(v) : LOG_FLOOR);
		/* back-off weights may exceed 1; probabilities may not */
		if (!isfinite(lg) || lg < LOG_FLOOR)
			lg = LOG_FLOOR;
		if (k < PR_SIZE)
			lm->log_pr[k] = (float)(lg > 0 ? 0 : lg);
		else
			lm->log_bow[k - PR_SIZE] = (float)(lg > 20 ? 20 : lg);
	}
}

static int load_lexicon(jh_lm *lm, const char *path, char *err, size_t len)
{
	int rc = jh_map_file(path, 12, &lm->lex, &lm->lex_size, err, len);
	if (rc)
		return rc;
	const unsigned char *x = lm->lex;
	size_t size = lm->lex_size;
	uint32_t count = jh_rd32(x), off = jh_rd32(x + 8);
	if (count == 0 || count > 0x3FFFF || off % 4 || off < 12 || off >= size)
		return jh_fail(err, len, JH_ERR_RULES, "%s: not a sunpinyin lexicon", path);
	lm->n_words = count;
	return JH_OK;
}

/* The lexicon's word list and its index by characters. */
static int index_lexicon(jh_lm *lm, const char *path, char *err, size_t len)
{
	const unsigned char *x = lm->lex;
	size_t size = lm->lex_size;
	uint32_t count = lm->n_words, off = jh_rd32(x + 8);
	lm->word_off = malloc((size_t)count * sizeof *lm->word_off);
	lm->word_len = malloc(count);
	lm->index_cap = 1;
	while (lm->index_cap < (size_t)count * 2)
		lm->index_cap <<= 1;
	lm->index = calloc(lm->index_cap, sizeof *lm->index);
	if (!lm->word_off || !lm->word_len || !lm->index)
		return jh_fail(err, len, JH_ERR_NOMEM, "out of memory");
	size_t at = off / 4, units = size / 4;
	for (uint32_t id = 0; id < count; id++) {
		size_t s = at;
		while (at < units && jh_rd32(x + 4 * at))
			at++;
		if (at >= units)
			return jh_fail(err, len, JH_ERR_RULES, "%s: truncated word list", path);
		size_t n = at - s;
		at++; /* the NUL */
		lm->word_off[id] = (uint32_t)s;
		lm->word_len[id] = n <= JH_LM_MAX_WORD ? (uint8_t)n : 0;
		if (!lm->word_len[id])
			continue;
		int32_t cp[JH_LM_MAX_WORD];
		for (size_t k = 0; k < n; k++)
			cp[k] = (int32_t)jh_rd32(x + 4 * (s + k));
		uint64_t h = jh_hash_cps(cp, (int)n);
		size_t i = h & (lm->index_cap - 1);
		while (lm->index[i].h && !(lm->index[i].h == h && same_word(lm, lm->index[i].id, cp, (int)n)))
			i = (i + 1) & (lm->index_cap - 1);
		if (!lm->index[i].h) { /* the first id of a word written twice */
			lm->index[i].h = h; /* field by field: the padding stays zero */
			lm->index[i].id = id;
		}
	}
	lm->n_words = count;
	return JH_OK;
}

void jh_lm_free(jh_lm *lm)
{
	if (!lm)
		return;
	jh_unmap_file(lm->model, lm->model_size);
	jh_unmap_file(lm->lex, lm->lex_size);
	if (lm->cache) {
		munmap(lm->cache, lm->cache_len);
	} else {
		free(lm->word_off);
		free(lm->word_len);
		free(lm->index);
		free(lm->uni);
		free(lm->root_child);
	}
	free(lm);
}

/* lm->root_child, from the root's children (sorted by word id); left NULL
 * if a word is there twice (the binary search would then pick one) or
 * for want of memory. */
static void index_root(jh_lm *lm)
{
	uint32_t lo = child_of(lm, 0, 0), hi = child_of(lm, 0, 1);
	if (lm->n < 1 || lo > hi || hi > lm->level_size[1])
		return;
	lm->root_cap = 0x40000; /* word ids have 18 bits */
	int32_t *rc = malloc(lm->root_cap * sizeof *rc);
	if (!rc)
		return;
	for (uint32_t w = 0; w < lm->root_cap; w++)
		rc[w] = -1;
	for (uint32_t m = lo; m < hi; m++) {
		uint32_t w = wid_at(lm, 1, m);
		if (rc[w] >= 0) {
			free(rc);
			return;
		}
		rc[w] = (int32_t)m;
	}
	lm->root_child = rc;
}

/* ---- the tables built at open, kept in the cache folder ----
 *
 * Opening the model took the logarithm of every entry of its tables,
 * indexed the lexicon's words, the root's children, and the unigram of
 * every word at every start: half of a check of a 10 KB chapter.  They
 * depend on the two files alone, so they
 * are written to the cache folder (tablecache.h) once and mapped after:
 * the model file names the cache file, the lexicon's identity is in it. */

#define LM_MAGIC "jhlm0001"
#define LM_LAYOUT ((uint32_t)(sizeof(word_slot) << 16 | sizeof(lm_cache_head) << 4 | PR_SIZE / 65536))

typedef struct {
	uint64_t lex_dev, lex_ino, lex_size, lex_mtime_sec, lex_mtime_nsec;
	uint32_t n_words, index_cap, root_cap, start;
} lm_cache_head;

typedef struct {
	size_t head, pr, bow, off, len, index, uni, root, end;
} lm_layout;

static void lm_layout_of(const lm_cache_head *h, lm_layout *l)
{
	size_t p = jh_cache_align(sizeof(jh_cache_head));
	l->head = p, p = jh_cache_align(p + sizeof *h);
	l->pr = p, p = jh_cache_align(p + PR_SIZE * sizeof(float));
	l->bow = p, p = jh_cache_align(p + BOW_SIZE * sizeof(float));
	l->off = p, p = jh_cache_align(p + (size_t)h->n_words * 4);
	l->len = p, p = jh_cache_align(p + h->n_words);
	l->index = p, p = jh_cache_align(p + (size_t)h->index_cap * sizeof(word_slot));
	l->uni = p, p = jh_cache_align(p + (size_t)h->n_words * sizeof(float));
	l->root = p, p = jh_cache_align(p + (size_t)h->root_cap * 4);
	l->end = p;
}

static int lex_stat(const char *path, lm_cache_head *h)
{
	struct stat st;
	if (stat(path, &st))
		return -1;
	h->lex_dev = (uint64_t)st.st_dev;
	h->lex_ino = (uint64_t)st.st_ino;
	h->lex_size = (uint64_t)st.st_size;
	h->lex_mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	h->lex_mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	return 0;
}

/* 0: lm's tables now point into the cache file; -1: none (or not for
 * these files), build them. */
static int lm_cache_map(jh_lm *lm, const char *cache_dir, const char *model_path,
                        const char *lexicon_path)
{
	void *map;
	size_t len;
	lm_cache_head now, h;
	if (lex_stat(lexicon_path, &now) ||
	    jh_cache_map(cache_dir, model_path, "lm", LM_MAGIC, LM_LAYOUT, &map, &len))
		return -1;
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	lm_layout l;
	if (len < at + sizeof h)
		goto stale;
	memcpy(&h, (const char *)map + at, sizeof h);
	lm_layout_of(&h, &l);
	if (h.lex_dev != now.lex_dev || h.lex_ino != now.lex_ino || h.lex_size != now.lex_size ||
	    h.lex_mtime_sec != now.lex_mtime_sec || h.lex_mtime_nsec != now.lex_mtime_nsec ||
	    h.n_words != lm->n_words || h.index_cap < 2 * (size_t)h.n_words ||
	    (h.index_cap & (h.index_cap - 1)) || (h.root_cap && h.root_cap != 0x40000) || l.end != len)
		goto stale;
	const char *b = map;
	memcpy(lm->log_pr, b + l.pr, sizeof lm->log_pr);
	memcpy(lm->log_bow, b + l.bow, sizeof lm->log_bow);
	lm->word_off = (uint32_t *)(b + l.off);
	lm->word_len = (uint8_t *)(b + l.len);
	lm->index = (word_slot *)(b + l.index);
	lm->index_cap = h.index_cap;
	lm->uni = (float *)(b + l.uni);
	lm->root_child = h.root_cap ? (int32_t *)(b + l.root) : NULL;
	lm->root_cap = h.root_cap;
	lm->start = h.start;
	lm->cache = map;
	lm->cache_len = len;
	return 0;
stale:
	munmap(map, len);
	return -1;
}

static void lm_cache_store(const jh_lm *lm, const char *cache_dir, const char *model_path,
                           const char *lexicon_path)
{
	lm_cache_head h;
	memset(&h, 0, sizeof h);
	if (lex_stat(lexicon_path, &h))
		return;
	h.n_words = lm->n_words;
	h.index_cap = (uint32_t)lm->index_cap;
	h.root_cap = lm->root_child ? lm->root_cap : 0;
	h.start = lm->start;
	const jh_cache_section s[] = {
		{&h, sizeof h},
		{lm->log_pr, sizeof lm->log_pr},
		{lm->log_bow, sizeof lm->log_bow},
		{lm->word_off, (size_t)lm->n_words * 4},
		{lm->word_len, lm->n_words},
		{lm->index, lm->index_cap * sizeof(word_slot)},
		{lm->uni, (size_t)lm->n_words * sizeof(float)},
		{lm->root_child, (size_t)h.root_cap * 4},
	};
	jh_cache_store(cache_dir, model_path, "lm", LM_MAGIC, LM_LAYOUT, s, sizeof s / sizeof *s);
}

int jh_lm_open(jh_lm **out, const char *model_path, const char *lexicon_path, char *err,
               size_t err_len)
{
	return jh_lm_open_cached(out, model_path, lexicon_path, NULL, err, err_len);
}

int jh_lm_open_cached(jh_lm **out, const char *model_path, const char *lexicon_path,
                      const char *cache_dir, char *err, size_t err_len)
{
	*out = NULL;
	jh_lm *lm = calloc(1, sizeof *lm);
	if (!lm)
		return jh_fail(err, err_len, JH_ERR_NOMEM, "out of memory");
	int rc = load_model(lm, model_path, err, err_len);
	if (rc == JH_OK)
		rc = load_lexicon(lm, lexicon_path, err, err_len);
	if (rc) {
		jh_lm_free(lm);
		return rc;
	}
	if (cache_dir && lm_cache_map(lm, cache_dir, model_path, lexicon_path) == 0) {
		*out = lm;
		return JH_OK;
	}
	model_tables(lm);
	if ((rc = index_lexicon(lm, lexicon_path, err, err_len))) {
		jh_lm_free(lm);
		return rc;
	}
	index_root(lm);
	long m = find_child(lm, 0, 0, 0);
	lm->start = m >= 0 ? historify(lm, 1, (uint32_t)m) : 0;
	/* unigrams of the whole lexicon (id 0: an unseen word) */
	lm->uni = malloc((size_t)lm->n_words * sizeof *lm->uni);
	if (!lm->uni) {
		jh_lm_free(lm);
		return jh_fail(err, err_len, JH_ERR_NOMEM, "out of memory");
	}
	for (uint32_t id = 0; id < lm->n_words; id++) {
		jh_lm_state st;
		lm->uni[id] = (float)jh_lm_next(lm, 0, id, &st);
	}
	if (cache_dir)
		lm_cache_store(lm, cache_dir, model_path, lexicon_path);
	*out = lm;
	return JH_OK;
}
