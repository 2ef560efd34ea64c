/* encoding.c — a file's bytes → UTF-8 text for the rules, and back.
 *
 * Order of decisions: a forced --encoding (a BOM of its own family gives
 * the byte order); a BOM; strict UTF-8; UTF-16
 * without BOM (its ASCII characters leave NUL bytes on one side); uchardet,
 * loaded with dlopen the first time a file needs it (linked, it brought the
 * C++ runtime into every start: about 3 ms of a 25 ms hook run).
 * Text is decoded with iconv in chunks of whole characters; every chunk
 * start is remembered (u8 offset, file offset), so a position in the text is
 * turned back into one in the file by walking at most one chunk.  A byte that
 * cannot be decoded becomes the byte 0xFF in the text (never valid UTF-8, so
 * the engine reports it and the fixer never touches it) and is kept aside:
 * encoding the text again puts each original byte back in its place. */
#include <dlfcn.h>
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uchardet.h>
#include "document.h"
#include "util.h"
#include "config.h"
#include "utf8.h"

#define MARKER 0xFF
#define CHUNK_CHARS 64

void decoded_free(decoded *d)
{
	if (d->cd)
		iconv_close((iconv_t)d->cd);
	if (!d->utf8)
		free(d->text);
	free(d->marks);
	free(d->bad);
	memset(d, 0, sizeof *d);
}

/* ---- the length of one character in the file's encoding ---- */

typedef enum { FAM_GENERIC, FAM_GB18030, FAM_DBCS, FAM_SJIS, FAM_EUCJP, FAM_EUCTW, FAM_UTF16LE,
	       FAM_UTF16BE, FAM_UTF32, FAM_SINGLE } family;

static family family_of(const char *name)
{
	if (!strcasecmp(name, "GB18030"))
		return FAM_GB18030;
	if (!strncasecmp(name, "BIG5", 4) || !strcasecmp(name, "CP950") || !strcasecmp(name, "GBK") ||
	    !strcasecmp(name, "CP936") || !strcasecmp(name, "EUC-KR") || !strcasecmp(name, "CP949") ||
	    !strcasecmp(name, "UHC"))
		return FAM_DBCS;
	if (!strcasecmp(name, "SHIFT_JIS") || !strcasecmp(name, "CP932"))
		return FAM_SJIS;
	if (!strcasecmp(name, "EUC-JP"))
		return FAM_EUCJP;
	if (!strcasecmp(name, "EUC-TW"))
		return FAM_EUCTW;
	if (!strcasecmp(name, "UTF-16LE"))
		return FAM_UTF16LE;
	if (!strcasecmp(name, "UTF-16BE"))
		return FAM_UTF16BE;
	if (!strncasecmp(name, "UTF-32", 6))
		return FAM_UTF32;
	if (!strncasecmp(name, "ISO-8859", 8) || !strncasecmp(name, "WINDOWS-125", 11) ||
	    !strncasecmp(name, "KOI8", 4) || !strncasecmp(name, "CP125", 5) || !strcasecmp(name, "TIS-620"))
		return FAM_SINGLE;
	/* the DOS and Mac code pages uchardet also names for a short Big5 line
	 * (好。 is IBM852 to it): one byte a character as well */
	if (!strncasecmp(name, "IBM", 3) || !strncasecmp(name, "CP4", 3) || !strncasecmp(name, "CP7", 3) ||
	    !strncasecmp(name, "CP8", 3) || !strncasecmp(name, "MAC", 3) || !strcasecmp(name, "VISCII") ||
	    !strncasecmp(name, "GEORGIAN", 8))
		return FAM_SINGLE;
	return FAM_GENERIC;
}

/* Try 1..4 bytes with iconv: how many make one character (0 = none). */
static size_t probe_len(iconv_t cd, const unsigned char *s, size_t left)
{
	for (size_t k = 1; k <= 4 && k <= left; k++) {
		char out[32], *op = out, *ip = (char *)s;
		size_t il = k, ol = sizeof out;
		iconv(cd, NULL, NULL, NULL, NULL);
		if (iconv(cd, &ip, &il, &op, &ol) != (size_t)-1 && il == 0)
			return k;
		if (errno == EILSEQ)
			return 0;
	}
	return 0;
}

