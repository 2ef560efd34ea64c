/* check_script_chars.c — the script family's checks of single characters:
 * look-alike letters from another alphabet, invisible and control
 * characters, full-width letters and digits, half-width katakana. */
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

/* ==== look-alike letters =============================================== */

/* Cyrillic and Greek letters drawn like Latin ones, and back.  Hand-written
 * because neither utf8proc nor Debian's unicode-data carries Unicode's
 * confusables.txt; these are its single-letter pairs between the three
 * alphabets that look the same in common fonts. */
static const struct {
	int32_t other, latin;
} confusables[] = {
	{0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'},
	{0x041E, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0405, 'S'},
	{0x0406, 'I'}, {0x0408, 'J'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'}, {0x0440, 'p'},
	{0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'},
	{0x04BB, 'h'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
	{0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'},
	{0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'},
	{0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03BF, 'o'}, {0x03BD, 'v'},
};

enum { S_NONE, S_LATIN, S_CYRL, S_GREEK, S_DIGIT };

static int script_of(int32_t cp)
{
	if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
		return S_LATIN;
	if (cp >= '0' && cp <= '9')
		return S_DIGIT;
	if ((cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7))
		return S_LATIN;
	if (cp >= 0x0370 && cp <= 0x03FF && cp != 0x037E && cp != 0x0387)
		return S_GREEK;
	if (cp >= 0x0400 && cp <= 0x052F)
		return S_CYRL;
	return S_NONE;
}

/* The look-alike of cp in script `to`, or -1. */
static int32_t lookalike(int32_t cp, int from, int to)
{
	for (size_t i = 0; i < sizeof confusables / sizeof *confusables; i++) {
		int32_t o = confusables[i].other;
		int os = o < 0x400 ? S_GREEK : S_CYRL;
		if (from == S_LATIN && to == os && confusables[i].latin == cp)
			return o;
		if (to == S_LATIN && from == os && o == cp)
			return confusables[i].latin;
	}
	return -1;
}

typedef struct {
	int digits;   /* find 0/1 in letter words instead of other alphabets */
} lookalike_cfg;

static const char *const lookalike_params[] = {"find", NULL};

static int lookalike_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *v = jh_rule_param(r, "find", &line);
	if (v && strcmp(v, "letters") && strcmp(v, "digits")) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "find must be letters or digits, not '%s'", v);
		return JH_ERR_RULES;
	}
	lookalike_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	c->digits = v && !strcmp(v, "digits");
	*out = c;
	return JH_OK;
}

static void word_letters(jh_brun *run, size_t a, size_t b)
{
	int count[5] = {0}, plain[5] = {0};
	for (size_t p = a, n; p < b; p += n)
		count[script_of(decode_at(run->text, b, p, &n))]++;
	int other = count[S_CYRL] ? S_CYRL : S_GREEK;
	if (!count[S_LATIN] || !count[other] || (count[S_CYRL] && count[S_GREEK]))
		return; /* one alphabet: the common case, decided without the table */
	for (size_t p = a, n; p < b; p += n) { /* letters that look like no other */
		int32_t cp = decode_at(run->text, b, p, &n);
		int s = script_of(cp);
		if (s == S_LATIN ? lookalike(cp, S_LATIN, S_CYRL) < 0 && lookalike(cp, S_LATIN, S_GREEK) < 0
		                 : lookalike(cp, s, S_LATIN) < 0)
			plain[s]++;
	}
	/* the word's alphabet: the one most of its letters are in; a tie
	 * (ΔE, ОК) says nothing */
	if (count[S_LATIN] == count[other])
		return;
	int major = count[S_LATIN] > count[other] ? S_LATIN : other;
	int minor = major == S_LATIN ? other : S_LATIN;
	jh_buf fix = {0};
	int rc = 0, all = 1;
	for (size_t p = a, n; p < b && !rc; p += n) {
		int32_t cp = decode_at(run->text, b, p, &n);
		int32_t to = script_of(cp) == minor ? lookalike(cp, minor, major) : -1;
		if (script_of(cp) == minor && to < 0)
			all = 0;
		if (to >= 0) {
			char u[4];
			size_t k = jh_utf8_encode(to, u);
			rc = jh_buf_append(&fix, u, k);
		} else {
			rc = jh_buf_append(&fix, run->text + p, n);
		}
	}
	if (!all) { /* ΔE, μm: a letter of the other alphabet meant as itself */
		jh_buf_free(&fix);
		return;
	}
	const char *note = minor == S_LATIN ? (other == S_CYRL ? "西里尔文单词中夹着拉丁字母"
	                                                     : "希腊文单词中夹着拉丁字母")
	                   : other == S_CYRL ? "拉丁文单词中夹着形似的西里尔字母"
	                                     : "拉丁文单词中夹着形似的希腊字母";
	if (rc || jh_buf_terminate(&fix)) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		/* safe when the rest of the word settles the alphabet: twice as
		 * many letters, one of them drawn only that way */
		int safe = plain[major] > 0 && count[major] >= 2 * count[minor];
		jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
		            safe ? r->safety : JH_UNSAFE, note};
		if ((rc = jh_findings_add_hit(run->out, run->text, &h)))
			run->err = rc;
	}
	jh_buf_free(&fix);
}

/* Micr0soft, goog1e: 0 or 1 between lower-case letters in a word of
 * letters only.  Product names (Win10, H1N1, a11y, l10n) have other digits,
 * capitals round the digit, or too few letters. */
static void word_digits(jh_brun *run, size_t a, size_t b)
{
	const char *t = run->text;
	int letters = 0, bad = 0, found = 0;
	for (size_t p = a; p < b; p++) {
		unsigned char ch = (unsigned char)t[p];
		if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z')
			letters++;
		else if (ch == '0' || ch == '1') {
			size_t q = p;
			while (q < b && (t[q] == '0' || t[q] == '1'))
				q++;
			if (p > a && q < b && t[p - 1] >= 'a' && t[p - 1] <= 'z' && t[q] >= 'a' && t[q] <= 'z' &&
			    q - p <= 2)
				found = 1;
			else
				bad = 1;
			p = q - 1;
		} else
			bad = 1; /* another digit, or not ASCII */
	}
	if (!found || bad || letters < 4)
		return;
	jh_buf fix = {0};
	for (size_t p = a; p < b; p++)
		if (jh_buf_putc(&fix, t[p] == '0' ? 'o' : t[p] == '1' ? 'l' : t[p])) {
			run->err = JH_ERR_NOMEM;
			jh_buf_free(&fix);
			return;
		}
	script_emit_fix(run, a, b, fix.data, fix.len, 1, "英文单词中的数字0/1疑为字母o/l");
	jh_buf_free(&fix);
}

/* The start of the word of letters and digits (script_of() not S_NONE)
 * that holds the character at p, read backwards: such a character is one
 * ASCII byte, or two bytes of a lead C2-DF (never a continuation byte,
 * so the forward decode starts a character there too) and a
 * continuation byte. */
static size_t word_start(const char *text, size_t p)
{
	const unsigned char *t = (const unsigned char *)text;
	while (p > 0) {
		if (t[p - 1] < 0x80) {
			if (script_of(t[p - 1]) == S_NONE)
				break;
			p--;
		} else if (p >= 2 && (t[p - 1] & 0xC0) == 0x80 && t[p - 2] >= 0xC2 && t[p - 2] <= 0xDF) {
			int32_t cp = (int32_t)((t[p - 2] & 0x1Fu) << 6 | (t[p - 1] & 0x3Fu));
			if (script_of(cp) == S_NONE)
				break;
			p -= 2;
		} else {
			break;
		}
	}
	return p;
}

/* The end of that word, read forwards with the strict decoder. */
static size_t word_end(const char *text, size_t len, size_t p)
{
	while (p < len) {
		size_t n;
		if (script_of(decode_at(text, len, p, &n)) == S_NONE)
			break;
		p += n;
	}
	return p;
}

/* Woken by digits and by the characters of class "other" (the non-ASCII
 * letters among them), not by every ASCII letter: a word of ASCII letters
 * alone can mix no alphabets and hide no 0/1 without a digit, so the
 * class scan steps over it.  The word round a character that can matter
 * is read from the text, once (run_end: where the last word read ends). */
static void lookalike_step(jh_brun *run, const jh_char *c)
{
	const lookalike_cfg *cfg = run->cfg;
	if (c->pos < run->run_end)
		return; /* in the word read already */
	if (cfg->digits ? c->cp != '0' && c->cp != '1' : c->cp < 0x80 || script_of(c->cp) == S_NONE)
		return;
	size_t a = word_start(run->text, c->pos), b = word_end(run->text, run->len, c->pos);
	run->run_end = b;
	if (cfg->digits)
		word_digits(run, a, b);
	else
		word_letters(run, a, b);
}


/* ==== invisible and control characters ================================= */

static int is_rtl(int32_t cp)
{
	return (cp >= 0x0590 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) ||
	       (cp >= 0xFE70 && cp <= 0xFEFC);
}

/* Is cp at [pos, pos+len) one to remove?  Zero-width spaces and joiners, a
 * BOM after the start (censor.zero-width), soft hyphens and variation
 * selectors next to CJK (censor.invisible) are censor's. */
static int unwanted(const char *text, size_t len, int32_t cp, size_t pos, size_t n)
{
	if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
	    (cp >= 0x2061 && cp <= 0x2064))
		return 1;
	if (cp < 0x20)
		return cp != '\t' && cp != '\n' && cp != '\r';
	if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F && cp != 0x85))
		return 1;
	if (cp == 0x200E || cp == 0x200F || cp == 0x061C) {
		size_t k;
		int32_t prev = pos ? decode_at(text, len, jh_utf8_prev(text, pos), &k) : -1;
		int32_t next = pos + n < len ? decode_at(text, len, pos + n, &k) : -1;
		return !is_rtl(prev) && !is_rtl(next); /* marks belong next to Arabic, Hebrew */
	}
	return 0;
}

