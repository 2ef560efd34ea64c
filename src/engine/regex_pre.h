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
 * each top-level alternative of its pattern needs, read from its start,
 * a character of some class at t - 1 (a lookbehind first), at t, or at
 * t + 1 (at[0], at[1], at[2]; NULL: nothing sure).  A match needs the
 * characters around t to fit one alternative.  n == 0: no check (call
 * PCRE2 at every trigger). */
typedef struct {
	jh_pre_class *at[3]; /* owned by the jh_pre_classes */
	int32_t lit[3];      /* the one character at[k] is, or -1 */
	uint8_t order[3];    /* the places tested, the one at t first */
	uint8_t n_tests;
} jh_pre_alt;

typedef struct {
	int n;
	jh_pre_alt alt[JH_PRE_MAX_ALTS];
} jh_pre;

/* Build the check of a pattern (n = 0 when its form is not one of the
 * above, or lead > 0), its classes kept in cs.  0, or -1 when memory ran
 * out. */
int jh_pre_build(jh_pre *pre, const char *pattern, unsigned lead, jh_pre_classes *cs);

/* 0 when no match can start at trigger position t of text[0..len); 1 when
 * one may (also whenever a character it looks at is not valid UTF-8).
 * md: match data the caller owns (the per-thread scratch). */
int jh_pre_maybe(const jh_pre *pre, const char *text, size_t len, size_t t,
                 pcre2_match_data *md);

#endif