static size_t char_len(family fam, iconv_t cd, const unsigned char *s, size_t left)
{
	size_t n;
	switch (fam) {
	case FAM_GB18030:
		n = s[0] < 0x80 ? 1 : (left > 1 && s[1] >= 0x30 && s[1] <= 0x39) ? 4 : 2;
		break;
	case FAM_DBCS:
		n = s[0] <= 0x80 || s[0] == 0xFF ? 1 : 2;
		break;
	case FAM_SJIS: /* half-width kana 0xA1-0xDF are single bytes */
		n = (s[0] >= 0x81 && s[0] <= 0x9F) || (s[0] >= 0xE0 && s[0] <= 0xFC) ? 2 : 1;
		break;
	case FAM_EUCJP:
		n = s[0] < 0x80 ? 1 : s[0] == 0x8F ? 3 : 2;
		break;
	case FAM_EUCTW:
		n = s[0] < 0x80 ? 1 : s[0] == 0x8E ? 4 : 2;
		break;
	case FAM_UTF16LE:
		n = left >= 2 && (s[1] & 0xFC) == 0xD8 ? 4 : 2;
		break;
	case FAM_UTF16BE:
		n = left >= 2 && (s[0] & 0xFC) == 0xD8 ? 4 : 2;
		break;
	case FAM_UTF32:
		n = 4;
		break;
	case FAM_SINGLE:
		n = 1;
		break;
	default:
		n = probe_len(cd, s, left);
		if (!n)
			n = 1;
	}
	return n > left ? left : n;
}

/* ---- detection ---- */

static const char *bom_encoding(const unsigned char *s, size_t len)
{
	if (len >= 4 && s[0] == 0xFF && s[1] == 0xFE && s[2] == 0 && s[3] == 0)
		return "UTF-32LE";
	if (len >= 4 && s[0] == 0 && s[1] == 0 && s[2] == 0xFE && s[3] == 0xFF)
		return "UTF-32BE";
	if (len >= 2 && s[0] == 0xFF && s[1] == 0xFE)
		return "UTF-16LE";
	if (len >= 2 && s[0] == 0xFE && s[1] == 0xFF)
		return "UTF-16BE";
	return NULL;
}

/* UTF-16 without a BOM: nearly every code unit is a character prose uses
 * (CJK, ASCII, punctuation) and a line break or space shows as 0A 00 /
 * 00 0A.  Random binary data fails the first test at once. */
static int plausible_unit(unsigned u)
{
	return u == 0x09 || u == 0x0A || u == 0x0D || (u >= 0x20 && u < 0x7F) ||
	       (u >= 0xA0 && u < 0x2000) || (u >= 0x2000 && u < 0x2070) || (u >= 0x2E80 && u < 0xD800) ||
	       (u >= 0xF900 && u < 0xFFF0) || (u >= 0xD800 && u < 0xE000);
}

const char *utf16_guess(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	if (len < 4 || len % 2)
		return NULL;
	size_t n = len < 65536 ? len : 65536;
	for (int le = 1; le >= 0; le--) {
		size_t good = 0, units = n / 2, breaks = 0;
		for (size_t i = 0; i + 1 < n; i += 2) {
			unsigned u = le ? (unsigned)(s[i] | s[i + 1] << 8) : (unsigned)(s[i] << 8 | s[i + 1]);
			good += plausible_unit(u);
			breaks += u == 0x0A || u == 0x20;
		}
		if (breaks && good * 100 >= units * 98)
			return le ? "UTF-16LE" : "UTF-16BE";
	}
	return NULL;
}