static void invisible_flush(jh_brun *run)
{
	if (!run->run_len)
		return;
	char note[128];
	size_t n;
	int32_t cp = decode_at(run->text, run->len, run->run_start, &n);
	const char *what = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)
	                       ? "双向文字控制符"
	                   : cp == 0x200E || cp == 0x200F || cp == 0x061C ? "方向标记"
	                   : cp >= 0x2061                                 ? "不可见运算符"
	                                                                  : "控制字符";
	snprintf(note, sizeof note, "%sU+%04X%s", what, (unsigned)cp,
	         run->run_len > 1 ? "等不可见字符" : "");
	script_emit_fix(run, run->run_start, run->run_end, "", 0, 0, note);
	run->run_len = 0;
}

/* An ESC is a finding of its own, never part of a run: it may begin a
 * terminal control sequence (ESC [ 35;1m), a verbatim span that drops any
 * finding editing it, and a stray BEL next to it would be dropped with it. */
static int joins_run(const jh_brun *run, const jh_char *c)
{
	return run->run_len && c->pos == run->run_end && c->cp != 0x1B &&
	       run->text[run->run_start] != 0x1B;
}

static void invisible_step(jh_brun *run, const jh_char *c)
{
	if (c->cp < 0 || !unwanted(run->text, run->len, c->cp, c->pos, c->len)) {
		invisible_flush(run);
		return;
	}
	if (joins_run(run, c)) {
		run->run_end += c->len;
		run->run_len++;
		return;
	}
	invisible_flush(run);
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
}

