/* util.c — growable buffers, string copies, diagnostics, string sets. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
/* Eight bytes at a time, then a final mix: the hash sets and word maps
 * look up short Chinese words (6-15 bytes) millions of times, and FNV's
 * byte-at-a-time loop was a sixth of the cost of a mask suggestion. */
uint64_t jh_hash(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		for (size_t i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
		h ^= h >> 29;
	}
	h *= 0xFF51AFD7ED558CCDULL;
	return h ^ (h >> 32);
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

struct jh_chunk {
	jh_chunk *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

void *jh_arena_alloc(jh_arena *a, size_t n, size_t align)
{
	jh_chunk *c = a->top;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at > c->cap || c->cap - at < n) {
		size_t cap = n > 65536 ? n : 65536;
		if (!(c = malloc(sizeof *c + cap)))
			return NULL;
		c->next = a->top;
		c->used = 0;
		c->cap = cap;
		a->top = c;
		at = 0;
	}
	c->used = at + n;
	return c->data + at;
}

void jh_arena_free(jh_arena *a)
{
	for (jh_chunk *c = a->top, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->top = NULL;
}

int jh_strset_reserve(jh_strset *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 64;
	while (cap < 2 * (s->count + n))
		cap *= 2;
	return cap > s->cap ? strset_rehash(s, cap) : JH_OK;
}

const char *jh_strset_intern(jh_strset *s, const char *key, size_t len)
{
	if ((s->count + 1) * 2 > s->cap && strset_rehash(s, s->cap ? s->cap * 2 : 64))
		return NULL;
	size_t j = jh_hash(key, len) & (s->cap - 1);
	for (; s->keys[j]; j = (j + 1) & (s->cap - 1))
		if (s->lens[j] == len && memcmp(s->keys[j], key, len) == 0)
			return s->keys[j]; /* already there */
	char *k = jh_arena_alloc(&s->arena, len + 1, 1);
	if (!k)
		return NULL;
	memcpy(k, key, len);
	k[len] = '\0';
	s->keys[j] = k;
	s->lens[j] = len;
	s->count++;
	if (len > s->max_len)
		s->max_len = len;
	return k;
}

int jh_strset_add(jh_strset *s, const char *key, size_t len)
{
	return jh_strset_intern(s, key, len) ? JH_OK : JH_ERR_NOMEM;
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
	jh_arena_free(&s->arena);
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

typedef struct shared_entry {
	char *key;
	int level;
	void *obj;
	void (*free_fn)(void *obj);
	unsigned refs;
	struct shared_entry *next;
} shared_entry;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_entry *shared_list;

int jh_shared_get(const char *key, int level, jh_shared_load_fn load, void *arg,
                  void (*free_fn)(void *obj), void **obj)
{
	int rc = JH_OK;
	*obj = NULL;
	pthread_mutex_lock(&shared_lock);
	shared_entry *e = shared_list;
	while (e && (strcmp(e->key, key) || e->level < level || e->free_fn != free_fn))
		e = e->next;
	if (e) {
		e->refs++;
	} else if (!(e = calloc(1, sizeof *e)) || !(e->key = jh_strdup(key))) {
		free(e);
		e = NULL;
		rc = JH_ERR_NOMEM;
	} else if ((rc = load(arg, &e->obj)) != JH_OK) {
		if (e->obj)
			free_fn(e->obj);
		free(e->key);
		free(e);
		e = NULL;
	} else {
		e->level = level;
		e->free_fn = free_fn;
		e->refs = 1;
		e->next = shared_list;
		shared_list = e;
	}
	pthread_mutex_unlock(&shared_lock);
	*obj = e ? e->obj : NULL;
	return rc;
}

void jh_shared_release(void *obj)
{
	if (!obj)
		return;
	pthread_mutex_lock(&shared_lock);
	for (shared_entry **p = &shared_list; *p; p = &(*p)->next)
		if ((*p)->obj == obj) {
			shared_entry *e = *p;
			if (--e->refs == 0) {
				*p = e->next;
				e->free_fn(e->obj);
				free(e->key);
				free(e);
			}
			break;
		}
	pthread_mutex_unlock(&shared_lock);
}

/* A regular file is read into a buffer of its size with one read: reading
 * in chunks into a growing buffer copied the start-up's 900 KB of tables
 * several times over (a third of its page faults).  A file that grows
 * while read, or is no regular file, is read on in chunks. */
char *jh_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	jh_buf b = {0};
	int err = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size < SIZE_MAX / 2 && jh_buf_reserve(&b, (size_t)st.st_size + 1))
		err = ENOMEM;
	while (!err) {
		if ((!b.cap || b.cap - b.len <= 1) && jh_buf_reserve(&b, 65536)) {
			err = ENOMEM;
			break;
		}
		ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = EIO;
		if (n <= 0)
			break;
		b.len += (size_t)n;
	}
	close(fd);
	if (err || jh_buf_terminate(&b)) {
		jh_buf_free(&b);
		errno = err ? err : ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.data;
}

int jh_tsv_open(jh_tsv *t, const char *path)
{
	memset(t, 0, sizeof *t);
	if (!(t->data = jh_read_file(path, &t->len)))
		return errno == ENOMEM ? JH_ERR_NOMEM : JH_ERR_RULES;
	if (t->len >= 3 && memcmp(t->data, "\xEF\xBB\xBF", 3) == 0)
		t->pos = 3;
	return JH_OK;
}

int jh_tsv_next(jh_tsv *t, char **fields, size_t *lens, int max)
{
	while (t->data && t->pos < t->len) {
		char *ln = t->data + t->pos;
		char *nl = memchr(ln, '\n', t->len - t->pos);
		size_t n = nl ? (size_t)(nl - ln) : t->len - t->pos;
		t->pos += n + (nl != NULL);
		t->line++;
		if (n && ln[n - 1] == '\r')
			n--;
		ln[n] = '\0';
		if (!n || ln[0] == '#')
			continue;
		int k = 0;
		for (char *p = ln; k < max; k++) {
			char *tab = k + 1 < max ? memchr(p, '\t', (size_t)(ln + n - p)) : NULL;
			fields[k] = p;
			lens[k] = tab ? (size_t)(tab - p) : (size_t)(ln + n - p);
			if (!tab) {
				k++;
				break;
			}
			*tab = '\0';
			p = tab + 1;
		}
		return k;
	}
	return 0;
}

char *jh_tsv_take(jh_tsv *t)
{
	char *d = t->data;
	free(t->path);
	memset(t, 0, sizeof *t);
	return d;
}

void jh_tsv_close(jh_tsv *t)
{
	free(t->data);
	free(t->path);
	memset(t, 0, sizeof *t);
}
