/* wordmap.c — the word-frequency table of wordmap.h: loading (jh_tsv),
 * the hash, the prefix marks, the prefix and suffix indexes, and the
 * process-wide sharing. */
#define _GNU_SOURCE /* qsort_r */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "utf8.h"
#include "util.h"
#include "tablecache.h"
#include "wordmap.h"

void jh_wm_free(jh_wordmap *m)
{
	if (m->map) { /* the arrays point into the compiled form (wordmap_cache.c) */
		pthread_mutex_destroy(&m->sfx_lock);
		munmap(m->map, m->map_len);
		memset(m, 0, sizeof *m);
		return;
	}
	free(m->buf);
	free(m->off);
	free(m->freq);
	free(m->len);
	free(m->slot);
	free(m->by_prefix);
	if (m->by_suffix)
		pthread_mutex_destroy(&m->sfx_lock);
	free(m->by_suffix);
	free(m->sfx_run);
	memset(m, 0, sizeof *m);
}

/* A slot keeps the top 31 bits of the word's hash beside its index: most
 * lookups are misses (substrings of a Viterbi window are seldom words),
 * and the tag rejects them without touching the length, offset and text
 * arrays — three cache misses each on a table of this size.  Bit 32 says
 * that a longer word begins with this one (WM_EXT, kept for the model of
 * mask suggestions, whose segmentation stops extending a word there). */
#define WM_EXT ((uint64_t)1 << 32)
static uint64_t wm_tag(uint64_t h) { return (h >> 33) << 33; }

/* The slot of s (n bytes), or NULL. */
static const uint64_t *wm_slot(const jh_wordmap *m, const char *s, size_t n)
{
	if (!m->nslot || n == 0 || n > 255)
		return NULL;
	uint64_t hash = jh_hash(s, n), tag = wm_tag(hash);
	size_t h = (size_t)hash & (m->nslot - 1);
	/* bounded, and the entry checked: a mapped table comes from a file */
	uint64_t v;
	for (size_t k = 0; k < m->nslot && (v = m->slot[h]); k++, h = (h + 1) & (m->nslot - 1)) {
		uint32_t i = (uint32_t)v - 1;
		if (i < m->n_all && wm_tag(v) == tag && m->len[i] == n &&
		    memcmp(m->buf + m->off[i], s, n) == 0)
			return &m->slot[h];
	}
	return NULL;
}

uint32_t jh_wm_get(const jh_wordmap *m, const char *s, size_t n)
{
	const uint64_t *v = wm_slot(m, s, n);
	return v ? m->freq[(uint32_t)*v - 1] : 0;
}

/* Frequency of s, and in *ext whether a longer word starts with it. */
int jh_wm_has(const jh_wordmap *m, const char *s, size_t n)
{
	const uint64_t *v = wm_slot(m, s, n);
	return v && (uint32_t)*v - 1 < m->n; /* not a prefix-only entry */
}

uint32_t jh_wm_look(const jh_wordmap *m, const char *s, size_t n, int *ext)
{
	const uint64_t *v = wm_slot(m, s, n);
	*ext = v && (*v & WM_EXT);
	return v ? m->freq[(uint32_t)*v - 1] : 0;
}

static void wm_insert(jh_wordmap *m, size_t i, uint64_t flags)
{
	uint64_t hash = jh_hash(m->buf + m->off[i], m->len[i]);
	size_t h = (size_t)hash & (m->nslot - 1);
	while (m->slot[h])
		h = (h + 1) & (m->nslot - 1);
	m->slot[h] = wm_tag(hash) | flags | ((uint64_t)i + 1);
}

/* Compare two words by their characters read from the end (for suffix
 * search): byte-reversing UTF-8 would break characters, so compare
 * character by character from the back. */

static int cmp_rev(const char *a, size_t al, const char *b, size_t bl)
{
	while (al && bl) {
		size_t as = jh_utf8_start_back(a, al), bs = jh_utf8_start_back(b, bl);
		size_t an = al - as, bn = bl - bs;
		int c = memcmp(a + as, b + bs, an < bn ? an : bn);
		if (c || an != bn)
			return c ? c : (an < bn ? -1 : 1);
		al = as;
		bl = bs;
	}
	return al ? 1 : bl ? -1 : 0;
}

