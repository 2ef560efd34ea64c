/* scan.c — the class scan.  Every byte of the text passes through this loop
 * once, so it does as little as it can per character: decode, class, one
 * table lookup for triggers, one automaton step, and a call to a builtin
 * only when the character's class wakes it. */
#include <stdlib.h>
#include <string.h>
#include "charclass.h"
#include "rules.h"
#include "scan.h"
#include "utf8.h"

void jh_scan_result_free(jh_scan_result *r)
{
	free(r->events);
	free(r->hits);
	memset(r, 0, sizeof *r);
}

static int push_hits(const jh_lexicon *lx, int32_t state, size_t end, const unsigned char *enabled,
                     jh_scan_result *res)
{
	int32_t s = lx->out[state] >= 0 ? state : lx->dict[state];
	while (s > 0) {
		for (int32_t e = lx->out[s]; e >= 0; e = lx->entries[e].next_same) {
			const jh_lex_entry *le = &lx->entries[e];
			if (!enabled[le->rule_index])
				continue;
			if (jh_grow((void **)&res->hits, &res->cap_hits, res->n_hits + 1, sizeof *res->hits))
				return JH_ERR_NOMEM;
			res->hits[res->n_hits++] = (jh_lex_hit){e, end - le->wrong_len, end};
		}
		s = lx->dict[s];
	}
	return JH_OK;
}

int jh_scan(const jh_ruleset *rs, const char *text, size_t len, const unsigned char *enabled,
            jh_brun *runs, jh_scan_result *res, jh_events_fn on_events, void *ctx)
{
	const unsigned char *t = (const unsigned char *)text;
	const jh_regexes *rx = rs->regexes;
	const jh_lexicon *lx = rs->lexicon;
	const jh_builtins *bi = rs->builtins;

	uint64_t trig_on = 0;
	for (size_t i = 0; i < rx->n; i++)
		if (rx->v[i].triggered && enabled[rx->v[i].rule_index])
			trig_on |= (uint64_t)1 << rx->v[i].bit;
	int lex_on = 0;
	for (size_t i = 0; i < lx->n_entries && !lex_on; i++)
		lex_on = enabled[lx->entries[i].rule_index];
	/* Per class, the builtins it wakes (a character has exactly one class
	 * bit): looping over every builtin and testing its mask cost more than
	 * the checks themselves. */
	enum { N_CLASSES = 13 };
	typedef struct {
		void (*step)(jh_brun *run, const jh_char *c);
		jh_brun *run;
	} waker;
	waker *wakers = malloc((bi->n ? bi->n : 1) * N_CLASSES * sizeof *wakers);
	size_t n_wakers[N_CLASSES] = {0};
	if (!wakers)
		return JH_ERR_NOMEM;
	uint32_t wake = 0;
	for (size_t k = 0; k < bi->n; k++) {
		if (!runs[k].rule)
			continue;
		wake |= bi->v[k].def->wake;
		for (int b = 0; b < N_CLASSES; b++)
			if (bi->v[k].def->wake & (1u << b))
				wakers[(size_t)b * bi->n + n_wakers[b]++] = (waker){bi->v[k].def->step, &runs[k]};
	}
	int rc = JH_OK;

	int32_t state = 0, prev_cp = -2;
	size_t prev_pos = 0, i = 0;
	while (i < len) {
		int32_t cp;
		size_t n = t[i] < 0x80 ? (cp = t[i], 1) : jh_utf8_decode(t + i, len - i, &cp);
		uint32_t cls = cp < 0 ? JH_C_INVALID : jh_class_of(cp);
		if (trig_on && cp >= 0) {
			uint64_t m = jh_trigger_mask(rx, cp) & trig_on;
			if (m) {
				if (jh_grow((void **)&res->events, &res->cap_events, res->n_events + 1,
				            sizeof *res->events)) {
					rc = JH_ERR_NOMEM;
					break;
				}
				res->events[res->n_events++] = (jh_trigger_event){i, m};
				if (on_events && res->n_events == JH_SCAN_EVENT_CHUNK) {
					rc = on_events(ctx, res->events, res->n_events);
					res->n_events = 0;
					if (rc)
						break;
				}
			}
		}
		if (lex_on) {
			state = jh_lex_step(lx, state, cp);
			if ((lx->out[state] >= 0 || lx->dict[state]) &&
			    push_hits(lx, state, i + n, enabled, res)) {
				rc = JH_ERR_NOMEM;
				break;
			}
		}
		if (cls & wake) {
			jh_char c = {cp, cls, i, n, prev_cp, prev_pos};
			int b = __builtin_ctz(cls);
			const waker *w = wakers + (size_t)b * bi->n;
			for (size_t j = 0, nw = n_wakers[b]; j < nw; j++)
				w[j].step(w[j].run, &c);
		}
		prev_cp = cp;
		prev_pos = i;
		i += n;
	}
	free(wakers);
	/* finish() frees what a check keeps per document: called even when the
	 * scan stopped short (out of memory), when its findings are dropped */
	for (int late = 0; late < 2; late++)
		for (size_t k = 0; k < bi->n; k++)
			if (runs[k].rule && bi->v[k].def->finish && bi->v[k].def->finish_late == late)
				bi->v[k].def->finish(&runs[k]);
	if (rc)
		return rc;
	for (size_t k = 0; k < bi->n; k++)
		if (runs[k].err)
			return runs[k].err;
	return JH_OK;
}
