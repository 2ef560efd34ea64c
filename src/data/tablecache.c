/* tablecache.c — the cache folder of compiled tables: where it is, the
 * file for a source table, mapping one, writing one, and keeping the
 * folder's size bounded.
 *
 * A compiled form is this machine's: the arrays as they are in memory,
 * after a head that names the source and the layout.  The form's own
 * module (wordmap_cache.c, the phrase table in check_script.c, ...) checks
 * what follows the head before it trusts it, and builds the table again
 * when a file does not match, is cut short or holds an index out of range.
 *
 * Names: KIND-<hash of the source's name>-<hash of its state>.bin.  The
 * first hash is the same for every state of one source (a data file's
 * path, a rules folder's), so a store finds the files of its source's
 * earlier states, its stale siblings, and removes them; the second
 * (device, inode, size and modification time of a file, or a hash of what
 * a form was compiled from) changes with every edit.  Before this, every
 * changed or copied source left its old file behind: a day of test runs
 * made a folder of 291 MB in 92 files.
 *
 * The folder's size is capped (jh_set_cache_limit; 256 MB by default):
 * after a store, the oldest files go until the rest fit.  Age is the
 * modification time, which a map refreshes (at most once an hour), so the
 * files in use stay.  Several processes may store at once: a file is
 * written under a temporary name and renamed (a reader maps only a whole
 * one), and a file modified in the last GRACE seconds is never removed, so
 * a process with an older view of a source does not remove what another
 * just wrote for the current one; only names of this form are touched.
 *
 * Where: the rule set's cache folder (jh_ruleset_set_cache_dir; the command
 * line's default is $JINGHUA_CACHE_DIR, else $XDG_CACHE_HOME/jinghua, else
 * ~/.cache/jinghua), none when it has none.  A cache that cannot be written
 * is no error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "jinghua.h"
#include "tablecache.h"
#include "util.h"

enum { GRACE = 10, REFRESH = 3600, TEMP_AGE = 3600 };

static uint64_t cache_limit = 256ull << 20; /* read and written with atomics */

int jh_set_cache_limit(unsigned long long bytes)
{
	__atomic_store_n(&cache_limit, (uint64_t)bytes, __ATOMIC_RELAXED);
	return JH_OK;
}

/* dir/KIND-<name_hash>-<ident>.bin (NULL: no cache, or no memory). */
static char *file_path(const char *dir, const char *kind, uint64_t name_hash, uint64_t ident)
{
	if (!dir)
		return NULL;
	jh_buf path = {0};
	char tail[240];
	snprintf(tail, sizeof tail, "/%s-%016llx-%016llx.bin", kind, (unsigned long long)name_hash,
	         (unsigned long long)ident);
	if (jh_buf_puts(&path, dir) || jh_buf_puts(&path, tail)) {
		jh_buf_free(&path);
		return NULL;
	}
	return path.data;
}

/* The state of a source file as it is now, and the layout of its form. */
static uint64_t stat_ident(const struct stat *st, uint32_t layout)
{
	uint64_t v[6] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
	                 (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec, layout};
	return jh_hash((const char *)v, sizeof v);
}

/* The cache file of kind for the source as it is now (NULL: no cache). */
static char *cache_path(const char *dir, const char *src, const struct stat *st, const char *kind,
                        uint32_t layout, uint64_t *name_hash)
{
	*name_hash = jh_hash(src, strlen(src));
	return file_path(dir, kind, *name_hash, stat_ident(st, layout));
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
	if (m != MAP_FAILED && memcmp(m, want, sizeof *want) != 0) {
		munmap(m, (size_t)cs.st_size);
		m = MAP_FAILED;
	}
	/* in use: the cap removes the files used longest ago first (a failure
	 * here, a read-only folder, only makes it look older) */
	if (m != MAP_FAILED && time(NULL) - cs.st_mtim.tv_sec > REFRESH)
		(void)futimens(fd, NULL);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
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
	uint64_t nh;
	return map_path(cache_path(dir, src, &st, kind, layout, &nh), &want, map, len);
}

static void keyed_head(jh_cache_head *h, const char magic[8], uint32_t layout, uint64_t key)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, magic, 8);
	h->endian = 0x01020304;
	h->layout = layout;
	h->src_dev = key;
}

