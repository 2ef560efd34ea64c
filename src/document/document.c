/* document.c — a document from its bytes to findings and fixed bytes: the
 * jh_document_* calls of jinghua.h.
 *
 *   bytes ─decode─▶ text (UTF-8) ─Markdown?─▶ prose ─jh_check─▶ findings
 *                                                       │ (inline switches, accepted
 *                                                       │  words: dropped by the engine)
 *   findings ◀─back to the text─┘ ◀── Markdown segment map
 *
 * Fixing repeats check → apply on the text (never on the prose) until the
 * text stops changing, so code and markup are never rewritten; the result is
 * encoded back into the file's encoding, and decoded once more so that the
 * findings left have offsets in the bytes that will be written. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "document.h"
#include "findings.h"
#include "util.h"

/* ---- one analysis: the settings and options one text is checked with ---- */

typedef struct {
	const jh_settings *fs;
	const char *name;
	int markdown;
	jh_diag_fn diag_fn;
	void *payload;
	jh_cancel_fn cancel;
	void *cancel_payload;
	/* only findings on these lines ([first, last] pairs), when lines is set */
	const size_t *lines;
	size_t n_pairs;
	const unsigned char *enabled; /* NULL: the file's selection (fs->enabled) */
} analysis;

static void note(const analysis *a, jh_severity sev, unsigned line, const char *fmt, va_list ap)
{
	if (!a->diag_fn)
		return;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	jh_diag d = {sev, a->name, line, 0, NULL, msg};
	a->diag_fn(&d, a->payload);
}

__attribute__((format(printf, 3, 4)))
static void warn(const analysis *a, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	note(a, JH_WARNING, (unsigned)line, fmt, ap);
	va_end(ap);
}

/* A note on how the document was read (JH_INFO: not a problem of the text). */
__attribute__((format(printf, 2, 3)))
static void inform(const analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	note(a, JH_INFO, 0, fmt, ap);
	va_end(ap);
}

/* ---- inline switches: <!-- jinghua-disable RULES --> … <!-- jinghua-enable --> ---- */

typedef struct {
	jh_skip *v;
	size_t n, cap;
	unsigned char **masks; /* owned rule masks */
	size_t n_masks;
} skips;

