/* foreign.c — Japanese and Korean inside Chinese text.  Kanji are Han
 * characters (世界中の数百: 数 is Japanese, not simplified Chinese), and
 * Japanese and Korean have punctuation conventions of their own (、 and
 * . , ? in Korean), so the script and punctuation rules leave a Japanese or
 * Korean sentence alone.  A sentence is Japanese when it has hiragana,
 * Korean when it has hangul.  A sentence of kanji only is Japanese by its
 * shinjitai forms (foreign_forms.h: 変 歩 戦, which no Chinese character
 * set holds): two of them, or one with kana on its line or on the nearest
 * line before or after it that is not blank (for this one, the wider table: 駅, which HKSCS
 * holds but no Chinese text writes) (a heading 環境変数 over Japanese prose; one such form
 * alone in Chinese prose is a slip or a filter dodge, censor.japanese-form's
 * to report).  A paragraph (a line) in which such sentences are at least
 * half is left alone whole, and so is a document in which more than half
 * of the lines are (a Japanese manual page: its headings 名称 and 説明 are
 * kanji only, with no form that only Japanese writes).
 * The half-width katakana check is about kana and keeps its findings. */
#define _GNU_SOURCE /* memrchr */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "charclass.h"
#include "cpscan.h"
#include "findings.h"
#include "foreign.h"
#include "foreign_forms.h"
#include "stops.h"
#include "utf8.h"
#include "util.h"

#if defined(__x86_64__) || defined(__i386__)
#define FG_X86 1
#include <immintrin.h>
#endif

/* What a Japanese or Korean span takes from a rule is the rule's own
 * `foreign =` (jh_foreign, rules/README.md): JH_FOREIGN_SENTENCE, its findings
 * in any foreign sentence (the script and punctuation rules; the separator
 * dot, since ・ between words is Japanese punctuation: 月・日・時);
 * JH_FOREIGN_KANA, in a sentence marked by kana (hiragana, or a Japanese form
 * with kana near) and in a foreign document: the Japanese-form check, since
 * in Chinese text a sentence with two Japanese forms and no kana may be a
 * filter dodge (変态的薬物); JH_FOREIGN_DOCUMENT, only in a foreign document:
 * the lost-character checks judge a whole document by the Chinese
 * characters it lacks, and a Japanese manual page lacks 的 and 是. */

static int is_foreign_letter(int32_t cp)
{
	/* hiragana: a Japanese sentence has its particles (の は を), a Chinese
	 * one with a loanword in katakana (念叨著コンビニ的便當) has none, and
	 * half-width katakana is damage for script.halfwidth-kana to mend */
	return (cp >= 0x3041 && cp <= 0x309F) ||
	       (cp >= 0xAC00 && cp <= 0xD7A3) || /* hangul syllables and jamo */
	       (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3131 && cp <= 0x318E);
}

/* full-width kana, katakana included: next to a Japanese-only form, a
 * katakana word is Japanese too */
static int is_kana(int32_t cp)
{
	return (cp >= 0x3041 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF);
}

static int is_japanese_form(int32_t cp)
{
	if (cp < JH_JAPANESE_FORMS_FIRST || cp >= JH_JAPANESE_FORMS_END)
		return 0;
	unsigned k = (unsigned)(cp - JH_JAPANESE_FORMS_FIRST);
	return (jh_japanese_form_bits[k / 32] >> (k % 32)) & 1u;
}

static inline int wide_form(int32_t cp)
{
	if (cp < JH_JAPANESE_FORMS_FIRST || cp >= JH_JAPANESE_FORMS_END)
		return 0;
	unsigned k = (unsigned)(cp - JH_JAPANESE_FORMS_FIRST);
	return ((jh_japanese_wide_bits[k / 32] | jh_japanese_form_bits[k / 32]) >> (k % 32)) & 1u;
}

int jh_japanese_wide_form(int32_t cp)
{
	return wide_form(cp);
}

static int ends_sentence(int32_t cp)
{
	return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == '!' || cp == '?' || cp == '.' ||
	       cp == 0xFF0E;
}

static int is_han(int32_t cp)
{
	return jh_class_of(cp) == JH_C_HAN;
}

typedef struct {
	size_t *v; /* start, end, by kana: the foreign sentences of the line */
	size_t n, cap;
	size_t line_start, line_end;
	int doc; /* -1 not yet looked at, 0 no, 1 the document is foreign */
	int letters; /* the document has a foreign letter (set with doc) */
} sentences;

