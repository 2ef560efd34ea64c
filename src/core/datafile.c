/* datafile.c — whole files read into memory, and data files (TSV word
 * lists and tables) handed out line by line. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "buf.h"
#include "datafile.h"
#include "jinghua.h"

/* A regular file is read into a buffer of its size with one read: reading
 * in chunks into a growing buffer copied the start-up's 900 KB of tables
 * several times over (a third of its page faults).  A file that grows
 * while read, or is no regular file, is read on in chunks. */
char *jh_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	jh_buf b = {0};
	int err = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size < SIZE_MAX / 2 && jh_buf_reserve(&b, (size_t)st.st_size + 1))
		err = ENOMEM;
	while (!err) {
		if ((!b.cap || b.cap - b.len <= 1) && jh_buf_reserve(&b, 65536)) {
			err = ENOMEM;
			break;
		}
		ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = EIO;
		if (n <= 0)
			break;
		b.len += (size_t)n;
	}
	close(fd);
	if (err || jh_buf_terminate(&b)) {
		jh_buf_free(&b);
		errno = err ? err : ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.data;
}

int jh_tsv_open(jh_tsv *t, const char *path)
{
	memset(t, 0, sizeof *t);
	if (!(t->data = jh_read_file(path, &t->len)))
		return errno == ENOMEM ? JH_ERR_NOMEM : JH_ERR_RULES;
	if (t->len >= 3 && memcmp(t->data, "\xEF\xBB\xBF", 3) == 0)
		t->pos = 3;
	return JH_OK;
}

int jh_tsv_next(jh_tsv *t, char **fields, size_t *lens, int max)
{
	while (t->data && t->pos < t->len) {
		char *ln = t->data + t->pos;
		char *nl = memchr(ln, '\n', t->len - t->pos);
		size_t n = nl ? (size_t)(nl - ln) : t->len - t->pos;
		t->pos += n + (nl != NULL);
		t->line++;
		if (n && ln[n - 1] == '\r')
			n--;
		ln[n] = '\0';
		if (!n || ln[0] == '#')
			continue;
		int k = 0;
		for (char *p = ln; k < max; k++) {
			char *tab = k + 1 < max ? memchr(p, '\t', (size_t)(ln + n - p)) : NULL;
			fields[k] = p;
			lens[k] = tab ? (size_t)(tab - p) : (size_t)(ln + n - p);
			if (!tab) {
				k++;
				break;
			}
			*tab = '\0';
			p = tab + 1;
		}
		return k;
	}
	return 0;
}

char *jh_tsv_take(jh_tsv *t)
{
	char *d = t->data;
	free(t->path);
	memset(t, 0, sizeof *t);
	return d;
}

void jh_tsv_close(jh_tsv *t)
{
	free(t->data);
	free(t->path);
	memset(t, 0, sizeof *t);
}

int jh_fail(char *err, size_t err_len, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && err_len)
		vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return rc;
}

int jh_map_file(const char *path, size_t min, const unsigned char **out, size_t *size,
                char *err, size_t err_len)
{
	*out = NULL;
	*size = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jh_fail(err, err_len, JH_ERR_IO, "cannot read %s", path);
	struct stat st;
	void *p = MAP_FAILED;
	int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	int short_file = regular && (unsigned long long)st.st_size < (min ? min : 1);
	if (regular && !short_file)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (short_file)
		return jh_fail(err, err_len, JH_ERR_RULES, "%s: too short (%lld bytes)", path,
		               (long long)st.st_size);
	if (p == MAP_FAILED)
		return jh_fail(err, err_len, JH_ERR_IO, "cannot read %s", path);
	*out = p;
	*size = (size_t)st.st_size;
	return JH_OK;
}

void jh_unmap_file(const unsigned char *map, size_t size)
{
	if (map)
		munmap((void *)map, size);
}
