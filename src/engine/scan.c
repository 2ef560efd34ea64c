/* scan.c — the class scan.  Every byte of the text passes through this loop
 * once, so it does as little as it can per character: decode, class, one
 * load from the interest table (interest.h), and only what that entry
 * names: a trigger lookup, an automaton step, a Han check; other classes
 * call the builtins their class wakes. */
#include <stdlib.h>
#include <string.h>
#include "charclass.h"
#include "interest.h"
#include "rules.h"
#include "scan.h"
#include "stops.h"
#include "utf8.h"

void jh_scan_result_free(jh_scan_result *r)
{
	free(r->events);
	free(r->hits);
	memset(r, 0, sizeof *r);
}

typedef struct {
	void (*step)(jh_brun *run, const jh_char *c);
	jh_brun *run;
	int after_han;            /* for an ASCII byte: only when the character before is Han */
} waker;

/* The check before PCRE2 (regex_pre.h) is asked here, at the trigger,
 * where the characters around it are decoded already: a trigger position
 * no match can start at is never recorded, listed or handed to PCRE2.
 * It pays for its classes' compiles and first answers (0.4 M
 * instructions), so a rule has it only after JH_PRE_AFTER triggers in
 * this process (short texts go without, a folder of chapters gets it
 * after the first few); and a check that says no under 1 in 8 of its
 * first JH_PRE_TRIAL triggers in a text is not asked again in it. */
#define JH_PRE_AFTER 256u
#define JH_PRE_TRIAL 256u

/* What the checks of the live rules answered for one pair of characters
 * (jh_pre_pair): most triggers are decided by the character and the one
 * before it, and after an ASCII character a text has few such pairs
 * (". ", "a(", " -"), so a trigger looks its pair up here rather than ask
 * each rule's check in turn. */
typedef struct {
	int32_t before, at;       /* -1: empty */
	uint64_t known, yes, no;  /* rule bits asked; of those, the sure answers */
} pair_memo;
#define JH_PAIR_MEMO 1024

typedef struct {
	uint64_t wbits;           /* trigger bits of one enabled rule with trigger words */
	uint64_t bits;            /* trigger bits of one enabled rule with a check */
	uint64_t live;            /* of those, the ones asked now */
	const jh_rx *rx[64];      /* the rule of each (bits or wbits) */
	size_t seen[64];          /* its triggers in this text */
	unsigned asked[64], no[64];
	pair_memo *pairs;         /* JH_PAIR_MEMO, direct-mapped; NULL: none */
} pre_gate;

static void gate_init(pre_gate *g, const jh_regexes *rx, const unsigned char *enabled)
{
	uint64_t shared = 0;
	memset(g, 0, sizeof *g);
	for (size_t i = 0; i < rx->n; i++) {
		const jh_rx *x = &rx->v[i];
		if (!x->triggered || !enabled[x->rule_index])
			continue;
		uint64_t b = (uint64_t)1 << x->bit;
		if ((g->bits | g->wbits | shared) & b) { /* a bit of two rules: unchecked */
			shared |= b;
			g->bits &= ~b;
			g->wbits &= ~b;
			continue;
		}
		if (x->words) { /* the words are a check of their own, asked first */
			g->wbits |= b;
			g->rx[x->bit] = x;
		}
		if (!x->pre.n) {
			shared |= b;
			continue;
		}
		g->bits |= b;
		g->rx[x->bit] = x;
		if (__atomic_load_n(&x->pre_seen, __ATOMIC_RELAXED) > JH_PRE_AFTER)
			g->live |= b;
	}
	if (g->bits && (g->pairs = malloc(JH_PAIR_MEMO * sizeof *g->pairs))) /* none: all asked */
		for (size_t i = 0; i < JH_PAIR_MEMO; i++)
			g->pairs[i] = (pair_memo){-1, -1, 0, 0, 0};
}

/* m less the bits whose rule cannot match at t (cp, n bytes, there;
 * before, starting at before_at, the character before it). */
/* The loop of gate(): yes and no, the answers the pair memo knows (0 and
 * 0 in the copy for the triggers it does not serve, which is then the
 * loop without it). */
