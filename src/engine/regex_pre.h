/* regex_pre.h — a check in C, before PCRE2, of the characters a triggered
 * regex rule needs around its trigger.  Most trigger positions cannot
 * match (a Latin letter of technical text is rarely after a Han
 * character), and a PCRE2 call costs 300-900 instructions; the check costs
 * a table lookup. */
#ifndef JH_REGEX_PRE_H
#define JH_REGEX_PRE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#define JH_PRE_MAX_ALTS 8

/* One character class, as PCRE2 reads it, with its answers for the BMP
 * kept as they are found (0 not asked, 1 no, 2 yes; bytes written with
 * relaxed atomics, since rule sets are shared by threads and a race only
 * writes the same answer twice). */
typedef struct {
	char *src;        /* as written in the pattern */
	size_t n_src;     /* its length */
	pcre2_code *code; /* the class alone, anchored, compiled at first use; atomic */
	uint8_t *memo;    /* 65536 answers, allocated at first use; atomic */
	int bad;          /* PCRE2 did not take it alone: every answer yes; atomic */
	int32_t lit;      /* the one character it is, or -1 */
} jh_pre_class;

/* The classes of a rule set, each once: \p{sc=Han} is in eight rules, and
 * its answers are found once for them all. */
typedef struct {
	jh_pre_class **v;
	size_t n, cap;
} jh_pre_classes;

void jh_pre_classes_free(jh_pre_classes *cs);

/* A rule's check: its match must start at the trigger t (no lead), and
 * one of the top-level alternatives of its pattern must fit the text
 * around t as far as the check reads it:
 *  - back tests: lookbehinds at the alternative's start say what the
 *    character 1 or 2 before t is (a class, or for (?<!X) a class it is
 *    not);
 *  - forward items: the pattern's first items, each a class matched once,
 *    optionally, or any number of times, and one-class lookaheads; they
 *    are walked as a small automaton over at most JH_PRE_WINDOW
 *    characters from t.
 * Reading stops at the first item it does not take (a group of several
 * items, an anchor, a back-reference): what is before it is still sure,
 * so the check only ever says no where PCRE2 could not match.  n == 0:
 * no check (PCRE2 at every trigger). */
enum { JH_PRE_ONE, JH_PRE_OPT, JH_PRE_STAR, JH_PRE_LOOK };

typedef struct {
	int32_t lit;      /* the one character it is (one literal class), or -1 */
	uint8_t first, n; /* its classes: pre->cls[first .. first + n), a character in any */
	uint8_t kind;     /* a forward item: JH_PRE_ONE, OPT, STAR or LOOK (zero-width) */
	uint8_t neg;      /* a back test: passes when the character is in none (or there is none) */
	uint8_t end_ok;   /* LOOK: the end of the text passes too */
	uint8_t back;     /* a back test: the character this many before t (1 or 2) */
} jh_pre_test;

#define JH_PRE_BACK 4      /* back tests of one alternative */
#define JH_PRE_ITEMS 12    /* forward items of one alternative */
#define JH_PRE_CLASSES 64  /* classes of one pattern */
#define JH_PRE_WINDOW 32   /* characters from t the automaton walks, at most */

typedef struct {
	jh_pre_test back[JH_PRE_BACK];
	jh_pre_test fwd[JH_PRE_ITEMS];
	uint8_t n_back, n_fwd;
} jh_pre_alt;

typedef struct {
	int n;
	jh_pre_alt alt[JH_PRE_MAX_ALTS];
	jh_pre_class *cls[JH_PRE_CLASSES]; /* owned by the jh_pre_classes */
	int n_cls;
	uint16_t decided;          /* alternatives the characters at t - 1 and t decide */
	uint16_t second, decided2; /* those the character after t tells something
	                            * (the first item takes one character), and of
	                            * those the ones it decides */
	struct jh_pre_memo *memo;  /* the alternatives each character allows, found as
	                            * they come (regex_pre.c); atomic */
} jh_pre;

/* Frees what answers kept (the memo); the check stays usable. */
void jh_pre_free(jh_pre *pre);

/* Build the check of a pattern (n = 0 when some alternative needs
 * nothing the check reads, or lead > 0), its classes kept in cs.  A pure
 * function of the pattern and lead: a stored rule set can build it again
 * from them.  0, or -1 when memory ran out. */
int jh_pre_build(jh_pre *pre, const char *pattern, unsigned lead, jh_pre_classes *cs);

/* 0 when no match can start at trigger position t of text[0..len); 1 when
 * one may (also whenever a character it looks at is not valid UTF-8).
 * md: match data the caller owns (the per-thread scratch). */
int jh_pre_maybe(const jh_pre *pre, const char *text, size_t len, size_t t,
                 pcre2_match_data *md);
/* The same for the class scan, which has decoded the characters around t
 * already: before is the code point ending at t (-2: t is 0, -1: not
 * valid), starting at before_at; at is the one at t (n_at bytes). */
int jh_pre_maybe_at(const jh_pre *pre, const char *text, size_t len, size_t t, int32_t before,
                    size_t before_at, int32_t at, size_t n_at, pcre2_match_data *md);
/* What jh_pre_maybe_at answers from the two characters alone, before
 * and at both in the BMP (before >= 0): 0 or 1 as it would, or -1 when it
 * needs to look further (then ask it).  A pure function of the three, so
 * the scan keeps it per pair of characters. */
int jh_pre_pair(const jh_pre *pre, int32_t before, int32_t at, pcre2_match_data *md);
/* The check in words, for tests: alternatives split by " | ", back tests
 * as <1[...] or <1![...], items as X, X?, X*, (?=X) with \z for the end;
 * a class of several as {A,B}. */
void jh_pre_describe(const jh_pre *pre, char *buf, size_t size);

#endif