static void skips_free(skips *s)
{
	for (size_t i = 0; i < s->n_masks; i++)
		free(s->masks[i]);
	free(s->masks);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int skip_add(skips *s, size_t a, size_t b, const unsigned char *mask)
{
	if (b <= a)
		return JH_OK;
	if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
		return JH_ERR_NOMEM;
	s->v[s->n++] = (jh_skip){a, b, mask};
	return JH_OK;
}

/* A rule mask owned by s, all off; NULL for want of memory. */
static unsigned char *new_mask(skips *s, size_t n)
{
	unsigned char **nm = realloc(s->masks, (s->n_masks + 1) * sizeof *s->masks);
	if (!nm)
		return NULL;
	s->masks = nm;
	unsigned char *m = calloc(n ? n : 1, 1);
	if (m)
		s->masks[s->n_masks++] = m;
	return m;
}

static int cmp_skip(const void *a, const void *b)
{
	const jh_skip *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static size_t line_of(const char *t, size_t pos)
{
	size_t n = 1;
	for (size_t i = 0; i < pos; i++)
		n += t[i] == '\n';
	return n;
}

typedef struct {
	size_t start;
	unsigned char *mask; /* NULL = all rules */
} open_region;

static int in_html(const md_prose *md, size_t pos)
{
	for (size_t i = 0; i + 1 < md->n_html; i += 2)
		if (md->html[i] <= pos && pos < md->html[i + 1])
			return 1;
	return 0;
}

/* Find the switches in text; ranges are in text offsets.  JH_OK or
 * JH_ERR_NOMEM. */
static int find_switches(const char *text, size_t len, const md_prose *md, const jh_ruleset *rs,
                         const analysis *an, skips *out)
{
	size_t nr = jh_ruleset_count(rs);
	open_region *open = NULL;
	size_t n_open = 0, cap_open = 0;
	int rc = JH_OK;
	const char *p = text, *end = text + len;
	while (rc == JH_OK && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		if (end - p < 4 || memcmp(p, "<!--", 4)) {
			p++;
			continue;
		}
		const char *q = p + 4;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q < 7 || memcmp(q, "jinghua", 7)) {
			p += 4;
			continue;
		}
		const char *close = NULL;
		for (const char *r = q; r + 3 <= end; r++)
			if (!memcmp(r, "-->", 3)) {
				close = r;
				break;
			}
		if (!close)
			break;
		size_t at = (size_t)(p - text), after = (size_t)(close + 3 - text);
		if (md && !in_html(md, at)) { /* in Markdown, only real HTML comments */
			p = close + 3;
			continue;
		}
		char *body = jh_strndup(q, (size_t)(close - q));
		if (!body) {
			rc = JH_ERR_NOMEM;
			break;
		}
		char *word = body, *rest = body + strcspn(body, " \t\r\n");
		if (*rest)
			*rest++ = '\0';
		rest += strspn(rest, " \t\r\n");
		for (size_t k = strlen(rest); k && strchr(" \t\r\n", rest[k - 1]); k--)
			rest[k - 1] = '\0';
		unsigned char *mask = NULL;
		if (*rest) {
			char bad[128];
			if (!(mask = new_mask(out, nr))) {
				free(body);
				rc = JH_ERR_NOMEM;
				break;
			}
			if (jh_selection_apply(rs, mask, rest, 1, bad, sizeof bad))
				warn(an, line_of(text, at), "%s: no rule or family '%s'", word, bad);
		}
		if (!strcmp(word, "jinghua-disable")) {
			if (jh_grow((void **)&open, &cap_open, n_open + 1, sizeof *open))
				rc = JH_ERR_NOMEM;
			else
				open[n_open++] = (open_region){at, mask};
		} else if (!strcmp(word, "jinghua-enable")) {
			size_t keep = 0;
			for (size_t i = 0; i < n_open && rc == JH_OK; i++) {
				open_region o = open[i];
				rc = skip_add(out, o.start, after, o.mask);
				if (rc == JH_OK && mask) { /* only some rules come back on: the rest stay off */
					unsigned char *rest_mask = new_mask(out, nr);
					if (!rest_mask) {
						rc = JH_ERR_NOMEM;
						break;
					}
					int any = 0;
					for (size_t k = 0; k < nr; k++) {
						rest_mask[k] = (o.mask ? o.mask[k] : 1) && !mask[k];
						any |= rest_mask[k];
					}
					if (any)
						open[keep++] = (open_region){after, rest_mask};
				}
			}
			n_open = keep;
		} else if (!strcmp(word, "jinghua-disable-next-line") || !strcmp(word, "jinghua-disable-line")) {
			int next = word[16] == 'n';
			const char *ls = close + 3;
			const char *nl = memchr(ls, '\n', (size_t)(end - ls));
			size_t a, b;
			if (next) {
				a = nl ? (size_t)(nl - text) + 1 : len;
				const char *nl2 = a < len ? memchr(text + a, '\n', len - a) : NULL;
				b = nl2 ? (size_t)(nl2 - text) + 1 : len;
			} else {
				a = at;
				while (a > 0 && text[a - 1] != '\n')
					a--;
				b = nl ? (size_t)(nl - text) + 1 : len;
			}
			rc = skip_add(out, a, b, mask);
		} else {
			warn(an, line_of(text, at), "unknown switch '%s' (jinghua-disable, jinghua-enable, "
			     "jinghua-disable-next-line, jinghua-disable-line)", word);
		}
		free(body);
		p = close + 3;
	}
	for (size_t i = 0; i < n_open && rc == JH_OK; i++)
		rc = skip_add(out, open[i].start, len + 1, open[i].mask);
	free(open);
	if (rc == JH_OK && out->n > 1) /* v is NULL when empty: not for qsort */
		qsort(out->v, out->n, sizeof *out->v, cmp_skip);
	return rc;
}

/* Which kinds of segment does [s, e) touch (a bit per seg_kind)? */
static unsigned touches(const md_prose *m, size_t s, size_t e)
{
	unsigned k = 0;
	if (e == s) { /* a point sits between characters: prose unless strictly
	               * inside code (a space inserted into `print("你好")`) */
		for (size_t i = 0; i < m->n_segs && m->segs[i].c < s; i++)
			if (m->segs[i].kind != SEG_PROSE && s < m->segs[i].c + m->segs[i].len)
				return 1u << m->segs[i].kind;
		return 1u << SEG_PROSE;
	}
	for (size_t i = 0; i < m->n_segs; i++) {
		const md_seg *g = &m->segs[i];
		if (g->c >= e)
			break;
		if (g->c + g->len > s)
			k |= 1u << g->kind;
	}
	return k;
}

/* An edit that keeps the bytes at its ends (`print`即 → the t of the code
 * replaced by "t "): reduced to what it changes, when that is prose alone
 * (a space after the code span).  Returns the kinds the reduced edit
 * touches; the edit is rewritten only when that is prose. */
static void edit_trim(const md_prose *m, const jh_edit *e, size_t *pi, size_t *pj)
{
	size_t s = e->byte_start, t = e->byte_end;
	const char *r = e->replacement;
	size_t rl = r ? strlen(r) : 0, i = 0, j = 0;
	while (s + i < t && i < rl && m->text[s + i] == r[i])
		i++;
	while (t - j > s + i && rl - j > i && m->text[t - 1 - j] == r[rl - 1 - j])
		j++;
	*pi = i;
	*pj = j;
}

/* Is the edit, reduced, an insertion between two segments (C → "C " at
 * the end of <kbd>C</kbd>)?  Then where it goes is map_point_ok's. */
static int shrinks_to_edge(const md_prose *m, const jh_edit *e)
{
	size_t i, j;
	if (e->byte_start == e->byte_end || !e->replacement)
		return 0;
	edit_trim(m, e, &i, &j);
	size_t c = e->byte_start + i;
	if (c != e->byte_end - j || !m->n_segs)
		return 0;
	size_t k = md_seg_at(m, c);
	return k > 0 && m->segs[k].c == c;
}

static unsigned shrink_edit(const md_prose *m, jh_edit *e)
{
	size_t s = e->byte_start, t = e->byte_end;
	char *r = e->replacement ? e->replacement : NULL;
	size_t rl = r ? strlen(r) : 0, i, j;
	edit_trim(m, e, &i, &j);
	unsigned k = touches(m, s + i, t - j);
	if (k == (1u << SEG_PROSE)) {
		e->byte_start = s + i;
		e->byte_end = t - j;
		if (r) {
			r[rl - j] = '\0'; /* the list owns its replacement strings */
			e->replacement = r + i;
		}
	}
	return k;
}

/* A point between segments goes to the prose side, outside the markup
 * between them: after closing markup, before opening markup
 * (<kbd>C</kbd>复制: after </kbd>).  -1 when no place is sure. */
static int map_point_ok(const md_prose *m, size_t c, size_t *at)
{
	return md_point_to_doc(m, c, at);
}

static size_t map_point(const md_prose *m, size_t c)
{
	size_t at;
	if (map_point_ok(m, c, &at) == 0)
		return at;
	return md_to_doc(m, c, 1);
}

/* Edits on the prose → edits on the document; 0 when one cannot be made
 * there (it touches code or markup, or markup lies inside it). */
static int map_edits(const md_prose *m, jh_edit *edits, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		jh_edit *e = &edits[j];
		/* reduced to what it changes (C → "C " inserts after C), so an
		 * insertion at a segment's edge is placed by map_point_ok, outside
		 * the markup there, not inside an element before its closing tag */
		unsigned ek = touches(m, e->byte_start, e->byte_end);
		if (ek != (1u << SEG_PROSE) || shrinks_to_edge(m, e))
			ek = shrink_edit(m, e);
		if (ek != (1u << SEG_PROSE))
			return 0;
		size_t a;
		if (e->byte_start == e->byte_end) {
			if (map_point_ok(m, e->byte_start, &a) != 0)
				return 0;
		} else {
			a = md_to_doc(m, e->byte_start, 0);
		}
		size_t b = e->byte_start == e->byte_end ? a : md_to_doc(m, e->byte_end, 1);
		/* an edit must cover the same bytes in the document: no markup inside */
		if (b - a != e->byte_end - e->byte_start)
			return 0;
		e->byte_start = a;
		e->byte_end = b;
	}
	return 1;
}

