/* report.c — printing findings: `human` (the library's jh_report_human:
 * file:line:col, the source line and a caret under the span), `json` (one array),
 * `jsonl` (one finding a line) and --statistics; the CI formats are in
 * format_sarif.c and format_ci.c.  Files are checked in parallel, but each
 * file's findings are written by report_write in input order, straight to
 * the output as its turn comes: a report is never built whole in memory
 * (for a 200 MB novel it is larger than the novel). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "cli.h"

/* JSON goes out through a buffer of its own, one fwrite when it fills or
 * a file's findings are done: a finding took some thirty stdio calls, each
 * taking the stream's lock (the report is written beside the pool's
 * threads), 7,700 instructions a finding and 50 a byte of manual pages.
 * A finding's fixed parts (keys, numbers) are written straight into the
 * buffer after one test for room (jo_room), and its strings from a memo
 * (jmemo): a file's findings say the same few things (the file name, a
 * rule id, an interned message or replacement, the same pointer each
 * time), so each string is validated and escaped once, and its JSON form
 * copied sixteen bytes at a time after that (validating and escaping each
 * string of each finding was 1,800 instructions a finding). */
typedef struct {
	const char *s; /* NULL: an empty slot */
	uint32_t off, len; /* its JSON form: forms[off .. off + len) */
} jseen;

#define JSEEN_BITS 10
#define JFORM_MAX 256        /* longer strings are escaped each time */
#define JFORMS_MAX (1 << 18) /* the forms start afresh beyond this */

typedef struct {
	jseen seen[1 << JSEEN_BITS]; /* by the string's address */
	char *forms;                 /* JSON forms, 16 spare bytes after the last */
	size_t n, cap;
	uint32_t head_off, head_len; /* {"file":NAME,"rule": */
	unsigned fresh;              /* fresh starts so far */
	uint64_t line, line_w;       /* the last line number written, its digits */
	int line_n;                  /* and how many (0: none yet) */
} jmemo;

typedef struct {
	FILE *o;
	size_t n, cap; /* cap: at least 16 KB */
	jmemo *memo;   /* or NULL: strings escaped each time */
	char *b;
	char own[16384];
} jout;

/* A writer to o through its own 16 KB, or through b[0..cap) (a file's
 * findings go out 64 KB at a time: fewer, longer writes). */
static void jo_init(jout *j, FILE *o, jmemo *memo, char *b, size_t cap)
{
	j->o = o;
	j->n = 0;
	j->memo = memo;
	j->b = b ? b : j->own;
	j->cap = b ? cap : sizeof j->own;
}

static void jo_flush(jout *j)
{
	if (j->n)
		fwrite(j->b, 1, j->n, j->o);
	j->n = 0;
}

static void jo_put(jout *j, const char *s, size_t n)
{
	if (n > j->cap - j->n) {
		jo_flush(j);
		if (n > j->cap) {
			fwrite(s, 1, n, j->o);
			return;
		}
	}
	memcpy(j->b + j->n, s, n);
	j->n += n;
}

static void jo_puts(jout *j, const char *s) { jo_put(j, s, strlen(s)); }

static void jo_putc(jout *j, char c)
{
	if (j->n == j->cap)
		jo_flush(j);
	j->b[j->n++] = c;
}

/* Where n more bytes can be written at once (n well below the buffer's
 * size); the writer moves j->n past what it wrote. */
static inline char *jo_room(jout *j, size_t n)
{
	if (n > j->cap - j->n)
		jo_flush(j);
	return j->b + j->n;
}

/* A string literal's bytes at p, and p past them. */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) += sizeof(lit) - 1)

/* Numbers in decimal.  Up to eight digits (every line, column and
 * offset of a text below 100 MB) are made at once in a word, divided in
 * its lanes (two groups of four digits, four pairs, eight digits: SWAR,
 * each step a multiplication by a reciprocal), the leading zeros shifted
 * out, and the word stored whole (jo_room leaves room past the number).
 * A finding's numbers repeat (end_line is mostly line, an edit's offsets
 * mostly the finding's): a word made once is stored again.  A division
 * by 10 a digit and a call for each key was 230 instructions a number. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

typedef struct {
	uint64_t v;
	uint64_t w; /* v's digits, first in the lowest byte, when n > 0 */
	int n;      /* 0: v is written a pair of digits at a time */
} jnum;

static inline jnum num_of(uint64_t v)
{
	jnum x = {v, 0, 0};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (v < 100) { /* most columns */
		uint16_t d;
		memcpy(&d, digit_pairs + 2 * v, 2);
		x.n = 1 + (v >= 10);
		x.w = v >= 10 ? d : (uint64_t)d >> 8;
	} else if (v < 100000000) {
		uint64_t hi = v / 10000, lo = v % 10000;
		uint64_t g = hi | lo << 32;                                /* two groups of four */
		uint64_t q = (g * 10486) >> 20 & 0x0000007F0000007Full;     /* / 100 in each */
		uint64_t pr = q | (g - q * 100) << 16;                     /* four pairs */
		uint64_t t = (pr * 103) >> 10 & 0x000F000F000F000Full;      /* / 10 in each */
		uint64_t raw = t | (pr - t * 10) << 8;                     /* eight digits */
		int lz = __builtin_ctzll(raw) >> 3;                        /* raw > 0: v >= 100 */
		x.n = 8 - lz;
		x.w = (raw + 0x3030303030303030ull) >> (8 * lz);
	}
#endif
	return x;
}

