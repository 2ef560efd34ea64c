/* file_write.c — a fixed file written back for every front end
 * (jh_file_replace of jinghua.h): a temporary file beside it, given the
 * old file's mode, owner, extended attributes and ACLs, flushed, renamed
 * over it; through a symlink to its target; never over a read-only file
 * or one that changed since it was read.  A fatal signal during the write
 * removes the temporary file (jh_file_guard_signals).  A file with more
 * than one hard link is rewritten in place instead (rewrite_in_place), so
 * that every name keeps seeing the same, fixed, text. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "document.h"

/* ---- temporary files and signals ----
 * Each temporary file is registered while it exists, so that SIGINT,
 * SIGTERM or SIGHUP removes it before the process dies (the handler may
 * only unlink, an async-signal-safe call, so the names live in static
 * slots).  One slot per writing thread is enough; a write that finds none
 * waits. */
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

void jh_file_guard_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old, sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		/* Only a signal that would kill the process: one the caller
		 * ignores (nohup) stays ignored, and one it handles (Python's
		 * SIGINT, KeyboardInterrupt after the call) lets the write end. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(sigs[i], &sa, NULL);
	}
	/* past a file size limit, write() fails with EFBIG and the fix is
	 * reported as not written, instead of a silent death */
	struct sigaction old;
	if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	    !(old.sa_flags & SA_SIGINFO))
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

/* Done with slot i: its file was renamed into place (remove = 0) or is to
 * be removed (remove = 1). */
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
	if (rc && e != ENOMEM)
		*why = "its extended attributes or ACL cannot be copied to the new file; not fixed";
	free(val);
	free(names);
	errno = e;
	return rc;
}

/* Does the file at path hold exactly data (len bytes)? */
static int file_holds(const char *path, const char *data, size_t len)
{
	jh_file *now;
	if (jh_file_read(path, 0, &now, NULL) != JH_OK)
		return 0;
	int same = now->len == len && memcmp(now->data, data, len) == 0;
	jh_file_free(now);
	return same;
}

