/* check_typo.c — builtin checks of the typo family. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "typo.h"
#include "utf8.h"

/* ---- doubled characters (的的) ---- */

typedef struct {
	jh_strset chars;   /* characters checked; empty = every Han character */
	jh_strset skip;    /* characters left to another rule (skip-chars) */
	jh_strset allow;   /* words in which a doubled character is right */
	jh_strset words;   /* a lexicon: a second copy that starts one of them is a word's start */
	jh_strset ends;    /* a lexicon: a first copy that ends one of them is a word's end */
	jh_strset stutter; /* pronouns: their runs of three are speech (我我我) */
	int stutter_set;   /* a pronouns parameter was given: triples are checked */
	jh_strset replies; /* a run of them that is a clause of its own is an answer (是是是) */
	int allow_aabb;    /* 高高兴兴, 实实在在 */
	unsigned long min_clause; /* a pair in a shorter clause gets an unsafe fix */
	/* The allow list is read at the first doubled pair, not when the rules
	 * compile: typo.doubled-char's is the 7,800 reduplications of jieba,
	 * and that rule is off by default. */
	const jh_rule *rule;
	const char *allow_file, *words_file, *ends_file;
	unsigned allow_line, words_line, ends_line;
	jh_lazy allow_once;
} doubled_cfg;

static const char *const doubled_params[] = {"chars", "skip-chars", "allow",    "allow-aabb",
                                             "words", "pronouns",   "min-clause", "ends",
                                             "replies", NULL};

/* Add each character of a parameter value (spaces ignored) to a set. */
static int add_chars(jh_strset *set, const char *v)
{
	int rc = JH_OK;
	for (const char *p = v; p && *p && rc == JH_OK;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)p, strlen(p), &cp);
		if (cp >= 0 && cp != ' ')
			rc = jh_strset_add(set, p, n);
		p += n;
	}
	return rc;
}

static void doubled_free(void *p)
{
	doubled_cfg *c = p;
	if (!c)
		return;
	jh_strset_free(&c->chars);
	jh_strset_free(&c->skip);
	jh_strset_free(&c->allow);
	jh_strset_free(&c->words);
	jh_strset_free(&c->ends);
	jh_strset_free(&c->stutter);
	jh_strset_free(&c->replies);
	jh_lazy_destroy(&c->allow_once);
	free(c);
}

static int doubled_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	doubled_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	int rc = add_chars(&c->chars, jh_rule_param(r, "chars", NULL));
	if (rc == JH_OK)
		rc = add_chars(&c->skip, jh_rule_param(r, "skip-chars", NULL));
	if (rc == JH_OK)
		rc = add_chars(&c->stutter, jh_rule_param(r, "pronouns", NULL));
	c->stutter_set = jh_rule_param(r, "pronouns", NULL) != NULL;
	if (rc == JH_OK)
		rc = add_chars(&c->replies, jh_rule_param(r, "replies", NULL));
	jh_lazy_init(&c->allow_once);
	c->rule = r;
	c->allow_line = c->words_line = c->ends_line = r->line;
	c->allow_file = jh_rule_param(r, "allow", &c->allow_line);
	c->words_file = jh_rule_param(r, "words", &c->words_line);
	c->ends_file = jh_rule_param(r, "ends", &c->ends_line);
	if (rc == JH_OK && c->allow_file)
		rc = jh_data_readable(r, c->allow_file, c->allow_line, diag_fn, payload);
	if (rc == JH_OK && c->words_file)
		rc = jh_data_readable(r, c->words_file, c->words_line, diag_fn, payload);
	if (rc == JH_OK && c->ends_file)
		rc = jh_data_readable(r, c->ends_file, c->ends_line, diag_fn, payload);
	unsigned long aabb = 1;
	if (rc == JH_OK)
		rc = jh_param_uint(r, "allow-aabb", 1, 1, &aabb, diag_fn, payload);
	c->allow_aabb = (int)aabb;
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-clause", 0, 1000, &c->min_clause, diag_fn, payload);
	if (rc) {
		doubled_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* Is the doubled pair at [a, c) part of an allowed word?  Tries every window
 * of up to three characters on each side. */
static int doubled_allowed(const doubled_cfg *cfg, const char *text, size_t len, size_t a, size_t c)
{
	size_t before[4] = {a}, after[4] = {c};
	int nb = 1, na = 1;
	for (size_t p = a; nb < 4 && p > 0;) {
		do
			p--;
		while (p > 0 && ((unsigned char)text[p] & 0xC0) == 0x80);
		if ((unsigned char)text[p] < 0x80)
			break; /* words do not cross ASCII */
		before[nb++] = p;
	}
	for (size_t p = c; na < 4 && p < len;) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (cp < 0x80)
			break;
		p += n;
		after[na++] = p;
	}
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < na; j++) {
			size_t s = before[i], e = after[j];
			if (e - s <= cfg->allow.max_len && jh_strset_has(&cfg->allow, text + s, e - s))
				return 1;
		}
	return 0;
}

