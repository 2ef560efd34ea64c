/* typo_drift.c — names that drift: a name or term of three characters seen
 * many times in a document and once in a form that differs in one
 * character (段興茂 ×8, 段興買 ×1).  No dictionary of names is needed: the
 * document itself says which form is the name.  What keeps real words out
 * is a list of common words (jieba's) and the statistics of the document:
 *
 *  - the frequent form f appears at least min-count times, the rare form r
 *    at most max-rare times;
 *  - neither f nor r, nor their shared part when it is contiguous, nor
 *    the differing character with a neighbour is a common word (日本人 /
 *    日本兵, 高興地 / 高興的, 軍騎兵 / 軍騎馬);
 *  - f holds together: its two halves rarely occur without each other
 *    (巴根說 ×10 is a name and a verb, 巴根 also comes before 道, 的 …);
 *  - neither form holds a stop character (的, 了, 說 …);
 *  - the differing character is not a numeral (第三團 / 第四團);
 *  - only one frequent form differs from r at that place.
 *
 * As no form with a stop character can be f or r, the counting reads only
 * the runs of Han characters between stop characters (about half of a
 * text's trigrams), in one pass per block over the UTF-8 bytes, into a
 * table of trigram counts, noting the last two characters of each run.
 * What the trigrams left out could still change is worked out afterwards,
 * for the few pairs that get that far: a bigram's count (the cohesion
 * test) is the sum of the counts of the trigrams it begins and of the runs
 * it ends; a frequent trigram with a stop character where r differs from
 * f (the last test) is searched for by f's bytes, only for a pair that
 * passed every other test.  No library offers n-gram counting over
 * characters, and this table is forty lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "typo.h"
#include "utf8.h"
#include "wordmap.h"

/* How a character sounds and looks: a slip of the input method keeps one
 * of the three (茂 mao / 買 mai, 林 / 材 under 木). */
struct sound {
	int32_t cp;
	char initial[4], final[8];
	unsigned radical;
};

/* What a character is to the counting, as bits: a character a form may
 * hold (Han, not a stop character), a stop character (Han, ends a run),
 * a numeral (never the differing character).  0: not Han. */
enum { CH_NAME = 1, CH_STOP = 2, CH_NUMERAL = 4 };

typedef struct {
	const jh_wordmap *common; /* common words: a pair made of them is real (shared) */
	jh_strset stop;          /* characters never part of a name form */
	uint8_t *class3;         /* CH_* of every three-byte character, by code3 */
	jh_lazy once_class;      /* class3, made for the first text of CLASS_TABLE_MIN */
	int astral_stop;         /* the stop list holds a character beyond the BMP */
	struct sound *sound;     /* sorted by code point */
	size_t n_sound;
	unsigned long min_count; /* frequent form: at least this many */
	unsigned long max_rare;  /* rare form: at most this many */
	unsigned long cohesion;  /* percent: f / each of its bigrams */
	/* The two tables are read the first time the rule runs, not when the
	 * rule set is compiled: a run that does not select the rule (or a
	 * hook on a short file) does not pay for 90 000 lines. */
	const jh_rule *rule;
	const char *words_file, *sound_file; /* the rule's parameters */
	jh_lazy once;            /* the common words */
	jh_lazy once_sound;      /* the sound table, when a pair gets that far */
} drift_cfg;

const char *const jh_drift_params[] = {"words", "stop", "sound", "min-count", "max-rare", "cohesion",
                                       NULL};

void jh_drift_free(void *p)
{
	drift_cfg *c = p;
	if (!c)
		return;
	jh_wm_release_shared(c->common);
	jh_strset_free(&c->stop);
	free(c->class3);
	free(c->sound);
	jh_lazy_destroy(&c->once_class);
	jh_lazy_destroy(&c->once);
	jh_lazy_destroy(&c->once_sound);
	free(c);
}

