/* lexicon_cache.c — the lexicon rules' entries as read from their TSV
 * files, kept in the cache folder.  Reading the default rules' seven
 * lexicons (getline, unescaping, five copies of each entry's strings) was
 * 1.6 M instructions of every start; mapping them is a loop over the
 * entries.  The automaton is built from them as before (0.4 M): the same
 * entries in the same order give the same automaton.
 *
 * One file per list of lexicon files (named by that list), its ident a
 * hash of each file's path, rule index and state (device, inode, size,
 * modification time).  Written only when every file was read without an
 * error, so a cached load reports what reading them would: nothing.  A
 * hash of the stored bytes, then every offset, is checked before use. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "lexicon.h"
#include "tablecache.h"
#include "util.h"

#define LX_MAGIC "JHLEXIC\1"
#define LX_NONE UINT32_MAX

typedef struct {
	int64_t rule_index;
	uint32_t wrong, wrong_len, right, note, prev_not, next_not, line;
	int32_t safety;
} lx_ent;

typedef struct {
	uint64_t len, hash; /* of what follows this top */
	uint64_t n_entries, pool_len;
} lx_top;

#define LX_LAYOUT ((uint32_t)(sizeof(lx_ent) << 8 | sizeof(lx_top)))

static uint32_t put(jh_buf *pool, const char *s, size_t n, int *bad)
{
	if (!s)
		return LX_NONE;
	uint32_t at = (uint32_t)pool->len;
	if (pool->len > UINT32_MAX / 2 || jh_buf_append(pool, s, n) || jh_buf_putc(pool, 0))
		*bad = 1;
	return at;
}

void jh_lexicon_cache_store(const jh_lexicon *lx, const char *cache_dir, const char *name,
                            uint64_t ident)
{
	if (!cache_dir || lx->map)
		return;
	jh_buf pool = {0};
	int bad = jh_buf_putc(&pool, 0) != 0; /* no string at 0 */
	lx_ent *ents = calloc(lx->n_entries + 1, sizeof *ents);
	bad |= !ents;
	for (size_t i = 0; i < lx->n_entries && !bad; i++) {
		const jh_lex_entry *e = &lx->entries[i];
		lx_ent *o = &ents[i];
		o->rule_index = e->rule_index;
		o->wrong = put(&pool, e->wrong, e->wrong_len, &bad);
		o->wrong_len = (uint32_t)e->wrong_len;
		o->right = put(&pool, e->right, e->right ? strlen(e->right) : 0, &bad);
		o->note = put(&pool, e->note, e->note ? strlen(e->note) : 0, &bad);
		o->prev_not = put(&pool, e->prev_not, e->prev_not ? strlen(e->prev_not) : 0, &bad);
		o->next_not = put(&pool, e->next_not, e->next_not ? strlen(e->next_not) : 0, &bad);
		o->line = e->line;
		o->safety = e->safety;
	}
	size_t ent_len = lx->n_entries * sizeof *ents;
	size_t total = sizeof(lx_top) + ent_len + pool.len;
	char *payload = bad ? NULL : malloc(total);
	if (payload) {
		lx_top top = {total - sizeof top, 0, lx->n_entries, pool.len};
		memcpy(payload + sizeof top, ents, ent_len);
		memcpy(payload + sizeof top + ent_len, pool.data, pool.len);
		top.hash = jh_hash(payload + sizeof top, total - sizeof top);
		memcpy(payload, &top, sizeof top);
		jh_cache_section s = {payload, total};
		jh_cache_store_named(cache_dir, "lexicon", name, ident, LX_MAGIC, LX_LAYOUT, &s, 1);
		free(payload);
	}
	free(ents);
	jh_buf_free(&pool);
}

static int str_ok(uint32_t off, uint64_t pool_len, int may_be_none)
{
	return off == LX_NONE ? may_be_none : off > 0 && off < pool_len;
}

int jh_lexicon_cache_load(jh_lexicon *lx, const char *cache_dir, const char *name, uint64_t ident)
{
	void *map;
	size_t len;
	if (!cache_dir || lx->n_entries || lx->built ||
	    jh_cache_map_named(cache_dir, "lexicon", name, ident, LX_MAGIC, LX_LAYOUT, &map, &len))
		return 1;
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	const char *base = (const char *)map + at;
	lx_top top;
	int ok = len >= at + sizeof top;
	if (ok) {
		memcpy(&top, base, sizeof top);
		ok = top.len == len - at - sizeof top && top.n_entries <= top.len / sizeof(lx_ent) &&
		     top.pool_len == top.len - top.n_entries * sizeof(lx_ent) && top.pool_len &&
		     jh_hash(base + sizeof top, (size_t)top.len) == top.hash;
	}
	const lx_ent *ents = (const lx_ent *)(const void *)(base + sizeof top);
	const char *pool = ok ? base + sizeof top + top.n_entries * sizeof(lx_ent) : NULL;
	ok = ok && pool[top.pool_len - 1] == '\0';
	for (size_t i = 0; ok && i < top.n_entries; i++) {
		const lx_ent *e = &ents[i];
		ok = e->rule_index >= 0 && str_ok(e->wrong, top.pool_len, 0) && e->wrong_len &&
		     e->wrong_len < top.pool_len - e->wrong && pool[e->wrong + e->wrong_len] == '\0' &&
		     str_ok(e->right, top.pool_len, 1) && str_ok(e->note, top.pool_len, 1) &&
		     str_ok(e->prev_not, top.pool_len, 1) && str_ok(e->next_not, top.pool_len, 1) &&
		     e->safety >= -1 && e->safety <= JH_UNSAFE;
	}
	if (!ok) { /* damaged or of another build: read the files, written anew */
		munmap(map, len);
		return 1;
	}
	jh_lex_entry *v = malloc((top.n_entries + 1) * sizeof *v);
	if (!v) {
		munmap(map, len);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < top.n_entries; i++) {
		const lx_ent *e = &ents[i];
#define S(off) ((off) == LX_NONE ? NULL : (char *)pool + (off))
		v[i] = (jh_lex_entry){(long)e->rule_index, S(e->wrong), e->wrong_len, S(e->right), S(e->note),
		                      S(e->prev_not), S(e->next_not), e->line, e->safety, -1};
#undef S
	}
	lx->entries = v;
	lx->n_entries = top.n_entries;
	lx->cap_entries = top.n_entries + 1;
	lx->map = map;
	lx->map_len = len;
	return JH_OK;
}
