/* script.h — shared by the script family's files: the variant checks'
 * scan (script_count.c), their document-wide decision and mixed-variant
 * findings (check_script.c), the findings of suspect characters
 * (script_suspects.c), their tables (script_tables.c: read, indexed,
 * mapped from the cache) and check_script_chars.c (checks of single
 * characters).  Not installed. */
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

/* ==== the variant checks: the scan's counts (script_count.c), the
 * document-wide decision and findings (check_script.c, script_suspects.c) */

/* A paragraph and what the scan counted in it. */
typedef struct {
	size_t start, end;
	uint32_t hans, hant, suspects;
	uint32_t qhans, qhant; /* those of hans, hant inside quotation marks */
	int v;               /* the variant it is held to, set in finish() */
} para;

typedef struct {
	para *v;
	size_t n, cap;
	para cur;
} variant_state;

/* What a Han character counts for in this check. */
static inline uint8_t mode_flags(const variant_cfg *cfg, int32_t cp)
{
	uint8_t f = char_flags(cfg, cp);
	if (cfg->mode == MODE_CHARS)
		f &= F_HANS | F_HANT;
	else if (cfg->mode == MODE_REGIONAL) /* its suspects are the regional forms */
		f = (f & (F_HANS | F_HANT)) | (cp < 0x10000 && cfg->group[cp] ? F_SUSPECT : 0);
	return f;
}

/* Quotation marks.  What a text quotes (an inscription, a title, a line
 * of verse, speech) is written as its source was: it does not say which
 * variant the text around it is in, so it takes no part in the vote.  The
 * marks of a paragraph are followed as a stack packed in an int: its depth
 * in the low bits, and for each level whether it was opened by an ASCII
 * " (which closes only its own level; any other closing mark closes the
 * innermost).  The scan and finish() follow it alike. */
enum { Q_DEPTH_MAX = 16, Q_DEPTH_MASK = 31, Q_ASCII_SHIFT = 8 };

static inline int quote_kind(int32_t cp)
{
	switch (cp) {
	case 0x201C: case 0x300C: case 0x300E: case 0x300A: case 0x3008: case 0x2018: /* “「『《〈‘ */
		return 1;
	case 0x201D: case 0x300D: case 0x300F: case 0x300B: case 0x3009: case 0x2019: /* ”」』》〉’ */
		return -1;
	case '"':
		return 2;
	default:
		return 0;
	}
}

static inline int quote_depth(int q) { return q & Q_DEPTH_MASK; }

/* The stack q after the character cp. */
static inline int quote_update(int q, int32_t cp)
{
	int k = quote_kind(cp), d = quote_depth(q);
	if (k == 2) /* " closes a level it opened, else opens one */
		k = d && (q >> (Q_ASCII_SHIFT + d - 1) & 1) ? -1 : 3;
	if (k > 0 && d < Q_DEPTH_MAX)
		return (q & ~Q_DEPTH_MASK & ~(1 << (Q_ASCII_SHIFT + d))) | (k == 3) << (Q_ASCII_SHIFT + d) |
		       (d + 1);
	if (k < 0 && d)
		return (q & ~Q_DEPTH_MASK) | (d - 1);
	return q;
}

/* Characters that make a word with a following 字 (寫字, 數字, 三萬字,
 * 這字): before 字 they are no character spoken of (script_count.c). */
extern const char script_mention_not[];
enum { MENTION_MAX = 16 };

/* ---- script_count.c: the scan's step and what wakes it ---- */
/* Ends the paragraph s->cur at end (kept if it counted anything) and starts the next. */
void script_para_close(jh_brun *run, variant_state *s, size_t end);
variant_state *script_new_state(jh_brun *run);
void script_tally_flush(jh_brun *run, variant_state *s, const size_t *tally);
void script_step(jh_brun *run, const jh_char *c);
void script_ascii(const void *cfg, unsigned char wants[128]);
void script_mark(const void *cfg, uint16_t *table, uint16_t bit);
const uint8_t *script_tally(const void *cfg, uint8_t flags[2]);
void script_mark_tallied(const void *cfg, uint16_t *table, uint16_t bit);
void script_other(const void *cfg, uint16_t *table, uint16_t bit);

/* ---- script_suspects.c ---- */
/* A finding of rule run->rule on [a, b) with the fix right (unsafe: never
 * safer than that), and a note for its message. */
void script_emit_fix(jh_brun *run, size_t a, size_t b, const char *right, size_t rlen, int unsafe,
                     const char *note);
/* The conversion check's findings in the traditional paragraph p. */
void script_phrases_in_para(jh_brun *run, const para *p);
/* The regional check's findings in the traditional paragraphs of s. */
void script_regional_finish(jh_brun *run, const variant_state *s);

#endif
