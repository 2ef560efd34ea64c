/* typo_drift_pairs.c — typo.name-drift's candidate pairs and their
 * tests: a block's rare and frequent forms, the pairs of them that differ
 * in one character, and what a pair must pass to be a finding (cohesion,
 * the common words, the sound table, no frequent trigram with a stop
 * character where the forms differ). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "utf8.h"
#include "wordmap.h"
#include "typo_drift_int.h"

/* Byte offsets of the three characters at pos, and the end. */
void drift_tri_offsets(const char *text, size_t len, size_t pos, size_t off[4])
{
	off[0] = pos;
	for (int i = 0; i < 3; i++) {
		int32_t cp;
		off[i + 1] = off[i] + jh_utf8_decode((const unsigned char *)text + off[i], len - off[i], &cp);
	}
}

static int common(const drift_cfg *cfg, const char *text, size_t a, size_t b)
{
	return cfg->common && jh_wm_has(cfg->common, text + a, b - a);
}

/* Is a three-character form at off[] or its part around position i a
 * common word? */
static int word_around(const drift_cfg *cfg, const char *text, const size_t off[4], int i)
{
	if (common(cfg, text, off[0], off[3]))
		return 1;
	if (i > 0 && common(cfg, text, off[i - 1], off[i + 1]))
		return 1;
	return i < 2 && common(cfg, text, off[i], off[i + 2]);
}

/* Cohesion: each half of f is mostly found inside f.  bc[h] counts the
 * half h of f in the block. */
static int cohesive(const drift_cfg *cfg, const ng_slot *f, const ng_slot *r, int i,
                    const uint32_t bc[2])
{
	for (int h = 0; h < 2; h++) {
		uint32_t n = bc[h];
		if (i != h && i != h + 1)
			n -= n >= r->count ? r->count : n; /* the rare form shares this half */
		if ((uint64_t)f->count * 100 < (uint64_t)cfg->cohesion * n)
			return 0;
	}
	return 1;
}

/* Is r (rare) a drifted form of f (frequent), differing at position i, by
 * the common words and the sound table?  1 yes, 0 no, -1 out of memory. */
static int not_words(const drift_cfg *cfg, const char *text, size_t len, const ng_slot *f,
                     const ng_slot *r, int i)
{
	size_t fo[4], ro[4];
	drift_tri_offsets(text, len, f->pos, fo);
	drift_tri_offsets(text, len, r->pos, ro);
	if (cfg->common && cfg->common->n) {
		/* f's own halves may be words (聂桂林: 桂林); the rare form's may not. */
		if (common(cfg, text, fo[0], fo[3]) || word_around(cfg, text, ro, i))
			return 0;
		if (i == 0 && common(cfg, text, fo[1], fo[3]))
			return 0;
		/* The rare form must stand alone: its first character is not the
		 * end of a word before it (一次 + 此动作), its last not the start of
		 * a word after it (分页 + 时候). */
		if (ro[0] > 0) {
			size_t l = ro[0];
			do
				l--;
			while (l > 0 && ((unsigned char)text[l] & 0xC0) == 0x80);
			if (common(cfg, text, l, ro[1]))
				return 0;
		}
		if (ro[3] < len) {
			int32_t cp;
			size_t n = jh_utf8_decode((const unsigned char *)text + ro[3], len - ro[3], &cp);
			if (common(cfg, text, ro[2], ro[3] + n))
				return 0;
		}
		if (i == 2 && common(cfg, text, fo[0], fo[2]))
			return 0;
	}
	/* Last, as its table is read only when a pair gets here. */
	if (cfg->sound_file) {
		if (jh_lazy_get(&((drift_cfg *)cfg)->once_sound, drift_sound_read, (void *)cfg))
			return -1;
		if (cfg->n_sound &&
		    !drift_alike(cfg, cp_of_code(key_code(f->key, i)), cp_of_code(key_code(r->key, i))))
			return 0;
	}
	return 1;
}

/* The trigram with position i replaced by 0x1FFFFF, which is no code:
 * forms that differ only there share it. */
static inline uint64_t mask_key(uint64_t key, int i)
{
	return key | (CP_MASK << (CP_BITS * i));
}

static inline void place_set(place_bits *pb, int i, uint32_t code)
{
	pb->at[i][FOLD(code) >> 6] |= (uint64_t)1 << (FOLD(code) & 63);
}

