/* fileio.c — reading inputs whole and writing fixed files atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "cli.h"

void file_data_free(file_data *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
}

/* A stream (stdin, a FIFO) is read whole, up to this many bytes: past
 * it the input fails with EFBIG instead of growing until memory runs out
 * (cat /dev/zero | jinghua check).  A regular file has its own size. */
#define STREAM_MAX ((size_t)1 << 30)

static int read_all(int fd, size_t hint, file_data *out)
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
			if (p < 0) {
				int e = errno;
				free(buf);
				errno = e;
				return -1;
			}
			if (!hint && cap >= STREAM_MAX) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
			cap *= 2;
			if (hint && len == hint) {
				buf[len++] = probe; /* the file grew: keep what the probe read */
				hint = 0;
			}
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

/* Same file, same size, same modification and change times. */
static int same_version(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Were the bytes read one version of the file?  The same version, or the
 * same inode, size and modification time with only its change time moved
 * because it lost a link: another fix (or an editor) renamed a new file
 * over it while we read, and what we read is the whole old version.  The
 * rename is seen again when writing (atomic_write looks before it
 * replaces).  Counting that as a change made one of two concurrent fixes
 * fail now and then. */
static int read_whole(const struct stat *before, const struct stat *after)
{
	if (same_version(before, after))
		return 1;
	return before->st_dev == after->st_dev && before->st_ino == after->st_ino &&
	       before->st_size == after->st_size && before->st_mtim.tv_sec == after->st_mtim.tv_sec &&
	       before->st_mtim.tv_nsec == after->st_mtim.tv_nsec && after->st_nlink < before->st_nlink;
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
		out->is_regular = S_ISREG(st.st_mode);
	}
	int rc = read_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, out);
	int e = errno;
	if (!rc && !out->is_stdin) {
		/* A file written to while we read it may have been read half old,
		 * half new: fix must not write that back. */
		struct stat after;
		if (fstat(fd, &after) != 0)
			out->changed = 1;
		else {
			out->changed = out->is_regular && !read_whole(&st, &after);
			out->st = after;
		}
	}
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

int file_holds(const char *path, const char *data, size_t len)
{
	file_data now;
	if (read_input(path, &now) != 0)
		return 0;
	int same = now.len == len && memcmp(now.data, data, len) == 0;
	file_data_free(&now);
	return same;
}

/* ---- temporary files and signals ----
 * A fix writes a temporary file beside the one it replaces.  Each is
 * registered while it exists, so that SIGINT, SIGTERM or SIGHUP removes
 * it before the process dies (the handler may only unlink, an
 * async-signal-safe call, so the names live in static slots).  One slot
 * per writing thread is enough; a write that finds none waits. */
#define TEMP_SLOTS 64
static struct {
	int used; /* 0 free, 1 taken, 2 holds a name (atomics) */
	char path[PATH_MAX + 64];
} temps[TEMP_SLOTS];

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (__atomic_load_n(&temps[i].used, __ATOMIC_ACQUIRE) == 2)
			unlink(temps[i].path);
	signal(sig, SIG_DFL);
	raise(sig);
}

void guard_temp_files(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old, sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		/* a signal the caller ignores (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	/* past a file size limit, write() fails with EFBIG and the fix is
	 * reported as not written, instead of a silent death */
	signal(SIGXFSZ, SIG_IGN);
}

