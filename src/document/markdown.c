/* markdown.c — the prose of a Markdown document, for the rules.
 *
 * md4c parses the document; its text callbacks point into our buffer, so
 * each piece of prose is known with its offset.  The rules see the prose
 * alone, markup removed (`**粗体**,` reads as `粗体,`), as a reader would;
 * a segment table maps every prose offset back to the document:
 *   SEG_PROSE  text of the document, may be fixed;
 *   SEG_CODE   inline code, autolinks, math: kept as context (spacing around
 *              `code` matters) but nothing in it is reported or fixed;
 *   SEG_SYNTH  what we made up: block breaks, entities; a finding that
 *              touches it is dropped.
 * Code blocks, raw HTML, link targets and front matter are not seen at all. */
#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "document.h"
#include "util.h"

typedef struct {
	md_prose *m;
	const char *doc;
	size_t len;
	int code_block;     /* inside a code block: nothing is prose */
	int code_span;
	size_t code_c0;     /* where the code span being read starts in the prose */
	int link_depth;
	size_t link_seg;    /* first segment of the link being read */
	char *href;         /* its target */
	int pending_soft;   /* a soft line break before the next text */
	int failed;
	/* the inline $…$ span being read: where its text starts in the prose
	 * and the document, where it ends, and how many segments came before */
	int math;
	int math_started;
	size_t math_c0, math_n, math_t0, math_t1;
} mdctx;

void md_prose_free(md_prose *m)
{
	free(m->text);
	free(m->segs);
	free(m->html);
	free(m->marks);
	memset(m, 0, sizeof *m);
}

int is_markdown_name(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || strchr(dot, '/'))
		return 0;
	return !strcasecmp(dot, ".md") || !strcasecmp(dot, ".markdown") || !strcasecmp(dot, ".mdown") ||
	       !strcasecmp(dot, ".mkd") || !strcasecmp(dot, ".mdx");
}

/* Code is context only (spacing around `code` matters), never checked:
 * its ASCII punctuation would look like prose to the rules (`*.txt` is no
 * censorship mask), so it reads as letters. */
static void neutralise(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80 && c != ' ' && !(c >= '0' && c <= '9') && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
			s[i] = 'x';
	}
}

static int add_seg(mdctx *x, const char *s, size_t n, size_t t, seg_kind kind)
{
	md_prose *m = x->m;
	if (!n)
		return 0;
	char *nt = realloc(m->text, m->len + n + 1);
	if (!nt)
		return -1;
	m->text = nt;
	memcpy(m->text + m->len, s, n);
	m->text[m->len + n] = '\0';
	if (kind == SEG_CODE)
		neutralise(m->text + m->len, n);
	md_seg *last = m->n_segs ? &m->segs[m->n_segs - 1] : NULL;
	if (last && last->kind == kind && kind != SEG_SYNTH && last->c + last->len == m->len &&
	    last->t + last->len == t) {
		last->len += n;
	} else {
		if (m->n_segs == m->cap_segs) {
			size_t nc = m->cap_segs ? m->cap_segs * 2 : 64;
			md_seg *ns = realloc(m->segs, nc * sizeof *ns);
			if (!ns)
				return -1;
			m->segs = ns;
			m->cap_segs = nc;
		}
		m->segs[m->n_segs++] = (md_seg){m->len, t, n, kind};
	}
	m->len += n;
	return 0;
}

/* Where a made-up piece sits in the document: after the last real text. */
static size_t anchor(const mdctx *x)
{
	const md_prose *m = x->m;
	for (size_t i = m->n_segs; i-- > 0;)
		if (m->segs[i].kind != SEG_SYNTH)
			return m->segs[i].t + m->segs[i].len;
	return m->n_segs ? m->segs[m->n_segs - 1].t : 0;
}

static void synth(mdctx *x, const char *s)
{
	if (add_seg(x, s, strlen(s), anchor(x), SEG_SYNTH))
		x->failed = 1;
}

