/* util.h — small helpers shared by the library stages: growable buffers,
 * string copies, diagnostics and a string hash set. */
#ifndef JH_UTIL_H
#define JH_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* Report a diagnostic through fn (which may be NULL). */
void jh_report(jh_diag_fn fn, void *payload, jh_severity sev, const char *file,
               unsigned line, unsigned column, const char *rule_id, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/* Memory handed out from chunks of 64 KB (a bigger request gets a chunk
 * of its own) and freed all at once: for many small pieces that live as
 * long as one owner (the keys of a word list, a list's findings).  align
 * is 1 for strings or 8 for structs.  Start it zeroed. */
typedef struct jh_chunk jh_chunk;
typedef struct {
	jh_chunk *top;
} jh_arena;

void *jh_arena_alloc(jh_arena *a, size_t n, size_t align);
void jh_arena_free(jh_arena *a);

/* Open-addressing set of byte strings (used for allow-lists and to keep
 * each of many equal strings once).  The keys live in the set's arena, not
 * in a malloc each: word lists of 100,000 entries are read at start-up or
 * first use. */
typedef struct {
	char **keys;
	size_t *lens;
	size_t cap, count;
	size_t max_len;  /* longest key, in bytes */
	jh_arena arena;
} jh_strset;

int jh_strset_add(jh_strset *s, const char *key, size_t len);
/* The set's NUL-terminated copy of key, added if it was not there: equal
 * strings get the same pointer.  NULL when memory runs out. */
const char *jh_strset_intern(jh_strset *s, const char *key, size_t len);
/* Room for n more keys without rehashing (for a list of known length). */
int jh_strset_reserve(jh_strset *s, size_t n);
int jh_strset_has(const jh_strset *s, const char *key, size_t len);
void jh_strset_free(jh_strset *s);

uint64_t jh_hash(const char *s, size_t n);

/* src into dst[size] (size > 0), cut short to fit, NUL-terminated:
 * snprintf's "%s" without its format machinery (800 instructions a call;
 * the rule loader copies every key name, 1.1 M of each start). */
static inline void jh_copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A whole file, NUL-terminated (len excludes the NUL), or NULL with errno
 * set (ENOMEM, EIO, or fopen's). */
char *jh_read_file(const char *path, size_t *len);

/* Hash of a sequence of code points (never 0, so 0 can mark an empty slot). */
/* A hash of n code points, never 0; inline, as the context model looks
 * its dictionary up several times for every character of a text. */
/* The line around pos: [*start, *end), end at its '\n' or the text's end. */
static inline void jh_line_bounds(const char *text, size_t len, size_t pos, size_t *start,
                                  size_t *end)
{
	size_t a = pos > len ? len : pos, b = a;
	while (a > 0 && text[a - 1] != '\n')
		a--;
	while (b < len && text[b] != '\n')
		b++;
	*start = a;
	*end = b;
}

static inline uint64_t jh_hash_cps(const int32_t *cp, int n)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint32_t)cp[i]) * 1099511628211ull;
	/* FNV's low bits are poorly mixed; tables index by them. */
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h ? h : 1;
}

/* A data file (TSV word list or table) read whole and handed out line by
 * line, its fields split at tabs in place: one read instead of a getline
 * and a copy per line, for lists of 100,000 lines.  Empty lines and lines
 * starting with '#' are skipped, a BOM at the start and a CR before the
 * line end dropped. */
typedef struct {
	char *data;
	size_t len, pos;
	unsigned line;   /* number of the line last returned */
	char *path;      /* set by jh_data_open (builtins.h), for messages */
} jh_tsv;

/* JH_OK, JH_ERR_NOMEM, or JH_ERR_RULES when the file cannot be read. */
int jh_tsv_open(jh_tsv *t, const char *path);
/* The next line's fields (at most max; the last keeps any further tabs),
 * NUL-terminated; returns how many, 0 at the end of the file. */
int jh_tsv_next(jh_tsv *t, char **fields, size_t *lens, int max);
/* The buffer, handed over to the caller (who frees it): words returned
 * by jh_tsv_next stay valid.  The reader is empty afterwards. */
char *jh_tsv_take(jh_tsv *t);
void jh_tsv_close(jh_tsv *t);

/* A table loaded the first time a check needs it, not when the rule set is
 * compiled: most documents never need the big word lists (mask suggestions,
 * lost characters, the context model), and start-up must stay in
 * milliseconds.  The compiled rule set is shared by threads, so the load
 * runs once under a lock; afterwards the check reads the table without one.
 * jh_lazy_get returns the load's result (JH_OK or an error code, the same
 * for every later call). */
typedef struct {
	pthread_mutex_t lock;
	int done;     /* read and written with atomics */
	int rc;
} jh_lazy;

void jh_lazy_init(jh_lazy *l);
void jh_lazy_destroy(jh_lazy *l);
int jh_lazy_get(jh_lazy *l, int (*load)(void *arg), void *arg);

/* A table read once per process and shared by every rule set that names
 * the same file (the word model, the script character table): found by
 * key (the file's path), counted by references, freed with its last
 * user, all under one lock, as rule sets may be compiled by several
 * threads.  level says how complete a table is (the word model with or
 * without its indexes): a request is served by a table of that level or
 * more.  A load that fails is not kept, so the next rule to need the
 * file reports the error against its own line.  jh_shared_get returns
 * load's result and sets *obj (NULL on failure); jh_shared_release takes
 * the object back (NULL is ignored). */
typedef int (*jh_shared_load_fn)(void *arg, void **obj);
int jh_shared_get(const char *key, int level, jh_shared_load_fn load, void *arg,
                  void (*free_fn)(void *obj), void **obj);
void jh_shared_release(void *obj);

#endif