static void invisible_finish(jh_brun *run) { invisible_flush(run); }

/* ==== full-width letters and digits ==================================== */

/* ＡＴＴＡＣＫ → ATTACK: one finding a run (a lexicon gives one a character).
 * U+FF01–U+FF5E are ASCII shifted by 0xFEE0; the class scan wakes us on the
 * letters and digits only, so full-width punctuation is not touched. */
static void fullwidth_flush(jh_brun *run)
{
	if (!run->run_len)
		return;
	char fix[256], *o = fix;
	size_t a = run->run_start, b = run->run_end, n;
	int letters = 0, digits = 0;
	jh_buf buf = {0};
	for (size_t p = a; p < b; p += n) {
		int32_t cp = decode_at(run->text, b, p, &n) - 0xFEE0;
		digits += cp >= '0' && cp <= '9';
		letters += !(cp >= '0' && cp <= '9') && cp != '-';
		*o++ = (char)cp;
		if (o - fix == (long)sizeof fix) { /* a long run: flush the stack buffer */
			if (jh_buf_append(&buf, fix, sizeof fix))
				run->err = JH_ERR_NOMEM;
			o = fix;
		}
	}
	if (jh_buf_append(&buf, fix, (size_t)(o - fix)))
		run->err = JH_ERR_NOMEM;
	if (!run->err)
		script_emit_fix(run, a, b, buf.data, buf.len, 0,
		         letters && digits ? "全角字母和数字" : digits ? "全角数字" : "全角字母");
	jh_buf_free(&buf);
	run->run_len = 0;
}