static void block_break(mdctx *x)
{
	md_prose *m = x->m;
	x->pending_soft = 0;
	if (!m->len || (m->len >= 2 && m->text[m->len - 1] == '\n' && m->text[m->len - 2] == '\n'))
		return;
	synth(x, m->text[m->len - 1] == '\n' ? "\n" : "\n\n");
}

static int cb_enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	mdctx *x = ud;
	if (type == MD_BLOCK_CODE)
		x->code_block++;
	if (type != MD_BLOCK_DOC)
		block_break(x);
	return 0;
}

static int cb_leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	mdctx *x = ud;
	if (type == MD_BLOCK_CODE)
		x->code_block--;
	block_break(x);
	return 0;
}

static int ident_char(unsigned char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Is doc[t0-1 .. t1] (a $…$ span md4c found, $ included) maths?  pandoc's
 * tex_math_dollars rule: the opening $ has a non-space right after it, the
 * closing one a non-space right before it and no digit right after it
 * ($20，现价$15 is two prices).  And a $ followed by a shell variable or a
 * digit is that variable, never maths: a "closing" $ followed by a name,
 * digit or { starts one ($HOME和$USER), and an opening $ whose name or
 * number runs straight into Han text or full-width punctuation is one
 * ($HOME和…, $1和…, $20，…), not the start of a formula ($x$, $AB=CD$). */
static int math_span_ok(const char *doc, size_t len, size_t t0, size_t t1)
{
	if (t0 == 0 || t1 >= len || t1 <= t0 || doc[t0 - 1] != '$' || doc[t1] != '$')
		return 1; /* not the shape expected: leave md4c's reading */
	unsigned char first = (unsigned char)doc[t0], last = (unsigned char)doc[t1 - 1];
	if (first == ' ' || first == '\t' || first == '\n' || first == '\r' ||
	    last == ' ' || last == '\t' || last == '\n' || last == '\r')
		return 0;
	if (t1 + 1 < len) {
		unsigned char after = (unsigned char)doc[t1 + 1];
		if (ident_char(after) || after == '{')
			return 0;
	}
	size_t i = t0;
	if (doc[i] == '{') { /* ${name} */
		size_t j = i + 1;
		if (j < t1 && !(doc[j] >= '0' && doc[j] <= '9') && ident_char((unsigned char)doc[j])) {
			while (j < t1 && ident_char((unsigned char)doc[j]))
				j++;
			if (j < t1 && doc[j] == '}')
				return 0;
		}
		return 1;
	}
	if (ident_char((unsigned char)doc[i])) {
		while (i < t1 && ident_char((unsigned char)doc[i]))
			i++;
		if (i < t1 && (unsigned char)doc[i] >= 0x80)
			return 0;
	}
	return 1;
}

/* md4c's $…$ span turned out not to be maths: what was read as its text
 * (neutralised context) is read again from the document, dollars
 * included, as prose. */
static void unmath(mdctx *x)
{
	md_prose *m = x->m;
	m->len = x->math_c0;
	m->n_segs = x->math_n;
	if (m->text)
		m->text[m->len] = '\0';
	if (add_seg(x, x->doc + x->math_t0 - 1, x->math_t1 - x->math_t0 + 2, x->math_t0 - 1, SEG_PROSE))
		x->failed = 1;
}

/* A code span is one word to the spacing rules, spaced from the Han on both
 * sides or on neither: one that begins or ends in ASCII (`git提交`, read
 * neutralised as letters) reads as Latin at its other end too, so 执行`git提交`命令
 * is spaced after the span as well as before it (autocorrect spaces both).
 * Its text is context only, never reported, so nothing is lost. */
static void code_edges(mdctx *x)
{
	md_prose *m = x->m;
	if (x->code_block || x->code_c0 >= m->len)
		return;
	unsigned char *t = (unsigned char *)m->text + x->code_c0;
	size_t n = m->len - x->code_c0, k = n;
	while (k > 0 && (t[k - 1] & 0xC0) == 0x80)
		k--; /* the last character starts at k - 1 */
	if (!k)
		return;
	int a = t[0] < 0x80 && t[0] != ' ', b = t[n - 1] < 0x80 && t[n - 1] != ' ';
	if (a && t[n - 1] >= 0x80)
		memset(t + k - 1, 'x', n - k + 1);
	else if (b && t[0] >= 0x80) {
		size_t e = 1;
		while (e < n && (t[e] & 0xC0) == 0x80)
			e++;
		memset(t, 'x', e);
	}
}

/* A Markdown span opening (close 0) or closing (close 1) at the current
 * prose offset: its markup (**, _, ~~, [, ](url)) lies there in the
 * document, between two prose segments. */
static int span_has_markup(MD_SPANTYPE type)
{
	return type == MD_SPAN_EM || type == MD_SPAN_STRONG || type == MD_SPAN_DEL ||
	       type == MD_SPAN_U || type == MD_SPAN_A || type == MD_SPAN_WIKILINK;
}

static void add_mark(mdctx *x, int close)
{
	md_prose *m = x->m;
	if (m->n_marks == m->cap_marks) {
		size_t nc = m->cap_marks ? m->cap_marks * 2 : 32;
		size_t *nm = realloc(m->marks, nc * sizeof *nm);
		if (!nm) {
			x->failed = 1;
			return;
		}
		m->marks = nm;
		m->cap_marks = nc;
	}
	m->marks[m->n_marks++] = 2 * m->len + (close ? 1 : 0);
}

static int cb_enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
	mdctx *x = ud;
	if (span_has_markup(type))
		add_mark(x, 0);
	if (type == MD_SPAN_CODE) {
		x->code_span++;
		x->code_c0 = x->m->len;
	} else if (type == MD_SPAN_LATEXMATH) {
		x->math = 1;
		x->math_started = 0;
	}
	else if (type == MD_SPAN_A && x->link_depth++ == 0) {
		MD_SPAN_A_DETAIL *a = detail;
		free(x->href);
		x->href = jh_strndup(a->href.text ? a->href.text : "", a->href.size);
		if (!x->href)
			return x->failed = 1; /* md_parse stops */
		x->link_seg = x->m->n_segs;
	}
	return 0;
}

static int cb_leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
	mdctx *x = ud;
	if (span_has_markup(type))
		add_mark(x, 1);
	if (type == MD_SPAN_CODE) {
		x->code_span--;
		code_edges(x);
	} else if (type == MD_SPAN_LATEXMATH) {
		if (x->math_started && !x->link_depth && !memchr(x->doc + x->math_t0, '\n', x->math_t1 - x->math_t0) &&
		    !math_span_ok(x->doc, x->len, x->math_t0, x->math_t1))
			unmath(x);
		x->math = 0;
	} else if (type == MD_SPAN_A && --x->link_depth == 0 && x->href) {
		/* An autolink (<https://…>, a bare URL or e-mail address): its text
		 * is its target, which is not prose. */
		md_prose *m = x->m;
		if (x->link_seg < m->n_segs) {
			size_t c0 = m->segs[x->link_seg].c, n = m->len - c0;
			const char *t = m->text + c0, *h = x->href;
			size_t hl = strlen(h);
			int auto_link = (hl == n && !memcmp(h, t, n)) ||
			                (hl > n && !memcmp(h + hl - n, t, n) &&
			                 (!strncmp(h, "mailto:", 7) || !strncmp(h, "http://", 7)));
			if (auto_link)
				for (size_t i = x->link_seg; i < m->n_segs; i++)
					if (m->segs[i].kind == SEG_PROSE) {
						m->segs[i].kind = SEG_CODE;
						neutralise(m->text + m->segs[i].c, m->segs[i].len);
					}
		}
		free(x->href);
		x->href = NULL;
	}
	return 0;
}