/* Sort word indexes by the NUL-terminated strings at buf + off[i] in
 * byte order (= code-point order for UTF-8): most-significant-byte radix
 * sort, linear in the bytes of the words, where qsort's comparisons were
 * most of the time it took to read a 90,000-word list. */
static void radix_sort(uint32_t *idx, uint32_t *tmp, size_t n, const char *buf,
                       const uint32_t *off, size_t depth)
{
	while (n > 1) {
		if (n < 32) { /* insertion sort for small buckets */
			for (size_t i = 1; i < n; i++) {
				uint32_t x = idx[i];
				size_t j = i;
				while (j && strcmp(buf + off[idx[j - 1]] + depth, buf + off[x] + depth) > 0) {
					idx[j] = idx[j - 1];
					j--;
				}
				idx[j] = x;
			}
			return;
		}
		/* UTF-8 of Han text uses few byte values at each depth: only the
		 * range [lo, hi] seen is walked */
		size_t count[257];
		int lo = 255, hi = 0;
		for (size_t i = 0; i < n; i++) {
			int c = (unsigned char)buf[off[idx[i]] + depth];
			lo = c < lo ? c : lo;
			hi = c > hi ? c : hi;
		}
		memset(count + lo, 0, (size_t)(hi - lo + 2) * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(unsigned char)buf[off[idx[i]] + depth] + 1]++;
		count[lo] = 0;
		for (int b = lo + 1; b <= hi + 1; b++)
			count[b] += count[b - 1];
		size_t start[257];
		memcpy(start + lo, count + lo, (size_t)(hi - lo + 2) * sizeof *count);
		for (size_t i = 0; i < n; i++)
			tmp[count[(unsigned char)buf[off[idx[i]] + depth]]++] = idx[i];
		memcpy(idx, tmp, n * sizeof *idx);
		/* bucket 0 holds words that ended: sorted.  Recurse on all but the
		 * largest bucket, loop on that one (bounded stack). */
		int first = lo ? lo : 1;
		if (first > hi)
			return; /* all ended here */
		int big = first;
		for (int b = first + 1; b <= hi; b++)
			if (count[b] - start[b] > count[big] - start[big])
				big = b;
		for (int b = first; b <= hi; b++)
			if (b != big && count[b] - start[b] > 1)
				radix_sort(idx + start[b], tmp, count[b] - start[b], buf, off, depth + 1);
		idx += start[big];
		n = count[big] - start[big];
		depth++;
	}
}

/* Word indexes grouped by last character: a stable two-pass radix sort
 * on the code point (21 bits), then the runs of equal code points. */
static int wm_group_by_last(jh_wordmap *m)
{
	size_t n = m->n;
	int32_t *cp = malloc((n ? n : 1) * sizeof *cp);
	uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	m->by_suffix = malloc((n ? n : 1) * sizeof *m->by_suffix);
	if (!cp || !tmp || !m->by_suffix) {
		free(cp);
		free(tmp);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const char *w = m->buf + m->off[i];
		size_t at = jh_utf8_start_back(w, m->len[i]);
		jh_utf8_decode((const unsigned char *)w + at, m->len[i] - at, &cp[i]);
		if (cp[i] < 0)
			cp[i] = 0; /* words are valid UTF-8; a stray byte never ends a key */
		m->by_suffix[i] = (uint32_t)i;
	}
	for (int shift = 0; shift < 22; shift += 11) {
		size_t count[2049] = {0};
		for (size_t i = 0; i < n; i++)
			count[((uint32_t)cp[m->by_suffix[i]] >> shift & 2047) + 1]++;
		for (int b = 1; b <= 2048; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[(uint32_t)cp[m->by_suffix[i]] >> shift & 2047]++] = m->by_suffix[i];
		memcpy(m->by_suffix, tmp, n * sizeof *tmp);
	}
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t c = cp[m->by_suffix[i]];
		if (m->n_runs && m->sfx_run[m->n_runs - 1].cp == c) {
			m->sfx_run[m->n_runs - 1].n++;
			continue;
		}
		if (jh_grow((void **)&m->sfx_run, &cap, m->n_runs + 1, sizeof *m->sfx_run)) {
			free(cp);
			free(tmp);
			return JH_ERR_NOMEM;
		}
		m->sfx_run[m->n_runs++] = (struct jh_wm_run){c, (uint32_t)i, 1, 0};
	}
	free(cp);
	free(tmp);
	pthread_mutex_init(&m->sfx_lock, NULL);
	return JH_OK;
}

