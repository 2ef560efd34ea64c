/* document.c — one input from its bytes to findings and fixed bytes.
 *
 *   bytes ─decode─▶ text (UTF-8) ─Markdown?─▶ prose ─jh_check─▶ findings
 *                                                       │ (inline switches, accepted
 *                                                       │  words: dropped by the engine)
 *   findings ◀─back to the text─┘ ◀── Markdown segment map
 *
 * Fixing repeats check → apply on the text (never on the prose) until the
 * text stops changing, so code and markup are never rewritten; the result is
 * encoded back into the file's encoding.  The result keeps the findings and
 * the text they point into; its report is printed from them later, in input
 * order (see pool.c, report.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* ---- diagnostics from the engine, into the result's error buffer ---- */

static void diag_to(const jh_diag *d, void *payload)
{
	FILE *err = payload;
	fprintf(err, "jinghua: ");
	if (d->file) {
		fputs(d->file, err);
		if (d->line)
			fprintf(err, ":%u", d->line);
		fputs(": ", err);
	}
	fprintf(err, "%s: ", d->severity == JH_ERROR ? "error" : "warning");
	if (d->rule_id)
		fprintf(err, "[%s] ", d->rule_id);
	fprintf(err, "%s\n", d->message);
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

static void skip_add(skips *s, size_t a, size_t b, const unsigned char *mask)
{
	if (b <= a)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = (jh_skip){a, b, mask};
}

static unsigned char *new_mask(skips *s, size_t n)
{
	unsigned char *m = calloc(n ? n : 1, 1);
	if (!m)
		abort();
	s->masks = xrealloc(s->masks, (s->n_masks + 1) * sizeof *s->masks);
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

/* Find the switches in text; ranges are in text offsets. */
static void find_switches(const char *text, size_t len, const md_prose *md, const jh_ruleset *rs,
                          const char *name, FILE *err, skips *out)
{
	size_t nr = jh_ruleset_count(rs);
	open_region *open = NULL;
	size_t n_open = 0;
	const char *p = text, *end = text + len;
	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
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
		char *body = xstrndup(q, (size_t)(close - q));
		char *word = body, *rest = body + strcspn(body, " \t\r\n");
		if (*rest)
			*rest++ = '\0';
		rest += strspn(rest, " \t\r\n");
		for (size_t k = strlen(rest); k && strchr(" \t\r\n", rest[k - 1]); k--)
			rest[k - 1] = '\0';
		unsigned char *mask = NULL;
		if (*rest) {
			char bad[128];
			mask = new_mask(out, nr);
			if (jh_selection_apply(rs, mask, rest, 1, bad, sizeof bad))
				fprintf(err, "jinghua: %s:%zu: warning: %s: no rule or family '%s'\n", name,
				        line_of(text, at), word, bad);
		}
		if (!strcmp(word, "jinghua-disable")) {
			open = xrealloc(open, (n_open + 1) * sizeof *open);
			open[n_open++] = (open_region){at, mask};
		} else if (!strcmp(word, "jinghua-enable")) {
			size_t keep = 0;
			for (size_t i = 0; i < n_open; i++) {
				open_region o = open[i];
				skip_add(out, o.start, after, o.mask);
				if (mask) { /* only some rules come back on: the rest stay off */
					unsigned char *rest_mask = new_mask(out, nr);
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
			skip_add(out, a, b, mask);
		} else {
			fprintf(err, "jinghua: %s:%zu: warning: unknown switch '%s' (jinghua-disable, "
			             "jinghua-enable, jinghua-disable-next-line, jinghua-disable-line)\n",
			        name, line_of(text, at), word);
		}
		free(body);
		p = close + 3;
	}
	for (size_t i = 0; i < n_open; i++)
		skip_add(out, open[i].start, len + 1, open[i].mask);
	free(open);
	if (out->n > 1) /* v is NULL when empty: not for qsort */
		qsort(out->v, out->n, sizeof *out->v, cmp_skip);
}

/* ---- one analysis: text → findings in text offsets ---- */

typedef struct {
	const file_settings *fs;
	const char *name;
	int markdown;
	FILE *err;
	/* --diff-base: lines that may be reported */
	const size_t *lines;
	size_t n_pairs;
	int all_lines;
	int use_lines;
	const unsigned char *enabled; /* NULL: the file's selection (fs->enabled) */
} analysis;

/* Which kinds of segment does [s, e) touch (a bit per seg_kind)? */
static unsigned touches(const md_prose *m, size_t s, size_t e)
{
	unsigned k = 0;
	if (e == s) { /* a point touches nothing: it sits between characters */
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

/* A point between segments goes to the prose side. */
static size_t map_point(const md_prose *m, size_t c)
{
	size_t lo = 0, hi = m->n_segs;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (m->segs[mid].c <= c)
			lo = mid;
		else
			hi = mid;
	}
	if (m->n_segs && m->segs[lo].c == c && lo > 0 && m->segs[lo - 1].kind == SEG_PROSE)
		return md_to_doc(m, c, 1);
	return md_to_doc(m, c, 0);
}

/* Findings on the prose → findings on the document. */
static void map_markdown(const md_prose *m, jh_findings *fs)
{
	size_t w = 0;
	for (size_t i = 0; i < fs->count; i++) {
		jh_finding *f = &fs->items[i];
		unsigned k = touches(m, f->byte_start, f->byte_end);
		if ((k & (1u << SEG_SYNTH)) || k == (1u << SEG_CODE) || !k) {
			continue; /* its strings stay in the list's store */
		}
		int fix_ok = f->has_fix;
		for (size_t j = 0; j < f->n_edits && fix_ok; j++) {
			jh_edit *e = &f->edits[j];
			unsigned ek = touches(m, e->byte_start, e->byte_end);
			if (ek != (1u << SEG_PROSE)) {
				fix_ok = 0;
				break;
			}
			size_t a = e->byte_start == e->byte_end ? map_point(m, e->byte_start)
			                                        : md_to_doc(m, e->byte_start, 0);
			size_t b = e->byte_start == e->byte_end ? a : md_to_doc(m, e->byte_end, 1);
			/* an edit must cover the same bytes in the document: no markup inside */
			if (b - a != e->byte_end - e->byte_start) {
				fix_ok = 0;
				break;
			}
			e->byte_start = a;
			e->byte_end = b;
		}
		if (f->has_fix && !fix_ok)
			jh_finding_drop_fix(f);
		if (f->byte_start == f->byte_end) {
			f->byte_start = f->byte_end = map_point(m, f->byte_start);
		} else {
			f->byte_start = md_to_doc(m, f->byte_start, 0);
			f->byte_end = md_to_doc(m, f->byte_end, 1);
			if (f->byte_end < f->byte_start)
				f->byte_end = f->byte_start;
		}
		fs->items[w++] = *f;
	}
	fs->count = w;
}

static int line_allowed(const analysis *a, size_t first, size_t last)
{
	if (!a->use_lines || a->all_lines)
		return 1;
	for (size_t i = 0; i < a->n_pairs; i++)
		if (a->lines[2 * i] <= last && a->lines[2 * i + 1] >= first)
			return 1;
	return 0;
}

static int analyze(const analysis *a, const char *text, size_t len, jh_findings *out)
{
	const file_settings *fs = a->fs;
	md_prose md = {0};
	const char *ctext = text;
	size_t clen = len;
	if (a->markdown) {
		if (markdown_prose(text, len, &md)) {
			fprintf(a->err, "jinghua: %s: cannot parse as Markdown, checked as plain text\n",
			        a->name);
		} else {
			ctext = md.text;
			clen = md.len;
		}
	}
	int is_md = ctext != text;
	skips sk = {0};
	find_switches(text, len, is_md ? &md : NULL, fs->rs, a->name, a->err, &sk);
	if (is_md)
		for (size_t i = 0; i < sk.n; i++) {
			sk.v[i].start = md_to_prose(&md, sk.v[i].start);
			sk.v[i].end = sk.v[i].end > len ? clen + 1 : md_to_prose(&md, sk.v[i].end);
		}
	jh_check_options co = {0};
	co.enabled = a->enabled ? a->enabled : fs->enabled;
	co.severity = fs->severity;
	co.file = a->name;
	co.diag_fn = diag_to;
	co.payload = a->err;
	co.skip = sk.v;
	co.n_skip = sk.n;
	co.accept = fs->accept;
	co.n_accept = fs->n_accept;
	co.variant = fs->variant;
	size_t first = out->count;
	int rc = jh_check(fs->rs, ctext, clen, &co, out);
	skips_free(&sk);
	if (rc == JH_OK && is_md && out->count > first) { /* items may be NULL when none */
		jh_findings tail = {out->items + first, out->count - first, out->count - first};
		map_markdown(&md, &tail);
		out->count = first + tail.count;
		jh_findings_locate(&tail, text, len);
	}
	md_prose_free(&md);
	if (rc == JH_OK && a->use_lines && !a->all_lines) {
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
static void relabel_undecodable(jh_findings *fs, const decoded *d)
{
	if (d->utf8)
		return;
	for (size_t i = 0; i < fs->count; i++) {
		jh_finding *f = &fs->items[i];
		if (strcmp(f->rule_id, "encoding.invalid-utf8"))
			continue;
		char msg[200];
		int n = snprintf(msg, sizeof msg, "无法按 %s 解码的字节（原样保留）：", d->name);
		size_t a = decoded_orig_offset(d, f->byte_start), b = decoded_orig_offset(d, f->byte_end);
		for (size_t k = a; k < b && k < a + 12 && n < (int)sizeof msg - 4; k++)
			n += snprintf(msg + n, sizeof msg - (size_t)n, " %02X", (unsigned char)d->src[k]);
		if (jh_finding_set_message(fs, f, msg)) {
			fputs("jinghua: out of memory\n", stderr);
			exit(EXIT_IO);
		}
		f->rule_id = "encoding.undecodable";
	}
}

static int over_threshold(const jh_findings *fs, int fail_on)
{
	for (size_t i = 0; i < fs->count; i++)
		if ((int)fs->items[i].severity >= fail_on)
			return 1;
	return 0;
}

/* ---- what a result owns until its turn to be printed ---- */

/* The result takes over buffer *p (NULL is fine). */
static void own(doc_result *res, char **p)
{
	if (!*p)
		return;
	for (size_t i = 0; i < sizeof res->own / sizeof *res->own; i++)
		if (!res->own[i]) {
			res->own[i] = *p;
			*p = NULL;
			return;
		}
	abort(); /* more buffers than a result holds: a bug here */
}

static void free_held(doc_result *r)
{
	for (size_t i = 0; i < sizeof r->own / sizeof *r->own; i++) {
		free(r->own[i]);
		r->own[i] = NULL;
	}
	decoded_free(&r->dec[0]);
	decoded_free(&r->dec[1]);
}

/* Texts nothing will print are freed now, not when the result's turn
 * comes: with -j N, results wait for the files before them. */
static void drop_unneeded(doc_result *res, const run_opts *ro)
{
	if (res->text || res->diff_a || report_prints(ro->rep, &res->findings))
		return;
	free_held(res);
	res->doc.text = NULL;
	res->doc.len = 0;
	res->doc.enc = NULL;
}

void doc_result_free(doc_result *r)
{
	free_held(r);
	free(r->err);
	free(r->report);
	jh_findings_clear(&r->findings);
	memset(r, 0, sizeof *r);
}

/* The findings point into text; enc gives offsets in the file (a file
 * not in UTF-8), or is NULL. */
static void set_report(doc_result *res, const char *text, size_t len, const decoded *enc)
{
	res->doc.text = text;
	res->doc.len = len;
	res->doc.enc = enc && !enc->utf8 ? enc : NULL;
}

/* ---- fixing ---- */

typedef struct {
	unsigned rounds;
	size_t applied;
	int converged;
} fix_stats;

/* Check and apply until the text stops changing.  *out is the fixed text
 * (malloc'd), or NULL when no round changed it: text is the result.  orig,
 * when given, is the buffer text lives in; it is freed (set to NULL) as
 * soon as a round has replaced the text, so that a file is held twice
 * while it is fixed, not three times. */
static int fix_loop(const analysis *a, int unsafe, const char *text, size_t len, char **orig,
                    char **out, size_t *out_len, fix_stats *st)
{
	const char *cur = text;
	char *owned = NULL; /* cur, once a round has changed the text */
	size_t cur_len = len;
	memset(st, 0, sizeof *st);
	*out = NULL;
	*out_len = 0;
	/* the rounds check only the rules that can give an edit */
	const jh_ruleset *rs = a->fs->rs;
	unsigned char *sel = xmalloc(jh_ruleset_count(rs) + 1);
	if (a->fs->enabled)
		memcpy(sel, a->fs->enabled, jh_ruleset_count(rs));
	else
		jh_ruleset_default_selection(rs, sel);
	jh_selection_for_fix(rs, sel, unsafe);
	analysis fa = *a;
	fa.enabled = sel;
	a = &fa;
	for (unsigned round = 0; round <= JH_FIX_MAX_ROUNDS; round++) {
		jh_findings fs = JH_FINDINGS_INIT;
		int rc = analyze(a, cur, cur_len, &fs);
		char *next = NULL;
		size_t next_len = 0, applied = 0;
		if (rc == JH_OK) /* the messages are a few strings in the list's store */
			rc = jh_apply_fixes(cur, cur_len, &fs, unsafe, &next, &next_len, &applied);
		jh_findings_clear(&fs);
		if (rc) {
			free(owned);
			free(sel);
			return rc;
		}
		int changed = applied && (next_len != cur_len || memcmp(next, cur, cur_len) != 0);
		if (!changed) {
			free(next);
			st->converged = 1;
			break;
		}
		if (round == JH_FIX_MAX_ROUNDS) { /* still changing: keep the last stable text */
			free(next);
			break;
		}
		st->rounds = round + 1;
		st->applied += applied;
		if (owned) {
			free(owned);
		} else if (orig) {
			free(*orig);
			*orig = NULL;
		}
		cur = owned = next;
		cur_len = next_len;
	}
	free(sel);
	*out = owned;
	*out_len = owned ? cur_len : len;
	return JH_OK;
}

int check_text(const file_settings *fs, const char *name, const char *text, size_t len,
               int unsafe, int fix, char **fixed, size_t *fixed_len, size_t *n_fixes,
               jh_findings *out, FILE *err)
{
	analysis a = {fs, name, fs->type == TYPE_MARKDOWN, err, NULL, 0, 0, 0};
	if (!fix)
		return analyze(&a, text, len, out);
	fix_stats st;
	int rc = fix_loop(&a, unsafe, text, len, NULL, fixed, fixed_len, &st);
	if (rc)
		return rc;
	if (!*fixed) /* unchanged: the caller gets its own copy all the same */
		*fixed = xstrndup(text, len);
	*n_fixes = st.applied;
	return analyze(&a, *fixed, *fixed_len, out);
}

static char *take_stream(FILE *f, char **buf, size_t *len)
{
	fclose(f);
	if (!*len) {
		free(*buf);
		*buf = NULL;
	}
	return *buf;
}

/* ---- one input: check ---- */

static void check_one(const analysis *a, const file_settings *fs, doc_result *res)
{
	decoded *dec = &res->dec[0];
	int rc = analyze(a, dec->text, dec->len, &res->findings);
	if (rc) {
		fprintf(a->err, "jinghua: %s: %s\n", a->name, jh_strerror(rc));
		res->io_error = 1;
		jh_findings_clear(&res->findings); /* not printed, not counted */
		return;
	}
	relabel_undecodable(&res->findings, dec);
	set_report(res, dec->text, dec->len, dec);
	res->over = over_threshold(&res->findings, fs->fail_on);
}

/* ---- one input: fix, fix --diff, fix --stdout ---- */

/* Did fixing change the file?  out is what would be written.  When the
 * original is gone (freed after the first round that rewrote it), a fix
 * that settled differs from it: the original was no fixed point of a
 * round.  One that did not settle may have come back to it: the file on
 * disk says. */
static int file_changed(const file_data *fd, const char *path, const fix_stats *st,
                        const char *out, size_t out_len)
{
	if (fd->data)
		return out_len != fd->len || memcmp(out, fd->data, fd->len) != 0;
	return st->converged || !path || !file_holds(path, out, out_len);
}

static void say_fixed(const analysis *a, const run_opts *ro, const fix_stats *st, int convert,
                      const decoded *dec)
{
	if (st->applied)
		fprintf(a->err, "jinghua: %s: %zu fix%s %s%s\n", a->name, st->applied,
		        st->applied == 1 ? "" : "es", ro->mode == MODE_DIFF ? "proposed" : "applied",
		        convert ? ", converted to UTF-8" : "");
	else if (convert)
		fprintf(a->err, "jinghua: %s: %s converted to UTF-8\n", a->name, dec->name);
}

static void fix_one(const analysis *a, const run_opts *ro, const char *path, file_data *fd,
                    doc_result *res)
{
	FILE *err = a->err;
	const char *name = a->name;
	decoded *dec = &res->dec[0], *after = &res->dec[1];
	const char *text = dec->text;
	size_t tlen = dec->len;
	char *fixed = NULL, *bytes = NULL;
	size_t fixed_len = 0, bytes_len = 0;
	char emsg[200];
	/* a UTF-8 file's bytes are its text: once a round has rewritten it,
	 * only a diff needs them */
	char **orig = dec->utf8 && ro->mode != MODE_DIFF ? &fd->data : NULL;
	fix_stats st;
	int rc = fix_loop(a, ro->unsafe, text, tlen, orig, &fixed, &fixed_len, &st);
	if (rc) {
		fprintf(err, "jinghua: %s: %s\n", name, jh_strerror(rc));
		res->io_error = 1;
		return;
	}
	if (!st.converged)
		fprintf(err, "jinghua: %s: fixes did not settle after %u rounds\n", name, JH_FIX_MAX_ROUNDS);
	int convert = ro->to_utf8 && !dec->utf8;
	if (convert && dec->n_bad) {
		fprintf(err, "jinghua: %s: %zu byte%s cannot be decoded as %s; not converted to UTF-8\n",
		        name, dec->n_bad, dec->n_bad == 1 ? "" : "s", dec->name);
		res->io_error = 1;
		convert = 0;
		free(fixed); /* leave the file as it is */
		fixed = NULL;
		fixed_len = tlen;
	}
	/* text is valid here unless a round changed it (then fixed is set) */
	const char *ftext = fixed ? fixed : text;
	const char *out = fd->data;
	size_t out_len = fd->len;
	if (dec->utf8 || convert) {
		size_t skip = convert && fixed_len >= 3 && !memcmp(ftext, "\xEF\xBB\xBF", 3) ? 3 : 0;
		out = ftext + skip;
		out_len = fixed_len - skip;
	} else if (fixed_len == tlen && !memcmp(ftext, text, tlen)) {
		/* nothing changed: the file as it is */
	} else if (!decoded_lossless(dec)) {
		fprintf(err, "jinghua: %s: this %s file would not be written back byte for byte; "
		             "not changed (use --to-utf8)\n", name, dec->name);
		res->io_error = 1;
	} else if (encode_text(dec, ftext, fixed_len, &bytes, &bytes_len, emsg, sizeof emsg)) {
		fprintf(err, "jinghua: %s: %s; not changed (use --to-utf8)\n", name, emsg);
		res->io_error = 1;
	} else {
		out = bytes;
		out_len = bytes_len;
	}
	int changed = file_changed(fd, path, &st, out, out_len);
	int is_stdin = !path;
	if (ro->mode == MODE_STDOUT || (ro->mode == MODE_FIX && is_stdin)) {
		res->text = out;
		res->text_len = out_len;
	} else if (ro->mode == MODE_DIFF) {
		if (changed) {
			res->diff_a = text;
			res->diff_a_len = tlen;
			res->text = ftext;
			res->text_len = fixed_len;
		}
	} else if (changed) {
		const char *why;
		if (replace_file(path, fd, out, out_len, &why) != 0) {
			fprintf(err, "jinghua: %s: %s\n", name, why ? why : strerror(errno));
			res->io_error = 1;
		}
	}
	if (changed && !ro->quiet && ro->mode != MODE_STDOUT && !is_stdin)
		say_fixed(a, ro, &st, convert, dec);
	/* What is left after fixing is still reported, never hidden. */
	const decoded *adec = NULL;
	if (!dec->utf8 && !convert && !res->io_error &&
	    !decode_text(out, out_len, dec->name, after, emsg, sizeof emsg))
		adec = after;
	rc = analyze(a, ftext, fixed_len, &res->findings);
	if (rc == JH_OK) {
		relabel_undecodable(&res->findings, adec ? adec : dec);
		set_report(res, ftext, fixed_len, adec ? adec : convert ? NULL : dec);
		res->over = over_threshold(&res->findings, a->fs->fail_on);
	} else {
		jh_findings_clear(&res->findings);
	}
	own(res, &fixed);
	own(res, &bytes);
}

/* ---- one input, from its bytes ---- */

/* --diff-base: only lines changed since the base are reported.  Git is
 * asked only about files that have findings at all.  Returns 0, or -1
 * (reported) when git cannot say. */
static int diff_base_lines(analysis *a, const run_opts *ro, const char *path, const decoded *dec,
                           size_t **lines)
{
	jh_findings probe = JH_FINDINGS_INIT;
	int rc = 0;
	if (analyze(a, dec->text, dec->len, &probe) == JH_OK && probe.count) {
		int all = 0;
		size_t n = 0;
		if (git_changed_lines(ro->diff_base, path ? path : a->name, ro->staged, lines, &n, &all)) {
			fprintf(a->err, "jinghua: %s: cannot get the changes since %s\n", a->name,
			        ro->diff_base);
			rc = -1;
		}
		a->lines = *lines;
		a->n_pairs = n;
		a->all_lines = all;
	}
	a->use_lines = 1;
	if (!probe.count)
		a->all_lines = 1;
	jh_findings_clear(&probe);
	return rc;
}

void process_input(const file_settings *fs, const run_opts *ro, const char *name, const char *path,
                   char *data, size_t len, doc_result *res)
{
	memset(res, 0, sizeof *res);
	res->doc.name = name;
	FILE *err = open_memstream(&res->err, &res->err_len);
	file_data fd = {data, len, 0644, 0};
	decoded *dec = &res->dec[0];
	size_t *lines = NULL;
	if (!data) {
		if (read_input(path, &fd)) {
			fprintf(err, "jinghua: %s: %s\n", name, strerror(errno));
			res->io_error = 1;
			goto done;
		}
	}
	res->bytes = fd.len;
	if (fd.changed && ro->mode != MODE_FIX) /* fix refuses such a file when it writes */
		fprintf(err, "jinghua: %s: warning: changed while being read\n", name);
	if (looks_binary(fd.data, fd.len)) {
		/* A filter never swallows its input: what it will not fix goes
		 * through as it came. */
		if (ro->mode == MODE_STDOUT || (ro->mode == MODE_FIX && !path)) {
			fprintf(err, "jinghua: %s: binary file, passed through unchanged\n", name);
			res->text = fd.data;
			res->text_len = fd.len;
		} else {
			fprintf(err, "jinghua: %s: binary file, skipped\n", name);
		}
		goto done;
	}
	char emsg[200];
	if (decode_text(fd.data, fd.len, fs->encoding, dec, emsg, sizeof emsg)) {
		fprintf(err, "jinghua: %s: %s\n", name, emsg);
		res->io_error = 1;
		goto done;
	}
	const char *lookup = path ? path : name;
	analysis a = {fs, name, fs->type == TYPE_MARKDOWN ||
	                            (fs->type == TYPE_AUTO && is_markdown_name(lookup)),
	              err, NULL, 0, 0, 0};
	res->doc.rs = fs->rs;
	if (ro->diff_base && diff_base_lines(&a, ro, path, dec, &lines)) {
		res->io_error = 1;
		goto done;
	}
	if (ro->mode == MODE_CHECK)
		check_one(&a, fs, res);
	else
		fix_one(&a, ro, path, &fd, res);
done:
	take_stream(err, &res->err, &res->err_len);
	free(lines);
	own(res, &fd.data);
	drop_unneeded(res, ro);
}
