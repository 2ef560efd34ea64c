/* worker.c — the thread every library call runs on, so that the message
 * loop keeps reading while a 2 MB chapter is checked.  Checks are
 * debounced per document (a change pushes its check back); a check whose
 * document changes while it runs is cancelled, and a result for an older
 * version than the document's is dropped, never published.  Requests that
 * need findings or fixes (code actions, formatting, hover) and
 * configuration reloads queue here too, in the order they came. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsp.h"

typedef struct pending {
	char *uri;
	uint64_t due; /* CLOCK_MONOTONIC, ns */
	struct pending *next;
} pending;

typedef struct job {
	job_kind kind;
	json_t *msg;
	struct job *next;
} job;

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t idle;   /* broadcast when there is nothing to do */
	int busy;              /* a job or check taken and not finished */
	pending *checks;
	job *jobs, **tail;
	int stop;
	char *running;  /* uri of the check that runs now, or NULL */
	int cancel;     /* set (atomically) to stop that check */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *xdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		abort();
	return p;
}

/* With w->lock held: stop a running check of uri. */
static void cancel_running(struct worker *w, const char *uri)
{
	if (w->running && !strcmp(w->running, uri))
		__atomic_store_n(&w->cancel, 1, __ATOMIC_RELEASE);
}

static void drop_pending(struct worker *w, const char *uri)
{
	for (pending **p = &w->checks; *p; p = &(*p)->next)
		if (!strcmp((*p)->uri, uri)) {
			pending *x = *p;
			*p = x->next;
			free(x->uri);
			free(x);
			return;
		}
}

