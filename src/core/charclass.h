/* charclass.h — the class of a code point, as seen by the class scan and the
 * builtin checks.  Ranges are from the Unicode 15 code charts (Blocks.txt);
 * utf8proc gives general categories and widths but no script property, and
 * the scanner needs one branch-light lookup per character. */
#ifndef JH_CHARCLASS_H
#define JH_CHARCLASS_H

#include <stdint.h>

enum {
	JH_C_HAN = 1u << 0,         /* CJK unified and compatibility ideographs, 〇 */
	JH_C_CJK_PUNCT = 1u << 1,   /* full-width punctuation: ，。、“”「」…… */
	JH_C_ASCII_PUNCT = 1u << 2, /* ASCII punctuation and symbols */
	JH_C_LATIN = 1u << 3,       /* ASCII letters */
	JH_C_DIGIT = 1u << 4,       /* ASCII digits */
	JH_C_FULLWIDTH_ALNUM = 1u << 5, /* ＡＢＣ１２３ */
	JH_C_SPACE = 1u << 6,       /* space, tab, U+3000 and other Zs */
	JH_C_NEWLINE = 1u << 7,     /* \n, \r */
	JH_C_INVISIBLE = 1u << 8,   /* zero-width, bidi controls, BOM, soft hyphen */
	JH_C_PUA = 1u << 9,         /* private use */
	JH_C_KANA = 1u << 10,       /* hiragana and katakana */
	JH_C_OTHER = 1u << 11,
	JH_C_INVALID = 1u << 12     /* an invalid UTF-8 sequence */
};

/* The BMP code points jh_class_of calls Han, as ranges: for tables built
 * over the BMP at start-up (the interest table's "not Han" bit, the script
 * checks' marks), where asking jh_class_of of each of 63,000 code points
 * would cost more than the rest of a short check's start-up.  check_stops'
 * interest_not_han_is_class compares the two at every code point. */
#define JH_HAN_BMP_RANGES {{0x3007, 0x3007}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xF900, 0xFAFF}}
#define JH_HAN_BMP_N 4

static inline uint32_t jh_class_of(int32_t cp)
{
	if (cp < 0x80) {
		if (cp >= 'a' && cp <= 'z')
			return JH_C_LATIN;
		if (cp >= 'A' && cp <= 'Z')
			return JH_C_LATIN;
		if (cp >= '0' && cp <= '9')
			return JH_C_DIGIT;
		if (cp == ' ' || cp == '\t')
			return JH_C_SPACE;
		if (cp == '\n' || cp == '\r')
			return JH_C_NEWLINE;
		if (cp > 0x20 && cp < 0x7F)
			return JH_C_ASCII_PUNCT;
		return JH_C_OTHER;
	}
	if (cp >= 0x4E00 && cp <= 0x9FFF)
		return JH_C_HAN;
	if (cp < 0x3000) {
		if (cp == 0x00AD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
		    (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069))
			return JH_C_INVISIBLE;
		if (cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F)
			return JH_C_SPACE;
		if (cp == 0x00B7 || (cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E))
			return JH_C_CJK_PUNCT; /* · ‐ – — ‘ ’ “ ” … ※ used as CJK punctuation */
		if (cp == 0x2028 || cp == 0x2029 || cp == 0x0085)
			return JH_C_NEWLINE;
		if (cp >= 0x2E80 && cp <= 0x2FDF)
			return JH_C_OTHER; /* radicals: censor rules look at them by trigger */
		return JH_C_OTHER;
	}
	if (cp <= 0x303F) {
		if (cp == 0x3000)
			return JH_C_SPACE;
		if (cp == 0x3007)
			return JH_C_HAN;
		return JH_C_CJK_PUNCT;
	}
	if (cp >= 0x3040 && cp <= 0x30FF)
		return cp == 0x30FB ? JH_C_CJK_PUNCT : JH_C_KANA;
	if (cp >= 0x3400 && cp <= 0x4DBF)
		return JH_C_HAN;
	if (cp >= 0xE000 && cp <= 0xF8FF)
		return JH_C_PUA;
	if (cp >= 0xF900 && cp <= 0xFAFF)
		return JH_C_HAN;
	if (cp == 0xFEFF)
		return JH_C_INVISIBLE;
	if (cp >= 0xFE00 && cp <= 0xFE0F)
		return JH_C_INVISIBLE; /* variation selectors */
	if (cp >= 0xFF01 && cp <= 0xFF5E) {
		if ((cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) ||
		    (cp >= 0xFF41 && cp <= 0xFF5A))
			return JH_C_FULLWIDTH_ALNUM;
		return JH_C_CJK_PUNCT;
	}
	if ((cp >= 0xFE10 && cp <= 0xFE1F) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
	    (cp >= 0xFF5F && cp <= 0xFF65))
		return JH_C_CJK_PUNCT;
	if (cp >= 0xFF66 && cp <= 0xFF9F)
		return JH_C_KANA;
	if (cp >= 0x20000 && cp <= 0x3134F)
		return JH_C_HAN;
	if (cp >= 0xF0000)
		return JH_C_PUA;
	if (cp >= 0xE0100 && cp <= 0xE01EF)
		return JH_C_INVISIBLE;
	return JH_C_OTHER;
}

/* The paired marks of Chinese prose, in one order: the quotes “ ‘ 「 『,
 * then the brackets （ 《 【; jh_close_marks holds the closing mark of
 * each.  Defined in charclass.c. */
#define JH_PAIRS 7
#define JH_PAIR_QUOTES 4 /* the first four are quotes */
extern const int32_t jh_open_marks[JH_PAIRS], jh_close_marks[JH_PAIRS];

/* The index of cp in jh_open_marks, or -1. */
static inline int jh_open_mark(int32_t cp)
{
	for (int i = 0; i < JH_PAIRS; i++)
		if (jh_open_marks[i] == cp)
			return i;
	return -1;
}

/* Does cp open a quote of speech (“ 「 『, not the inner ‘)? */
static inline int jh_opens_speech(int32_t cp)
{
	return cp == 0x201C || cp == 0x300C || cp == 0x300E;
}

/* Class names as used in rule parameters ("han", "cjk-punct", ...).  Returns
 * 0 for an unknown name. */
uint32_t jh_class_parse(const char *name);

#endif
