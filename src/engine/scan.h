/* scan.h — the class scan: one decode of the text that feeds every
 * per-character matcher at once (builtin checks, the lexicon automaton, and
 * the trigger positions of regex rules). */
#ifndef JH_SCAN_H
#define JH_SCAN_H

#include "builtins.h"
#include "lexicon.h"
#include "regex.h"

/* A lexicon entry found in the text. */
typedef struct {
	int32_t entry;
	size_t start, end;
} jh_lex_hit;

typedef struct {
	jh_trigger_event *events;
	size_t n_events, cap_events;
	jh_lex_hit *hits;
	size_t n_hits, cap_hits;
} jh_scan_result;

void jh_scan_result_free(jh_scan_result *r);

/* Trigger events are handed to on_events in chunks of this many while the
 * scan goes on, so that memory for them stays bounded on a long text (a
 * 1 GB novel has a hundred million punctuation marks); what is left at
 * the end stays in the result. */
#define JH_SCAN_EVENT_CHUNK 65536
typedef int (*jh_events_fn)(void *ctx, const jh_trigger_event *events, size_t n);

/* Scan text once.  enabled: per rule.  runs: one per builtin slot, already
 * set up; disabled builtins have rule == NULL.  on_events may be NULL: all
 * events then stay in res.  md: match data for the regex rules' checks
 * before PCRE2 (NULL when the rule set has no regex rule). */
int jh_scan(const jh_ruleset *rs, const char *text, size_t len, const unsigned char *enabled,
            jh_brun *runs, jh_scan_result *res, jh_events_fn on_events, void *ctx,
            pcre2_match_data *md);

#endif