static int push(sentences *s, size_t a, size_t b, int kana)
{
	if (jh_grow((void **)&s->v, &s->cap, s->n + 3, sizeof *s->v))
		return JH_ERR_NOMEM;
	s->v[s->n++] = a;
	s->v[s->n++] = b;
	s->v[s->n++] = (size_t)kana;
	return JH_OK;
}

/* The line around pos, [*a, *b): jh_line_bounds's, by memrchr and memchr. */
static void line_around(const char *text, size_t len, size_t pos, size_t *a, size_t *b)
{
	if (pos > len)
		pos = len;
	const char *p = pos ? memrchr(text, '\n', pos) : NULL;
	const char *q = memchr(text + pos, '\n', len - pos);
	*a = p ? (size_t)(p - text) + 1 : 0;
	*b = q ? (size_t)(q - text) : len;
}


/* Whether [a, b) holds a character for which pred holds. */
static int has_char(const char *text, size_t a, size_t b, int (*pred)(int32_t))
{
	for (size_t p = a; p < b;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, b - p, &cp);
		if (pred(cp))
			return 1;
	}
	return 0;
}

/* Is [a, b) blank: white space only (an ideographic space too)? */
static int blank_line(const char *text, size_t a, size_t b)
{
	for (size_t p = a; p < b;) {
		int32_t cp;
		p += jh_utf8_decode((const unsigned char *)text + p, b - p, &cp);
		if (!(cp == ' ' || cp == '\t' || cp == '\r' || cp == '\f' || cp == '\v' || cp == 0x3000))
			return 0;
	}
	return 1;
}

/* Kana on the line [a, b) or on the nearest line before or after it that
 * is not blank: a heading stands a blank line above its paragraph
 * (第一章　駅前広場, a blank line, 朝の駅前広場は…).  Each blank run is
 * walked by the two lines around it at most, once each (kana_near is asked
 * once a line). */
static int kana_near(const char *text, size_t len, size_t a, size_t b)
{
	if (has_char(text, a, b, is_kana))
		return 1;
	size_t pa = a, pb;
	while (pa > 0) {
		line_around(text, len, pa - 1, &pa, &pb);
		if (!blank_line(text, pa, pb)) {
			if (has_char(text, pa, pb, is_kana))
				return 1;
			break;
		}
	}
	pb = b;
	while (pb < len) {
		line_around(text, len, pb + 1, &pa, &pb);
		if (!blank_line(text, pa, pb)) {
			if (has_char(text, pa, pb, is_kana))
				return 1;
			break;
		}
		b = pb;
	}
	return 0;
}

/* The next byte at or after p that may start hiragana or hangul: a lead
 * E1 or EA-ED, or E3 but for E3 80 (the CJK punctuation of every Chinese
 * line), or len.  A superset of what they start (foreign_letter_at says);
 * Chinese text has none, and is passed over 32 or 16 bytes at a time. */
#ifdef FG_X86
__attribute__((target("avx2"))) static size_t lead_avx2(const unsigned char *t, size_t p,
                                                        size_t len)
{
	const __m256i e1 = _mm256_set1_epi8((char)0xE1), e3 = _mm256_set1_epi8((char)0xE3);
	const __m256i ea = _mm256_set1_epi8((char)0xEA), three = _mm256_set1_epi8(3);
	const __m256i c80 = _mm256_set1_epi8((char)0x80);
	for (; p + 33 <= len; p += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(t + p));
		__m256i b = _mm256_loadu_si256((const __m256i *)(t + p + 1));
		__m256i x = _mm256_sub_epi8(a, ea);
		__m256i m = _mm256_or_si256(
			_mm256_or_si256(_mm256_cmpeq_epi8(a, e1), _mm256_cmpeq_epi8(_mm256_min_epu8(x, three), x)),
			_mm256_andnot_si256(_mm256_cmpeq_epi8(b, c80), _mm256_cmpeq_epi8(a, e3)));
		unsigned bits = (unsigned)_mm256_movemask_epi8(m);
		if (bits)
			return p + (size_t)__builtin_ctz(bits);
	}
	return p;
}

static size_t lead_sse2(const unsigned char *t, size_t p, size_t len)
{
	const __m128i e1 = _mm_set1_epi8((char)0xE1), e3 = _mm_set1_epi8((char)0xE3);
	const __m128i ea = _mm_set1_epi8((char)0xEA), three = _mm_set1_epi8(3);
	const __m128i c80 = _mm_set1_epi8((char)0x80);
	for (; p + 17 <= len; p += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(t + p));
		__m128i b = _mm_loadu_si128((const __m128i *)(t + p + 1));
		__m128i x = _mm_sub_epi8(a, ea);
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(a, e1), _mm_cmpeq_epi8(_mm_min_epu8(x, three), x)),
			_mm_andnot_si128(_mm_cmpeq_epi8(b, c80), _mm_cmpeq_epi8(a, e3)));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return p + (size_t)__builtin_ctz(bits);
	}
	return p;
}
#endif