static void widen(jh_finding *f, const jh_edit *e)
{
	if (e->byte_start < f->byte_start)
		f->byte_start = e->byte_start;
	if (e->byte_end > f->byte_end)
		f->byte_end = e->byte_end;
}

/* Findings on the prose → findings on the document. */
static void map_markdown(const md_prose *m, jh_findings *fs)
{
	size_t w = 0;
	for (size_t i = 0; i < fs->count; i++) {
		jh_finding *f = &fs->items[i];
		unsigned k = touches(m, f->byte_start, f->byte_end);
		if (k == (1u << SEG_CODE) && f->has_fix && f->n_edits == 1 &&
		    shrink_edit(m, &f->edits[0]) == (1u << SEG_PROSE)) {
			/* a space after `code`: the finding is where the edit is */
			f->byte_start = f->edits[0].byte_start;
			f->byte_end = f->edits[0].byte_end;
			k = 1u << SEG_PROSE;
		}
		if ((k & (1u << SEG_SYNTH)) || k == (1u << SEG_CODE) || !k) {
			continue; /* its strings stay in the list's store */
		}
		if (f->has_fix && !map_edits(m, f->edits, f->n_edits))
			jh_finding_drop_fix(f);
		size_t na = 0; /* the alternatives that map whole */
		for (size_t j = 0; j < f->n_alternatives; j++)
			if (map_edits(m, f->alternatives[j].edits, f->alternatives[j].n_edits))
				f->alternatives[na++] = f->alternatives[j];
		f->n_alternatives = na;
		if (f->byte_start == f->byte_end) {
			f->byte_start = f->byte_end = map_point(m, f->byte_start);
		} else {
			f->byte_start = md_to_doc(m, f->byte_start, 0);
			f->byte_end = md_to_doc(m, f->byte_end, 1);
			if (f->byte_end < f->byte_start)
				f->byte_end = f->byte_start;
		}
		/* an insertion placed past the markup at the finding's edge
		 * (<kbd>C</kbd>复制: after </kbd>) widens the finding to it, as
		 * the fixer applies only edits inside their finding */
		for (size_t j = 0; f->has_fix && j < f->n_edits; j++)
			widen(f, &f->edits[j]);
		for (size_t j = 0; j < f->n_alternatives; j++)
			for (size_t q = 0; q < f->alternatives[j].n_edits; q++)
				widen(f, &f->alternatives[j].edits[q]);
		fs->items[w++] = *f;
	}
	fs->count = w;
}

