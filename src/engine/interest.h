/* interest.h — the interest table of a rule set: one 16-bit mask per BMP
 * code point, built once when the rules compile, that says which matchers
 * a character can wake (a lexicon word starts with it, a regex rule is
 * triggered by it, a Han check wants it).  The class scan looks every
 * character up in it, so that a Han character whose entry is 0 costs a
 * decode and a load and wakes nothing: seven indirect calls per Han
 * character were the scan's largest cost. */
#ifndef JH_INTEREST_H
#define JH_INTEREST_H

#include <stddef.h>
#include <stdint.h>

struct jh_regexes;
struct jh_lexicon;
struct jh_builtins;

enum {
	JH_I_LEX = 1u << 0,  /* the lexicon automaton has a root transition on it */
	JH_I_TRIG = 1u << 1, /* some regex rule's trigger set holds it */
	JH_I_LANE0 = 2,      /* bits 2-12: one per Han check ("lane") */
	/* for a character neither ASCII nor Han, whose entry has no lanes:
	 * some check's other_mark() marks it (builtins.h) */
	JH_I_OTHER_MARK = 1u << 2,
	/* a BMP Han character with the first or second flag of the tally
	 * table (builtins.h tally): the scan counts it */
	JH_I_TALLY0 = 1u << 13,
	JH_I_TALLY1 = 1u << 14,
	/* a three-byte code point that is not a Han character (CJK and
	 * full-width punctuation, kana, ...): the scan's run of Han
	 * characters that wake nothing stops at it, to ask its class */
	JH_I_NOT_HAN = 1u << 15
};
#define JH_I_LANES 11

typedef struct jh_interest {
	uint16_t *bits;                 /* 65,536 entries */
	int n_lanes;
	size_t lane_slot[JH_I_LANES];   /* builtin slot of each lane */
	uint16_t astral_lanes;          /* lanes woken by every astral Han character */
	size_t *all_slots;              /* checks woken by every Han character */
	size_t n_all;
	/* checks woken by a Han character right after the same one: they need
	 * no lane (the scan visits every such character), so they never run
	 * out of lanes and are never woken by every Han character */
	size_t *repeat_slots;
	size_t n_repeat;
	/* the checks whose characters the scan tallies (by builtin slot; NULL:
	 * none), and the table and flags they share */
	unsigned char *tallied;
	const uint8_t *tally_table;
	uint8_t tally_flags[2];
} jh_interest;

/* Build it after the lexicon's automaton; every builtin slot with JH_C_HAN
 * in its wake mask gets a lane, or a place in all_slots (every Han check
 * past the JH_I_LANES lanes, which is right for a check woken by the
 * characters it marks: its step is a no-op on the others) or in
 * repeat_slots. */
int jh_interest_build(jh_interest *it, const struct jh_regexes *rx, const struct jh_lexicon *lx,
                      const struct jh_builtins *bi);
void jh_interest_free(jh_interest *it);

/* For the tests: when set, rule sets compiled after mark every BMP
 * character that is neither ASCII nor Han JH_I_OTHER_MARK, as if no check
 * had other_mark(): the scan wakes every check of a class, as it did, so
 * that a test can compare the two. */
extern int jh_interest_mark_all_others;
/* For the tests: when set, no check is tallied (each wakes by its lane for
 * every character it counts, as before the tally). */
extern int jh_interest_no_tally;

#endif
