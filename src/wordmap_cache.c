/* wordmap_cache.c — the compiled form of a word model, kept in the user's
 * cache folder so that the next run maps it instead of building it.
 *
 * Building the 80,000-word model of mask suggestions (parse, hash, prefix
 * marks, indexes) costs about 65 M instructions, most of the start-up of a
 * hook run on a chapter with a mask; mapping the compiled form costs a
 * stat, an mmap and a check of its indexes, and only the pages a lookup
 * touches are read.  The form is this machine's: the arrays as they are in
 * memory, after a header that names the source file (device, inode, size,
 * modification time: a changed list is a different cache file) and the
 * layout.  A file that does not match, is cut short or holds an index out
 * of range is not used (the model is built again and the cache rewritten);
 * the slot table is checked as it is read (wm_slot).
 *
 * Where: $JINGHUA_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/jinghua,
 * else ~/.cache/jinghua.  A cache that cannot be written is no error. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"
#include "wordmap.h"

#define CACHE_MAGIC "JHWMAP\0\2"

typedef struct {
	char magic[8];
	uint32_t endian, layout;  /* 0x01020304; sizes of the element types */
	uint64_t src_dev, src_ino, src_size, src_mtime_sec, src_mtime_nsec;
	uint64_t n, n_all, nslot, n_runs, buf_len;
} cache_head;