/* x at p (with room for 20 bytes); returns the end. */
static inline char *put_num(char *p, const jnum *x)
{
	if (x->n) {
		memcpy(p, &x->w, 8);
		return p + x->n;
	}
	char tmp[20], *q = tmp + sizeof tmp;
	uint64_t v = x->v;
	while (v >= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof tmp - q);
	memcpy(p, q, n);
	return p + n;
}

static inline char *put_uint(char *p, uint64_t v)
{
	jnum x = num_of(v);
	return put_num(p, &x);
}

/* v, or known when it has the same value. */
static inline char *put_uint_as(char *p, uint64_t v, const jnum *known)
{
	return v == known->v ? put_num(p, known) : put_uint(p, v);
}

/* Room a key and a number take at most (the longest key is 17 bytes). */
#define UINT_ROOM 48

/* Do the eight bytes at s hold none that JSON escapes (a control
 * character, DEL, '"' or '\\')?  Messages and replacements are mostly
 * Chinese text with nothing to escape: eight bytes a step instead of one
 * (the classic test for a zero byte, on the word xor each byte sought). */
static inline int plain8(const char *s)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t w, q, b, d;
	memcpy(&w, s, 8);
	q = w ^ (ones * '"');
	b = w ^ (ones * '\\');
	d = w ^ (ones * 0x7F);
	uint64_t hit = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) |
	               ((d - ones) & ~d);
	return !(hit & high);
}

/* Bytes go out in runs between the characters that need escaping. */
static void jo_escaped(jout *j, const char *s, size_t len)
{
	size_t run = 0;
	jo_putc(j, '"');
	for (size_t i = 0; i < len;) {
		while (len - i >= 8 && plain8(s + i))
			i += 8;
		if (i >= len)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		jo_put(j, s + run, i - run);
		run = ++i;
		switch (c) {
		case '"': jo_puts(j, "\\\""); break;
		case '\\': jo_puts(j, "\\\\"); break;
		case '\n': jo_puts(j, "\\n"); break;
		case '\r': jo_puts(j, "\\r"); break;
		case '\t': jo_puts(j, "\\t"); break;
		default: {
			char u[8];
			snprintf(u, sizeof u, "\\u%04x", c);
			jo_puts(j, u);
		}
		}
	}
	jo_put(j, s + run, len - run);
	jo_putc(j, '"');
}

/* A JSON string holds Unicode only: invalid UTF-8 is written as the
 * library shows it (jh_utf8_clean, U+FFFD), as the language server does. */
static void jo_string(jout *j, const char *s, size_t len)
{
	if (jh_utf8_valid_prefix(s, len) == len) {
		jo_escaped(j, s, len);
		return;
	}
	size_t n = jh_utf8_clean(s, len, NULL, 0);
	char *clean = xmalloc(n + 1);
	jh_utf8_clean(s, len, clean, n + 1);
	jo_escaped(j, clean, n);
	free(clean);
}

/* The JSON form of s[0..len) (valid UTF-8) at out, which has room for
 * 6 len + 2 bytes; returns its length. */
static size_t json_form(char *out, const char *s, size_t len)
{
	size_t o = 0, run = 0;
	out[o++] = '"';
	for (size_t i = 0; i < len;) {
		while (len - i >= 8 && plain8(s + i))
			i += 8;
		if (i >= len)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		memcpy(out + o, s + run, i - run);
		o += i - run;
		run = ++i;
		out[o++] = '\\';
		switch (c) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case '\n': out[o++] = 'n'; break;
		case '\r': out[o++] = 'r'; break;
		case '\t': out[o++] = 't'; break;
		default:
			memcpy(out + o, "u00", 3);
			out[o + 3] = "0123456789abcdef"[c >> 4];
			out[o + 4] = "0123456789abcdef"[c & 15];
			o += 5;
		}
	}
	memcpy(out + o, s + run, len - run);
	o += len - run;
	out[o++] = '"';
	return o;
}

/* Room in m->forms for n bytes more and 16 spare; 0 when the forms
 * start afresh (every slot forgotten) to keep a file of ever new strings
 * from filling memory. */
static int memo_room(jmemo *m, size_t n)
{
	if (m->n + n + 16 <= m->cap)
		return 1;
	int kept = 1;
	if (m->n + n > JFORMS_MAX) {
		memset(m->seen, 0, sizeof m->seen);
		m->n = m->head_len ? m->head_off + m->head_len : 0; /* the head stays */
		m->fresh++;
		kept = 0;
	}
	if (m->n + n + 16 > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		while (cap < m->n + n + 16)
			cap *= 2;
		m->forms = xrealloc(m->forms, cap);
		m->cap = cap;
	}
	return kept;
}

/* s[0..len)'s JSON form appended to m->forms (room made for it); returns
 * its length.  Invalid UTF-8 is written as the library shows it
 * (jh_utf8_clean, U+FFFD), as the language server does. */
#ifdef __SSE2__
/* How many of the sixteen bytes at s (the start of a character) go into
 * a JSON string as they are, as whole characters (14 to 16): printable
 * ASCII but '"' and '\\', and well-formed two- and three-byte sequences
 * (leads C2..DF, E1..EC, EE..EF, whose continuations need no range
 * check); 0 for a block with anything else, left to the byte-wise test. */