static int cmp_suffix(const void *a, const void *b, void *arg)
{
	const jh_wordmap *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = cmp_rev(m->buf + m->off[x], m->len[x], m->buf + m->off[y], m->len[y]);
	return c ? c : (x > y) - (x < y); /* equal words keep the list's order */
}

/* The run of words whose last character is the key's, sorted by reversed
 * characters (under the lock the first time: the rule set is shared by
 * threads), as [*lo, *hi) of m->by_suffix; empty if there is none. */
void jh_wm_suffix_run(const jh_wordmap *m, const char *key, size_t kn, size_t *lo, size_t *hi)
{
	*lo = *hi = 0;
	if (!kn || !m->n_runs)
		return;
	size_t at = jh_utf8_start_back(key, kn);
	int32_t cp;
	jh_utf8_decode((const unsigned char *)key + at, kn - at, &cp);
	size_t a = 0, b = m->n_runs;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (m->sfx_run[mid].cp < cp)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == m->n_runs || m->sfx_run[a].cp != cp || cp <= 0)
		return;
	struct jh_wm_run *r = &m->sfx_run[a];
	if (!__atomic_load_n(&r->sorted, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock((pthread_mutex_t *)&m->sfx_lock);
		if (!r->sorted) {
			qsort_r(m->by_suffix + r->start, r->n, sizeof *m->by_suffix, cmp_suffix, (void *)m);
			__atomic_store_n(&r->sorted, 1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock((pthread_mutex_t *)&m->sfx_lock);
	}
	*lo = r->start;
	*hi = r->start + r->n;
}

/* Sort every run of the suffix index: done before the model is written
 * to the cache, whose mapped copy is read-only. */
static void wm_sort_runs(jh_wordmap *m)
{
	for (size_t r = 0; r < m->n_runs; r++)
		if (!m->sfx_run[r].sorted) {
			qsort_r(m->by_suffix + m->sfx_run[r].start, m->sfx_run[r].n, sizeof *m->by_suffix,
			        cmp_suffix, m);
			m->sfx_run[r].sorted = 1;
		}
}

/* The prefix index (the list itself when it is sorted, as the generator
 * writes it) and the words grouped by last character. */
static int wm_sort(jh_wordmap *m)
{
	m->by_prefix = malloc((m->n ? m->n : 1) * sizeof *m->by_prefix);
	if (!m->by_prefix)
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < m->n; i++)
		m->by_prefix[i] = (uint32_t)i;
	size_t i = 1;
	while (i < m->n && strcmp(m->buf + m->off[i - 1], m->buf + m->off[i]) <= 0)
		i++;
	if (i < m->n) {
		uint32_t *tmp = malloc(m->n * sizeof *tmp);
		if (!tmp)
			return JH_ERR_NOMEM;
		radix_sort(m->by_prefix, tmp, m->n, m->buf, m->off, 0);
		free(tmp);
	}
	return wm_group_by_last(m);
}

static size_t common_prefix(const char *a, size_t an, const char *b, size_t bn)
{
	size_t k = 0;
	while (k < an && k < bn && a[k] == b[k])
		k++;
	return k;
}

/* Room for entry `need - 1` in the three parallel arrays.  freq and len
 * grow only when off did: a realloc per word is a copy per word under
 * sanitizers (quadratic on 100,000 words). */
static int wm_reserve(jh_wordmap *m, size_t need)
{
	size_t old = m->cap;
	if (jh_grow((void **)&m->off, &m->cap, need, sizeof *m->off))
		return JH_ERR_NOMEM;
	if (m->cap == old)
		return JH_OK;
	uint32_t *fq = realloc(m->freq, m->cap * sizeof *fq);
	if (fq)
		m->freq = fq;
	uint8_t *ll = fq ? realloc(m->len, m->cap) : NULL;
	if (ll)
		m->len = ll;
	return fq && ll ? JH_OK : JH_ERR_NOMEM;
}

static int wm_append(jh_wordmap *m, uint32_t off, size_t len)
{
	if (wm_reserve(m, m->n_all + 1))
		return JH_ERR_NOMEM;
	m->off[m->n_all] = off;
	m->len[m->n_all] = (uint8_t)len;
	m->freq[m->n_all++] = 0;
	return JH_OK;
}

/* Which words does a longer word begin with (ext[i]), and the prefixes of
 * up to JH_WM_PREFIX characters that are no word, appended as entries of
 * frequency 0 (m->n counts the words only, so the sorted indexes never
 * see them).  In byte order the words that begin with P follow each other,
 * P itself first if it is a word: so each word is compared with its
 * neighbours only, and a prefix is new where it is longer than what the
 * word shares with the one before. */
static int wm_prefixes(jh_wordmap *m, uint8_t **ext_out)
{
	uint8_t *ext = calloc(m->n ? m->n : 1, 1);
	if (!ext)
		return JH_ERR_NOMEM;
	for (size_t k = 0; k < m->n; k++) {
		uint32_t wi = m->by_prefix[k];
		const char *w = m->buf + m->off[wi];
		size_t wn = m->len[wi], shared = 0;
		if (k > 0) {
			uint32_t pi = m->by_prefix[k - 1];
			shared = common_prefix(m->buf + m->off[pi], m->len[pi], w, wn);
		}
		for (size_t j = k + 1; j < m->n; j++) { /* past copies of the same word */
			uint32_t ni = m->by_prefix[j];
			if (m->len[ni] > wn && !memcmp(m->buf + m->off[ni], w, wn)) {
				ext[wi] = 1;
				break;
			}
			if (m->len[ni] != wn || memcmp(m->buf + m->off[ni], w, wn))
				break;
		}
		size_t p = 0;
		for (int c = 1; c <= JH_WM_PREFIX; c++) {
			int32_t cp;
			p += jh_utf8_decode((const unsigned char *)w + p, wn - p, &cp);
			if (p >= wn)
				break;
			if (p > shared && wm_append(m, m->off[wi], p)) {
				free(ext);
				return JH_ERR_NOMEM;
			}
		}
	}
	*ext_out = ext;
	return JH_OK;
}

int jh_wm_load(jh_wordmap *m, const jh_rule *r, const char *file, unsigned line, int indexes,
                   jh_diag_fn diag_fn, void *payload)
{
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, file, r, line, diag_fn, payload);
	char *fld[2];
	size_t fl[2];
	int nf;
	while (rc == JH_OK && (nf = jh_tsv_next(&t, fld, fl, 2)) > 0) {
		size_t n = fl[0];
		unsigned long fr = 1;
		if (nf == 2) { /* the frequency: digits, anything after them ignored */
			fr = 0;
			for (const char *d = fld[1]; *d >= '0' && *d <= '9' && fr < 0xFFFFFFFFul; d++)
				fr = fr * 10 + (unsigned long)(*d - '0');
		}
		if (!n || n > 255 || jh_utf8_valid_prefix(fld[0], n) != n) {
			jh_report(diag_fn, payload, JH_ERROR, t.path, t.line, 0, r->id,
			          "not a word of valid UTF-8 under 256 bytes");
			rc = JH_ERR_RULES;
			break;
		}
		if (wm_reserve(m, m->n + 1)) {
			rc = JH_ERR_NOMEM;
			break;
		}
		/* the word stays where it is in the file's buffer, NUL-terminated */
		m->off[m->n] = (uint32_t)(fld[0] - t.data);
		m->freq[m->n] = fr > 0xFFFFFFFFul ? 0xFFFFFFFFu : (uint32_t)fr;
		m->len[m->n] = (uint8_t)n;
		m->n++;
	}
	m->buf_len = t.data ? t.len + 1 : 0; /* jh_tsv ends its buffer with a NUL */
	m->buf = jh_tsv_take(&t);
	m->n_all = m->n;
	if (rc)
		return rc;
	if (indexes && (rc = wm_sort(m)))
		return rc;
	uint8_t *ext = NULL;
	if (indexes && (rc = wm_prefixes(m, &ext)))
		return rc;
	m->nslot = 16;
	while (m->nslot < m->n_all * 2)
		m->nslot <<= 1;
	if (!(m->slot = calloc(m->nslot, sizeof *m->slot))) {
		free(ext);
		return JH_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->n_all; i++) /* the words first: a duplicate never wins */
		wm_insert(m, i, i >= m->n || (ext && ext[i]) ? WM_EXT : 0);
	free(ext);
	return JH_OK;
}

