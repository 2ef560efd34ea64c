/* fuzz_jsonl.c — arbitrary bytes as the input stream of `--jsonl-filter`
 * (src/cli/jsonl.c, linked with the CLI's reporters): line splitting,
 * blank lines, JSON parsing of each record, the id echoed, the text
 * checked or fixed, the findings written.  The first byte picks check or
 * fix (bit 0) and --unsafe (bit 1), the second the longest line taken
 * (64 bytes and up, so that lines over it are frequent); the rest is the
 * stream.
 * What must hold: every line that is not blank gets exactly one output
 * line, in order; each output line is a JSON object with "findings" or
 * with "error" and that line's number; a numeric id comes back with the
 * value it had. */
#include <stdint.h>
#include "common.h"
#include <jansson.h>
#include "cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jh_config *cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.no_config = 1;
	co.rules_dir = fuzz_rules_dir();
	co.diag_fn = fuzz_quiet_diag;
	const jh_settings *fs;
	/* the rules compiled now, not in the first input (seconds under ASan) */
	if (jh_config_open(&co, &cfg) || jh_config_settings(cfg, "./-", &fs) ||
	    jh_config_settings(cfg, "./-.md", &fs))
		abort();
	return 0;
}

typedef struct {
	size_t num, start, end;
} in_line;

/* The lines the filter must answer, as it splits them. */
static size_t record_lines(const char *s, size_t n, in_line *lines, size_t cap)
{
	size_t count = 0, line = 0, i = 0;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - s) + 1 : n;
		line++;
		int blank = 1;
		for (size_t k = i; k < end; k++)
			if (!strchr(" \t\r\n", s[k]) || !s[k])
				blank = 0;
		if (!blank && count < cap)
			lines[count] = (in_line){line, i, end};
		count += !blank;
		i = end;
	}
	return count;
}

static json_t *load_real(const char *s, size_t n)
{
	return json_loadb(s, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
}

/* A record with a numeric id: the answer's id (read again, numbers as
 * doubles) has the same value. */
static void check_id(const char *in, size_t in_n, const char *out, size_t out_n)
{
	json_t *rec = load_real(in, in_n), *ans = load_real(out, out_n);
	json_t *a = json_object_get(rec, "id"), *b = json_object_get(ans, "id");
	if (json_is_number(a))
		FUZZ_ASSERT(json_is_number(b) && json_number_value(a) == json_number_value(b),
		            "the id %.17g came back as %.17g", json_number_value(a), json_number_value(b));
	json_decref(rec);
	json_decref(ans);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	jsonl_options o = {data[0] & 1, (data[0] >> 1) & 1, 1, 64 + (size_t)data[1] * 64};
	const char *in_bytes = (const char *)data + 2;
	size_t in_len = size - 2;
	FILE *in = fmemopen((void *)in_bytes, in_len, "r");
	char *out_bytes = NULL;
	size_t out_len = 0;
	FILE *out = open_memstream(&out_bytes, &out_len);
	if (!in || !out)
		abort();
	int rc = jsonl_stream(cfg, &o, in, out);
	fclose(in);
	fclose(out);
	FUZZ_ASSERT(rc == 0, "the filter returned %d", rc);

	static in_line lines[4096];
	size_t want = record_lines(in_bytes, in_len, lines, 4096);
	size_t got = 0, i = 0;
	while (i < out_len) {
		char *nl = memchr(out_bytes + i, '\n', out_len - i);
		FUZZ_ASSERT(nl, "the last output line has no line break");
		size_t n = (size_t)(nl - (out_bytes + i));
		json_error_t err;
		json_t *v = json_loadb(out_bytes + i, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &err);
		FUZZ_ASSERT(json_is_object(v), "output line %zu is not a JSON object: %s: %.*s", got + 1,
		            err.text, (int)(n < 300 ? n : 300), out_bytes + i);
		json_t *line = json_object_get(v, "line");
		if (json_object_get(v, "error")) {
			/* numbers are read as doubles here (an id may pass 64 bits) */
			FUZZ_ASSERT(json_is_number(line), "an error without its line number");
			if (got < 4096)
				FUZZ_ASSERT(json_number_value(line) == (double)lines[got].num,
				            "answer %zu names line %.0f, not %zu", got + 1,
				            json_number_value(line), lines[got].num);
		} else {
			FUZZ_ASSERT(json_is_array(json_object_get(v, "findings")),
			            "an answer without findings or an error");
			if (got < 4096)
				check_id(in_bytes + lines[got].start, lines[got].end - lines[got].start,
				         out_bytes + i, n);
		}
		json_decref(v);
		got++;
		i += n + 1;
	}
	FUZZ_ASSERT(got == want, "%zu lines to answer, %zu answers", want, got);
	free(out_bytes);
	return 0;
}
