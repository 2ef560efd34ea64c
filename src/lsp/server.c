/* server.c — `jinghua lsp`: the message loop, the lifecycle (initialize,
 * initialized, shutdown, exit) and the dispatch of methods.  Requests that
 * need the library go to the worker thread (worker.c); document changes
 * are applied here, in order, and schedule a check. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lsp.h"

#define DEFAULT_DEBOUNCE_MS 150

static void set_opt(char **field, json_t *v)
{
	if (json_is_null(v)) {
		free(*field);
		*field = NULL;
	} else if (json_is_string(v)) {
		free(*field);
		*field = strdup(json_string_value(v));
	} else if (json_is_array(v)) { /* ["typo", "censor.mask"] */
		size_t i, n = 0;
		json_t *e;
		json_array_foreach(v, i, e) n += json_is_string(e) ? json_string_length(e) + 1 : 0;
		char *s = calloc(1, n + 1);
		if (!s)
			return;
		json_array_foreach(v, i, e) if (json_is_string(e)) {
			if (*s)
				strcat(s, ",");
			strcat(s, json_string_value(e));
		}
		free(*field);
		*field = s;
	}
}

void options_from_json(adapter_options *o, json_t *j)
{
	if (json_is_object(json_object_get(j, "jinghua")))
		j = json_object_get(j, "jinghua");
	if (!json_is_object(j))
		return;
	if (json_object_get(j, "profile"))
		set_opt(&o->profile, json_object_get(j, "profile"));
	if (json_object_get(j, "variant"))
		set_opt(&o->variant, json_object_get(j, "variant"));
	if (json_object_get(j, "select"))
		set_opt(&o->select, json_object_get(j, "select"));
	if (json_object_get(j, "ignore"))
		set_opt(&o->ignore, json_object_get(j, "ignore"));
}

/* The workspace folders (workspaceFolders, else rootUri) as paths. */
static void folders_from_json(adapter_options *o, json_t *params)
{
	json_t *wf = json_object_get(params, "workspaceFolders");
	json_t *root = json_object_get(params, "rootUri");
	size_t n = json_is_array(wf) ? json_array_size(wf) : json_is_string(root);
	o->folders = calloc(n ? n : 1, sizeof *o->folders);
	if (!o->folders)
		return; /* out of memory: no folders, one configuration for all */
	for (size_t i = 0; i < n; i++) {
		json_t *u = json_is_array(wf) ? json_object_get(json_array_get(wf, i), "uri") : root;
		char *path;
		if (json_is_string(u) && !uri_to_path(json_string_value(u), &path) && path)
			o->folders[o->n_folders++] = path;
	}
}

static void options_free(adapter_options *o)
{
	for (size_t i = 0; i < o->n_folders; i++)
		free(o->folders[i]);
	free(o->folders);
	free(o->profile);
	free(o->variant);
	free(o->select);
	free(o->ignore);
}

/* ---- initialize ---- */

static int offers(json_t *list, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) if (json_is_string(e) && !strcmp(json_string_value(e), name))
		return 1;
	return 0;
}

/* UTF-16 unless the client offers UTF-8 (no conversion) or UTF-32. */
static pos_encoding choose_encoding(json_t *list)
{
	if (offers(list, "utf-8"))
		return ENC_UTF8;
	if (offers(list, "utf-32"))
		return ENC_UTF32;
	return ENC_UTF16;
}

static json_t *initialize(server *sv, json_t *params)
{
	json_t *caps = json_object_get(params, "capabilities");
	json_t *encs = json_object_get(json_object_get(caps, "general"), "positionEncodings");
	/* clangd's offsetEncoding, which clients older than LSP 3.17 send */
	json_t *old = json_object_get(caps, "offsetEncoding");
	sv->enc = choose_encoding(json_is_array(encs) ? encs : old);
	json_t *init = json_object_get(params, "initializationOptions");
	options_from_json(&sv->aopts, init);
	folders_from_json(&sv->aopts, params);
	json_t *deb = json_object_get(init, "debounce");
	if (json_is_integer(deb) && json_integer_value(deb) >= 0 && json_integer_value(deb) < 60000)
		sv->debounce_ms = (unsigned)json_integer_value(deb);
	json_t *td = json_object_get(caps, "textDocument");
	json_t *resolve = json_object_get(json_object_get(json_object_get(td, "codeAction"),
	                                                  "resolveSupport"),
	                                  "properties");
	sv->resolve_edit = json_is_array(resolve) && offers(resolve, "edit");
	sv->watch_config = json_is_true(json_object_get(
		json_object_get(json_object_get(caps, "workspace"), "didChangeWatchedFiles"),
		"dynamicRegistration"));

	json_t *sync = json_pack("{s:b,s:i,s:{s:b}}", "openClose", 1, "change", 2, "save",
	                         "includeText", 0);
	json_t *actions = json_pack("{s:[s,s],s:b}", "codeActionKinds", "quickfix",
	                            "source.fixAll.jinghua", "resolveProvider", 1);
	json_t *result = json_pack("{s:{s:s,s:o,s:o,s:b,s:b},s:{s:s,s:s}}", "capabilities",
	                           "positionEncoding", pos_encoding_name(sv->enc),
	                           "textDocumentSync", sync, "codeActionProvider", actions,
	                           "documentFormattingProvider", 1, "hoverProvider", 1,
	                           "serverInfo", "name", "jinghua", "version", JH_VERSION);
	if (!json_is_array(encs) && json_is_array(old))
		json_object_set_new(result, "offsetEncoding", jstr(pos_encoding_name(sv->enc)));
	return result;
}

