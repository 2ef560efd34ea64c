/* tablecache.c — the cache folder of compiled tables: where it is, the
 * file for a source table, mapping one, writing one.
 *
 * A compiled form is this machine's: the arrays as they are in memory,
 * after a head that names the source file (device, inode, size,
 * modification time: a changed table is a different cache file) and the
 * layout.  The form's own module (wordmap_cache.c, the phrase table in
 * check_script.c) checks what follows the head before it trusts it, and
 * builds the table again when a file does not match, is cut short or holds
 * an index out of range.
 *
 * Where: the rule set's cache folder (jh_ruleset_set_cache_dir; the command
 * line's default is $JINGHUA_CACHE_DIR, else $XDG_CACHE_HOME/jinghua, else
 * ~/.cache/jinghua), none when it has none.  A cache that cannot be written
 * is no error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tablecache.h"
#include "util.h"

/* The cache file of kind for the source as it is now (NULL: no cache). */
static char *cache_path(const char *dir, const char *src, const struct stat *st, const char *kind,
                        uint32_t layout)
{
	if (!dir)
		return NULL;
	jh_buf key = {0}, path = {0};
	char num[200];
	snprintf(num, sizeof num, "%llu %llu %llu %lld %ld %u", (unsigned long long)st->st_dev,
	         (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
	         (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, layout);
	int bad = jh_buf_puts(&key, src) || jh_buf_putc(&key, '\n') || jh_buf_puts(&key, num);
	if (!bad) {
		snprintf(num, sizeof num, "/%s-%016llx.bin", kind,
		         (unsigned long long)jh_hash(key.data, key.len));
		bad = jh_buf_puts(&path, dir) || jh_buf_puts(&path, num);
	}
	jh_buf_free(&key);
	if (bad) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

static void head_of(jh_cache_head *h, const char magic[8], uint32_t layout, const struct stat *st)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, magic, 8);
	h->endian = 0x01020304;
	h->layout = layout;
	h->src_dev = (uint64_t)st->st_dev;
	h->src_ino = (uint64_t)st->st_ino;
	h->src_size = (uint64_t)st->st_size;
	h->src_mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	h->src_mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
}

/* Map the cache file at path (freed) when its head is want. */
static int map_path(char *path, const jh_cache_head *want, void **map, size_t *len)
{
	if (!path)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	struct stat cs;
	void *m = MAP_FAILED;
	if (fstat(fd, &cs) == 0 && cs.st_size >= (off_t)sizeof(jh_cache_head))
		m = mmap(NULL, (size_t)cs.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	if (memcmp(m, want, sizeof *want) != 0) {
		munmap(m, (size_t)cs.st_size);
		return -1;
	}
	*map = m;
	*len = (size_t)cs.st_size;
	return 0;
}

int jh_cache_map(const char *dir, const char *src, const char *kind, const char magic[8], uint32_t layout,
                 void **map, size_t *len)
{
	struct stat st;
	if (stat(src, &st) != 0)
		return -1;
	jh_cache_head want;
	head_of(&want, magic, layout, &st);
	return map_path(cache_path(dir, src, &st, kind, layout), &want, map, len);
}

static char *keyed_path(const char *dir, const char *kind, uint64_t key)
{
	if (!dir)
		return NULL;
	jh_buf path = {0};
	char name[200];
	snprintf(name, sizeof name, "/%s-%016llx.bin", kind, (unsigned long long)key);
	if (jh_buf_puts(&path, dir) || jh_buf_puts(&path, name)) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

static void keyed_head(jh_cache_head *h, const char magic[8], uint32_t layout, uint64_t key)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, magic, 8);
	h->endian = 0x01020304;
	h->layout = layout;
	h->src_dev = key;
}

int jh_cache_map_keyed(const char *dir, const char *kind, uint64_t key, const char magic[8], uint32_t layout,
                       void **map, size_t *len)
{
	jh_cache_head want;
	keyed_head(&want, magic, layout, key);
	return map_path(keyed_path(dir, kind, key), &want, map, len);
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

/* Write head and sections to path (freed) through a temporary file. */
static void store_path(char *path, const char *cache_dir, const jh_cache_head *h,
                       const jh_cache_section *sections, size_t n)
{
	char *dir = jh_strdup(cache_dir ? cache_dir : "");
	jh_buf tmp = {0};
	if (!path || !dir || !*dir || mkdirs(dir) || jh_buf_puts(&tmp, path) || jh_buf_puts(&tmp, ".XXXXXX")) {
		free(path);
		free(dir);
		jh_buf_free(&tmp);
		return;
	}
	free(dir);
	int fd = mkstemp(tmp.data);
	if (fd >= 0) {
		size_t at = 0;
		int bad = write_section(fd, &at, 0, h, sizeof *h);
		for (size_t i = 0; i < n && !bad; i++)
			bad = write_section(fd, &at, jh_cache_align(at), sections[i].data, sections[i].len);
		/* a reader maps it only once it is whole: written, then renamed */
		bad = close(fd) != 0 || bad;
		if (bad || rename(tmp.data, path) != 0)
			unlink(tmp.data);
	}
	jh_buf_free(&tmp);
	free(path);
}

void jh_cache_store(const char *cache_dir, const char *src, const char *kind, const char magic[8], uint32_t layout,
                    const jh_cache_section *sections, size_t n)
{
	struct stat st;
	if (stat(src, &st) != 0)
		return;
	jh_cache_head h;
	head_of(&h, magic, layout, &st);
	store_path(cache_path(cache_dir, src, &st, kind, layout), cache_dir, &h, sections, n);
}

void jh_cache_store_keyed(const char *cache_dir, const char *kind, uint64_t key, const char magic[8],
                          uint32_t layout, const jh_cache_section *sections, size_t n)
{
	jh_cache_head h;
	keyed_head(&h, magic, layout, key);
	store_path(keyed_path(cache_dir, kind, key), cache_dir, &h, sections, n);
}

/* kind-<hash of name>-<ident>.bin: one name per source, the source's state
 * in the suffix (and in the head, src_dev; src_ino holds the name's hash). */
static char *named_path(const char *dir, const char *kind, const char *name, uint64_t ident,
                        uint64_t *name_hash)
{
	if (!dir)
		return NULL;
	*name_hash = jh_hash(name, strlen(name));
	jh_buf path = {0};
	char tail[240];
	snprintf(tail, sizeof tail, "/%s-%016llx-%016llx.bin", kind, (unsigned long long)*name_hash,
	         (unsigned long long)ident);
	if (jh_buf_puts(&path, dir) || jh_buf_puts(&path, tail)) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

int jh_cache_map_named(const char *dir, const char *kind, const char *name, uint64_t ident,
                       const char magic[8], uint32_t layout, void **map, size_t *len)
{
	uint64_t nh = 0;
	char *path = named_path(dir, kind, name, ident, &nh);
	jh_cache_head want;
	keyed_head(&want, magic, layout, ident);
	want.src_ino = nh;
	return map_path(path, &want, map, len);
}

void jh_cache_store_named(const char *cache_dir, const char *kind, const char *name, uint64_t ident,
                          const char magic[8], uint32_t layout, const jh_cache_section *sections,
                          size_t n)
{
	uint64_t nh = 0;
	char *path = named_path(cache_dir, kind, name, ident, &nh);
	jh_cache_head h;
	keyed_head(&h, magic, layout, ident);
	h.src_ino = nh;
	store_path(path, cache_dir, &h, sections, n);
}