static int cmp_sound(const void *a, const void *b)
{
	const struct sound *x = a, *y = b;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

/* The bytes that stop the scan for a tab in load_sound. */
static const unsigned char tab_or_nul[256] = {['\t'] = 1, ['\0'] = 1};

/* The bytes that end a field in sound_line: a tab, a line end, a NUL. */
static const unsigned char field_end[256] = {['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\0'] = 1};

/* One line of the table's usual shape, read in one walk: a character of
 * three bytes, an initial of 1-3 bytes, a final of 1-7, a radical of 1-9
 * digits, a newline.  The general reading would make the same entry of
 * it; anything else (a comment, a CR, a longer field, the last line
 * without its newline) is left to it: NULL.  Else the byte after the
 * line. */
static const char *sound_line(const char *p, const char *end, struct sound *e)
{
	if (end - p < 10)
		return NULL;
	unsigned b0 = (unsigned char)p[0], b1 = (unsigned char)p[1], b2 = (unsigned char)p[2];
	if (b0 < 0xE1 || b0 > 0xEF || b0 == 0xED || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80 ||
	    p[3] != '\t')
		return NULL;
	e->cp = (int32_t)((b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F));
	p += 4;
	size_t k = 0;
	while (k < sizeof e->initial - 1 && p < end && !field_end[(unsigned char)*p])
		e->initial[k++] = *p++;
	if (!k || p == end || *p != '\t')
		return NULL;
	e->initial[k] = '\0';
	p++;
	k = 0;
	while (k < sizeof e->final - 1 && p < end && !field_end[(unsigned char)*p])
		e->final[k++] = *p++;
	if (!k || p == end || *p != '\t')
		return NULL;
	e->final[k] = '\0';
	p++;
	unsigned long v = 0;
	for (k = 0; k < 9 && p < end && *p >= '0' && *p <= '9'; k++)
		v = v * 10 + (unsigned long)(*p++ - '0');
	if (!k || p == end || *p != '\n')
		return NULL;
	e->radical = (unsigned)v;
	return p + 1;
}

/* Read data/FILE: character<TAB>initial<TAB>final<TAB>radical.  A line
 * of the usual shape is read by sound_line (at 290 instructions a line,
 * the general reading was 6 M for the 21,000 of the Unihan table, paid
 * by the first text with a pair that gets that far); any other is split
 * here as jh_tsv_next splits it (a trailing CR dropped, empty and # lines
 * skipped, the fourth field keeps any further tabs). */
static int load_sound(drift_cfg *c)
{
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, c->sound_file, c->rule, c->rule->line, NULL, NULL);
	if (rc)
		return rc;
	size_t cap_v = 0;
	char *data = t.data;
	size_t pos = t.pos, len = t.len;
	/* character<TAB>initial<TAB>final<TAB>radical; a line that is not
	 * that is skipped, as a table with fewer rows only guards less; a line
	 * of fewer fields ends the table */
	while (rc == JH_OK && data && pos < len) {
		if (c->n_sound == cap_v &&
		    jh_grow((void **)&c->sound, &cap_v, c->n_sound + 1, sizeof *c->sound)) {
			rc = JH_ERR_NOMEM;
			break;
		}
		const char *next = sound_line(data + pos, data + len, &c->sound[c->n_sound]);
		if (next) {
			c->n_sound++;
			pos = (size_t)(next - data);
			continue;
		}
		char *ln = data + pos;
		char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		pos += n + (nl != NULL);
		if (n && ln[n - 1] == '\r')
			n--;
		ln[n] = '\0';
		if (!n || ln[0] == '#')
			continue;
		char *f[4], *q = ln;
		size_t fl[4];
		int k = 0;
		f[0] = ln;
		while (k < 3) { /* ln[n] is the NUL: it stops the scan */
			while (!tab_or_nul[(unsigned char)*q])
				q++;
			if (*q == '\0') {
				if (q == ln + n)
					break;
				q++; /* a NUL inside the line is a byte of its field */
				continue;
			}
			*q = '\0';
			fl[k] = (size_t)(q - f[k]);
			f[++k] = ++q;
		}
		if (k < 3)
			break;
		fl[3] = (size_t)(ln + n - f[3]);
		int32_t cp;
		if (fl[1] >= sizeof c->sound->initial || fl[2] >= sizeof c->sound->final || !fl[3] ||
		    jh_utf8_decode((const unsigned char *)f[0], fl[0], &cp) != fl[0] || cp < 0)
			continue;
		struct sound *e = &c->sound[c->n_sound++];
		e->cp = cp;
		memcpy(e->initial, f[1], fl[1] + 1);
		memcpy(e->final, f[2], fl[2] + 1);
		e->radical = (unsigned)strtoul(f[3], NULL, 10);
	}
	jh_tsv_close(&t);
	size_t i = 1;
	while (i < c->n_sound && c->sound[i - 1].cp <= c->sound[i].cp)
		i++;
	if (rc == JH_OK && i < c->n_sound) /* the generator writes it sorted */
		qsort(c->sound, c->n_sound, sizeof *c->sound, cmp_sound);
	return rc;
}