/* .jinghua.ini anywhere in the workspace: reloaded when it changes. */
static void register_watchers(void)
{
	json_t *req = json_pack(
		"{s:s,s:s,s:{s:[{s:s,s:s,s:{s:[{s:s}]}}]}}", "id", "jinghua-watch", "method",
		"client/registerCapability", "params", "registrations", "id", "jinghua-watch",
		"method", "workspace/didChangeWatchedFiles", "registerOptions", "watchers",
		"globPattern", "**/.jinghua.ini");
	rpc_send(req);
	json_decref(req);
}

/* ---- notifications ---- */

static const char *doc_uri(json_t *params)
{
	return json_string_value(json_object_get(json_object_get(params, "textDocument"), "uri"));
}

static void did_open(server *sv, json_t *params)
{
	json_t *td = json_object_get(params, "textDocument");
	const char *uri = doc_uri(params);
	json_t *text = json_object_get(td, "text");
	json_t *ver = json_object_get(td, "version");
	const char *lang = json_string_value(json_object_get(td, "languageId"));
	if (!uri || !json_is_string(text)) {
		lsp_log(1, "jinghua lsp: didOpen without uri or text");
		return;
	}
	pthread_mutex_lock(&sv->docs.lock);
	lsp_doc *d = docs_open(&sv->docs, uri, lang ? lang : "plaintext",
	                       json_is_integer(ver) ? (long)json_integer_value(ver) : 0,
	                       json_string_value(text), json_string_length(text));
	pthread_mutex_unlock(&sv->docs.lock);
	if (!d) { /* a notification has no answer: the document stays unopened */
		lsp_log(1, "jinghua lsp: %s: out of memory; not opened", uri);
		return;
	}
	worker_schedule(sv, uri, 0);
}

static void did_change(server *sv, json_t *params)
{
	const char *uri = doc_uri(params);
	json_t *ver = json_object_get(json_object_get(params, "textDocument"), "version");
	json_t *changes = json_object_get(params, "contentChanges");
	if (!uri || !json_is_array(changes)) {
		lsp_log(1, "jinghua lsp: didChange without uri or contentChanges");
		return;
	}
	pthread_mutex_lock(&sv->docs.lock);
	lsp_doc *d = docs_find(&sv->docs, uri);
	int bad = !d;
	size_t i;
	json_t *c;
	if (d) {
		json_array_foreach(changes, i, c) if (docs_change(d, c, sv->enc)) bad = 1;
		d->version = json_is_integer(ver) ? (long)json_integer_value(ver) : d->version + 1;
	}
	pthread_mutex_unlock(&sv->docs.lock);
	if (bad)
		lsp_log(1, "jinghua lsp: %s: a change that does not apply (%s)", uri,
		        d ? "malformed" : "document not open");
	if (d)
		worker_schedule(sv, uri, sv->debounce_ms);
}

static void did_close(server *sv, json_t *params)
{
	const char *uri = doc_uri(params);
	if (!uri)
		return;
	worker_forget(sv, uri);
	pthread_mutex_lock(&sv->docs.lock);
	docs_close(&sv->docs, uri);
	pthread_mutex_unlock(&sv->docs.lock);
	publish_diagnostics(uri, -1, json_array());
}