static int write_fd(int fd, const char *p, size_t left)
{
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/* Write data to path through a temporary file renamed over it, with mode;
 * when orig is given (the version that was read), with its owner and
 * extended attributes, and a last look before the rename: if the file is
 * no longer that version, it is not replaced. */
static int atomic_write(const char *path, const char *data, size_t len, mode_t mode,
                        const jh_file *orig, const char **why)
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
	free(tmp);
	if (slot < 0)
		return -1;
	tmp = temps[slot].path;
	int ok = write_fd(fd, data, len) == 0;
	int e = ok ? 0 : errno;
	int known = orig && orig->st.st_ino;
	/* Keep the owner too; only root can give a file away, so EPERM is not
	 * an error. */
	if (ok && known && fchown(fd, orig->st.st_uid, orig->st.st_gid) != 0 && errno != EPERM)
		ok = 0, e = errno;
	if (ok && fchmod(fd, mode) != 0)
		ok = 0, e = errno;
	if (ok && known && copy_xattrs(path, fd, why) != 0)
		ok = 0, e = errno;
	if (ok && fsync(fd) != 0)
		ok = 0, e = errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		e = errno;
	}
	int keep = 0; /* the file already holds data: no rename needed */
	if (ok && known) {
		struct stat now;
		if (stat(path, &now) != 0 || !jh_file_same_version(&orig->st, &now)) {
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

/* pwrite all of p at offset 0 and cut the file to len, then flush. */
static int put_all(int fd, const char *p, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	if (ftruncate(fd, (off_t)len) != 0)
		return -1;
	return fsync(fd);
}

/* A file with several hard links: a rename would give this name a new
 * inode and leave the other names on the old text, so the new text is
 * written through the inode the names share (its mode, owner, ACL and
 * attributes stay as they are).  That write is not atomic, so the old
 * bytes go first to a flushed copy beside the file (the same temporary
 * name as atomic_write's); a failed write puts them back, and the copy is
 * removed only once the file holds either the new text or the old one
 * again.  The fatal signals are held off while the file is being
 * rewritten, because their handler would remove the copy; a crash (or
 * SIGKILL) in that window leaves the copy, with the original bytes, for
 * the user. */
static int rewrite_in_place(const char *path, const char *data, size_t len,
                            const jh_file *orig, const char **why)
{
	/* the reason, with the error, for the caller to print */
	static __thread char msg[PATH_MAX + 200];
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	struct stat now;
	if (fstat(fd, &now) != 0 || !jh_file_same_version(&orig->st, &now)) {
		int same = file_holds(path, data, len);
		close(fd);
		if (same)
			return 0;
		*why = "changed while being fixed; not written";
		errno = EAGAIN;
		return -1;
	}
	size_t olen = (size_t)now.st_size, got = 0;
	char *old = malloc(olen ? olen : 1);
	while (old && got < olen) {
		ssize_t n = pread(fd, old + got, olen - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (!old || got != olen) {
		int e = old ? EIO : ENOMEM;
		free(old);
		close(fd);
		errno = e;
		return -1;
	}
	/* the copy of the old bytes */
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 32);
	int bfd = -1, slot = -1;
	if (tmp) {
		const char *slash = strrchr(path, '/');
		size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
		const char *base = slash ? slash + 1 : path;
		size_t bl = strlen(base);
		if (bl > 200) {
			bl = 200;
			while (bl > 0 && ((unsigned char)base[bl] & 0xC0) == 0x80)
				bl--;
		}
		snprintf(tmp, pl + 32, "%.*s.%.*s.jinghua-XXXXXX", (int)dirlen, path, (int)bl, base);
		slot = temp_create(tmp, &bfd);
		free(tmp);
	}
	int ok = slot >= 0 && write_fd(bfd, old, olen) == 0 && fsync(bfd) == 0;
	int e = ok ? 0 : errno;
	if (bfd >= 0 && close(bfd) != 0 && ok)
		ok = 0, e = errno;
	if (!ok) {
		snprintf(msg, sizeof msg, "has several hard links, and the copy of its old text "
		         "(kept while it is rewritten in place) cannot be written (%s); not fixed",
		         strerror(e));
		*why = msg;
		if (slot >= 0)
			temp_release(slot, 1);
		free(old);
		close(fd);
		errno = e;
		return -1;
	}
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t held, prev;
	sigemptyset(&held);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&held, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &held, &prev);
	int remove = 1;
	if (put_all(fd, data, len) != 0) {
		e = errno;
		ok = 0;
		if (put_all(fd, old, olen) != 0) {
			/* neither text is whole in the file: the copy is the user's */
			remove = 0;
			snprintf(msg, sizeof msg, "has several hard links; rewriting it in place failed (%s) "
			         "and so did putting the old text back: the old text is in %s",
			         strerror(e), temps[slot].path);
		} else {
			snprintf(msg, sizeof msg, "has several hard links; rewriting it in place failed "
			         "(%s), the old text is back; not fixed", strerror(e));
		}
		*why = msg;
	}
	if (remove) {
		temp_release(slot, 1);
	} else {
		/* leave the copy on disk, but free the slot */
		__atomic_store_n(&temps[slot].used, 0, __ATOMIC_RELEASE);
	}
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	free(old);
	if (close(fd) != 0 && ok)
		ok = 0, e = errno;
	errno = e;
	return ok ? 0 : -1;
}

int jh_file_write_new(const char *path, const char *data, size_t len, mode_t mode)
{
	return atomic_write(path, data, len, mode, NULL, NULL);
}

int jh_file_replace(const jh_file *f, const char *data, size_t len, const char **why)
{
	const char *msg = NULL;
	int rc = -1;
	char *target = NULL;
	if (!f || !f->path || (!data && len)) {
		errno = EINVAL;
		if (why)
			*why = "standard input cannot be replaced";
		return JH_ERR_ARG;
	}
	if (!f->is_regular) {
		errno = EINVAL;
		msg = "not a regular file; not fixed";
		goto done;
	}
	if (f->changed) {
		errno = EAGAIN;
		msg = "changed while being read; not fixed";
		goto done;
	}
	/* Write through a symlink: the target gets the text, the link stays. */
	target = realpath(f->path, NULL);
	if (!target)
		goto done;
	struct stat st;
	if (stat(target, &st) != 0)
		goto done;
	if (!(st.st_mode & 0222) || access(target, W_OK) != 0) {
		errno = EACCES;
		msg = "read-only file; not fixed";
		goto done;
	}
	if (st.st_nlink > 1 && f->st.st_ino)
		rc = rewrite_in_place(target, data ? data : "", len, f, &msg);
	else
		rc = atomic_write(target, data ? data : "", len, f->mode, f, &msg);
done:;
	int e = errno;
	free(target);
	if (why)
		*why = rc ? msg : NULL;
	errno = e;
	return rc == 0 ? JH_OK : e == ENOMEM && !msg ? JH_ERR_NOMEM : JH_ERR_IO;
}