static void canonical_name(const char *in, char *out, size_t size)
{
	/* GBK and GB2312 are subsets of GB18030: decoding as GB18030 reads them
	 * all, and writing back gives the same bytes. */
	if (!strcasecmp(in, "GB2312") || !strcasecmp(in, "GBK") || !strcasecmp(in, "CP936") ||
	    !strcasecmp(in, "EUC-CN") || !strcasecmp(in, "HZ-GB-2312-no"))
		in = "GB18030";
	else if (!strcasecmp(in, "BIG5") || !strcasecmp(in, "BIG-5") || !strcasecmp(in, "BIG5-TW"))
		in = "BIG5";
	snprintf(out, size, "%s", in);
	for (char *p = out; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}

/* uchardet's entry points, found once. */
static struct {
	uchardet_t (*new_)(void);
	int (*handle_data)(uchardet_t, const char *, size_t);
	void (*data_end)(uchardet_t);
	const char *(*get_charset)(uchardet_t);
	void (*delete_)(uchardet_t);
	int ok;
	char why[256]; /* why detection is off, for each document that needs it */
} ud;
static pthread_once_t ud_once = PTHREAD_ONCE_INIT;

static void ud_load(void)
{
	void *h = dlopen(UCHARDET_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) { /* the library prints nothing: each document that needed it says so */
		snprintf(ud.why, sizeof ud.why, "cannot load %s (%s): encodings other than UTF-8 are "
		         "not detected; name one with --encoding", UCHARDET_SONAME, dlerror());
		return;
	}
	/* POSIX: a function pointer from dlsym is converted through the object */
	*(void **)&ud.new_ = dlsym(h, "uchardet_new");
	*(void **)&ud.handle_data = dlsym(h, "uchardet_handle_data");
	*(void **)&ud.data_end = dlsym(h, "uchardet_data_end");
	*(void **)&ud.get_charset = dlsym(h, "uchardet_get_charset");
	*(void **)&ud.delete_ = dlsym(h, "uchardet_delete");
	ud.ok = ud.new_ && ud.handle_data && ud.data_end && ud.get_charset && ud.delete_;
	if (!ud.ok)
		snprintf(ud.why, sizeof ud.why, "%s lacks uchardet's functions: encodings other than "
		         "UTF-8 are not detected; name one with --encoding", UCHARDET_SONAME);
}

/* uchardet's guess, or NULL; *why says so when uchardet cannot be had. */
static const char *detect(const char *data, size_t len, char *buf, size_t size,
                          const char **why)
{
	pthread_once(&ud_once, ud_load);
	if (!ud.ok)
		*why = ud.why;
	uchardet_t u = ud.ok ? ud.new_() : NULL;
	if (!u)
		return NULL;
	/* The first megabyte tells as much as the whole file. */
	ud.handle_data(u, data, len < (1u << 20) ? len : (1u << 20));
	ud.data_end(u);
	const char *cs = ud.get_charset(u);
	const char *res = NULL;
	if (cs && *cs && strcasecmp(cs, "ASCII") && strcasecmp(cs, "UTF-8")) {
		canonical_name(cs, buf, size);
		res = buf;
	}
	ud.delete_(u);
	return res;
}

/* Is text that is not valid UTF-8 still UTF-8 with some damaged bytes?
 * Valid multibyte sequences are counted against the bytes outside them.
 * In GBK or Big5 text a byte pair or triple forms a valid sequence only by
 * chance, so such sequences stay a small fraction of the stray bytes; in a
 * UTF-8 file with a stray Latin-1 byte they outnumber it many times.
 * Guessing a legacy encoding there would turn every Chinese character
 * into two or three others, and the fixes would then edit those.  A
 * two-byte sequence is the likelier chance (Big5 天黑了。 holds two, d1 b6
 * and c2 a4, beside two stray bytes), so it counts half of a longer one
 * (a Chinese character), and the sequences must outweigh the stray bytes.
 * valid: the length of the valid prefix, known already.  Valid stretches
 * are validated and counted a vector at a time; around the stray bytes,
 * a character at a time.  The valid prefix, often all of the text but a
 * cut last character, is counted last and only as far as needed. */
#define VALID_STRETCH 16  /* characters in a row that make a stretch long */
#define PREFIX_STEP 65536 /* bytes of the prefix counted at a time */

static int mostly_utf8(const char *data, size_t len, size_t valid)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t multi = 0, stray = 0; /* multi: 1 for a 2-byte sequence, 2 for longer */
	size_t longer;
	for (size_t i = valid; i < len;) {
		size_t good = 0; /* characters in a row that decode */
		while (i < len && good < VALID_STRETCH) {
			if (s[i] < 0x80) {
				i++;
				good++;
				continue;
			}
			int32_t cp;
			size_t n = jh_utf8_decode(s + i, len - i, &cp);
			if (cp < 0) {
				stray += n;
				good = 0;
			} else {
				multi += n > 2 ? 2 : 1;
				good++;
			}
			i += n;
		}
		size_t run = jh_utf8_valid_prefix(data + i, len - i);
		multi += jh_utf8_leads(data + i, run, &longer) + longer;
		i += run;
	}
	for (size_t i = 0; i < valid && multi <= stray; i += PREFIX_STEP) {
		size_t n = valid - i < PREFIX_STEP ? valid - i : PREFIX_STEP;
		multi += jh_utf8_leads(data + i, n, &longer) + longer;
	}
	return multi > stray;
}

/* Is text that uchardet took for a single-byte code page, or could not
 * name, Chinese in GB18030 or Big5?  On a short text (a chapter title, a
 * line: 明天见。) uchardet often names a Latin, Greek or Thai code page, or
 * nothing.  Chinese text in GB18030 is mostly characters of GB2312's first
 * level (lead 0xB0-0xD7, trail 0xA1-0xFE) and its full-width punctuation
 * (rows 0xA1-0xA3: 。，、！？); in Big5, of its first level (lead 0xA4-0xC6)
 * and its punctuation (lead 0xA1-0xA3).  Latin-1 text read as either gives
 * rare characters or pairs that do not decode (an accented letter before a
 * space or an ASCII letter).  So a text whose high bytes all pair up, mostly
 * into common characters of one of them, is in that one. */
