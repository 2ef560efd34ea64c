/* check_script.c — the variant checks of the script family: simplified and
 * traditional characters mixed in one text, conversion errors inside
 * traditional text, regional forms (their tables: script_tables.c; the
 * checks of single characters: check_script_chars.c).
 *
 * The variant checks hold their own tables (rules/data/script-*.tsv, made
 * by rules/tools/gen-script-tables.py from OpenCC and jieba): which variant
 * a text is in is known only at its end, so they cannot be lexicon rules.
 * In the scan they only count, one table lookup per Han character; the
 * paragraphs that hold something to report are decoded a second time in
 * finish(). */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/mman.h>
#include <utf8proc.h>
#include "builtins.h"
#include "charclass.h"
#include "tablecache.h"
#include "utf8.h"

#include "script.h"

static const char *const variant_params[] = {"variant", "chars", "phrases", "paragraph-min", NULL};
static const char *const regional_params[] = {"variant", "chars", "regional", "standard",
                                              "paragraph-min", NULL};

typedef struct {
	size_t start, end;
	uint32_t hans, hant, suspects;
	int v;               /* the variant it is held to, set in finish() */
} para;

typedef struct {
	para *v;
	size_t n, cap;
	para cur;
	/* The phrase check's suspects as the scan met them, each as its offset
	 * from its paragraph's start (4 bytes a suspect), the paragraphs' in
	 * their order (p->suspects each), so that finish() need not decode
	 * the traditional paragraphs a second time to find them again;
	 * sus_lost: an offset did not fit, next_suspect() finds them. */
	uint32_t *sus;
	size_t n_sus, cap_sus;
	int sus_lost;
} variant_state;

static void para_close(jh_brun *run, variant_state *s, size_t end)
{
	s->cur.end = end;
	if (s->cur.hans || s->cur.hant || s->cur.suspects) {
		if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
			run->err = JH_ERR_NOMEM;
		else
			s->v[s->n++] = s->cur;
	}
	s->cur = (para){end, end, 0, 0, 0, 0};
}

/* What a Han character counts for in this check. */
static inline uint8_t mode_flags(const variant_cfg *cfg, int32_t cp)
{
	uint8_t f = char_flags(cfg, cp);
	if (cfg->mode == MODE_CHARS)
		f &= F_HANS | F_HANT;
	else if (cfg->mode == MODE_REGIONAL) /* its suspects are the regional forms */
		f = (f & (F_HANS | F_HANT)) | (cp < 0x10000 && cfg->group[cp] ? F_SUSPECT : 0);
	return f;
}

/* The next suspect character of [p, end): its position (and length in
 * *n), or SIZE_MAX.  The regional check finds its suspects again in the
 * paragraphs it looks at rather than keep every position from the scan
 * (the phrase check keeps them, 4 bytes each: variant_state). */
static size_t next_suspect(const jh_brun *run, size_t p, size_t end, size_t *n)
{
	const variant_cfg *cfg = run->cfg;
	const unsigned char *t = (const unsigned char *)run->text;
	while (p < end) {
		if (t[p] < 0x80) { /* ASCII: never a suspect */
			p++;
			continue;
		}
		/* Three bytes, the form of every BMP Han character: no character
		 * starts inside them, whatever they decode to. */
		if (t[p] >= 0xE0 && t[p] < 0xF0 && p + 2 < run->len && (t[p + 1] & 0xC0) == 0x80 &&
		    (t[p + 2] & 0xC0) == 0x80) {
			int32_t cp = (t[p] & 0x0F) << 12 | (t[p + 1] & 0x3F) << 6 | (t[p + 2] & 0x3F);
			if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) && (mode_flags(cfg, cp) & F_SUSPECT) &&
			    (jh_class_of(cp) & JH_C_HAN)) {
				*n = 3;
				return p;
			}
			p += 3;
			continue;
		}
		int32_t cp = decode_at(run->text, run->len, p, n);
		if (cp >= 0 && (mode_flags(cfg, cp) & F_SUSPECT) && (jh_class_of(cp) & JH_C_HAN))
			return p;
		p += *n ? *n : 1;
	}
	return SIZE_MAX;
}

