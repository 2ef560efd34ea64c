/* regex.c — compiling regex rules with PCRE2 (UTF, JIT) and running them,
 * either over the whole text or only around their trigger characters. */
#define _GNU_SOURCE /* memmem */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "regex.h"
#include "utf8.h"

/* Limits that stop a runaway pattern on one position; generous enough that
 * no sane rule reaches them on a paragraph. */
#define JH_MATCH_LIMIT 2000000u
#define JH_DEPTH_LIMIT 10000u
/* PCRE2's default JIT stack (MACHINE_STACK_SIZE in pcre2_jit_match.c) */
#define JH_JIT_STACK (32 * 1024)
/* After this many limit errors in one document, a rule is given up on. */
#define JH_MAX_LIMIT_ERRORS 8

void jh_regexes_init(jh_regexes *rx) { memset(rx, 0, sizeof *rx); }

void jh_regexes_free(jh_regexes *rx)
{
	for (size_t i = 0; i < rx->n; i++) {
		pcre2_code_free(rx->v[i].code);
		pcre2_code_free(rx->v[i].jit);
		pcre2_code_free(rx->v[i].unfixed_doc);
		pcre2_code_free(rx->v[i].skip_lines);
		jh_pre_free(&rx->v[i].pre);
		free(rx->v[i].words);
		free(rx->v[i].wv);
		free(rx->v[i].near_words);
	}
	free(rx->v);
	for (int i = 0; i < 256; i++)
		free(rx->bmp[i]);
	free(rx->astral);
	jh_pre_classes_free(&rx->pre_classes);
	jh_regexes_preload_free(rx);
	memset(rx, 0, sizeof *rx);
}

static int add_trigger_range(jh_regexes *rx, uint32_t lo, uint32_t hi, uint64_t bit)
{
	for (uint32_t cp = lo; cp <= hi && cp < 0x10000; cp++) {
		uint64_t **page = &rx->bmp[cp >> 8];
		if (!*page && !(*page = calloc(256, sizeof **page)))
			return JH_ERR_NOMEM;
		(*page)[cp & 0xFF] |= bit;
	}
	if (hi >= 0x10000) {
		if (jh_grow((void **)&rx->astral, &rx->cap_astral, rx->n_astral + 1, sizeof *rx->astral))
			return JH_ERR_NOMEM;
		rx->astral[rx->n_astral++] = (jh_trigger_range){lo < 0x10000 ? 0x10000 : lo, hi, bit};
	}
	return JH_OK;
}

/* Read one trigger item: a character, or an escape \x{HEX} \u{HEX} \\ \- \s. */
static int trigger_char(const char **p, int32_t *cp)
{
	const unsigned char *s = (const unsigned char *)*p;
	if (s[0] == '\\') {
		if (s[1] == 'x' || s[1] == 'u') {
			if (s[2] != '{')
				return -1;
			char *end;
			long v = strtol((const char *)s + 3, &end, 16);
			if (*end != '}' || end == (const char *)s + 3 || v < 0 || v > 0x10FFFF)
				return -1;
			*cp = (int32_t)v;
			*p = end + 1;
			return 0;
		}
		if (s[1] == '\\' || s[1] == '-') {
			*cp = s[1];
			*p += 2;
			return 0;
		}
		if (s[1] == 's') {
			*cp = ' ';
			*p += 2;
			return 0;
		}
		return -1;
	}
	size_t n = jh_utf8_decode(s, strlen(*p), cp);
	if (*cp < 0)
		return -1;
	*p += n;
	return 0;
}

static int parse_trigger(jh_regexes *rx, const char *spec, uint64_t bit)
{
	const char *p = spec;
	while (*p) {
		int32_t lo, hi;
		if (trigger_char(&p, &lo))
			return JH_ERR_ARG;
		hi = lo;
		if (p[0] == '-' && p[1]) {
			p++;
			if (trigger_char(&p, &hi) || hi < lo)
				return JH_ERR_ARG;
		}
		int rc = add_trigger_range(rx, (uint32_t)lo, (uint32_t)hi, bit);
		if (rc)
			return rc;
	}
	return p == spec ? JH_ERR_ARG : JH_OK;
}

