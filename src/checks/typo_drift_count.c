/* typo_drift_count.c — typo.name-drift's counting: characters by code
 * and their class table, reading characters from the raw UTF-8 bytes,
 * the n-gram table's growth, and the one pass over a block's bytes that
 * counts the trigrams of the runs between stop characters (typo_drift.c
 * says why only those). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"
#include "typo_drift_int.h"

/* ---- characters by code (code3, cp_of_code: typo_drift_int.h) ---- */

/* The code3 of a code point below 0x10000. */
static uint32_t code3_of_cp(int32_t cp)
{
	uint32_t w = (0xE0u | (uint32_t)cp >> 12) | (0x80u | ((uint32_t)cp >> 6 & 0x3F)) << 8 |
	             (0x80u | ((uint32_t)cp & 0x3F)) << 16;
	return code3(w);
}

/* The numerals, never the differing character (第三團 / 第四團). */
static const int32_t numerals[] = {0x3007, 0x96F6, 0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94, 0x516D,
                                   0x4E03, 0x516B, 0x4E5D, 0x5341, 0x767E, 0x5343, 0x4E07, 0x842C,
                                   0x4EBF, 0x5104, 0x4E24, 0x5169, 0x51E0, 0x5E7E, 0x534A, 0x591A,
                                   0x7B2C};

int drift_is_numeral(int32_t cp)
{
	for (size_t i = 0; i < sizeof numerals / sizeof *numerals; i++)
		if (numerals[i] == cp)
			return 1;
	return 0;
}

/* The class of every three-byte sequence, stop list included: one load
 * per character instead of jh_class_of's branches and a lookup in the
 * stop list.  A stop entry is a character's exact bytes (the forms'
 * bytes were compared with it); one beyond the BMP is looked up in the
 * list itself.  Sequences the strict decoder refuses (an overlong E0
 * form, a surrogate) fall outside the Han ranges.  The table is built
 * for the first text of CLASS_TABLE_MIN bytes (a shorter one is read
 * without it: see drift_char_slow), and cheaply: the 64 code points of
 * a block that shares lead and middle byte have the codes base ^ C << 10
 * (C: the last byte's six bits), that is every (base & 0x3FF) + 1024 j,
 * and the Han ranges are whole such blocks but for 〇. */
int drift_build_classes(void *arg)
{
	drift_cfg *c = arg;
	static const int32_t han[][2] = JH_HAN_BMP_RANGES;
	if (!(c->class3 = calloc(0x10000, 1)))
		return JH_ERR_NOMEM;
	for (int k = 0; k < JH_HAN_BMP_N; k++)
		for (int32_t cp = han[k][0]; cp <= han[k][1];) {
			if ((cp & 0x3F) == 0 && cp + 0x3F <= han[k][1]) {
				uint8_t *q = c->class3 + (code3_of_cp(cp) & 0x3FF);
				for (int j = 0; j < 64; j += 4, q += 4096)
					q[0] = q[1024] = q[2048] = q[3072] = CH_NAME;
				cp += 64;
			} else {
				c->class3[code3_of_cp(cp++)] = CH_NAME;
			}
		}
	for (size_t k = 0; k < sizeof numerals / sizeof *numerals; k++)
		c->class3[code3_of_cp(numerals[k])] |= CH_NUMERAL;
	for (size_t k = 0; k < c->stop.cap; k++) {
		int32_t cp;
		const char *w = c->stop.keys[k];
		if (!w || jh_utf8_decode((const unsigned char *)w, c->stop.lens[k], &cp) != c->stop.lens[k] ||
		    cp < 0x3007 || !(jh_class_of(cp) & JH_C_HAN))
			continue;
		if (cp < 0x10000) {
			uint8_t *k3 = &c->class3[code3_of_cp(cp)];
			*k3 = (uint8_t)((*k3 & ~CH_NAME) | CH_STOP);
		}
	}
	return JH_OK;
}

/* ---- reading characters ---- */

static inline uint32_t load_le32(const unsigned char *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap32(w);
#endif
	return w;
}

/* Is w (four bytes, the first in the low bits) a lead E0-EF and two
 * continuation bytes?  The counting reads such a sequence as one
 * character; where the strict decoder would refuse it (an overlong form,
 * a surrogate) its class is 0, and the decoder's shorter steps would
 * cross only continuation bytes, which start no character: the Han
 * characters seen, and so every count, are the same. */
static inline int is_three(uint32_t w)
{
	return (w & 0xC0C0F0u) == 0x8080E0u;
}

/* The character at s[*i] by the strict decoder, *i moved past it: its
 * class, and its code in *code.  Without class3 (a short text) the class
 * is what the table would say of it, asked of jh_class_of and the stop
 * list. */