/* Does the second copy, at b, start a word of the `words` list (在 + 在逃,
 * 把 + 把手, 是 + 是非)?  Then the pair can be a one-character word and a
 * word, and keeping one copy may delete a word's start.  The list leaves
 * out the words after which a doubled character is a slip (这 + 这个). */
static int doubled_word_start(const doubled_cfg *cfg, const char *text, size_t len, size_t b)
{
	size_t e = b;
	for (int k = 0; k < 4 && e < len; k++) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + e, len - e, &cp);
		if (cp < 0x80)
			break; /* words do not cross ASCII */
		e += n;
		if (k == 0)
			continue; /* the character alone */
		if (e - b <= cfg->words.max_len && jh_strset_has(&cfg->words, text + b, e - b))
			return 1;
	}
	return 0;
}

/* Does the first copy, ending at b, end a word of the `ends` list
 * (实事求是 + 是, 现在 + 在, 少将 + 将)?  Then the second copy is the
 * function word itself.  The list leaves out the words after which the
 * character again is a slip of the same particle (看着 + 着). */
static int doubled_word_end(const doubled_cfg *cfg, const char *text, size_t b)
{
	size_t s = b > 0 ? jh_utf8_prev(text, b) : 0; /* the first copy */
	for (int k = 0; k < 3 && s > 0; k++) {
		size_t q = jh_utf8_prev(text, s);
		if ((unsigned char)text[q] < 0x80)
			break; /* words do not cross ASCII */
		s = q;
		if (b - s <= cfg->ends.max_len && jh_strset_has(&cfg->ends, text + s, b - s))
			return 1;
	}
	return 0;
}

/* Is the run starting at a in a clause of fewer than min characters (Han,
 * letters, digits: up to punctuation, a space or a line break)?  Verse
 * doubles function characters on purpose (佩玉將將，壽考不亡; 魚在在藻). */
static int doubled_short_clause(const char *text, size_t len, size_t a, unsigned long min)
{
	const uint32_t word = JH_C_HAN | JH_C_LATIN | JH_C_DIGIT | JH_C_FULLWIDTH_ALNUM;
	unsigned long n = 0;
	for (size_t p = a; n < min;) { /* the pair and what follows */
		if (p >= len)
			break;
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (!(jh_class_of(cp) & word))
			break;
		n++;
		p += k;
	}
	for (size_t p = a; n < min && p > 0;) { /* and what comes before */
		size_t q = jh_utf8_prev(text, p);
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + q, p - q, &cp);
		if (!(jh_class_of(cp) & word))
			break;
		n++;
		p = q;
	}
	return n < min;
}

/* A stammer just before the pair at a: a Han character, an ellipsis or a
 * dash, the same character again (是猩……猩红热。我我午后), within the
 * STAMMER_SPAN code points before it.  Then the pair is speech written as
 * spoken, and a person decides. */
#define STAMMER_SPAN 16
static int doubled_after_stammer(const char *text, size_t a)
{
	int32_t prev[STAMMER_SPAN]; /* prev[0] is the one right before a */
	int n = 0;
	for (size_t p = a; n < STAMMER_SPAN && p > 0;) {
		size_t q = jh_utf8_prev(text, p);
		jh_utf8_decode((const unsigned char *)text + q, p - q, &prev[n++]);
		p = q;
	}
	for (int i = 0; i < n; i++) { /* prev[i] the second copy, prev[j] the first */
		if (!(jh_class_of(prev[i]) & JH_C_HAN))
			continue;
		int j = i + 1;
		while (j < n && (prev[j] == 0x2026 || prev[j] == 0x2014))
			j++;
		if (j > i + 1 && j < n && prev[j] == prev[i])
			return 1;
	}
	return 0;
}

/* Is the run at [a, c) a clause of its own (nothing but punctuation, a
 * space or a line break on either side)?  For the `replies` (是) it is
 * then an answer (“是是是，老爷说得对。”, 孔子答应着“是是”), not a slip
 * inside a sentence. */
