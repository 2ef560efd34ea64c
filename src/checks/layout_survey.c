/* layout_survey.c — the survey of the lines that the layout checks share
 * (check_layout.c): one pass over the document's lines at the first
 * finish() that asks, counting what each check's decision needs (line
 * endings, indent forms, runs of blank lines, paragraph separators, the
 * wrap habit) and keeping the few lines a finding can be on; with it, what
 * the checks know of a line and of the lines around a break. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "stops.h"
#include "utf8.h"
#include "layout.h"

/* The next '\n' at or after p, or len when there is none; *wide is set
 * when a byte above ASCII comes before it (a line without one holds no
 * Han character and no CJK mark).  32 bytes at a time with AVX2, else 16. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) static size_t nl_next_avx2(const unsigned char *t, size_t len,
                                                           size_t p, int *wide)
{
	const __m256i nl = _mm256_set1_epi8('\n');
	unsigned high = 0;
	for (; p + 32 <= len; p += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(t + p));
		unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)),
		         h = (unsigned)_mm256_movemask_epi8(v);
		if (m) {
			*wide = (high | (h & (m ^ (m - 1)))) != 0; /* the bits up to the break */
			return p + (size_t)__builtin_ctz(m);
		}
		high |= h;
	}
	for (; p < len && t[p] != '\n'; p++)
		high |= t[p] & 0x80;
	*wide = high != 0;
	return p;
}
#endif

static size_t nl_next_sse2(const unsigned char *t, size_t len, size_t p, int *wide)
{
	unsigned high = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	for (; p + 16 <= len; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(t + p));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)),
		         h = (unsigned)_mm_movemask_epi8(v);
		if (m) {
			*wide = (high | (h & (m ^ (m - 1)))) != 0;
			return p + (size_t)__builtin_ctz(m);
		}
		high |= h;
	}
#endif
	for (; p < len && t[p] != '\n'; p++)
		high |= t[p] & 0x80;
	*wide = high != 0;
	return p;
}

/* Length in bytes of the blanks (space, tab, U+3000) at s. */
static size_t blank_prefix(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t')
			i++;
		else if (n - i >= 3 && !memcmp(s + i, IDSP, 3))
			i += 3;
		else
			break;
	}
	return i;
}

static int line_blank(const char *text, const line_t *l)
{
	return blank_prefix(text + l->start, l->end - l->start) == l->end - l->start;
}


/* Is cp a Han character?  jh_class_of's answer, asked only outside the
 * ranges where it has none: below U+3007 (punctuation, Latin), and
 * between U+FB00 and the astral planes (the full-width forms). */
static inline int han_cp(int32_t cp)
{
	if (cp >= 0x4E00 && cp <= 0x9FFF)
		return 1;
	if (cp < 0x3007 || (cp >= 0xFB00 && cp < 0x20000))
		return 0;
	return (jh_class_of(cp) & JH_C_HAN) != 0;
}

/* Can a line that ends in cp be cut in mid-sentence (split_classify): an
 * opening mark, ，、 or a Han character? */
static inline int break_end(int32_t cp)
{
	if (cp >= 0x4E00 && cp <= 0x9FFF)
		return 1;
	if (cp < 0x2018)
		return 0;
	return cp == 0xFF0C || cp == 0x3001 || cp <= 0x201C || (cp >= 0x300A && cp <= 0x3010) ||
	       cp == 0xFF08 || han_cp(cp);
}

static inline int clause_mark_cp(int32_t cp)
{
	return cp == 0xFF0C || cp == 0x3001 || cp == 0xFF1B || cp == 0xFF1A || cp == 0x3002 ||
	       cp == 0xFF01 || cp == 0xFF1F;
}

/* Is there a clause or sentence mark (，、；：。！？) in [p, e)?  They are
 * EF BC 8C/9B/9A/81/9F and E3 80 81/82: the lead bytes E3 and EF are
 * looked for sixteen at a time (a lead byte is never inside another
 * character, valid or not, so this finds what decoding would). */
static inline int clause_mark_at(const unsigned char *t)
{
	if (t[0] == 0xE3)
		return t[1] == 0x80 && (t[2] == 0x81 || t[2] == 0x82);
	return t[1] == 0xBC &&
	       (t[2] == 0x8C || t[2] == 0x9B || t[2] == 0x9A || t[2] == 0x81 || t[2] == 0x9F);
}