/* Do two characters sound or look alike?  Unknown characters do not. */
static int alike(const drift_cfg *c, int32_t a, int32_t b)
{
	struct sound ka = {a, "", "", 0}, kb = {b, "", "", 0};
	const struct sound *x = bsearch(&ka, c->sound, c->n_sound, sizeof ka, cmp_sound);
	const struct sound *y = bsearch(&kb, c->sound, c->n_sound, sizeof kb, cmp_sound);
	if (!x || !y)
		return 0;
	return (strcmp(x->initial, y->initial) == 0 && strcmp(x->initial, "-") != 0) ||
	       strcmp(x->final, y->final) == 0 || (x->radical && x->radical == y->radical);
}

/* ---- characters by code ----
 *
 * The counting knows a character by a code, not by its code point.  A
 * three-byte sequence (lead 1110aaaa, continuations 10bbbbbb 10cccccc)
 * carries 16 bits; with its bytes in w, the first in the low bits,
 * code3 = (w ^ w >> 6) & 0xFFFF gives every one of the 65,536 sequences
 * its own value in four operations (bit k is w_k ^ w_k+6, and the bits
 * the sequence fixes make the rest solvable: cp_of_code), where the code
 * point takes ten.  A key's character is code3 | CODE3 (no Han
 * character's code is 0), or, beyond the BMP, the code point itself,
 * above every code3. */
#define CODE3 0x10000u
#define ASTRAL 0x20000

static inline uint32_t code3(uint32_t w)
{
	return (w ^ w >> 6) & 0xFFFFu;
}

static int32_t cp_of_code(uint32_t code)
{
	if (code >= ASTRAL)
		return (int32_t)code;
	uint32_t y = code & 0xFFFFu;
	uint32_t b = (y >> 8 & 1) | ((y >> 9 & 1) ^ 1) << 1 | ((y >> 4 & 0xF) ^ 0xE) << 2;
	uint32_t c = ((y >> 10 & 0xF) ^ (b >> 2 & 0xF)) | (y >> 14 & 1) << 4 | ((y >> 15 & 1) ^ 1) << 5;
	uint32_t a = (y & 0xF) ^ (3 | (b & 3) << 2);
	return (int32_t)(a << 12 | b << 6 | c);
}

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