/* Does every $N / ${N} / ${name} of a fix template exist in the pattern? */
static int template_ok(const pcre2_code *code, const char *tpl, uint32_t captures)
{
	for (const char *p = tpl; *p; p++) {
		if (*p != '$')
			continue;
		long g;
		if (!(p = jh_template_ref(p, code, &g)))
			return 0;
		if (g != JH_TPL_DOLLAR && (g < 0 || (uint32_t)g > captures))
			return 0;
	}
	return 1;
}

const jh_param *jh_regex_bad_param(const jh_rule *r)
{
	for (size_t i = 0; i < r->n_params; i++)
		if (strcmp(r->params[i].key, "unfixed-document") && strcmp(r->params[i].key, "skip-lines"))
			return &r->params[i];
	return NULL;
}

/* A pattern-valued parameter of a regex rule (unfixed-document,
 * skip-lines), compiled into *out (NULL when the rule has none).  It runs
 * from a start of its own, without the trigger's offset limit. */
static int param_pattern(const jh_rule *r, const char *key, uint32_t opts, pcre2_code **out,
                         jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *pat = jh_rule_param(r, key, &line);
	*out = NULL;
	if (!pat)
		return JH_OK;
	int errcode;
	PCRE2_SIZE erroff;
	*out = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opts & ~PCRE2_USE_OFFSET_LIMIT,
	                     &errcode, &erroff, NULL);
	if (*out)
		return JH_OK;
	if (errcode == PCRE2_ERROR_HEAP_FAILED)
		return JH_ERR_NOMEM;
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(errcode, msg, sizeof msg);
	jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
	          "bad %s pattern at offset %zu: %s", key, (size_t)erroff, (const char *)msg);
	return JH_ERR_RULES;
}

/* Words separated by spaces, into *out (NUL-terminated, one after the
 * other) and *count; for trigger words (trig) each must start with one of
 * x's trigger characters: a word that does not could never let the rule
 * run. */
static int parse_words(const jh_regexes *rx, const jh_rx *x, const char *spec, int trig,
                       char **out, unsigned *n_out)
{
	size_t n = strlen(spec);
	char *w = malloc(n + 1);
	if (!w)
		return JH_ERR_NOMEM;
	size_t o = 0;
	unsigned count = 0;
	for (size_t i = 0; i < n;) {
		if (spec[i] == ' ' || spec[i] == '\t') {
			i++;
			continue;
		}
		size_t s = i;
		while (i < n && spec[i] != ' ' && spec[i] != '\t')
			i++;
		int32_t cp;
		if (jh_utf8_decode((const unsigned char *)spec + s, i - s, &cp) == 0 || cp < 0 ||
		    (trig && !(jh_trigger_mask(rx, cp) & ((uint64_t)1 << x->bit)))) {
			free(w);
			return JH_ERR_RULES;
		}
		memcpy(w + o, spec + s, i - s);
		o += i - s;
		w[o++] = '\0';
		count++;
	}
	if (!count) {
		free(w);
		return JH_ERR_RULES;
	}
	*out = w;
	*n_out = count;
	return JH_OK;
}

/* The bytes of the character at t (at least 1). */
static size_t trigger_len(const char *text, size_t len, size_t t)
{
	int32_t cp;
	size_t n = jh_utf8_decode((const unsigned char *)text + t, len - t, &cp);
	return n ? n : 1;
}

