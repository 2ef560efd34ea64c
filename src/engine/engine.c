/* engine.c — jh_check: runs the class scan (builtins, lexicon automaton,
 * trigger positions), turns lexicon hits into findings, runs the regex
 * rules, then sorts, merges and locates the findings. */
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "findings.h"
#include "lexicon.h"
#include "regex.h"
#include "rules.h"
#include "scan.h"
#include "utf8.h"
#include "foreign.h"
#include "verbatim.h"

/* Is the character that ends at / starts at pos one of set's characters? */
static int char_in(const char *text, size_t len, size_t pos, int before, const char *set)
{
	if (!set)
		return 0;
	size_t s, e;
	if (before) {
		if (pos == 0)
			return 0;
		s = jh_utf8_prev(text, pos);
		e = pos;
	} else {
		if (pos >= len)
			return 0;
		int32_t cp;
		s = pos;
		e = pos + jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp);
		if (cp < 0)
			return 0;
	}
	size_t n = e - s;
	for (const char *p = set; *p; p++)
		if (strncmp(p, text + s, n) == 0)
			return 1;
	return 0;
}

static int cmp_hit(const void *a, const void *b, const jh_lexicon *lx)
{
	const jh_lex_hit *x = a, *y = b;
	long rx = lx->entries[x->entry].rule_index, ry = lx->entries[y->entry].rule_index;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* longest first */
	return x->entry < y->entry ? -1 : (x->entry > y->entry);
}

/* qsort has no context argument in C99; insertion sort would be quadratic,
 * so sort with an explicit merge sort carrying the lexicon. */
static void sort_hits(jh_lex_hit *v, jh_lex_hit *tmp, size_t n, const jh_lexicon *lx)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	sort_hits(v, tmp, h, lx);
	sort_hits(v + h, tmp, n - h, lx);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp_hit(&v[j], &v[i], lx) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/* Leftmost-longest, non-overlapping matches per rule, after context guards. */
static int lexicon_findings(const jh_ruleset *rs, const char *text, size_t len, jh_scan_result *res,
                            jh_findings *out)
{
	const jh_lexicon *lx = rs->lexicon;
	jh_lex_hit *tmp = malloc((res->n_hits ? res->n_hits : 1) * sizeof *tmp);
	if (!tmp)
		return JH_ERR_NOMEM;
	sort_hits(res->hits, tmp, res->n_hits, lx);
	free(tmp);
	long rule = -1;
	size_t taken_end = 0;
	int rc = JH_OK;
	for (size_t i = 0; i < res->n_hits && rc == JH_OK; i++) {
		const jh_lex_hit *h = &res->hits[i];
		const jh_lex_entry *e = &lx->entries[h->entry];
		if (e->rule_index != rule) {
			rule = e->rule_index;
			taken_end = 0;
		}
		if (h->start < taken_end)
			continue;
		if (char_in(text, len, h->start, 1, e->prev_not) || char_in(text, len, h->end, 0, e->next_not))
			continue;
		taken_end = h->end;
		const jh_rule *r = rs->rules[rule];
		jh_hit hit = {r, rule, h->start, h->end, NULL, 0,
		              e->safety >= 0 ? (jh_safety)e->safety : r->safety, e->note};
		if (e->right && r->has_fix) {
			const char *bar = strchr(e->right, '|');
			hit.fix = e->right;
			hit.fix_len = bar ? (size_t)(bar - e->right) : strlen(e->right);
			if (bar) /* several candidates: a person has to choose */
				hit.safety = JH_UNSAFE;
		}
		rc = jh_findings_add_hit(out, text, &hit);
	}
	return rc;
}

/* ---- dropping findings: skip ranges and accepted words ---- */

static int contains(const char *hay, size_t hl, const char *needle, size_t nl)
{
	for (size_t i = 0; i + nl <= hl; i++)
		if (memcmp(hay + i, needle, nl) == 0)
			return 1;
	return 0;
}

static int overlaps(const jh_finding *f, size_t a, size_t b)
{
	if (f->byte_end > f->byte_start)
		return f->byte_start < b && f->byte_end > a;
	return a <= f->byte_start && f->byte_start < b;
}

