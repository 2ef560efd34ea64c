/* rulecache.c — a rules folder as read (jh_ruleset_load_dir), kept in the
 * cache folder.  Parsing the default rules' INI files was 4.7 M of the
 * 11.9 M instructions of a one-line check, 2.0 M of it their examples;
 * mapping this file and pointing the rules into it is about 0.2 M.
 *
 * One file per folder: named by the folder's path, with a hash of its rule
 * files' state (name, device, inode, size, modification time of each, and
 * this program's version) in the name and the head; the example files a
 * rule reads (bad-file = NAME) are listed inside with their state, checked
 * when it is mapped.  Any change to a rule file, a new or removed one, or
 * a changed example file: another ident, and the folder is parsed again.
 * Only a load that reported nothing is stored, so a cached load, which
 * reports nothing, says what the parse would.  The rule set's parameters
 * from a configuration are applied after the load (jh_ruleset_set_param),
 * so they are no part of it.
 *
 * The file: the jh_cache_head, then a table of sections, each named by a
 * tag, then the sections.  A reader finds a section by its tag and ignores
 * tags it does not know, so a later stage can add its own (a rule's
 * pre-check data) in a new section without changing the others; a change
 * to a section's own records changes RC_LAYOUT.  A hash of everything
 * after the head is checked before anything is used, then every index and
 * offset, so a damaged file is parsed again (and written anew), never
 * trusted.  (What those checks guard against is damage: the folder is
 * the user's own, 0700, and one who forges a file with a matching hash
 * can as well edit the rules.)  The examples are stored but decoded only
 * when asked for (`jinghua test-rules`, --explain). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "config.h"
#include "rulecache.h"
#include "tablecache.h"

#define RC_MAGIC "JHRULES\1"
#define RC_NONE UINT32_MAX

typedef struct {
	char tag[8];
	uint64_t off, len; /* from the start of the payload */
} rc_sect;

typedef struct {
	uint64_t len, hash; /* of the payload after this top */
	uint32_t n_sect, n_files;
} rc_top;

typedef struct {
	uint32_t path;
	uint32_t pad;
	uint64_t dev, ino, size, mtime_sec, mtime_nsec;
} rc_xfile;

typedef struct {
	uint32_t file, line, kind, flags, severity, safety, lead, foreign, near, pad;
	uint32_t id, family, message, description, fix, pattern, trigger, trigger_words, near_words;
	uint32_t lexicon, check;
	uint32_t path, data_dir;
	uint32_t map, n_map;
	uint32_t params, n_params, examples, n_examples;
} rc_rule;

typedef struct {
	uint32_t key, value, line;
} rc_param;

typedef struct {
	uint32_t kind, text, fixed, line;
} rc_example;

enum { F_KIND_SET = 1, F_HAS_FIX = 2, F_SAFETY_SET = 4, F_ENABLED = 8 };

#define RC_LAYOUT ((uint32_t)(sizeof(rc_rule) << 16 | sizeof(rc_xfile) << 8 | sizeof(rc_example)))

struct jh_rc_map {
	void *map;
	size_t len;
};

/* ---- the log of a load ---- */

void jh_rc_log_push(jh_rc_log *log, size_t idx)
{
	if (log->failed || jh_grow((void **)&log->pushed, &log->cap_pushed, log->n_pushed + 1,
	                           sizeof *log->pushed)) {
		log->failed = 1;
		return;
	}
	log->pushed[log->n_pushed++] = idx;
}

void jh_rc_log_file(jh_rc_log *log, const char *path)
{
	char *p = NULL;
	if (log->failed || jh_grow((void **)&log->xfiles, &log->cap_xfiles, log->n_xfiles + 1,
	                           sizeof *log->xfiles) || !(p = jh_strdup(path))) {
		log->failed = 1;
		return;
	}
	log->xfiles[log->n_xfiles++] = p;
}

void jh_rc_log_free(jh_rc_log *log)
{
	free(log->pushed);
	for (size_t i = 0; i < log->n_xfiles; i++)
		free(log->xfiles[i]);
	free(log->xfiles);
	memset(log, 0, sizeof *log);
}