/* x->next_set and x->single_first from its words. */
static void word_sets(jh_rx *x)
{
	memset(x->next_set, 0, sizeof x->next_set);
	memset(x->single_first, 0, sizeof x->single_first);
	for (unsigned k = 0; k < x->n_words; k++) {
		const unsigned char *w = (const unsigned char *)x->wv[k].w;
		size_t wl = x->wv[k].len;
		int32_t cp;
		size_t n = jh_utf8_decode(w, wl, &cp);
		if (!n)
			n = 1;
		if (n >= wl)
			x->single_first[w[0] >> 6] |= (uint64_t)1 << (w[0] & 63);
		else
			x->next_set[w[n] >> 6] |= (uint64_t)1 << (w[n] & 63);
	}
}

/* The compare form of n words (NUL-terminated, one after another). */
static struct jh_rx_word *word_heads(const char *words, unsigned n)
{
	struct jh_rx_word *v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return NULL;
	for (unsigned k = 0; k < n; k++) {
		size_t wl = strlen(words);
		uint64_t head = 0, mask = 0;
		memcpy(&head, words, wl < 8 ? wl : 8);
		memset(&mask, 0xFF, wl < 8 ? wl : 8);
		v[k] = (struct jh_rx_word){head, mask, words, wl};
		words += wl + 1;
	}
	return v;
}

/* The first of x's near words that fits in text[a, b): its start + 1
 * (*end its end), or 0. */
/* Which byte of word w (wl bytes) to look for first: the last byte of
 * one of its characters, from the end, that is not the last byte of a
 * common mark (， 。 、 end in 8C 82 81; a lead byte or the middle byte
 * of a Chinese character is the same in thousands of characters).
 * glibc's memmem costs about a thousand instructions a call on the short
 * windows of near-words, most of it setting up its tables. */
static size_t anchor_of(const char *w, size_t wl)
{
	static const unsigned char common[] = {0x80, 0x81, 0x82, 0x8C, 0x9B, 0x9F};
	for (size_t e = wl; e > 0;) {
		size_t s = e - 1;
		while (s > 0 && ((unsigned char)w[s] & 0xC0) == 0x80)
			s--;
		unsigned char c = (unsigned char)w[e - 1];
		if (c < 0x80 || !memchr(common, c, sizeof common))
			return e - 1;
		e = s;
	}
	return wl - 1;
}

/* The first occurrence of w (wl > 1 bytes, found through the byte at
 * anchor) in text[a, lim), or NULL. */
static const char *find_word(const char *text, size_t a, size_t lim, const char *w, size_t wl,
                             size_t anchor)
{
	for (size_t p = a + anchor; p + (wl - anchor) <= lim;) {
		const char *f = memchr(text + p, w[anchor], lim - (wl - anchor - 1) - p);
		if (!f)
			return NULL;
		size_t at = (size_t)(f - text) - anchor;
		if (!memcmp(text + at, w, wl))
			return text + at;
		p = (size_t)(f - text) + 1;
	}
	return NULL;
}

static size_t first_near(const jh_rx *x, const char *text, size_t a, size_t b, size_t *end)
{
	const char *w = x->near_words;
	size_t best = 0;
	for (unsigned k = 0; k < x->n_near; k++) {
		size_t wl = strlen(w), lim = best ? best - 1 + wl : b; /* only an earlier start beats it */
		if (lim > b)
			lim = b;
		const char *f = lim <= a ? NULL
		                : wl == 1 ? memchr(text + a, w[0], lim - a)
		                          : find_word(text, a, lim, w, wl, anchor_of(w, wl));
		if (f && (!best || (size_t)(f - text) + 1 < best)) {
			best = (size_t)(f - text) + 1;
			*end = (size_t)(f - text) + wl;
		}
		w += wl + 1;
	}
	return best;
}

/* Does one of x's near words fit in text[a, b)?  The windows of a rule's
 * triggers move forward: what the last search saw is not read again. */
