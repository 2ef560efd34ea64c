/* text.h — small inline helpers on UTF-8 text held in memory. */
#ifndef JH_TEXT_H
#define JH_TEXT_H

#include <stddef.h>

/* The line around pos: [*start, *end), end at its '\n' or the text's end. */
static inline void jh_line_bounds(const char *text, size_t len, size_t pos, size_t *start,
                                  size_t *end)
{
	size_t a = pos > len ? len : pos, b = a;
	while (a > 0 && text[a - 1] != '\n')
		a--;
	while (b < len && text[b] != '\n')
		b++;
	*start = a;
	*end = b;
}

#endif
