/* censor_suggest.c — the mask-suggest check of the censor family: ranked
 * suggestions for words a site masked (帝**人, 甩出了*).  This file is
 * the check: its configuration, the tables it loads at the first mask,
 * the walk over mask runs and the findings; the candidates come from
 * censor_suggest_words.c (dictionary and listed words) and
 * censor_suggest_doc.c (the document's own strings), the ranking from
 * the word trigram model (mask_restore.c) or, without it, the unigram
 * score. */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "censor_suggest.h"
#include "mask_restore.h"
#include "regex.h"
#include "utf8.h"
#include "wordmap.h"
#include "censor.h"

/* ---- mask-suggest: ranked words for a masked span ---- */

static const char *const ms_params[] = {"words", "masked", "t2s", "suggestions", "min-joins",
                                        "lm", "lm-words", "s2t", "fill-threshold", "char-lm",
                                        "symbol-rule", NULL};

static void ms_free(void *p)
{
	ms_cfg *c = p;
	if (!c)
		return;
	jh_wm_release_shared(c->words);
	jh_mr_free(c->mr);
	jh_wm_free(&c->masked);
	free(c->t2s);
	free(c->by_first);
	free(c->by_last);
	jh_lazy_destroy(&c->once);
	free(c);
}

static int ms_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	ms_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once);
	c->rule = r;
	int rc = JH_OK;
	c->words_line = c->masked_line = c->t2s_line = r->line;
	c->words_file = jh_rule_param(r, "words", &c->words_line);
	c->masked_file = jh_rule_param(r, "masked", &c->masked_line);
	c->t2s_file = jh_rule_param(r, "t2s", &c->t2s_line);
	if (!c->words_file) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "check 'mask-suggest' needs words = FILE (word<TAB>frequency)");
		rc = JH_ERR_RULES;
	} else {
		rc = jh_data_readable(r, c->words_file, c->words_line, diag_fn, payload);
	}
	if (rc == JH_OK && c->masked_file)
		rc = jh_data_readable(r, c->masked_file, c->masked_line, diag_fn, payload);
	if (rc == JH_OK && c->t2s_file)
		rc = jh_data_readable(r, c->t2s_file, c->t2s_line, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "suggestions", 3, 10, &c->max_suggestions, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-joins", 1, 2, &c->min_joins, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "fill-threshold", 101, 101, &c->fill_percent, diag_fn, payload);
	unsigned ln = r->line;
	c->lm_file = jh_rule_param(r, "lm", &ln);
	c->lm_words_file = jh_rule_param(r, "lm-words", &ln);
	c->char_lm_file = jh_rule_param(r, "char-lm", &ln);
	c->s2t_line = r->line;
	c->s2t_file = jh_rule_param(r, "s2t", &c->s2t_line);
	if (rc == JH_OK && c->s2t_file)
		rc = jh_data_readable(r, c->s2t_file, c->s2t_line, diag_fn, payload);
	if (rc) {
		ms_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

static const int32_t mask_cps[] = {'*', 0xFF0A, 0x00D7, 0x25A1, 0x25A0, 0x25CB, 0x25CF, 0x2573};

static int is_mask_cp(int32_t cp)
{
	for (size_t i = 0; i < sizeof mask_cps / sizeof *mask_cps; i++)
		if (cp == mask_cps[i])
			return 1;
	return 0;
}

/* The masks are all the step acts on (builtins.h other_mark): a run of
 * them is closed by the next character that wakes it, or by finish, in
 * the same way whatever lies between. */
static void ms_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	for (size_t i = 0; i < sizeof mask_cps / sizeof *mask_cps; i++)
		jh_mark_other(table, bit, mask_cps[i]);
}

/* Is the run [s, e) of mark one censor.mask.symbol finds?  Its pattern
 * says what a □ ○ × is that is no mask (a zero, a times, a cross drawn, a
 * glyph described after it); a copy of those conditions here drifted from
 * it (一□□分子 and 损失×五门火炮 were masks here, not there).  Stars are
 * censor.mask's, judged below.  1 yes, 0 no, -1 out of memory. */
static int ms_symbol_found(const ms_cfg *c, int32_t mark, const char *t, size_t len, size_t s,
                           size_t e)
{
	if (mark == '*' || mark == 0xFF0A || !c->symbol)
		return 1;
	/* The subject ends with the run's line, and 4 KB after the run at
	 * most (the pattern looks 500 characters ahead on the line): the
	 * interpreter checks the UTF-8 of all the subject after the start,
	 * which for each mark of a long text cost ten times the check. */
	size_t end = e;
	while (end < len && end - e < 4096 && t[end] != '\n')
		end++;
	while (end < len && end > e && ((unsigned char)t[end] & 0xC0) == 0x80)
		end--; /* not inside a character */
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(c->symbol, NULL);
	if (!md)
		return -1;
	int rc = pcre2_match(c->symbol, (PCRE2_SPTR)t, end, s, PCRE2_ANCHORED, md, NULL);
	const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	int found = rc > 0 && ov[0] == s && ov[1] == e;
	pcre2_match_data_free(md);
	return rc == PCRE2_ERROR_NOMEMORY ? -1 : found;
}

/* Is the star run [s, e) one side of Markdown emphasis (**粗体**): a run
 * of the same length within 30 characters on the same line, with no
 * sentence punctuation between?  Masks repeat on a line too (帝**人…亲*待),
 * but with prose and punctuation between them. */
static int ms_emphasis(const char *t, size_t len, size_t s, size_t e)
{
	size_t rl = e - s;
	for (int dir = 0; dir < 2; dir++) {
		size_t p = dir ? e : s, chars = 0;
		while (chars < 30) {
			size_t q = 0, n = 0;
			int32_t cp = dir ? cp_at(t, len, p, &n) : cp_before(t, p, &q);
			if (cp < 0 || cp == '\n' || cp == 0x3002 || cp == 0xFF0C || cp == 0xFF01 ||
			    cp == 0xFF1F || cp == 0xFF1B)
				break;
			if (cp == '*') {
				size_t a = dir ? p : q, b = a;
				while (a > 0 && t[a - 1] == '*')
					a--;
				while (b < len && t[b] == '*')
					b++;
				return b - a == rl;
			}
			p = dir ? p + n : q;
			chars++;
		}
	}
	return 0;
}

static int ms_load_charlm(ms_cfg *c, lazy_arg *a);

static int ms_load(void *arg)
{
	lazy_arg *a = arg;
	ms_cfg *c = a->cfg;
	const jh_rule *r = c->rule;
	int rc = jh_wm_get_shared(r, c->words_file, c->words_line, 1, &c->words, a->diag_fn, a->payload);
	if (rc == JH_OK && c->masked_file)
		rc = jh_wm_load(&c->masked, r, c->masked_file, c->masked_line, 0, a->diag_fn, a->payload);
	if (rc == JH_OK)
		rc = ms_index_masked(&c->masked, 0, &c->by_first);
	if (rc == JH_OK)
		rc = ms_index_masked(&c->masked, 1, &c->by_last);
	if (rc == JH_OK && c->t2s_file)
		rc = jh_load_char_map(&c->t2s, T2S_LO, T2S_HI, c->t2s_file, r, c->t2s_line,
		                      a->diag_fn, a->payload); /* traditional -> simplified */
	if (rc == JH_OK && c->lm_file && c->lm_words_file) {
		rc = jh_mr_open(&c->mr, r, c->lm_file, c->lm_words_file, c->s2t_file, c->s2t_line,
		                a->diag_fn, a->payload);
		if (rc == JH_ERR_IO)
			rc = JH_OK; /* the model is not installed: rank by the unigram model */
	}
	if (rc == JH_OK && c->mr && c->char_lm_file)
		rc = ms_load_charlm(c, a);
	return rc;
}

/* The character model beside the word model: an optional data file
 * (rules/tools/gen-char-lm.py builds it); one that is there but broken is
 * an error of the rule. */
static int ms_load_charlm(ms_cfg *c, lazy_arg *a)
{
	char *path = jh_data_path(c->rule, c->char_lm_file), err[300];
	if (!path)
		return JH_ERR_NOMEM;
	int rc = jh_mr_use_charlm(c->mr, path, err, sizeof err);
	free(path);
	if (rc == JH_ERR_IO)
		return JH_OK;
	if (rc && rc != JH_ERR_NOMEM)
		jh_report(a->diag_fn, a->payload, JH_ERROR, c->rule->file, c->rule->line, 0, c->rule->id,
		          "%s", err);
	return rc;
}

/* The Han characters of s (n bytes, simplified) as code points. */
static int ms_cps(const char *s, size_t n, int32_t *cp, int max)
{
	int k = 0;
	for (size_t p = 0; p < n && k < max;)
		p += jh_utf8_decode((const unsigned char *)s + p, n - p, &cp[k++]);
	return k;
}

/* Up to JH_MR_CTX characters of context for the model, simplified, from
 * at going back (dir < 0) or on: Han text and CJK punctuation, which the
 * model has words for (a sentence end after the mask says much).  *edge
 * says that the left context begins a line or the text. */
static int ms_lm_side(const ms_cfg *c, const char *t, size_t len, size_t at, int dir,
                      int32_t *cp, int *edge)
{
	int32_t got[JH_MR_CTX];
	int k = 0;
	*edge = 0;
	for (size_t p = at; k < JH_MR_CTX;) {
		size_t q = 0, n = 0;
		int32_t x = dir < 0 ? cp_before(t, p, &q) : cp_at(t, len, p, &n);
		if (x < 0 || x == '\n') {
			*edge = 1;
			break;
		}
		if (!is_han(x) && !(jh_class_of(x) & JH_C_CJK_PUNCT))
			break;
		if (c->t2s && x >= T2S_LO && x <= T2S_HI && c->t2s[x - T2S_LO])
			x = c->t2s[x - T2S_LO];
		got[k++] = x;
		p = dir < 0 ? q : p + n;
	}
	for (int i = 0; i < k; i++)
		cp[i] = dir < 0 ? got[k - 1 - i] : got[i];
	return k;
}

/* Dictionary words handed to the model: 6 of them found as many hidden
 * words on bench/restore's tuning split as 16, each scored in full. */
#define MS_EXTRA 6

/* Candidates ranked and calibrated, of which the best `suggestions`
 * are shown (the parameter's maximum). */
#define MS_RANKED 10

static int cmp_alt_p(const void *a, const void *b)
{
	const jh_mr_alt *x = a, *y = b;
	return x->p < y->p ? 1 : x->p > y->p ? -1 : 0;
}

/* Rank the mask's candidates with the word trigram model (mask_restore.c)
 * and report them; the fix is the best one only when its probability
 * reaches fill-threshold (percent), so that an unsafe fill is usually
 * right; otherwise the finding only lists the alternatives. */
static void ms_restore(jh_brun *run, const ms_cfg *c, const ms_ctx *x, ms_state *st,
                       const char *t, const size_t *lb, int nl, const size_t *ra, int nr,
                       const ms_cand *v, int n, const ms_cand *vd, int nd, int ntopic)
{
	jh_mr_query q = {0};
	int edge;
	q.nl = ms_lm_side(c, t, run->len, run->open_start, -1, q.left, &q.bos);
	q.nr = ms_lm_side(c, t, run->len, run->open_end, 1, q.right, &edge);
	q.run = (int)run->run_len;
	q.star = run->run_cp == '*' || run->run_cp == 0xFF0A;
	q.traditional = memcmp(t + lb[nl], x->left, lb[0] - lb[nl]) ||
	                memcmp(t + ra[0], x->right, ra[nr] - ra[0]);
	jh_mr_alt extra[2 * MS_MAX_CAND], alt[MS_RANKED];
	int ne = 0;
	/* the listed words, the MS_EXTRA most frequent dictionary words
	 * (ms_candidates), and every string of the document */
	qsort((ms_cand *)v, (size_t)n, sizeof *v, cmp_cand);
	int nlisted = 0;
	while (nlisted < n && v[nlisted].score >= MS_LISTED)
		nlisted++;
	if (n > nlisted + MS_EXTRA)
		n = nlisted + MS_EXTRA;
	for (int k = 0; k < n + nd; k++) {
		const ms_cand *w = k < n ? &v[k] : &vd[k - n];
		jh_mr_alt *a = &extra[ne];
		memset(a, 0, sizeof *a);
		char simp[MS_MAX_FILL * 4 + 1];
		size_t sn = ms_simplify(c, w->w, w->n, simp);
		int32_t cp[MS_MAX_FILL + 1];
		a->n = ms_cps(simp, sn, cp, MS_MAX_FILL + 1);
		if (!jh_mr_fits(&q, a->n))
			continue; /* jh_mr_rank would drop it: not looked up in the list either */
		memcpy(a->cp, cp, (size_t)a->n * sizeof *cp);
		a->src = k >= n + nd - ntopic ? JH_MR_SRC_TOPIC : k >= n ? JH_MR_SRC_DOC
		       : k >= nlisted ? JH_MR_SRC_DICT : 0;
		if (c->masked.n && ms_freq(c, &c->masked, w->w, w->n))
			a->src |= JH_MR_SRC_LISTED;
		if (a->src & (JH_MR_SRC_DOC | JH_MR_SRC_TOPIC)) { /* written so in the document */
			memcpy(a->text, w->w, w->n);
			a->text_len = w->n;
		}
		ne++;
	}
	/* ranked and calibrated over MS_RANKED whatever the number shown: the
	 * document's evidence lifts a candidate the model put fourth or
	 * later (bench/restore, held out, man pages: top-1 0.21 -> 0.28) */
	int na = jh_mr_rank(c->mr, &q, extra, ne, alt, MS_RANKED);
	if (na < 0) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (na == 0)
		return;
	/* calibrated, with the document's evidence, and ranked by that */
	size_t s = run->open_start, e = run->open_end, len = run->len;
	size_t lo = s > MS_DOC_WINDOW ? s - MS_DOC_WINDOW : 0;
	size_t hi = len - e > MS_DOC_WINDOW ? e + MS_DOC_WINDOW : len;
	int have = nl >= 1 && nr >= 1;
	if (have && ms_blocks(st, t, len, lo, hi)) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	for (int i = 0; i < na; i++) {
		int n1 = have && ms_near(st, t, lo, hi, lb, nl, ra, nr, 1, alt[i].text, alt[i].text_len);
		int n2 = n1 && ms_near(st, t, lo, hi, lb, nl, ra, nr, 2, alt[i].text, alt[i].text_len);
#ifdef MS_TRACE /* what bench/restore-fit reads to fit jh_mr_calibrate */
		fprintf(stderr, "TRACE %zu %d %.6f %d %d %d %.6f %s\n", s, i, alt[i].p, n1, n2, alt[i].cross,
		        alt[i].score - alt[0].score, alt[i].text);
#endif
		alt[i].p = jh_mr_calibrate(alt[i].p, n1, n2, alt[i].cross, i == 0);
	}
	qsort(alt, (size_t)na, sizeof *alt, cmp_alt_p);
	if (na > (int)c->max_suggestions)
		na = (int)c->max_suggestions;
	jh_buf msg = {0};
	int bad = jh_buf_puts(&msg, "被遮盖的词可能是：");
	for (int i = 0; i < na && !bad; i++) {
		char pc[32];
		snprintf(pc, sizeof pc, "（%d%%）", (int)(alt[i].p * 100 + 0.5));
		bad = (i && jh_buf_puts(&msg, "、")) || jh_buf_puts(&msg, alt[i].text) ||
		      jh_buf_puts(&msg, pc);
	}
	if (!bad)
		bad = jh_buf_terminate(&msg);
	int fill = run->rule->has_fix && alt[0].p * 100 >= (double)c->fill_percent;
	if (bad) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int rc = jh_findings_add(run->out, r->id, run->rule_index, r->severity, s, e, msg.data, fill ? alt[0].text : NULL,
		                         fill ? alt[0].text_len : 0, JH_UNSAFE);
		/* the ranked words as answers of their own, best first (the fill,
		 * when there is one) */
		for (int i = 0; rc == JH_OK && i < na; i++) {
			char w[sizeof alt[i].text];
			memcpy(w, alt[i].text, alt[i].text_len);
			w[alt[i].text_len] = '\0';
			jh_edit ed = {s, e, w};
			rc = jh_findings_add_scored_alternative(run->out, run->out->count - 1, &ed, 1,
			                                        alt[i].p);
		}
		if (rc)
			run->err = rc;
	}
	jh_buf_free(&msg);
}

