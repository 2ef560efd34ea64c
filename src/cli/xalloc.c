/* xalloc.c — the command line's allocation that does not fail: out of
 * memory ends the process with a message and EXIT_IO.  Only the command
 * line does this; the library returns JH_ERR_NOMEM instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void die_nomem(void)
{
	fputs("jinghua: out of memory\n", stderr);
	exit(EXIT_IO);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_nomem();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_nomem();
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
	char *p = jh_path_join(dir, name);
	if (!p)
		die_nomem();
	return p;
}
