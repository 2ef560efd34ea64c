/* wordmap_cache.c — the compiled form of a word model in the cache folder
 * (tablecache.c), so that the next run maps it instead of building it.
 *
 * Building the 80,000-word model of mask suggestions (parse, hash, prefix
 * marks, indexes) costs about 65 M instructions, most of the start-up of a
 * hook run on a chapter with a mask; mapping the compiled form costs a
 * stat, an mmap and a check of its indexes, and only the pages a lookup
 * touches are read.  After the head: the counts, then the arrays as they
 * are in memory.  A file that does not match, is cut short or holds an
 * index out of range is not used (the model is built again and the cache
 * rewritten); the slot table is checked as it is read (wm_slot). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "tablecache.h"
#include "util.h"
#include "wordmap.h"

#define CACHE_MAGIC "JHWMAP\0\3"

typedef struct {
	uint64_t n, n_all, nslot, n_runs, buf_len;
} wm_counts;

static uint32_t layout_code(void)
{
	return (uint32_t)(sizeof(struct jh_wm_run) << 16 | sizeof(size_t) << 8 | sizeof(uint64_t));
}

/* Byte offsets of the sections, as jh_cache_store lays them out, and the
 * file's size. */
typedef struct {
	size_t counts, slot, off, freq, by_prefix, by_suffix, runs, len, buf, total;
} cache_layout;

static int layout_of(const wm_counts *h, cache_layout *l)
{
	if (h->n > h->n_all || h->n_all > UINT32_MAX || h->nslot > ((uint64_t)1 << 32) ||
	    h->n_runs > h->n || h->buf_len > ((uint64_t)1 << 40) || !h->nslot ||
	    (h->nslot & (h->nslot - 1)) || h->nslot <= h->n_all || !h->buf_len)
		return -1;
	size_t p = jh_cache_align(sizeof(jh_cache_head));
	l->counts = p, p = jh_cache_align(p + sizeof *h);
	l->slot = p, p = jh_cache_align(p + h->nslot * 8);
	l->off = p, p = jh_cache_align(p + h->n_all * 4);
	l->freq = p, p = jh_cache_align(p + h->n_all * 4);
	l->by_prefix = p, p = jh_cache_align(p + h->n * 4);
	l->by_suffix = p, p = jh_cache_align(p + h->n * 4);
	l->runs = p, p = jh_cache_align(p + h->n_runs * sizeof(struct jh_wm_run));
	l->len = p, p = jh_cache_align(p + h->n_all);
	l->buf = p, p += h->buf_len;
	l->total = p;
	return 0;
}

/* Every index of the mapped arrays in range: the entries inside the text,
 * the sorted indexes pointing at words, the runs sorted and in order. */
static int indexes_ok(const jh_wordmap *m)
{
	if (m->buf[m->buf_len - 1] != '\0')
		return 0;
	for (size_t i = 0; i < m->n_all; i++)
		if ((size_t)m->off[i] + m->len[i] >= m->buf_len)
			return 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->by_prefix[i] >= m->n || m->by_suffix[i] >= m->n)
			return 0;
	for (size_t r = 0; r < m->n_runs; r++) {
		const struct jh_wm_run *x = &m->sfx_run[r];
		if (!x->sorted || (size_t)x->start + x->n > m->n || (r && x->cp <= m->sfx_run[r - 1].cp))
			return 0;
	}
	return 1;
}

int jh_wm_cache_map(jh_wordmap *m, const char *cache_dir, const char *src)
{
	void *map;
	size_t map_len;
	if (jh_cache_map(cache_dir, src, "words", CACHE_MAGIC, layout_code(), &map, &map_len) != 0)
		return -1;
	char *base = map;
	wm_counts h;
	cache_layout l;
	if (map_len < jh_cache_align(sizeof(jh_cache_head)) + sizeof h) {
		munmap(map, map_len);
		return -1;
	}
	memcpy(&h, base + jh_cache_align(sizeof(jh_cache_head)), sizeof h);
	if (layout_of(&h, &l) || l.total != map_len) {
		munmap(map, map_len);
		return -1;
	}
	jh_wordmap w = {0};
	w.n = h.n, w.n_all = h.n_all, w.nslot = h.nslot, w.n_runs = h.n_runs;
	w.buf_len = h.buf_len;
	w.slot = (uint64_t *)(base + l.slot);
	w.off = (uint32_t *)(base + l.off);
	w.freq = (uint32_t *)(base + l.freq);
	w.by_prefix = (uint32_t *)(base + l.by_prefix);
	w.by_suffix = (uint32_t *)(base + l.by_suffix);
	w.sfx_run = (struct jh_wm_run *)(base + l.runs);
	w.len = (uint8_t *)(base + l.len);
	w.buf = base + l.buf;
	w.map = map;
	w.map_len = map_len;
	if (!indexes_ok(&w)) {
		munmap(map, map_len);
		return -1;
	}
	pthread_mutex_init(&w.sfx_lock, NULL); /* never taken: every run is sorted */
	*m = w;
	return 0;
}

void jh_wm_cache_store(const jh_wordmap *m, const char *cache_dir, const char *src)
{
	if (m->map)
		return;
	for (size_t r = 0; r < m->n_runs; r++)
		if (!m->sfx_run[r].sorted)
			return; /* the mapped form is read-only: every run must be sorted */
	wm_counts h = {m->n, m->n_all, m->nslot, m->n_runs, m->buf_len};
	cache_layout l;
	if (layout_of(&h, &l))
		return;
	const jh_cache_section s[] = {
		{&h, sizeof h},
		{m->slot, m->nslot * 8},
		{m->off, m->n_all * 4},
		{m->freq, m->n_all * 4},
		{m->by_prefix, m->n * 4},
		{m->by_suffix, m->n * 4},
		{m->sfx_run, m->n_runs * sizeof *m->sfx_run},
		{m->len, m->n_all},
		{m->buf, m->buf_len},
	};
	jh_cache_store(cache_dir, src, "words", CACHE_MAGIC, layout_code(), s, sizeof s / sizeof *s);
}