static const char *cjk_double_byte(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t pairs = 0, gb_common = 0, big5_common = 0;
	int gb_ok = 1, big5_ok = 1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x80)
			continue;
		unsigned a = s[i], b = i + 1 < len ? s[i + 1] : 0;
		pairs++;
		gb_ok &= a >= 0x81 && a <= 0xFE && b >= 0x40 && b <= 0xFE && b != 0x7F;
		big5_ok &= a >= 0x81 && a <= 0xFE && ((b >= 0x40 && b <= 0x7E) || (b >= 0xA1 && b <= 0xFE));
		gb_common += ((a >= 0xB0 && a <= 0xD7) || (a >= 0xA1 && a <= 0xA3)) && b >= 0xA1 &&
		             b <= 0xFE;
		big5_common += a >= 0xA1 && a <= 0xC6;
		i++;
	}
	if (!pairs)
		return NULL;
	if (gb_ok && gb_common * 10 >= pairs * 8)
		return "GB18030";
	if (big5_ok && big5_common * 10 >= pairs * 8)
		return "BIG5";
	return NULL;
}

/* ---- short inputs: which decoding gives common Chinese text ---- */

/* A short input (a title, one line, 什么 or 明天见。) gives uchardet too
 * little to go on, and its bytes may even be valid UTF-8 by chance (什么
 * in GBK is ʲô, 谢谢 is лл).  What tells is the text each decoding gives:
 * Chinese is mostly its most common characters, a decoding in the wrong
 * encoding mostly rare ones. */
#define SHORT_INPUT 256 /* bytes: the decision below is for a line or so */
/* The characters that count as common: of a text whose bytes are not
 * UTF-8, and of one that is valid UTF-8 only by chance, which must clear
 * a higher bar (its UTF-8 reading is text too, if an odd one). */
#define SHORT_COMMON 3000
#define SHORT_STRICT 1500

typedef struct {
	int32_t cp;
	uint16_t rank;
	uint16_t trad; /* a traditional form, ranked as its simplified one */
} han_rank;

static han_rank *ranks;
static size_t n_ranks;
static pthread_once_t ranks_once = PTHREAD_ONCE_INIT;

static int cmp_rank(const void *a, const void *b)
{
	int32_t x = ((const han_rank *)a)->cp, y = ((const han_rank *)b)->cp;
	return (x > y) - (x < y);
}

static void ranks_load(void)
{
	size_t n1 = strlen(jh_common_han), n2 = strlen(jh_common_han_trad);
	/* three bytes a character at least: no more entries than that */
	if (!(ranks = malloc((n1 + n2) / 3 * sizeof *ranks + sizeof *ranks)))
		return; /* no table: no short input is taken for Chinese */
	size_t n = 0;
	for (size_t i = 0; i < n1;) {
		int32_t cp;
		i += jh_utf8_decode((const unsigned char *)jh_common_han + i, n1 - i, &cp);
		ranks[n] = (han_rank){cp, (uint16_t)n, 0};
		n++;
	}
	size_t simp = n;
	qsort(ranks, simp, sizeof *ranks, cmp_rank);
	for (size_t i = 0; i < n2;) {
		int32_t t, s;
		i += jh_utf8_decode((const unsigned char *)jh_common_han_trad + i, n2 - i, &t);
		if (i >= n2)
			break;
		i += jh_utf8_decode((const unsigned char *)jh_common_han_trad + i, n2 - i, &s);
		han_rank key = {s, 0, 0}, *hit = bsearch(&key, ranks, simp, sizeof *ranks, cmp_rank);
		if (hit)
			ranks[n++] = (han_rank){t, hit->rank, 1};
	}
	qsort(ranks, n, sizeof *ranks, cmp_rank);
	n_ranks = n;
}

/* The rank of cp among the common characters, or -1; *trad: whether it
 * is a traditional form. */
static long han_rank_of(int32_t cp, int *trad)
{
	han_rank key = {cp, 0, 0};
	han_rank *hit = n_ranks ? bsearch(&key, ranks, n_ranks, sizeof *ranks, cmp_rank) : NULL;
	*trad = hit && hit->trad;
	return hit ? hit->rank : -1;
}

static int cjk_punct(int32_t cp)
{
	return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF5E) || cp == 0x2014 ||
	       cp == 0x2026 || (cp >= 0x2018 && cp <= 0x201D) || cp == 0xB7;
}

typedef struct {
	size_t chars, han, common; /* non-ASCII characters, Han ones, common or punctuation */
	double rank_sum;           /* of the common Han characters */
} short_score;

/* Decode data as enc (every byte, or it is no candidate) and count what
 * it gives; max_rank: the characters that count as common; simp_only:
 * their traditional forms do not.  0 when it does not decode. */