static int has_clause_mark(const char *text, size_t p, size_t e)
{
	const unsigned char *t = (const unsigned char *)text;
	if (p >= e || e - p < 3)
		return 0;
#ifdef __SSE2__
	const __m128i e3 = _mm_set1_epi8((char)0xE3), ef = _mm_set1_epi8((char)0xEF);
	for (; p + 16 <= e; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(t + p));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, e3), _mm_cmpeq_epi8(v, ef)));
		for (; m; m &= m - 1) {
			size_t q = p + (size_t)__builtin_ctz(m);
			if (q + 3 <= e && clause_mark_at(t + q))
				return 1;
		}
	}
#endif
	for (; p + 3 <= e; p++)
		if ((t[p] == 0xE3 || t[p] == 0xEF) && clause_mark_at(t + p))
			return 1;
	return 0;
}

/* ---- what the checks know of a line ---- */

static indent_t indent_of(const char *text, const line_t *l)
{
	indent_t in = {IND_NONE, 0, 0};
	const char *s = text + l->start;
	size_t n = l->end - l->start;
	in.bytes = blank_prefix(s, n);
	for (size_t i = 0; i < in.bytes;) {
		int k = s[i] == ' ' ? IND_SPACES : s[i] == '\t' ? IND_TAB : IND_IDSP;
		i += k == IND_IDSP ? 3 : 1;
		in.n++;
		in.kind = in.kind == IND_NONE || in.kind == k ? k : IND_MIXED;
	}
	return in;
}

/* Is there a Han character in the line?  Lines without one (a URL, a
 * version string, a rendered page header) are not Chinese paragraphs.
 * ASCII is stepped over sixteen bytes at a time: it is never Han, and
 * decoding goes through it a byte at a time, so the characters decoded
 * after it are the same. */
static int has_han(const char *text, const line_t *l)
{
	const unsigned char *t = (const unsigned char *)text;
	for (size_t p = l->start, e = l->end; p < e;) {
		if (t[p] < 0x80) {
			p = jh_ascii_end(t, p, e);
			continue;
		}
		/* U+5000-9FFF, all Han (the common case), by its bytes */
		if (t[p] >= 0xE5 && t[p] <= 0xE9 && p + 2 < e &&
		    ((t[p + 1] ^ 0x80u) | (t[p + 2] ^ 0x80u)) < 0x40)
			return 1;
		int32_t cp;
		p += jh_utf8_decode(t + p, e - p, &cp);
		if (jh_class_of(cp) & JH_C_HAN)
			return 1;
	}
	return 0;
}

/* Does this line look like a heading, not a paragraph: short, and not
 * ending in sentence punctuation (第一章 出征, 楔子, ***)? */
static int looks_like_heading(const char *text, const line_t *l)
{
	size_t chars = 0, seen = 0;
	int32_t last = 0;
	for (size_t p = l->start; p < l->end;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, l->end - p, &cp);
		if (cp != ' ' && cp != '\t' && cp != 0x3000) {
			last = cp;
			chars = seen + 1; /* trailing blanks do not count */
		}
		seen++;
	}
	int sentence_end = last == 0x3002 || last == 0xFF01 || last == 0xFF1F || last == 0x201D ||
	                   last == 0x300D || last == 0x300F || last == 0x2026 || last == 0xFF0C ||
	                   last == 0x2019 || last == 0xFF09 || last == 0x2014;
	return chars <= 30 && !sentence_end;
}

/* The last character of l before its trailing blanks, and where it starts
 * (0 and l->end for a blank line). */
static int32_t last_char(const char *text, const line_t *l, size_t *at)
{
	size_t e = l->end;
	while (e > l->start) {
		size_t p = e;
		do
			p--;
		while (p > l->start && ((unsigned char)text[p] & 0xC0) == 0x80);
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (cp != ' ' && cp != '\t' && cp != 0x3000) {
			*at = p;
			return cp;
		}
		e = p;
	}
	*at = l->end;
	return 0;
}

/* Does this line end as a paragraph does (。！？…” etc.)?  A line that ends
 * in ，or a Han character is continued on the next one. */
static int ends_paragraph(const char *text, const line_t *l)
{
	size_t at;
	int32_t cp = last_char(text, l, &at); /* 0 for a blank line: it ends one */
	return !(cp == 0xFF0C || cp == 0x3001 || (cp > 0 && (jh_class_of(cp) & JH_C_HAN)));
}

