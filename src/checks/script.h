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
	/* regional forms (裏 裡, 爲 為, 着 著): group of each BMP character + 1 */
	uint8_t *group;
	int32_t forms[MAX_GROUPS][GROUP_FORMS];
	int standard;            /* 0 = the document's majority, else 1 + column */
	/* The phrase table is read the first time a traditional paragraph has
	 * a suspect (compiling reads only which characters are suspects). */
	const jh_rule *rule;
	jh_lazy phrases_once;
	/* 65,536 bits, set with the phrase table (NULL when that failed): the
	 * ends_key of each phrase of six bytes or more, so that of the windows
	 * around a suspect, only those that can be a phrase are hashed. */
	uint8_t *pair_bits;
} variant_cfg;

static inline int bit_at(const uint8_t *bits, uint32_t k)
{
	return (bits[k >> 3] >> (k & 7)) & 1;
}

/* The bit in pair_bits of the n >= 6 bytes at w: of their first and last
 * three bytes (a Han character each end, mostly), so that equal bytes
 * give equal bits, without decoding. */
static inline uint32_t ends_key(const unsigned char *w, size_t n)
{
	uint32_t a = (uint32_t)w[0] << 16 | (uint32_t)w[1] << 8 | w[2];
	uint32_t b = (uint32_t)w[n - 3] << 16 | (uint32_t)w[n - 2] << 8 | w[n - 1];
	return ((a * 2654435761u) ^ (b * 40503u)) >> 16;
}

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
int chars_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);
int phrases_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);
int regional_compile(const jh_rule *r, void **out, jh_diag_fn fn, void *pl);

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