static int score_as(const char *data, size_t len, const char *enc, long max_rank, int simp_only,
                    short_score *sc)
{
	char out[SHORT_INPUT * 4];
	iconv_t cd = iconv_open("UTF-8", enc);
	if (cd == (iconv_t)-1)
		return 0;
	char *ip = (char *)data, *op = out;
	size_t il = len, ol = sizeof out;
	size_t r = iconv(cd, &ip, &il, &op, &ol);
	int ok = r != (size_t)-1 && iconv(cd, NULL, NULL, &op, &ol) != (size_t)-1 && il == 0;
	iconv_close(cd);
	if (!ok)
		return 0;
	memset(sc, 0, sizeof *sc);
	for (size_t i = 0, n = (size_t)(op - out); i < n;) {
		int32_t cp;
		i += jh_utf8_decode((const unsigned char *)out + i, n - i, &cp);
		if (cp < 0x80)
			continue;
		sc->chars++;
		int trad;
		long rk = han_rank_of(cp, &trad);
		if (rk >= 0 && trad && simp_only)
			rk = -1;
		if (rk >= 0)
			sc->han++;
		if ((rk >= 0 && rk < max_rank) || cjk_punct(cp)) {
			sc->common++;
			sc->rank_sum += rk >= 0 ? (double)rk : 0;
		}
	}
	return 1;
}

/* GB18030 or Big5 when a short input decodes under it to Chinese text:
 * min_han Han characters or more, and at least `percent` of its
 * characters common ones (among the max_rank most common) or CJK
 * punctuation.  When both do (謝謝 in Big5 is 谅谅 in GBK), the one with
 * more common characters, then the more common ones.  strict, for bytes
 * that are valid UTF-8: GB18030 only, of simplified characters (GBK text
 * of traditional ones, or Big5 text, that is also valid UTF-8 is rarer
 * than UTF-8 text such as éé, 矇矇 in either: Big5 would need every
 * character from its rows 0xC2-0xDF, the rarer ones of many strokes).
 * NULL otherwise, or for a longer input. */
static const char *short_cjk(const char *data, size_t len, long max_rank, unsigned percent,
                             size_t min_han, int strict)
{
	if (len > SHORT_INPUT)
		return NULL;
	pthread_once(&ranks_once, ranks_load);
	static const char *const encs[] = {"GB18030", "BIG5"};
	const char *best = NULL;
	short_score bs = {0};
	for (int k = 0; k < (strict ? 1 : 2); k++) {
		short_score sc;
		if (!score_as(data, len, encs[k], max_rank, strict && k == 0, &sc) || sc.han < min_han ||
		    sc.common * 100 < sc.chars * percent)
			continue;
		if (!best || sc.common > bs.common ||
		    (sc.common == bs.common && sc.rank_sum < bs.rank_sum)) {
			best = encs[k];
			bs = sc;
		}
	}
	return best;
}

/* Is valid UTF-8 text one that could be a short GB18030 or Big5 input
 * by chance: no ASCII letters, and its other characters all two-byte
 * sequences (Latin accents, Greek, Cyrillic: ʲô), none a Han character? */
static int utf8_maybe_legacy(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	int high = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] < 0x80) {
			if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')
				return 0;
			i++;
			continue;
		}
		int32_t cp;
		size_t n = jh_utf8_decode(s + i, len - i, &cp);
		if (cp < 0 || n != 2)
			return 0;
		high = 1;
		i += n;
	}
	return high;
}

/* Does valid UTF-8 text read as no text of any language: its non-ASCII
 * characters all symbols or marks no writing is made of (C1 controls and
 * the Latin-1 signs ¡-¿ but the · of Chinese, × ÷, IPA letters, spacing
 * modifier letters, combining marks alone), its ASCII only white space
 * and sentence marks?  水 in GBK is ˮ, 说 is ˵, 十 is ʮ, 路人 is ·ÈË: no
 * letter of a script, nor a digit (±5 is a reading). */
static int utf8_no_letters(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	int high = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] < 0x80) {
			if (!strchr(" \t\r\n\f\v,.!?;:", s[i]) || !s[i])
				return 0;
			i++;
			continue;
		}
		int32_t cp;
		size_t n = jh_utf8_decode(s + i, len - i, &cp);
		if (cp < 0 || !((cp >= 0x80 && cp <= 0xBF && cp != 0xB7) || cp == 0xD7 || cp == 0xF7 ||
		                (cp >= 0x250 && cp <= 0x36F)))
			return 0;
		high = 1;
		i += n;
	}
	return high;
}

/* Is a legacy decoding plausible text?  C1 controls are not text in any
 * single-byte code page (they are what UTF-8 continuation bytes become in
 * ISO-8859-x), and a decoding that leaves many bytes undecodable is the
 * wrong one. */