static void notification(server *sv, const char *method, json_t *params)
{
	if (!strcmp(method, "initialized")) {
		if (sv->watch_config)
			register_watchers();
	} else if (!strcmp(method, "textDocument/didOpen")) {
		did_open(sv, params);
	} else if (!strcmp(method, "textDocument/didChange")) {
		did_change(sv, params);
	} else if (!strcmp(method, "textDocument/didClose")) {
		did_close(sv, params);
	} else if (!strcmp(method, "textDocument/didSave")) {
		if (doc_uri(params))
			worker_schedule(sv, doc_uri(params), 0);
	} else if (!strcmp(method, "workspace/didChangeWatchedFiles")) {
		worker_reload(sv, NULL);
	} else if (!strcmp(method, "workspace/didChangeConfiguration")) {
		json_t *s = json_object_get(params, "settings");
		worker_reload(sv, json_is_object(s) ? json_incref(s) : NULL);
	} else if (!strcmp(method, "$/cancelRequest")) {
		worker_cancel_request(sv, json_object_get(params, "id"));
	}
	/* anything else ($/setTrace, ...) is ignored, as the protocol allows */
}

/* ---- requests the worker answers ---- */

static void fix_request(server *sv, json_t *id, const char *uri, json_t *params, int resolve)
{
	json_t *edits;
	char *why = NULL;
	int code = fix_all_edits(sv, uri, &edits, NULL, &why);
	if (code == LSP_FIX_FAILED) {
		/* a broken .jinghua.ini is the author's to mend, not a server
		 * error: no edits, and the reason where the author sees it */
		char msg[1024];
		snprintf(msg, sizeof msg, "jinghua: cannot fix %s: %s", uri, why ? why : "error");
		/* invalid UTF-8 (of a path) shown as U+FFFD, as in lsp_log */
		json_t *p = json_pack("{s:i,s:o}", "type", 1, "message", json_text(msg, strlen(msg)));
		if (p)
			rpc_notify("window/showMessage", p);
		free(why);
		rpc_respond(id, resolve ? json_deep_copy(params) : json_array());
		return;
	}
	free(why);
	if (code) {
		rpc_error(id, code, code == LSP_CONTENT_MODIFIED ? "the document changed" : "fixing failed");
		return;
	}
	if (!resolve) {
		rpc_respond(id, edits);
		return;
	}
	json_t *result = json_deep_copy(params);
	json_object_set_new(result, "edit", json_pack("{s:{s:o}}", "changes", uri, edits));
	rpc_respond(id, result);
}

void server_handle_request_in_worker(server *sv, json_t *msg)
{
	json_t *id = json_object_get(msg, "id"), *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	int resolve = !strcmp(method, "codeAction/resolve");
	const char *uri = resolve ? json_string_value(json_object_get(json_object_get(params, "data"),
	                                                               "uri"))
	                          : doc_uri(params);
	if (!uri) {
		rpc_error(id, RPC_INVALID_PARAMS, "no textDocument.uri");
		return;
	}
	if (resolve || !strcmp(method, "textDocument/formatting")) {
		fix_request(sv, id, uri, params, resolve);
		return;
	}
	int is_action = !strcmp(method, "textDocument/codeAction");
	json_t *fix_all = NULL; /* a client that cannot resolve gets the fix-all edits at once */
	long fix_version = -1;
	if (is_action && !sv->resolve_edit && fix_all_edits(sv, uri, &fix_all, &fix_version, NULL))
		fix_all = NULL;
	worker_ensure_checked(sv, uri);
	pthread_mutex_lock(&sv->docs.lock);
	lsp_doc *d = docs_find(&sv->docs, uri);
	json_t *result = NULL;
	int code = 0;
	const char *why = NULL;
	if (!d) {
		code = RPC_INVALID_PARAMS, why = "document not open";
	} else if (d->checked_version != d->version) {
		code = LSP_CONTENT_MODIFIED, why = "the document changed";
	} else if (is_action) {
		if (fix_all && fix_version != d->version) { /* for an older text */
			json_decref(fix_all);
			fix_all = NULL;
		}
		result = code_actions(sv, d, params, fix_all);
		if (!result)
			code = RPC_INVALID_PARAMS, why = "bad range";
	} else {
		result = hover(sv, d, params);
		if (!result)
			code = RPC_INVALID_PARAMS, why = "bad position";
	}
	pthread_mutex_unlock(&sv->docs.lock);
	json_decref(fix_all);
	if (code)
		rpc_error(id, code, why);
	else
		rpc_respond(id, result);
}

static int for_worker(const char *method)
{
	return !strcmp(method, "textDocument/codeAction") || !strcmp(method, "codeAction/resolve") ||
	       !strcmp(method, "textDocument/formatting") || !strcmp(method, "textDocument/hover");
}

/* ---- the loop ---- */

