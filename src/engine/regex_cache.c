/* regex_cache.c — the rule set's compiled patterns in the cache folder.
 *
 * Compiling the default rules' 29 patterns was 2.7 M instructions of
 * every start (a one-line check was 23 M).  PCRE2 writes compiled codes
 * out and reads them back itself (pcre2_serialize_*); this file keeps
 * them in one cache file per list of patterns: named by a hash of PCRE2's
 * version and every pattern with its options, in the order the rule set
 * compiles them, and written only when every one of them compiled.
 *
 * PCRE2 does not check a serialised code beyond its head, so the file
 * also holds a hash of the codes and the patterns themselves; a file that
 * does not match is not used (the patterns are compiled), a pattern that
 * differs from its entry is compiled.  The cache folder is the user's own
 * (0700, like the tables beside it). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "regex.h"
#include "tablecache.h"
#include "util.h"

#define REGEX_MAGIC "JHREGX\0\1"

typedef struct {
	uint32_t opts, pat, pat_len, pad;
} rx_ent;

#define REGEX_LAYOUT ((uint32_t)sizeof(rx_ent))

typedef struct {
	uint64_t n, text_len, blob_len, blob_hash;
} rx_counts;

struct jh_rx_preload {
	uint64_t key;
	uint64_t name;        /* the rule files the patterns are from: the file's name */
	size_t n_listed;      /* the patterns the rule set will compile */
	const char **pattern; /* theirs (the rules'), in order */
	uint32_t *opts;
	size_t next;          /* jh_regexes_add calls so far */
	int missed;           /* one of them was compiled, not taken */
	pcre2_code **codes;   /* decoded from the map, n of them; NULL once taken */
	size_t n;
	const rx_ent *ents;
	const char *text;
	void *map;
	size_t map_len;
};

uint32_t jh_regex_opts(const jh_regexes *rx, const jh_rule *r)
{
	uint32_t opts = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | rx->compile_opts;
	if (r->trigger)
		opts |= PCRE2_USE_OFFSET_LIMIT;
	return opts;
}

/* Does the rule set compile r's pattern (jh_ruleset_compile)? */
static int compiled_here(const jh_rule *r)
{
	return !r->broken && r->kind == JH_KIND_REGEX && !jh_regex_bad_param(r) && r->pattern;
}

static void unmap(struct jh_rx_preload *p)
{
	for (size_t i = 0; p->codes && i < p->n; i++)
		pcre2_code_free(p->codes[i]);
	free(p->codes);
	p->codes = NULL;
	if (p->map)
		munmap(p->map, p->map_len);
	p->map = NULL;
}

/* The codes of the cache file of p->key, checked; 0 when p holds them. */
static int read_cached(struct jh_rx_preload *p, const char *cache_dir)
{
	if (jh_cache_map_keyed(cache_dir, "regex", p->name, p->key, REGEX_MAGIC, REGEX_LAYOUT, &p->map, &p->map_len))
		return -1;
	const char *base = p->map;
	size_t len = p->map_len, at = jh_cache_align(sizeof(jh_cache_head));
	rx_counts h = {0};
	int ok = len >= at + sizeof h;
	size_t ents = 0, text = 0, blob = 0;
	if (ok) {
		memcpy(&h, base + at, sizeof h);
		ok = h.n == p->n_listed && h.n < INT32_MAX && h.text_len < UINT32_MAX && h.blob_len < len;
	}
	if (ok) {
		ents = jh_cache_align(at + sizeof h);
		text = jh_cache_align(ents + h.n * sizeof(rx_ent));
		blob = jh_cache_align(text + h.text_len);
		ok = blob + h.blob_len == len && jh_hash(base + blob, h.blob_len) == h.blob_hash;
	}
	const rx_ent *e = (const rx_ent *)(base + ents);
	for (size_t i = 0; ok && i < h.n; i++)
		ok = e[i].pat <= h.text_len && e[i].pat_len <= h.text_len - e[i].pat;
	if (ok && h.n) {
		ok = (p->codes = calloc(h.n, sizeof *p->codes)) != NULL &&
		     pcre2_serialize_decode(p->codes, (int32_t)h.n, (const uint8_t *)base + blob, NULL) ==
		             (int32_t)h.n;
	}
	if (!ok) {
		unmap(p);
		return -1;
	}
	p->n = h.n;
	p->ents = e;
	p->text = base + text;
	return 0;
}