static inline int place_has(const place_bits *pb, int i, uint32_t code)
{
	return (int)(pb->at[i][FOLD(code) >> 6] >> (FOLD(code) & 63)) & 1;
}

/* The block's rare and frequent forms: the one walk over every entry. */
int drift_forms_sort(const drift_cfg *cfg, drift_work *w)
{
	const ng_table *t = &w->dc.tri;
	w->n_rare = w->n_freq = 0;
	for (size_t k = 0; k < t->n; k++) {
		uint32_t s = t->used[k];
		const ng_slot *e = &t->s[s];
		if (e->pos == UINT32_MAX)
			continue;
		if (e->count <= cfg->max_rare) {
			if (w->n_rare == w->cap_rare &&
			    jh_grow((void **)&w->rare, &w->cap_rare, w->n_rare + 1, sizeof *w->rare))
				return JH_ERR_NOMEM;
			w->rare[w->n_rare++] = s;
		} else if (e->count >= cfg->min_count) {
			if (w->n_freq == w->cap_freq &&
			    jh_grow((void **)&w->freq, &w->cap_freq, w->n_freq + 1, sizeof *w->freq))
				return JH_ERR_NOMEM;
			w->freq[w->n_freq++] = s;
		}
	}
	return JH_OK;
}

/* The masks of the block's frequent forms (count 1: one form, its slot in
 * pos; 0: two or more) and their characters by place. */
int drift_frequent_build(drift_work *w)
{
	const ng_table *t = &w->dc.tri;
	ng_clear(&w->masks);
	memset(&w->pb, 0, sizeof w->pb);
	int rc = ng_reserve(&w->masks, 3 * w->n_freq);
	for (size_t k = 0; k < w->n_freq && rc == JH_OK; k++) {
		uint32_t s = w->freq[k];
		const ng_slot *f = &t->s[s];
		for (int i = 0; i < 3; i++) {
			place_set(&w->pb, i, key_code(f->key, i));
			uint64_t mk = mask_key(f->key, i);
			ng_slot *m = ng_find(&w->masks, mk);
			if (m) /* a second frequent form: ambiguous */
				m->count = 0;
			else if (!drift_ng_insert(&w->masks, mk, 1, s))
				rc = JH_ERR_NOMEM;
		}
	}
	return rc;
}

/* The pairs of a rare and a frequent form that differ in one character
 * (not a numeral) at a place no other frequent form of the table differs. */
int drift_candidates(const drift_cfg *cfg, drift_work *w)
{
	const ng_table *t = &w->dc.tri;
	w->n_pairs = 0;
	for (size_t k = 0; k < w->n_rare; k++) {
		uint32_t s = w->rare[k];
		const ng_slot *r = &t->s[s];
		unsigned h0 = (unsigned)place_has(&w->pb, 0, key_code(r->key, 0)),
		         h1 = (unsigned)place_has(&w->pb, 1, key_code(r->key, 1)),
		         h2 = (unsigned)place_has(&w->pb, 2, key_code(r->key, 2));
		unsigned may = (h1 & h2) | (h0 & h2) << 1 | (h0 & h1) << 2; /* bit i: differ at i */
		for (int i = 0; may; i++, may >>= 1) {
			if (!(may & 1))
				continue;
			const ng_slot *m = ng_find(&w->masks, mask_key(r->key, i));
			if (!m || !m->count)
				continue;
			const ng_slot *f = &t->s[m->pos];
			if (code_is_numeral(w->class3, key_code(f->key, i)) ||
			    code_is_numeral(w->class3, key_code(r->key, i)))
				continue;
			if (jh_grow((void **)&w->pairs, &w->cap_pairs, w->n_pairs + 1, sizeof *w->pairs))
				return JH_ERR_NOMEM;
			w->pairs[w->n_pairs++] = (drift_pair_at){s, m->pos, i};
		}
	}
	return JH_OK;
}

/* Half h of a trigram key: its first two characters, or its last two. */
static inline uint64_t half_key(uint64_t key, int h)
{
	return h ? key >> CP_BITS : key & KEY2_MASK;
}

/* The block's count of every half of a paired frequent form.  Both its
 * characters can be part of a form, so each of its occurrences lies in a
 * run the counting read: before a third character (a trigram it begins)
 * or at the run's end (a tail). */