/* A full-width hyphen U+FF0D between two letters or digits of a run
 * (ＡＢＣ－１) is part of the model number: left full-width it would stand
 * alone between the half-width ones (ABC－1).  Elsewhere － is punctuation
 * and stays. */
#define FW_HYPHEN "\xEF\xBC\x8D"

static void fullwidth_step(jh_brun *run, const jh_char *c)
{
	if (run->run_len && (c->pos == run->run_end ||
	                     (c->pos == run->run_end + 3 &&
	                      !memcmp(run->text + run->run_end, FW_HYPHEN, 3)))) {
		run->run_len += 1 + (c->pos != run->run_end);
		run->run_end = c->pos + c->len;
		return;
	}
	fullwidth_flush(run);
	run->run_start = c->pos;
	run->run_end = c->pos + c->len;
	run->run_len = 1;
}

static void fullwidth_finish(jh_brun *run) { fullwidth_flush(run); }

/* ==== half-width katakana ============================================== */

/* ｶﾀｶﾅ → カタカナ: NFKC (utf8proc) joins a sound mark to its letter.  A
 * run needs three characters, two of them letters, so the arms and eyes of
 * kaomoji ((ﾟ∀ﾟ), ヽ(ﾟ∀ﾟ)ﾉ) are left alone. */
static void kana_flush(jh_brun *run)
{
	if (run->run_len >= 3 && run->open >= 2) {
		utf8proc_uint8_t *out = NULL;
		utf8proc_ssize_t n = utf8proc_map(
			(const utf8proc_uint8_t *)run->text + run->run_start,
			(utf8proc_ssize_t)(run->run_end - run->run_start), &out,
			UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
		if (n < 0)
			run->err = n == UTF8PROC_ERROR_NOMEM ? JH_ERR_NOMEM : run->err;
		else
			script_emit_fix(run, run->run_start, run->run_end, (const char *)out, (size_t)n, 0, NULL);
		free(out);
	}
	run->run_len = 0;
	run->open = 0;
}

static void kana_step(jh_brun *run, const jh_char *c)
{
	int half = c->cp >= 0xFF66 && c->cp <= 0xFF9F;
	if (!half) {
		kana_flush(run);
		return;
	}
	if (!(run->run_len && c->pos == run->run_end)) {
		kana_flush(run);
		run->run_start = c->pos;
		run->run_end = c->pos;
	}
	run->run_end += c->len;
	run->run_len++;
	run->open += c->cp <= 0xFF9D; /* letters, not sound marks */
}

static void kana_finish(jh_brun *run) { kana_flush(run); }

/* Of ASCII, only the 0 and 1 of digits mode wake lookalike_step. */
static void lookalike_ascii(const void *cfg, unsigned char wants[128])
{
	if (((const lookalike_cfg *)cfg)->digits)
		wants['0'] = wants['1'] = JH_ASCII_ALWAYS;
}

const jh_builtin_def jh_checks_script_chars[] = {
	{"lookalike", JH_C_DIGIT | JH_C_OTHER, lookalike_params, lookalike_compile, free,
	 lookalike_step, NULL, 0, JH_HAN_ALL, NULL, lookalike_ascii},
	{"invisible", JH_C_INVISIBLE | JH_C_OTHER, NULL, NULL, NULL, invisible_step, invisible_finish},
	{"fullwidth", JH_C_FULLWIDTH_ALNUM, NULL, NULL, NULL, fullwidth_step, fullwidth_finish},
	{"halfwidth-kana", JH_C_KANA, NULL, NULL, NULL, kana_step, kana_finish},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