static int word_near(const jh_rx *x, jh_rx_progress *pr, const char *text, size_t a, size_t b)
{
	if (pr->near_to && a >= pr->near_from) {
		if (pr->near_hit && pr->near_hit - 1 >= a && pr->near_end <= b)
			return 1;
		if (!pr->near_hit) {
			/* nothing fits in [near_from, near_to): a word that fits in
			 * [a, b) starts in the last x->near_max - 1 bytes or after */
			if (b <= pr->near_to)
				return 0;
			size_t s = pr->near_to >= a + x->near_max ? pr->near_to - x->near_max + 1 : a;
			size_t end = 0, hit = first_near(x, text, s, b, &end);
			pr->near_from = a, pr->near_to = b, pr->near_hit = hit, pr->near_end = end;
			return hit != 0;
		}
	}
	size_t end = 0, hit = first_near(x, text, a, b, &end);
	pr->near_from = a, pr->near_to = b, pr->near_hit = hit, pr->near_end = end;
	return hit != 0;
}

int jh_regexes_add(jh_regexes *rx, jh_rule *r, long rule_index, jh_diag_fn diag_fn, void *payload)
{
	int errcode;
	PCRE2_SIZE erroff;
	uint32_t opts = jh_regex_opts(rx, r);
	pcre2_code *code = jh_regexes_take(rx, r->pattern, opts);
	if (!code)
		code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, opts, &errcode, &erroff, NULL);
	if (!code && errcode == PCRE2_ERROR_HEAP_FAILED)
		return JH_ERR_NOMEM;
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof msg);
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "bad pattern at offset %zu: %s", (size_t)erroff, (const char *)msg);
		return JH_ERR_RULES;
	}
	uint32_t captures = 0;
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &captures);
	if (r->has_fix && !template_ok(code, r->fix, captures)) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "fix '%s' refers to a group the pattern does not have (use $0-$%u, ${name}, $$)",
		          r->fix, captures);
		pcre2_code_free(code);
		return JH_ERR_RULES;
	}
	if (captures + 1 > rx->max_ovector)
		rx->max_ovector = captures + 1;
	pcre2_code *udoc = NULL, *skip = NULL;
	int prc = param_pattern(r, "unfixed-document", opts, &udoc, diag_fn, payload);
	if (prc == JH_OK)
		prc = param_pattern(r, "skip-lines", opts, &skip, diag_fn, payload);
	if (prc) {
		pcre2_code_free(code);
		pcre2_code_free(udoc);
		return prc;
	}
	if (jh_grow((void **)&rx->v, &rx->cap, rx->n + 1, sizeof *rx->v)) {
		pcre2_code_free(code);
		pcre2_code_free(udoc);
		pcre2_code_free(skip);
		return JH_ERR_NOMEM;
	}
	jh_rx *x = &rx->v[rx->n];
	x->rule_index = rule_index;
	x->code = code;
	x->unfixed_doc = udoc;
	x->skip_lines = skip;
	x->seen = 0;
	x->pre_seen = 0;
	x->jit_state = 0;
	x->jit = NULL;
	x->lead = r->lead;
	x->triggered = r->trigger != NULL;
	x->pairs = captures + 1;
	memset(&x->pre, 0, sizeof x->pre);
	/* Rules beyond 64 share bits: a shared bit only wakes a rule more often. */
	x->bit = rx->n_bits++ % 64;
	if (r->trigger) {
		int rc = parse_trigger(rx, r->trigger, (uint64_t)1 << x->bit);
		if (rc == JH_ERR_NOMEM) {
			pcre2_code_free(code);
			return rc;
		}
		if (rc) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "bad trigger '%s': list characters or ranges a-b, escapes \\x{HEX} \\- \\\\ \\s",
			          r->trigger);
			pcre2_code_free(code);
			return JH_ERR_RULES;
		}
	}
	x->words = NULL;
	x->wv = NULL;
	x->n_words = 0;
	if (r->trigger_words) {
		int rc = r->trigger ? parse_words(rx, x, r->trigger_words, 1, &x->words, &x->n_words)
		                    : JH_ERR_RULES;
		if (rc == JH_OK && !(x->wv = word_heads(x->words, x->n_words))) {
			free(x->words);
			rc = JH_ERR_NOMEM;
		}
		if (rc == JH_OK)
			word_sets(x);
		if (rc == JH_ERR_NOMEM) {
			pcre2_code_free(code);
			return rc;
		}
		if (rc) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "bad trigger-words '%s': words separated by spaces, each starting with "
			          "a trigger character", r->trigger_words);
			pcre2_code_free(code);
			return JH_ERR_RULES;
		}
	}
	x->near_words = NULL;
	x->n_near = 0;
	x->near_after = r->near;
	x->near_max = 0;
	if (r->near_words || r->near) {
		int rc = r->trigger && r->near_words && r->near
		                 ? parse_words(rx, x, r->near_words, 0, &x->near_words, &x->n_near)
		                 : JH_ERR_RULES;
		if (rc == JH_ERR_NOMEM) {
			free(x->words);
			pcre2_code_free(code);
			return rc;
		}
		for (unsigned k = 0, o = 0; rc == JH_OK && k < x->n_near; k++) {
			size_t wl = strlen(x->near_words + o);
			x->near_max = wl > x->near_max ? wl : x->near_max;
			o += (unsigned)wl + 1;
		}
		if (rc) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "near-words and near go together, with a trigger");
			free(x->words);
			pcre2_code_free(code);
			return JH_ERR_RULES;
		}
	}
	if (r->trigger && jh_pre_build(&x->pre, r->pattern, r->lead, &rx->pre_classes)) {
		free(x->words);
		free(x->wv);
		free(x->near_words);
		pcre2_code_free(code);
		return JH_ERR_NOMEM;
	}
	r->regex_slot = (long)rx->n;
	rx->n++;
	return JH_OK;
}

