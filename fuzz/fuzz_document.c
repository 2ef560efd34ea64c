/* fuzz_document.c — one input through the command line's document pipeline,
 * as `jinghua check` and `jinghua fix --stdout` run it: binary detection,
 * encoding detection and decoding (UTF-8, GB18030, Big5, UTF-16, ...),
 * Markdown prose extraction, the engine with the real rules/, the
 * reporters, and encoding the fixed text back.  The first byte's low bit
 * picks plain text or Markdown; the reporter is JSON or human in turn.
 * What must hold: no crash; fix --stdout of UTF-8 input gives UTF-8, and
 * fixing that output again changes nothing (when the fix settled). */
#include <stdint.h>
#include "common.h"
#include "cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cfg_ctx *cfg;
static const file_settings *fs_txt, *fs_md;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("JINGHUA_RULES", JH_FUZZ_RULES_DIR, 0);
	cfg_cli cli;
	memset(&cli, 0, sizeof cli);
	cli.no_config = 1;
	cli.fail_on = -1;
	cfg = cfg_new(&cli);
	if (!cfg || cfg_settings(cfg, "fuzz.txt", &fs_txt) || cfg_settings(cfg, "fuzz.md", &fs_md))
		abort();
	return 0;
}

static void run(const file_settings *fs, run_mode mode, out_format fmt, const char *name,
                const uint8_t *data, size_t size, doc_result *res)
{
	reporter rep;
	memset(&rep, 0, sizeof rep);
	rep.format = fmt;
	rep.out = NULL;
	run_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.mode = mode;
	ro.quiet = 1;
	ro.rep = &rep;
	char *copy = malloc(size + 1); /* process_input takes it over */
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	process_input(fs, &ro, name, NULL, copy, size, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned turn;
	int md = size && (data[0] & 1);
	const file_settings *fs = md ? fs_md : fs_txt;
	const char *name = md ? "fuzz.md" : "fuzz.txt";
	doc_result r1, r2;
	run(fs, MODE_CHECK, turn++ % 2 ? FMT_HUMAN : FMT_JSON, name, data, size, &r1);
	doc_result_free(&r1);

	run(fs, MODE_STDOUT, FMT_JSON, name, data, size, &r1);
	if (r1.text && !r1.io_error && fuzz_utf8_valid((const char *)data, size)) {
		FUZZ_ASSERT(fuzz_utf8_valid(r1.text, r1.text_len),
		            "fix --stdout of UTF-8 text is not UTF-8 at byte %zu",
		            jh_utf8_valid_prefix(r1.text, r1.text_len));
		int settled = !(r1.err && strstr(r1.err, "did not settle"));
		run(fs, MODE_STDOUT, FMT_JSON, name, (const uint8_t *)r1.text, r1.text_len, &r2);
		if (settled && r2.text && !r2.io_error)
			FUZZ_ASSERT(r2.text_len == r1.text_len && !memcmp(r1.text, r2.text, r1.text_len),
			            "fix --stdout is not idempotent (%zu bytes once, %zu twice)",
			            r1.text_len, r2.text_len);
		doc_result_free(&r2);
	}
	doc_result_free(&r1);
	return 0;
}