static int plausible_decoding(const decoded *d)
{
	if (family_of(d->name) == FAM_SINGLE)
		for (size_t i = 0; i + 1 < d->len; i++)
			if ((unsigned char)d->text[i] == 0xC2 && (unsigned char)d->text[i + 1] >= 0x80 &&
			    (unsigned char)d->text[i + 1] <= 0x9F)
				return 0;
	size_t high = 0;
	for (size_t i = 0; i < d->src_len; i++)
		high += (unsigned char)d->src[i] >= 0x80;
	return d->n_bad * 10 <= high;
}

/* ---- decoding ---- */

typedef struct {
	char *p;
	size_t len, cap;
} obuf;

static int ob_reserve(obuf *b, size_t extra)
{
	if (b->len + extra <= b->cap)
		return 0;
	size_t nc = b->cap ? b->cap : 4096;
	while (nc < b->len + extra)
		nc *= 2;
	char *np = realloc(b->p, nc);
	if (!np)
		return -1;
	b->p = np;
	b->cap = nc;
	return 0;
}

static int add_bad(decoded *d, unsigned char byte, size_t *cap)
{
	if (d->n_bad == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		unsigned char *nb = realloc(d->bad, nc);
		if (!nb)
			return -1;
		d->bad = nb;
		*cap = nc;
	}
	d->bad[d->n_bad++] = byte;
	return 0;
}

/* Convert [*ip, *ip + *il) into ob, which grows (room for per_byte output
 * bytes an input byte reserved at a time): 0 when all of it is converted,
 * 1 when iconv stops before what it cannot convert (*ip points at it), -1
 * for want of memory.  The one conversion loop of decoding and encoding. */
static int convert(iconv_t cd, char **ip, size_t *il, obuf *ob, size_t per_byte)
{
	while (*il > 0) {
		if (ob_reserve(ob, *il * per_byte + 16))
			return -1;
		char *op = ob->p + ob->len;
		size_t ol = ob->cap - ob->len;
		size_t r = iconv(cd, ip, il, &op, &ol);
		ob->len = (size_t)(op - ob->p);
		if (r != (size_t)-1)
			return 0;
		if (errno != E2BIG)
			return 1;
	}
	return 0;
}

/* 0, -1 for an encoding iconv does not know, -2 for want of memory.  The
 * converter stays open in d->cd, for positions (decoded_orig_offset). */
static int decode_with(const char *data, size_t len, const char *name, decoded *d)
{
	iconv_t cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1)
		return errno == ENOMEM ? -2 : -1;
	family fam = family_of(name);
	obuf ob = {0};
	size_t cap_marks = 0, cap_bad = 0;
	const unsigned char *s = (const unsigned char *)data;
	size_t pos = 0; /* a BOM is decoded too: it becomes U+FEFF and is written back */
	int rc = 0;
	while (pos < len && rc == 0) {
		/* one chunk of whole characters */
		size_t end = pos;
		for (int k = 0; k < CHUNK_CHARS && end < len; k++)
			end += char_len(fam, cd, s + end, len - end);
		if (d->n_marks == cap_marks) {
			cap_marks = cap_marks ? cap_marks * 2 : 256;
			enc_mark *nm = realloc(d->marks, cap_marks * sizeof *nm);
			if (!nm) {
				rc = -1;
				break;
			}
			d->marks = nm;
		}
		d->marks[d->n_marks++] = (enc_mark){ob.len, pos};
		char *ip = (char *)s + pos;
		size_t il = end - pos;
		iconv(cd, NULL, NULL, NULL, NULL);
		while (il > 0) {
			int r = convert(cd, &ip, &il, &ob, 4);
			if (r < 0) {
				rc = -1;
				break;
			}
			if (r == 0)
				break;
			/* EILSEQ or EINVAL: one undecodable byte */
			if (ob_reserve(&ob, 1) || add_bad(d, (unsigned char)*ip, &cap_bad)) {
				rc = -1;
				break;
			}
			ob.p[ob.len++] = (char)MARKER;
			ip++;
			il--;
			iconv(cd, NULL, NULL, NULL, NULL);
		}
		pos = end;
	}
	d->cd = cd; /* decoded_free closes it */
	if (rc || ob_reserve(&ob, 1)) {
		free(ob.p);
		return -2;
	}
	ob.p[ob.len] = '\0';
	d->text = ob.p;
	d->len = ob.len;
	return 0;
}