int jh_rx_scratch_init(jh_rx_scratch *s, const jh_regexes *rx)
{
	s->md = pcre2_match_data_create(rx->max_ovector ? rx->max_ovector : 1, NULL);
	s->mctx = pcre2_match_context_create(NULL);
	if (!s->md || !s->mctx) {
		jh_rx_scratch_free(s);
		return JH_ERR_NOMEM;
	}
	pcre2_set_match_limit(s->mctx, JH_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, JH_DEPTH_LIMIT);
	if (rx->callout)
		pcre2_set_callout(s->mctx, rx->callout, rx->callout_data);
	/* Without a stack of its own, every pcre2_jit_match sets up a 32 KB
	 * one on the machine stack, and a triggered rule is called at most
	 * trigger positions of a text.  The same 32 KB, fixed, so that a
	 * pattern runs out of stack where it did. */
	s->jstack = pcre2_jit_stack_create(JH_JIT_STACK, JH_JIT_STACK, NULL);
	if (!s->jstack) {
		jh_rx_scratch_free(s);
		return JH_ERR_NOMEM;
	}
	pcre2_jit_stack_assign(s->mctx, NULL, s->jstack);
	return JH_OK;
}

void jh_rx_scratch_free(jh_rx_scratch *s)
{
	pcre2_match_data_free(s->md);
	pcre2_match_context_free(s->mctx);
	pcre2_jit_stack_free(s->jstack);
	s->md = NULL;
	s->mctx = NULL;
	s->jstack = NULL;
}

static int add_match(const jh_rx *x, const jh_rule *rule, const char *text, const PCRE2_SIZE *ov,
                     uint32_t pairs, int unfixed, jh_findings *out)
{
	jh_hit h = {rule, x->rule_index, ov[0], ov[1], NULL, 0, rule->safety, NULL};
	jh_buf fix = {0};
	if (rule->has_fix && !unfixed) {
		int rc = jh_expand_template(rule->fix, text, ov, pairs, x->code, &fix);
		if (rc == JH_OK)
			rc = jh_map_fix(rule, &fix);
		if (rc) {
			jh_buf_free(&fix);
			return rc;
		}
		h.fix = fix.data ? fix.data : "";
		h.fix_len = fix.len;
	}
	int rc = jh_findings_add_hit(out, text, &h);
	jh_buf_free(&fix);
	return rc;
}