/* Out of variant_step's line: it runs for every Han character with a
 * flag, this for the few suspects. */
__attribute__((noinline)) static void keep_suspect(jh_brun *run, variant_state *s, size_t pos)
{
	size_t off = pos - s->cur.start;
	if (s->sus_lost)
		return;
	if (off > UINT32_MAX)
		s->sus_lost = 1;
	else if (s->n_sus == s->cap_sus &&
	         jh_grow((void **)&s->sus, &s->cap_sus, s->n_sus + 1, sizeof *s->sus))
		run->err = JH_ERR_NOMEM;
	else
		s->sus[s->n_sus++] = (uint32_t)off;
}

__attribute__((noinline)) static void variant_step_slow(jh_brun *run, const jh_char *c)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	if (c->cls & JH_C_NEWLINE) {
		if (s && c->cp != '\r')
			para_close(run, s, c->pos + c->len);
		else if (!s)
			run->run_start = c->pos + c->len; /* start of the paragraph, until state exists */
		return;
	}
	uint8_t f = mode_flags(cfg, c->cp);
	if (!f)
		return;
	if (!s) {
		if (!(s = run->state = calloc(1, sizeof *s))) {
			run->err = JH_ERR_NOMEM;
			return;
		}
		s->cur.start = run->run_start;
	}
	s->cur.hans += !!(f & F_HANS);
	s->cur.hant += !!(f & F_HANT);
	s->cur.suspects += !!(f & F_SUSPECT);
	if ((f & F_SUSPECT) && cfg->mode == MODE_PHRASES)
		keep_suspect(run, s, c->pos);
}

/* Most calls: a BMP Han character in a paragraph after the first flagged
 * one, counted without a call or a stack frame; the rest (newlines, the
 * first flagged character, astral ones, the regional check) go to
 * variant_step_slow. */
static void variant_step(jh_brun *run, const jh_char *c)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	if (s && (c->cls & JH_C_NEWLINE) && c->cp != '\r') {
		para_close(run, s, c->pos + c->len);
		return;
	}
	if (!s || (c->cls & JH_C_NEWLINE) || c->cp >= 0x10000 || cfg->mode == MODE_REGIONAL) {
		variant_step_slow(run, c);
		return;
	}
	unsigned f = cfg->bmp[c->cp];
	if (cfg->mode == MODE_CHARS)
		f &= F_HANS | F_HANT;
	s->cur.hans += f & F_HANS;
	s->cur.hant += (f & F_HANT) >> 1;
	s->cur.suspects += (f & F_SUSPECT) >> 2;
	if ((f & F_SUSPECT) && cfg->mode == MODE_PHRASES)
		keep_suspect(run, s, c->pos);
}

/* The Han characters variant_step counts: those mode_flags() gives flags,
 * in the ranges of BMP Han characters (charclass.h); one pass over the
 * flag table, as this runs at every start-up. */