static void ms_flush(jh_brun *run)
{
	if (!run->open)
		return;
	run->open = 0;
	const ms_cfg *c = run->cfg;
	const char *t = run->text;
	size_t len = run->len, s = run->open_start, e = run->open_end, n1, q;
	int32_t before = cp_before(t, s, &q), after = cp_at(t, len, e, &n1);
	/* The masks censor.mask and censor.mask.symbol find: Han before and
	 * nothing ASCII after but a line end (not 5*3, 因为*HANDLE, 前缀是*,),
	 * or Han after and CJK punctuation before (」**夫上校); not Markdown. */
	if (!(is_han(before) && (after < 0 || after >= 0x80 || after == '\n' || after == '\r')) &&
	    !(is_han(after) && before >= 0x80 && !(jh_class_of(before) & JH_C_SPACE)))
		return;
	if (run->run_len > 6 || (t[s] == '*' && ms_emphasis(t, len, s, e)))
		return;
	int found = ms_symbol_found(c, run->run_cp, t, len, s, e);
	if (found < 0)
		run->err = JH_ERR_NOMEM;
	if (found <= 0)
		return;
	lazy_arg a = {(ms_cfg *)c, run->diag_fn, run->payload}; /* see mc_finish */
	if (jh_lazy_get(&((ms_cfg *)c)->once, ms_load, &a) != JH_OK)
		return;
	size_t lb[MS_CTX + 1], ra[MS_CTX + 1];
	int ctx = ms_context(t, len, s, e, lb, ra), nl = ctx / 16, nr = ctx % 16;
	ms_list vl;
	ms_ctx x;
	ms_ctx_init(c, t, lb, nl, ra, nr, &x);
	unsigned fit = c->mr ? 0 : ~0u; /* the fill lengths the model ranks */
	jh_mr_query fq = {.run = (int)run->run_len, .star = run->run_cp == '*' || run->run_cp == 0xFF0A};
	for (int k = 1; c->mr && k <= JH_MR_MAX_FILL; k++)
		fit |= (unsigned)jh_mr_fits(&fq, k) << k;
	int n = ms_candidates(c, &x, t, lb, nl, ra, nr, &vl, fit);
	if (n < 0) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	ms_state *st = run->state;
	ms_list vdl; /* the document's own, apart for the model's prior */
	ms_list_init(&vdl);
	if ((!st && !(st = run->state = ms_state_new())) ||
	    ms_doc_candidates(c, &x, st, t, len, s, e, lb, nl, ra, nr, c->mr ? &vdl : &vl)) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	if (c->mr) {
		/* topic words after the document's strings: those they repeat
		 * are merged into them by ms_add (a string beside the same
		 * context is the stronger evidence) */
		int n_doc = vdl.n;
		if (run->run_len == 2 && ms_topic_candidates(c, st, t, len, s, &vdl)) {
			run->err = JH_ERR_NOMEM;
			return;
		}
		ms_restore(run, c, &x, st, t, lb, nl, ra, nr, vl.v, vl.n, vdl.v, vdl.n, vdl.n - n_doc);
		return;
	}
	ms_combine(c, &x, t, lb, nl, ra, nr, &vl);
	ms_cand *v = vl.v;
	n = vl.n;
	if (!n)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_cand);
	int joins;
	ms_score(c, &x, v[0].w, v[0].n, &joins);
	if (joins < (int)c->min_joins)
		return; /* the best fill makes no word with its neighbours: no evidence */
	jh_buf msg = {0};
	int bad = jh_buf_puts(&msg, "被遮盖的词可能是：");
	for (int i = 0; i < n && i < (int)c->max_suggestions && !bad; i++) {
		bad = (i && jh_buf_puts(&msg, "、")) || jh_buf_puts(&msg, v[i].w);
	}
	if (!bad)
		bad = jh_buf_terminate(&msg);
	if (bad) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int rc = jh_findings_add(run->out, r->id, run->rule_index, r->severity, s, e, msg.data,
		                         r->has_fix ? v[0].w : NULL, r->has_fix ? v[0].n : 0, JH_UNSAFE);
		/* the ranked words as answers of their own, the first the fix */
		for (int i = 0; rc == JH_OK && i < n && i < (int)c->max_suggestions; i++) {
			jh_edit alt = {s, e, v[i].w};
			rc = jh_findings_add_alternative(run->out, run->out->count - 1, &alt, 1);
		}
		if (rc)
			run->err = rc;
	}
	jh_buf_free(&msg);
}