static unsigned plain16(const char *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)s);
	unsigned high = (unsigned)_mm_movemask_epi8(v);
	__m128i ctl = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)); /* controls, and every byte >= 0x80 */
	__m128i esc = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	                           _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')),
	                                        _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F))));
	unsigned bad = ((unsigned)_mm_movemask_epi8(ctl) & ~high) | (unsigned)_mm_movemask_epi8(esc);
	if (!high)
		return bad ? 0 : 16;
	__m128i cont = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xC0)),
	                              _mm_set1_epi8((char)0x80));
	__m128i o2 = _mm_sub_epi8(v, _mm_set1_epi8((char)0xC2));
	__m128i l2 = _mm_cmpeq_epi8(_mm_min_epu8(o2, _mm_set1_epi8(0xDF - 0xC2)), o2);
	__m128i o3 = _mm_sub_epi8(v, _mm_set1_epi8((char)0xE1));
	__m128i l3 = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xED)),
	                              _mm_cmpeq_epi8(_mm_min_epu8(o3, _mm_set1_epi8(0xEF - 0xE1)), o3));
	unsigned C = (unsigned)_mm_movemask_epi8(cont), L2 = (unsigned)_mm_movemask_epi8(l2),
	         L3 = (unsigned)_mm_movemask_epi8(l3);
	unsigned k = 16;
	if (L2 & 0x8000) /* characters running past the block: the bytes before them */
		k = 15;
	if (L3 & 0x4000)
		k = 14;
	else if (L3 & 0x8000)
		k = 15;
	unsigned keep = (1u << k) - 1;
	L2 &= keep;
	L3 &= keep;
	if ((bad & keep) || (high & keep & ~(C | L2 | L3)) ||
	    (C & keep) != (L2 << 1 | L3 << 1 | L3 << 2))
		return 0;
	return k;
}
#endif

/* Does s[0..len) go into a JSON string as it is: valid UTF-8, nothing to
 * escape?  Sixteen bytes a step where SSE2 is there. */
static int json_plain(const char *s, size_t len)
{
	size_t i = 0;
#ifdef __SSE2__
	while (len - i >= 16) {
		unsigned k = plain16(s + i);
		if (!k)
			break;
		i += k;
	}
#endif
	for (size_t r = i; r < len; r++) {
		unsigned char c = (unsigned char)s[r];
		if (c < 0x20 || c == 0x7F || c == '"' || c == '\\')
			return 0;
	}
	return jh_utf8_valid_prefix(s + i, len - i) == len - i;
}

static size_t memo_form(jmemo *m, const char *s, size_t len)
{
	if (json_plain(s, len)) { /* most strings: as they are, in quotes */
		memo_room(m, len + 2);
		char *out = m->forms + m->n;
		out[0] = '"';
		memcpy(out + 1, s, len);
		out[len + 1] = '"';
		return len + 2;
	}
	if (jh_utf8_valid_prefix(s, len) == len) {
		memo_room(m, 6 * len + 2);
		return json_form(m->forms + m->n, s, len);
	}
	size_t n = jh_utf8_clean(s, len, NULL, 0);
	char *clean = xmalloc(n + 1);
	jh_utf8_clean(s, len, clean, n + 1);
	memo_room(m, 6 * n + 2);
	size_t f = json_form(m->forms + m->n, clean, n);
	free(clean);
	return f;
}

/* Copy forms[off .. off + len) to the output, sixteen bytes at a time
 * (the forms and the room taken have 16 spare bytes past the end). */
static inline void jo_copy_form(jout *j, const jmemo *m, uint32_t off, uint32_t len)
{
	char *p = jo_room(j, (size_t)len + 16);
	const char *q = m->forms + off;
	for (uint32_t i = 0; i < len; i += 16)
		memcpy(p + i, q + i, 16);
	j->n += len;
}

/* The memo's slot for s, its form made the first time s is seen there;
 * NULL for a string too long to keep. */
static inline const jseen *memo_get(jmemo *m, const char *s)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull;
	jseen *e = &m->seen[h >> (64 - JSEEN_BITS)];
	if (e->s != s) {
		size_t len = strlen(s);
		if (len > JFORM_MAX)
			return NULL;
		/* a slot forgotten by memo_room's fresh start is filled anew */
		memo_room(m, 18 * len + 2);
		uint32_t off = (uint32_t)m->n;
		uint32_t flen = (uint32_t)memo_form(m, s, len);
		m->n += flen;
		*e = (jseen){s, off, flen};
	}
	return e;
}

/* The NUL-terminated s as a JSON string: its form from the memo, or
 * escaped as it goes. */
static void jo_str(jout *j, const char *s)
{
	const jseen *e = j->memo ? memo_get(j->memo, s) : NULL;
	if (e)
		jo_copy_form(j, j->memo, e->off, e->len);
	else
		jo_string(j, s, strlen(s));
}

void put_json_string(FILE *out, const char *s, size_t len)
{
	jout j;
	jo_init(&j, out, NULL, NULL, 0);
	jo_string(&j, s, len);
	jo_flush(&j);
}

static int reads_back(char *buf, size_t size, int prec, double score)
{
	snprintf(buf, size, "%.*g", prec, score);
	return strtod(buf, NULL) == score;
}

/* The shortest %.*g form that reads back as the score.  One more digit is
 * never further from the score, so reading back holds from some precision
 * on, and a binary search over 1..17 finds it (4 or 5 conversions instead
 * of up to 17: a mask's three scores cost 150 k instructions walking up).
 * The exception is a power of two, where the doubles below are twice as
 * close as those above and a nearer form may fall outside: walk up there. */