int decode_text(const char *data, size_t len, const char *want, decoded *out, char *err,
                size_t errsize)
{
	memset(out, 0, sizeof *out);
	out->src = data;
	out->src_len = len;
	const unsigned char *s = (const unsigned char *)data;
	char name[64] = "";
	int guessed = 0; /* the encoding is uchardet's guess */
	size_t valid; /* the length of the valid UTF-8 prefix */
	const char *enc = bom_encoding(s, len);
	int forced = want && *want && strcasecmp(want, "auto");
	if (forced) {
		/* The user's word wins over a BOM of another encoding (as iconv -f
		 * and every editor's "reopen as" do): a UTF-16 BOM in a file forced
		 * to UTF-8 is two invalid bytes, reported and kept.  A BOM of the
		 * forced encoding's own family only tells its byte order. */
		canonical_name(want, name, sizeof name);
		if (!strcasecmp(name, "UTF-8") || !strcasecmp(name, "UTF8"))
			name[0] = '\0';
		else if (enc && !strncasecmp(name, enc, 6))
			snprintf(name, sizeof name, "%s", enc);
	} else if (enc) {
		snprintf(name, sizeof name, "%s", enc);
	} else if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
		/* UTF-8 with BOM: as it is */
	} else if ((valid = jh_utf8_valid_prefix(data, len)) != len) {
		const char *g = memchr(data, 0, len) ? utf16_guess(data, len) : NULL;
		guessed = g == NULL;
		/* a short input first: its few bytes can hold more chance UTF-8
		 * pairs than stray bytes (谢谢,好。 in GBK: лл, á) and give
		 * uchardet nothing to go on, while its legacy decoding is plain
		 * Chinese */
		const char *cjk = g ? NULL : short_cjk(data, len, SHORT_COMMON, 80, 1, 0);
		if (cjk) {
			g = cjk;
		} else if (!g && !mostly_utf8(data, len, valid)) {
			g = detect(data, len, name, sizeof name, &out->detect_problem);
			if ((!g || family_of(g) == FAM_SINGLE) && cjk_double_byte(data, len)) {
				g = cjk_double_byte(data, len);
				out->detect_problem = NULL; /* told without uchardet */
			}
		}
		if (g && g != name)
			snprintf(name, sizeof name, "%s", g);
		else if (!g)
			name[0] = '\0';
	} else if (len <= SHORT_INPUT && utf8_maybe_legacy(data, len)) {
		/* valid UTF-8 by chance (asked of short inputs only, the ones
		 * short_cjk decides): only when every character is among the
		 * most common (a Russian да is 写邪 in GBK: 邪 is not) */
		const char *g = short_cjk(data, len, SHORT_STRICT, 100, 2, 1);
		/* or when its UTF-8 reading is no text at all (水 is ˮ): then one
		 * common character is enough, in GB18030 or Big5 (禮 is §) */
		if (!g && utf8_no_letters(data, len))
			g = short_cjk(data, len, SHORT_COMMON, 100, 1, 0);
		if (g) {
			snprintf(name, sizeof name, "%s", g);
			guessed = 1;
		}
	}
	if (name[0]) {
		snprintf(out->name, sizeof out->name, "%s", name);
		int rc = decode_with(data, len, name, out);
		if (rc == -1) {
			snprintf(err, errsize, "unknown encoding '%s'", name);
			decoded_free(out);
			return JH_ERR_ENCODING;
		}
		if (rc == -2) {
			snprintf(err, errsize, "out of memory decoding %s", name);
			decoded_free(out);
			return JH_ERR_NOMEM;
		}
		if (!guessed || plausible_decoding(out)) {
			out->lossless = -1; /* found out when it matters: decoded_lossless */
			return 0;
		}
		decoded_free(out);
		out->src = data;
		out->src_len = len;
	}
	/* UTF-8, its invalid bytes kept as they are */
	strcpy(out->name, "UTF-8");
	out->utf8 = 1;
	out->lossless = 1;
	out->text = (char *)data;
	out->len = len;
	return 0;
}

int decoded_lossless(decoded *d)
{
	/* Writing back must give the same bytes where nothing was fixed: a
	 * codec with two byte sequences for one character would not. */
	if (d->lossless < 0) {
		char *back = NULL, e2[8];
		size_t blen = 0;
		int rc = encode_text(d, d->text, d->len, &back, &blen, e2, sizeof e2);
		if (rc == JH_ERR_NOMEM)
			return rc; /* not known yet */
		d->lossless = rc == 0 && blen == d->src_len && memcmp(back, d->src, d->src_len) == 0;
		free(back);
	}
	return d->lossless;
}

/* Length in UTF-8 of the one character at s in the file's encoding. */
static size_t decoded_char_u8(iconv_t cd, const unsigned char *s, size_t n)
{
	char out[64], *op = out, *ip = (char *)s;
	size_t il = n, ol = sizeof out;
	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1)
		return 0;
	return (size_t)(op - out);
}