/* Step back n code points from pos, not before floor. */
static size_t back_chars(const char *text, size_t pos, unsigned n, size_t floor)
{
	while (n-- && pos > floor) {
		pos--;
		while (pos > floor && ((unsigned char)text[pos] & 0xC0) == 0x80)
			pos--;
	}
	return pos;
}

static size_t next_char(const char *text, size_t len, size_t pos)
{
	int32_t cp;
	return pos < len ? pos + jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp) : len + 1;
}

int jh_trigger_lists_build(jh_trigger_lists *l, const jh_trigger_event *events, size_t n_events)
{
	size_t count[64] = {0};
	for (size_t i = 0; i < n_events; i++)
		for (uint64_t m = events[i].mask; m; m &= m - 1)
			count[__builtin_ctzll(m)]++;
	for (int b = 0; b < 64; b++) {
		l->n[b] = 0;
		if (count[b] > l->cap[b]) {
			free(l->pos[b]); /* its contents are not kept: no realloc copy */
			l->cap[b] = 0;
			if (!(l->pos[b] = malloc(count[b] * sizeof *l->pos[b]))) {
				jh_trigger_lists_free(l);
				return JH_ERR_NOMEM;
			}
			l->cap[b] = count[b];
		}
	}
	for (size_t i = 0; i < n_events; i++)
		for (uint64_t m = events[i].mask; m; m &= m - 1) {
			int b = __builtin_ctzll(m);
			l->pos[b][l->n[b]++] = events[i].pos;
		}
	return JH_OK;
}

void jh_trigger_lists_free(jh_trigger_lists *l)
{
	for (int b = 0; b < 64; b++)
		free(l->pos[b]);
	memset(l, 0, sizeof *l);
}

/* The JIT-compiled pattern once x has seen enough text, else NULL (match
 * with x->code).  One thread compiles, on a copy; the others go on with
 * the interpreter until the copy is published. */
static pcre2_code *jit_code(jh_rx *x, size_t work, const jh_rule *rule, jh_diag_fn diag_fn,
                            void *payload)
{
	pcre2_code *j = __atomic_load_n(&x->jit, __ATOMIC_ACQUIRE);
	if (j || __atomic_load_n(&x->jit_state, __ATOMIC_RELAXED) == 2)
		return j;
	if (__atomic_add_fetch(&x->seen, work, __ATOMIC_RELAXED) < JH_JIT_AFTER)
		return NULL;
	int idle = 0;
	if (!__atomic_compare_exchange_n(&x->jit_state, &idle, 1, 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_RELAXED))
		return NULL; /* another thread is at it */
	pcre2_code *copy = pcre2_code_copy(x->code);
	int jrc = copy ? pcre2_jit_compile(copy, PCRE2_JIT_COMPLETE) : PCRE2_ERROR_NOMEMORY;
	if (jrc == 0) {
		__atomic_store_n(&x->jit, copy, __ATOMIC_RELEASE);
	} else {
		/* Still correct without JIT, only slower: say so, go on. */
		pcre2_code_free(copy);
		copy = NULL;
		jh_report(diag_fn, payload, JH_WARNING, rule->file, rule->line, 0, rule->id,
		          "pattern runs without JIT (error %d)", jrc);
	}
	__atomic_store_n(&x->jit_state, 2, __ATOMIC_RELEASE);
	return copy;
}

/* The JIT-compiled pattern now, whatever x has seen; NULL when JIT is not
 * to be had.  Waits for a thread that is compiling it. */