/* mkstemp in a registered slot; returns the slot's index, or -1. */
static int temp_create(const char *pattern, int *fd)
{
	if (strlen(pattern) >= sizeof temps[0].path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (;;) {
		for (int i = 0; i < TEMP_SLOTS; i++) {
			int fr = 0;
			if (!__atomic_compare_exchange_n(&temps[i].used, &fr, 1, 0, __ATOMIC_ACQ_REL,
			                                 __ATOMIC_RELAXED))
				continue;
			strcpy(temps[i].path, pattern);
			sigset_t all, old;
			sigfillset(&all);
			/* the name and the slot's state change together for the handler */
			pthread_sigmask(SIG_BLOCK, &all, &old);
			*fd = mkstemp(temps[i].path);
			int e = errno;
			__atomic_store_n(&temps[i].used, *fd >= 0 ? 2 : 0, __ATOMIC_RELEASE);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			errno = e;
			return *fd >= 0 ? i : -1;
		}
		sched_yield();
	}
}

/* Done with slot i: its file was renamed into place (gone = 0) or is to
 * be removed (gone = 1). */
static void temp_release(int i, int remove)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (remove)
		unlink(temps[i].path);
	__atomic_store_n(&temps[i].used, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Give the new file every extended attribute of the one it replaces: POSIX
 * ACLs are the attribute system.posix_acl_access, so this keeps them too
 * (set after fchmod, which would otherwise narrow the ACL's mask to the
 * group bits).  An attribute that cannot be read or set makes the
 * rewrite fail: the file keeps its content rather than lose a permission
 * or a label.  Returns 0, or -1 with errno set and *why a message. */
static int copy_xattrs(const char *from, int to_fd, const char **why)
{
	ssize_t n = listxattr(from, NULL, 0);
	if (n < 0)
		return errno == ENOTSUP || errno == ENOSYS ? 0 : -1;
	if (n == 0)
		return 0;
	char *names = malloc((size_t)n);
	ssize_t got = names ? listxattr(from, names, (size_t)n) : -1;
	int rc = got < 0 ? -1 : 0;
	char *val = NULL;
	for (ssize_t i = 0; rc == 0 && i < got; i += (ssize_t)strlen(names + i) + 1) {
		const char *name = names + i;
		ssize_t vl = getxattr(from, name, NULL, 0);
		char *nv = vl >= 0 ? realloc(val, (size_t)vl + 1) : NULL;
		if (!nv) {
			rc = -1;
			break;
		}
		val = nv;
		vl = getxattr(from, name, val, (size_t)vl);
		if (vl < 0 || fsetxattr(to_fd, name, val, (size_t)vl, 0) != 0)
			rc = -1;
	}
	int e = errno;
	if (rc)
		*why = "its extended attributes or ACL cannot be copied to the new file; not fixed";
	free(val);
	free(names);
	errno = e;
	return rc;
}

/* write_atomic, with a last look before the rename when orig is given: if
 * the file is no longer the version that was read, it is not replaced. */
static int atomic_write(const char *path, const char *data, size_t len, mode_t mode,
                        const file_data *orig, const char **why)
{
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 32);
	if (!tmp)
		return -1;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	/* The temporary name must fit NAME_MAX (255) where the file's own name
	 * nearly does: past 200 bytes only the first 200 of the name are used
	 * (cut at a character boundary; it is only for people who see it). */
	const char *base = slash ? slash + 1 : path;
	size_t bl = strlen(base);
	if (bl > 200) {
		bl = 200;
		while (bl > 0 && ((unsigned char)base[bl] & 0xC0) == 0x80)
			bl--;
	}
	snprintf(tmp, pl + 32, "%.*s.%.*s.jinghua-XXXXXX", (int)dirlen, path, (int)bl, base);
	int fd, slot = temp_create(tmp, &fd);
	if (slot < 0) {
		free(tmp);
		return -1;
	}
	free(tmp);
	tmp = temps[slot].path;
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
	int e = ok ? 0 : errno ? errno : EIO;
	/* Keep the owner too; only root can give a file away, so EPERM is not
	 * an error. */
	if (ok && orig && orig->st.st_ino &&
	    fchown(fd, orig->st.st_uid, orig->st.st_gid) != 0 && errno != EPERM)
		ok = 0, e = errno;
	if (ok && fchmod(fd, mode) != 0)
		ok = 0, e = errno;
	if (ok && orig && orig->st.st_ino && copy_xattrs(path, fd, why) != 0)
		ok = 0, e = errno;
	if (ok && fsync(fd) != 0)
		ok = 0, e = errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		e = errno;
	}
	int keep = 0; /* the file already holds data: no rename needed */
	if (ok && orig && orig->st.st_ino) {
		struct stat now;
		if (stat(path, &now) != 0 || !same_version(&orig->st, &now)) {
			if (file_holds(path, data, len)) {
				keep = 1;
			} else {
				ok = 0;
				e = EAGAIN;
				*why = "changed while being fixed; not written";
			}
		}
	}
	if (ok && !keep && rename(tmp, path) != 0) {
		ok = 0;
		e = errno;
	}
	temp_release(slot, !ok || keep);
	errno = e;
	return ok ? 0 : -1;
}

int write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	return atomic_write(path, data, len, mode, NULL, NULL);
}

int replace_file(const char *path, const file_data *orig, const char *data, size_t len,
                 const char **why)
{
	*why = NULL;
	if (orig->st.st_ino && !orig->is_regular) {
		errno = EINVAL;
		*why = "not a regular file; not fixed (use --stdout)";
		return -1;
	}
	if (orig->changed) {
		errno = EAGAIN;
		*why = "changed while being read; not fixed";
		return -1;
	}
	/* Write through a symlink: the target gets the text, the link stays. */
	char *target = realpath(path, NULL);
	if (!target)
		return -1;
	struct stat st;
	int rc = -1;
	if (stat(target, &st) != 0)
		goto done;
	if (!(st.st_mode & 0222) || access(target, W_OK) != 0) {
		errno = EACCES;
		*why = "read-only file; not fixed";
		goto done;
	}
	rc = atomic_write(target, data, len, orig->mode, orig, why);
done:;
	int e = errno;
	free(target);
	errno = e;
	return rc;
}