size_t decoded_orig_offset(const decoded *d, size_t pos)
{
	if (d->utf8 || !d->n_marks)
		return pos;
	if (pos >= d->len)
		return d->src_len;
	size_t lo = 0, hi = d->n_marks;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (d->marks[mid].u8 <= pos)
			lo = mid;
		else
			hi = mid;
	}
	size_t u = d->marks[lo].u8, o = d->marks[lo].orig;
	if (u == pos)
		return o;
	/* one converter per document, opened on first use (a document belongs
	 * to one thread) */
	iconv_t cd = (iconv_t)d->cd; /* decode_with's, kept open */
	family fam = family_of(d->name);
	const unsigned char *s = (const unsigned char *)d->src;
	while (u < pos && o < d->src_len) {
		if ((unsigned char)d->text[u] == MARKER) {
			u++;
			o++;
			continue;
		}
		size_t l = char_len(fam, cd, s + o, d->src_len - o);
		size_t m = decoded_char_u8(cd, s + o, l);
		if (!m) { /* cannot happen for text we decoded; stay safe */
			m = 1;
		}
		if (u + m > pos)
			break;
		u += m;
		o += l;
	}
	return o;
}

int encode_text(const decoded *d, const char *text, size_t len, char **out, size_t *out_len,
                char *err, size_t errsize)
{
	if (d->utf8) {
		if (!(*out = jh_strndup(text, len))) {
			snprintf(err, errsize, "out of memory");
			return JH_ERR_NOMEM;
		}
		*out_len = len;
		return 0;
	}
	iconv_t cd = iconv_open(d->name, "UTF-8");
	if (cd == (iconv_t)-1) {
		int nomem = errno == ENOMEM;
		snprintf(err, errsize, nomem ? "out of memory" : "cannot encode in %s", d->name);
		return nomem ? JH_ERR_NOMEM : JH_ERR_ENCODING;
	}
	obuf ob = {0};
	size_t bad = 0, pos = 0;
	int rc = 0;
	while (pos < len && rc == 0) {
		const char *m = memchr(text + pos, MARKER, len - pos);
		size_t end = m ? (size_t)(m - text) : len;
		char *ip = (char *)text + pos;
		size_t il = end - pos;
		int r = convert(cd, &ip, &il, &ob, 2);
		if (r < 0) {
			rc = JH_ERR_NOMEM;
			snprintf(err, errsize, "out of memory");
		} else if (r > 0) {
			/* a character the encoding has no bytes for */
			size_t at = (size_t)(ip - text);
			int32_t cp = -1;
			const unsigned char *c = (const unsigned char *)ip;
			if (c[0] >= 0xE0 && c[0] < 0xF0 && il >= 3)
				cp = ((c[0] & 0x0F) << 12) | ((c[1] & 0x3F) << 6) | (c[2] & 0x3F);
			else if (c[0] >= 0xC0 && c[0] < 0xE0 && il >= 2)
				cp = ((c[0] & 0x1F) << 6) | (c[1] & 0x3F);
			else if (c[0] >= 0xF0 && il >= 4)
				cp = ((c[0] & 0x07) << 18) | ((c[1] & 0x3F) << 12) | ((c[2] & 0x3F) << 6) | (c[3] & 0x3F);
			snprintf(err, errsize, "U+%04X (byte %zu of the fixed text) cannot be written in %s",
			         (unsigned)cp, at, d->name);
			rc = JH_ERR_ENCODING;
		}
		if (rc == 0 && m) {
			if (bad >= d->n_bad) {
				snprintf(err, errsize, "undecodable bytes were lost while fixing");
				rc = JH_ERR_ENCODING;
			} else if (ob_reserve(&ob, 1)) {
				snprintf(err, errsize, "out of memory");
				rc = JH_ERR_NOMEM;
			} else {
				ob.p[ob.len++] = (char)d->bad[bad++];
			}
			end++;
		}
		pos = end;
	}
	/* flush any shift state */
	if (rc == 0 && ob_reserve(&ob, 16) == 0) {
		char *op = ob.p + ob.len;
		size_t ol = ob.cap - ob.len;
		iconv(cd, NULL, NULL, &op, &ol);
		ob.len = (size_t)(op - ob.p);
	} else if (rc == 0) {
		snprintf(err, errsize, "out of memory");
		rc = JH_ERR_NOMEM;
	}
	iconv_close(cd);
	if (rc == 0 && bad != d->n_bad) {
		snprintf(err, errsize, "undecodable bytes were lost while fixing");
		rc = JH_ERR_ENCODING;
	}
	if (rc) {
		free(ob.p);
		return rc;
	}
	*out = ob.p;
	*out_len = ob.len;
	return 0;
}

int jh_encoding_check(const char *name, char *canonical, size_t size)
{
	if (!name)
		return JH_ERR_ARG;
	if (canonical && size)
		canonical_name(name, canonical, size);
	decoded d;
	char err[128];
	/* decoding invalid UTF-8 forces the named codec to be opened */
	int rc = decode_text("\xff", 1, name, &d, err, sizeof err);
	if (rc)
		return rc;
	decoded_free(&d);
	return JH_OK;
}