int jh_regexes_preload(jh_regexes *rx, const char *cache_dir, jh_rule *const *rules, size_t n)
{
	if (!cache_dir)
		return JH_OK;
	struct jh_rx_preload *p = calloc(1, sizeof *p);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += compiled_here(rules[i]);
	if (!p || !(p->pattern = malloc((k ? k : 1) * sizeof *p->pattern)) ||
	    !(p->opts = malloc((k ? k : 1) * sizeof *p->opts))) {
		if (p)
			free(p->pattern);
		free(p);
		return JH_ERR_NOMEM;
	}
	jh_buf key = {0};
	char version[64] = "";
	pcre2_config(PCRE2_CONFIG_VERSION, version);
	int bad = jh_buf_puts(&key, version) || jh_buf_putc(&key, '\0');
	for (size_t i = 0; i < n && !bad; i++) {
		if (!compiled_here(rules[i]))
			continue;
		uint32_t o = jh_regex_opts(rx, rules[i]);
		p->pattern[p->n_listed] = rules[i]->pattern;
		p->opts[p->n_listed++] = o;
		bad = jh_buf_append(&key, (const char *)&o, sizeof o) || jh_buf_puts(&key, rules[i]->pattern) ||
		      jh_buf_putc(&key, '\0');
	}
	if (bad) {
		jh_buf_free(&key);
		free(p->pattern);
		free(p->opts);
		free(p);
		return JH_ERR_NOMEM;
	}
	p->key = jh_hash(key.data, key.len);
	jh_buf_free(&key);
	/* named by the files the patterns come from, so that the file of an
	 * edited rule set replaces its own earlier one (tablecache.c) */
	p->name = 0x5245474558ULL;
	const char *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (compiled_here(rules[i]) && (!last || strcmp(last, rules[i]->file) != 0)) {
			last = rules[i]->file;
			p->name = (p->name ^ jh_hash(last, strlen(last))) * 0x9E3779B97F4A7C15ULL;
		}
	read_cached(p, cache_dir); /* none: every pattern is compiled, then cached */
	rx->preload = p;
	return JH_OK;
}

pcre2_code *jh_regexes_take(jh_regexes *rx, const char *pattern, uint32_t opts)
{
	struct jh_rx_preload *p = rx->preload;
	if (!p)
		return NULL;
	size_t i = p->next++;
	pcre2_code *c = NULL;
	if (p->codes && i < p->n && p->ents[i].opts == opts && strlen(pattern) == p->ents[i].pat_len &&
	    !memcmp(p->text + p->ents[i].pat, pattern, p->ents[i].pat_len)) {
		c = p->codes[i];
		p->codes[i] = NULL;
	}
	p->missed |= !c;
	return c;
}

/* Write the cache file of p->key: every listed pattern compiled, in order. */
static void store(const jh_regexes *rx, const struct jh_rx_preload *p, const char *cache_dir)
{
	const pcre2_code **codes = malloc((rx->n ? rx->n : 1) * sizeof *codes);
	rx_ent *e = malloc((rx->n ? rx->n : 1) * sizeof *e);
	jh_buf text = {0};
	int bad = !codes || !e;
	for (size_t i = 0; i < rx->n && !bad; i++) {
		codes[i] = rx->v[i].code;
		size_t pl = strlen(p->pattern[i]);
		e[i] = (rx_ent){p->opts[i], (uint32_t)text.len, (uint32_t)pl, 0};
		bad = jh_buf_append(&text, p->pattern[i], pl) || text.len >= UINT32_MAX;
	}
	uint8_t *blob = NULL;
	PCRE2_SIZE blob_len = 0;
	if (!bad && rx->n && pcre2_serialize_encode(codes, (int32_t)rx->n, &blob, &blob_len, NULL) != (int32_t)rx->n)
		bad = 1;
	if (!bad && blob) {
		rx_counts h = {rx->n, text.len, blob_len, jh_hash((const char *)blob, blob_len)};
		const jh_cache_section s[] = {
			{&h, sizeof h},
			{e, rx->n * sizeof *e},
			{text.data ? text.data : "", text.len},
			{blob, blob_len},
		};
		jh_cache_store_keyed(cache_dir, "regex", p->name, p->key, REGEX_MAGIC, REGEX_LAYOUT, s, 4);
	}
	if (blob)
		pcre2_serialize_free(blob);
	jh_buf_free(&text);
	free(e);
	free(codes);
}

void jh_regexes_preload_done(jh_regexes *rx, const char *cache_dir)
{
	struct jh_rx_preload *p = rx->preload;
	if (!p)
		return;
	if (p->missed && p->next == p->n_listed && rx->n == p->n_listed && cache_dir)
		store(rx, p, cache_dir);
	jh_regexes_preload_free(rx);
}

void jh_regexes_preload_free(jh_regexes *rx)
{
	struct jh_rx_preload *p = rx->preload;
	if (!p)
		return;
	unmap(p);
	free(p->pattern);
	free(p->opts);
	free(p);
	rx->preload = NULL;
}