static int line_allowed(const analysis *a, size_t first, size_t last)
{
	if (!a->lines)
		return 1;
	for (size_t i = 0; i < a->n_pairs; i++)
		if (a->lines[2 * i] <= last && a->lines[2 * i + 1] >= first)
			return 1;
	return 0;
}

static int analyze(const analysis *a, const char *text, size_t len, jh_findings *out)
{
	const jh_settings *fs = a->fs;
	md_prose md = {0};
	const char *ctext = text;
	size_t clen = len;
	if (a->markdown) {
		int mrc = markdown_prose(text, len, &md);
		if (mrc == JH_ERR_NOMEM)
			return mrc;
		if (mrc) {
			inform(a, "cannot parse as Markdown, checked as plain text");
		} else {
			ctext = md.text;
			clen = md.len;
		}
	}
	int is_md = ctext != text;
	skips sk = {0};
	if (find_switches(text, len, is_md ? &md : NULL, fs->ruleset, a, &sk)) {
		skips_free(&sk);
		md_prose_free(&md);
		return JH_ERR_NOMEM;
	}
	if (is_md)
		for (size_t i = 0; i < sk.n; i++) {
			sk.v[i].start = md_to_prose(&md, sk.v[i].start);
			sk.v[i].end = sk.v[i].end > len ? clen + 1 : md_to_prose(&md, sk.v[i].end);
		}
	jh_check_options co = JH_CHECK_OPTIONS_INIT;
	co.enabled = a->enabled ? a->enabled : fs->enabled;
	co.severity = fs->severity;
	co.file = a->name;
	co.diag_fn = a->diag_fn;
	co.payload = a->payload;
	co.skip = sk.v;
	co.n_skip = sk.n;
	co.accept = fs->accept;
	co.n_accept = fs->n_accept;
	co.variant = fs->variant;
	co.cancel = a->cancel;
	co.cancel_payload = a->cancel_payload;
	size_t first = out->count;
	int rc = jh_check(fs->ruleset, ctext, clen, &co, out);
	skips_free(&sk);
	if (rc == JH_OK && is_md && out->count > first) { /* items may be NULL when none */
		jh_findings tail = {out->items + first, out->count - first, out->count - first};
		map_markdown(&md, &tail);
		out->count = first + tail.count;
		jh_findings_locate(&tail, text, len);
	}
	md_prose_free(&md);
	if (rc == JH_OK && a->lines) {
		size_t w = first;
		for (size_t i = first; i < out->count; i++) {
			jh_finding *f = &out->items[i];
			if (line_allowed(a, f->line, f->end_line))
				out->items[w++] = *f;
			/* else dropped: its strings stay in the list's store */
		}
		out->count = w;
	}
	return rc;
}