static int is_numeral(int32_t cp)
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
 * without it: see char_slow), and cheaply: the 64 code points of a block
 * that shares lead and middle byte have the codes base ^ C << 10 (C: the
 * last byte's six bits), that is every (base & 0x3FF) + 1024 j, and the
 * Han ranges are whole such blocks but for 〇. */
static int build_classes(void *arg)
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

/* Does the stop list hold a Han character beyond the BMP (looked up in
 * the list when one is read)? */
static int has_astral_stop(const jh_strset *stop)
{
	for (size_t k = 0; k < stop->cap; k++) {
		int32_t cp;
		const char *w = stop->keys[k];
		if (w && jh_utf8_decode((const unsigned char *)w, stop->lens[k], &cp) == stop->lens[k] &&
		    cp >= 0x10000 && (jh_class_of(cp) & JH_C_HAN))
			return 1;
	}
	return 0;
}

/* Is the character of this code a numeral? */
static int code_is_numeral(const uint8_t *class3, uint32_t code)
{
	if (code >= ASTRAL)
		return 0;
	return class3 ? (class3[code & 0xFFFFu] & CH_NUMERAL) != 0 : is_numeral(cp_of_code(code));
}

int jh_drift_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	drift_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once_class);
	jh_lazy_init(&c->once);
	jh_lazy_init(&c->once_sound);
	c->rule = r;
	int rc = JH_OK;
	/* words and sound: checked now, read on first use (drift_load). */
	const char *keys[2] = {"words", "sound"};
	const char **names[2] = {&c->words_file, &c->sound_file};
	for (int k = 0; k < 2 && rc == JH_OK; k++) {
		unsigned line = r->line;
		*names[k] = jh_rule_param(r, keys[k], &line);
		if (*names[k])
			rc = jh_data_readable(r, *names[k], line, diag_fn, payload);
	}
	unsigned line = r->line;
	const char *stop = jh_rule_param(r, "stop", &line);
	if (rc == JH_OK && stop)
		rc = jh_load_words(&c->stop, r->data_dir, stop, r, line, diag_fn, payload);
	if (rc == JH_OK)
		c->astral_stop = has_astral_stop(&c->stop);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-count", 5, 1000000, &c->min_count, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "max-rare", 1, 1000, &c->max_rare, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "cohesion", 60, 100, &c->cohesion, diag_fn, payload);
	if (rc == JH_OK && c->min_count <= c->max_rare) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "min-count must be larger than max-rare");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		jh_drift_free(c);
		return rc;
	}
	*out = c;
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
static unsigned char_slow(const drift_cfg *c, const uint8_t *class3, const unsigned char *s,
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
static inline size_t ascii_end(const unsigned char *s, size_t i, size_t end)
{
	for (uint64_t w; end - i >= 8; i += 8) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
	}
	while (i < end && s[i] < 0x80)
		i++;
	return i;
}

/* ---- n-gram table ---- */

/* A key packs three character codes of 21 bits, the first character in
 * the low bits (a bigram: two); no code is 0, so no key is.  The counting
 * shifts each new character in at the top, and the oldest falls out at
 * the bottom without a mask. */
#define CP_BITS 21
#define CP_MASK ((uint64_t)0x1FFFFF)
#define KEY2_MASK (((uint64_t)1 << (2 * CP_BITS)) - 1)

static inline uint32_t key_code(uint64_t key, int i)
{
	return (uint32_t)((key >> (CP_BITS * i)) & CP_MASK);
}

/* Bytes of the character of a code. */
static inline size_t code_bytes(uint32_t code)
{
	return code < ASTRAL ? 3 : 4;
}

typedef struct {
	uint64_t key;   /* 0 = empty */
	uint32_t count;
	uint32_t pos;   /* byte offset of the first occurrence (capped) */
} ng_slot;

/* Open addressing with the entries in the slots: a key seen before (most
 * of a text's) costs one multiplication and one slot read.  Counts need
 * no cap: a block of at most 1.25 DRIFT_BLOCK bytes holds fewer trigrams
 * than a uint32_t counts. */
typedef struct {
	ng_slot *s;
	uint32_t *used; /* the occupied slots in order of arrival: the walks and the
	                 * clearing for the next block touch only these */
	size_t cap, n;  /* slots (a power of two, 0 before the first use), keys */
} ng_table;

#define GOLDEN 0x9E3779B97F4A7C15ull

/* The high half of key × 2^64/φ, whose every bit depends on every bit of
 * the key: its low bits pick the slot.  Bits taken from the low half, or
 * from its middle, depend only on the key's low bits: keys that differ in
 * one character only fell into one cluster.  (The top bits of the low
 * half would do as well, but need the shift in a register the counting
 * loop cannot spare.) */
static inline uint64_t mix(uint64_t key)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t)((unsigned __int128)key * GOLDEN >> 64);
#else
	uint64_t kl = key & 0xFFFFFFFFu, kh = key >> 32, gl = GOLDEN & 0xFFFFFFFFu, gh = GOLDEN >> 32;
	uint64_t ll = kl * gl, lh = kl * gh, hl = kh * gl, hh = kh * gh;
	uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* The slot from bits 4 and up of mix: the counting loop masks a byte
 * offset (mix & (cap - 1) << 4) and so saves a shift. */
static inline size_t slot_of(const ng_table *t, uint64_t key)
{
	return (size_t)(mix(key) >> 4) & (t->cap - 1);
}

static ng_slot *ng_find(const ng_table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(t, key);; i = (i + 1) & (t->cap - 1)) {
		if (t->s[i].key == key)
			return &t->s[i];
		if (!t->s[i].key)
			return NULL;
	}
}