static void shortest_g(char *buf, size_t size, double score)
{
	int e;
	if (frexp(score, &e) == 0.5) {
		for (int prec = 1; prec <= 17 && !reads_back(buf, size, prec, score); prec++)
			;
		return;
	}
	int lo = 1, hi = 17; /* 17 digits always read back */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (reads_back(buf, size, mid, score))
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(buf, size, "%.*g", lo, score);
}

/* The same form for a score in [1e-7, 1) by exact integer arithmetic,
 * without a conversion of libc (shortest_g's 4 or 5 pairs of snprintf and
 * strtod were a tenth of a mask's cost in censor.mask.suggest): x = m 2^e,
 * scaled by 10^q to V = m 5^q / 2^s in [10^16, 10^17), rounded to p
 * digits for p = 1, 2, ..., and kept at the first p whose decimal lies
 * strictly between x's neighbouring midpoints (on one when m is even:
 * strtod rounds half to even).  Returns 0 (use shortest_g) outside that
 * range, at a power of two and on an exact tie of the rounding. */
static int shortest_fast(char *buf, size_t size, double x)
{
	if (!(x >= 1e-7 && x < 1) || size < 32)
		return 0;
	int be;
	double f = frexp(x, &be);
	if (f == 0.5)
		return 0;
	typedef unsigned __int128 u128;
	uint64_t m = (uint64_t)ldexp(f, 53);
	int e = be - 53;
	static const uint64_t p10[18] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	                                 10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	                                 100000000000ull, 1000000000000ull, 10000000000000ull,
	                                 100000000000000ull, 1000000000000000ull,
	                                 10000000000000000ull, 100000000000000000ull};
	int q = 17;
	u128 n5 = 0, t = 0, rem = 0;
	int s = 0;
	for (int tries = 0; tries < 10; tries++) {
		if (q < 17 || q > 23)
			return 0;
		u128 f5 = 1;
		for (int i = 0; i < q; i++)
			f5 *= 5;
		n5 = f5;
		s = -e - q;
		if (s <= 0 || s >= 120)
			return 0;
		u128 n = (u128)m * f5;
		t = n >> s;
		rem = n & (((u128)1 << s) - 1);
		if (t >= p10[17])
			q--;
		else if (t < p10[16])
			q++;
		else
			break;
	}
	if (t < p10[16] || t >= p10[17])
		return 0;
	u128 bm = (u128)(2 * m - 1) * n5, bp = (u128)(2 * m + 1) * n5;
	u128 one = (u128)1 << s;
	for (int p = 1; p <= 17; p++) {
		uint64_t u = p10[17 - p];
		uint64_t rp = (uint64_t)(t / u), r = (uint64_t)(t % u);
		u128 twice = 2 * ((u128)r * one + rem), whole = (u128)u * one;
		if (twice == whole)
			return 0; /* an exact tie: libc's rounding decides */
		if (twice > whole)
			rp++;
		u128 a = ((u128)rp * u) << (s + 1);
		int ok = (a > bm && a < bp) || ((a == bm || a == bp) && !(m & 1));
		if (!ok)
			continue;
		/* rp has p digits (p + 1 on a carry to 10^p); value rp 10^(17 - p - q) */
		int X = 16 - q; /* the decimal exponent of the first digit */
		if (rp == p10[p]) {
			rp = p10[p - 1];
			X++;
		}
		char dg[20];
		for (int i = p - 1; i >= 0; i--) {
			dg[i] = (char)('0' + rp % 10);
			rp /= 10;
		}
		int nd = p;
		while (nd > 1 && dg[nd - 1] == '0')
			nd--;
		char *o = buf;
		if (X < -4 || X >= p) {
			*o++ = dg[0];
			if (nd > 1) {
				*o++ = '.';
				for (int i = 1; i < nd; i++)
					*o++ = dg[i];
			}
			int ax = X < 0 ? -X : X;
			*o++ = 'e';
			*o++ = X < 0 ? '-' : '+';
			if (ax >= 100)
				*o++ = (char)('0' + ax / 100);
			*o++ = (char)('0' + ax / 10 % 10);
			*o++ = (char)('0' + ax % 10);
		} else if (X < 0) {
			*o++ = '0';
			*o++ = '.';
			for (int i = -1; i > X; i--)
				*o++ = '0';
			for (int i = 0; i < nd; i++)
				*o++ = dg[i];
		} else { /* X == 0: 1 after a carry, or d.ddd */
			*o++ = dg[0];
			if (nd > 1) {
				*o++ = '.';
				for (int i = 1; i < nd; i++)
					*o++ = dg[i];
			}
		}
		*o = '\0';
		return 1;
	}
	return 0;
}

static void jo_score(jout *j, double score)
{
	if (!(score >= 0)) {
		jo_puts(j, "null");
		return;
	}
	char buf[32];
	if (!shortest_fast(buf, sizeof buf, score))
		shortest_g(buf, sizeof buf, score);
	jo_puts(j, buf);
	if (!strpbrk(buf, ".e"))
		jo_puts(j, ".0");
}

void put_json_score(FILE *out, double score)
{
	jout j;
	jo_init(&j, out, NULL, NULL, 0);
	jo_score(&j, score);
	jo_flush(&j);
}

size_t orig_offset(const report_doc *d, size_t pos)
{
	return d->enc ? jh_document_file_offset(d->enc, pos) : pos;
}

