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
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "charclass.h"
#include "findings.h"
#include "foreign.h"
#include "foreign_forms.h"
#include "stops.h"
#include "utf8.h"
#include "util.h"

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

int jh_japanese_wide_form(int32_t cp)
{
	if (cp < JH_JAPANESE_FORMS_FIRST || cp >= JH_JAPANESE_FORMS_END)
		return 0;
	unsigned k = (unsigned)(cp - JH_JAPANESE_FORMS_FIRST);
	return ((jh_japanese_wide_bits[k / 32] | jh_japanese_form_bits[k / 32]) >> (k % 32)) & 1u;
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
		jh_line_bounds(text, len, pa - 1, &pa, &pb);
		if (!blank_line(text, pa, pb)) {
			if (has_char(text, pa, pb, is_kana))
				return 1;
			break;
		}
	}
	pb = b;
	while (pb < len) {
		jh_line_bounds(text, len, pb + 1, &pa, &pb);
		if (!blank_line(text, pa, pb)) {
			if (has_char(text, pa, pb, is_kana))
				return 1;
			break;
		}
		b = pb;
	}
	return 0;
}

/* Whether the text may hold hiragana or hangul, by their UTF-8 lead bytes
 * (E3 81-82, E3 84-86, E1 84-87, EA-ED): Chinese text has none, and this
 * byte test (vectors, stops.h) spares it the decoding pass of doc_foreign. */
static int may_have_foreign(const char *text, size_t len)
{
	return jh_foreign_lead((const unsigned char *)text, len) < len;
}

/* Whether the line [a, b) holds a foreign letter or a Japanese form: a
 * line without either has no foreign sentence (line_sentences), and most
 * lines a finding is on are such, so they are decoded only this fast:
 * ASCII eight bytes at a time, a Han character of U+4000-9FFF (the forms'
 * range) by its three bytes, anything else by the strict decoder. */
static int line_may_be_foreign(const char *text, size_t a, size_t b)
{
	const unsigned char *t = (const unsigned char *)text;
	for (size_t p = a; p < b;) {
		unsigned c = t[p];
		if (c < 0x80) {
			uint64_t w;
			if (p + 8 <= b && (memcpy(&w, t + p, 8), !(w & 0x8080808080808080u)))
				p += 8;
			else
				p++;
			continue;
		}
		int32_t cp;
		if (c >= 0xE4 && c <= 0xE9 && p + 2 < b && (t[p + 1] & 0xC0) == 0x80 &&
		    (t[p + 2] & 0xC0) == 0x80) {
			cp = (int32_t)((c & 0x0F) << 12 | (t[p + 1] & 0x3Fu) << 6 | (t[p + 2] & 0x3Fu));
			if (jh_japanese_wide_form(cp))
				return 1;
			p += 3;
			continue;
		}
		p += jh_utf8_decode(t + p, b - p, &cp);
		if (is_foreign_letter(cp) || jh_japanese_wide_form(cp))
			return 1;
	}
	return 0;
}

/* More than half of the lines with Han or foreign letters have foreign
 * letters: a Japanese (or Korean) document.  A bilingual text, one line
 * Japanese and the next its Chinese translation, is not. */
static int doc_foreign(const char *text, size_t len)
{
	if (!may_have_foreign(text, len))
		return 0;
	size_t lines = 0, foreign = 0;
	for (size_t a = 0; a < len;) {
		size_t x, b;
		jh_line_bounds(text, len, a, &x, &b);
		int f = has_char(text, a, b, is_foreign_letter);
		if (f || has_char(text, a, b, is_han))
			lines++;
		foreign += (size_t)f;
		a = b + 1;
	}
	return foreign && 2 * foreign > lines;
}

/* The foreign sentences of the line around pos (cached). */
static int line_sentences(sentences *s, const char *text, size_t len, size_t pos)
{
	if (s->line_end > s->line_start && pos >= s->line_start && pos < s->line_end)
		return JH_OK;
	size_t a, b;
	jh_line_bounds(text, len, pos, &a, &b);
	s->n = 0;
	s->line_start = a;
	s->line_end = b + 1;
	if (!line_may_be_foreign(text, a, b))
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
	sentences s = {.doc = -1};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		int scope = rc == JH_OK && idx >= 0 && (size_t)idx < n_rules ? (int)rules[idx]->foreign
		                                                              : JH_FOREIGN_NEVER;
		if (scope != JH_FOREIGN_NEVER) {
			if (s.doc < 0)
				s.doc = doc_foreign(text, len);
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
