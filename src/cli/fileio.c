/* fileio.c — reading inputs whole and writing fixed files atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

void file_data_free(file_data *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
}

static int read_all(int fd, size_t hint, file_data *out)
{
	size_t cap = hint ? hint + 1 : 65536, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	out->data = buf;
	out->len = len;
	return 0;
}

int read_input(const char *path, file_data *out)
{
	memset(out, 0, sizeof *out);
	int fd = 0;
	struct stat st = {0};
	if (strcmp(path, "-") == 0) {
		out->is_stdin = 1;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
			int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
			close(fd);
			errno = e;
			return -1;
		}
		out->mode = st.st_mode & 07777;
	}
	int rc = read_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, out);
	int e = errno;
	if (fd)
		close(fd);
	if (rc) {
		errno = e;
		return -1;
	}
	return 0;
}

int looks_binary(const char *data, size_t len)
{
	/* UTF-16 and UTF-32 text has NUL bytes: a BOM or a regular pattern of
	 * them says it is text (encoding.c decodes it). */
	if (len >= 2 && ((data[0] == '\xFF' && data[1] == '\xFE') || (data[0] == '\xFE' && data[1] == '\xFF')))
		return 0;
	if (len >= 4 && !data[0] && !data[1] && data[2] == '\xFE' && data[3] == '\xFF')
		return 0;
	/* Text has no NUL bytes; look at the first 8 KB like git and grep do. */
	size_t probe = len < 8192 ? len : 8192;
	if (!memchr(data, '\0', probe))
		return 0;
	return utf16_guess(data, len) == NULL;
}

int write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 32);
	if (!tmp)
		return -1;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	snprintf(tmp, pl + 32, "%.*s.%s.jinghua-XXXXXX", (int)dirlen, path, slash ? slash + 1 : path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	int ok = 1;
	while (left && ok) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ok = 0;
		else {
			p += n;
			left -= (size_t)n;
		}
	}
	ok = ok && fchmod(fd, mode) == 0 && fsync(fd) == 0;
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		e = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = 0;
		e = errno;
	}
	if (!ok)
		unlink(tmp);
	free(tmp);
	errno = e;
	return ok ? 0 : -1;
}
