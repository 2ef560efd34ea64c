/* lazy.c — a table loaded once, the first time a check needs it. */
#include "jinghua.h"
#include "lazy.h"

void jh_lazy_init(jh_lazy *l)
{
	pthread_mutex_init(&l->lock, NULL);
	l->done = 0;
	l->rc = JH_OK;
}

void jh_lazy_destroy(jh_lazy *l)
{
	pthread_mutex_destroy(&l->lock);
}

int jh_lazy_get(jh_lazy *l, int (*load)(void *arg), void *arg)
{
	/* Double-checked: the acquire load pairs with the release store below,
	 * so a thread that sees done also sees the table the load built. */
	if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE))
		return l->rc;
	pthread_mutex_lock(&l->lock);
	if (!l->done) {
		l->rc = load(arg);
		__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&l->lock);
	return l->rc;
}
