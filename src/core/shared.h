/* shared.h — tables read once per process and shared by rule sets. */
#ifndef JH_SHARED_H
#define JH_SHARED_H


/* A table read once per process and shared by every rule set that names
 * the same file (the word model, the script character table): found by
 * key (the file's path), counted by references, freed with its last
 * user, all under one lock, as rule sets may be compiled by several
 * threads.  level says how complete a table is (the word model with or
 * without its indexes): a request is served by a table of that level or
 * more.  A load that fails is not kept, so the next rule to need the
 * file reports the error against its own line.  jh_shared_get returns
 * load's result and sets *obj (NULL on failure); jh_shared_release takes
 * the object back (NULL is ignored). */
typedef int (*jh_shared_load_fn)(void *arg, void **obj);
int jh_shared_get(const char *key, int level, jh_shared_load_fn load, void *arg,
                  void (*free_fn)(void *obj), void **obj);
void jh_shared_release(void *obj);

#endif
