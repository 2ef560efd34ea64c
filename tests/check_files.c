/* check_files.c — files read whole and written back (jh_file_* of
 * jinghua.h), as every front end reads and writes them: the size of a
 * regular file, the cap of a stream, devices and folders refused, and a
 * replace that keeps mode, symlink and extended attributes, refuses a
 * read-only file, a FIFO and a file changed since it was read, and leaves
 * no temporary file. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "tests.h"

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/jh-files-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[sizeof dir + 260];
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			chmod(p, 0600);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static const char *in_dir(const char *name)
{
	static char p[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static void put(const char *name, const char *text, mode_t mode)
{
	FILE *f = fopen(in_dir(name), "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(in_dir(name), mode), 0);
}

static char *get(const char *name)
{
	static char buf[4096];
	FILE *f = fopen(in_dir(name), "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The names in the folder, sorted, space-separated. */
static const char *listing(void)
{
	static char out[1024];
	struct dirent **es;
	int n = scandir(dir, &es, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(es[i]->d_name, ".") && strcmp(es[i]->d_name, "..")) {
			if (out[0])
				strcat(out, " ");
			strcat(out, es[i]->d_name);
		}
		free(es[i]);
	}
	free(es);
	return out;
}

static jh_file *read_ok(const char *path)
{
	jh_file *f = NULL;
	const char *why = "unset";
	ck_assert_int_eq(jh_file_read(path, 0, &f, &why), JH_OK);
	ck_assert_ptr_null(why);
	ck_assert_ptr_nonnull(f);
	return f;
}

/* A regular file is read whole at its size, NUL-terminated, with its mode. */
START_TEST(read_regular_file)
{
	make_dir();
	put("a.txt", "他把子丨弹压进了枪膛。\n", 0640);
	jh_file *f = read_ok(in_dir("a.txt"));
	size_t n;
	const char *d = jh_file_data(f, &n);
	ck_assert_uint_eq(n, strlen("他把子丨弹压进了枪膛。\n"));
	ck_assert_str_eq(d, "他把子丨弹压进了枪膛。\n");
	ck_assert_uint_eq(jh_file_mode(f), 0640);
	ck_assert_int_eq(jh_file_changed(f), 0);
	char *taken = jh_file_take(f, &n);
	ck_assert_str_eq(taken, "他把子丨弹压进了枪膛。\n");
	ck_assert_str_eq(jh_file_data(f, &n), ""); /* taken: f has none left */
	ck_assert_uint_eq(n, 0);
	free(taken);
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* Folders, devices and missing files are refused with errno and, for a
 * device, a reason. */
START_TEST(read_refusals)
{
	jh_file *f = (jh_file *)1;
	const char *why = NULL;
	ck_assert_int_eq(jh_file_read("/dev/zero", 0, &f, &why), JH_ERR_IO);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(errno, ENODEV);
	ck_assert_str_eq(why, "a device, not read");
	ck_assert_int_eq(jh_file_read("/", 0, &f, &why), JH_ERR_IO);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(jh_file_read("/nonexistent/jinghua-none.txt", 0, &f, &why), JH_ERR_IO);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(jh_file_read("/dev/zero", 0, &f, NULL), JH_ERR_IO); /* why may be NULL */
}
END_TEST

/* A stream of n bytes through a FIFO, written by a child process. */
static int feed_fifo(const char *fifo, size_t n)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		char buf[1000];
		memset(buf, 'x', sizeof buf);
		while (fd >= 0 && n) {
			size_t k = n < sizeof buf ? n : sizeof buf;
			if (write(fd, buf, k) != (ssize_t)k)
				_exit(1);
			n -= k;
		}
		_exit(0);
	}
	return pid;
}

/* A stream is read up to its cap exactly: at the cap it is whole, one
 * byte past it fails with EFBIG (it grew until memory ran out before). */