static int doubled_whole_clause(const char *text, size_t len, size_t a, size_t c)
{
	const uint32_t word = JH_C_HAN | JH_C_LATIN | JH_C_DIGIT | JH_C_FULLWIDTH_ALNUM;
	int32_t cp;
	if (c < len) {
		jh_utf8_decode((const unsigned char *)text + c, len - c, &cp);
		if (jh_class_of(cp) & word)
			return 0;
	}
	if (a > 0) {
		size_t q = jh_utf8_prev(text, a);
		jh_utf8_decode((const unsigned char *)text + q, a - q, &cp);
		if (jh_class_of(cp) & word)
			return 0;
	}
	return 1;
}

/* The doubled pair at [a, c): is it part of XXYY or YYXX with X != Y?  The
 * neighbouring pair may have another byte length (高高𠮷𠮷). */
static int doubled_aabb(const char *text, size_t len, size_t a, size_t c, size_t clen)
{
	if (a > 0) { /* YY before */
		size_t y2 = jh_utf8_prev(text, a);
		size_t y1 = y2 > 0 ? jh_utf8_prev(text, y2) : y2;
		size_t yl = a - y2;
		if (y1 < y2 && y2 - y1 == yl && memcmp(text + y1, text + y2, yl) == 0 &&
		    (yl != clen || memcmp(text + y2, text + a, yl) != 0))
			return 1;
	}
	if (c < len) { /* YY after */
		int32_t cp;
		size_t yl = jh_utf8_decode((const unsigned char *)text + c, len - c, &cp);
		if (cp >= 0x80 && c + 2 * yl <= len && memcmp(text + c, text + c + yl, yl) == 0 &&
		    (yl != clen || memcmp(text + c, text + a, yl) != 0))
			return 1;
	}
	return 0;
}

typedef struct {
	doubled_cfg *cfg;
	jh_diag_fn diag_fn;
	void *payload;
} allow_arg;

static int load_allow(void *arg)
{
	allow_arg *a = arg;
	doubled_cfg *c = a->cfg;
	const jh_rule *r = c->rule;
	int rc = JH_OK;
	if (c->allow_file)
		rc = jh_load_words(&c->allow, r->data_dir, c->allow_file, r, c->allow_line, a->diag_fn,
		                   a->payload);
	if (rc == JH_OK && c->words_file)
		rc = jh_load_words(&c->words, r->data_dir, c->words_file, r, c->words_line, a->diag_fn,
		                   a->payload);
	if (rc == JH_OK && c->ends_file)
		rc = jh_load_words(&c->ends, r->data_dir, c->ends_file, r, c->ends_line, a->diag_fn,
		                   a->payload);
	return rc;
}

