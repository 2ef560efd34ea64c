/* config_alloc.c — allocation while a configuration is read or resolved:
 * out of memory is noted for the calling thread (see cfg_nomem in
 * config_model.h) and the public call returns JH_ERR_NOMEM. */
#include <stdlib.h>
#include <string.h>
#include "config_model.h"
#include "util.h"

static __thread int nomem; /* see cfg_nomem */

void cfg_nomem(void)
{
	nomem = 1;
}

int cfg_take_nomem(void)
{
	int n = nomem;
	nomem = 0;
	return n;
}

void *cfg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		nomem = 1;
	return p;
}

char *cfg_strndup(const char *s, size_t n)
{
	char *p = jh_strndup(s, n);
	if (!p)
		nomem = 1;
	return p;
}

char *cfg_strdup(const char *s)
{
	return cfg_strndup(s, strlen(s));
}

int cfg_push(void *v, size_t n, size_t elem)
{
	void **pv = v;
	void *q = realloc(*pv, (n + 1) * elem);
	if (!q) {
		nomem = 1;
		return -1;
	}
	*pv = q;
	return 0;
}
