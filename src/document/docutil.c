/* docutil.c — allocation that cannot fail and path arithmetic, for the
 * document stage and the command line.  Out of memory ends the process
 * with a message, as the command line always did. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "document.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("jinghua: out of memory\n", stderr);
		exit(3); /* the command line's EXIT_IO */
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("jinghua: out of memory\n", stderr);
		exit(3); /* the command line's EXIT_IO */
	}
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int slash = dl && dir[dl - 1] != '/';
	char *p = xmalloc(dl + strlen(name) + 2);
	sprintf(p, "%s%s%s", dir, slash ? "/" : "", name);
	return p;
}

char *path_absolute(const char *path)
{
	char *joined;
	if (path[0] == '/') {
		joined = xstrdup(path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			strcpy(cwd, "/");
		joined = path_join(cwd, path);
	}
	/* drop "." and "" parts, resolve ".." lexically */
	char *out = xmalloc(strlen(joined) + 2);
	size_t n = 0;
	for (char *p = joined; *p;) {
		while (*p == '/')
			p++;
		char *e = p + strcspn(p, "/");
		size_t l = (size_t)(e - p);
		if (l == 0 || (l == 1 && p[0] == '.')) {
		} else if (l == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			out[n++] = '/';
			memcpy(out + n, p, l);
			n += l;
		}
		p = e;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	free(joined);
	return out;
}