void worker_schedule(server *sv, const char *uri, unsigned delay_ms)
{
	struct worker *w = sv->w;
	pthread_mutex_lock(&w->lock);
	drop_pending(w, uri);
	cancel_running(w, uri);
	pending *p = malloc(sizeof *p);
	if (!p)
		abort();
	p->uri = xdup(uri);
	p->due = now_ns() + (uint64_t)delay_ms * 1000000u;
	p->next = w->checks;
	w->checks = p;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void worker_forget(server *sv, const char *uri)
{
	struct worker *w = sv->w;
	pthread_mutex_lock(&w->lock);
	drop_pending(w, uri);
	cancel_running(w, uri);
	pthread_mutex_unlock(&w->lock);
}

static void push_job(struct worker *w, job_kind kind, json_t *msg)
{
	job *j = malloc(sizeof *j);
	if (!j)
		abort();
	j->kind = kind;
	j->msg = msg;
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	*w->tail = j;
	w->tail = &j->next;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void worker_request(server *sv, json_t *msg)
{
	push_job(sv->w, JOB_REQUEST, msg);
}

void worker_reload(server *sv, json_t *settings)
{
	push_job(sv->w, JOB_RELOAD, settings);
}

void worker_cancel_request(server *sv, json_t *id)
{
	struct worker *w = sv->w;
	json_t *found = NULL;
	pthread_mutex_lock(&w->lock);
	for (job **p = &w->jobs; *p; p = &(*p)->next) {
		job *j = *p;
		if (j->kind == JOB_REQUEST && json_equal(json_object_get(j->msg, "id"), id)) {
			*p = j->next;
			if (w->tail == &j->next)
				w->tail = p;
			found = j->msg;
			free(j);
			break;
		}
	}
	pthread_mutex_unlock(&w->lock);
	if (found) { /* not started yet: answered as cancelled */
		rpc_error(json_object_get(found, "id"), LSP_REQUEST_CANCELLED, "request cancelled");
		json_decref(found);
	}
}

void worker_wait_idle(server *sv)
{
	struct worker *w = sv->w;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	while (!w->stop && (w->jobs || w->checks || w->busy))
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static int is_cancelled(void *payload)
{
	struct worker *w = payload;
	return __atomic_load_n(&w->cancel, __ATOMIC_ACQUIRE);
}

static void recheck(server *sv, int refreshed);

/* Check the document's current version and publish its diagnostics,
 * unless it changed (or closed) meanwhile. */
static void run_check(server *sv, const char *uri)
{
	struct worker *w = sv->w;
	doc_copy c;
	if (docs_copy(&sv->docs, uri, &c))
		return; /* closed meanwhile */
	/* a client that watches files says when to look (reload); for one
	 * that does not, each check asks the library whether the files its
	 * folder's configuration was read from changed */
	if (!sv->watch_config && sv->engine && adapter_refresh(sv->engine, c.path)) {
		lsp_log(3, "jinghua lsp: %s: configuration files changed: read again", c.path);
		doc_copy_free(&c);
		recheck(sv, 1);
		return;
	}

	pthread_mutex_lock(&w->lock);
	w->running = xdup(uri);
	__atomic_store_n(&w->cancel, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);

	adapter_result res = {0};
	char *err = NULL;
	int rc = sv->engine ? adapter_check(sv->engine, c.path, c.language, c.text, c.len,
	                                    is_cancelled, w, &res, &err)
	                    : -1;

	pthread_mutex_lock(&w->lock);
	free(w->running);
	w->running = NULL;
	pthread_mutex_unlock(&w->lock);

	const char *why = err ? err : "the check failed";
	if (rc < 0)
		lsp_log(1, "jinghua lsp: %s: %s", uri, why);
	json_t *diags = NULL;
	pthread_mutex_lock(&sv->docs.lock);
	lsp_doc *d = rc != 1 ? docs_unchanged(&sv->docs, uri, &c) : NULL;
	if (d) {
		adapter_result_free(&d->result);
		d->result = res;
		d->checked_version = c.version;
		/* a broken .jinghua.ini says so where the author looks, not only in the log */
		diags = rc == 0 ? diagnostics_json(d, sv->enc) : failure_diagnostic(why);
	} else {
		adapter_result_free(&res); /* for an older text: dropped */
	}
	pthread_mutex_unlock(&sv->docs.lock);
	free(err);
	if (diags)
		publish_diagnostics(uri, c.version, diags);
	doc_copy_free(&c);
}

/* Before a request reads a document's findings: check it if its last
 * check is older than its text. */
void worker_ensure_checked(server *sv, const char *uri)
{
	pthread_mutex_lock(&sv->docs.lock);
	lsp_doc *d = docs_find(&sv->docs, uri);
	int stale = d && d->checked_version != d->version;
	pthread_mutex_unlock(&sv->docs.lock);
	if (stale)
		run_check(sv, uri);
}

/* Check the open documents again: all, or (refreshed) those whose
 * configuration adapter_refresh replaced. */
static void recheck(server *sv, int refreshed)
{
	pthread_mutex_lock(&sv->docs.lock);
	size_t n = 0;
	for (lsp_doc *d = sv->docs.head; d; d = d->next)
		n++;
	char **uris = malloc((n ? n : 1) * sizeof *uris);
	if (!uris)
		abort();
	n = 0;
	for (lsp_doc *d = sv->docs.head; d; d = d->next) {
		if (refreshed && !adapter_refreshed(sv->engine, d->path))
			continue;
		d->checked_version = -1;
		uris[n++] = xdup(d->uri);
	}
	pthread_mutex_unlock(&sv->docs.lock);
	for (size_t i = 0; i < n; i++) {
		worker_schedule(sv, uris[i], 0);
		free(uris[i]);
	}
	free(uris);
}

/* New settings: every configuration anew.  None (a watched file
 * changed): the stale ones alone. */
static void reload(server *sv, json_t *settings)
{
	if (settings)
		options_from_json(&sv->aopts, settings);
	else if (sv->engine) {
		if (adapter_refresh(sv->engine, NULL))
			recheck(sv, 1);
		return;
	}
	adapter *fresh = NULL;
	char *err = NULL;
	if (adapter_new(&sv->aopts, &fresh, &err)) {
		lsp_log(1, "jinghua lsp: configuration: %s; keeping the one before", err ? err : "error");
		free(err);
		if (sv->engine)
			return;
	}
	adapter_free(sv->engine);
	sv->engine = fresh;
	recheck(sv, 0); /* every open document, under the new settings */
}

/* The next thing to do, waiting for it: a job, or the uri of a check whose
 * time has come (malloc'd).  NULL for both when stopping. */
static void next_work(struct worker *w, job **j, char **uri)
{
	*j = NULL;
	*uri = NULL;
	pthread_mutex_lock(&w->lock);
	w->busy = 0; /* the last piece of work is done */
	while (!w->stop) {
		if (w->jobs) {
			*j = w->jobs;
			w->jobs = (*j)->next;
			if (!w->jobs)
				w->tail = &w->jobs;
			w->busy = 1;
			break;
		}
		pending **first = NULL;
		for (pending **p = &w->checks; *p; p = &(*p)->next)
			if (!first || (*p)->due < (*first)->due)
				first = p;
		if (!first) {
			pthread_cond_broadcast(&w->idle);
			pthread_cond_wait(&w->wake, &w->lock);
			continue;
		}
		uint64_t t = now_ns();
		if ((*first)->due <= t) {
			pending *x = *first;
			*first = x->next;
			*uri = x->uri;
			free(x);
			w->busy = 1;
			break;
		}
		struct timespec ts = {(time_t)((*first)->due / 1000000000u),
		                      (long)((*first)->due % 1000000000u)};
		pthread_cond_timedwait(&w->wake, &w->lock, &ts);
	}
	pthread_mutex_unlock(&w->lock);
}

static void *worker_main(void *arg)
{
	server *sv = arg;
	reload(sv, NULL);
	for (;;) {
		job *j;
		char *uri;
		next_work(sv->w, &j, &uri);
		if (uri) {
			run_check(sv, uri);
			free(uri);
		} else if (j) {
			if (j->kind == JOB_RELOAD)
				reload(sv, j->msg);
			else
				server_handle_request_in_worker(sv, j->msg);
			json_decref(j->msg);
			free(j);
		} else {
			break;
		}
	}
	return NULL;
}

int worker_start(server *sv)
{
	struct worker *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&w->idle, NULL);
	w->tail = &w->jobs;
	w->busy = 1; /* loading the configuration first */
	sv->w = w;
	if (pthread_create(&w->thread, NULL, worker_main, sv)) {
		sv->w = NULL;
		free(w);
		return -1;
	}
	return 0;
}

void worker_stop(server *sv)
{
	struct worker *w = sv->w;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	__atomic_store_n(&w->cancel, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	while (w->jobs) {
		job *j = w->jobs;
		w->jobs = j->next;
		json_decref(j->msg);
		free(j);
	}
	while (w->checks) {
		pending *p = w->checks;
		w->checks = p->next;
		free(p->uri);
		free(p);
	}
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->idle);
	pthread_mutex_destroy(&w->lock);
	free(w);
	sv->w = NULL;
	adapter_free(sv->engine);
	sv->engine = NULL;
}