/* One message; returns -1 to go on, else the exit code. */
static int handle(server *sv, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	json_t *m = json_object_get(msg, "method");
	if (!json_is_object(msg) || (m && !json_is_string(m)) ||
	    (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id))) {
		rpc_error(json_is_integer(id) || json_is_string(id) ? id : NULL, RPC_INVALID_REQUEST,
		          "not a JSON-RPC request");
		return -1;
	}
	if (!m) {
		if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
			return -1; /* a reply to a request of ours (registerCapability) */
		rpc_error(id, RPC_INVALID_REQUEST, "no method");
		return -1;
	}
	const char *method = json_string_value(m);
	json_t *params = json_object_get(msg, "params");
	if (!strcmp(method, "exit"))
		return sv->shutdown ? 0 : 1;
	if (!id) { /* a notification */
		if (sv->initialized && !sv->shutdown)
			notification(sv, method, params);
		return -1;
	}
	if (!strcmp(method, "initialize")) {
		if (sv->initialized) {
			rpc_error(id, RPC_INVALID_REQUEST, "initialize was sent twice");
			return -1;
		}
		json_t *result = initialize(sv, params);
		if (worker_start(sv)) {
			rpc_error(id, RPC_INTERNAL_ERROR, "could not start the worker thread");
			return -1;
		}
		sv->initialized = 1;
		rpc_respond(id, result);
		lsp_log_enable_client(1);
		lsp_log(3, "jinghua lsp %s: positions in %s", JH_VERSION, pos_encoding_name(sv->enc));
		return -1;
	}
	if (!sv->initialized) {
		rpc_error(id, LSP_SERVER_NOT_INITIALIZED, "the server is not initialized");
		return -1;
	}
	if (sv->shutdown) {
		rpc_error(id, RPC_INVALID_REQUEST, "the server is shut down");
		return -1;
	}
	if (!strcmp(method, "shutdown")) {
		sv->shutdown = 1;
		rpc_respond(id, json_null());
	} else if (for_worker(method)) {
		if (!json_is_object(params))
			rpc_error(id, RPC_INVALID_PARAMS, "no params");
		else
			worker_request(sv, json_incref(msg));
	} else {
		rpc_error(id, RPC_METHOD_NOT_FOUND, "method not found");
	}
	return -1;
}

void server_init(server *sv, const char *rules_dir, const char *cache_dir)
{
	memset(sv, 0, sizeof *sv);
	sv->debounce_ms = DEFAULT_DEBOUNCE_MS;
	sv->aopts.rules_dir = rules_dir;
	sv->aopts.cache_dir = cache_dir;
	docs_init(&sv->docs);
}

void server_free(server *sv)
{
	lsp_log_enable_client(0);
	worker_stop(sv);
	docs_free(&sv->docs);
	options_free(&sv->aopts);
}

int server_message(server *sv, const char *body, size_t len)
{
	json_error_t jerr;
	json_t *msg = json_loadb(body, len, JSON_ALLOW_NUL, &jerr);
	if (!msg) {
		char why[200];
		snprintf(why, sizeof why, "parse error: %s", jerr.text);
		rpc_error(NULL, RPC_PARSE_ERROR, why);
		lsp_log(1, "jinghua lsp: %s", why);
		return -1;
	}
	int code = handle(sv, msg);
	json_decref(msg);
	return code;
}

int server_loop(server *sv, FILE *in)
{
	for (;;) {
		char *body = NULL;
		size_t len = 0;
		int r = rpc_read(in, &body, &len);
		if (r == 0) /* the client went away */
			return sv->shutdown ? 0 : 1;
		if (r < 0)
			continue;
		int code = server_message(sv, body, len);
		free(body);
		if (code >= 0)
			return code;
	}
}

static void usage(FILE *o)
{
	fprintf(o, "usage: jinghua lsp [--stdio]\n"
	           "A language server (LSP 3.17) on stdin and stdout; logs go to stderr.\n");
}

int lsp_main(int argc, char **argv, const char *rules_dir, const char *cache_dir)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stdio"))
			continue; /* what VS Code's clients pass; stdio is all we speak */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "jinghua lsp: unknown argument '%s'\n", argv[i]);
		usage(stderr);
		return 2;
	}
	/* stdout is the protocol's alone: anything else printing to fd 1 lands
	 * on stderr instead of corrupting the stream */
	int proto = dup(STDOUT_FILENO);
	FILE *out = proto >= 0 ? fdopen(proto, "w") : NULL;
	if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "jinghua lsp: cannot set up stdout\n");
		return 2;
	}
	rpc_set_output(out);
	signal(SIGPIPE, SIG_IGN);

	server sv;
	server_init(&sv, rules_dir, cache_dir);
	int code = server_loop(&sv, stdin);
	server_free(&sv);
	rpc_set_output(NULL);
	fclose(out);
	return code;
}