void report_begin(reporter *r)
{
	r->first_chunk = 1;
	if (r->statistics)
		return;
	if (r->format == FMT_JSON)
		fputs("[", r->out);
	else if (r->format == FMT_SARIF)
		sarif_begin(r->out);
	else if (r->format == FMT_CHECKSTYLE)
		checkstyle_begin(r->out);
	if (r->flush_each)
		fflush(r->out);
}

/* The line holding pos: its start, and where its line break (or the text)
 * ends it.  A report asks in text order, line after line: the last line is
 * remembered, as walking back from every finding to its line's start made
 * a long line with many findings cost its length squared. */
static void line_at(const report_doc *d, size_t pos, size_t *start, size_t *brk)
{
	size_t p = pos > d->len ? d->len : pos;
	line_memo *m = d->memo;
	if (m && m->valid && m->start <= p && p <= m->brk) {
		*start = m->start;
		*brk = m->brk;
		return;
	}
	size_t s = p;
	while (s > 0 && d->text[s - 1] != '\n')
		s--;
	const char *nl = memchr(d->text + p, '\n', d->len - p);
	*start = s;
	*brk = nl ? (size_t)(nl - d->text) : d->len;
	if (m)
		*m = (line_memo){s, *brk, 1};
}

size_t line_start(const report_doc *d, size_t pos)
{
	size_t s, b;
	line_at(d, pos, &s, &b);
	return s;
}

void put_name(FILE *o, const char *name)
{
	char buf[1024], *big = NULL;
	size_t n = jh_name_escape(name, buf, sizeof buf);
	if (n >= sizeof buf) {
		big = xmalloc(n + 1);
		jh_name_escape(name, big, n + 1);
	}
	fwrite(big ? big : buf, 1, n, o);
	free(big);
}

void file_msg(FILE *o, const char *name, const char *fmt, ...)
{
	va_list ap;
	fputs("jinghua: ", o);
	put_name(o, name);
	fputs(": ", o);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
}

static int write_out(const char *data, size_t len, void *out)
{
	return fwrite(data, 1, len, out) != len;
}

/* The library writes the report; a write that fails shows in the
 * stream's error flag, which the end of the run reads. */
static void human_findings(const reporter *r, const report_doc *d, const jh_findings *fs)
{
	if (jh_report_human(d->name, d->text, d->len, fs, r->color ? JH_REPORT_COLOR : 0, write_out,
	                    r->out) == JH_ERR_NOMEM)
		die_nomem();
}

/* [{"byte_start":…,"byte_end":…,"replacement":…}, …] in the file's
 * offsets; bs and be are the finding's, which most edits share */
static void json_edits(jout *j, const report_doc *d, const jh_edit *edits, size_t n,
                       const jnum *bs, const jnum *be)
{
	jo_putc(j, '[');
	for (size_t i = 0; i < n; i++) {
		const jh_edit *e = &edits[i];
		char *p = jo_room(j, 2 * UINT_ROOM + 32), *p0 = p;
		if (i)
			*p++ = ',';
		PUT_LIT(p, "{\"byte_start\":");
		p = put_uint_as(p, orig_offset(d, e->byte_start), bs);
		PUT_LIT(p, ",\"byte_end\":");
		p = put_uint_as(p, orig_offset(d, e->byte_end), be);
		PUT_LIT(p, ",\"replacement\":");
		j->n += (size_t)(p - p0);
		jo_str(j, e->replacement);
		jo_putc(j, '}');
	}
	jo_putc(j, ']');
}

/* One finding's object; its parts of known length go out after one test
 * for room. */
static void jo_finding(jout *j, const report_doc *d, const jh_finding *f)
{
	char *p, *p0;
	if (j->memo && j->memo->head_len) {
		jo_copy_form(j, j->memo, j->memo->head_off, j->memo->head_len);
	} else if (*d->name) { /* jsonl filter records have no file */
		jo_put(j, "{\"file\":", 8);
		jo_str(j, d->name);
		jo_put(j, ",\"rule\":", 8);
	} else {
		jo_put(j, "{\"rule\":", 8);
	}
	jo_str(j, f->rule_id);
	jnum line = num_of(f->line);
	jnum bs = num_of(orig_offset(d, f->byte_start)), be = num_of(orig_offset(d, f->byte_end));
	p = p0 = jo_room(j, 7 * UINT_ROOM + 64);
	switch (f->severity) { /* jh_severity_name's words */
	case JH_ERROR: PUT_LIT(p, ",\"severity\":\"error\",\"line\":"); break;
	case JH_WARNING: PUT_LIT(p, ",\"severity\":\"warning\",\"line\":"); break;
	case JH_INFO: PUT_LIT(p, ",\"severity\":\"info\",\"line\":"); break;
	default: PUT_LIT(p, ",\"severity\":\"?\",\"line\":"); break;
	}
	p = put_num(p, &line);
	PUT_LIT(p, ",\"column\":");
	p = put_uint(p, f->column);
	PUT_LIT(p, ",\"end_line\":");
	p = put_uint_as(p, f->end_line, &line);
	PUT_LIT(p, ",\"end_column\":");
	p = put_uint(p, f->end_column);
	PUT_LIT(p, ",\"display_column\":");
	p = put_uint(p, f->display_column);
	PUT_LIT(p, ",\"byte_start\":");
	p = put_num(p, &bs);
	PUT_LIT(p, ",\"byte_end\":");
	p = put_num(p, &be);
	PUT_LIT(p, ",\"message\":");
	j->n += (size_t)(p - p0);
	jo_str(j, f->message);
	p = p0 = jo_room(j, 64);
	if (!f->has_fix)
		PUT_LIT(p, ",\"fix\":null");
	else if (f->safety == JH_SAFE)
		PUT_LIT(p, ",\"fix\":{\"safety\":\"safe\",\"edits\":");
	else
		PUT_LIT(p, ",\"fix\":{\"safety\":\"unsafe\",\"edits\":");
	j->n += (size_t)(p - p0);
	if (f->has_fix) {
		json_edits(j, d, f->edits, f->n_edits, &bs, &be);
		jo_putc(j, '}');
	}
	/* the ranked answers, when the rule gives them (the first is the fix
	 * when there is one); the binding's Finding.to_dict writes the same */
	if (f->n_alternatives) {
		const char *safety = f->safety == JH_SAFE ? "safe" : "unsafe";
		jo_puts(j, ",\"alternatives\":[");
		for (size_t i = 0; i < f->n_alternatives; i++) {
			jo_puts(j, i ? ",{\"safety\":\"" : "{\"safety\":\"");
			jo_puts(j, safety);
			jo_puts(j, "\",\"edits\":");
			json_edits(j, d, f->alternatives[i].edits, f->alternatives[i].n_edits, &bs, &be);
			jo_puts(j, ",\"score\":");
			jo_score(j, f->alternatives[i].score);
			jo_putc(j, '}');
		}
		jo_putc(j, ']');
	}
	jo_putc(j, '}');
}