static int count_halves(drift_work *w)
{
	ng_table *hv = &w->halves;
	const ng_table *t = &w->dc.tri;
	ng_clear(hv);
	int rc = ng_reserve(hv, 2 * w->n_pairs);
	/* the first characters of the halves, folded: most entries and tails
	 * have none */
	uint64_t first[(1u << FOLD_BITS) / 64] = {0};
	for (size_t k = 0; k < w->n_pairs && rc == JH_OK; k++) {
		uint64_t fk = t->s[w->pairs[k].f].key;
		for (int h = 0; h < 2 && rc == JH_OK; h++) {
			uint64_t b = half_key(fk, h);
			first[FOLD(b) >> 6] |= (uint64_t)1 << (FOLD(b) & 63);
			if (!ng_upsert(hv, b, 0))
				rc = JH_ERR_NOMEM;
		}
	}
	if (rc)
		return rc;
	for (size_t k = 0; k < t->n; k++) {
		const ng_slot *g = &t->s[t->used[k]];
		uint64_t b = g->key & KEY2_MASK; /* the bigram it begins with */
		if (!(first[FOLD(b) >> 6] >> (FOLD(b) & 63) & 1))
			continue;
		ng_slot *e = ng_find(hv, b);
		if (e)
			e->count += g->count;
	}
	for (size_t k = 0; k < w->dc.n_tails; k++) {
		uint64_t b = w->dc.tails[k];
		if (!(first[FOLD(b) >> 6] >> (FOLD(b) & 63) & 1))
			continue;
		ng_slot *e = ng_find(hv, b);
		if (e)
			e->count++;
	}
	return JH_OK;
}

static void halves_of(const drift_work *w, const ng_slot *f, uint32_t bc[2])
{
	for (int h = 0; h < 2; h++) {
		const ng_slot *e = ng_find(&w->halves, half_key(f->key, h));
		bc[h] = e ? e->count : 0;
	}
}

/* Does f fail the cohesion test for a reason the masks already show?
 * When a second frequent form g shares a half of f (the mask of f at the
 * other end is ambiguous), that half is found in f, in g and perhaps in
 * r, apart: its count, r's taken off, is at least f's count and
 * min-count.  Most pairs of technical text end here, before the block's
 * bigrams are counted. */
static int sibling_fails(const drift_cfg *cfg, const drift_work *w, const ng_slot *f)
{
	if ((uint64_t)f->count * 100 >= (uint64_t)cfg->cohesion * (f->count + cfg->min_count))
		return 0;
	for (int end = 0; end < 3; end += 2) {
		const ng_slot *m = ng_find(&w->masks, mask_key(f->key, end));
		if (m && !m->count)
			return 1;
	}
	return 0;
}

/* Can a trigram the counting skipped (one with a stop character) make
 * the hit's mask ambiguous?  Only one with its stop character at i and f's
 * other two characters: a stop character elsewhere stays in the mask.
 * For i = 0 or 2 such a trigram holds f's other half, whose occurrences
 * in f and r are known: with fewer than min-count left there is none.
 * 1: perhaps (look), 0: no. */
static int stop_may_block(const drift_cfg *cfg, const drift_work *w, const drift_hit *hit)
{
	const ng_table *t = &w->dc.tri;
	const ng_slot *f = &t->s[hit->f], *r = &t->s[hit->r];
	if (!cfg->stop.count)
		return 0;
	if (hit->i == 1)
		return 1;
	uint32_t bc[2];
	halves_of(w, f, bc);
	uint64_t half = bc[hit->i == 0], in_forms = (uint64_t)f->count + r->count;
	return half >= in_forms + cfg->min_count;
}

