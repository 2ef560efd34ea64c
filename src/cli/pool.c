/* pool.c — N threads over a stream of jobs: the calling thread and N - 1
 * workers.  Results are handed back in input order by the calling thread,
 * so output never interleaves and never depends on timing.  Jobs run at
 * most WINDOW jobs ahead of the one being printed, which bounds the memory
 * held by buffered results.
 *
 * The calling thread takes jobs too, and emits between them, rather than
 * sleeping until the next result is ready: with a chapter every half
 * millisecond, waking it for each result (a futex wake and an interrupt
 * on the other core) cost 15% more CPU with two threads than with one.
 * Threads are woken only when someone is asleep waiting. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

#define WINDOW_PER_THREAD 8

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t done, space;
	void *ctx;
	pool_next_fn next;
	pool_work_fn work;
	size_t window;
	size_t taken;     /* jobs handed out */
	size_t emitted;   /* results handed back */
	int exhausted;
	int main_waiting; /* the calling thread sleeps on done */
	unsigned workers_waiting; /* workers sleeping on space */
	void **results;
	unsigned char *ready;
} pool;

unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

/* Under the lock: hand out the next job, if the window has room and the
 * stream has one.  1 = *i and *job are set; 0 = none now (see exhausted). */
static int take_job(pool *p, size_t *i, void **job)
{
	if (p->exhausted || p->taken >= p->emitted + p->window)
		return 0;
	*job = NULL;
	/* jobs are produced under the lock: reading stdin or a list in order */
	if (!p->next(p->ctx, p->taken, job)) {
		p->exhausted = 1;
		if (p->workers_waiting)
			pthread_cond_broadcast(&p->space);
		if (p->main_waiting)
			pthread_cond_signal(&p->done);
		return 0;
	}
	*i = p->taken++;
	return 1;
}

/* Do job i outside the lock and file its result. */
static void do_job(pool *p, size_t i, void *job)
{
	pthread_mutex_unlock(&p->mu);
	void *res = NULL;
	p->work(p->ctx, job, &res);
	pthread_mutex_lock(&p->mu);
	p->results[i % p->window] = res;
	p->ready[i % p->window] = 1;
	if (p->main_waiting && i == p->emitted)
		pthread_cond_signal(&p->done);
}

static void *worker(void *arg)
{
	pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		size_t i;
		void *job;
		if (take_job(p, &i, &job)) {
			do_job(p, i, job);
			continue;
		}
		if (p->exhausted)
			break;
		p->workers_waiting++;
		pthread_cond_wait(&p->space, &p->mu);
		p->workers_waiting--;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void pool_run(unsigned threads, void *ctx, pool_next_fn next, pool_work_fn work, pool_emit_fn emit,
              pool_tick_fn tick)
{
	if (threads <= 1) {
		void *job, *res;
		for (size_t i = 0; next(ctx, i, &job); i++) {
			res = NULL;
			work(ctx, job, &res);
			emit(ctx, i, res);
			if (tick)
				tick(ctx);
		}
		return;
	}
	pool p = {.ctx = ctx, .next = next, .work = work, .window = (size_t)threads * WINDOW_PER_THREAD};
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.done, NULL);
	pthread_cond_init(&p.space, NULL);
	p.results = calloc(p.window, sizeof *p.results);
	p.ready = calloc(p.window, 1);
	pthread_t *tid = calloc(threads, sizeof *tid);
	if (!p.results || !p.ready || !tid)
		abort();
	unsigned started = 0;
	for (unsigned t = 0; t + 1 < threads; t++)
		if (pthread_create(&tid[t], NULL, worker, &p) == 0)
			started++;
		else
			break;
	if (!started) { /* no threads to be had: do it here */
		free(tid);
		free(p.results);
		free(p.ready);
		pool_run(1, ctx, next, work, emit, tick);
		return;
	}
	pthread_mutex_lock(&p.mu);
	for (;;) {
		size_t slot = p.emitted % p.window;
		if (p.ready[slot]) {
			void *res = p.results[slot];
			p.ready[slot] = 0;
			size_t i = p.emitted++;
			if (p.workers_waiting)
				pthread_cond_broadcast(&p.space);
			pthread_mutex_unlock(&p.mu);
			emit(ctx, i, res);
			if (tick)
				tick(ctx);
			pthread_mutex_lock(&p.mu);
			continue;
		}
		if (p.exhausted && p.emitted == p.taken)
			break;
		size_t i;
		void *job;
		if (take_job(&p, &i, &job)) {
			do_job(&p, i, job);
			if (tick) {
				pthread_mutex_unlock(&p.mu);
				tick(ctx);
				pthread_mutex_lock(&p.mu);
			}
			continue;
		}
		/* nothing to do until a worker files the next result */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		p.main_waiting = 1;
		pthread_cond_timedwait(&p.done, &p.mu, &ts);
		p.main_waiting = 0;
		if (tick) {
			pthread_mutex_unlock(&p.mu);
			tick(ctx);
			pthread_mutex_lock(&p.mu);
		}
	}
	pthread_mutex_unlock(&p.mu);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	free(tid);
	free(p.results);
	free(p.ready);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.done);
	pthread_cond_destroy(&p.space);
}
