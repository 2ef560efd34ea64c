/* script.h — shared by the script family's files: check_script.c (the
 * variant checks' scan and reports), script_tables.c (their tables: read,
 * indexed, mapped from the cache) and check_script_chars.c (checks of
 * single characters).  Not installed. */
#ifndef JH_SCRIPT_H
#define JH_SCRIPT_H

#include <string.h>
#include "builtins.h"
#include "utf8.h"
#include "util.h"

/* ---- small helpers ---- */

static inline int32_t decode_at(const char *text, size_t len, size_t pos, size_t *n)
{
	int32_t cp;
	*n = jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp);
	return cp;
}

/* Is cp one of the characters of the UTF-8 string set?  UTF-8 is
 * self-synchronising, so a byte search cannot match inside another
 * character. */
static inline int cp_in(int32_t cp, const char *set)
{
	char u[5];
	if (cp < 0)
		return 0;
	u[jh_utf8_encode(cp, u)] = 0;
	return strstr(set, u) != NULL;
}

/* ==== simplified / traditional ========================================= */

enum { F_HANS = 1, F_HANT = 2, F_SUSPECT = 4 };
enum { V_NONE = 0, V_HANS = 1, V_HANT = 2 };
enum { MODE_CHARS, MODE_PHRASES, MODE_REGIONAL };
enum { MAX_GROUPS = 255, GROUP_FORMS = 3 };

typedef struct {
	int32_t cp;
	uint8_t flags;
	const char *forms;   /* the character in the other variant: "發|髮" */
} char_ent;

/* An entry of the phrase table: offsets of NUL-terminated strings in the
 * table's text, so that the compiled form can be mapped as it is. */
typedef struct {
	uint32_t wrong, right, prev_not, next_not;
	uint32_t wrong_len;
} phrase_ent;

struct script_chars;
void chars_release(struct script_chars *t);

typedef struct {
	int mode;
	int variant;             /* V_NONE = auto */
	unsigned long para_min;  /* evidence for a paragraph to keep its own variant */
	struct script_chars *chars; /* shared by the rules that read the same file */
	/* the phrase table: built from the file (owned) or mapped from the
	 * cache folder (ph_map) */
	const char *ph_text;
	size_t ph_text_len;
	void *ph_map;
	size_t ph_map_len;
	uint8_t *bmp;            /* flags of every BMP code point: chars->bmp, or a copy */
	int own_bmp;             /* the phrase check adds F_SUSPECT to its own copy */
	const char_ent *ents;    /* chars->ents, sorted by code point */
	size_t n_ents;
	const phrase_ent *ph;
	size_t n_ph;
	const uint32_t *index;   /* open addressing, entry + 1, 0 = empty */
	size_t index_mask;
	size_t max_phrase;       /* longest phrase, in bytes */
	/* The conversion check's filter of the phrase table: a bit (of a
	 * hash) for every two neighbouring characters of a key, so that a
	 * window with two neighbours in no key is not looked up (phrase_pair);
	 * NULL (not made yet, or no memory): every window is looked up.
	 * Made once enough suspects were looked up (phrase_filter_count),
	 * published with a release store. */
	uint64_t *pairs;
	size_t pair_asks;
	jh_lazy pairs_once;
	/* regional forms (裏 裡, 爲 為, 着 著): group of each BMP character + 1 */
	uint8_t *group;
	int32_t forms[MAX_GROUPS][GROUP_FORMS];
	int standard;            /* 0 = the document's majority, else 1 + column */
	/* The phrase table is read the first time a traditional paragraph has
	 * a suspect (compiling reads only which characters are suspects). */
	const jh_rule *rule;
	jh_lazy phrases_once;
} variant_cfg;

/* what load_phrases (the phrase table, read once: jh_lazy) is given */
typedef struct {
	variant_cfg *c;
	jh_diag_fn diag_fn;
	void *payload;
} phrases_arg;

/* ---- script_tables.c ---- */
void variant_free(void *p);
const char_ent *find_ent(const variant_cfg *c, int32_t cp);
/* V_NONE, V_HANS or V_HANT for "auto", "hans", "hant"; -1 otherwise */
int parse_variant(const char *v);
const phrase_ent *find_phrase(const variant_cfg *c, const char *s, size_t n);
int load_phrases(void *arg);
void phrase_filter_count(const variant_cfg *cfg);
int chars_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);
/* The F_HANS / F_HANT table of the character file c reads (shared by the
 * checks that read the same file), or NULL. */
const uint8_t *variant_tally_table(const variant_cfg *c);
int phrases_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);
int regional_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);

/* The filter's bit for the n bytes at s (two characters); a pair longer
 * than eight bytes has none and always passes. */
enum { PAIR_BITS_LOG = 18 };

static inline uint64_t pair_hash(const char *s, size_t n)
{
	uint64_t v = 0;
	if (n == 6) { /* two characters of the BMP: the common pair */
		uint32_t lo;
		uint16_t hi;
		memcpy(&lo, s, 4);
		memcpy(&hi, s + 4, 2);
		v = lo | (uint64_t)hi << 32;
	} else {
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)(unsigned char)s[i] << (8 * i);
	}
	return (v * 0x9E3779B97F4A7C15ull) >> (64 - PAIR_BITS_LOG);
}

static inline int phrase_pair(const uint64_t *pairs, const char *s, size_t n)
{
	if (!pairs || n > 8)
		return 1;
	uint64_t h = pair_hash(s, n);
	return (pairs[h >> 6] >> (h & 63)) & 1;
}

static inline uint8_t char_flags(const variant_cfg *c, int32_t cp)
{
	if (cp < 0x10000)
		return c->bmp[cp];
	const char_ent *e = cp >= 0x20000 ? find_ent(c, cp) : NULL;
	return e ? e->flags : 0;
}

/* ---- check_script.c ---- */
/* A finding of rule run->rule on [a, b) with the fix right (unsafe: never
 * safer than that), and a note for its message. */
void script_emit_fix(jh_brun *run, size_t a, size_t b, const char *right, size_t rlen, int unsafe,
                     const char *note);

#endif