static void doubled_flush(jh_brun *run)
{
	const doubled_cfg *cfg = run->cfg;
	/* A pair, or a run of three of a character that is not a stutter of
	 * speech (的的的, not 我我我); four or more is a sound or a stutter. */
	if (run->run_len < 2 || run->run_len > 3)
		return;
	size_t a = run->run_start, c = run->run_end, clen = (c - a) / run->run_len, b = c - clen;
	int triple = run->run_len == 3;
	if (triple && (!cfg->stutter_set || jh_strset_has(&cfg->stutter, run->text + a, clen)))
		return;
	if (cfg->chars.count && !jh_strset_has(&cfg->chars, run->text + a, clen))
		return;
	if (cfg->skip.count && jh_strset_has(&cfg->skip, run->text + a, clen))
		return;
	if (cfg->allow_file || cfg->words_file || cfg->ends_file) {
		/* the rule set is shared read-only; its lazy list is the one part
		 * written, once, under jh_lazy's lock.  A list that cannot be read
		 * was reported (file and line): no finding without it. */
		allow_arg arg = {(doubled_cfg *)cfg, run->diag_fn, run->payload};
		if (jh_lazy_get(&((doubled_cfg *)cfg)->allow_once, load_allow, &arg) != JH_OK)
			return;
	}
	if (cfg->allow.count && doubled_allowed(cfg, run->text, run->len, a, c))
		return;
	if (cfg->allow_aabb && doubled_aabb(run->text, run->len, a, c, clen))
		return;
	if (cfg->replies.count && jh_strset_has(&cfg->replies, run->text + a, clen) &&
	    doubled_whole_clause(run->text, run->len, a, c))
		return;
	/* Each copy that belongs to a word around the run (the last starts
	 * 在逃 or 的确, the first ends 现在 or 受不了) is not a duplicate;
	 * of the others one is the function word itself.  A pair with either
	 * is right; a triple with one (说的的的确, 受不了了了) has one copy too
	 * many, and only that one goes; a triple with both is right
	 * (现在在在座: 现在 + 在 + 在座). */
	int starts = cfg->words.count && doubled_word_start(cfg, run->text, run->len, b);
	int ends = cfg->ends.count && doubled_word_end(cfg, run->text, a + clen);
	int spare = (int)run->run_len - starts - ends - 1;
	if (spare < 1)
		return;
	/* what stays: one copy, or two when a word holds one of them */
	size_t g[2] = {a, c - (size_t)spare * clen};
	/* a triple is rarer than a slip of one key, and verse doubles on
	 * purpose: a person decides */
	int unsure = triple || doubled_after_stammer(run->text, a) ||
	             (cfg->min_clause && doubled_short_clause(run->text, run->len, a, cfg->min_clause));
	size_t at = run->out->count;
	/* the rule's message counts one copy too many (重复了一个字); a triple
	 * says how many are spare */
	char msg[64];
	if (triple)
		snprintf(msg, sizeof msg, "虚词“%.*s”多打了%s个字", (int)(c - a), run->text + a,
		         spare == 2 ? "两" : "一");
	jh_brun_emit_safety(run, a, c, g, 1, triple ? msg : NULL, unsure ? JH_UNSAFE : run->rule->safety);
	/* Keeping two trusts the word (说的 + 的确); one 的确 typed with its
	 * 的 three times reads the same, so keeping one is offered too. */
	if (triple && spare == 1 && !run->err && run->out->count == at + 1 &&
	    run->out->items[at].has_fix && run->out->items[at].n_edits == 1) {
		char one[8];
		memcpy(one, run->text + a, clen);
		one[clen] = '\0';
		jh_edit keep_one = {a, c, one};
		int rc = jh_findings_add_alternative(run->out, at, run->out->items[at].edits, 1);
		if (!rc)
			rc = jh_findings_add_alternative(run->out, at, &keep_one, 1);
		if (rc)
			run->err = rc;
	}
}

/* Woken only by a Han character right after the same one (JH_HAN_REPEAT):
 * the second of a pair starts a run of two, each further one extends it. */
static void doubled_step(jh_brun *run, const jh_char *c)
{
	if (run->run_len && c->cp == run->run_cp && c->pos == run->run_end) {
		run->run_len++;
		run->run_end = c->pos + c->len;
		return;
	}
	doubled_flush(run);
	run->run_cp = c->cp;
	run->run_start = c->prev_pos;
	run->run_end = c->pos + c->len;
	run->run_len = 2;
}

static void doubled_finish(jh_brun *run) { doubled_flush(run); }

/* ---- doubled words (我们我们) ---- */

/* A word of two or three characters typed twice in a row is found by
 * comparing the bytes just before each Han character with the bytes that
 * end at it, so the cost per character is two short walks back and two
 * memcmp: no per-document state and no allocation. */
typedef struct {
	jh_strset words;   /* words that never reduplicate (function words) */
	jh_strset allow;   /* longer strings in which the doubling is right */
} dword_cfg;

static const char *const dword_params[] = {"words", "allow", NULL};

static void dword_free(void *p)
{
	dword_cfg *c = p;
	if (!c)
		return;
	jh_strset_free(&c->words);
	jh_strset_free(&c->allow);
	free(c);
}

static int dword_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	dword_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	int rc = JH_OK;
	unsigned line = r->line;
	const char *words = jh_rule_param(r, "words", &line);
	if (!words) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "check 'doubled-word' needs a 'words' list");
		rc = JH_ERR_RULES;
	} else {
		rc = jh_load_words(&c->words, r->data_dir, words, r, line, diag_fn, payload);
	}
	line = r->line;
	const char *allow = jh_rule_param(r, "allow", &line);
	if (rc == JH_OK && allow)
		rc = jh_load_words(&c->allow, r->data_dir, allow, r, line, diag_fn, payload);
	if (rc) {
		dword_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* Start of the k-th character before end (k >= 1), or SIZE_MAX. */
static size_t back_chars(const char *text, size_t end, int k)
{
	size_t p = end;
	while (k-- > 0) {
		if (p == 0)
			return SIZE_MAX;
		p = jh_utf8_prev(text, p);
	}
	return p;
}

/* Is the doubled word at [s1, e) inside an allowed string: the pair alone,
 * or with one character before and/or after it? */
static int dword_allowed(const dword_cfg *cfg, const char *t, size_t len, size_t s1, size_t e)
{
	size_t a = back_chars(t, s1, 1), b = e;
	if (b < len) {
		int32_t cp;
		b += jh_utf8_decode((const unsigned char *)t + b, len - b, &cp);
	}
	size_t starts[2] = {s1, a == SIZE_MAX ? s1 : a}, ends[2] = {e, b};
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			size_t n = ends[j] - starts[i];
			if (n <= cfg->allow.max_len && jh_strset_has(&cfg->allow, t + starts[i], n))
				return 1;
		}
	return 0;
}

