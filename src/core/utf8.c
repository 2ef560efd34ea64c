/* utf8.c — UTF-8 helpers and the public validation/width utilities. */
#include <string.h>
#include <utf8proc.h>
#include "jinghua.h"
#include "utf8.h"

size_t jh_utf8_encode(int32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t jh_utf8_count(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, i = 0;
	while (i < len) {
		int32_t cp;
		i += jh_utf8_decode(u + i, len - i, &cp);
		n++;
	}
	return n;
}

size_t jh_display_width(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = 0, i = 0;
	while (i < len) {
		int32_t cp;
		i += jh_utf8_decode(u + i, len - i, &cp);
		if (cp < 0) {
			w += 1;
			continue;
		}
		int cw = utf8proc_charwidth(cp);
		/* Tabs and controls: count one column so carets stay under the text. */
		w += cw > 0 ? (size_t)cw : (cp < 0x20 ? 1 : 0);
	}
	return w;
}

size_t jh_utf16_column(const char *text, size_t len, size_t pos)
{
	if (pos > len)
		pos = len;
	size_t start = pos;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	const unsigned char *u = (const unsigned char *)text;
	size_t col = 1, i = start;
	while (i < pos) {
		int32_t cp;
		i += jh_utf8_decode(u + i, pos - i, &cp);
		col += cp > 0xFFFF ? 2 : 1; /* a surrogate pair; an invalid byte counts one */
	}
	return col;
}

/* Append byte c at w of out (size bytes, one kept for the NUL). */
static void put_byte(char *out, size_t size, size_t *w, char c)
{
	if (*w + 1 < size)
		out[*w] = c;
	(*w)++;
}

size_t jh_name_escape(const char *name, char *out, size_t size)
{
	/* a file name is bytes: a control byte in it (ESC, CR, a newline, a C1
	 * control such as CSI) would reach the terminal or forge a line of
	 * output, and a byte that is not UTF-8 garbles the line: each is
	 * written \xHH */
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)name;
	size_t n = strlen(name), i = 0, w = 0;
	while (i < n) {
		size_t k = p[i] < 0x80 ? 1 : p[i] < 0xE0 ? 2 : p[i] < 0xF0 ? 3 : 4;
		if (k > n - i || jh_utf8_valid_prefix(name + i, k) != k)
			k = 0; /* not a character: the byte alone */
		int control = k == 1 ? p[i] < 0x20 || p[i] == 0x7F : k == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0;
		if (k && !control) {
			for (size_t e = i + k; i < e; i++)
				put_byte(out, size, &w, name[i]);
			continue;
		}
		for (size_t e = i + (k ? k : 1); i < e; i++) {
			put_byte(out, size, &w, '\\');
			put_byte(out, size, &w, 'x');
			put_byte(out, size, &w, hex[p[i] >> 4]);
			put_byte(out, size, &w, hex[p[i] & 15]);
		}
	}
	if (size)
		out[w < size ? w : size - 1] = '\0';
	return w;
}

/* Append s[0..n) at w of out, as put_byte does each byte. */
static void put_run(char *out, size_t size, size_t *w, const char *s, size_t n)
{
	if (*w + 1 < size) {
		size_t room = size - 1 - *w;
		memcpy(out + *w, s, n < room ? n : room);
	}
	*w += n;
}

size_t jh_utf8_clean(const char *s, size_t len, char *out, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, w = 0;
	while (i < len) {
		size_t ok = jh_utf8_valid_prefix(s + i, len - i);
		put_run(out, size, &w, s + i, ok);
		if ((i += ok) == len)
			break;
		int32_t cp;
		i += jh_utf8_decode(u + i, len - i, &cp); /* the maximal invalid subpart */
		put_run(out, size, &w, "\xEF\xBF\xBD", 3);
	}
	if (size)
		out[w < size ? w : size - 1] = '\0';
	return w;
}