static int in_doc(const mdctx *x, const MD_CHAR *s, MD_SIZE n)
{
	return s >= x->doc && s + n <= x->doc + x->len;
}

/* First code point of s, or the last one before s+n. */
static unsigned first_cp(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (!n)
		return 0;
	if (u[0] < 0x80)
		return u[0];
	if (u[0] >= 0xE0 && u[0] < 0xF0 && n >= 3)
		return ((u[0] & 0x0Fu) << 12) | ((u[1] & 0x3Fu) << 6) | (u[2] & 0x3Fu);
	if (u[0] >= 0xF0 && n >= 4)
		return 0x10000;
	return 0x100;
}

static unsigned last_cp(const char *s, size_t n)
{
	size_t i = n;
	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	return i ? first_cp(s + i - 1, n - i + 1) : 0;
}

/* A soft line break joins CJK text (a reader sees no space) and is a space
 * between anything else. */
static void soft_break(mdctx *x, const char *next, size_t n)
{
	md_prose *m = x->m;
	x->pending_soft = 0;
	if (!m->len)
		return;
	unsigned a = last_cp(m->text, m->len), b = first_cp(next, n);
	if (a >= 0x2E80 && b >= 0x2E80)
		return;
	synth(x, " ");
}

static void add_entity(mdctx *x, const char *s, size_t n)
{
	/* The characters people write as entities; the rest read as a space. */
	static const struct { const char *e, *c; } ents[] = {
		{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"},
		{"&nbsp;", " "}, {"&ensp;", " "}, {"&emsp;", " "}, {"&hellip;", "…"},
		{"&mdash;", "—"}, {"&ndash;", "–"}, {"&ldquo;", "“"}, {"&rdquo;", "”"},
		{"&lsquo;", "‘"}, {"&rsquo;", "’"}, {"&middot;", "·"}, {"&copy;", "©"},
	};
	char buf[8] = " ";
	for (size_t i = 0; i < sizeof ents / sizeof *ents; i++)
		if (strlen(ents[i].e) == n && !memcmp(ents[i].e, s, n)) {
			snprintf(buf, sizeof buf, "%s", ents[i].c);
			break;
		}
	if (n > 3 && s[1] == '#') {
		unsigned long v = (s[2] == 'x' || s[2] == 'X') ? strtoul(s + 3, NULL, 16) : strtoul(s + 2, NULL, 10);
		if (v > 0 && v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF)) {
			if (v < 0x80) {
				buf[0] = (char)v;
				buf[1] = 0;
			} else if (v < 0x800) {
				buf[0] = (char)(0xC0 | (v >> 6));
				buf[1] = (char)(0x80 | (v & 0x3F));
				buf[2] = 0;
			} else if (v < 0x10000) {
				buf[0] = (char)(0xE0 | (v >> 12));
				buf[1] = (char)(0x80 | ((v >> 6) & 0x3F));
				buf[2] = (char)(0x80 | (v & 0x3F));
				buf[3] = 0;
			} else {
				buf[0] = (char)(0xF0 | (v >> 18));
				buf[1] = (char)(0x80 | ((v >> 12) & 0x3F));
				buf[2] = (char)(0x80 | ((v >> 6) & 0x3F));
				buf[3] = (char)(0x80 | (v & 0x3F));
				buf[4] = 0;
			}
		}
	}
	if (add_seg(x, buf, strlen(buf), (size_t)(s - x->doc), SEG_SYNTH))
		x->failed = 1;
}

