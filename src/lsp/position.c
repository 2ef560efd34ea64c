/* position.c — LSP positions: a line and a column counted in the code
 * units the session agreed on (UTF-16 unless the client offered UTF-8 or
 * UTF-32), to and from byte offsets into the UTF-8 text.  A character
 * outside the BMP (CJK Extension B, 𠀀) is two UTF-16 units, four UTF-8
 * units and one UTF-32 unit.  Invalid bytes count one unit each. */
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

const char *pos_encoding_name(pos_encoding e)
{
	return e == ENC_UTF8 ? "utf-8" : e == ENC_UTF32 ? "utf-32" : "utf-16";
}

void line_index_build(line_index *li, const char *text, size_t len)
{
	size_t cap = 64, n = 0;
	size_t *v = malloc(cap * sizeof *v);
	if (!v)
		abort();
	v[n++] = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c != '\n' && c != '\r')
			continue;
		if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
			i++;
		if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v)))
			abort();
		v[n++] = i + 1;
	}
	li->start = v;
	li->n = n;
}

void line_index_free(line_index *li)
{
	free(li->start);
	li->start = NULL;
	li->n = 0;
}

/* Length of the UTF-8 sequence starting with byte c when it is valid
 * there, else 1 (an invalid byte is one unit of its own). */
static size_t seq_len(const char *s, size_t avail)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
	if (n > avail)
		return 1;
	return jh_utf8_valid_prefix(s, n) == n ? n : 1;
}

static size_t units(const char *s, size_t n, pos_encoding e)
{
	if (e == ENC_UTF8)
		return n;
	if (e == ENC_UTF32 || n == 1)
		return 1;
	return n == 4 ? 2 : 1;
}

/* End of line `line`'s content (before its line break). */
static size_t line_end(const line_index *li, const char *text, size_t len, size_t line)
{
	size_t end = line + 1 < li->n ? li->start[line + 1] : len;
	if (line + 1 < li->n) {
		if (end > 0 && text[end - 1] == '\n')
			end--;
		if (end > li->start[line] && text[end - 1] == '\r')
			end--;
	}
	return end;
}

size_t pos_to_offset(const line_index *li, const char *text, size_t len, pos_encoding e,
                     size_t line, size_t character)
{
	if (line >= li->n)
		return len;
	size_t p = li->start[line], end = line_end(li, text, len, line);
	while (p < end && character > 0) {
		size_t n = seq_len(text + p, end - p), u = units(text + p, n, e);
		if (u > character) /* inside a character: its start */
			break;
		character -= u;
		p += n;
	}
	return p;
}

static size_t line_of_offset(const line_index *li, size_t off)
{
	size_t lo = 0, hi = li->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (li->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void offset_to_pos(const line_index *li, const char *text, size_t len, pos_encoding e,
                   size_t off, size_t *line, size_t *character)
{
	if (off > len)
		off = len;
	size_t l = line_of_offset(li, off);
	size_t p = li->start[l], end = line_end(li, text, len, l), c = 0;
	if (off > end) /* inside a \r\n: the end of the line */
		off = end;
	while (p < off) {
		size_t n = seq_len(text + p, len - p);
		if (p + n > off)
			break;
		c += units(text + p, n, e);
		p += n;
	}
	*line = l;
	*character = c;
}

json_t *pos_json(const line_index *li, const char *text, size_t len, pos_encoding e, size_t off)
{
	size_t l, c;
	offset_to_pos(li, text, len, e, off, &l, &c);
	return json_pack("{s:I,s:I}", "line", (json_int_t)l, "character", (json_int_t)c);
}

json_t *range_json(const line_index *li, const char *text, size_t len, pos_encoding e,
                   size_t a, size_t b)
{
	return json_pack("{s:o,s:o}", "start", pos_json(li, text, len, e, a), "end",
	                 pos_json(li, text, len, e, b));
}

int json_to_offset(const line_index *li, const char *text, size_t len, pos_encoding e,
                   json_t *pos, size_t *off)
{
	json_t *l = json_object_get(pos, "line"), *c = json_object_get(pos, "character");
	if (!json_is_integer(l) || !json_is_integer(c) || json_integer_value(l) < 0 ||
	    json_integer_value(c) < 0)
		return -1;
	*off = pos_to_offset(li, text, len, e, (size_t)json_integer_value(l),
	                     (size_t)json_integer_value(c));
	return 0;
}

int json_to_range(const line_index *li, const char *text, size_t len, pos_encoding e,
                  json_t *range, size_t *a, size_t *b)
{
	if (json_to_offset(li, text, len, e, json_object_get(range, "start"), a) ||
	    json_to_offset(li, text, len, e, json_object_get(range, "end"), b))
		return -1;
	if (*b < *a) {
		size_t t = *a;
		*a = *b;
		*b = t;
	}
	return 0;
}