/* Does the text at [p, e) open with one or two Han characters and then ，
 * or 、 (出，正中对方肩头。)?  A paragraph hardly starts that way: it is
 * the tail of a sentence cut by a line break (刺⏎出).  A numeral first is
 * a list item (一，…), not a tail. */
static int starts_as_tail(const char *text, size_t p, size_t e)
{
	static const int32_t numerals[] = {0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94,
	                                   0x516D, 0x4E03, 0x516B, 0x4E5D, 0x5341};
	int32_t cp;
	for (int n = 0; p < e && n <= 2; n++) {
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (n > 0 && (cp == 0xFF0C || cp == 0x3001))
			return 1;
		if (!(jh_class_of(cp) & JH_C_HAN))
			return 0;
		for (size_t i = 0; n == 0 && i < sizeof numerals / sizeof *numerals; i++)
			if (cp == numerals[i])
				return 0;
	}
	return 0;
}

/* The checks' ways to the helpers above (layout.h): the survey calls
 * them as they are, so that the compiler inlines and specialises them in
 * its loop as it did when the checks and the survey were one file. */
indent_t layout_indent_of(const char *text, const line_t *l) { return indent_of(text, l); }
int layout_has_han(const char *text, const line_t *l) { return has_han(text, l); }
int layout_looks_like_heading(const char *text, const line_t *l)
{
	return looks_like_heading(text, l);
}
int layout_ends_paragraph(const char *text, const line_t *l) { return ends_paragraph(text, l); }
int layout_starts_as_tail(const char *text, size_t p, size_t e)
{
	return starts_as_tail(text, p, e);
}
int layout_line_blank(const char *text, const line_t *l) { return line_blank(text, l); }

/* ---- what the lines around a break say ---- */

/* Could the text at [p, e) be the second half of a sentence: it starts
 * with a Han character or an opening quote and has clause punctuation of
 * its own after that (a heading, 参考, 范例 EXAMPLE, has none)? */
static int continues_sentence(const char *text, size_t p, size_t e)
{
	int32_t cp;
	if (p >= e)
		return 0;
	p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
	int mark = jh_open_mark(cp);
	if (!(jh_class_of(cp) & JH_C_HAN) && !(mark >= 0 && mark < JH_PAIR_QUOTES))
		return 0;
	while (p < e) {
		p += jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (cp == 0xFF0C || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B ||
		    cp == 0x3001)
			return 1;
	}
	return 0;
}

/* A character no sentence or heading ends on: a particle or preposition
 * that needs what follows (冒着热气的⏎面条, 她把⏎门关上). */
static int cannot_end(int32_t cp)
{
	/* 的地把被从向对和与跟给让将朝往 */
	static const int32_t ties[] = {0x7684, 0x5730, 0x628A, 0x88AB, 0x4ECE, 0x5411, 0x5BF9, 0x548C,
	                               0x4E0E, 0x8DDF, 0x7ED9, 0x8BA9, 0x5C06, 0x671D, 0x5F80};
	for (size_t i = 0; i < sizeof ties / sizeof *ties; i++)
		if (ties[i] == cp)
			return 1;
	return 0;
}

/* The number of Han characters in a row that end at e (going back, not
 * before start) or, forward, that start at p (not past e). */
static size_t han_run_back(const char *text, size_t start, size_t e)
{
	size_t n = 0;
	while (e > start) {
		size_t q = jh_utf8_start_back(text, e);
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + q, e - q, &cp);
		if (!(jh_class_of(cp) & JH_C_HAN))
			break;
		n++;
		e = q;
	}
	return n;
}

static size_t han_run_forward(const char *text, size_t p, size_t e)
{
	size_t n = 0;
	while (p < e) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + p, e - p, &cp);
		if (!(jh_class_of(cp) & JH_C_HAN))
			break;
		n++;
		p += k;
	}
	return n;
}

/* A couplet of verse across the break: the line before is one clause of
 * 4, 5 or 7 characters and its ， (after its indent: [start, mark)), and
 * the next line opens with a clause of the same length (床前明月光，⏎
 * 疑是地上霜。).  Prose cut at a ， has more than one clause before the
 * cut, or clauses of other lengths. */
