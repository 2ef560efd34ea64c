/* rpc.c — JSON-RPC 2.0 messages over stdio with the LSP's header framing
 * ("Content-Length: N\r\n\r\n" then N bytes of JSON).  jansson parses and
 * prints; the framing is a few lines no library we use offers.  stdout
 * carries protocol only: everything else goes to stderr (and to the
 * client's log). */
#define _GNU_SOURCE /* strcasestr */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsp.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_to_client;
static FILE *proto_out;
static FILE *log_out;

void rpc_set_output(FILE *f)
{
	proto_out = f;
}

/* The largest message we take: a document of 64 MB, escaped. */
#define RPC_MAX_BODY ((size_t)256 << 20)

/* Read one header line (up to \n, without \r\n) into buf; -1 at EOF. */
static int read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c;
	while ((c = getc(f)) != EOF && c != '\n')
		if (n + 1 < size)
			buf[n++] = (char)c;
	if (c == EOF && n == 0)
		return -1;
	while (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return 0;
}

int rpc_read(FILE *f, char **body, size_t *len)
{
	char line[512];
	long long length = -1;
	int any = 0, bad = 0;
	for (;;) {
		if (read_line(f, line, sizeof line))
			return any ? -1 : 0;
		if (!*line) {
			if (!any)
				continue; /* blank lines between messages */
			break;
		}
		any = 1;
		/* after a message whose length was wrong, its leftover bytes run
		 * into the next header: pick the header up where it starts */
		char *h = strcasestr(line, "Content-Length:");
		if (h && h != line)
			memmove(line, h, strlen(h) + 1), bad = 1;
		char *colon = strchr(line, ':');
		if (!colon) {
			bad = 1;
			continue;
		}
		*colon = '\0';
		if (!strcasecmp(line, "Content-Length")) {
			char *end;
			length = strtoll(colon + 1, &end, 10);
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end || length < 0)
				length = -1, bad = 1;
		}
	}
	if (length < 0 || (size_t)length > RPC_MAX_BODY) {
		lsp_log(1, "jinghua lsp: a message without a valid Content-Length%s; skipped",
		        bad ? " (malformed header)" : "");
		return -1;
	}
	char *b = malloc((size_t)length + 1);
	if (!b)
		return -1;
	size_t got = fread(b, 1, (size_t)length, f);
	if (got < (size_t)length) {
		free(b);
		return 0; /* input ended inside a message */
	}
	b[length] = '\0';
	*body = b;
	*len = (size_t)length;
	return 1;
}

void rpc_send(json_t *msg)
{
	json_object_set_new(msg, "jsonrpc", jstr("2.0"));
	char *s = json_dumps(msg, JSON_COMPACT);
	if (!s) {
		lsp_log(1, "jinghua lsp: could not encode a message");
		return;
	}
	size_t n = strlen(s);
	pthread_mutex_lock(&out_lock);
	FILE *o = proto_out ? proto_out : stdout;
	fprintf(o, "Content-Length: %zu\r\n\r\n", n);
	fwrite(s, 1, n, o);
	fflush(o);
	pthread_mutex_unlock(&out_lock);
	free(s);
}

void rpc_respond(json_t *id, json_t *result)
{
	json_t *m = json_object();
	json_object_set(m, "id", id ? id : json_null());
	json_object_set_new(m, "result", result ? result : json_null());
	rpc_send(m);
	json_decref(m);
}

void rpc_error(json_t *id, int code, const char *message)
{
	json_t *m = json_object();
	json_object_set(m, "id", id ? id : json_null());
	json_object_set_new(m, "error", json_pack("{s:i,s:s}", "code", code, "message", message));
	rpc_send(m);
	json_decref(m);
}

void rpc_notify(const char *method, json_t *params)
{
	json_t *m = json_object();
	json_object_set_new(m, "method", jstr(method));
	json_object_set_new(m, "params", params ? params : json_object());
	rpc_send(m);
	json_decref(m);
}

void lsp_log_set_stream(FILE *f)
{
	log_out = f;
}

void lsp_log_enable_client(int on)
{
	__atomic_store_n(&log_to_client, on, __ATOMIC_RELEASE);
}

void lsp_log(int type, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(log_out ? log_out : stderr, "%s\n", buf);
	if (__atomic_load_n(&log_to_client, __ATOMIC_ACQUIRE)) {
		/* a path in it may hold bytes that are not UTF-8, and vsnprintf
		 * may cut it inside a character: both shown as U+FFFD, the rest
		 * kept; without memory for it, no message */
		json_t *p = json_pack("{s:i,s:o}", "type", type, "message", json_text(buf, strlen(buf)));
		if (p)
			rpc_notify("window/logMessage", p);
	}
}

json_t *json_text(const char *s, size_t n)
{
	if (jh_utf8_valid_prefix(s, n) == n)
		return json_stringn(s, n);
	/* invalid bytes become U+FFFD: a JSON string holds Unicode only */
	size_t w = jh_utf8_clean(s, n, NULL, 0);
	char *buf = malloc(w + 1);
	if (!buf)
		return jstr("");
	jh_utf8_clean(s, n, buf, w + 1);
	json_t *j = json_stringn(buf, w);
	free(buf);
	return j;
}
