/* tablecache.h — compiled forms of data tables, kept in the user's cache
 * folder so that the next run maps them instead of building them again
 * (the word model, the script phrase table).  See tablecache.c. */
#ifndef JH_TABLECACHE_H
#define JH_TABLECACHE_H

#include <stddef.h>
#include <stdint.h>

/* What every cache file starts with: the form (magic, this machine's
 * layout) and the source file it was compiled from, as it was. */
typedef struct {
	char magic[8];
	uint32_t endian, layout;
	uint64_t src_dev, src_ino, src_size, src_mtime_sec, src_mtime_nsec;
} jh_cache_head;

/* One part of a cache file; each starts at a multiple of 8 bytes. */
typedef struct {
	const void *data;
	size_t len;
} jh_cache_section;

static inline size_t jh_cache_align(size_t x) { return (x + 7) & ~(size_t)7; }

/* The calls below take the cache folder (a rule's cache_dir, from its rule
 * set); NULL = no cache: nothing is mapped or written. */

/* The compiled form named kind ("words", "phrases") of the data file src as
 * it is now: 0 with *map and *len (the whole file, the jh_cache_head first)
 * when one with this magic and layout is there and names src's device,
 * inode, size and modification time; -1 otherwise.  The caller checks the
 * rest and munmap()s it. */
int jh_cache_map(const char *cache_dir, const char *src, const char *kind, const char magic[8], uint32_t layout,
                 void **map, size_t *len);

/* Write the compiled form: the head, then the sections, each aligned to 8
 * bytes.  Written to a temporary file and renamed, so a reader maps only a
 * whole one.  A cache that cannot be written is no error. */
void jh_cache_store(const char *cache_dir, const char *src, const char *kind, const char magic[8], uint32_t layout,
                    const jh_cache_section *sections, size_t n);

/* The same for a compiled form that no one file is the source of (the
 * rule set's regex codes): named by name (a hash of what names its
 * sources: a store removes the files of the same name and another key)
 * and key, a hash of everything it was compiled from, which the head
 * holds in src_dev (src_ino: name; the other src_ fields are 0). */
int jh_cache_map_keyed(const char *cache_dir, const char *kind, uint64_t name, uint64_t key,
                       const char magic[8], uint32_t layout, void **map, size_t *len);
void jh_cache_store_keyed(const char *cache_dir, const char *kind, uint64_t name, uint64_t key,
                          const char magic[8], uint32_t layout, const jh_cache_section *sections,
                          size_t n);

/* The same for a compiled form of a named source (a rules folder, a list
 * of lexicons): the file is named by a hash of kind and name, and ident, a
 * hash of the sources' state as they are now, which the head also holds
 * (src_dev; src_ino: the name's hash).  The caller checks the rest. */
int jh_cache_map_named(const char *cache_dir, const char *kind, const char *name, uint64_t ident,
                       const char magic[8], uint32_t layout, void **map, size_t *len);
void jh_cache_store_named(const char *cache_dir, const char *kind, const char *name, uint64_t ident,
                          const char magic[8], uint32_t layout, const jh_cache_section *sections,
                          size_t n);

#endif
