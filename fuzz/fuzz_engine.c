/* fuzz_engine.c — the whole engine on arbitrary bytes: jh_check with the
 * real rules/ (default selection, then every rule on) and the invariants
 * every finding must satisfy; and the UTF-8 validator's paths against the
 * decoder.  Run: fuzz/build/fuzz_engine
 * fuzz/corpus/engine (see fuzz/README.md). */
#include <stdint.h>
#include "common.h"
#include "utf8.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_rules();
	return 0;
}

/* Lines and columns recomputed the slow, obvious way. */
static void expect_position(const char *text, size_t pos, size_t line, size_t col)
{
	size_t l = 1, c = 1, i = 0;
	/* a BOM at the start is no column (findings.c) */
	if (pos >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < pos) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + i, pos - i, &cp);
		if (text[i] == '\n')
			l++, c = 1;
		else
			c++;
		i += n;
	}
	FUZZ_ASSERT(l == line && c == col, "byte %zu: located at %zu:%zu, expected %zu:%zu", pos, line,
	            col, l, c);
}

/* Is pos inside a valid multibyte character (stray bytes are characters
 * of their own)? */
static int inside_char(const char *text, size_t len, size_t pos)
{
	for (size_t k = 1; k <= 3 && k <= pos && pos < len; k++) {
		if (((unsigned char)text[pos - k] & 0xC0) == 0x80)
			continue;
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + pos - k, len - pos + k, &cp);
		return cp >= 0 && n > k;
	}
	return 0;
}

static void check_findings(const jh_ruleset *rs, const char *text, size_t len, const jh_findings *fs,
                           int all_on)
{
	size_t prev_start = 0;
	long invalid_rule = jh_ruleset_find(rs, "encoding.invalid-utf8");
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		FUZZ_ASSERT(f->byte_start <= f->byte_end && f->byte_end <= len, "[%s] span %zu..%zu of %zu",
		            f->rule_id, f->byte_start, f->byte_end, len);
		FUZZ_ASSERT(f->byte_start >= prev_start, "findings not sorted at %zu", i);
		prev_start = f->byte_start;
		FUZZ_ASSERT(f->rule_id && f->message, "finding %zu without rule id or message", i);
		FUZZ_ASSERT(f->line >= 1 && f->column >= 1 && f->end_line >= f->line, "[%s] bad position",
		            f->rule_id);
		FUZZ_ASSERT(f->severity >= JH_INFO && f->severity <= JH_ERROR, "bad severity");
		/* A span never starts inside a (valid) character. */
		FUZZ_ASSERT(!inside_char(text, len, f->byte_start),
		            "[%s] span starts inside a character at %zu", f->rule_id, f->byte_start);
		if (i < 64) /* the slow check on the first findings keeps each run linear */
			expect_position(text, f->byte_start, f->line, f->column);
		size_t edit_pos = f->byte_start;
		for (size_t k = 0; k < f->n_edits; k++) {
			const jh_edit *e = &f->edits[k];
			FUZZ_ASSERT(e->byte_start <= e->byte_end && e->byte_end <= len,
			            "[%s] edit %zu..%zu of %zu", f->rule_id, e->byte_start, e->byte_end, len);
			FUZZ_ASSERT(k == 0 || e->byte_start >= edit_pos, "[%s] edits overlap", f->rule_id);
			edit_pos = e->byte_end;
			FUZZ_ASSERT(e->replacement && fuzz_utf8_valid(e->replacement, strlen(e->replacement)),
			            "[%s] replacement is not valid UTF-8", f->rule_id);
		}
	}
	if (!all_on || invalid_rule < 0)
		return;
	/* Every invalid byte lies in an encoding.invalid-utf8 finding. */
	size_t i = 0, k = 0;
	while (i < len) {
		int32_t cp;
		size_t n = jh_utf8_decode((const unsigned char *)text + i, len - i, &cp);
		if (cp < 0) {
			while (k < fs->count && (fs->items[k].rule_index != invalid_rule ||
			                         fs->items[k].byte_end <= i))
				k++;
			FUZZ_ASSERT(k < fs->count && fs->items[k].byte_start <= i &&
			                    fs->items[k].byte_end >= i + n,
			            "invalid byte at %zu not reported", i);
		}
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jh_ruleset *rs = fuzz_rules();
	/* A copy of exactly size bytes, so ASan sees any read past the end. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	/* each path of the validator (portable, SSE2, AVX2) stops where the
	 * decoder does */
	size_t valid = 0;
	for (int32_t cp = 0; valid < size && cp >= 0;) {
		size_t n = jh_utf8_decode((const unsigned char *)text + valid, size - valid, &cp);
		if (cp >= 0)
			valid += n;
	}
	for (int impl = 0; impl <= 2; impl++)
		FUZZ_ASSERT(jh_utf8_valid_prefix_with(impl, text, size) == valid,
		            "validator %d: %zu, the decoder %zu", impl, jh_utf8_valid_prefix_with(impl, text, size), valid);
	for (int all_on = 0; all_on < 2; all_on++) {
		jh_findings fs = JH_FINDINGS_INIT;
		jh_check_options opts = {JH_CHECK_OPTIONS_VERSION, all_on ? fuzz_all_rules(rs) : NULL, NULL, "fuzz.txt",
		                         fuzz_quiet_diag, NULL};
		int rc = jh_check(rs, text, size, &opts, &fs);
		FUZZ_ASSERT(rc == JH_OK, "jh_check: %s", jh_strerror(rc));
		check_findings(rs, text, size, &fs, all_on);
		jh_findings_clear(&fs);
	}
	free(text);
	return 0;
}