static void variant_mark(const void *cfg, uint16_t *table, uint16_t bit)
{
	static const int32_t han[][2] = {{0x3007, 0x3007}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
	                                 {0xF900, 0xFAFF}};
	const variant_cfg *c = cfg;
	uint8_t keep = c->mode == MODE_PHRASES ? 0xFF : F_HANS | F_HANT;
	const uint8_t *group = c->mode == MODE_REGIONAL ? c->group : NULL;
	/* sixteen code points at a time (SSE2, x86-64's baseline): one at a
	 * time, the three variant checks' 84,000 code points cost 0.7 M
	 * instructions of every start */
	const uint8_t *f = c->bmp;
	for (size_t r = 0; r < sizeof han / sizeof *han; r++) {
		size_t cp = (size_t)han[r][0], end = (size_t)han[r][1] + 1;
#ifdef __SSE2__
		const __m128i k = _mm_set1_epi8((char)keep), zero = _mm_setzero_si128();
		const __m128i b16 = _mm_set1_epi16((short)bit);
		for (; cp + 16 <= end; cp += 16) {
			__m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(f + cp)), k);
			if (group)
				v = _mm_or_si128(v, _mm_loadu_si128((const __m128i *)(group + cp)));
			__m128i none = _mm_cmpeq_epi8(v, zero); /* FF where nothing is marked */
			__m128i *t = (__m128i *)(table + cp);
			__m128i lo = _mm_andnot_si128(_mm_unpacklo_epi8(none, none), b16);
			__m128i hi = _mm_andnot_si128(_mm_unpackhi_epi8(none, none), b16);
			_mm_storeu_si128(t, _mm_or_si128(_mm_loadu_si128(t), lo));
			_mm_storeu_si128(t + 1, _mm_or_si128(_mm_loadu_si128(t + 1), hi));
		}
#endif
		for (; cp < end; cp++)
			if ((f[cp] & keep) || (group && group[cp]))
				table[cp] |= bit;
	}
}

/* A paragraph's own variant, when it has enough evidence of it. */
static int para_own(const variant_cfg *cfg, const para *p)
{
	if (p->hans + p->hant >= cfg->para_min) {
		if (p->hans >= 4 * p->hant)
			return V_HANS;
		if (p->hant >= 4 * p->hans)
			return V_HANT;
	}
	return V_NONE;
}

/* The variant each paragraph is held to (in p->v): the one asked for; else,
 * when the minority variant makes up less than a fifth of the document,
 * the document's; else (a long file with chapters in both) its own when it
 * has enough evidence, or that of the nearest paragraph before it (after
 * it, at the start) that has. */
static void para_variants(const variant_cfg *cfg, int forced, para *v, size_t n)
{
	unsigned long hans = 0, hant = 0;
	for (size_t i = 0; i < n; i++) {
		hans += v[i].hans;
		hant += v[i].hant;
	}
	unsigned long minor = hans < hant ? hans : hant;
	if (!hans && !hant)
		return;
	int mixed = hans + hant >= 4 * cfg->para_min && minor * 5 >= hans + hant;
	int doc = forced ? forced : !mixed ? (hant > hans ? V_HANT : V_HANS) : V_NONE;
	if (doc) {
		for (size_t i = 0; i < n; i++)
			v[i].v = doc;
		return;
	}
	int last = V_NONE;
	for (size_t i = 0; i < n; i++) {
		int own = para_own(cfg, &v[i]);
		last = own ? own : last;
		v[i].v = last;
	}
	for (size_t i = n; i-- > 0;) {
		int own = para_own(cfg, &v[i]);
		last = own ? own : i + 1 < n ? v[i + 1].v : V_NONE;
		if (!v[i].v)
			v[i].v = last;
	}
}

/* Is [a, b) inside a short quotation on its line: an inscription, a sign,
 * a title (门匾上写着“天下第一樓”, 《紅樓夢》) of at most QUOTE_MAX
 * characters between its marks, with no sentence punctuation in it?  A
 * writer quotes such a text in its own script on purpose; dialogue (a
 * quotation with a clause mark in it, or a long one) is not this. */
#define QUOTE_MAX 12
static int cp_in_set(int32_t cp, const char *set);
static int quoted_inscription(const char *text, size_t len, size_t a, size_t b)
{
	static const char open_marks[] = "“「『《〈‘\"";
	static const char close_marks[] = "”」』》〉’\"";
	static const char stops[] = "，。！？；：、,.!?;:\n";
	int32_t opened = 0, cp;
	size_t n, chars = 0, p = a;
	while (p > 0 && chars <= QUOTE_MAX) {
		p = jh_utf8_prev(text, p);
		jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (cp_in_set(cp, open_marks)) {
			opened = cp;
			break;
		}
		if (cp_in_set(cp, stops) || cp_in_set(cp, close_marks))
			return 0;
		chars++;
	}
	if (!opened)
		return 0;
	for (p = b; p < len && chars <= QUOTE_MAX; p += n, chars++) {
		n = jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (cp_in_set(cp, close_marks))
			return 1;
		if (cp_in_set(cp, stops) || cp_in_set(cp, open_marks))
			return 0;
	}
	return 0;
}

