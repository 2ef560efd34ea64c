/* walk.c — expanding PATH arguments: files as given, folders recursively in
 * name order (stable output), hidden files and folders (.git) skipped. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"

int path_list_push(path_list *l, const char *p, int walked)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		char **v = realloc(l->paths, nc * sizeof *v);
		if (!v)
			return -1;
		l->paths = v;
		unsigned char *w = realloc(l->walked, nc);
		if (!w)
			return -1;
		l->walked = w;
		l->cap = nc;
	}
	if (!(l->paths[l->n] = strdup(p)))
		return -1;
	l->walked[l->n] = (unsigned char)walked;
	l->n++;
	return 0;
}

static int push(path_list *l, const char *p)
{
	return path_list_push(l, p, 0);
}

void path_list_free(path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->walked);
	l->paths = NULL;
	l->walked = NULL;
	l->n = l->cap = 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(const char *dir, path_list *out, int depth)
{
	if (depth > 64) {
		file_msg(stderr, dir, "folders nested too deep, skipped\n");
		return 1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		file_msg(stderr, dir, "%s\n", strerror(errno));
		return 1;
	}
	path_list names = {0};
	struct dirent *e;
	int errors = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && push(&names, e->d_name)) {
			errors++;
			break;
		}
	closedir(d);
	if (names.n > 1) /* paths is NULL in an empty folder: not for qsort */
		qsort(names.paths, names.n, sizeof *names.paths, cmp);
	size_t dl = strlen(dir);
	int slash = dl && dir[dl - 1] == '/';
	for (size_t i = 0; i < names.n; i++) {
		size_t need = dl + strlen(names.paths[i]) + 2;
		char *p = malloc(need);
		if (!p) {
			errors++;
			break;
		}
		snprintf(p, need, "%s%s%s", dir, slash ? "" : "/", names.paths[i]);
		struct stat st;
		if (lstat(p, &st) != 0) {
			file_msg(stderr, p, "%s\n", strerror(errno));
			errors++;
		} else if (S_ISDIR(st.st_mode)) {
			errors += walk_dir(p, out, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			if (path_list_push(out, p, 1))
				errors++;
		}
		/* symlinks and special files inside folders are not followed */
		free(p);
	}
	path_list_free(&names);
	return errors;
}

int walk_arg(const char *arg, path_list *out)
{
	if (strcmp(arg, "-") == 0)
		return push(out, arg) ? 1 : 0;
	struct stat st;
	if (stat(arg, &st) != 0) {
		file_msg(stderr, arg, "%s\n", strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode))
		return walk_dir(arg, out, 0);
	/* /dev/zero or /dev/urandom would be read until memory ran out; a
	 * FIFO is read as a stream, as stdin is (jh_file_read bounds both). */
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
		file_msg(stderr, arg, "%s, not read (give files, folders, FIFOs or - for stdin)\n",
		         S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		return 1;
	}
	return push(out, arg) ? 1 : 0;
}