static int cb_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *ud)
{
	mdctx *x = ud;
	md_prose *m = x->m;
	int inside = in_doc(x, s, n);
	switch (type) {
	case MD_TEXT_HTML:
		if (inside) {
			if (m->n_html + 2 > m->cap_html) {
				size_t nc = m->cap_html ? m->cap_html * 2 : 32;
				size_t *nh = realloc(m->html, nc * sizeof *nh);
				if (!nh)
					return x->failed = 1;
				m->html = nh;
				m->cap_html = nc;
			}
			m->html[m->n_html++] = (size_t)(s - x->doc);
			m->html[m->n_html++] = (size_t)(s - x->doc) + n;
		}
		return 0;
	case MD_TEXT_BR:
		x->pending_soft = 0;
		synth(x, "\n");
		return 0;
	case MD_TEXT_SOFTBR:
		x->pending_soft = 1;
		return 0;
	case MD_TEXT_NULLCHAR:
		synth(x, "\xEF\xBF\xBD");
		return 0;
	case MD_TEXT_ENTITY:
		if (x->pending_soft)
			soft_break(x, s, n);
		if (inside && !x->code_block)
			add_entity(x, s, n);
		return 0;
	case MD_TEXT_CODE: /* inline code; code blocks are skipped below */
	case MD_TEXT_LATEXMATH:
	case MD_TEXT_NORMAL:
		if (x->code_block)
			return 0;
		if (x->pending_soft)
			soft_break(x, s, n);
		if (!inside) {
			synth(x, " ");
			return 0;
		}
		if (x->math && type == MD_TEXT_LATEXMATH) {
			if (!x->math_started) {
				x->math_started = 1;
				x->math_c0 = x->m->len;
				x->math_n = x->m->n_segs;
				x->math_t0 = (size_t)(s - x->doc);
			}
			x->math_t1 = (size_t)(s - x->doc) + n;
		}
		if (add_seg(x, s, n, (size_t)(s - x->doc),
		            type == MD_TEXT_NORMAL && !x->code_span ? SEG_PROSE : SEG_CODE))
			x->failed = 1;
		return 0;
	}
	return 0;
}