unsigned drift_char_slow(const drift_cfg *c, const uint8_t *class3, const unsigned char *s,
                         size_t len, size_t *i, uint32_t *code)
{
	size_t at = *i;
	int32_t v;
	size_t n = jh_utf8_decode(s + at, len - at, &v);
	*i = at + (n ? n : 1);
	*code = 0;
	if (v < 0x3007)
		return 0;
	if (v < 0x10000) {
		*code = code3(s[at] | (uint32_t)s[at + 1] << 8 | (uint32_t)s[at + 2] << 16) | CODE3;
		if (class3)
			return class3[*code & 0xFFFFu];
	} else {
		*code = (uint32_t)v;
	}
	if (!(jh_class_of(v) & JH_C_HAN))
		return 0;
	if ((v < 0x10000 || c->astral_stop) && c->stop.count &&
	    jh_strset_has(&c->stop, (const char *)s + at, n))
		return CH_STOP;
	return CH_NAME;
}

/* The end of the run of ASCII bytes from i (before end): no Han
 * character is there, and the man pages and other technical text are
 * mostly such runs, read eight bytes at a time. */

/* ---- n-gram table (its lookups: typo_drift_int.h) ---- */

int drift_ng_resize(ng_table *t, size_t cap)
{
	ng_slot *s = calloc(cap, sizeof *s);
	uint32_t *used = realloc(t->used, (cap / 2 + 1) * sizeof *used);
	if (!s || !used) {
		free(s);
		if (used)
			t->used = used;
		return JH_ERR_NOMEM;
	}
	ng_slot *old = t->s;
	t->s = s;
	t->used = used;
	t->cap = cap;
	for (size_t k = 0; k < t->n; k++) {
		const ng_slot *e = &old[used[k]];
		size_t i = slot_of(t, e->key);
		while (s[i].key)
			i = (i + 1) & (cap - 1);
		s[i] = *e;
		used[k] = (uint32_t)i;
	}
	free(old);
	return JH_OK;
}

/* A new key (not in the table), with count and pos; NULL when memory
 * runs out. */
ng_slot *drift_ng_insert(ng_table *t, uint64_t key, uint32_t count, size_t pos)
{
	if ((t->n + 1) * 2 > t->cap && drift_ng_resize(t, t->cap ? t->cap * 2 : 4096))
		return NULL;
	size_t i = slot_of(t, key);
	while (t->s[i].key)
		i = (i + 1) & (t->cap - 1);
	t->s[i] = (ng_slot){key, count, pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos};
	t->used[t->n++] = (uint32_t)i;
	return &t->s[i];
}

/* ---- counting ---- */

/* The first byte of the trigram key that ends at i. */
static inline size_t tri_start(uint64_t key, size_t i)
{
	return i - code_bytes(key_code(key, 0)) - code_bytes(key_code(key, 1)) -
	       code_bytes(key_code(key, 2));
}

/* Counts the trigram key, which ends at i: the general path (a new key,
 * a character not read by the fast loop). */
static int count_tri(ng_table *t, uint64_t key, size_t i)
{
	ng_slot *e = ng_find(t, key);
	if (e) {
		e->count++;
		return JH_OK;
	}
	return drift_ng_insert(t, key, 1, tri_start(key, i)) ? JH_OK : JH_ERR_NOMEM;
}

/* A run ends: its last bigram, if it has two characters. */
static int end_run(drift_counts *dc, uint64_t key)
{
	if (!(key >> CP_BITS & CP_MASK))
		return JH_OK;
	if (dc->n_tails == dc->cap_tails &&
	    jh_grow((void **)&dc->tails, &dc->cap_tails, dc->n_tails + 1, sizeof *dc->tails))
		return JH_ERR_NOMEM;
	dc->tails[dc->n_tails++] = key >> CP_BITS;
	return JH_OK;
}

/* Where the fast loop stands: its registers, between calls. */
typedef struct {
	const unsigned char *p, *fast_end, *end; /* fast_end: a four-byte load fits */
	uint64_t key;
	ng_slot *slots;
	size_t mask;                /* (cap - 1) << 4: the slots' byte offsets */
	uint32_t *used, *used_end;  /* the next entry, and where the table must grow */
	uint64_t *tail, *tail_end;  /* the next tail, and the end of the room */
} fast_state;

/* Why the fast loop stopped: a character it does not read (or fast_end),
 * the trigram key (ending at p) to add to a full table, the bigram of
 * key to add to a full list of tails. */
enum { FAST_OTHER, FAST_GROW, FAST_TAIL };

