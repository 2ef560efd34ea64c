/* jsonout.h — the JSON writer of the reports (jsonout.c): a buffered
 * output, the memo of strings' JSON forms and the numbers, shared by
 * report.c's finding writers.  What a finding writes on its fast path is
 * here, static inline, so that it is inlined into report.c as it was when
 * both were one file; the rest is in jsonout.c. */
#ifndef JH_CLI_JSONOUT_H
#define JH_CLI_JSONOUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
void jo_init(jout *j, FILE *o, jmemo *memo, char *b, size_t cap);
void jo_flush(jout *j);
void jo_put(jout *j, const char *s, size_t n);
/* The NUL-terminated s as a JSON string: its form from the memo, or
 * escaped as it goes. */
void jo_str(jout *j, const char *s);
/* A score as put_json_score writes it. */
void jo_score(jout *j, double score);
/* Room in m->forms for n bytes more and 16 spare; 0 when the forms
 * start afresh (every slot forgotten). */
int memo_room(jmemo *m, size_t n);
/* s[0..len)'s JSON form appended to m->forms (room made for it);
 * returns its length. */
size_t memo_form(jmemo *m, const char *s, size_t len);

static inline void jo_puts(jout *j, const char *s) { jo_put(j, s, strlen(s)); }

static inline void jo_putc(jout *j, char c)
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

#endif