/* YAML (---) or TOML (+++) front matter at the very start: its length. */
static size_t front_matter(const char *doc, size_t len)
{
	const char *fence = NULL;
	size_t start = 0;
	if (len >= 3 && !memcmp(doc, "\xEF\xBB\xBF", 3))
		start = 3;
	if (len - start >= 4 && (!memcmp(doc + start, "---", 3) || !memcmp(doc + start, "+++", 3)))
		fence = doc + start;
	if (!fence)
		return 0;
	size_t p = start + 3;
	while (p < len && (doc[p] == ' ' || doc[p] == '\t' || doc[p] == '\r'))
		p++;
	if (p >= len || doc[p] != '\n')
		return 0;
	p++;
	while (p < len) {
		const char *nl = memchr(doc + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - doc) : len;
		size_t l = e - p;
		if (l && doc[e - 1] == '\r')
			l--;
		if ((l == 3 && !memcmp(doc + p, fence, 3)) ||
		    (fence[0] == '-' && l == 3 && !memcmp(doc + p, "...", 3)))
			return nl ? e + 1 : len;
		p = nl ? e + 1 : len;
	}
	return 0; /* never closed: not front matter */
}

int markdown_prose(const char *doc, size_t len, md_prose *out)
{
	memset(out, 0, sizeof *out);
	out->doc = doc;
	out->doc_len = len;
	mdctx x = {.m = out, .doc = doc, .len = len};
	MD_PARSER p = {0};
	p.flags = MD_DIALECT_GITHUB | MD_FLAG_LATEXMATHSPANS;
	p.enter_block = cb_enter_block;
	p.leave_block = cb_leave_block;
	p.enter_span = cb_enter_span;
	p.leave_span = cb_leave_span;
	p.text = cb_text;
	size_t fm = front_matter(doc, len);
	if (len - fm > (MD_SIZE)-1)
		return -1;
	/* md4c fails only when memory runs out (and our callbacks stop it only then) */
	int rc = md_parse(doc + fm, (MD_SIZE)(len - fm), &p, &x);
	free(x.href);
	if (!rc && !x.failed && !out->text && !(out->text = jh_strndup("", 0)))
		x.failed = 1;
	if (rc || x.failed) {
		md_prose_free(out);
		return JH_ERR_NOMEM;
	}
	return 0;
}