/* ---- identity ---- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	return (h ^ jh_hash(p, n)) * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
}

static uint64_t stat_mix(uint64_t h, const struct stat *st)
{
	uint64_t v[5] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
	                 (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec};
	return mix(h, v, sizeof v);
}

int jh_rc_ident(const char *dir, char *const *names, size_t n, uint64_t *ident)
{
	uint64_t h = mix(0, RC_MAGIC JH_VERSION, sizeof RC_MAGIC JH_VERSION);
	uint32_t layout = RC_LAYOUT;
	h = mix(h, &layout, sizeof layout);
	h = mix(h, dir, strlen(dir) + 1);
	jh_buf p = {0};
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		p.len = 0;
		if (jh_buf_puts(&p, dir) || jh_buf_putc(&p, '/') || jh_buf_puts(&p, names[i]) ||
		    stat(p.data, &st) != 0) {
			jh_buf_free(&p);
			return -1;
		}
		h = mix(h, names[i], strlen(names[i]) + 1);
		h = stat_mix(h, &st);
	}
	jh_buf_free(&p);
	*ident = h;
	return 0;
}

/* ---- writing ---- */

typedef struct {
	jh_buf pool;
	int bad;
} pool_w;

static uint32_t put_str(pool_w *w, const char *s)
{
	if (!s)
		return RC_NONE;
	uint32_t at = (uint32_t)w->pool.len;
	if (w->pool.len > UINT32_MAX / 2 || jh_buf_append(&w->pool, s, strlen(s) + 1))
		w->bad = 1;
	return at;
}

static uint32_t put_map(pool_w *w, const int32_t *map, size_t n_pairs)
{
	if (!map || !n_pairs)
		return RC_NONE;
	while (w->pool.len % 4)
		if (jh_buf_putc(&w->pool, 0))
			w->bad = 1;
	uint32_t at = (uint32_t)w->pool.len;
	if (jh_buf_append(&w->pool, (const char *)map, n_pairs * 2 * sizeof *map))
		w->bad = 1;
	return at;
}

static int grow_add(void **arr, size_t *n, size_t *cap, const void *item, size_t size)
{
	if (jh_grow(arr, cap, *n + 1, size))
		return -1;
	memcpy((char *)*arr + *n * size, item, size);
	(*n)++;
	return 0;
}