static size_t next_lead(const unsigned char *t, size_t p, size_t len)
{
#ifdef FG_X86
	p = jh_plain_impl() == 2 ? lead_avx2(t, p, len) : lead_sse2(t, p, len);
#endif
	for (; p < len; p++) {
		unsigned c = t[p];
		if (c == 0xE1 || (c >= 0xEA && c <= 0xED) || (c == 0xE3 && !(p + 1 < len && t[p + 1] == 0x80)))
			return p;
	}
	return len;
}

/* Does the character at the lead byte p, decoded up to the end of its
 * line e, count as a foreign letter?  A lead byte is never inside another
 * character, valid or not, so decoding the line from its start reaches
 * it: has_char(.., is_foreign_letter) is true where this is for one. */
static inline int foreign_letter_at(const unsigned char *t, size_t p, size_t e)
{
	int32_t cp;
	jh_utf8_decode(t + p, e - p, &cp);
	return is_foreign_letter(cp);
}

/* has_char(text, a, b, is_foreign_letter), from the lead bytes. */
static int line_has_foreign(const unsigned char *t, size_t a, size_t b)
{
	for (size_t p = a; (p = next_lead(t, p, b)) < b; p++)
		if (foreign_letter_at(t, p, b))
			return 1;
	return 0;
}

/* More than half of the lines with Han or foreign letters have foreign
 * letters: a Japanese (or Korean) document.  A bilingual text, one line
 * Japanese and the next its Chinese translation, is not.  The lines with
 * foreign letters are counted from their lead bytes (Chinese text has
 * none: one look at the text); then the other lines with Han, only until
 * they are as many. */
static int doc_foreign(const char *text, size_t len, int *letters)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t foreign = 0;
	for (size_t p = 0; (p = next_lead(t, p, len)) < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len;
		if (foreign_letter_at(t, p, e)) {
			foreign++;
			p = e + 1; /* the next line */
		} else {
			p++;
		}
	}
	*letters = foreign > 0;
	if (!foreign)
		return 0;
	size_t han = 0; /* lines with Han and no foreign letter */
	for (size_t a = 0; a < len && han < foreign;) {
		size_t x, b;
		line_around(text, len, a, &x, &b);
		if (!line_has_foreign(t, a, b) && has_char(text, a, b, is_han))
			han++;
		a = b + 1;
	}
	return han < foreign; /* 2 * foreign > foreign + han */
}

/* Whether the line [a, b) holds a foreign letter or a Japanese form: a
 * line without either has no foreign sentence (line_sentences), and most
 * lines a finding is on are such, so they are decoded only this fast:
 * ASCII sixteen bytes at a time, a Han character of U+4000-9FFF (the forms'
 * range) by its three bytes, anything else by the strict decoder. */
static int line_may_be_foreign(const char *text, size_t a, size_t b)
{
	const unsigned char *t = (const unsigned char *)text;
	for (size_t p = a; p < b;) {
		unsigned c = t[p];
		if (c < 0x80) {
			p = jh_ascii_end(t, p, b);
			continue;
		}
		if (c >= 0xE4 && c <= 0xE9 && p + 2 < b && (t[p + 1] & 0xC0) == 0x80 &&
		    (t[p + 2] & 0xC0) == 0x80) {
			if (wide_form((int32_t)((c & 0x0F) << 12 | (t[p + 1] & 0x3Fu) << 6 | (t[p + 2] & 0x3Fu))))
				return 1;
			p += 3;
			continue;
		}
		int32_t cp;
		p += jh_utf8_decode(t + p, b - p, &cp);
		if (is_foreign_letter(cp) || wide_form(cp))
			return 1;
	}
	return 0;
}

/* The forms of both tables as one set (cpscan.h), made once. */
enum { FORM_WORDS = (JH_JAPANESE_FORMS_END - JH_JAPANESE_FORMS_FIRST + 31) / 32 };
_Static_assert(sizeof jh_japanese_form_bits == FORM_WORDS * sizeof *jh_japanese_form_bits &&
                       sizeof jh_japanese_wide_bits == FORM_WORDS * sizeof *jh_japanese_wide_bits,
               "the form tables cover the forms' range");