int jh_cache_map_keyed(const char *dir, const char *kind, uint64_t name, uint64_t key, const char magic[8],
                       uint32_t layout, void **map, size_t *len)
{
	jh_cache_head want;
	keyed_head(&want, magic, layout, key);
	want.src_ino = name;
	return map_path(file_path(dir, kind, name, key), &want, map, len);
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

enum { NOT_OURS, CACHE_FILE, TEMP_FILE, OLD_NAME };

/* Is name a cache file (KIND-<16 hex>-<16 hex>.bin), one's temporary file
 * (the same and six more characters), or a file of the naming before
 * (KIND-<16 hex>.bin, never read again)?  Any other file is never touched. */
static int cache_name(const char *name)
{
	const char *p = name;
	while (*p >= 'a' && *p <= 'z')
		p++;
	if (p == name || *p != '-')
		return NOT_OURS;
	int parts = 0;
	for (; parts < 2 && *p == '-'; parts++) {
		p++;
		for (int i = 0; i < 16; i++, p++)
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
				return NOT_OURS;
	}
	if (strncmp(p, ".bin", 4) != 0)
		return NOT_OURS;
	if (!p[4])
		return parts == 2 ? CACHE_FILE : OLD_NAME;
	return parts == 2 && p[4] == '.' && strlen(p + 5) == 6 ? TEMP_FILE : NOT_OURS;
}

typedef struct {
	char *name;
	off_t size;
	time_t mtime;
} cache_file;

static int older_first(const void *a, const void *b)
{
	const cache_file *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* After a store of the file named mine: remove its stale siblings (the
 * same source's files named by another state), temporary files left by a
 * process that died, then the oldest files while the folder holds more
 * than the cap.  A file modified in the last GRACE seconds stays. */
static void prune(const char *dir, const char *mine, size_t sibling_prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	uint64_t limit = __atomic_load_n(&cache_limit, __ATOMIC_RELAXED), total = 0;
	cache_file *v = NULL;
	size_t n = 0, cap = 0;
	int listed = 1;
	struct dirent *e;
	while ((e = readdir(d))) {
		int what = cache_name(e->d_name);
		struct stat st;
		if (what == NOT_OURS || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		int young = now - st.st_mtim.tv_sec <= GRACE, is_mine = !strcmp(e->d_name, mine);
		int stale = what == TEMP_FILE  ? now - st.st_mtim.tv_sec > TEMP_AGE
		            : what == OLD_NAME ? 1
		                               : !is_mine && !strncmp(e->d_name, mine, sibling_prefix);
		if (stale && !young && unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		total += (uint64_t)st.st_size;
		if (is_mine || young || !listed)
			continue; /* counted, never removed for the cap */
		char *name = jh_strdup(e->d_name);
		if (!name || jh_grow((void **)&v, &cap, n + 1, sizeof *v)) {
			free(name);
			listed = 0; /* no memory to list: no files removed for the cap */
			continue;
		}
		v[n++] = (cache_file){name, st.st_size, st.st_mtim.tv_sec};
	}
	if (listed && limit && total > limit) {
		if (n > 1)
			qsort(v, n, sizeof *v, older_first);
		for (size_t i = 0; i < n && total > limit; i++)
			if (unlinkat(dirfd(d), v[i].name, 0) == 0)
				total -= (uint64_t)v[i].size;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
}

/* Write head and sections to path (freed) through a temporary file, then
 * prune the folder. */
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
	int fd = mkstemp(tmp.data);
	int stored = 0;
	if (fd >= 0) {
		size_t at = 0;
		int bad = write_section(fd, &at, 0, h, sizeof *h);
		for (size_t i = 0; i < n && !bad; i++)
			bad = write_section(fd, &at, jh_cache_align(at), sections[i].data, sections[i].len);
		/* a reader maps it only once it is whole: written, then renamed */
		bad = close(fd) != 0 || bad;
		if (bad || rename(tmp.data, path) != 0)
			unlink(tmp.data);
		else
			stored = 1;
	}
	if (stored) {
		const char *name = strrchr(path, '/') + 1;
		/* siblings: the same KIND-<name hash>- */
		prune(dir, name, (size_t)(strchr(name, '-') - name) + 18);
	}
	free(dir);
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
	uint64_t nh;
	store_path(cache_path(cache_dir, src, &st, kind, layout, &nh), cache_dir, &h, sections, n);
}

void jh_cache_store_keyed(const char *cache_dir, const char *kind, uint64_t name, uint64_t key,
                          const char magic[8], uint32_t layout, const jh_cache_section *sections, size_t n)
{
	jh_cache_head h;
	keyed_head(&h, magic, layout, key);
	h.src_ino = name;
	store_path(file_path(cache_dir, kind, name, key), cache_dir, &h, sections, n);
}

int jh_cache_map_named(const char *dir, const char *kind, const char *name, uint64_t ident,
                       const char magic[8], uint32_t layout, void **map, size_t *len)
{
	return jh_cache_map_keyed(dir, kind, jh_hash(name, strlen(name)), ident, magic, layout, map, len);
}

void jh_cache_store_named(const char *cache_dir, const char *kind, const char *name, uint64_t ident,
                          const char magic[8], uint32_t layout, const jh_cache_section *sections,
                          size_t n)
{
	jh_cache_store_keyed(cache_dir, kind, jh_hash(name, strlen(name)), ident, magic, layout, sections, n);
}