static int ng_resize(ng_table *t, size_t cap)
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

/* Room for n keys at a load of at most one half. */
static int ng_reserve(ng_table *t, size_t n)
{
	size_t cap = 64;
	while (cap < 2 * n + 2)
		cap *= 2;
	return cap > t->cap ? ng_resize(t, cap) : JH_OK;
}

/* Empty, keeping the memory. */
static void ng_clear(ng_table *t)
{
	for (size_t k = 0; k < t->n; k++)
		t->s[t->used[k]].key = 0;
	t->n = 0;
}

static void ng_free(ng_table *t)
{
	free(t->s);
	free(t->used);
	*t = (ng_table){0};
}

/* A new key (not in the table), with count and pos; NULL when memory
 * runs out. */
static ng_slot *ng_insert(ng_table *t, uint64_t key, uint32_t count, size_t pos)
{
	if ((t->n + 1) * 2 > t->cap && ng_resize(t, t->cap ? t->cap * 2 : 4096))
		return NULL;
	size_t i = slot_of(t, key);
	while (t->s[i].key)
		i = (i + 1) & (t->cap - 1);
	t->s[i] = (ng_slot){key, count, pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos};
	t->used[t->n++] = (uint32_t)i;
	return &t->s[i];
}

/* The entry for key, a new one (count 0, at pos) if it was not there. */
static ng_slot *ng_upsert(ng_table *t, uint64_t key, size_t pos)
{
	ng_slot *e = ng_find(t, key);
	return e ? e : ng_insert(t, key, 0, pos);
}

/* ---- counting ---- */

/* A block's counts: every trigram of the runs of characters a form may
 * hold, and the last bigram of each such run of two or more. */
typedef struct {
	ng_table tri;
	uint64_t *tails;
	size_t n_tails, cap_tails;
} drift_counts;

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
	return ng_insert(t, key, 1, tri_start(key, i)) ? JH_OK : JH_ERR_NOMEM;
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
			p = s + ascii_end(s, (size_t)(p - s) + 1, (size_t)(st->end - s));
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
static __attribute__((noinline)) int count_block(const drift_cfg *cfg, const uint8_t *class3,
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
			if (!ng_insert(t, st.key, 1, tri_start(st.key, i)))
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
			i = ascii_end(s, i + 1, end);
		else
			cls = char_slow(cfg, class3, s, len, &i, &code);
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

/* ---- the check ---- */

typedef struct {
	size_t rpos, fpos;   /* first bytes of the rare and the frequent form */
	size_t dpos;         /* the differing character in the rare form */
	uint32_t r, f;       /* their slots in the trigram table */
	int i;               /* where they differ */
} drift_hit;

/* Byte offsets of the three characters at pos, and the end. */
static void tri_offsets(const char *text, size_t len, size_t pos, size_t off[4])
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

static int cmp_hit(const void *a, const void *b)
{
	/* a total order: the first window of a character wins whatever order
	 * the table gave the hits in */
	const drift_hit *x = a, *y = b;
	if (x->dpos != y->dpos)
		return x->dpos < y->dpos ? -1 : 1;
	if (x->rpos != y->rpos)
		return x->rpos < y->rpos ? -1 : 1;
	return x->fpos < y->fpos ? -1 : x->fpos > y->fpos;
}

static int sound_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = c->sound_file ? load_sound(c) : JH_OK;
	return rc == JH_ERR_NOMEM ? rc : JH_OK; /* a file gone: fewer guards */
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
	tri_offsets(text, len, f->pos, fo);
	tri_offsets(text, len, r->pos, ro);
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
		if (jh_lazy_get(&((drift_cfg *)cfg)->once_sound, sound_read, (void *)cfg))
			return -1;
		if (cfg->n_sound &&
		    !alike(cfg, cp_of_code(key_code(f->key, i)), cp_of_code(key_code(r->key, i))))
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

/* A rare form can share a mask with a frequent one only if two of its
 * characters stand where a frequent form has them: one bit per character
 * (folded to FOLD_BITS) and position says which may.  Most trigrams of a
 * text are rare, and this spares them three hash lookups each. */
#define FOLD_BITS 14
#define FOLD(code) ((uint32_t)(code) & ((1u << FOLD_BITS) - 1))

typedef struct {
	uint64_t at[3][(1u << FOLD_BITS) / 64];
} place_bits;

static inline void place_set(place_bits *pb, int i, uint32_t code)
{
	pb->at[i][FOLD(code) >> 6] |= (uint64_t)1 << (FOLD(code) & 63);
}

static inline int place_has(const place_bits *pb, int i, uint32_t code)
{
	return (int)(pb->at[i][FOLD(code) >> 6] >> (FOLD(code) & 63)) & 1;
}

/* A rare form r, a frequent form f (their slots) that differ at i. */
typedef struct {
	uint32_t r, f;
	int i;
} drift_pair_at;

/* What a document's blocks reuse: the counts, the frequent forms by
 * masked key (count 1: one form, its slot in pos; 0: two or more), the
 * bigrams the cohesion test asks for, the pairs and the hits. */
typedef struct {
	const uint8_t *class3; /* cfg->class3, or NULL for a short text */
	drift_counts dc;
	ng_table masks, halves;
	place_bits pb;
	uint32_t *rare, *freq; /* slots of the rare and of the frequent forms */
	size_t n_rare, cap_rare, n_freq, cap_freq;
	drift_pair_at *pairs;
	size_t n_pairs, cap_pairs;
	drift_hit *hits;
	size_t n_hits, cap_hits;
} drift_work;

/* The block's rare and frequent forms: the one walk over every entry. */
static int forms_sort(const drift_cfg *cfg, drift_work *w)
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
static int frequent_build(drift_work *w)
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
			else if (!ng_insert(&w->masks, mk, 1, s))
				rc = JH_ERR_NOMEM;
		}
	}
	return rc;
}

