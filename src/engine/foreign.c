/* foreign.c — Japanese and Korean inside Chinese text.  Kanji are Han
 * characters (世界中の数百: 数 is Japanese, not simplified Chinese), and
 * Japanese and Korean have punctuation conventions of their own (、 and
 * . , ? in Korean), so the script and punctuation rules leave a Japanese or
 * Korean sentence alone.  A sentence is Japanese when it has hiragana,
 * Korean when it has hangul; a paragraph (a line) in which such sentences are at
 * least half is left alone whole (its sentences of kanji only included).
 * The half-width katakana check is about kana and keeps its findings. */
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "foreign.h"
#include "utf8.h"
#include "util.h"

static int foreign_family(const jh_rule *r)
{
	if (!r->family || (strcmp(r->family, "script") && strcmp(r->family, "punct")))
		return 0;
	return !(r->check && !strcmp(r->check, "halfwidth-kana"));
}

static int is_foreign_letter(int32_t cp)
{
	/* hiragana: a Japanese sentence has its particles (の は を), a Chinese
	 * one with a loanword in katakana (念叨著コンビニ的便當) has none, and
	 * half-width katakana is damage for script.halfwidth-kana to mend */
	return (cp >= 0x3041 && cp <= 0x309F) ||
	       (cp >= 0xAC00 && cp <= 0xD7A3) || /* hangul syllables and jamo */
	       (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3131 && cp <= 0x318E);
}

static int ends_sentence(int32_t cp)
{
	return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == '!' || cp == '?' || cp == '.' ||
	       cp == 0xFF0E;
}

typedef struct {
	size_t *v; /* start, end pairs of the foreign sentences of the line */
	size_t n, cap;
	size_t line_start, line_end;
} sentences;

static int push(sentences *s, size_t a, size_t b)
{
	if (s->n + 2 > s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		size_t *nv = realloc(s->v, nc * sizeof *nv);
		if (!nv)
			return JH_ERR_NOMEM;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = a;
	s->v[s->n++] = b;
	return JH_OK;
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
	size_t start = a, total = 0, foreign = 0;
	int has = 0, any = 0;
	for (size_t p = a; p < b;) {
		int32_t cp;
		size_t k = jh_utf8_decode((const unsigned char *)text + p, b - p, &cp);
		if (is_foreign_letter(cp))
			has = 1;
		if (!is_foreign_letter(cp) && cp > ' ')
			any = 1;
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
			if (has || any) {
				total++;
				if (has) {
					foreign++;
					if (push(s, start, p))
						return JH_ERR_NOMEM;
				}
			}
			start = p;
			has = any = 0;
		}
	}
	if (foreign && 2 * foreign >= total) { /* the paragraph is foreign */
		s->n = 0;
		return push(s, a, b + 1);
	}
	return JH_OK;
}

static int in_foreign(const sentences *s, size_t fs, size_t fe)
{
	for (size_t i = 0; i < s->n; i += 2)
		if (fs >= s->v[i] && fs < s->v[i + 1] && (fe <= s->v[i + 1]))
			return 1;
	return 0;
}

int jh_foreign_drop(jh_findings *out, size_t first, const char *text, size_t len,
                    const jh_rule *const *rules, size_t n_rules)
{
	sentences s = {0};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		if (rc == JH_OK && idx >= 0 && (size_t)idx < n_rules && foreign_family(rules[idx])) {
			rc = line_sentences(&s, text, len, f->byte_start);
			if (rc == JH_OK && s.n && in_foreign(&s, f->byte_start, f->byte_end))
				continue; /* its strings stay in the list's store */
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(s.v);
	return rc;
}
