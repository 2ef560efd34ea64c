/* arena.h — memory handed out from chunks and freed all at once. */
#ifndef JH_ARENA_H
#define JH_ARENA_H

#include <stddef.h>

/* Memory handed out from chunks of 64 KB (a bigger request gets a chunk
 * of its own) and freed all at once: for many small pieces that live as
 * long as one owner (the keys of a word list, a list's findings).  align
 * is 1 for strings or 8 for structs.  Start it zeroed. */
typedef struct jh_chunk jh_chunk;
typedef struct {
	jh_chunk *top;
} jh_arena;

void *jh_arena_alloc(jh_arena *a, size_t n, size_t align);
void jh_arena_free(jh_arena *a);

#endif