static int cp_in_set(int32_t cp, const char *set)
{
	for (const char *q = set; *q;) {
		int32_t c;
		q += jh_utf8_decode((const unsigned char *)q, strlen(q), &c);
		if (c == cp)
			return 1;
	}
	return 0;
}

/* How sure a conversion in a paragraph is (para_doubt). */
enum { DOUBT_NONE, DOUBT_MIXED, DOUBT_QUOTE };

/* A run of minority characters [a, b): one finding, converted character by
 * character; safe only if each has a single form in the other variant.  In
 * a short quotation (an inscription) or a paragraph written in the other
 * variant (a quoted verse) it is a hint with an unsafe fix; in a paragraph
 * mixed near half and half, a warning with an unsafe fix. */
static void emit_chars(jh_brun *run, size_t a, size_t b, int v, int doubt)
{
	const variant_cfg *cfg = run->cfg;
	jh_buf fix = {0}, note = {0}, alts = {0};
	int single = 1, rc = 0;
	rc |= jh_buf_puts(&note, v == V_HANT ? "繁体文本中夹杂简体字" : "简体文本中夹杂繁体字");
	for (size_t p = a; p < b && !rc;) {
		size_t n;
		int32_t cp = decode_at(run->text, b, p, &n);
		const char_ent *e = find_ent(cfg, cp);
		const char *forms = e ? e->forms : "";
		size_t first = strcspn(forms, "|");
		if (first)
			rc |= jh_buf_append(&fix, forms, first);
		else
			rc |= jh_buf_append(&fix, run->text + p, n);
		if (forms[first] == '|') {
			single = 0;
			rc |= jh_buf_puts(&alts, alts.len ? "；" : "");
			rc |= jh_buf_append(&alts, run->text + p, n);
			rc |= jh_buf_puts(&alts, "可作");
			for (const char *q = forms; *q; q++)
				rc |= *q == '|' ? jh_buf_puts(&alts, "、") : jh_buf_putc(&alts, *q);
		}
		p += n;
	}
	if (alts.len)
		rc |= jh_buf_puts(&note, "（") || jh_buf_append(&note, alts.data, alts.len) ||
		      jh_buf_puts(&note, "，须按词义选择）");
	rc |= jh_buf_terminate(&fix) || jh_buf_terminate(&note);
	if (rc) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int quoted = doubt == DOUBT_QUOTE || quoted_inscription(run->text, run->len, a, b);
		jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
		            single && !quoted && !doubt ? r->safety : JH_UNSAFE, note.data};
		if ((rc = jh_findings_add_hit(run->out, run->text, &h)))
			run->err = rc;
		else if (quoted)
			run->out->items[run->out->count - 1].severity = JH_INFO;
	}
	jh_buf_free(&fix);
	jh_buf_free(&note);
	jh_buf_free(&alts);
}

/* Counts of a paragraph (or block) held to v that say otherwise: written
 * in the other variant (a quoted verse, 關關雎鳩 in a simplified anthology:
 * four to one the other way, at least two characters), or mixed near half
 * and half (four to five or more the other way, at least four characters),
 * where no conversion is sure. */
static int counts_doubt(uint32_t hans, uint32_t hant, int v)
{
	uint32_t against = v == V_HANT ? hans : hant, held = v == V_HANT ? hant : hans;
	if (against >= 2 && against >= 4 * held)
		return DOUBT_QUOTE;
	if (against + held >= 4 && 5 * against >= 4 * held)
		return DOUBT_MIXED;
	return DOUBT_NONE;
}

