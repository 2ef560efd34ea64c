/* lsp.h — `jinghua lsp`, a Language Server Protocol 3.17 server over stdio.
 * The library checks; the server only speaks the protocol:
 *
 *   rpc.c       Content-Length framing, JSON in and out (jansson)
 *   position.c  LSP positions (UTF-8/16/32 code units) <-> byte offsets
 *   docs.c      the open documents, full and incremental changes
 *   worker.c    the thread that checks, debounced, newest version wins
 *   publish.c   findings -> diagnostics
 *   actions.c   code actions, fix-all, formatting
 *   hover.c     a rule's explanation on a finding
 *   server.c    message loop, lifecycle, dispatch
 *   adapter.h   what the server needs from the library (one file behind it)
 *
 * Threads: the main thread reads messages and owns the protocol state; the
 * worker thread runs every library call.  The document store is shared
 * under its lock; stdout is written under rpc's lock.
 */
#ifndef JH_LSP_H
#define JH_LSP_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "adapter.h"
#include "uri.h"

/* JSON-RPC and LSP error codes */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	LSP_SERVER_NOT_INITIALIZED = -32002,
	LSP_REQUEST_CANCELLED = -32800,
	LSP_CONTENT_MODIFIED = -32801,
	LSP_FIX_FAILED = 1 /* ours, never sent: answered with no edits and a message */
};

/* ---- rpc.c ---- */
/* Read one message body (Content-Length framing) from f.  Returns 1 with a
 * malloc'd, NUL-terminated body, 0 at end of input, -1 on a broken header
 * (logged; the reader has skipped to the next header). */
int rpc_read(FILE *f, char **body, size_t *len);
/* Where messages go (the protocol's own copy of stdout). */
void rpc_set_output(FILE *f);
/* Write a message (the object is not consumed), framed, whole, under a lock. */
void rpc_send(json_t *msg);
void rpc_respond(json_t *id, json_t *result); /* result is consumed */
void rpc_error(json_t *id, int code, const char *message);
void rpc_notify(const char *method, json_t *params); /* params consumed */
/* Log to stderr and, once the client is there, as window/logMessage
 * (type: 1 error, 2 warning, 3 info, 4 log). */
