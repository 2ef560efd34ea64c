/* jsonout.c — the JSON writer of the reports: the buffered output (jout),
 * strings escaped or taken from the memo of their JSON forms (jmemo) and
 * scores as their shortest decimal; report.c writes findings with it.
 * The inline parts (room, numbers, the memo's look-up) are in jsonout.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "cli.h"
#include "jsonout.h"

/* A writer to o through its own 16 KB, or through b[0..cap) (a file's
 * findings go out 64 KB at a time: fewer, longer writes). */
void jo_init(jout *j, FILE *o, jmemo *memo, char *b, size_t cap)
{
	j->o = o;
	j->n = 0;
	j->memo = memo;
	j->b = b ? b : j->own;
	j->cap = b ? cap : sizeof j->own;
}

void jo_flush(jout *j)
{
	if (j->n)
		fwrite(j->b, 1, j->n, j->o);
	j->n = 0;
}

void jo_put(jout *j, const char *s, size_t n)
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

/* The escaped bytes of s[0..len) (valid UTF-8) at out, which has room
 * for 6 len bytes; returns their length.  Bytes are copied in runs
 * between the characters that need escaping. */
static size_t json_body(char *out, const char *s, size_t len)
{
	size_t o = 0, run = 0;
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
	return o + len - run;
}

/* The JSON form of s[0..len) (valid UTF-8) at out, which has room for
 * 6 len + 2 bytes; returns its length. */
static size_t json_form(char *out, const char *s, size_t len)
{
	out[0] = '"';
	size_t o = 1 + json_body(out + 1, s, len);
	out[o++] = '"';
	return o;
}

/* s as a JSON string straight into the buffer, a kilobyte of it at a
 * time (jo_room wants well less than the buffer). */
static void jo_escaped(jout *j, const char *s, size_t len)
{
	jo_putc(j, '"');
	for (size_t i = 0; i < len;) {
		size_t n = len - i < 1024 ? len - i : 1024;
		char *p = jo_room(j, 6 * n);
		j->n += json_body(p, s + i, n);
		i += n;
	}
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

/* Room in m->forms for n bytes more and 16 spare; 0 when the forms
 * start afresh (every slot forgotten) to keep a file of ever new strings
 * from filling memory. */
int memo_room(jmemo *m, size_t n)
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

size_t memo_form(jmemo *m, const char *s, size_t len)
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

/* The NUL-terminated s as a JSON string: its form from the memo, or
 * escaped as it goes. */
void jo_str(jout *j, const char *s)
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

void jo_score(jout *j, double score)
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