static int verse_across(const char *text, size_t start, size_t mark, size_t p, size_t e)
{
	start += blank_prefix(text + start, mark - start);
	size_t a = han_run_back(text, start, mark), b = han_run_forward(text, p, e);
	return a == b && (a == 4 || a == 5 || a == 7) && han_run_forward(text, start, mark) == a;
}

/* The indent of l and whether it is blank: indent_of's, from its first
 * bytes when they say it (most lines). */
static inline indent_t indent_blank(const char *text, const line_t *l, int *blank)
{
	const unsigned char *t = (const unsigned char *)text + l->start;
	size_t n = l->end - l->start;
	if (!n) {
		*blank = 1;
		return (indent_t){IND_NONE, 0, 0};
	}
	if (t[0] != ' ' && t[0] != '\t' && t[0] != 0xE3) {
		*blank = 0;
		return (indent_t){IND_NONE, 0, 0};
	}
	/* 　　 and then no blank: the indent of novel text */
	if (n > 6 && !memcmp(t, IDSP IDSP, 6) && t[6] != ' ' && t[6] != '\t' && t[6] != 0xE3) {
		*blank = 0;
		return (indent_t){IND_IDSP, 2, 6};
	}
	indent_t in = indent_of(text, l);
	*blank = in.bytes == l->end - l->start;
	return in;
}

/* ---- the survey of the lines, shared by the checks ---- */

static void indent_decide(indent_stats *s, indent_counts exact)
{
	size_t best = 0;
	for (int k = IND_IDSP; k <= IND_TAB; k++)
		for (size_t n = 1; n <= 8; n++)
			if (exact[k][n] > best) {
				best = exact[k][n];
				s->dominant = (indent_t){k, n, 0};
			}
	/* A document is indented when more than half of its non-blank lines
	 * are, with one form (　　 or four spaces) for most of those.  Only a
	 * paragraph indent counts: one to four 　, two to four spaces or a tab;
	 * deeper ones (seven spaces in a rendered manual page) are structure. */
	size_t indented = s->lines - s->by_kind[IND_NONE];
	int para_like = s->dominant.kind == IND_IDSP ? s->dominant.n <= 4
	                : s->dominant.kind == IND_SPACES ? s->dominant.n >= 2 && s->dominant.n <= 4
	                                                 : s->dominant.n == 1;
	if (best < 3 || !para_like || indented * 2 <= s->lines || best * 2 < indented) {
		s->dominant.kind = IND_NONE;
		return;
	}
	const char *unit = s->dominant.kind == IND_IDSP ? IDSP : s->dominant.kind == IND_TAB ? "\t" : " ";
	for (size_t i = 0; i < s->dominant.n; i++)
		strcat(s->dom_text, unit);
	s->dominant.bytes = strlen(s->dom_text);
}

static void survey_free(void *p)
{
	layout_survey *s = p;
	if (!s)
		return;
	free(s->br);
	free(s->bare);
	free(s->cand);
	free(s);
}

static int push_cand(layout_survey *s, size_t start, size_t end, int kind, int unindented)
{
	if (jh_grow((void **)&s->cand, &s->cap_cand, s->n_cand + 1, sizeof *s->cand))
		return JH_ERR_NOMEM;
	s->cand[s->n_cand++] = (split_cand){start, end, (unsigned char)kind, (unsigned char)unindented};
	return JH_OK;
}

/* The break between the non-blank lines prev and l (blanks blank lines
 * between them): split_finish's tests, all but those that need the whole
 * document (kept as the candidate's kind).  end, at, tight: prev's last
 * character, where it starts, and whether it ends the line. */