static inline __attribute__((always_inline)) uint64_t
gate_loop(pre_gate *g, uint64_t m, const char *text, size_t len, size_t t, int32_t before,
          size_t before_at, int32_t cp, size_t n, pcre2_match_data *md, uint64_t yes, uint64_t no)
{
	for (uint64_t b = m & g->bits; b; b &= b - 1) {
		int k = __builtin_ctzll(b);
		uint64_t bit = (uint64_t)1 << k;
		const jh_rx *x = g->rx[k];
		if (!(g->live & bit)) {
			if (++g->seen[k] + __atomic_load_n(&x->pre_seen, __ATOMIC_RELAXED) > JH_PRE_AFTER)
				g->live |= bit;
			continue;
		}
		g->seen[k]++;
		if ((no & bit) ||
		    (!(yes & bit) && !jh_pre_maybe_at(&x->pre, text, len, t, before, before_at, cp, n, md))) {
			m &= ~bit;
			g->no[k]++;
		}
		if (++g->asked[k] == JH_PRE_TRIAL && g->no[k] < JH_PRE_TRIAL / 8)
			g->live &= ~bit, g->bits &= ~bit;
	}
	return m;
}

static uint64_t gate(pre_gate *g, uint64_t m, const char *text, size_t len, size_t t,
                     int32_t before, size_t before_at, int32_t cp, size_t n,
                     pcre2_match_data *md)
{
	/* trigger words: a compare where no word starts (。 is punct.repeated's
	 * and punct.ellipsis's trigger, and rarely 。。 or 。。。) */
	for (uint64_t b = m & g->wbits; b; b &= b - 1)
		if (!jh_rx_word_at(g->rx[__builtin_ctzll(b)], text, len, t, n))
			m &= ~(b & -b);
	if (!(m & g->bits))
		return m;
	/* pairs after an ASCII character only: after a Han one they are too
	 * many (each Han character before a comma is a pair of its own) */
	if (g->pairs && before >= 0 && before < 0x80 && cp >= 0 && cp < 0x10000) {
		pair_memo *e = &g->pairs[((uint32_t)before * 2654435761u ^ (uint32_t)cp) % JH_PAIR_MEMO];
		if (e->before != before || e->at != cp)
			*e = (pair_memo){before, cp, 0, 0, 0};
		for (uint64_t b = m & g->bits & g->live & ~e->known; b; b &= b - 1) {
			int k = __builtin_ctzll(b);
			int r = jh_pre_pair(&g->rx[k]->pre, before, cp, md);
			e->known |= (uint64_t)1 << k;
			e->yes |= r == 1 ? (uint64_t)1 << k : 0;
			e->no |= r == 0 ? (uint64_t)1 << k : 0;
		}
		return gate_loop(g, m, text, len, t, before, before_at, cp, n, md, e->yes, e->no);
	}
	return gate_loop(g, m, text, len, t, before, before_at, cp, n, md, 0, 0);
}