/* The word model (censor-words.tsv) serves lost characters, mask
 * suggestions and name drift: it is loaded once per process (jh_shared),
 * with the indexes mask suggestions need when they ask (level 1), and
 * mapped from the cache folder when a compiled form is there. */
const jh_wordmap jh_wm_empty;

typedef struct {
	const jh_rule *r;
	const char *file, *path;
	unsigned line;
	int indexes;
	jh_diag_fn diag_fn;
	void *payload;
} wm_load_arg;

static void wm_shared_free(void *obj)
{
	jh_wm_free(obj);
	free(obj);
}

static int wm_shared_load(void *arg, void **obj)
{
	const wm_load_arg *a = arg;
	jh_wordmap *m = calloc(1, sizeof *m);
	if (!m)
		return JH_ERR_NOMEM;
	*obj = m;
	const char *cache = a->r->cache_dir;
	if (a->indexes && jh_wm_cache_map(m, cache, a->path) == 0)
		return JH_OK;
	int rc = jh_wm_load(m, a->r, a->file, a->line, a->indexes, a->diag_fn, a->payload);
	if (rc == JH_OK && a->indexes && cache) {
		wm_sort_runs(m); /* once, for every later run */
		jh_wm_cache_store(m, cache, a->path);
	}
	return rc;
}

