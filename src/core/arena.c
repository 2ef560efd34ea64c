/* arena.c — memory handed out from chunks and freed all at once. */
#include <stdlib.h>
#include "arena.h"

struct jh_chunk {
	jh_chunk *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

void *jh_arena_alloc(jh_arena *a, size_t n, size_t align)
{
	jh_chunk *c = a->top;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at > c->cap || c->cap - at < n) {
		size_t cap = n > 65536 ? n : 65536;
		if (!(c = malloc(sizeof *c + cap)))
			return NULL;
		c->next = a->top;
		c->used = 0;
		c->cap = cap;
		a->top = c;
		at = 0;
	}
	c->used = at + n;
	return c->data + at;
}

void jh_arena_free(jh_arena *a)
{
	for (jh_chunk *c = a->top, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->top = NULL;
}
