/* file_read.c — a file read whole, for every front end (jh_file_read of
 * jinghua.h): a regular file at its size, a stream (standard input, a
 * FIFO) up to a cap, a device refused, and a note when the file changed
 * while it was read (jh_file_replace, file_write.c, then refuses it). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "document.h"
#include "util.h"

/* Read fd to its end into f->data.  A regular file (hint: its size) is
 * read whole however large; a stream is refused with EFBIG past max bytes
 * instead of growing until memory runs out (cat /dev/zero | jinghua
 * check).  Returns 0, or -1 with errno set. */
static int read_all(int fd, size_t hint, size_t max, jh_file *f)
{
	size_t cap = hint ? hint + 1 : 65536, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		if (len + 1 >= cap) {
			/* A file of the size fstat gave is usually complete: look for
			 * the end with one byte before doubling a buffer of 200 MB. */
			char probe;
			ssize_t p = hint && len == hint ? read(fd, &probe, 1) : 1;
			if (p == 0)
				break;
			if (p < 0 && errno == EINTR)
				continue;
			if (p < 0)
				goto fail;
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
			if (hint && len == hint) {
				buf[len++] = probe; /* the file grew: keep what the probe read */
				hint = 0; /* from now on a stream, with its cap */
			}
		}
		size_t want = cap - len - 1;
		if (!hint && max - len < want)
			want = max - len + 1; /* one byte past the cap tells it is passed */
		ssize_t n = read(fd, buf + len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
		if (!hint && len > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	buf[len] = '\0';
	f->data = buf;
	f->len = len;
	return 0;
fail:;
	int e = errno;
	free(buf);
	errno = e;
	return -1;
}

int jh_file_same_version(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Were the bytes read one version of the file?  The same version, or the
 * same inode, size and modification time with only its change time moved
 * because it lost a link: another fix (or an editor) renamed a new file
 * over it while we read, and what we read is the whole old version.  The
 * rename is seen again when writing (file_write.c looks before it
 * replaces).  Counting that as a change made one of two concurrent fixes
 * fail now and then. */
static int read_whole(const struct stat *before, const struct stat *after)
{
	if (jh_file_same_version(before, after))
		return 1;
	return before->st_dev == after->st_dev && before->st_ino == after->st_ino &&
	       before->st_size == after->st_size && before->st_mtim.tv_sec == after->st_mtim.tv_sec &&
	       before->st_mtim.tv_nsec == after->st_mtim.tv_nsec && after->st_nlink < before->st_nlink;
}

static int io_error(jh_file *f, const char **why, const char *msg)
{
	int e = errno;
	jh_file_free(f);
	if (why)
		*why = msg;
	errno = e;
	return e == ENOMEM ? JH_ERR_NOMEM : JH_ERR_IO;
}

int jh_file_read(const char *path, size_t stream_max, jh_file **out, const char **why)
{
	if (why)
		*why = NULL;
	if (!out)
		return JH_ERR_ARG;
	*out = NULL;
	jh_file *f = calloc(1, sizeof *f);
	if (!f)
		return JH_ERR_NOMEM;
	f->fd = -1;
	struct stat st = {0};
	int fd = STDIN_FILENO;
	if (path) {
		if (!(f->path = jh_strdup(path)))
			return io_error(f, why, NULL);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return io_error(f, why, NULL);
		f->fd = fd;
		if (fstat(fd, &st) != 0)
			return io_error(f, why, NULL);
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return io_error(f, why, NULL);
		}
		/* /dev/zero or /dev/urandom would be read until memory ran out */
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
			errno = ENODEV;
			return io_error(f, why, S_ISSOCK(st.st_mode) ? "a socket, not read"
			                                             : "a device, not read");
		}
		f->mode = st.st_mode & 07777;
		f->is_regular = S_ISREG(st.st_mode);
	}
	if (read_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0,
	             stream_max ? stream_max : JH_STREAM_MAX, f) != 0)
		return io_error(f, why, NULL);
	if (path) {
		/* A file written to while we read it may have been read half old,
		 * half new: it must not be written back. */
		struct stat after;
		if (fstat(fd, &after) != 0)
			f->changed = 1;
		else {
			f->changed = f->is_regular && !read_whole(&st, &after);
			f->st = after;
		}
		close(fd);
		f->fd = -1;
	}
	*out = f;
	return JH_OK;
}

void jh_file_free(jh_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->data);
	free(f->path);
	free(f);
}

const char *jh_file_data(const jh_file *f, size_t *len)
{
	if (len)
		*len = f->data ? f->len : 0;
	return f->data ? f->data : "";
}

char *jh_file_take(jh_file *f, size_t *len)
{
	char *d = f->data;
	if (len)
		*len = d ? f->len : 0;
	f->data = NULL;
	return d;
}

int jh_file_changed(const jh_file *f)
{
	return f->changed;
}

unsigned jh_file_mode(const jh_file *f)
{
	return f->mode;
}
