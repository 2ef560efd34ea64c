/* fuzz_lsp.c — arbitrary bytes as what a client sends `jinghua lsp`
 * (src/lsp/): the Content-Length framing (rpc_read), JSON-RPC parsing and
 * dispatch (server_message), document changes in three position
 * encodings, and the worker's answers (code actions, formatting, hover,
 * reloads) on the real rules/.  One server lives for the whole run,
 * initialized once (the rules load once); each input is a stream of
 * messages to it, after which the fuzzer waits for the worker to finish,
 * closes every document, lifts a shutdown and, if the input changed the
 * configuration (didChangeConfiguration settings, a reload), puts it back
 * as it was after initialize, so each input starts from the same state and
 * a crash reproduces from its artifact alone.  The first byte picks the
 * position encoding.
 * What must hold: no crash, no leak; everything the server wrote is whole
 * frames of JSON-RPC 2.0 objects. */
#include <stdint.h>
#include "common.h"
#include "lsp.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static server sv;
static FILE *devnull;
static adapter *start_engine; /* the worker's engine as initialize left it */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	lsp_log_set_stream(devnull);
	rpc_set_output(devnull);
	server_init(&sv, fuzz_rules_dir(), NULL);
	static const char init[] =
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		"\"capabilities\":{\"textDocument\":{\"codeAction\":{\"resolveSupport\":"
		"{\"properties\":[\"edit\"]}}}},\"initializationOptions\":{\"debounce\":0}}}";
	if (server_message(&sv, init, strlen(init)) >= 0 || !sv.initialized)
		abort();
	worker_wait_idle(&sv);
	start_engine = sv.engine;
	return 0;
}

/* The configuration back to the start's, with the worker idle: no client
 * options (initialize gave none) and an engine built from none.  A reload
 * merges the settings into the options, then replaces the engine only if
 * one builds from them; so with no option left set, the engine is the
 * start's or one built from no options (even one that got the start's
 * address again), and only a set option or another engine means the input
 * changed the configuration.  Rebuilding costs a rules load, so it is done
 * only then. */
static void reset_configuration(void)
{
	adapter_options *o = &sv.aopts;
	if (!o->profile && !o->variant && !o->select && !o->ignore && sv.engine == start_engine)
		return;
	free(o->profile);
	free(o->variant);
	free(o->select);
	free(o->ignore);
	o->profile = o->variant = o->select = o->ignore = NULL;
	worker_reload(&sv, NULL);
	worker_wait_idle(&sv);
	if (!sv.engine)
		abort(); /* the default rules did not load */
	start_engine = sv.engine;
}

/* Every frame the server wrote: a Content-Length header, then that many
 * bytes of a JSON object with "jsonrpc": "2.0". */
static void check_frames(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned long long len;
		int used = 0;
		FUZZ_ASSERT(sscanf(s + i, "Content-Length: %llu\r\n\r\n%n", &len, &used) == 1 && used > 0,
		            "output at byte %zu is not a frame header", i);
		i += (size_t)used;
		FUZZ_ASSERT(len <= n - i, "a frame of %llu bytes with %zu left", len, n - i);
		json_error_t err;
		json_t *v = json_loadb(s + i, (size_t)len, JSON_ALLOW_NUL, &err);
		FUZZ_ASSERT(json_is_object(v), "a frame that is not a JSON object: %s", err.text);
		const char *ver = json_string_value(json_object_get(v, "jsonrpc"));
		FUZZ_ASSERT(ver && !strcmp(ver, "2.0"), "a frame without jsonrpc 2.0");
		json_decref(v);
		i += (size_t)len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static const pos_encoding encs[] = {ENC_UTF16, ENC_UTF8, ENC_UTF32};
	sv.enc = encs[data[0] % 3];
	char *out_bytes = NULL;
	size_t out_len = 0;
	FILE *out = open_memstream(&out_bytes, &out_len);
	FILE *in = fmemopen((void *)(data + 1), size - 1, "r");
	if (!in || !out)
		abort();
	rpc_set_output(out);
	server_loop(&sv, in);
	fclose(in);
	/* back to the state every input starts from */
	worker_wait_idle(&sv);
	sv.shutdown = 0;
	sv.debounce_ms = 0;
	pthread_mutex_lock(&sv.docs.lock);
	while (sv.docs.head)
		docs_close(&sv.docs, sv.docs.head->uri);
	pthread_mutex_unlock(&sv.docs.lock);
	rpc_set_output(devnull);
	reset_configuration();
	fclose(out);
	check_frames(out_bytes, out_len);
	free(out_bytes);
	return 0;
}