/* len bytes of a form at p, sixteen at a time (room is left for the
 * overshoot); returns the end. */
static inline char *put_form(char *p, const char *q, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 16)
		memcpy(p + i, q + i, 16);
	return p + len;
}

/* The common finding (its strings in the memo, one edit or none, no
 * alternatives) written in one piece after one test for room, sep before
 * it; 0 when f is not of that kind. */
static int jo_finding_fast(jout *j, const report_doc *d, const jh_finding *f, const char sep[4],
                           size_t sep_len)
{
	jmemo *m = j->memo;
	const jh_edit *e = f->has_fix ? f->edits : NULL;
	if (!m->head_len || f->n_alternatives || (f->has_fix && f->n_edits != 1))
		return 0;
	/* the slots' contents are copied: two strings may share a slot, and
	 * the memo may start afresh (then it is asked again) */
	jseen rule, msg, rep = {NULL, 0, 0};
	for (unsigned fresh = m->fresh;;) {
		const jseen *a = memo_get(m, f->rule_id);
		if (!a) /* a string too long to keep */
			return 0;
		rule = *a;
		if (!(a = memo_get(m, f->message)))
			return 0;
		msg = *a;
		if (e) {
			if (!(a = memo_get(m, e->replacement)))
				return 0;
			rep = *a;
		}
		if (fresh == m->fresh)
			break;
		fresh = m->fresh;
	}
	size_t room = sep_len + m->head_len + rule.len + msg.len + rep.len + 512;
	if (room > j->cap / 2)
		return 0;
	/* a line's findings follow each other: its number is made once */
	jnum line;
	if (m->line_n && m->line == f->line) {
		line = (jnum){m->line, m->line_w, m->line_n};
	} else {
		line = num_of(f->line);
		m->line = line.v;
		m->line_w = line.w;
		m->line_n = line.n;
	}
	/* the end mostly a few bytes past the start: its last digit moved on */
	jnum bs = num_of(orig_offset(d, f->byte_start)), be;
	uint64_t end = orig_offset(d, f->byte_end), step = end - bs.v;
	if (bs.n && end >= bs.v && step < 10 && (bs.w >> (8 * (bs.n - 1)) & 0xFF) - '0' + step < 10)
		be = (jnum){end, bs.w + (step << (8 * (bs.n - 1))), bs.n};
	else
		be = num_of(end);
	const char *forms = m->forms; /* no form is made from here on */
	char *p = jo_room(j, room), *p0 = p;
	memcpy(p, sep, 4);
	p += sep_len;
	p = put_form(p, forms + m->head_off, m->head_len);
	p = put_form(p, forms + rule.off, rule.len);
	switch (f->severity) { /* jh_severity_name's words */
	case JH_ERROR: PUT_LIT(p, ",\"severity\":\"error\",\"line\":"); break;
	case JH_WARNING: PUT_LIT(p, ",\"severity\":\"warning\",\"line\":"); break;
	case JH_INFO: PUT_LIT(p, ",\"severity\":\"info\",\"line\":"); break;
	default: PUT_LIT(p, ",\"severity\":\"?\",\"line\":"); break;
	}
	p = put_num(p, &line);
	PUT_LIT(p, ",\"column\":");
	p = put_uint(p, f->column);
	PUT_LIT(p, ",\"end_line\":");
	p = put_uint_as(p, f->end_line, &line);
	PUT_LIT(p, ",\"end_column\":");
	p = put_uint(p, f->end_column);
	PUT_LIT(p, ",\"display_column\":");
	p = put_uint(p, f->display_column);
	PUT_LIT(p, ",\"byte_start\":");
	p = put_num(p, &bs);
	PUT_LIT(p, ",\"byte_end\":");
	p = put_num(p, &be);
	PUT_LIT(p, ",\"message\":");
	p = put_form(p, forms + msg.off, msg.len);
	if (!e) {
		PUT_LIT(p, ",\"fix\":null}");
	} else {
		if (f->safety == JH_SAFE)
			PUT_LIT(p, ",\"fix\":{\"safety\":\"safe\",\"edits\":[{\"byte_start\":");
		else
			PUT_LIT(p, ",\"fix\":{\"safety\":\"unsafe\",\"edits\":[{\"byte_start\":");
		/* the edit mostly spans the finding: its offsets are known */
		p = e->byte_start == f->byte_start ? put_num(p, &bs)
		                                   : put_uint(p, orig_offset(d, e->byte_start));
		PUT_LIT(p, ",\"byte_end\":");
		p = e->byte_end == f->byte_end ? put_num(p, &be) : put_uint(p, orig_offset(d, e->byte_end));
		PUT_LIT(p, ",\"replacement\":");
		p = put_form(p, forms + rep.off, rep.len);
		PUT_LIT(p, "}]}}");
	}
	j->n += (size_t)(p - p0);
	return 1;
}

