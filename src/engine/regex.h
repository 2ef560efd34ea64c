/* regex.h — PCRE2 regex rules (JIT-compiled once they see enough text).  A rule with a `trigger` set runs only
 * around the positions where one of its trigger characters occurs (found by
 * the class scan); a rule without one scans the whole text. */
#ifndef JH_REGEX_H
#define JH_REGEX_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include "findings.h"
#include "rules.h"
#include "regex_pre.h"

typedef struct {
	long rule_index;
	pcre2_code *code;
	int triggered;      /* has a trigger set */
	jh_pre pre;         /* the characters its triggers need around them, or none;
	                     * asked by the class scan (scan.c) before a trigger
	                     * position is recorded */
	size_t pre_seen;    /* trigger positions the scan has seen for it; atomic */
	unsigned bit;       /* its bit in trigger masks */
	unsigned lead;      /* match may start this many characters before the trigger */
	/* `trigger-words`: the rule runs only at a trigger where one of these
	 * starts (NUL-terminated, one after another in one block), or NULL.
	 * A rule with a lead gets no check before PCRE2 (regex_pre.h), and
	 * one whose triggers are common letters (censor.url: h, w, m, b …)
	 * was called at every one of them in technical text. */
	char *words;
	unsigned n_words;
	struct jh_rx_word *wv; /* the same, for the compare (n_words of them) */
	/* a quick no before the words are compared: the byte after the
	 * trigger character of a word of two or more characters (next), the
	 * first byte of a word of one character (single) */
	uint64_t next_set[4], single_first[4];
	/* `near-words` and `near`: the rule runs only at a trigger where one
	 * of these occurs from `lead` characters before it to `near` after
	 * it (or NULL).  censor.injected-text is triggered by common Han
	 * characters (住 首 更 站 记) and its pattern is costly to try at
	 * each, in prose where a pirate note's domain (a full stop between
	 * Latin letters) is never near. */
	char *near_words;
	unsigned n_near, near_after;
	size_t near_max;    /* the longest near word's bytes */
	uint32_t pairs;     /* capture groups + 1: the ovector pairs this pattern sets */
	/* JIT compiling costs ~250,000 instructions a pattern, more than the
	 * interpreter spends on a few calls: a pattern is JIT-compiled once it
	 * has been called JH_JIT_AFTER times (or run over that many KB of text
	 * without a trigger, or has had JH_UTF_CHECK_UNIT × that many bytes
	 * UTF-checked; an atomic count shared by threads).
	 * The JIT code is a copy of the pattern, published by an atomic
	 * pointer, so that threads matching with the original meanwhile never
	 * see it change. */
	size_t seen;        /* calls (KB of text), atomic */
	int jit_state;      /* 0 not tried, 1 compiling, 2 done; atomic */
	pcre2_code *jit;    /* the JIT-compiled copy, or NULL; atomic */
	/* The rule's `unfixed-document` pattern, or NULL: where it matches
	 * anywhere in a text, the rule's findings in that text carry no fix
	 * (a writer's habit seen once, 。·这·是 for emphasis marks, tells what
	 * the same marks mean elsewhere in the text, and a person decides). */
	pcre2_code *unfixed_doc;
	/* `skip-lines`, or NULL: a match is dropped where this pattern matches
	 * on the match's line or the line before or after it (a drawing of
	 * box lines spans lines: 总经理──财务部 over a │). */
	pcre2_code *skip_lines;
} jh_rx;

#define JH_JIT_AFTER 8
/* pcre2_match checks the UTF-8 of the subject from the start offset to its
 * end on every call: with PCRE2_MATCH_INVALID_UTF, PCRE2_NO_UTF_CHECK does
 * not stop it (10.42).  About 10 instructions a byte of Chinese text
 * (callgrind), so this many bytes checked cost one unit of JH_JIT_AFTER
 * (~31,000 instructions).  The JIT matcher checks nothing. */
#define JH_UTF_CHECK_UNIT 3072

typedef struct {
	uint32_t lo, hi;
	uint64_t mask;
} jh_trigger_range;

typedef struct jh_regexes {
	jh_rx *v;
	size_t n, cap;
	uint32_t max_ovector;
	uint64_t *bmp[256];          /* trigger masks of U+0000..U+FFFF by 256-code-point page */
	jh_trigger_range *astral;    /* masks above U+FFFF */
	size_t n_astral, cap_astral;
	unsigned n_bits;
	jh_pre_classes pre_classes;  /* the classes of the rules' character-before checks */
	/* For the tests that count a pattern's work (tests/check_linear.c):
	 * extra pcre2_compile options (PCRE2_AUTO_CALLOUT) and the callout
	 * every match context gets.  Zero in a rule set of the library's. */
	uint32_t compile_opts;
	int (*callout)(pcre2_callout_block *, void *);
	void *callout_data;
	/* while the rule set compiles: codes read from the cache folder
	 * (regex_cache.c), or NULL */
	struct jh_rx_preload *preload;
} jh_regexes;

/* A trigger word as the scan compares it: its first 8 bytes (head, under
 * mask) at once, the rest (from w + 8) only when they agree.  。 and ，
 * are triggers of rules that want only 。。 or ，，: most of the text's
 * full stops are turned down by one load and one compare per word. */
struct jh_rx_word {
	uint64_t head, mask;
	const char *w;
	size_t len;
};

/* Does one of x's trigger words start at t (< len), where the trigger
 * character has n bytes? */
