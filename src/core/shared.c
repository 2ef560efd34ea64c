/* shared.c — the process-wide registry of read-only tables shared by
 * rule sets (the library's only global state). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "shared.h"

typedef struct shared_entry {
	char *key;
	int level;
	void *obj;
	void (*free_fn)(void *obj);
	unsigned refs;
	struct shared_entry *next;
} shared_entry;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_entry *shared_list;

int jh_shared_get(const char *key, int level, jh_shared_load_fn load, void *arg,
                  void (*free_fn)(void *obj), void **obj)
{
	int rc = JH_OK;
	*obj = NULL;
	pthread_mutex_lock(&shared_lock);
	shared_entry *e = shared_list;
	while (e && (strcmp(e->key, key) || e->level < level || e->free_fn != free_fn))
		e = e->next;
	if (e) {
		e->refs++;
	} else if (!(e = calloc(1, sizeof *e)) || !(e->key = jh_strdup(key))) {
		free(e);
		e = NULL;
		rc = JH_ERR_NOMEM;
	} else if ((rc = load(arg, &e->obj)) != JH_OK) {
		if (e->obj)
			free_fn(e->obj);
		free(e->key);
		free(e);
		e = NULL;
	} else {
		e->level = level;
		e->free_fn = free_fn;
		e->refs = 1;
		e->next = shared_list;
		shared_list = e;
	}
	pthread_mutex_unlock(&shared_lock);
	*obj = e ? e->obj : NULL;
	return rc;
}

void jh_shared_release(void *obj)
{
	if (!obj)
		return;
	pthread_mutex_lock(&shared_lock);
	for (shared_entry **p = &shared_list; *p; p = &(*p)->next)
		if ((*p)->obj == obj) {
			shared_entry *e = *p;
			if (--e->refs == 0) {
				*p = e->next;
				e->free_fn(e->obj);
				free(e->key);
				free(e);
			}
			break;
		}
	pthread_mutex_unlock(&shared_lock);
}