/* Does the text between two paragraphs hold a line without CJK (a blank
 * line, fortune's %, a scene break of ***)?  Then they are two blocks. */
static int block_break(const char *text, size_t a, size_t b)
{
	int cjk = 1;
	for (size_t i = a; i < b; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n') {
			if (!cjk)
				return 1;
			cjk = 0;
		} else if (c >= 0xE3)
			cjk = 1;
	}
	return 0;
}

/* The doubt of paragraph i: its own counts, or those of its block (the
 * paragraphs around it up to a line without CJK), whichever is greater: a
 * line of a quoted verse may hold one traditional character and nothing
 * of its own variant (于嗟闊兮), its stanza says what it is. */
static int para_doubt(const jh_brun *run, const para *v, size_t n, size_t i)
{
	int own = counts_doubt(v[i].hans, v[i].hant, v[i].v);
	uint32_t hans = v[i].hans, hant = v[i].hant;
	for (size_t k = i; k > 0 && !block_break(run->text, v[k - 1].end, v[k].start); k--) {
		hans += v[k - 1].hans;
		hant += v[k - 1].hant;
	}
	for (size_t k = i; k + 1 < n && !block_break(run->text, v[k].end, v[k + 1].start); k++) {
		hans += v[k + 1].hans;
		hant += v[k + 1].hant;
	}
	int block = counts_doubt(hans, hant, v[i].v);
	return own > block ? own : block;
}

static void chars_in_para(jh_brun *run, const para *p, int v, int doubt)
{
	const variant_cfg *cfg = run->cfg;
	uint8_t want = v == V_HANT ? F_HANS : F_HANT;
	size_t a = 0, b = 0;
	int open = 0;
	for (size_t i = p->start; i < p->end && !run->err;) {
		size_t n;
		int32_t cp = decode_at(run->text, p->end, i, &n);
		if (cp >= 0 && (char_flags(cfg, cp) & want)) {
			if (!open)
				a = i;
			open = 1;
			b = i + n;
		} else if (open) {
			emit_chars(run, a, b, v, doubt);
			open = 0;
		}
		i += n;
	}
	if (open)
		emit_chars(run, a, b, v, doubt);
}

static int is_numeral(int32_t cp)
{
	return (cp >= '0' && cp <= '9') || (cp >= 0xFF10 && cp <= 0xFF19) ||
	       cp_in(cp, "〇一二三四五六七八九十百千萬万兩两幾几");
}

void script_emit_fix(jh_brun *run, size_t a, size_t b, const char *right, size_t rlen, int unsafe,
                     const char *note)
{
	const jh_rule *r = run->rule;
	jh_buf fix = {0};
	if (jh_buf_append(&fix, right, rlen) || jh_buf_terminate(&fix)) {
		run->err = JH_ERR_NOMEM;
		jh_buf_free(&fix);
		return;
	}
	jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
	            unsafe ? JH_UNSAFE : r->safety, note};
	int rc = jh_findings_add_hit(run->out, run->text, &h);
	if (rc)
		run->err = rc;
	jh_buf_free(&fix);
}

/* 150余騎兵 → 150餘騎兵, 20裡 → 20里: after a numeral 余 is "more than"
 * and 裡 the unit of length (but 十裡面, 百裡挑一 are left alone). */
