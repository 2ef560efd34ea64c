/* fuzz_jsonl.c — arbitrary bytes as the input stream of `--jsonl-filter`
 * (src/cli/jsonl.c, linked with the CLI's reporters): line splitting,
 * blank lines, JSON parsing of each record, the id echoed, the text
 * checked or fixed, the findings written.  The first byte picks check or
 * fix (bit 0) and --unsafe (bit 1); the rest is the stream.
 * What must hold: every line that is not blank gets exactly one output
 * line, in order; each output line is a JSON object with "findings" or
 * with "error" and that line's number. */
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
	if (jh_config_open(&co, &cfg))
		abort();
	return 0;
}

/* The numbers of the lines the filter must answer, as it splits them. */
static size_t record_lines(const char *s, size_t n, size_t *nums, size_t cap)
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
			nums[count] = line;
		count += !blank;
		i = end;
	}
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	jsonl_options o = {data[0] & 1, (data[0] >> 1) & 1, 1};
	const char *in_bytes = (const char *)data + 1;
	size_t in_len = size - 1;
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

	size_t nums[4096];
	size_t want = record_lines(in_bytes, in_len, nums, 4096);
	size_t got = 0, i = 0;
	while (i < out_len) {
		char *nl = memchr(out_bytes + i, '\n', out_len - i);
		FUZZ_ASSERT(nl, "the last output line has no line break");
		size_t n = (size_t)(nl - (out_bytes + i));
		json_error_t err;
		json_t *v = json_loadb(out_bytes + i, n, JSON_ALLOW_NUL, &err);
		FUZZ_ASSERT(json_is_object(v), "output line %zu is not a JSON object: %s: %.*s", got + 1,
		            err.text, (int)(n < 300 ? n : 300), out_bytes + i);
		json_t *line = json_object_get(v, "line");
		if (json_object_get(v, "error")) {
			FUZZ_ASSERT(json_is_integer(line), "an error without its line number");
			if (got < 4096)
				FUZZ_ASSERT((size_t)json_integer_value(line) == nums[got],
				            "answer %zu names line %lld, not %zu", got + 1,
				            (long long)json_integer_value(line), nums[got]);
		} else {
			FUZZ_ASSERT(json_is_array(json_object_get(v, "findings")),
			            "an answer without findings or an error");
		}
		json_decref(v);
		got++;
		i += n + 1;
	}
	FUZZ_ASSERT(got == want, "%zu lines to answer, %zu answers", want, got);
	free(out_bytes);
	return 0;
}