static inline int jh_rx_word_at(const jh_rx *x, const char *text, size_t len, size_t t, size_t n)
{
	unsigned char b0 = (unsigned char)text[t], b1 = t + n < len ? (unsigned char)text[t + n] : 0;
	if (!(x->next_set[b1 >> 6] >> (b1 & 63) & 1) && !(x->single_first[b0 >> 6] >> (b0 & 63) & 1))
		return 0; /* 。 before a Han character, where the words want 。。 */
	uint64_t v = 0;
	if (len - t >= 8)
		__builtin_memcpy(&v, text + t, 8);
	else
		__builtin_memcpy(&v, text + t, len - t);
	for (unsigned k = 0; k < x->n_words; k++) {
		const struct jh_rx_word *w = &x->wv[k];
		if ((v & w->mask) == w->head && w->len <= len - t &&
		    (w->len <= 8 || !__builtin_memcmp(text + t + 8, w->w + 8, w->len - 8)))
			return 1;
	}
	return 0;
}

/* Trigger mask of a code point (0 for most). */
static inline uint64_t jh_trigger_mask(const jh_regexes *rx, int32_t cp)
{
	if (cp < 0x10000) {
		const uint64_t *page = rx->bmp[cp >> 8];
		return page ? page[cp & 0xFF] : 0;
	}
	for (size_t i = 0; i < rx->n_astral; i++)
		if ((uint32_t)cp >= rx->astral[i].lo && (uint32_t)cp <= rx->astral[i].hi)
			return rx->astral[i].mask;
	return 0;
}

/* The first parameter of r a regex rule does not take (its own are
 * unfixed-document and skip-lines), or NULL. */
const jh_param *jh_regex_bad_param(const jh_rule *r);

void jh_regexes_init(jh_regexes *rx);
void jh_regexes_free(jh_regexes *rx);
/* Compile r's pattern and trigger; errors name the rule file and line. */
int jh_regexes_add(jh_regexes *rx, jh_rule *r, long rule_index, jh_diag_fn diag_fn, void *payload);

/* ---- regex_cache.c: the compiled patterns kept in the cache folder ---- */
/* The pcre2_compile options of r's pattern. */
uint32_t jh_regex_opts(const jh_regexes *rx, const jh_rule *r);
/* Before the rule set's patterns are compiled: read the codes of exactly
 * these (rules, in order) from cache_dir, if there (NULL: no cache). */
int jh_regexes_preload(jh_regexes *rx, const char *cache_dir, jh_rule *const *rules, size_t n);
/* The next pattern's code from the cache when it is this pattern with these
 * options, else NULL (compile it). */
pcre2_code *jh_regexes_take(jh_regexes *rx, const char *pattern, uint32_t opts);
/* After: write the cache file when a pattern had to be compiled and all
 * were, then drop what was read. */
void jh_regexes_preload_done(jh_regexes *rx, const char *cache_dir);
void jh_regexes_preload_free(jh_regexes *rx);

/* A position where trigger characters occur, recorded by the scan. */
typedef struct {
	size_t pos;
	uint64_t mask;
} jh_trigger_event;

typedef struct {
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack; /* the JIT matcher's stack, assigned to mctx */
} jh_rx_scratch;

int jh_rx_scratch_init(jh_rx_scratch *s, const jh_regexes *rx);
void jh_rx_scratch_free(jh_rx_scratch *s);

/* Trigger positions split by bit, so each rule walks only its own.  The
 * lists are built again for each chunk of events, in the same memory. */
typedef struct {
	size_t *pos[64];
	size_t n[64], cap[64];
} jh_trigger_lists;

int jh_trigger_lists_build(jh_trigger_lists *l, const jh_trigger_event *events, size_t n_events);
void jh_trigger_lists_free(jh_trigger_lists *l);

/* Where a rule's run over a text stands between calls: the trigger
 * positions of a long text come in chunks (the engine keeps no more than
 * JH_SCAN_EVENT_CHUNK of them at once), and a match never overlaps the one
 * before, so the next call starts at resume.  Zero it for a new text. */
typedef struct {
	size_t resume;
	int limit_errors;
	int given_up;        /* too many limit errors: no more matching in this text */
	int doc_unfixed;     /* unfixed_doc: 0 not asked yet, 1 no match, 2 matched */
	/* skip_lines' last answer, for the lines [skip_from, skip_to) */
	size_t skip_from, skip_to;
	int skip_hit;
	/* near-words' last search, of [near_from, near_to): the first word
	 * that fits there starts at near_hit - 1 and ends at near_end, or
	 * none does (near_hit 0).  Windows of triggers a few characters apart
	 * overlap: the next search reads only what is new. */
	size_t near_from, near_to, near_hit, near_end;
} jh_rx_progress;

/* Run regex slot over text, adding findings to out.  positions: the rule's
 * trigger positions in ascending order, all or the next chunk of them
 * (ignored for a rule without a trigger, which is run once over the whole
 * text).  Limit errors go to diag_fn and the rule is skipped where they
 * happen. */
int jh_regex_run(const jh_regexes *rx, size_t slot, const jh_rule *rule, const char *text,
                 size_t len, const size_t *positions, size_t n_positions, jh_rx_progress *pr,
                 jh_rx_scratch *scratch, const char *file, jh_diag_fn diag_fn, void *payload,
                 jh_findings *out);

#endif