static int split_classify(layout_survey *s, const char *text, const line_t *prev, int prev_kind,
                          int32_t end, size_t at, int tight, const line_t *l, indent_t in,
                          size_t blanks)
{
	size_t body = l->start + in.bytes;
	int32_t cp;
	if ((end <= 0x201C || (end >= 0x300A && end <= 0x3010) || end == 0xFF08) &&
	    jh_open_mark(end) >= 0 && at > prev->start) {
		/* the character right before the mark: not a blank (a table
		 * of characters: 左双引号: “) */
		size_t b = jh_utf8_prev(text, at);
		jh_utf8_decode((const unsigned char *)text + b, at - b, &cp);
		if (cp != ' ' && cp != '\t' && cp != 0x3000)
			return push_cand(s, prev->end, body, CAND_MARK, 0);
	} else if ((end == 0xFF0C || end == 0x3001) && continues_sentence(text, body, l->end)) {
		int idsp = in.kind == IND_IDSP || in.kind == IND_MIXED;
		if (blanks)
			return push_cand(s, prev->end, body, CAND_COMMA_BLANK, in.kind == IND_NONE);
		if ((idsp || in.kind == IND_NONE) && !verse_across(text, prev->start, at, body, l->end))
			return push_cand(s, prev->end, body, CAND_COMMA, !idsp);
	} else if (!blanks && prev_kind != IND_NONE && han_cp(end)) {
		if (in.kind == IND_NONE && prev->start < at && starts_as_tail(text, body, l->end))
			return push_cand(s, prev->end, body, CAND_CUT, 1);
		if ((in.kind == IND_IDSP || in.kind == IND_MIXED) &&
		    (has_clause_mark(text, prev->start, at) || cannot_end(end)) &&
		    continues_sentence(text, body, l->end))
			return push_cand(s, prev->end, body, CAND_BARE, 0);
	}
	return JH_OK;
}

/* The last character of a non-blank line l, where it starts, and whether
 * it ends the line (no trailing blank): last_char() and the decoding
 * split_finish did, from the last byte when that is ASCII. */
static inline int32_t line_end_char(const char *text, const line_t *l, size_t *at, int *tight)
{
	unsigned char c = (unsigned char)text[l->end - 1];
	if (c < 0x80 && c != ' ' && c != '\t') {
		*at = l->end - 1;
		*tight = c != 0;
		return c;
	}
	/* a three-byte character whose continuation bytes any lead takes
	 * (E1-EC, EE, EF), not U+3000: last_char would stop there too */
	const unsigned char *t = (const unsigned char *)text + l->end;
	if (l->end - l->start >= 3 && (t[-1] & 0xC0) == 0x80 && (t[-2] & 0xC0) == 0x80 &&
	    t[-3] >= 0xE1 && t[-3] <= 0xEF && t[-3] != 0xED) {
		int32_t cp = (int32_t)((t[-3] & 0x0Fu) << 12 | (t[-2] & 0x3Fu) << 6 | (t[-1] & 0x3Fu));
		if (cp != 0x3000) {
			*at = l->end - 3;
			*tight = 1;
			return cp;
		}
	}
	int32_t cp, end = last_char(text, l, at);
	*tight = end && *at + jh_utf8_decode((const unsigned char *)text + *at, l->end - *at, &cp) ==
	                    l->end;
	return end;
}

/* The end of a run of n blank lines, the first at start, at the line at
 * after (blank-lines). */
static int run_end(layout_survey *s, size_t n, size_t start, size_t after)
{
	s->runs[n < 4 ? n : 4]++;
	s->runs_total++;
	if (n < 2)
		return JH_OK;
	if (jh_grow((void **)&s->br, &s->cap_br, s->n_br + 1, sizeof *s->br))
		return JH_ERR_NOMEM;
	s->br[s->n_br++] = (blank_run){start, after, n};
	s->longest_run = n > s->longest_run ? n : s->longest_run;
	return JH_OK;
}

/* One pass over the lines.  Most are neither blank nor indented, nor end
 * in a mark a break is looked at after: they cost a few tests, and the
 * counts kept in locals (a store through s may alias the text for the
 * compiler). */
