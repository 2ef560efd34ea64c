/* buf.c — growable byte buffers and arrays, string copies. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"

int jh_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return JH_OK;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return JH_ERR_NOMEM;
		ncap *= 2;
	}
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return JH_ERR_NOMEM;
	*arr = p;
	*cap = ncap;
	return JH_OK;
}

int jh_buf_reserve(jh_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return JH_ERR_NOMEM;
	return jh_grow((void **)&b->data, &b->cap, b->len + extra + 1, 1);
}

int jh_buf_append(jh_buf *b, const char *s, size_t n)
{
	if (jh_buf_reserve(b, n))
		return JH_ERR_NOMEM;
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return JH_OK;
}

int jh_buf_puts(jh_buf *b, const char *s) { return jh_buf_append(b, s, strlen(s)); }
int jh_buf_putc(jh_buf *b, char c) { return jh_buf_append(b, &c, 1); }

int jh_buf_terminate(jh_buf *b)
{
	if (jh_buf_reserve(b, 0))
		return JH_ERR_NOMEM;
	b->data[b->len] = '\0';
	return JH_OK;
}

void jh_buf_free(jh_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *jh_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *jh_strdup(const char *s) { return s ? jh_strndup(s, strlen(s)) : NULL; }