void json_finding(FILE *o, const report_doc *d, const jh_finding *f)
{
	jout j;
	jo_init(&j, o, NULL, NULL, 0);
	jo_finding(&j, d, f);
	jo_flush(&j);
}

/* JSON and SARIF items are separated by commas: none before the first. */
static void separate(reporter *r, FILE *o)
{
	fputs(r->first_chunk ? "\n" : ",\n", o);
	r->first_chunk = 0;
}

static void write_finding(reporter *r, const report_doc *d, const jh_finding *f)
{
	FILE *o = r->out;
	switch (r->format) {
	case FMT_HUMAN: /* whole files, in report_render */
		break;
	case FMT_JSON: /* a file at a time, in json_render */
	case FMT_JSONL:
		break;
	case FMT_SARIF:
		separate(r, o);
		sarif_result(o, d, f);
		break;
	case FMT_GITHUB:
		github_finding(o, d, f);
		break;
	case FMT_RDJSONL:
		rdjson_finding(o, d, f);
		fputc('\n', o);
		break;
	case FMT_CHECKSTYLE:
		break;
	}
}

/* Count f; returns the index of its rule's entry. */
static size_t count(reporter *r, const jh_ruleset *rs, const jh_finding *f)
{
	r->n_findings++;
	r->by_sev[f->severity]++;
	/* ids are unique in counts: one with f's very pointer (a rule's id
	 * points into its rule set) is the one strcmp would find */
	size_t i = 0;
	while (i < r->n_counts && r->counts[i].id != f->rule_id)
		i++;
	if (i == r->n_counts)
		for (i = 0; i < r->n_counts && strcmp(r->counts[i].id, f->rule_id); i++)
			;
	if (i < r->n_counts) {
		r->counts[i].count++;
		r->counts[i].fixable += f->has_fix && f->safety == JH_SAFE;
		r->counts[i].unsafe += f->has_fix && f->safety != JH_SAFE;
		return i;
	}
	if (r->n_counts == r->cap_counts) {
		r->cap_counts = r->cap_counts ? r->cap_counts * 2 : 32;
		r->counts = xrealloc(r->counts, r->cap_counts * sizeof *r->counts);
	}
	r->counts[r->n_counts++] = (rule_count){f->rule_id, rs, f->severity, 1,
	                                        (size_t)(f->has_fix && f->safety == JH_SAFE),
	                                        (size_t)(f->has_fix && f->safety != JH_SAFE)};
	return r->n_counts - 1;
}

void report_count(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	r->n_files++;
	size_t last = 0; /* a file's findings come in runs of one rule */
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		if (last < r->n_counts && r->counts[last].id == f->rule_id) {
			rule_count *c = &r->counts[last];
			r->n_findings++;
			r->by_sev[f->severity]++;
			c->count++;
			c->fixable += f->has_fix && f->safety == JH_SAFE;
			c->unsafe += f->has_fix && f->safety != JH_SAFE;
			continue;
		}
		last = count(r, doc->rs, f);
	}
}

void report_write(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	report_count(r, doc, fs);
	report_render(r, doc, fs);
}

int report_prerender(const reporter *r, const report_doc *doc, const jh_findings *fs, char **out,
                     size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (!report_prints(r, fs))
		return 0;
	/* only the settings fixed before the threads start are read from r */
	reporter local = {0};
	local.format = r->format;
	local.color = r->color;
	local.first_chunk = 1;
	if (!(local.out = open_memstream(out, out_len)))
		return -1;
	report_render(&local, doc, fs);
	if (fclose(local.out) != 0) {
		free(*out);
		*out = NULL;
		*out_len = 0;
		return -1;
	}
	return 0;
}

void report_put(reporter *r, const report_doc *doc, const jh_findings *fs, const char *chunk,
                size_t len)
{
	report_count(r, doc, fs);
	if (!len)
		return;
	/* the chunk was rendered as if first: "\n" before its first element */
	if ((r->format == FMT_JSON || r->format == FMT_SARIF) && !r->first_chunk)
		fputc(',', r->out);
	if (r->format == FMT_JSON || r->format == FMT_SARIF)
		r->first_chunk = 0;
	fwrite(chunk, 1, len, r->out);
	if (r->flush_each)
		fflush(r->out);
}

/* A file's findings as JSON (an array's elements) or JSON lines, through
 * one buffer and one memo of the strings' JSON forms. */
