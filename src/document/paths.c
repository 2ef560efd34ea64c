/* paths.c — path arithmetic for the configuration: joining, and the
 * absolute form of a path.  NULL for want of memory. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "document.h"
#include "util.h"

char *jh_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int slash = dl && dir[dl - 1] != '/';
	char *p = malloc(dl + strlen(name) + 2);
	if (!p)
		return NULL;
	sprintf(p, "%s%s%s", dir, slash ? "/" : "", name);
	return p;
}

char *jh_path_absolute(const char *path)
{
	char *joined;
	if (path[0] == '/') {
		joined = jh_strdup(path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			strcpy(cwd, "/");
		joined = jh_path_join(cwd, path);
	}
	if (!joined)
		return NULL;
	/* drop "." and "" parts, resolve ".." lexically */
	char *out = malloc(strlen(joined) + 2);
	if (!out) {
		free(joined);
		return NULL;
	}
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