/* Is the pair [s1, e) repeated on purpose, by where it stands?  A pair
 * that is a clause of its own, ending at a mark (“可以可以，那自然。”, a
 * reply; 这些这些，暂且不谈罢), or that opens an utterance (“我们我们……, a
 * stammer) is speech, not a slip: in Lu Xun's prose every doubled function
 * word was one of these (README, "How often an unsafe fix is right"). */
static int dword_meant(const char *t, size_t len, size_t s1, size_t e)
{
	int32_t cp = 0;
	if (e < len) {
		jh_utf8_decode((const unsigned char *)t + e, len - e, &cp);
		if (cp == 0xFF0C || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B ||
		    cp == 0x3001 || cp == 0x2026 || cp == 0x2014 || cp == 0x201D || cp == 0x300D ||
		    cp == 0x300F || cp == '!' || cp == '?' || cp == ',')
			return 1;
	}
	if (s1 == 0)
		return 0;
	size_t b = jh_utf8_prev(t, s1);
	jh_utf8_decode((const unsigned char *)t + b, s1 - b, &cp);
	return jh_opens_speech(cp);
}

static void dword_step(jh_brun *run, const jh_char *c)
{
	const dword_cfg *cfg = run->cfg;
	const char *t = run->text;
	size_t e = c->pos + c->len;
	/* This runs on every Han character: the starts of the units of two and
	 * three characters come from one walk back, and a unit's last byte is
	 * compared before the whole of it. */
	size_t start[4] = {e, c->pos};
	for (int k = 2; k <= 3; k++) {
		if (start[k - 1] == 0)
			return;
		start[k] = jh_utf8_prev(t, start[k - 1]);
		size_t s2 = start[k], ul = e - s2;
		if (s2 < ul || t[s2 - 1] != t[e - 1] || memcmp(t + s2 - ul, t + s2, ul) != 0)
			continue;
		size_t s1 = s2 - ul;
		if (ul > cfg->words.max_len || !jh_strset_has(&cfg->words, t + s2, ul))
			continue;
		/* Exactly twice: three times is a chant or a stutter. */
		if ((s1 >= ul && memcmp(t + s1 - ul, t + s2, ul) == 0) ||
		    (e + ul <= run->len && memcmp(t + e, t + s2, ul) == 0))
			continue;
		if (cfg->allow.count && dword_allowed(cfg, t, run->len, s1, e))
			continue;
		if (dword_meant(t, run->len, s1, e))
			return;
		size_t g[2] = {s2, e};
		jh_brun_emit(run, s1, e, g, 1, NULL);
		return;
	}
}

/* The last characters of the words (a doubled word ends at one of them). */
static void dword_mark(const void *cfg, uint16_t *table, uint16_t bit)
{
	const dword_cfg *c = cfg;
	for (size_t i = 0; i < c->words.cap; i++) {
		if (!c->words.keys[i] || !c->words.lens[i])
			continue;
		size_t e = c->words.lens[i], s = jh_utf8_prev(c->words.keys[i], e);
		int32_t cp;
		if (jh_utf8_decode((const unsigned char *)c->words.keys[i] + s, e - s, &cp) == e - s &&
		    cp >= 0 && cp < 0x10000)
			table[cp] |= bit;
	}
}

static void noop_step(jh_brun *run, const jh_char *c)
{
	(void)run;
	(void)c;
}

const jh_builtin_def jh_checks_typo[] = {
	{"doubled", JH_C_HAN, doubled_params, doubled_compile, doubled_free, doubled_step, doubled_finish,
	 0, JH_HAN_REPEAT, NULL},
	{"doubled-word", JH_C_HAN, dword_params, dword_compile, dword_free, dword_step, NULL, 0,
	 JH_HAN_WANTS, dword_mark},
	/* wakes on nothing: counts the whole document in finish() */
	{"name-drift", 0, jh_drift_params, jh_drift_compile, jh_drift_free, noop_step, jh_drift_finish},
	{"context", 0, jh_context_params, jh_context_compile, jh_context_free, noop_step,
	 jh_context_finish},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