static void json_render(reporter *r, const report_doc *d, const jh_findings *fs)
{
	jmemo *m = xmalloc(sizeof *m);
	memset(m->seen, 0, sizeof m->seen);
	m->forms = NULL;
	m->n = m->cap = 0;
	m->head_off = m->head_len = 0;
	m->fresh = 0;
	m->line_n = 0;
	/* what every finding of the file begins with, made once (a name too
	 * long for that is escaped each time) */
	size_t name_len = strlen(d->name);
	memo_room(m, 18 * JFORM_MAX + 32);
	if (name_len > JFORM_MAX) {
		m->n = 0;
	} else if (*d->name) { /* jsonl filter records have no file */
		memcpy(m->forms, "{\"file\":", 8);
		m->n = 8;
		m->n += memo_form(m, d->name, name_len);
		memcpy(m->forms + m->n, ",\"rule\":", 8);
		m->n += 8;
	} else {
		memcpy(m->forms, "{\"rule\":", 8);
		m->n = 8;
	}
	m->head_off = 0;
	m->head_len = (uint32_t)m->n;
	jout *j = xmalloc(sizeof *j);
	char *buf = xmalloc(65536);
	jo_init(j, r->out, m, buf, 65536);
	for (size_t i = 0; i < fs->count; i++) {
		/* JSON: commas between elements, none before the first; JSON
		 * lines: a line break after each */
		static const char seps[3][4] = {"", "\n", ",\n"};
		int k = r->format == FMT_JSONL ? 0 : r->first_chunk ? 1 : 2;
		const char *sep = seps[k];
		size_t sep_len = (size_t)k;
		if (r->format == FMT_JSON)
			r->first_chunk = 0;
		if (jo_finding_fast(j, d, &fs->items[i], sep, sep_len)) {
			if (r->format == FMT_JSONL)
				jo_putc(j, '\n');
			continue;
		}
		jo_put(j, sep, sep_len);
		jo_finding(j, d, &fs->items[i]);
		if (r->format == FMT_JSONL)
			jo_putc(j, '\n');
	}
	jo_flush(j);
	free(buf);
	free(j);
	free(m->forms);
	free(m);
}

void report_render(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	if (r->statistics || !fs->count)
		return;
	line_memo memo = {0};
	report_doc d = *doc;
	d.memo = &memo;
	if (r->format == FMT_CHECKSTYLE)
		checkstyle_file(r->out, &d, fs);
	else if (r->format == FMT_HUMAN)
		human_findings(r, &d, fs);
	else if (r->format == FMT_JSON || r->format == FMT_JSONL)
		json_render(r, &d, fs);
	else
		for (size_t i = 0; i < fs->count; i++)
			write_finding(r, &d, &fs->items[i]);
	if (r->flush_each)
		fflush(r->out);
}

int report_prints(const reporter *r, const jh_findings *fs)
{
	return !r->statistics && fs->count;
}

static int cmp_count(const void *a, const void *b)
{
	const rule_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->id, y->id);
}

const char *rule_message(const jh_ruleset *rs, const char *id)
{
	long idx = rs ? jh_ruleset_find(rs, id) : -1;
	if (idx < 0)
		return NULL;
	jh_rule_info in = JH_RULE_INFO_INIT;
	jh_rule_get_info(jh_ruleset_rule(rs, (size_t)idx), &in);
	return in.message;
}

/* The end of a summary line: the binary files that were not checked. */
static void put_skipped(FILE *o, const reporter *r)
{
	if (r->n_skipped)
		fprintf(o, " checked, %zu binary file%s skipped", r->n_skipped,
		        r->n_skipped == 1 ? "" : "s");
	fputc('\n', o);
}

static void print_statistics(reporter *r)
{
	if (r->n_counts > 1) /* counts is NULL without findings: not for qsort */
		qsort(r->counts, r->n_counts, sizeof *r->counts, cmp_count);
	FILE *o = r->out;
	if (r->format == FMT_JSON) {
		fputs("[", o);
		for (size_t i = 0; i < r->n_counts; i++) {
			const rule_count *c = &r->counts[i];
			fprintf(o, "%s\n{\"rule\":", i ? "," : "");
			put_json_string(o, c->id, strlen(c->id));
			fprintf(o, ",\"severity\":\"%s\",\"count\":%zu,\"fixable\":%zu,\"unsafe_fixable\":%zu}",
			        jh_severity_name(c->severity), c->count, c->fixable, c->unsafe);
		}
		fputs(r->n_counts ? "\n]\n" : "]\n", o);
		return;
	}
	for (size_t i = 0; i < r->n_counts; i++) {
		const rule_count *c = &r->counts[i];
		fprintf(o, "%7zu  %-32s %-7s %7zu fixable", c->count, c->id, jh_severity_name(c->severity),
		        c->fixable);
		if (c->unsafe)
			fprintf(o, ", %zu with --unsafe", c->unsafe);
		fputc('\n', o);
	}
	if (r->n_counts) {
		fprintf(o, "%7zu  total in %zu file%s", r->n_findings, r->n_files,
		        r->n_files == 1 ? "" : "s");
		put_skipped(o, r);
	}
}

void report_end(reporter *r)
{
	if (r->statistics) {
		print_statistics(r);
	} else if (r->format == FMT_JSON) {
		fputs(r->first_chunk ? "]\n" : "\n]\n", r->out);
	} else if (r->format == FMT_SARIF) {
		sarif_end(r);
	} else if (r->format == FMT_CHECKSTYLE) {
		checkstyle_end(r->out);
	} else if (r->format == FMT_HUMAN) {
		jh_report_human_summary(r->by_sev, r->n_files, r->n_skipped, write_out, r->out);
	}
	if (r->flush_each)
		fflush(r->out);
	free(r->counts);
	r->counts = NULL;
	r->n_counts = r->cap_counts = 0;
}