/* The UTF-8 bytes of a Han character (three or four) into b; how many. */
static size_t encode(int32_t cp, unsigned char b[4])
{
	if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	b[0] = (unsigned char)(0xF0 | cp >> 18);
	b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
	b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
	b[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

/* The first q in [from, to) where the n bytes of pat stand, or SIZE_MAX:
 * memchr for the last byte (a continuation byte, in one character of
 * thirty), then a comparison. */
static size_t find_bytes(const unsigned char *s, size_t len, size_t from, size_t to,
                         const unsigned char *pat, size_t n)
{
	if (len < n)
		return SIZE_MAX;
	if (to > len - n + 1)
		to = len - n + 1;
	while (from < to) {
		const unsigned char *h = memchr(s + from + n - 1, pat[n - 1], to - from);
		if (!h)
			return SIZE_MAX;
		size_t q = (size_t)(h - s) - (n - 1);
		if (memcmp(s + q, pat, n - 1) == 0)
			return q;
		from = q + 1;
	}
	return SIZE_MAX;
}

/* The stop character the counting read just before q (at or after
 * start): its code, its first byte in *at; 0 if there is none.  The
 * counting steps on every byte that is no continuation byte, so that
 * character begins at the last such byte before q, and must end at q. */
static uint32_t stop_before(const drift_cfg *cfg, const uint8_t *class3, const unsigned char *s,
                            size_t len, size_t start, size_t q, size_t *at)
{
	size_t p = q;
	do {
		if (p == start || q - p == 4)
			return 0;
		p--;
	} while ((s[p] & 0xC0) == 0x80);
	size_t i = p;
	uint32_t code;
	if (drift_char_slow(cfg, class3, s, len, &i, &code) != CH_STOP || i != q)
		return 0;
	*at = p;
	return code;
}

/* The stop character the counting read at r (before end): its code, the
 * byte after it in *next; 0 if there is none. */
static uint32_t stop_at(const drift_cfg *cfg, const uint8_t *class3, const unsigned char *s,
                        size_t len, size_t end, size_t r, size_t *next)
{
	uint32_t code;
	size_t i = r;
	if (r >= end || drift_char_slow(cfg, class3, s, len, &i, &code) != CH_STOP)
		return 0;
	*next = i;
	return code;
}

/* Counts into seen the block's trigrams with a stop character at i and
 * f's other two characters (masked: f's key masked at i).  They are found
 * by f's bytes, which memchr finds fast, not by reading the block again.
 * A trigram counts where the counting would have read it: its first
 * character at or after start, its last before end. */
static int count_blockers(const drift_cfg *cfg, const uint8_t *class3, const unsigned char *s,
                          size_t len, size_t start, size_t end, uint64_t masked, int i,
                          ng_table *seen)
{
	unsigned char e[3][4];
	size_t ne[3] = {0, 0, 0};
	for (int j = 0; j < 3; j++)
		if (j != i)
			ne[j] = encode(cp_of_code(key_code(masked, j)), e[j]);
	int a = i == 0 ? 1 : 0; /* the first of f's characters: the anchor */
	for (size_t q = find_bytes(s, len, start + (i == 0), end, e[a], ne[a]); q != SIZE_MAX;
	     q = find_bytes(s, len, q + 1, end, e[a], ne[a])) {
		size_t p = q, r = q + ne[a], next;
		uint32_t sc;
		if (i == 0) { /* stop, f1, f2 */
			if (r >= end || len - r < ne[2] || memcmp(s + r, e[2], ne[2]) ||
			    !(sc = stop_before(cfg, class3, s, len, start, q, &p)))
				continue;
		} else if (i == 1) { /* f0, stop, f2 */
			if (!(sc = stop_at(cfg, class3, s, len, end, r, &next)) || next >= end ||
			    len - next < ne[2] || memcmp(s + next, e[2], ne[2]))
				continue;
		} else { /* f0, f1, stop */
			if (len - r < ne[1] || memcmp(s + r, e[1], ne[1]) ||
			    !(sc = stop_at(cfg, class3, s, len, end, r + ne[1], &next)))
				continue;
		}
		uint64_t g = (masked & ~(CP_MASK << (CP_BITS * i))) | (uint64_t)sc << (CP_BITS * i);
		ng_slot *x = ng_upsert(seen, g, p);
		if (!x)
			return JH_ERR_NOMEM;
		x->count++;
	}
	return JH_OK;
}

/* Drops the hits whose mask a frequent trigram with a stop character
 * where the forms differ makes ambiguous, as the table's walk would have
 * had the counting read it (pending: stop_may_block said perhaps). */
static int drop_blocked(const drift_cfg *cfg, drift_work *w, const unsigned char *s, size_t len,
                        size_t start, size_t end, const uint8_t *pending)
{
	const ng_table *t = &w->dc.tri;
	ng_table want = {0}, seen = {0};
	int rc = ng_reserve(&want, w->n_hits);
	if (rc == JH_OK)
		rc = ng_reserve(&seen, 64);
	for (size_t k = 0; k < w->n_hits && rc == JH_OK; k++) {
		if (!pending[k])
			continue;
		uint64_t mk = mask_key(t->s[w->hits[k].f].key, w->hits[k].i);
		if (ng_find(&want, mk))
			continue; /* another rare form of the same f: counted once */
		if (!drift_ng_insert(&want, mk, 0, 0))
			rc = JH_ERR_NOMEM;
		else
			rc = count_blockers(cfg, w->class3, s, len, start, end, mk, w->hits[k].i, &seen);
	}
	for (size_t k = 0; k < seen.n && rc == JH_OK; k++) {
		const ng_slot *g = &seen.s[seen.used[k]];
		if (g->count < cfg->min_count || g->pos == UINT32_MAX)
			continue;
		for (int j = 0; j < 3; j++) {
			ng_slot *m = ng_find(&want, mask_key(g->key, j));
			if (m)
				m->count = 1; /* blocked */
		}
	}
	size_t n = 0;
	for (size_t k = 0; k < w->n_hits && rc == JH_OK; k++) {
		if (pending[k]) {
			const ng_slot *m = ng_find(&want, mask_key(t->s[w->hits[k].f].key, w->hits[k].i));
			if (m && m->count)
				continue;
		}
		w->hits[n++] = w->hits[k];
	}
	if (rc == JH_OK)
		w->n_hits = n;
	ng_free(&want);
	ng_free(&seen);
	return rc;
}

/* The pairs that pass the tests after the table's: cohesion (from the
 * counts), then the common words and the sound table (read only when a
 * pair gets that far), then the trigrams with a stop character. */
int drift_hits(jh_brun *run, drift_work *w, size_t start, size_t end)
{
	const drift_cfg *cfg = run->cfg;
	const ng_table *t = &w->dc.tri;
	size_t n = 0;
	for (size_t k = 0; k < w->n_pairs; k++)
		if (!sibling_fails(cfg, w, &t->s[w->pairs[k].f]))
			w->pairs[n++] = w->pairs[k];
	w->n_pairs = n;
	int rc = n ? count_halves(w) : JH_OK;
	n = 0;
	for (size_t k = 0; k < w->n_pairs && rc == JH_OK; k++) {
		uint32_t bc[2];
		halves_of(w, &t->s[w->pairs[k].f], bc);
		if (cohesive(cfg, &t->s[w->pairs[k].f], &t->s[w->pairs[k].r], w->pairs[k].i, bc))
			w->pairs[n++] = w->pairs[k];
	}
	w->n_pairs = n;
	if (rc == JH_OK && n)
		rc = drift_load((drift_cfg *)cfg); /* the lazy part of a shared rule set */
	w->n_hits = 0;
	for (size_t k = 0; k < w->n_pairs && rc == JH_OK; k++) {
		const drift_pair_at *p = &w->pairs[k];
		const ng_slot *r = &t->s[p->r], *f = &t->s[p->f];
		int slip = not_words(cfg, run->text, run->len, f, r, p->i);
		if (slip < 0)
			rc = JH_ERR_NOMEM;
		if (slip <= 0)
			continue;
		size_t ro[4];
		drift_tri_offsets(run->text, run->len, r->pos, ro);
		if (jh_grow((void **)&w->hits, &w->cap_hits, w->n_hits + 1, sizeof *w->hits))
			return JH_ERR_NOMEM;
		w->hits[w->n_hits++] = (drift_hit){r->pos, f->pos, ro[p->i], p->r, p->f, p->i};
	}
	uint8_t *pending = NULL;
	size_t n_pending = 0;
	if (rc == JH_OK && w->n_hits && !(pending = malloc(w->n_hits)))
		rc = JH_ERR_NOMEM;
	for (size_t k = 0; k < w->n_hits && rc == JH_OK; k++) {
		pending[k] = (uint8_t)stop_may_block(cfg, w, &w->hits[k]);
		n_pending += pending[k];
	}
	if (rc == JH_OK && n_pending)
		rc = drop_blocked(cfg, w, (const unsigned char *)run->text, run->len, start, end, pending);
	free(pending);
	return rc;
}