static void ms_step(jh_brun *run, const jh_char *ch)
{
	if (!is_mask_cp(ch->cp)) {
		ms_flush(run);
		return;
	}
	if (run->open && ch->pos == run->open_end && ch->cp == run->run_cp) {
		run->open_end = ch->pos + ch->len;
		run->run_len++;
		return;
	}
	ms_flush(run);
	run->open = 1;
	run->run_cp = ch->cp;
	run->run_len = 1;
	run->open_start = ch->pos;
	run->open_end = ch->pos + ch->len;
}

static void ms_finish(jh_brun *run)
{
	ms_flush(run);
	ms_state_free(run->state);
	run->state = NULL;
}
/* symbol-rule: the id of the regex rule whose pattern tells a symbol
 * mask (ms_symbol_found); the rule set holds its compiled code. */
static int ms_link(void *cfg, const jh_rule *r, const jh_ruleset *rs, jh_diag_fn diag_fn,
                   void *payload)
{
	ms_cfg *c = cfg;
	unsigned line = r->line;
	const char *id = jh_rule_param(r, "symbol-rule", &line);
	if (!id)
		return JH_OK;
	long i = jh_ruleset_find(rs, id);
	const jh_rule *sr = i >= 0 ? rs->rules[i] : NULL;
	if (!sr || sr->kind != JH_KIND_REGEX || sr->broken || sr->regex_slot < 0 ||
	    (size_t)sr->regex_slot >= rs->regexes->n) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "symbol-rule '%s' names no regex rule of the set that compiled", id);
		return JH_ERR_RULES;
	}
	c->symbol = rs->regexes->v[sr->regex_slot].code;
	return JH_OK;
}

const jh_builtin_def jh_checks_censor_suggest[] = {
	{"mask-suggest", JH_C_ASCII_PUNCT | JH_C_CJK_PUNCT | JH_C_OTHER, ms_params, ms_compile, ms_free,
	 ms_step, ms_finish, 0, JH_HAN_ALL, NULL, NULL, ms_link, ms_other},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