/* Findings on 0xFF markers of a decoded file: say what they are. */
static int relabel_undecodable(jh_findings *fs, const decoded *d)
{
	if (d->utf8)
		return JH_OK;
	for (size_t i = 0; i < fs->count; i++) {
		jh_finding *f = &fs->items[i];
		if (strcmp(f->rule_id, "encoding.invalid-utf8"))
			continue;
		char msg[200];
		int n = snprintf(msg, sizeof msg, "无法按 %s 解码的字节（原样保留）：", d->name);
		size_t a = decoded_orig_offset(d, f->byte_start), b = decoded_orig_offset(d, f->byte_end);
		for (size_t k = a; k < b && k < a + 12 && n < (int)sizeof msg - 4; k++)
			n += snprintf(msg + n, sizeof msg - (size_t)n, " %02X", (unsigned char)d->src[k]);
		if (jh_finding_set_message(fs, f, msg))
			return JH_ERR_NOMEM;
		f->rule_id = "encoding.undecodable";
	}
	return JH_OK;
}

/* ---- fixing to a fixed point ---- */

/* A fix round's check: the document's analysis with the round's rules. */
static int analyze_with(void *ctx, const unsigned char *sel, const char *text, size_t len,
                        jh_findings *out)
{
	analysis fa = *(const analysis *)ctx;
	fa.enabled = sel;
	return analyze(&fa, text, len, out);
}

/* Check and apply until the text stops changing (jh_fix_rounds).  *out is
 * the fixed text (malloc'd), or NULL when no round changed it.  Rules left
 * out because their fixes did not settle are reported as a warning. */
static int fix_loop(const analysis *a, int unsafe, const char *text, size_t len, char **out,
                    size_t *out_len, jh_fix_report *rep)
{
	memset(rep, 0, sizeof *rep);
	*out = NULL;
	*out_len = len;
	/* the rounds check only the rules that can give an edit */
	const jh_ruleset *rs = a->fs->ruleset;
	size_t n = jh_ruleset_count(rs);
	unsigned char *sel = malloc(n + 1);
	if (!sel)
		return JH_ERR_NOMEM;
	if (a->fs->enabled)
		memcpy(sel, a->fs->enabled, n);
	else
		jh_ruleset_default_selection(rs, sel);
	jh_selection_for_fix(rs, sel, unsafe);
	int rc = jh_fix_rounds(analyze_with, (void *)a, sel, n, unsafe, text, len, out, out_len, rep);
	free(sel);
	if (rc == JH_OK && rep->converged && rep->unstable_rules[0])
		warn(a, 0, "fixes of %s did not settle after %u rounds; left out (their findings stay)",
		     rep->unstable_rules, JH_FIX_MAX_ROUNDS);
	return rc;
}

/* ---- the public calls ---- */

struct jh_document {
	decoded dec;            /* the input (its text may be the input's bytes) */
	decoded after;          /* the fixed bytes, decoded again (a file not in UTF-8) */
	const decoded *map;     /* offsets in the file's bytes: &dec, &after, or NULL (the same) */
	int markdown;
	int fixing;
	jh_findings findings;
	const char *text;       /* what the findings point into */
	size_t text_len;
	char *fixed_text;       /* the text after fixing, when a round changed it */
	char *bytes;            /* the fixed text encoded back (not UTF-8) */
	const char *out;        /* the fixed bytes given, or NULL */
	size_t out_len;
	jh_fix_report report;
	char problem[384];
};