void lsp_log(int type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lsp_log_enable_client(int on);
/* Where lsp_log writes besides the client (NULL: stderr). */
void lsp_log_set_stream(FILE *f);
/* jansson's json_string() must not be called here: the CLI's report.c
 * defines a json_string() of its own, which wins inside this binary. */
static inline json_t *jstr(const char *s)
{
	return json_stringn(s, strlen(s));
}
/* A JSON string of n bytes of text, invalid UTF-8 shown as U+FFFD. */
json_t *json_text(const char *s, size_t n);

/* ---- position.c ---- */
typedef enum { ENC_UTF16 = 0, ENC_UTF8, ENC_UTF32 } pos_encoding;
const char *pos_encoding_name(pos_encoding e);

/* Line starts of a text (LSP lines end at \n, \r\n or \r). */
typedef struct {
	size_t *start;
	size_t n;
} line_index;

void line_index_build(line_index *li, const char *text, size_t len);
void line_index_free(line_index *li);
/* Byte offset of an LSP position; a character past the end of its line
 * means the line's end, a line past the last the end of the text. */
size_t pos_to_offset(const line_index *li, const char *text, size_t len, pos_encoding e,
                     size_t line, size_t character);
/* LSP position of a byte offset (inside a character: that character's start). */
void offset_to_pos(const line_index *li, const char *text, size_t len, pos_encoding e,
                   size_t off, size_t *line, size_t *character);
/* {"line": , "character": } and {"start": , "end": } */
json_t *pos_json(const line_index *li, const char *text, size_t len, pos_encoding e, size_t off);
json_t *range_json(const line_index *li, const char *text, size_t len, pos_encoding e,
                   size_t a, size_t b);
/* Parse a Position / Range object into byte offsets; -1 if malformed. */
int json_to_offset(const line_index *li, const char *text, size_t len, pos_encoding e,
                   json_t *pos, size_t *off);
int json_to_range(const line_index *li, const char *text, size_t len, pos_encoding e,
                  json_t *range, size_t *a, size_t *b);

/* ---- docs.c: open documents ---- */
typedef struct lsp_doc {
	char *uri;
	char *path;          /* file path from a file: URI, or NULL */
	char *language;      /* languageId */
	char *text;
	size_t len;
	long version;
	line_index lines;
	/* the last check's result, for code actions and hover */
	long checked_version;  /* -1: none */
	adapter_result result;
	struct lsp_doc *next;
} lsp_doc;

typedef struct {
	lsp_doc *head;
	pthread_mutex_t lock;
} doc_store;

void docs_init(doc_store *s);
void docs_free(doc_store *s);
/* With s->lock held: */
lsp_doc *docs_find(doc_store *s, const char *uri);
/* NULL when memory ran out (the document is then not open). */
lsp_doc *docs_open(doc_store *s, const char *uri, const char *language, long version,
                   const char *text, size_t len);
void docs_close(doc_store *s, const char *uri);
/* A copy of a document to check or fix while the store is unlocked. */
typedef struct {
	char *text;
	size_t len;
	long version;
	char *path, *language;
} doc_copy;
/* Copy uri's document (locks the store itself); -1 if it is not open. */
int docs_copy(doc_store *s, const char *uri, doc_copy *out);
/* With s->lock held: the document if it is still as copied, else NULL. */
lsp_doc *docs_unchanged(doc_store *s, const char *uri, const doc_copy *c);
void doc_copy_free(doc_copy *c);
/* Apply one TextDocumentContentChangeEvent; -1 if malformed. */
int docs_change(lsp_doc *d, json_t *change, pos_encoding e);

/* ---- worker.c: checking off the message loop ---- */
typedef struct server server;

/* The work the thread does besides checks: a request it answers (code
 * action, formatting, hover) or a configuration reload. */
typedef enum { JOB_REQUEST, JOB_RELOAD } job_kind;

int worker_start(server *sv);
void worker_stop(server *sv);
/* Check uri after delay_ms (a later call for the same document replaces
 * the earlier, and cancels a check of it that is running). */
void worker_schedule(server *sv, const char *uri, unsigned delay_ms);
/* Forget a document's pending check and cancel a running one. */
void worker_forget(server *sv, const char *uri);
/* Hand a request to the thread (msg is taken over). */
void worker_request(server *sv, json_t *msg);
/* Read the configuration again; settings (taken over, may be NULL) are the
 * client's new jinghua settings. */
void worker_reload(server *sv, json_t *settings);
/* Worker thread: check uri now if its findings are older than its text. */
void worker_ensure_checked(server *sv, const char *uri);
/* Mark request id cancelled ($/cancelRequest). */
void worker_cancel_request(server *sv, json_t *id);
/* Wait until the thread has nothing queued, due or running (checks that
 * are not yet due are waited for too).  For the fuzzer, between inputs. */
void worker_wait_idle(server *sv);

/* ---- the server state (server.c) ---- */
struct server {
	pos_encoding enc;
	int initialized, shutdown;
	adapter_options aopts;   /* from initializationOptions and settings (worker's) */
	adapter *engine;         /* used by the worker thread only */
	doc_store docs;
	char *root;              /* workspace folder path, or NULL */
	unsigned debounce_ms;
	int resolve_edit;        /* the client resolves a code action's edit later */
	int watch_config;        /* the client watches .jinghua.ini files for us, else
	                          * each check asks jh_config_stale (adapter_refresh) */
	struct worker *w;
};

/* ---- publish.c ---- */
/* d's findings as Diagnostics (d->lock held), or finding i's alone. */
json_t *diagnostics_json(const lsp_doc *d, pos_encoding e);
json_t *diagnostic_json(const lsp_doc *d, pos_encoding e, size_t i);
/* One error diagnostic at the top: the document could not be checked. */
json_t *failure_diagnostic(const char *why);
void publish_diagnostics(const char *uri, long version, json_t *diagnostics);
/* The finding index a Diagnostic's data names, or -1. */
long diagnostic_index(json_t *diag);

/* ---- actions.c (worker thread) ---- */
/* Code actions for params (d->lock held); fix_all: the fix-all edits to
 * give with the fix-all action, or NULL to leave them to codeAction/resolve. */
json_t *code_actions(server *sv, lsp_doc *d, json_t *params, json_t *fix_all);
/* The safe fixes of uri's text to a fixed point as TextEdits (the store
 * unlocked while fixing).  Returns 0, or an error code for the reply
 * (ContentModified when the text changed meanwhile, LSP_FIX_FAILED when
 * the configuration or the fix failed, with the reason in *why, malloc'd,
 * if why is not NULL); *for_version (may be NULL) is the version they are
 * for. */
int fix_all_edits(server *sv, const char *uri, json_t **edits, long *for_version, char **why);
/* ---- hover.c ---- */
json_t *hover(server *sv, lsp_doc *d, json_t *params);

/* The worker's handlers for requests (worker.c calls; server.c decides). */
void server_handle_request_in_worker(server *sv, json_t *msg);
/* Options from initializationOptions or a settings object ({"jinghua": {...}}
 * or the inner object): profile, variant, select, ignore. */
void options_from_json(adapter_options *o, json_t *j);

int lsp_main(int argc, char **argv, const char *rules_dir, const char *cache_dir);
/* The parts of lsp_main, also for fuzz/fuzz_lsp.c (not the public API):
 * a server's state, one message body parsed and handled (-1 to go on, else
 * the exit code), the loop over a stream's messages until exit or its end
 * (the exit code), and the state freed (the worker stopped). */
void server_init(server *sv, const char *rules_dir, const char *cache_dir);
int server_message(server *sv, const char *body, size_t len);
int server_loop(server *sv, FILE *in);
void server_free(server *sv);

#endif