/* Is f inside a skip range that applies to its rule?  maxend[i] is the
 * largest end among ranges 0..i, so the walk back stops early. */
static int skipped(const jh_finding *f, const jh_skip *sk, size_t n, const size_t *maxend)
{
	size_t lo = 0, hi = n; /* first range starting at or after the finding's end */
	size_t key = f->byte_end > f->byte_start ? f->byte_end : f->byte_start + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sk[mid].start < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (maxend[i] <= f->byte_start)
			break;
		if (overlaps(f, sk[i].start, sk[i].end) &&
		    (!sk[i].rules || (f->rule_index >= 0 && sk[i].rules[f->rule_index])))
			return 1;
	}
	return 0;
}

/* Does an accepted word occur in the text around f, covering its span? */
static int accepted(const jh_finding *f, const char *text, size_t len, const char *const *words,
                    size_t n)
{
	size_t s = f->byte_start, e = f->byte_end, flen = e - s;
	for (size_t k = 0; k < n; k++) {
		const char *w = words[k];
		size_t wl = strlen(w);
		if (!wl || wl < flen || wl > len)
			continue;
		if (flen && !contains(w, wl, text + s, flen))
			continue;
		size_t p = e >= wl ? e - wl : 0, last = s + wl <= len ? s : len - wl;
		for (; p <= last; p++)
			if (memcmp(text + p, w, wl) == 0)
				return 1;
	}
	return 0;
}