START_TEST(read_stream_cap)
{
	make_dir();
	const char *fifo = in_dir("in");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	for (size_t n = 4999; n <= 5001; n++) {
		int pid = feed_fifo(fifo, n);
		jh_file *f = NULL;
		int rc = jh_file_read(fifo, 5000, &f, NULL);
		int e = errno;
		if (n <= 5000) {
			ck_assert_int_eq(rc, JH_OK);
			size_t len;
			jh_file_data(f, &len);
			ck_assert_uint_eq(len, n);
			/* not a regular file: never written over */
			const char *why;
			ck_assert_int_eq(jh_file_replace(f, "y", 1, &why), JH_ERR_IO);
			ck_assert_str_eq(why, "not a regular file; not fixed");
			ck_assert_int_eq(errno, EINVAL);
		} else {
			ck_assert_int_eq(rc, JH_ERR_IO);
			ck_assert_int_eq(e, EFBIG);
		}
		jh_file_free(f);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ck_assert_str_eq(listing(), "in");
	remove_dir();
}
END_TEST

/* Replaced in place: the content, the mode, no temporary file left, and a
 * new inode (renamed over, not written into). */
START_TEST(replace_keeps_mode)
{
	make_dir();
	put("a.txt", "子丨弹\n", 0640);
	struct stat before, after;
	ck_assert_int_eq(stat(in_dir("a.txt"), &before), 0);
	jh_file *f = read_ok(in_dir("a.txt"));
	const char *why = "unset";
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), &why), JH_OK);
	ck_assert_ptr_null(why);
	ck_assert_str_eq(get("a.txt"), "子弹\n");
	ck_assert_int_eq(stat(in_dir("a.txt"), &after), 0);
	ck_assert_uint_eq(after.st_mode & 07777, 0640);
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	ck_assert_str_eq(listing(), "a.txt");
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* Through a symlink: the target gets the text, the link stays a link. */
START_TEST(replace_through_symlink)
{
	make_dir();
	put("target.txt", "子丨弹\n", 0644);
	ck_assert_int_eq(symlink("target.txt", in_dir("link.txt")), 0);
	jh_file *f = read_ok(in_dir("link.txt"));
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), NULL), JH_OK);
	char buf[64];
	ssize_t n = readlink(in_dir("link.txt"), buf, sizeof buf - 1);
	ck_assert_int_eq(n, (ssize_t)strlen("target.txt"));
	buf[n] = '\0';
	ck_assert_str_eq(buf, "target.txt");
	ck_assert_str_eq(get("target.txt"), "子弹\n");
	ck_assert_str_eq(listing(), "link.txt target.txt");
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* A read-only file (no write bit: even root, who could write it, does
 * not) is left as it is. */
START_TEST(replace_refuses_read_only)
{
	make_dir();
	put("ro.txt", "子丨弹\n", 0444);
	jh_file *f = read_ok(in_dir("ro.txt"));
	const char *why = NULL;
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), &why), JH_ERR_IO);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_str_eq(why, "read-only file; not fixed");
	ck_assert_str_eq(get("ro.txt"), "子丨弹\n");
	ck_assert_str_eq(listing(), "ro.txt");
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* Changed since it was read: not written over, unless it already holds
 * the new text (two fixes at once). */
START_TEST(replace_refuses_changed_file)
{
	make_dir();
	put("a.txt", "子丨弹\n", 0644);
	jh_file *f = read_ok(in_dir("a.txt"));
	put("a.txt", "someone else's edit, longer\n", 0644);
	const char *why = NULL;
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), &why), JH_ERR_IO);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_str_eq(why, "changed while being fixed; not written");
	ck_assert_str_eq(get("a.txt"), "someone else's edit, longer\n");
	ck_assert_str_eq(listing(), "a.txt");
	put("a.txt", "子弹\n", 0644); /* another fix got there first */
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), &why), JH_OK);
	ck_assert_str_eq(get("a.txt"), "子弹\n");
	ck_assert_str_eq(listing(), "a.txt");
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* Extended attributes are copied to the new file. */
START_TEST(replace_keeps_xattrs)
{
	make_dir();
	put("x.txt", "子丨弹\n", 0640);
	if (setxattr(in_dir("x.txt"), "user.jinghua-test", "kept", 4, 0) != 0) {
		remove_dir();
		return; /* no user extended attributes here (tmpfs without them) */
	}
	jh_file *f = read_ok(in_dir("x.txt"));
	ck_assert_int_eq(jh_file_replace(f, "子弹\n", strlen("子弹\n"), NULL), JH_OK);
	char val[16];
	ssize_t n = getxattr(in_dir("x.txt"), "user.jinghua-test", val, sizeof val);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(memcmp(val, "kept", 4), 0);
	ck_assert_str_eq(get("x.txt"), "子弹\n");
	jh_file_free(f);
	remove_dir();
}
END_TEST

/* Standard input is read (a pipe here) and cannot be replaced. */
START_TEST(stdin_read_not_replaced)
{
	int p[2], saved = dup(0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "好,的", strlen("好,的")), (ssize_t)strlen("好,的"));
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	jh_file *f = read_ok(NULL);
	dup2(saved, 0);
	close(saved);
	ck_assert_str_eq(jh_file_data(f, NULL), "好,的");
	ck_assert_uint_eq(jh_file_mode(f), 0);
	ck_assert_int_eq(jh_file_replace(f, "x", 1, NULL), JH_ERR_ARG);
	jh_file_free(f);
}
END_TEST

Suite *files_suite(void)
{
	Suite *s = suite_create("files");
	TCase *tc = test_tcase("files", 4);
	tcase_add_test(tc, read_regular_file);
	tcase_add_test(tc, read_refusals);
	tcase_add_test(tc, read_stream_cap);
	tcase_add_test(tc, replace_keeps_mode);
	tcase_add_test(tc, replace_through_symlink);
	tcase_add_test(tc, replace_refuses_read_only);
	tcase_add_test(tc, replace_refuses_changed_file);
	tcase_add_test(tc, replace_keeps_xattrs);
	tcase_add_test(tc, stdin_read_not_replaced);
	suite_add_tcase(s, tc);
	return s;
}