static int is_markdown(const jh_document_options *o)
{
	jh_doc_type t = o->type != JH_DOC_AUTO ? o->type : o->settings->type;
	return t == JH_DOC_MARKDOWN || (t == JH_DOC_AUTO && o->name && is_markdown_name(o->name));
}

static analysis analysis_for(const jh_document_options *o, jh_document *d)
{
	analysis a = {o->settings, o->name, d->markdown, o->diag_fn, o->payload, o->cancel,
	              o->cancel_payload, o->lines, o->n_line_pairs, NULL};
	return a;
}

/* Decode the bytes and set up the document; JH_ERR_ENCODING for an
 * encoding name iconv does not know. */
static int open_document(const char *bytes, size_t len, const jh_document_options *o,
                         jh_document **out)
{
	*out = NULL;
	if (!o || !o->settings || !o->settings->ruleset || (!bytes && len))
		return JH_ERR_ARG;
	jh_document *d = calloc(1, sizeof *d);
	if (!d)
		return JH_ERR_NOMEM;
	const char *want = o->encoding ? o->encoding : o->settings->encoding;
	char err[200];
	int rc = decode_text(bytes ? bytes : "", len, want, &d->dec, err, sizeof err);
	if (rc) {
		free(d);
		if (rc == JH_ERR_NOMEM)
			return rc;
		if (o->diag_fn) {
			jh_diag dg = {JH_ERROR, o->name, 0, 0, NULL, err};
			o->diag_fn(&dg, o->payload);
		}
		return JH_ERR_ENCODING;
	}
	if (d->dec.detect_problem && o->diag_fn) { /* read as UTF-8 all the same */
		jh_diag dg = {JH_WARNING, o->name, 0, 0, NULL, d->dec.detect_problem};
		o->diag_fn(&dg, o->payload);
	}
	d->markdown = is_markdown(o);
	d->map = &d->dec;
	*out = d;
	return JH_OK;
}

/* Check text into the document's findings, which point into it; map gives
 * offsets in the file's bytes. */
static int check_into(jh_document *d, const analysis *a, const char *text, size_t len,
                      const decoded *map)
{
	int rc = analyze(a, text, len, &d->findings);
	if (rc == JH_OK)
		rc = relabel_undecodable(&d->findings, map ? map : &d->dec);
	if (rc) {
		jh_findings_clear(&d->findings);
		return rc;
	}
	d->text = text;
	d->text_len = len;
	d->map = map;
	return JH_OK;
}

int jh_document_check(const char *bytes, size_t len, const jh_document_options *o,
                      jh_document **out)
{
	jh_document *d;
	int rc = open_document(bytes, len, o, &d);
	if (rc)
		return rc;
	analysis a = analysis_for(o, d);
	rc = check_into(d, &a, d->dec.text, d->dec.len, &d->dec);
	if (rc) {
		jh_document_free(d);
		return rc;
	}
	*out = d;
	return JH_OK;
}

/* The fixed text → the bytes to give, or a problem (then none are given). */
static int encode_fixed(jh_document *d, const jh_document_options *o, const char *ftext,
                        size_t flen)
{
	decoded *dec = &d->dec;
	int convert = o->to_utf8 && !dec->utf8;
	if (!d->report.converged) {
		snprintf(d->problem, sizeof d->problem,
		         "fixes did not settle after %u rounds (still changing: %s); not changed",
		         JH_FIX_MAX_ROUNDS, d->report.unstable_rules[0] ? d->report.unstable_rules : "?");
		return JH_OK;
	}
	if (convert && dec->n_bad) {
		snprintf(d->problem, sizeof d->problem,
		         "%zu byte%s cannot be decoded as %s; not converted to UTF-8", dec->n_bad,
		         dec->n_bad == 1 ? "" : "s", dec->name);
		return JH_OK;
	}
	if (dec->utf8 || convert) {
		size_t skip = convert && flen >= 3 && !memcmp(ftext, "\xEF\xBB\xBF", 3) ? 3 : 0;
		d->out = ftext + skip;
		d->out_len = flen - skip;
		return JH_OK;
	}
	if (!d->fixed_text) { /* nothing changed: the file as it is */
		d->out = dec->src;
		d->out_len = dec->src_len;
		return JH_OK;
	}
	char emsg[200];
	int lossless = decoded_lossless(dec), rc = 0;
	if (lossless < 0)
		return lossless;
	if (!lossless) {
		snprintf(d->problem, sizeof d->problem,
		         "this %s file would not be written back byte for byte; not changed (use --to-utf8)",
		         dec->name);
	} else if ((rc = encode_text(dec, ftext, flen, &d->bytes, &d->out_len, emsg, sizeof emsg))) {
		if (rc == JH_ERR_NOMEM)
			return rc;
		snprintf(d->problem, sizeof d->problem, "%s; not changed (use --to-utf8)", emsg);
	} else {
		d->out = d->bytes;
	}
	return JH_OK;
}