static uint32_t form_words[FORM_WORDS];
static pthread_once_t form_once = PTHREAD_ONCE_INIT;

static void form_words_make(void)
{
	for (size_t i = 0; i < FORM_WORDS; i++)
		form_words[i] = jh_japanese_wide_bits[i] | jh_japanese_form_bits[i];
}

/* line_may_be_foreign in a document without foreign letters: has [a, b)
 * a Japanese form?  Those are three bytes, E4-E9 and two continuation
 * bytes, wherever they are (a lead byte is never inside another
 * character): looked for eight characters at a time (cpscan.h). */
static int line_has_form(const char *text, size_t a, size_t b)
{
	pthread_once(&form_once, form_words_make);
	const jh_cpset forms = {form_words, JH_JAPANESE_FORMS_FIRST, FORM_WORDS * 32};
	return jh_cpset_find3((const unsigned char *)text, a, b, &forms) < b;
}

/* The foreign sentences of the line around pos (cached). */
static int line_sentences(sentences *s, const char *text, size_t len, size_t pos)
{
	if (s->line_end > s->line_start && pos >= s->line_start && pos < s->line_end)
		return JH_OK;
	size_t a, b;
	line_around(text, len, pos, &a, &b);
	s->n = 0;
	s->line_start = a;
	s->line_end = b + 1;
	if (!(s->letters ? line_may_be_foreign(text, a, b) : line_has_form(text, a, b)))
		return JH_OK;
	size_t start = a, total = 0, foreign = 0, forms = 0, wide = 0;
	int has = 0, any = 0, kana = -1, by_kana = 0;
	for (size_t p = a; p < b;) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + p, b - p, &cp);
		if (is_foreign_letter(cp))
			has = 1;
		if (!is_foreign_letter(cp) && cp > ' ')
			any = 1;
		forms += (size_t)is_japanese_form(cp);
		wide += (size_t)jh_japanese_wide_form(cp);
		p += k;
		/* a run of closing marks and quotes ends with the sentence */
		if (ends_sentence(cp) || p == b) {
			while (p < b) {
				int32_t nx;
				size_t nk = jh_utf8_decode((const unsigned char *)text + p, b - p, &nx);
				if (!(ends_sentence(nx) || nx == 0x300D || nx == 0x300F || nx == 0x201D ||
				      nx == 0xFF09 || nx == ')' || nx == '"'))
					break;
				p += nk;
			}
			if (!has && wide) { /* 東京駅 under a line of kana */
				if (kana < 0)
					kana = kana_near(text, len, a, b);
				has = kana;
			}
			if (has || any) {
				total++;
				if (has || forms >= 2) {
					foreign++;
					by_kana |= has;
					if (push(s, start, p, has))
						return JH_ERR_NOMEM;
				}
			}
			start = p;
			has = any = 0;
			forms = wide = 0;
		}
	}
	if (foreign && 2 * foreign >= total) { /* the paragraph is foreign */
		s->n = 0;
		return push(s, a, b + 1, by_kana);
	}
	return JH_OK;
}

/* Whether [fs, fe) lies in a foreign sentence (one marked by kana, if
 * kana_only). */
static int in_foreign(const sentences *s, size_t fs, size_t fe, int kana_only)
{
	for (size_t i = 0; i < s->n; i += 3)
		if (fs >= s->v[i] && fs < s->v[i + 1] && fe <= s->v[i + 1] &&
		    (!kana_only || s->v[i + 2]))
			return 1;
	return 0;
}

int jh_foreign_drop(jh_findings *out, size_t first, const char *text, size_t len,
                    const jh_rule *const *rules, size_t n_rules)
{
	sentences s = {.doc = -1, .letters = 1};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		int scope = rc == JH_OK && idx >= 0 && (size_t)idx < n_rules ? (int)rules[idx]->foreign
		                                                              : JH_FOREIGN_NEVER;
		if (scope != JH_FOREIGN_NEVER) {
			if (s.doc < 0)
				s.doc = doc_foreign(text, len, &s.letters);
			if (s.doc)
				continue; /* its strings stay in the list's store */
		}
		if (scope == JH_FOREIGN_SENTENCE || scope == JH_FOREIGN_KANA) {
			rc = line_sentences(&s, text, len, f->byte_start);
			if (rc == JH_OK && s.n &&
			    in_foreign(&s, f->byte_start, f->byte_end, scope == JH_FOREIGN_KANA))
				continue;
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(s.v);
	return rc;
}