/* The pairs of a rare and a frequent form that differ in one character
 * (not a numeral) at a place no other frequent form of the table differs. */
static int drift_candidates(const drift_cfg *cfg, drift_work *w)
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
	if (char_slow(cfg, class3, s, len, &i, &code) != CH_STOP || i != q)
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
	if (r >= end || char_slow(cfg, class3, s, len, &i, &code) != CH_STOP)
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
		if (!ng_insert(&want, mk, 0, 0))
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

/* Read the common words, once (jh_lazy): the rule set may serve several
 * threads.  A file gone since compiling means fewer guards, not an error;
 * only running out of memory stops the check. */
static int drift_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = JH_OK;
	if (c->words_file)
		/* the word-model table (wordmap.h): shared, and mapped from the
		 * cache folder after the first run */
		rc = jh_wm_get_shared(c->rule, c->words_file, c->rule->line, 0, &c->common, NULL, NULL);
	return rc == JH_ERR_NOMEM ? rc : JH_OK;
}

static int drift_load(drift_cfg *c)
{
	return jh_lazy_get(&c->once, drift_read, c);
}

/* The document is counted in blocks of about DRIFT_BLOCK bytes (cut at a
 * line end): a name and its drifted form are compared within a block, so
 * the n-gram table stays at a few MB and in cache whatever the file's
 * size (one table over a 200 MB file took gigabytes).  A megabyte is a
 * hundred chapters: a name that drifts is seen often in far less. */
#ifndef DRIFT_BLOCK
#define DRIFT_BLOCK ((size_t)1 << 20)
#endif
_Static_assert(DRIFT_BLOCK / 2 < UINT32_MAX, "a block's counts must fit a uint32_t");

static size_t block_end(const char *text, size_t len, size_t start)
{
	if (len - start <= DRIFT_BLOCK + DRIFT_BLOCK / 4)
		return len; /* no short last block */
	const char *nl = memchr(text + start + DRIFT_BLOCK, '\n', DRIFT_BLOCK / 4);
	return nl ? (size_t)(nl - text) + 1 : start + DRIFT_BLOCK;
}

/* The pairs that pass the tests after the table's: cohesion (from the
 * counts), then the common words and the sound table (read only when a
 * pair gets that far), then the trigrams with a stop character. */
static int drift_hits(jh_brun *run, drift_work *w, size_t start, size_t end)
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
		tri_offsets(run->text, run->len, r->pos, ro);
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