static pcre2_code *jit_now(jh_rx *x, const jh_rule *rule, jh_diag_fn diag_fn, void *payload)
{
	pcre2_code *j;
	while (!(j = jit_code(x, JH_JIT_AFTER, rule, diag_fn, payload)) &&
	       __atomic_load_n(&x->jit_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return j;
}

/* Does pattern match text[from, to) (lookbehinds may see before from)?
 * With match data and limits of its own: the scratch holds the match at
 * hand and a trigger's offset limit.  An error (memory, a limit) counts
 * as a match: the caller then does the cautious thing. */
static int match_in(const pcre2_code *code, const char *text, size_t from, size_t to)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	int rc = PCRE2_ERROR_NOMEMORY;
	if (md && mc) {
		pcre2_set_match_limit(mc, JH_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, JH_DEPTH_LIMIT);
		rc = pcre2_match(code, (PCRE2_SPTR)text, to, from, 0, md, mc);
	}
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	return rc != PCRE2_ERROR_NOMATCH;
}

/* Does x's unfixed-document pattern match text (asked once a text)?  An
 * error takes the fixes away: never a fix the rule could not vouch for. */
static int doc_unfixed(const jh_rx *x, const char *text, size_t len, jh_rx_progress *pr)
{
	if (!x->unfixed_doc)
		return 0;
	if (!pr->doc_unfixed)
		pr->doc_unfixed = match_in(x->unfixed_doc, text, 0, len) ? 2 : 1;
	return pr->doc_unfixed == 2;
}

/* Does x's skip-lines pattern match on the line of pos or the line before
 * or after it?  Asked once for the same three lines. */
static int near_lines_skip(const jh_rx *x, const char *text, size_t len, size_t pos,
                           jh_rx_progress *pr)
{
	if (!x->skip_lines)
		return 0;
	size_t a = pos, b = pos;
	while (a > 0 && text[a - 1] != '\n')
		a--;
	if (a > 0)
		for (a--; a > 0 && text[a - 1] != '\n';)
			a--;
	while (b < len && text[b] != '\n')
		b++;
	if (b < len)
		for (b++; b < len && text[b] != '\n';)
			b++;
	if (pr->skip_to && pr->skip_from == a && pr->skip_to == b + 1)
		return pr->skip_hit;
	pr->skip_from = a;
	pr->skip_to = b + 1; /* + 1: never 0 once asked */
	pr->skip_hit = match_in(x->skip_lines, text, a, b);
	return pr->skip_hit;
}

/* Does an invalid UTF-8 sequence start at pos? */
static int invalid_at(const char *text, size_t len, size_t pos)
{
	int32_t cp;
	return pos < len && (jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp), cp < 0);
}