static int survey_build(layout_survey *s, const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	line_t prev = {0, 0, 0, 0, 0};
	int have_prev = 0, prev_kind = IND_NONE, prev_tight = 0, prev_blank = 0;
	int32_t prev_end = 0;
	size_t prev_at = 0, blanks = 0, run = 0, run_start = 0;
	size_t breaks = 0, crlf = 0, lines = 0, unindented = 0, with_blank = 0;
	size_t prose = 0, mid = 0, bare = 0, wraps = 0; /* the wrap survey */
	int prev_bare = 0;
	size_t (*nl_next)(const unsigned char *, size_t, size_t, int *) = nl_next_sse2;
#if defined(__x86_64__) || defined(__i386__)
	if (jh_plain_impl() == 2)
		nl_next = nl_next_avx2;
#endif
	for (size_t p = 0, next; p < len; p = next) {
		int wide;
		size_t e = nl_next(t, len, p, &wide), end;
		int last = e >= len;
		if (!last) {
			breaks++;
			int cr = e > p && t[e - 1] == '\r';
			crlf += (size_t)cr;
			end = e - (size_t)cr;
			next = e + 1;
		} else {
			end = next = len;
		}
		line_t l = {p, end, next, 0, last};
		indent_t in = {IND_NONE, 0, 0};
		if (end == p || t[p] == ' ' || t[p] == '\t' || t[p] == 0xE3) {
			int blank;
			in = indent_blank(text, &l, &blank);
			if (blank && !last) {
				if (!run++)
					run_start = p;
				blanks++;
				prev_blank = 1;
				prev_bare = 0;
				continue;
			}
			if (blank) { /* the last line: not blank for blank-lines, nothing else */
				if (run && run_end(s, run, run_start, p))
					return JH_ERR_NOMEM;
				break;
			}
		}
		if (run) {
			if (run_end(s, run, run_start, p))
				return JH_ERR_NOMEM;
			run = 0;
		}
		/* merged-paragraph: after a blank line, or not (counted at the end) */
		with_blank += prev_blank && lines;
		prev_blank = 0;
		lines++;
		if (in.kind == IND_NONE) {
			unindented++;
			if (!s->bare_overflow) {
				if (s->n_bare == BARE_LINES_MAX) {
					s->bare_overflow = 1;
				} else {
					if (jh_grow((void **)&s->bare, &s->cap_bare, s->n_bare + 1, sizeof *s->bare))
						return JH_ERR_NOMEM;
					s->bare[s->n_bare++] = (bare_line){p, end, prev.start, prev.end, have_prev};
				}
			}
		} else {
			s->ind.by_kind[in.kind]++;
			if (in.kind != IND_MIXED && in.n <= 8)
				s->exact[in.kind][in.n]++;
		}
		/* no opening mark, ，、 nor Han character at the end of prev: no break to look at */
		if (have_prev && prev_tight && break_end(prev_end) &&
		    split_classify(s, text, &prev, prev_kind, prev_end, prev_at, prev_tight, &l, in, blanks))
			return JH_ERR_NOMEM;
		prev = l;
		prev_kind = in.kind;
		prev_end = line_end_char(text, &l, &prev_at, &prev_tight);
		have_prev = 1;
		blanks = 0;
		/* the wrap survey: a line of prose holds Han and a clause mark,
		 * which its last character may already show */
		wraps += prev_bare && in.kind == IND_NONE;
		int han_end = han_cp(prev_end);
		if (wide && (han_end || has_han(text, &l)) &&
		    (clause_mark_cp(prev_end) || has_clause_mark(text, l.start, l.end))) {
			prose++;
			mid += prev_end == 0xFF0C || prev_end == 0x3001 || han_end;
			bare += (size_t)han_end;
			prev_bare = han_end;
		} else {
			prev_bare = 0;
		}
	}
	s->wrap.hard_wrapped = prose >= 3 && wraps * 20 > prose;
	s->wrap.one_line = prose >= 3 && !s->wrap.hard_wrapped && mid * 4 <= prose && bare * 20 <= prose;
	s->crlf = crlf;
	s->lf = breaks - crlf;
	s->ind.lines = lines;
	s->ind.by_kind[IND_NONE] = unindented;
	s->with_blank = with_blank;
	s->without = lines ? lines - 1 - with_blank : 0;
	indent_decide(&s->ind, s->exact);
	return JH_OK;
}

/* The survey of run's document: the shared one, made by the first check
 * that asks; *own is set when it is this run's alone (no shared slot),
 * to be freed with survey_free. */
layout_survey *layout_survey_get(jh_brun *run, int *own)
{
	*own = 0;
	if (run->shared && run->shared->layout) {
		layout_survey *s = run->shared->layout;
		if (s->err)
			run->err = s->err;
		return s->err ? NULL : s;
	}
	layout_survey *s = calloc(1, sizeof *s);
	if (!s) {
		run->err = JH_ERR_NOMEM;
		return NULL;
	}
	s->err = survey_build(s, run->text, run->len);
	if (run->shared) {
		run->shared->layout = s;
		run->shared->layout_free = survey_free;
	} else {
		*own = 1;
	}
	if (s->err) {
		run->err = s->err;
		if (*own)
			survey_free(s);
		*own = 0;
		return NULL;
	}
	return s;
}

void layout_survey_put(layout_survey *s, int own)
{
	if (own)
		survey_free(s);
}
