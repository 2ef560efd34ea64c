/* util.c — growable buffers, string copies, diagnostics, string sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

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

void jh_report(jh_diag_fn fn, void *payload, jh_severity sev, const char *file,
               unsigned line, unsigned column, const char *rule_id, const char *fmt, ...)
{
	if (!fn)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	jh_diag d = {sev, file, line, column, rule_id, msg};
	fn(&d, payload);
}

/* FNV-1a: short keys, no need for anything stronger. */
uint64_t jh_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int strset_rehash(jh_strset *s, size_t ncap)
{
	char **keys = calloc(ncap, sizeof *keys);
	size_t *lens = calloc(ncap, sizeof *lens);
	if (!keys || !lens) {
		free(keys);
		free(lens);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->keys[i])
			continue;
		size_t j = jh_hash(s->keys[i], s->lens[i]) & (ncap - 1);
		while (keys[j])
			j = (j + 1) & (ncap - 1);
		keys[j] = s->keys[i];
		lens[j] = s->lens[i];
	}
	free(s->keys);
	free(s->lens);
	s->keys = keys;
	s->lens = lens;
	s->cap = ncap;
	return JH_OK;
}

int jh_strset_add(jh_strset *s, const char *key, size_t len)
{
	if (jh_strset_has(s, key, len))
		return JH_OK;
	if ((s->count + 1) * 2 > s->cap && strset_rehash(s, s->cap ? s->cap * 2 : 64))
		return JH_ERR_NOMEM;
	size_t j = jh_hash(key, len) & (s->cap - 1);
	while (s->keys[j])
		j = (j + 1) & (s->cap - 1);
	if (!(s->keys[j] = jh_strndup(key, len)))
		return JH_ERR_NOMEM;
	s->lens[j] = len;
	s->count++;
	if (len > s->max_len)
		s->max_len = len;
	return JH_OK;
}

int jh_strset_has(const jh_strset *s, const char *key, size_t len)
{
	if (!s->cap)
		return 0;
	size_t j = jh_hash(key, len) & (s->cap - 1);
	while (s->keys[j]) {
		if (s->lens[j] == len && memcmp(s->keys[j], key, len) == 0)
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	return 0;
}

void jh_strset_free(jh_strset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->lens);
	memset(s, 0, sizeof *s);
}

void jh_lazy_init(jh_lazy *l)
{
	pthread_mutex_init(&l->lock, NULL);
	l->done = 0;
	l->rc = JH_OK;
}

void jh_lazy_destroy(jh_lazy *l)
{
	pthread_mutex_destroy(&l->lock);
}

int jh_lazy_get(jh_lazy *l, int (*load)(void *arg), void *arg)
{
	/* Double-checked: the acquire load pairs with the release store below,
	 * so a thread that sees done also sees the table the load built. */
	if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE))
		return l->rc;
	pthread_mutex_lock(&l->lock);
	if (!l->done) {
		l->rc = load(arg);
		__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&l->lock);
	return l->rc;
}