int jh_regex_run(const jh_regexes *rx, size_t slot, const jh_rule *rule, const char *text,
                 size_t len, const size_t *positions, size_t n_positions, jh_rx_progress *pr,
                 jh_rx_scratch *scratch, const char *file, jh_diag_fn diag_fn, void *payload,
                 jh_findings *out)
{
	const jh_rx *x = &rx->v[slot];
	if (pr->given_up)
		return JH_OK;
	/* The work ahead: the calls of a triggered rule, the text of another
	 * (pcre2_match's set-up per call costs about as much as 1 KB of text).
	 * The rule set is shared read-only; the JIT copy is the one part
	 * written, once, with atomics. */
	size_t work = x->triggered ? n_positions : len / 1024 + 1;
	pcre2_code *jit = jit_code((jh_rx *)x, work, rule, diag_fn, payload);
	size_t ev = 0;
	PCRE2_SPTR subject = (PCRE2_SPTR)text;
	if (!x->triggered)
		pcre2_set_offset_limit(scratch->mctx, PCRE2_UNSET);

	for (;;) {
		/* matches never overlap: the next starts at pr->resume */
		size_t start = pr->resume, t = 0;
		if (x->triggered) {
			while (ev < n_positions && positions[ev] < pr->resume)
				ev++;
			if (ev == n_positions)
				break;
			t = positions[ev++];
			if (x->words && !jh_rx_word_at(x, text, len, t, trigger_len(text, len, t)))
				continue;
			start = back_chars(text, t, x->lead, pr->resume);
			/* a UTF-8 character has at most four bytes: the window is
			 * never shorter than near characters */
			if (x->near_words &&
			    !word_near(x, pr, text, start,
			               len - t > 4 * (size_t)x->near_after ? t + 4 * (size_t)x->near_after : len))
				continue;
			pcre2_set_offset_limit(scratch->mctx, t);
		}
		if (start > len)
			break;
		/* An interpreted call pays a UTF check of the text from start to
		 * its end: a few such calls on a big text outweigh the JIT compile
		 * (one call on 200 MB cost 1.5 G instructions). */
		if (!jit && x->triggered)
			jit = jit_code((jh_rx *)x, (len - start) / JH_UTF_CHECK_UNIT, rule, diag_fn, payload);
		/* pcre2_jit_match skips pcre2_match's argument checks, which cost
		 * as much as the match itself when a rule is tried at 700,000
		 * trigger positions of a text; the arguments are ours and valid. */
		int rc = jit ? pcre2_jit_match(jit, subject, len, start, 0, scratch->md, scratch->mctx)
		             : pcre2_match(x->code, subject, len, start, 0, scratch->md, scratch->mctx);
		if (rc == PCRE2_ERROR_NOMATCH) {
			if (!x->triggered)
				break;
			continue;
		}
		if (rc == PCRE2_ERROR_NOMEMORY)
			return JH_ERR_NOMEM;
		if (rc < 0) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(rc, msg, sizeof msg);
			jh_report(diag_fn, payload, JH_WARNING, file, 0, 0, rule->id,
			          "rule skipped at byte %zu: %s", start, (const char *)msg);
			if (++pr->limit_errors >= JH_MAX_LIMIT_ERRORS || !x->triggered) {
				jh_report(diag_fn, payload, JH_WARNING, file, 0, 0, rule->id,
				          "rule given up on for the rest of this text");
				pr->given_up = 1;
				break;
			}
			pr->resume = next_char(text, len, start);
			continue;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(scratch->md);
		if (!jit && invalid_at(text, len, ov[1])) {
			/* PCRE2's interpreter takes an invalid sequence for the end of
			 * the subject (\z and lookaheads succeed before it, so a
			 * space in mid-line looked trailing); JIT does not.  Match
			 * this one again with JIT, or report nothing here without it. */
			jit = jit_now((jh_rx *)x, rule, diag_fn, payload);
			if (!jit)
				pr->resume = next_char(text, len, ov[1] > ov[0] ? ov[1] : ov[0]);
			else if (x->triggered)
				ev--; /* the same trigger again */
			continue;
		}
		/* Only this pattern's groups: the match data is shared by all rules. */
		uint32_t pairs = (uint32_t)rc < x->pairs ? (uint32_t)rc : x->pairs;
		if (ov[1] < ov[0]) {
			/* \K inside a lookaround can give this; nothing sane to report. */
			pr->resume = next_char(text, len, ov[0]);
			continue;
		}
		/* A match found from trigger t must reach t: with a lead, a match
		 * wholly before t belongs to no trigger and would make results
		 * depend on where the next trigger happens to be. */
		if (x->triggered && ov[1] <= t && !(ov[0] == t && ov[1] == t))
			continue;
		/* doc_unfixed and near_lines_skip match with data of their own:
		 * ov stays this match's */
		if (near_lines_skip(x, text, len, ov[0], pr)) {
			pr->resume = ov[1] > ov[0] ? ov[1] : next_char(text, len, ov[0]);
			continue;
		}
		int arc = add_match(x, rule, text, ov, pairs, doc_unfixed(x, text, len, pr), out);
		if (arc == JH_ERR_NOMEM)
			return arc;
		if (arc)
			jh_report(diag_fn, payload, JH_WARNING, file, 0, 0, rule->id,
			          "fix template cannot be expanded (bad $ reference)");
		pr->resume = ov[1] > ov[0] ? ov[1] : next_char(text, len, ov[0]);
	}
	return JH_OK;
}
