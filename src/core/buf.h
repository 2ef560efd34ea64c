/* buf.h — growable byte buffers and arrays, string copies
 * (every function returns JH_OK or JH_ERR_NOMEM, or NULL for want of memory). */
#ifndef JH_BUF_H
#define JH_BUF_H

#include <stddef.h>
#include <string.h>
#include "jinghua.h"

typedef struct {
	char *data;
	size_t len, cap;
} jh_buf;

int jh_buf_reserve(jh_buf *b, size_t extra);
int jh_buf_append(jh_buf *b, const char *s, size_t n);
int jh_buf_puts(jh_buf *b, const char *s);
int jh_buf_putc(jh_buf *b, char c);
/* Make sure data is NUL-terminated (not counted in len). */
int jh_buf_terminate(jh_buf *b);
void jh_buf_free(jh_buf *b);

char *jh_strdup(const char *s);
char *jh_strndup(const char *s, size_t n);

/* Grow *arr (element size elem) so that it holds at least need elements. */
int jh_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* src into dst[size] (size > 0), cut short to fit, NUL-terminated:
 * snprintf's "%s" without its format machinery (the rule loader copies
 * every key name at each start). */
static inline void jh_copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

#endif
