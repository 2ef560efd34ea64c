/* fuzz_document.c — one input through the library's document calls, as
 * `jinghua check` and `jinghua fix --stdout` run them: encoding detection
 * and decoding (UTF-8, GB18030, Big5, UTF-16, ...), Markdown prose
 * extraction, inline switches, the engine with the real rules/, the fix
 * loop and encoding the fixed text back.  The first byte's low bit picks
 * plain text or Markdown.  Only the library is linked.
 * What must hold: no crash; every finding lies inside the text and maps to
 * an offset inside the file; the fixed bytes of UTF-8 input are UTF-8, and
 * fixing them again changes nothing (when the fix settled). */
#include <stdint.h>
#include "common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jh_config *cfg;
static const jh_settings *fs_txt, *fs_md;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.no_config = 1;
	co.rules_dir = JH_FUZZ_RULES_DIR;
	co.diag_fn = fuzz_quiet_diag;
	if (jh_config_open(&co, &cfg) || jh_config_settings(cfg, "fuzz.txt", &fs_txt) ||
	    jh_config_settings(cfg, "fuzz.md", &fs_md))
		abort();
	return 0;
}

static void check_positions(const jh_document *d, size_t file_len)
{
	size_t tlen;
	jh_document_text(d, &tlen);
	const jh_findings *fs = jh_document_findings(d);
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		FUZZ_ASSERT(f->byte_start <= f->byte_end && f->byte_end <= tlen,
		            "finding %zu..%zu outside the text (%zu bytes)", f->byte_start, f->byte_end,
		            tlen);
		FUZZ_ASSERT(jh_document_file_offset(d, f->byte_end) <= file_len,
		            "finding end maps outside the file (%zu bytes)", file_len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int md = size && (data[0] & 1);
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = md ? fs_md : fs_txt;
	o.name = md ? "fuzz.md" : "fuzz.txt";
	o.diag_fn = fuzz_quiet_diag;
	const char *bytes = (const char *)data;
	jh_document *d;
	if (jh_document_check(bytes, size, &o, &d) == JH_OK) {
		check_positions(d, size);
		jh_document_free(d);
	}
	if (jh_document_fix(bytes, size, &o, &d) != JH_OK)
		return 0;
	jh_fix_report rep;
	size_t flen;
	const char *fixed = jh_document_fixed(d, &flen, &rep);
	if (fixed)
		check_positions(d, flen);
	if (fixed && fuzz_utf8_valid(bytes, size)) {
		FUZZ_ASSERT(fuzz_utf8_valid(fixed, flen), "the fix of UTF-8 text is not UTF-8 at byte %zu",
		            jh_utf8_valid_prefix(fixed, flen));
		jh_document *d2;
		if (jh_document_fix(fixed, flen, &o, &d2) == JH_OK) {
			size_t f2len;
			const char *f2 = jh_document_fixed(d2, &f2len, NULL);
			if (f2)
				FUZZ_ASSERT(f2len == flen && !memcmp(f2, fixed, flen),
				            "fixing is not idempotent (%zu bytes once, %zu twice)", flen, f2len);
			jh_document_free(d2);
		}
	}
	jh_document_free(d);
	return 0;
}