size_t md_seg_at(const md_prose *m, size_t c)
{
	size_t lo = 0, hi = m->n_segs;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (m->segs[mid].c <= c)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t md_to_doc(const md_prose *m, size_t c, int end)
{
	if (!m->n_segs)
		return 0;
	size_t i = md_seg_at(m, c);
	const md_seg *s = &m->segs[i];
	if (c == s->c && i > 0 && end) {
		const md_seg *p = &m->segs[i - 1];
		return p->kind == SEG_SYNTH ? p->t : p->t + p->len;
	}
	if (c >= s->c + s->len)
		return s->kind == SEG_SYNTH ? s->t : s->t + s->len;
	return s->kind == SEG_SYNTH ? s->t : s->t + (c - s->c);
}

size_t md_to_prose(const md_prose *m, size_t t)
{
	/* Segments are in document order (made-up ones sit where they were made),
	 * so the first segment ending after t is found by bisection. */
	size_t lo = 0, hi = m->n_segs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->segs[mid].t + m->segs[mid].len <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->n_segs; i++) {
		const md_seg *s = &m->segs[i];
		if (s->kind == SEG_SYNTH)
			continue;
		if (s->t + s->len > t)
			return s->t <= t ? s->c + (t - s->t) : s->c;
	}
	return m->len;
}

/* Does a span open (want 0) or close (want 1) at prose offset c? */
static int mark_at(const md_prose *m, size_t c, int want)
{
	size_t lo = 0, hi = m->n_marks, key = 2 * c + (size_t)want;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->marks[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* marks are in prose order, closings and openings at one offset mixed */
	for (size_t i = lo; i > 0 && m->marks[i - 1] / 2 == c; i--)
		if (m->marks[i - 1] == key)
			return 1;
	for (size_t i = lo; i < m->n_marks && m->marks[i] / 2 == c; i++)
		if (m->marks[i] == key)
			return 1;
	return 0;
}

/* The raw HTML range that starts at t, or -1. */
static long html_at(const md_prose *m, size_t t)
{
	size_t lo = 0, hi = m->n_html / 2;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->html[2 * mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n_html / 2 && m->html[2 * lo] == t ? (long)lo : -1;
}

int md_point_to_doc(const md_prose *m, size_t c, size_t *at)
{
	size_t i = md_seg_at(m, c);
	if (!m->n_segs || m->segs[i].c != c || i == 0 || m->segs[i - 1].kind != SEG_PROSE) {
		*at = md_to_doc(m, c, 0);
		return 0;
	}
	const md_seg *p = &m->segs[i - 1], *s = &m->segs[i];
	size_t pe = p->t + p->len, ns = s->t;
	*at = pe;
	if (ns <= pe || !m->doc || ns > m->doc_len)
		return 0;
	const char *d = m->doc;
	int closed = mark_at(m, c, 1), opened = mark_at(m, c, 0), delims = 0;
	/* past the closing markup: closing tags (</kbd>), and the delimiters
	 * of a span that closes here (**, ~~, ](url)) when none opens here */
	size_t q = pe;
	while (q < ns) {
		long h = html_at(m, q);
		if (h >= 0) {
			size_t e = m->html[2 * h + 1];
			if (e > ns || e - q < 2 || d[q + 1] != '/')
				break;
			q = e;
			continue;
		}
		if (!closed || opened)
			break;
		if (d[q] == '*' || d[q] == '_' || d[q] == '~') {
			q++;
			delims = 1;
			continue;
		}
		if (d[q] == ']') {
			/* a link's end: its target up to the next tag or the gap's end */
			size_t e = q;
			while (e < ns && d[e] != '\\' && d[e] != '<')
				e++;
			if (e < ns && d[e] == '\\')
				break;
			q = e;
			delims = 1;
			continue;
		}
		break;
	}
	/* the rest must be opening markup: a closing tag after it, or
	 * delimiters both closing and opening here, leave no sure place */
	for (size_t r = q; r < ns;) {
		long h = html_at(m, r);
		if (h >= 0) {
			size_t e = m->html[2 * h + 1];
			if (e > ns)
				break;
			if (e - r >= 2 && d[r + 1] == '/')
				return -1;
			r = e;
			continue;
		}
		if (closed && (opened || delims))
			return -1;
		r++;
	}
	*at = q;
	return 0;
}