static int numeral_fix(jh_brun *run, size_t a, size_t b, int32_t cp)
{
	if (a == 0)
		return 0;
	size_t pb = jh_utf8_prev(run->text, a), n;
	if (!is_numeral(decode_at(run->text, run->len, pb, &n)))
		return 0;
	while (pb > 0 && run->text[pb] >= '0' && run->text[pb] <= '9')
		pb--; /* template1裡: the digit ends a name, it is no number */
	if (isalpha((unsigned char)run->text[pb]) || run->text[pb] == '_')
		return 0;
	if (cp == 0x4F59) {
		script_emit_fix(run, a, b, "餘", strlen("餘"), 0, "数词后的“余”在繁体中作“餘”");
		return 1;
	}
	int32_t next = b < run->len ? decode_at(run->text, run->len, b, &n) : -1;
	if (next >= 0 && cp_in(next, "面頭头邊边挑"))
		return 0;
	script_emit_fix(run, a, b, "里", strlen("里"), 0, "表示距离的“里”在繁体中不作“裡/裏”");
	return 1;
}

/* Look for a phrase of the table around the suspect character [a, b) of a
 * traditional paragraph; the longest wins, then the leftmost.  Returns the
 * end of what was reported, or 0. */
static size_t phrase_at(jh_brun *run, const para *pp, size_t a, size_t b, size_t done)
{
	const variant_cfg *cfg = run->cfg;
	enum { K = 3 };
	size_t bounds[2 * K + 2];
	int nb = 0, na = 0;
	size_t before[K], after[K];
	for (size_t p = a; nb < K && p > pp->start && p > done;) {
		size_t q = jh_utf8_prev(run->text, p), n;
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		before[nb++] = p = q;
	}
	for (size_t p = b; na < K && p < pp->end;) {
		size_t n;
		int32_t cp = decode_at(run->text, run->len, p, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		after[na++] = p += n;
	}
	int m = 0;
	for (int i = nb - 1; i >= 0; i--)
		bounds[m++] = before[i];
	int self = m;
	bounds[m++] = a;
	bounds[m++] = b;
	for (int i = 0; i < na; i++)
		bounds[m++] = after[i];
	/* bounds[0..m) are character starts and the last end; the suspect is
	 * the character from bounds[self] to bounds[self+1] */
	for (int l = 4; l >= 2; l--)
		for (int s = self - l + 1; s <= self; s++) {
			if (s < 0 || s + l > m - 1)
				continue;
			size_t ws = bounds[s], we = bounds[s + l];
			/* no phrase begins and ends as this window: not hashed */
			if (cfg->pair_bits && we - ws >= 6 &&
			    !bit_at(cfg->pair_bits, ends_key((const unsigned char *)run->text + ws, we - ws)))
				continue;
			const phrase_ent *e = find_phrase(cfg, run->text + ws, we - ws);
			if (!e)
				continue;
			size_t n;
			const char *prev_not = cfg->ph_text + e->prev_not, *next_not = cfg->ph_text + e->next_not;
			const char *right = cfg->ph_text + e->right;
			if (ws > 0 && *prev_not &&
			    cp_in(decode_at(run->text, run->len, jh_utf8_prev(run->text, ws), &n), prev_not))
				continue;
			if (we < run->len && *next_not && cp_in(decode_at(run->text, run->len, we, &n), next_not))
				continue;
			size_t rl = strcspn(right, "|");
			script_emit_fix(run, ws, we, right, rl, right[rl] == '|', NULL);
			return we;
		}
	return 0;
}

/* The suspects of paragraph p: the k offsets at sus from its start that
 * the scan kept, or (sus NULL) those next_suspect() finds. */
static void phrases_in_para(jh_brun *run, const para *p, const uint32_t *sus, size_t k)
{
	size_t done = p->start, n, j = 0;
	for (size_t i = p->start;
	     (i = sus ? (j < k ? p->start + sus[j++] : SIZE_MAX) : next_suspect(run, i, p->end, &n)) !=
	             SIZE_MAX &&
	     !run->err;
	     i += n) {
		if (i < done)
			continue;
		int32_t cp = decode_at(run->text, run->len, i, &n);
		size_t end = phrase_at(run, p, i, i + n, done);
		if (!end && (cp == 0x4F59 || cp == 0x88E1 || cp == 0x88CF) && numeral_fix(run, i, i + n, cp))
			end = i + n;
		if (end)
			done = end;
	}
}

/* Regional forms in the traditional paragraphs: each group's form is the
 * standard asked for, else the one the text uses most; the others are
 * reported.  Unsafe: 著 is also the OpenCC form of zhù (著名), so 著 → 着 needs
 * a reader. */
static void regional_finish(jh_brun *run, const variant_state *s)
{
	const variant_cfg *cfg = run->cfg;
	uint32_t (*count)[GROUP_FORMS] = calloc(MAX_GROUPS, sizeof *count);
	if (!count) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	size_t n;
	for (size_t i = 0; i < s->n; i++) { /* count the forms used in traditional paragraphs */
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX; a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			for (int f = 0; f < GROUP_FORMS; f++)
				count[g][f] += cfg->forms[g][f] == cp;
		}
	}
	int32_t want[MAX_GROUPS] = {0};
	for (int g = 0; g < MAX_GROUPS; g++) {
		if (cfg->standard) {
			want[g] = cfg->forms[g][cfg->standard - 1];
			continue;
		}
		int best = -1;
		for (int f = 0; f < GROUP_FORMS; f++)
			if (count[g][f] && (best < 0 || count[g][f] > count[g][best]))
				best = f;
		want[g] = best >= 0 ? cfg->forms[g][best] : 0;
	}
	for (size_t i = 0; i < s->n && !run->err; i++) {
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; !run->err && (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX;
		     a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			if (!want[g] || want[g] == cp)
				continue;
			char u[5];
			u[jh_utf8_encode(want[g], u)] = 0;
			script_emit_fix(run, a, a + n, u, strlen(u), 1, NULL);
		}
	}
	free(count);
}