static uint32_t layout_code(void)
{
	return (uint32_t)(sizeof(struct jh_wm_run) << 16 | sizeof(size_t) << 8 | sizeof(uint64_t));
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* Byte offsets of the sections after the header, and the file's size. */
typedef struct {
	size_t slot, off, freq, by_prefix, by_suffix, runs, len, buf, total;
} cache_layout;

static int layout_of(const cache_head *h, cache_layout *l)
{
	if (h->n > h->n_all || h->n_all > UINT32_MAX || h->nslot > ((uint64_t)1 << 32) ||
	    h->n_runs > h->n || h->buf_len > ((uint64_t)1 << 40) || !h->nslot ||
	    (h->nslot & (h->nslot - 1)) || h->nslot <= h->n_all || !h->buf_len)
		return -1;
	size_t p = align8(sizeof *h);
	l->slot = p, p = align8(p + h->nslot * 8);
	l->off = p, p = align8(p + h->n_all * 4);
	l->freq = p, p = align8(p + h->n_all * 4);
	l->by_prefix = p, p = align8(p + h->n * 4);
	l->by_suffix = p, p = align8(p + h->n * 4);
	l->runs = p, p = align8(p + h->n_runs * sizeof(struct jh_wm_run));
	l->len = p, p = align8(p + h->n_all);
	l->buf = p, p += h->buf_len;
	l->total = p;
	return 0;
}

static char *cache_dir(void)
{
	const char *d = getenv("JINGHUA_CACHE_DIR"), *base;
	jh_buf b = {0};
	int bad;
	if (d)
		bad = !*d || jh_buf_puts(&b, d);
	else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
		bad = jh_buf_puts(&b, base) || jh_buf_puts(&b, "/jinghua");
	else if ((base = getenv("HOME")) && *base == '/')
		bad = jh_buf_puts(&b, base) || jh_buf_puts(&b, "/.cache/jinghua");
	else
		bad = 1;
	if (bad) {
		jh_buf_free(&b);
		return NULL;
	}
	return b.data;
}

int jh_wm_cache_enabled(void)
{
	char *d = cache_dir();
	free(d);
	return d != NULL;
}

/* The cache file for the source as it is now (NULL: no cache). */
static char *cache_path(const char *src, const struct stat *st)
{
	char *dir = cache_dir();
	if (!dir)
		return NULL;
	jh_buf key = {0}, path = {0};
	char num[200];
	snprintf(num, sizeof num, "%llu %llu %llu %lld %ld %u", (unsigned long long)st->st_dev,
	         (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
	         (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, layout_code());
	int bad = jh_buf_puts(&key, src) || jh_buf_putc(&key, '\n') || jh_buf_puts(&key, num);
	if (!bad) {
		snprintf(num, sizeof num, "/words-%016llx.bin",
		         (unsigned long long)jh_hash(key.data, key.len));
		bad = jh_buf_puts(&path, dir) || jh_buf_puts(&path, num);
	}
	jh_buf_free(&key);
	free(dir);
	if (bad) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

static void head_of(cache_head *h, const jh_wordmap *m, const struct stat *st)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, CACHE_MAGIC, 8);
	h->endian = 0x01020304;
	h->layout = layout_code();
	h->src_dev = (uint64_t)st->st_dev;
	h->src_ino = (uint64_t)st->st_ino;
	h->src_size = (uint64_t)st->st_size;
	h->src_mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	h->src_mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
	if (m) {
		h->n = m->n;
		h->n_all = m->n_all;
		h->nslot = m->nslot;
		h->n_runs = m->n_runs;
		h->buf_len = m->buf_len;
	}
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

int jh_wm_cache_map(jh_wordmap *m, const char *src)
{
	struct stat st;
	if (stat(src, &st) != 0)
		return -1;
	char *path = cache_path(src, &st);
	if (!path)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	struct stat cs;
	void *map = MAP_FAILED;
	if (fstat(fd, &cs) == 0 && cs.st_size >= (off_t)sizeof(cache_head))
		map = mmap(NULL, (size_t)cs.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	const cache_head *h = map;
	cache_head want;
	head_of(&want, NULL, &st);
	cache_layout l;
	if (memcmp(h, &want, offsetof(cache_head, n)) != 0 || layout_of(h, &l) ||
	    l.total != (size_t)cs.st_size) {
		munmap(map, (size_t)cs.st_size);
		return -1;
	}
	char *base = map;
	jh_wordmap w = {0};
	w.n = h->n, w.n_all = h->n_all, w.nslot = h->nslot, w.n_runs = h->n_runs;
	w.buf_len = h->buf_len;
	w.slot = (uint64_t *)(base + l.slot);
	w.off = (uint32_t *)(base + l.off);
	w.freq = (uint32_t *)(base + l.freq);
	w.by_prefix = (uint32_t *)(base + l.by_prefix);
	w.by_suffix = (uint32_t *)(base + l.by_suffix);
	w.sfx_run = (struct jh_wm_run *)(base + l.runs);
	w.len = (uint8_t *)(base + l.len);
	w.buf = base + l.buf;
	w.map = map;
	w.map_len = (size_t)cs.st_size;
	if (!indexes_ok(&w)) {
		munmap(map, (size_t)cs.st_size);
		return -1;
	}
	pthread_mutex_init(&w.sfx_lock, NULL); /* never taken: every run is sorted */
	*m = w;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_section(int fd, size_t *at, size_t want, const void *p, size_t n)
{
	static const char zeros[8];
	if (want < *at || want - *at > 8 || write_all(fd, zeros, want - *at) || write_all(fd, p, n))
		return -1;
	*at = want + n;
	return 0;
}

static int mkdirs(char *dir)
{
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			int bad = mkdir(dir, 0700) != 0 && errno != EEXIST;
			*p = '/';
			if (bad)
				return -1;
		}
	return mkdir(dir, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

void jh_wm_cache_store(const jh_wordmap *m, const char *src)
{
	struct stat st;
	if (m->map || stat(src, &st) != 0)
		return;
	for (size_t r = 0; r < m->n_runs; r++)
		if (!m->sfx_run[r].sorted)
			return; /* the mapped form is read-only: every run must be sorted */
	char *path = cache_path(src, &st), *dir = cache_dir();
	jh_buf tmp = {0};
	if (!path || !dir || mkdirs(dir) || jh_buf_puts(&tmp, path) ||
	    jh_buf_puts(&tmp, ".XXXXXX")) {
		free(path);
		free(dir);
		jh_buf_free(&tmp);
		return;
	}
	free(dir);
	int fd = mkstemp(tmp.data);
	if (fd >= 0) {
		cache_head h;
		head_of(&h, m, &st);
		cache_layout l;
		size_t at = 0;
		int bad = layout_of(&h, &l) || write_section(fd, &at, 0, &h, sizeof h) ||
		          write_section(fd, &at, l.slot, m->slot, m->nslot * 8) ||
		          write_section(fd, &at, l.off, m->off, m->n_all * 4) ||
		          write_section(fd, &at, l.freq, m->freq, m->n_all * 4) ||
		          write_section(fd, &at, l.by_prefix, m->by_prefix, m->n * 4) ||
		          write_section(fd, &at, l.by_suffix, m->by_suffix, m->n * 4) ||
		          write_section(fd, &at, l.runs, m->sfx_run, m->n_runs * sizeof *m->sfx_run) ||
		          write_section(fd, &at, l.len, m->len, m->n_all) ||
		          write_section(fd, &at, l.buf, m->buf, m->buf_len);
		/* a reader maps it only once it is whole: written, then renamed */
		bad = close(fd) != 0 || bad;
		if (bad || rename(tmp.data, path) != 0)
			unlink(tmp.data);
	}
	jh_buf_free(&tmp);
	free(path);
}
