/* lazy.h — a table loaded once, the first time a check needs it. */
#ifndef JH_LAZY_H
#define JH_LAZY_H

#include <pthread.h>

/* A table loaded the first time a check needs it, not when the rule set is
 * compiled: most documents never need the big word lists (mask suggestions,
 * lost characters, the context model), and start-up must stay in
 * milliseconds.  The compiled rule set is shared by threads, so the load
 * runs once under a lock; afterwards the check reads the table without one.
 * jh_lazy_get returns the load's result (JH_OK or an error code, the same
 * for every later call). */
typedef struct {
	pthread_mutex_t lock;
	int done;     /* read and written with atomics */
	int rc;
} jh_lazy;

void jh_lazy_init(jh_lazy *l);
void jh_lazy_destroy(jh_lazy *l);
int jh_lazy_get(jh_lazy *l, int (*load)(void *arg), void *arg);

#endif