int jh_document_fix(const char *bytes, size_t len, const jh_document_options *o,
                    jh_document **out)
{
	jh_document *d;
	int rc = open_document(bytes, len, o, &d);
	if (rc)
		return rc;
	d->fixing = 1;
	analysis a = analysis_for(o, d);
	size_t flen = 0;
	rc = fix_loop(&a, o->unsafe, d->dec.text, d->dec.len, &d->fixed_text, &flen, &d->report);
	if (rc == JH_OK)
		rc = encode_fixed(d, o, d->fixed_text ? d->fixed_text : d->dec.text,
		                  d->fixed_text ? flen : d->dec.len);
	if (rc == JH_OK) {
		/* What is left is reported: in the text that will be written, with
		 * offsets in its bytes; with no bytes to write, in the file as it is. */
		if (!d->out) {
			free(d->fixed_text);
			d->fixed_text = NULL;
			rc = check_into(d, &a, d->dec.text, d->dec.len, &d->dec);
		} else {
			const char *ftext = d->fixed_text ? d->fixed_text : d->dec.text;
			size_t fl = d->fixed_text ? flen : d->dec.len;
			const decoded *map = NULL;
			char emsg[200];
			if (d->dec.utf8) {
				map = &d->dec; /* offsets are the text's */
			} else if (!o->to_utf8) {
				rc = decode_text(d->out, d->out_len, d->dec.name, &d->after, emsg, sizeof emsg);
				if (rc == JH_OK)
					map = &d->after;
				else if (rc != JH_ERR_NOMEM)
					rc = JH_OK; /* the bytes are the text's encoding: cannot happen */
			}
			if (rc == JH_OK)
				rc = check_into(d, &a, ftext, fl, map);
		}
	}
	if (rc) {
		jh_document_free(d);
		return rc;
	}
	*out = d;
	return JH_OK;
}

void jh_document_free(jh_document *d)
{
	if (!d)
		return;
	jh_findings_clear(&d->findings);
	decoded_free(&d->dec);
	decoded_free(&d->after);
	free(d->fixed_text);
	free(d->bytes);
	free(d);
}

const jh_findings *jh_document_findings(const jh_document *d)
{
	return &d->findings;
}

const char *jh_document_text(const jh_document *d, size_t *len)
{
	if (len)
		*len = d->text_len;
	return d->text;
}

const char *jh_document_original_text(const jh_document *d, size_t *len)
{
	if (len)
		*len = d->dec.len;
	return d->dec.text;
}

size_t jh_document_file_offset(const jh_document *d, size_t pos)
{
	return d->map && !d->map->utf8 ? decoded_orig_offset(d->map, pos) : pos;
}

const char *jh_document_encoding(const jh_document *d)
{
	return d->dec.name;
}

size_t jh_document_undecodable(const jh_document *d)
{
	return d->dec.n_bad;
}

int jh_document_is_markdown(const jh_document *d)
{
	return d->markdown;
}

const char *jh_document_fixed(const jh_document *d, size_t *len, jh_fix_report *report)
{
	if (report) { /* version 1's fields: every version has them */
		unsigned version = report->version;
		*report = d->report;
		report->version = version;
	}
	if (len)
		*len = d->out ? d->out_len : 0;
	return d->out;
}

const char *jh_document_problem(const jh_document *d)
{
	return d->problem[0] ? d->problem : NULL;
}