static int drop_findings(jh_findings *out, size_t first, const char *text, size_t len,
                         const jh_check_options *o)
{
	size_t *maxend = NULL;
	if (o->n_skip) {
		if (!(maxend = malloc(o->n_skip * sizeof *maxend)))
			return JH_ERR_NOMEM;
		for (size_t i = 0; i < o->n_skip; i++)
			maxend[i] = i && maxend[i - 1] > o->skip[i].end ? maxend[i - 1] : o->skip[i].end;
	}
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		if ((o->n_skip && skipped(f, o->skip, o->n_skip, maxend)) ||
		    (o->n_accept && accepted(f, text, len, o->accept, o->n_accept))) {
			continue; /* its strings stay in the list's store */
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(maxend);
	return JH_OK;
}

static void locate_from(jh_findings *list, size_t from, const char *text, size_t len)
{
	if (from >= list->count) /* nothing new; items may be NULL (no offset on NULL) */
		return;
	jh_findings tail = {list->items + from, list->count - from, list->count - from};
	jh_findings_locate(&tail, text, len);
}

/* The regex rules of one text: triggered rules run on each chunk of
 * trigger positions as the scan hands it over (jh_rx_progress carries
 * where each stands), rules without a trigger once over the whole text. */
typedef struct {
	const jh_ruleset *rs;
	const unsigned char *enabled;
	const char *text;
	size_t len;
	const jh_check_options *opts;
	jh_rx_scratch *scratch;
	jh_rx_progress *progress; /* per regex slot */
	jh_trigger_lists lists;   /* this chunk's positions, rule by rule */
	jh_findings *out;
} regex_pass;

static int run_triggered(void *ctx, const jh_trigger_event *events, size_t n)
{
	regex_pass *p = ctx;
	const jh_regexes *rx = p->rs->regexes;
	jh_trigger_lists *l = &p->lists;
	int rc = jh_trigger_lists_build(l, events, n);
	for (size_t k = 0; rc == JH_OK && k < rx->n; k++) {
		long idx = rx->v[k].rule_index;
		unsigned bit = rx->v[k].bit;
		if (p->enabled[idx] && rx->v[k].triggered && l->n[bit])
			rc = jh_regex_run(rx, k, p->rs->rules[idx], p->text, p->len, l->pos[bit], l->n[bit],
			                  &p->progress[k], p->scratch, p->opts->file, p->opts->diag_fn,
			                  p->opts->payload, p->out);
	}
	return rc;
}

/* Asked between the stages of a check and before each untriggered regex:
 * often enough for an editor, too seldom to cost anything. */
static int cancelled(const jh_check_options *opts)
{
	return opts->cancel && opts->cancel(opts->cancel_payload);
}

int jh_check(const jh_ruleset *rs, const char *text, size_t len, const jh_check_options *opts,
             jh_findings *out)
{
	if (!rs || !out || (!text && len))
		return JH_ERR_ARG;
	if (!rs->compiled)
		return JH_ERR_STATE;
	if (!text)
		text = "";
	static const jh_check_options none = {0};
	if (!opts)
		opts = &none;

	unsigned char *own = NULL;
	const unsigned char *enabled = opts->enabled;
	if (!enabled) {
		if (!(own = malloc(rs->count ? rs->count : 1)))
			return JH_ERR_NOMEM;
		jh_ruleset_default_selection(rs, own);
		enabled = own;
	}
	size_t first = out->count;
	jh_findings_new_check(out);
	const jh_builtins *bi = rs->builtins;
	jh_brun *runs = calloc(bi->n ? bi->n : 1, sizeof *runs);
	jh_doc_shared shared = {0};
	jh_scan_result res = {0};
	jh_rx_scratch scratch = {0};
	int rc = runs ? JH_OK : JH_ERR_NOMEM;

	for (size_t k = 0; rc == JH_OK && k < bi->n; k++) {
		long idx = bi->v[k].rule_index;
		if (!enabled[idx])
			continue;
		runs[k] = (jh_brun){.text = text, .len = len, .rule = rs->rules[idx], .rule_index = idx,
		                    .cfg = bi->v[k].cfg, .out = out, .variant = opts->variant,
		                    .diag_fn = opts->diag_fn, .payload = opts->payload,
		                    .shared = &shared};
	}
	regex_pass rp = {rs, enabled, text, len, opts, &scratch, NULL, {{NULL}, {0}, {0}}, out};
	if (rc == JH_OK && rs->regexes->n) {
		rc = jh_rx_scratch_init(&scratch, rs->regexes);
		if (rc == JH_OK && !(rp.progress = calloc(rs->regexes->n, sizeof *rp.progress)))
			rc = JH_ERR_NOMEM;
	}
	if (rc == JH_OK)
		rc = jh_scan(rs, text, len, enabled, runs, &res, rp.progress ? run_triggered : NULL, &rp,
		             scratch.md);
	jh_doc_shared_free(&shared); /* every finish() has run */
	if (rc == JH_OK && cancelled(opts))
		rc = JH_ERR_CANCELLED;
	if (rc == JH_OK)
		rc = lexicon_findings(rs, text, len, &res, out);
	if (rc == JH_OK && rp.progress && res.n_events)
		rc = run_triggered(&rp, res.events, res.n_events);
	for (size_t k = 0; rc == JH_OK && rp.progress && k < rs->regexes->n; k++) {
		long idx = rs->regexes->v[k].rule_index;
		if (enabled[idx] && !rs->regexes->v[k].triggered && cancelled(opts))
			rc = JH_ERR_CANCELLED;
		else if (enabled[idx] && !rs->regexes->v[k].triggered)
			rc = jh_regex_run(rs->regexes, k, rs->rules[idx], text, len, NULL, 0,
			                  &rp.progress[k], &scratch, opts->file, opts->diag_fn,
			                  opts->payload, out);
	}
	free(rp.progress);
	jh_trigger_lists_free(&rp.lists);
	if (rc == JH_OK && (opts->n_skip || opts->n_accept))
		rc = drop_findings(out, first, text, len, opts);
	if (rc == JH_OK) {
		if (opts->severity)
			for (size_t i = first; i < out->count; i++) {
				long idx = out->items[i].rule_index;
				if (idx >= 0 && opts->severity[idx] >= 0)
					out->items[i].severity = (jh_severity)opts->severity[idx];
			}
		jh_findings_sort(out, first);
		rc = jh_verbatim_drop(out, first, text, len, (const jh_rule *const *)rs->rules, rs->count);
		if (rc == JH_OK)
			rc = jh_foreign_drop(out, first, text, len, (const jh_rule *const *)rs->rules,
			                     rs->count);
	}
	if (rc == JH_OK) {
		locate_from(out, first, text, len);
	} else if (rc == JH_ERR_CANCELLED) {
		out->count = first; /* a cancelled check gives nothing half done */
	}
	jh_rx_scratch_free(&scratch);
	jh_scan_result_free(&res);
	free(runs);
	free(own);
	return rc;
}