void jh_rc_store(const jh_ruleset *rs, const char *dir, size_t n_files, unsigned loads0,
                 uint64_t ident, const jh_rc_log *log)
{
	if (log->failed || log->diags || !rs->cache_dir)
		return;
	pool_w w = {{0}, 0};
	rc_rule *rules = NULL;
	rc_param *params = NULL;
	rc_example *exs = NULL;
	rc_xfile *xf = NULL;
	size_t n_rules = 0, cap_r = 0, n_params = 0, cap_p = 0, n_exs = 0, cap_e = 0;
	/* the pool's first byte: no string starts at 0, so 0 is never NONE */
	if (jh_buf_putc(&w.pool, 0))
		w.bad = 1;
	if (!(xf = calloc(log->n_xfiles + 1, sizeof *xf)))
		w.bad = 1;
	for (size_t i = 0; i < log->n_xfiles && !w.bad; i++) {
		struct stat st;
		if (stat(log->xfiles[i], &st) != 0) {
			w.bad = 1;
			break;
		}
		xf[i] = (rc_xfile){put_str(&w, log->xfiles[i]), 0, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
		                   (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec,
		                   (uint64_t)st.st_mtim.tv_nsec};
	}
	for (size_t k = 0; k < log->n_pushed && !w.bad; k++) {
		size_t idx = log->pushed[k];
		int first = 1; /* a rule pushed again (a later file's) keeps its first place */
		for (size_t j = 0; j < k && first; j++)
			first = log->pushed[j] != idx;
		if (!first)
			continue;
		const jh_rule *r = rs->rules[idx];
		if (r->load_id <= loads0 || r->load_id > loads0 + n_files || r->broken) {
			w.bad = 1;
			break;
		}
		rc_rule rr = {
			.file = r->load_id - loads0 - 1, .line = r->line, .kind = (uint32_t)r->kind,
			.flags = (r->kind_set ? F_KIND_SET : 0) | (r->has_fix ? F_HAS_FIX : 0) |
			         (r->safety_set ? F_SAFETY_SET : 0) | (r->enabled_by_default ? F_ENABLED : 0),
			.severity = (uint32_t)r->severity, .safety = (uint32_t)r->safety, .lead = r->lead,
			.foreign = (uint32_t)r->foreign, .near = r->near,
		};
		rr.id = put_str(&w, r->id);
		rr.family = put_str(&w, r->family);
		rr.message = put_str(&w, r->message);
		rr.description = put_str(&w, r->description);
		rr.fix = put_str(&w, r->fix);
		rr.pattern = put_str(&w, r->pattern);
		rr.trigger = put_str(&w, r->trigger);
		rr.trigger_words = put_str(&w, r->trigger_words);
		rr.near_words = put_str(&w, r->near_words);
		rr.lexicon = put_str(&w, r->lexicon);
		rr.check = put_str(&w, r->check);
		rr.path = put_str(&w, r->file);
		rr.data_dir = put_str(&w, r->data_dir);
		rr.map = put_map(&w, r->map, r->n_map);
		rr.n_map = (uint32_t)r->n_map;
		rr.params = (uint32_t)n_params;
		rr.n_params = (uint32_t)r->n_params;
		for (size_t i = 0; i < r->n_params && !w.bad; i++) {
			rc_param p = {put_str(&w, r->params[i].key), put_str(&w, r->params[i].value),
			              r->params[i].line};
			w.bad |= grow_add((void **)&params, &n_params, &cap_p, &p, sizeof p);
		}
		const jh_example_def *ex = jh_rule_examples(r);
		rr.examples = (uint32_t)n_exs;
		rr.n_examples = (uint32_t)r->n_examples;
		w.bad |= r->n_examples && !ex;
		for (size_t i = 0; i < r->n_examples && !w.bad; i++) {
			rc_example e = {(uint32_t)ex[i].kind, put_str(&w, ex[i].text), put_str(&w, ex[i].fixed),
			                ex[i].line};
			w.bad |= grow_add((void **)&exs, &n_exs, &cap_e, &e, sizeof e);
		}
		w.bad |= grow_add((void **)&rules, &n_rules, &cap_r, &rr, sizeof rr);
	}
	if (!w.bad) {
		/* the payload: top, section table, then each section 8-aligned */
		struct {
			const char *tag;
			const void *p;
			size_t len;
		} parts[] = {
			{"rules", rules, n_rules * sizeof *rules},
			{"params", params, n_params * sizeof *params},
			{"examples", exs, n_exs * sizeof *exs},
			{"xfiles", xf, log->n_xfiles * sizeof *xf},
			{"strings", w.pool.data, w.pool.len},
		};
		enum { N = sizeof parts / sizeof *parts };
		size_t at = jh_cache_align(sizeof(rc_top) + N * sizeof(rc_sect));
		rc_sect sect[N];
		for (size_t i = 0; i < N; i++) {
			memset(&sect[i], 0, sizeof sect[i]);
			memcpy(sect[i].tag, parts[i].tag, strlen(parts[i].tag));
			sect[i].off = at;
			sect[i].len = parts[i].len;
			at = jh_cache_align(at + parts[i].len);
		}
		char *payload = calloc(1, at);
		if (payload) {
			rc_top top = {at - sizeof top, 0, N, (uint32_t)n_files};
			memcpy(payload + sizeof top, sect, sizeof sect);
			for (size_t i = 0; i < N; i++)
				if (parts[i].len)
					memcpy(payload + sect[i].off, parts[i].p, parts[i].len);
			top.hash = jh_hash(payload + sizeof top, at - sizeof top);
			memcpy(payload, &top, sizeof top);
			jh_cache_section s = {payload, at};
			jh_cache_store_named(rs->cache_dir, "rules", dir, ident, RC_MAGIC, RC_LAYOUT, &s, 1);
			free(payload);
		}
	}
	free(rules);
	free(params);
	free(exs);
	free(xf);
	jh_buf_free(&w.pool);
}

/* ---- reading ---- */

typedef struct {
	const char *base; /* the payload */
	const rc_rule *rules;
	const rc_param *params;
	const rc_example *exs;
	const rc_xfile *xf;
	const char *pool;
	size_t n_rules, n_params, n_exs, n_xf, pool_len;
	uint32_t n_files;
} rc_view;

static const void *section(const char *base, const rc_sect *sect, uint32_t n, uint64_t len,
                           const char *tag, size_t elem, size_t *count)
{
	for (uint32_t i = 0; i < n; i++) {
		if (strncmp(sect[i].tag, tag, sizeof sect[i].tag) != 0)
			continue;
		if (sect[i].off > len || sect[i].len > len - sect[i].off || sect[i].off % 8 ||
		    sect[i].len % elem)
			return NULL;
		*count = sect[i].len / elem;
		return base + sect[i].off;
	}
	return NULL;
}

static int str_ok(const rc_view *v, uint32_t off, int may_be_none)
{
	return off == RC_NONE ? may_be_none : off > 0 && off < v->pool_len;
}

/* Is every record's every index and offset in range? */
static int view_ok(const rc_view *v)
{
	if (!v->pool_len || v->pool[v->pool_len - 1] != '\0')
		return 0; /* then every string in it ends inside it */
	for (size_t i = 0; i < v->n_xf; i++)
		if (!str_ok(v, v->xf[i].path, 0))
			return 0;
	for (size_t i = 0; i < v->n_params; i++)
		if (!str_ok(v, v->params[i].key, 0) || !str_ok(v, v->params[i].value, 0))
			return 0;
	for (size_t i = 0; i < v->n_exs; i++)
		if (v->exs[i].kind > JH_EXAMPLE_GOOD || !str_ok(v, v->exs[i].text, 0) ||
		    !str_ok(v, v->exs[i].fixed, 1))
			return 0;
	for (size_t i = 0; i < v->n_rules; i++) {
		const rc_rule *r = &v->rules[i];
		if (r->file >= v->n_files || r->kind > JH_KIND_BUILTIN || r->severity > JH_ERROR ||
		    r->safety > JH_UNSAFE || r->foreign > JH_FOREIGN_SENTENCE || !str_ok(v, r->id, 0) || !str_ok(v, r->family, 0) ||
		    !str_ok(v, r->message, 0) || !str_ok(v, r->path, 0) || !str_ok(v, r->data_dir, 0))
			return 0;
		const uint32_t opt[] = {r->description, r->fix, r->pattern, r->trigger,
		                        r->trigger_words, r->near_words, r->lexicon, r->check};
		for (size_t k = 0; k < sizeof opt / sizeof *opt; k++)
			if (!str_ok(v, opt[k], 1))
				return 0;
		if (r->n_map && (r->map == RC_NONE || r->map % 4 ||
		                 (uint64_t)r->map + (uint64_t)r->n_map * 8 > v->pool_len))
			return 0;
		if ((uint64_t)r->params + r->n_params > v->n_params ||
		    (uint64_t)r->examples + r->n_examples > v->n_exs)
			return 0;
		/* what a load that reported nothing leaves true of every rule,
		 * which the compiler relies on (finish_rules) */
		uint32_t need = r->kind == JH_KIND_REGEX     ? r->pattern
		                : r->kind == JH_KIND_LEXICON ? r->lexicon
		                                             : r->check;
		if (!(r->flags & F_KIND_SET) || need == RC_NONE ||
		    ((r->flags & F_HAS_FIX) && !(r->flags & F_SAFETY_SET)))
			return 0;
	}
	return 1;
}

/* Do the example files listed still have the state they were read in? */
static int xfiles_same(const rc_view *v)
{
	for (size_t i = 0; i < v->n_xf; i++) {
		struct stat st;
		const rc_xfile *x = &v->xf[i];
		if (stat(v->pool + x->path, &st) != 0 || x->dev != (uint64_t)st.st_dev ||
		    x->ino != (uint64_t)st.st_ino || x->size != (uint64_t)st.st_size ||
		    x->mtime_sec != (uint64_t)st.st_mtim.tv_sec ||
		    x->mtime_nsec != (uint64_t)st.st_mtim.tv_nsec)
			return 0;
	}
	return 1;
}

static int open_view(void *map, size_t len, uint32_t n_files, rc_view *v)
{
	size_t at = jh_cache_align(sizeof(jh_cache_head));
	if (len < at + sizeof(rc_top))
		return -1;
	const char *base = (const char *)map + at;
	rc_top top;
	memcpy(&top, base, sizeof top);
	uint64_t plen = len - at;
	if (top.len != plen - sizeof top || top.n_files != n_files || top.n_sect > 64 ||
	    sizeof top + (uint64_t)top.n_sect * sizeof(rc_sect) > plen ||
	    jh_hash(base + sizeof top, plen - sizeof top) != top.hash)
		return -1;
	const rc_sect *sect = (const rc_sect *)(base + sizeof top);
	memset(v, 0, sizeof *v);
	v->base = base;
	v->n_files = n_files;
	v->rules = section(base, sect, top.n_sect, plen, "rules", sizeof *v->rules, &v->n_rules);
	v->params = section(base, sect, top.n_sect, plen, "params", sizeof *v->params, &v->n_params);
	v->exs = section(base, sect, top.n_sect, plen, "examples", sizeof *v->exs, &v->n_exs);
	v->xf = section(base, sect, top.n_sect, plen, "xfiles", sizeof *v->xf, &v->n_xf);
	v->pool = section(base, sect, top.n_sect, plen, "strings", 1, &v->pool_len);
	if (!v->rules || !v->params || !v->exs || !v->xf || !v->pool || !view_ok(v) || !xfiles_same(v))
		return -1;
	return 0;
}

static const char *str_at(const rc_view *v, uint32_t off)
{
	return off == RC_NONE ? NULL : v->pool + off;
}

/* A rule of the rule set made from its record (its strings in the map). */
static jh_rule *rule_of(const jh_ruleset *rs, const rc_view *v, const rc_rule *rr, unsigned loads0)
{
	jh_rule *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->mapped = 1;
	if (rr->n_params && !(r->params = malloc(rr->n_params * sizeof *r->params))) {
		free(r);
		return NULL;
	}
	r->n_params = r->cap_params = r->n_params_mapped = rr->n_params;
	for (uint32_t i = 0; i < rr->n_params; i++) {
		const rc_param *p = &v->params[rr->params + i];
		r->params[i] = (jh_param){(char *)str_at(v, p->key), (char *)str_at(v, p->value), p->line};
	}
	r->id = (char *)str_at(v, rr->id);
	r->family = (char *)str_at(v, rr->family);
	r->kind = (jh_kind)rr->kind;
	r->kind_set = !!(rr->flags & F_KIND_SET);
	r->severity = (jh_severity)rr->severity;
	r->message = (char *)str_at(v, rr->message);
	r->description = (char *)str_at(v, rr->description);
	r->has_fix = !!(rr->flags & F_HAS_FIX);
	r->fix = (char *)str_at(v, rr->fix);
	if (rr->n_map) { /* 4-aligned in the pool, the pool 8-aligned in the map */
		r->map = (int32_t *)(void *)(v->pool + rr->map);
		r->n_map = rr->n_map;
	}
	r->safety = (jh_safety)rr->safety;
	r->safety_set = !!(rr->flags & F_SAFETY_SET);
	r->enabled_by_default = !!(rr->flags & F_ENABLED);
	r->pattern = (char *)str_at(v, rr->pattern);
	r->trigger = (char *)str_at(v, rr->trigger);
	r->trigger_words = (char *)str_at(v, rr->trigger_words);
	r->near_words = (char *)str_at(v, rr->near_words);
	r->lead = rr->lead;
	r->near = rr->near;
	r->foreign = (jh_foreign)rr->foreign;
	r->lexicon = (char *)str_at(v, rr->lexicon);
	r->data_dir = (char *)str_at(v, rr->data_dir);
	r->cache_dir = rs->cache_dir;
	r->check = (char *)str_at(v, rr->check);
	r->n_examples = rr->n_examples;
	r->lazy_ex = rr->n_examples ? &v->exs[rr->examples] : NULL;
	r->lazy_pool = v->pool;
	r->file = (char *)str_at(v, rr->path);
	r->line = rr->line;
	r->load_id = loads0 + rr->file + 1;
	r->regex_slot = r->builtin_slot = -1;
	return r;
}

int jh_rc_load(jh_ruleset *rs, const char *dir, size_t n_files, uint64_t ident)
{
	void *map;
	size_t len;
	rc_view v;
	if (!rs->cache_dir || n_files > UINT32_MAX ||
	    jh_cache_map_named(rs->cache_dir, "rules", dir, ident, RC_MAGIC, RC_LAYOUT, &map, &len))
		return 1;
	if (open_view(map, len, (uint32_t)n_files, &v)) {
		munmap(map, len); /* damaged or stale: parsed, and written anew */
		return 1;
	}
	struct jh_rc_map *maps = realloc(rs->maps, (rs->n_maps + 1) * sizeof *maps);
	if (!maps) {
		munmap(map, len);
		return JH_ERR_NOMEM;
	}
	rs->maps = maps;
	rs->maps[rs->n_maps++] = (struct jh_rc_map){map, len};
	unsigned loads0 = rs->loads;
	rs->loads += (unsigned)n_files;
	/* as push_rule does: a rule defined before is replaced where it is */
	for (size_t i = 0; i < v.n_rules; i++) {
		jh_rule *r = rule_of(rs, &v, &v.rules[i], loads0);
		if (!r)
			return JH_ERR_NOMEM;
		long at = jh_ruleset_find(rs, r->id);
		if (at >= 0) {
			jh_rule_free(rs->rules[at]);
			rs->rules[at] = r;
			continue;
		}
		if (jh_grow((void **)&rs->rules, &rs->cap, rs->count + 1, sizeof *rs->rules)) {
			jh_rule_free(r);
			return JH_ERR_NOMEM;
		}
		rs->rules[rs->count] = r;
		if (jh_ruleset_index_add(rs, rs->count)) {
			jh_rule_free(r);
			return JH_ERR_NOMEM;
		}
		rs->count++;
	}
	return JH_OK;
}

void jh_rc_unmap(jh_ruleset *rs)
{
	for (size_t i = 0; i < rs->n_maps; i++)
		munmap(rs->maps[i].map, rs->maps[i].len);
	free(rs->maps);
	rs->maps = NULL;
	rs->n_maps = 0;
}

/* ---- examples, when asked for ---- */

static pthread_mutex_t examples_lock = PTHREAD_MUTEX_INITIALIZER;

const jh_example_def *jh_rule_examples(const jh_rule *r)
{
	jh_example_def *ex = __atomic_load_n(&((jh_rule *)r)->examples, __ATOMIC_ACQUIRE);
	if (ex || !r->n_examples || !r->lazy_ex)
		return ex;
	/* the rule set is shared by threads: one decodes, under the lock */
	pthread_mutex_lock(&examples_lock);
	ex = r->examples;
	if (!ex && (ex = malloc(r->n_examples * sizeof *ex))) {
		const rc_example *e = r->lazy_ex;
		for (size_t i = 0; i < r->n_examples; i++)
			ex[i] = (jh_example_def){(jh_example_kind)e[i].kind, (char *)r->lazy_pool + e[i].text,
			                         e[i].fixed == RC_NONE ? NULL : (char *)r->lazy_pool + e[i].fixed,
			                         e[i].line};
		jh_rule *w = (jh_rule *)r;
		w->cap_examples = r->n_examples;
		__atomic_store_n(&w->examples, ex, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&examples_lock);
	return ex;
}