/* The one pass's common case: ASCII runs and three-byte characters, the
 * trigrams of the runs counted, new ones added while the table has room.
 * It calls nothing, so what it needs stays in registers.  key holds the
 * last three characters of the current run (0 after a break): a trigram
 * is there when its oldest character is, a bigram when the one after it
 * is. */
static __attribute__((noinline)) int count_fast(const uint8_t *class3, const unsigned char *s,
                                                fast_state *st)
{
	const unsigned char *p = st->p, *fast_end = st->fast_end;
	uint64_t key = st->key;
	char *slots = (char *)st->slots;
	size_t mask = st->mask;
	uint32_t *used = st->used;
	uint64_t *tail = st->tail;
	int why = FAST_OTHER;
	while (p < fast_end) {
		uint32_t w = load_le32(p);
		if (__builtin_expect(is_three(w), 1)) {
			uint32_t y = code3(w);
			p += 3;
			if (class3[y] & CH_NAME) {
				uint64_t older = key >> CP_BITS;
				key = older | (uint64_t)(y | CODE3) << (2 * CP_BITS);
				if (!(older & CP_MASK))
					continue; /* fewer than three characters */
				size_t off = (size_t)mix(key) & mask;
				ng_slot *e = (ng_slot *)(slots + off);
				if (__builtin_expect(e->key == key, 1)) {
					e->count++;
					continue;
				}
				while (e->key != key && e->key) {
					off = (off + sizeof *e) & mask;
					e = (ng_slot *)(slots + off);
				}
				if (e->key) {
					e->count++;
					continue;
				}
				if (used == st->used_end) {
					why = FAST_GROW;
					break;
				}
				size_t pos = tri_start(key, (size_t)(p - s));
				*e = (ng_slot){key, 1, pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos};
				*used++ = (uint32_t)(off / sizeof *e);
				continue;
			}
		} else if (!(w & 0x80)) {
			p = s + jh_ascii_end(s, (size_t)(p - s) + 1, (size_t)(st->end - s));
		} else {
			break;
		}
		/* a run ends: ASCII, punctuation, a stop character */
		if (key >> CP_BITS & CP_MASK) {
			if (tail == st->tail_end) {
				why = FAST_TAIL;
				break;
			}
			*tail++ = key >> CP_BITS;
		}
		key = 0;
	}
	st->p = p;
	st->key = key;
	st->used = used;
	st->tail = tail;
	return why;
}

/* The one pass over the block's bytes: count_fast, and here what it
 * leaves (a new key for a full table, a tail for a full list, a
 * character of another length, the last bytes of the text). */
__attribute__((noinline)) int drift_count_block(const drift_cfg *cfg, const uint8_t *class3,
                                                const unsigned char *s, size_t len,
                                                size_t start, size_t end, drift_counts *dc)
{
	ng_table *t = &dc->tri;
	size_t fast_end = len >= 4 ? len - 3 : 0;
	if (fast_end > end)
		fast_end = end;
	if (fast_end < start)
		fast_end = start;
	fast_state st = {s + start, s + fast_end, s + end, 0, NULL, 0, NULL, NULL, NULL, NULL};
	for (;;) {
		st.slots = t->s;
		st.mask = (t->cap - 1) * sizeof *t->s;
		st.used = t->used + t->n;
		st.used_end = t->used + t->cap / 2;
		st.tail = dc->tails + dc->n_tails;
		st.tail_end = dc->tails + dc->cap_tails;
		int why = class3 ? count_fast(class3, s, &st) : FAST_OTHER;
		t->n = (size_t)(st.used - t->used);
		dc->n_tails = (size_t)(st.tail - dc->tails);
		size_t i = (size_t)(st.p - s);
		if (why == FAST_GROW) {
			if (!drift_ng_insert(t, st.key, 1, tri_start(st.key, i)))
				return JH_ERR_NOMEM;
			continue;
		}
		if (why == FAST_TAIL) {
			if (end_run(dc, st.key))
				return JH_ERR_NOMEM;
			st.key = 0;
			continue;
		}
		if (i >= end)
			break;
		/* one character count_fast does not read */
		unsigned cls = 0;
		uint32_t code = 0;
		if (s[i] < 0x80)
			i = jh_ascii_end(s, i + 1, end);
		else
			cls = drift_char_slow(cfg, class3, s, len, &i, &code);
		st.p = s + i;
		if (cls & CH_NAME) {
			st.key = st.key >> CP_BITS | (uint64_t)code << (2 * CP_BITS);
			if (st.key & CP_MASK && count_tri(t, st.key, i))
				return JH_ERR_NOMEM;
		} else {
			if (end_run(dc, st.key))
				return JH_ERR_NOMEM;
			st.key = 0;
		}
	}
	return end_run(dc, st.key);
}