static void variant_finish(jh_brun *run)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	if (!s)
		return;
	para_close(run, s, run->len);
	int forced = parse_variant(run->variant);
	if (forced <= 0)
		forced = cfg->variant;
	para_variants(cfg, forced, s->v, s->n);
	size_t first_sus = 0; /* in s->sus, paragraph i's first suspect */
	for (size_t i = 0; i < s->n && !run->err; first_sus += s->v[i++].suspects) {
		const para *p = &s->v[i];
		if (cfg->mode == MODE_CHARS && ((p->v == V_HANT && p->hans) || (p->v == V_HANS && p->hant)))
			/* the variant asked for is no guess: no doubt */
			chars_in_para(run, p, p->v, forced > 0 ? DOUBT_NONE : para_doubt(run, s->v, s->n, i));
		if (cfg->mode == MODE_PHRASES && p->v == V_HANT && p->suspects) {
			phrases_arg a = {(variant_cfg *)cfg, run->diag_fn, run->payload};
			int rc = jh_lazy_get(&((variant_cfg *)cfg)->phrases_once, load_phrases, &a);
			if (rc == JH_ERR_NOMEM)
				run->err = rc;
			if (rc) /* a table gone since compiling: reported, no phrase findings */
				break;
			int kept = !s->sus_lost && first_sus + p->suspects <= s->n_sus;
			phrases_in_para(run, p, kept ? s->sus + first_sus : NULL, p->suspects);
		}
	}
	if (cfg->mode == MODE_REGIONAL)
		regional_finish(run, s);
	free(s->sus);
	free(s->v);
	free(s);
	run->state = NULL;
}

const jh_builtin_def jh_checks_script[] = {
	{"variant", JH_C_HAN | JH_C_NEWLINE, variant_params, chars_compile, variant_free, variant_step,
	 variant_finish, 0, JH_HAN_WANTS, variant_mark},
	{"conversion", JH_C_HAN | JH_C_NEWLINE, variant_params, phrases_compile, variant_free,
	 variant_step, variant_finish, 0, JH_HAN_WANTS, variant_mark},
	{"regional", JH_C_HAN | JH_C_NEWLINE, regional_params, regional_compile, variant_free,
	 variant_step, variant_finish, 0, JH_HAN_WANTS, variant_mark},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