/* The triggers seen, added to each rule's count for the process. */
static void gate_done(pre_gate *g)
{
	free(g->pairs);
	g->pairs = NULL;
	for (int k = 0; k < 64; k++)
		if (g->rx[k] && g->seen[k])
			__atomic_add_fetch(&((jh_rx *)g->rx[k])->pre_seen, g->seen[k], __ATOMIC_RELAXED);
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

/* What the scan keeps for the characters that wake something (a "stop"). */
typedef struct {
	const char *text;
	size_t len;
	const unsigned char *enabled;
	const jh_regexes *rx;
	const jh_lexicon *lx;
	jh_scan_result *res;
	jh_events_fn on_events;
	void *ctx;
	pcre2_match_data *md;
	pre_gate g;
	uint64_t trig_on;
	int lex_on;
	int32_t state;            /* the lexicon automaton's */
	uint32_t want, wake;
	size_t n_all, n_repeat, n_class;
	const waker *wakers, *all; /* per class, n_class apart; every Han character's */
	const waker *marked;      /* per class, n_class apart: those with other_mark() */
	const size_t *n_marked;
	const waker *repeat;      /* a Han character's right after the same one */
	const size_t *n_wakers;
	const waker *ascii;       /* per ASCII byte, n_class apart */
	const unsigned char *n_ascii;
	waker lane[JH_I_LANES];
	size_t tally[2];          /* BMP Han characters so far with each tally flag */
} scan_ctx;

/* One character that may wake something: its triggers, its lexicon step,
 * the checks its class and its interest entry name. */
static int visit(scan_ctx *s, size_t i, int32_t cp, size_t n, uint32_t in, uint32_t cls,
                 int32_t prev_cp, size_t prev_pos, size_t han_before, int prev_han)
{
	jh_scan_result *res = s->res;
	int han = (cls & JH_C_HAN) != 0, repeat = han && cp == prev_cp && s->n_repeat;
	int marked = !han && (in & JH_I_OTHER_MARK);
	uint32_t tallies = han ? in & (JH_I_TALLY0 | JH_I_TALLY1) : 0;
	if (!han)
		in &= JH_I_LEX | JH_I_TRIG; /* a Han check is never woken by another class */
	in &= s->want;
	if (in & JH_I_TRIG) {
		uint64_t m = jh_trigger_mask(s->rx, cp) & s->trig_on;
		if (m & (s->g.bits | s->g.wbits))
			m = gate(&s->g, m, s->text, s->len, i, prev_cp, prev_pos, cp, n, s->md);
		if (m) {
			if (jh_grow((void **)&res->events, &res->cap_events, res->n_events + 1,
			            sizeof *res->events))
				return JH_ERR_NOMEM;
			res->events[res->n_events++] = (jh_trigger_event){i, m};
			if (s->on_events && res->n_events == JH_SCAN_EVENT_CHUNK) {
				int rc = s->on_events(s->ctx, res->events, res->n_events);
				res->n_events = 0;
				if (rc)
					return rc;
			}
		}
	}
	/* from the root, a character no word starts with leads back to it */
	if (s->lex_on && (s->state || (in & JH_I_LEX))) {
		const jh_lexicon *lx = s->lx;
		s->state = jh_lex_step(lx, s->state, cp);
		if ((lx->out[s->state] >= 0 || lx->dict[s->state]) &&
		    push_hits(lx, s->state, i + n, s->enabled, res))
			return JH_ERR_NOMEM;
	}
	uint32_t lanes = in >> JH_I_LANE0;
	if ((cls & s->wake) || lanes || (han && s->n_all) || repeat) {
		jh_char c = {cp, cls, i, n, prev_cp, prev_pos, han_before, s->tally};
		if (cp >= 0 && cp < 0x80) {
			const waker *w = s->ascii + (size_t)cp * s->n_class;
			for (size_t j = 0, nw = s->n_ascii[cp]; j < nw; j++)
				if (!w[j].after_han || prev_han)
					w[j].step(w[j].run, &c);
		} else if (cls & s->wake) {
			int b = __builtin_ctz(cls);
			const waker *w = s->wakers + (size_t)b * s->n_class;
			for (size_t j = 0, nw = s->n_wakers[b]; j < nw; j++)
				w[j].step(w[j].run, &c);
			w = s->marked + (size_t)b * s->n_class;
			for (size_t j = 0, nw = marked ? s->n_marked[b] : 0; j < nw; j++)
				w[j].step(w[j].run, &c);
		}
		for (; lanes; lanes &= lanes - 1) {
			const waker *w = &s->lane[__builtin_ctz(lanes)];
			w->step(w->run, &c);
		}
		if (han)
			for (size_t j = 0; j < s->n_all; j++)
				s->all[j].step(s->all[j].run, &c);
		if (repeat)
			for (size_t j = 0; j < s->n_repeat; j++)
				s->repeat[j].step(s->repeat[j].run, &c);
	}
	s->tally[0] += (tallies & JH_I_TALLY0) != 0;
	s->tally[1] += (tallies & JH_I_TALLY1) != 0;
	return JH_OK;
}

int jh_scan(const jh_ruleset *rs, const char *text, size_t len, const unsigned char *enabled,
            jh_brun *runs, jh_scan_result *res, jh_events_fn on_events, void *ctx,
            pcre2_match_data *md)
{
	const unsigned char *t = (const unsigned char *)text;
	const jh_regexes *rx = rs->regexes;
	const jh_lexicon *lx = rs->lexicon;
	const jh_builtins *bi = rs->builtins;
	const jh_interest *it = rs->interest;
	scan_ctx s = {.text = text, .len = len, .enabled = enabled, .rx = rx, .lx = lx, .res = res,
	              .on_events = on_events, .ctx = ctx, .md = md};

	for (size_t i = 0; i < rx->n; i++)
		if (rx->v[i].triggered && enabled[rx->v[i].rule_index])
			s.trig_on |= (uint64_t)1 << rx->v[i].bit;
	for (size_t i = 0; i < lx->n_entries && !s.lex_on; i++)
		s.lex_on = enabled[lx->entries[i].rule_index];
	/* Per class, the builtins it wakes (a character has exactly one class
	 * bit): looping over every builtin and testing its mask cost more than
	 * the checks themselves.  Han characters do not go through these
	 * lists: the interest table says which Han checks each one wakes. */
	enum { N_CLASSES = 13 };
	/* and per ASCII byte, those of its class that its ascii_mark() names */
	waker *wakers = malloc((bi->n ? bi->n : 1) * (2 * N_CLASSES + 2 + 128) * sizeof *wakers);
	size_t n_wakers[N_CLASSES] = {0}, n_marked[N_CLASSES] = {0}, n_all = 0, n_repeat = 0;
	unsigned char n_ascii[128] = {0};
	uint16_t ascii_cls[128];
	if (!wakers)
		return JH_ERR_NOMEM;
	waker *all = wakers + (size_t)N_CLASSES * bi->n; /* woken by every Han character */
	waker *repeat = all + bi->n; /* woken by a Han character repeated */
	waker *ascii = repeat + bi->n;
	waker *marked = ascii + (size_t)128 * bi->n; /* per class, those with other_mark() */
	uint32_t wake = 0;
	for (int b = 0; b < 128; b++)
		ascii_cls[b] = (uint16_t)jh_class_of(b);
	for (size_t k = 0; k < bi->n; k++) {
		if (!runs[k].rule)
			continue;
		const jh_builtin_def *d = bi->v[k].def;
		uint32_t w = d->wake & ~(uint32_t)JH_C_HAN;
		wake |= w;
		for (int b = 0; b < N_CLASSES; b++)
			if ((w & (1u << b)) && d->other_mark)
				marked[(size_t)b * bi->n + n_marked[b]++] = (waker){d->step, &runs[k], 0};
			else if (w & (1u << b))
				wakers[(size_t)b * bi->n + n_wakers[b]++] = (waker){d->step, &runs[k], 0};
		unsigned char marks[128];
		memset(marks, JH_ASCII_ALWAYS, sizeof marks);
		if (d->ascii_mark) {
			memset(marks, JH_ASCII_NONE, sizeof marks);
			d->ascii_mark(bi->v[k].cfg, marks);
		}
		for (int b = 0; b < 128; b++)
			if ((w & ascii_cls[b]) && marks[b])
				ascii[(size_t)b * bi->n + n_ascii[b]++] =
					(waker){d->step, &runs[k], marks[b] == JH_ASCII_AFTER_HAN};
	}
	for (size_t j = 0; j < it->n_all; j++)
		if (runs[it->all_slots[j]].rule)
			all[n_all++] = (waker){bi->v[it->all_slots[j]].def->step, &runs[it->all_slots[j]], 0};
	for (size_t j = 0; j < it->n_repeat; j++)
		if (runs[it->repeat_slots[j]].rule)
			repeat[n_repeat++] =
				(waker){bi->v[it->repeat_slots[j]].def->step, &runs[it->repeat_slots[j]], 0};
	uint32_t want = (s.lex_on ? JH_I_LEX : 0) | (s.trig_on ? JH_I_TRIG : 0);
	for (size_t k = 0; it->tallied && k < bi->n; k++)
		runs[k].tallied = it->tallied[k];
	for (int l = 0; l < it->n_lanes; l++) {
		size_t k = it->lane_slot[l];
		s.lane[l] = (waker){bi->v[k].def->step, &runs[k], 0};
		if (runs[k].rule)
			want |= 1u << (JH_I_LANE0 + l);
	}
	s.want = want;
	s.wake = wake;
	s.n_all = n_all;
	s.n_repeat = n_repeat;
	s.repeat = repeat;
	s.n_class = bi->n;
	s.wakers = wakers;
	s.all = all;
	s.n_wakers = n_wakers;
	s.marked = marked;
	s.n_marked = n_marked;
	s.ascii = ascii;
	s.n_ascii = n_ascii;
	gate_init(&s.g, rx, enabled);
	const uint16_t *bits = it->bits;
	const uint32_t astral = JH_I_LEX | JH_I_TRIG | it->astral_lanes;
	int rc = JH_OK;

	/* Most characters wake nothing: a Han character whose interest entry
	 * has no bit this scan wants (and that does not repeat the one
	 * before), an ASCII byte no rule triggers on whose class wakes no
	 * check.  The loop steps over them with a load and a test each,
	 * keeping only the count of Han characters and the character before;
	 * visit() is for the rest.  Inside a lexicon word (state != 0) every
	 * character steps the automaton, so every one is visited. */
	const uint32_t han_hold = n_all ? 0xFFFFu : want | JH_I_NOT_HAN;
	unsigned char ascii_stop[128]; /* JH_ASCII_*: when the byte must be visited */
	for (int b = 0; b < 128; b++) {
		const waker *w = ascii + (size_t)b * bi->n;
		ascii_stop[b] = (bits[b] & want & (JH_I_LEX | JH_I_TRIG)) ? JH_ASCII_ALWAYS : JH_ASCII_NONE;
		for (size_t j = 0; j < n_ascii[b] && ascii_stop[b] != JH_ASCII_ALWAYS; j++)
			ascii_stop[b] = w[j].after_han ? JH_ASCII_AFTER_HAN : JH_ASCII_ALWAYS;
	}

	int32_t prev_cp = -2;
	int prev_han = 0;
	size_t prev_pos = 0, i = 0, han = 0, plain_end = 0;
	while (i < len) {
		int32_t cp;
		size_t n;
		uint32_t in, cls;
		unsigned b0 = t[i];
		/* Inside a run the stop finder validated (stops.h), a character
		 * is three bytes and needs no check; ASCII needs none either.  At
		 * the start of a run of plain characters, the finder validates it
		 * to its end; everything else goes through the strict decoder. */
		if (b0 < 0x80) {
			unsigned stop = ascii_stop[b0];
			if ((stop == JH_ASCII_NONE || (stop == JH_ASCII_AFTER_HAN && !prev_han)) && !s.state) {
				prev_han = 0;
				prev_cp = (int32_t)b0;
				prev_pos = i++;
				continue;
			}
			cp = (int32_t)b0;
			n = 1;
			in = bits[b0];
			cls = ascii_cls[b0]; /* the table built above, not the class function again */
		} else if (i < plain_end || (plain_end = jh_plain_end(t, i, len)) > i) {
			cp = (int32_t)((b0 & 0x0F) << 12 | (t[i + 1] & 0x3Fu) << 6 | (t[i + 2] & 0x3Fu));
			n = 3;
			in = bits[cp];
			if (!(in & han_hold) && cp != prev_cp && !s.state) {
				s.tally[0] += in >> 13 & 1; /* JH_I_TALLY0, JH_I_TALLY1 */
				s.tally[1] += in >> 14 & 1;
				prev_han = 1;
				han++;
				prev_cp = cp;
				prev_pos = i;
				i += 3;
				continue;
			}
			/* a three-byte character's entry says whether it is Han */
			cls = in & JH_I_NOT_HAN ? jh_class_of(cp) : JH_C_HAN;
		} else {
			n = jh_utf8_decode(t + i, len - i, &cp);
			in = cp < 0 ? 0 : cp < 0x10000 ? bits[cp] : astral;
			cls = cp < 0 ? JH_C_INVALID : jh_class_of(cp);
		}
		if ((rc = visit(&s, i, cp, n, in, cls, prev_cp, prev_pos, han, prev_han)))
			break;
		prev_han = (cls & JH_C_HAN) != 0;
		han += (size_t)prev_han;
		prev_cp = cp;
		prev_pos = i;
		i += n;
	}
	free(wakers);
	gate_done(&s.g);
	for (size_t k = 0; k < bi->n; k++) {
		runs[k].han_total = han;
		if (runs[k].tallied) { /* an untallied check keeps its own */
			runs[k].tally_total[0] = s.tally[0];
			runs[k].tally_total[1] = s.tally[1];
		}
	}
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