static void drift_emit(jh_brun *run, drift_work *w)
{
	const char *text = run->text;
	size_t len = run->len;
	drift_hit *hits = w->hits;
	if (w->n_hits > 1)
		qsort(hits, w->n_hits, sizeof *hits, cmp_hit);
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < w->n_hits; k++) {
		if (hits[k].dpos == last)
			continue; /* one finding per character, from its first window */
		last = hits[k].dpos;
		size_t ro[4], fo[4];
		tri_offsets(text, len, hits[k].rpos, ro);
		tri_offsets(text, len, hits[k].fpos, fo);
		size_t g[2] = {fo[0], fo[3]};
		size_t at = run->out->count;
		jh_brun_emit(run, ro[0], ro[3], g, 1, NULL);
		/* The frequent form is an answer to check, not a fix: where
		 * a text spells a name two ways both are often right
		 * (transliterations, a quoted misprint, an idiom that shares
		 * two characters), and the document cannot tell which
		 * (README, "How often an unsafe fix is right").  So not even
		 * `fix --unsafe` applies it; the message still names it. */
		if (!run->err && run->out->count == at + 1) {
			jh_finding *f = &run->out->items[at];
			if (f->has_fix && f->n_edits == 1) {
				int e = jh_findings_add_alternative(run->out, at, f->edits, 1);
				if (e)
					run->err = e;
				else
					jh_finding_drop_fix(&run->out->items[at]);
			}
		}
	}
}

static int drift_block(jh_brun *run, drift_work *w, size_t start, size_t end)
{
	const drift_cfg *cfg = run->cfg;
	ng_clear(&w->dc.tri); /* the next block starts empty, in the same memory */
	w->dc.n_tails = 0;
	if (!w->dc.cap_tails &&
	    jh_grow((void **)&w->dc.tails, &w->dc.cap_tails, 1024, sizeof *w->dc.tails))
		return JH_ERR_NOMEM;
	/* A Han character is three bytes and about half the trigrams hold a
	 * stop character: a chapter's table is made once, at its size; a
	 * long block starts at 32,768 keys and grows, as repeated text has
	 * few distinct ones. */
	size_t most = (end - start) / 6;
	int rc = ng_reserve(&w->dc.tri, most < 32768 ? most : 32768);
	if (rc == JH_OK)
		rc = count_block(cfg, w->class3, (const unsigned char *)run->text, run->len, start, end,
		                 &w->dc);
	/* Most texts a hook sees are short: without a frequent form there is
	 * nothing to compare, and the tables need not be read. */
	if (rc == JH_OK)
		rc = forms_sort(cfg, w);
	w->n_pairs = w->n_hits = 0;
	if (rc == JH_OK && w->n_freq && w->n_rare)
		rc = frequent_build(w);
	if (rc == JH_OK && w->n_freq && w->n_rare)
		rc = drift_candidates(cfg, w);
	if (rc == JH_OK && w->n_pairs)
		rc = drift_hits(run, w, start, end);
	if (rc == JH_OK)
		drift_emit(run, w);
	return rc;
}

/* Below this many bytes a text is read without the class table: building
 * it costs what reading 1,500 characters without it does, and most texts
 * a hook or an editor checks are a line or a paragraph. */
#ifndef CLASS_TABLE_MIN
#define CLASS_TABLE_MIN 4096
#endif

void jh_drift_finish(jh_brun *run)
{
	drift_cfg *cfg = (drift_cfg *)run->cfg;
	drift_work w = {0};
	int rc = JH_OK;
	if (run->len >= CLASS_TABLE_MIN) {
		rc = jh_lazy_get(&cfg->once_class, build_classes, cfg);
		w.class3 = cfg->class3;
	}
	for (size_t start = 0, end; start < run->len && rc == JH_OK; start = end) {
		end = block_end(run->text, run->len, start);
		rc = drift_block(run, &w, start, end);
	}
	if (rc)
		run->err = rc;
	ng_free(&w.dc.tri);
	ng_free(&w.masks);
	ng_free(&w.halves);
	free(w.dc.tails);
	free(w.rare);
	free(w.freq);
	free(w.pairs);
	free(w.hits);
}