int jh_wm_get_shared(const jh_rule *r, const char *file, unsigned line, int indexes,
                     const jh_wordmap **out, jh_diag_fn diag_fn, void *payload)
{
	/* With a cache folder the indexes are built anyway: the compiled form
	 * is always indexed, and mapping it costs the same either way. */
	indexes = indexes || r->cache_dir;
	char *path = jh_data_path(r, file);
	if (!path)
		return JH_ERR_NOMEM;
	wm_load_arg a = {r, file, path, line, indexes, diag_fn, payload};
	void *obj;
	int rc = jh_shared_get(path, indexes, wm_shared_load, &a, wm_shared_free, &obj);
	free(path);
	*out = obj;
	return rc;
}

void jh_wm_release_shared(const jh_wordmap *m)
{
	if (m != &jh_wm_empty)
		jh_shared_release((void *)m);
}

/* First position in idx whose word, compared by cmp against key of n
 * bytes, is not less than it; prefix semantics come from comparing only
 * the key's length. */
size_t jh_wm_lower(const jh_wordmap *m, const uint32_t *idx, size_t lo, size_t hi, const char *key,
                       size_t n, int rev)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t w = idx[mid];
		const char *s = m->buf + m->off[w];
		size_t l = m->len[w];
		int c;
		if (rev) {
			size_t take = l < n ? l : n; /* compare the last n bytes at most */
			c = cmp_rev(s + l - take, take, key, n);
			if (c == 0 && take < n)
				c = -1;
		} else {
			c = memcmp(s, key, l < n ? l : n);
			if (c == 0 && l < n)
				c = -1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

