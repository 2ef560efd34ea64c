/* fuzz_config.c — the configuration parser on arbitrary text: the input is
 * written as .jinghua.ini in a scratch folder, then settings are resolved
 * for a text and a Markdown file below it (selection, severities, [path:]
 * globs, profiles, rule parameters, with the rules of fuzz/config-rules/,
 * a few of every family), and the rule set
 * and selection that come out are used for a check.  Errors are printed,
 * never a crash.  The first two lines also go to glob_match().  Only the
 * library is linked: the public jh_config_* calls, and glob_match (the
 * library's, declared in src/document/document.h). */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "document.h"

#ifndef JH_FUZZ_DIR
#define JH_FUZZ_DIR "fuzz"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], ini[96], txt[96], md[96], other[96];

static void cleanup(void)
{
	unlink(ini);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A small rule set (fuzz/config-rules/): compiling the real one for
	 * every input would leave a few runs a second. */
	strcpy(dir, "/tmp/jh-fuzz-config-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(ini, sizeof ini, "%s/.jinghua.ini", dir);
	snprintf(txt, sizeof txt, "%s/chapter.txt", dir);
	snprintf(md, sizeof md, "%s/docs/readme.md", dir);
	snprintf(other, sizeof other, "%s/vendor/x.txt", dir);
	atexit(cleanup);
	return 0;
}

static void try_settings(jh_config *c, const char *path)
{
	const jh_settings *fs = NULL;
	if (jh_config_settings(c, path, &fs) != 0 || !fs || !fs->ruleset)
		return;
	static const char sample[] = "他说:好的。子丨弹丨膛，ＡＢＣ再接再励的的。\n";
	jh_findings out = JH_FINDINGS_INIT;
	jh_check_options o = {JH_CHECK_OPTIONS_VERSION, fs->enabled, fs->severity, path, fuzz_quiet_diag, NULL};
	int rc = jh_check(fs->ruleset, sample, sizeof sample - 1, &o, &out);
	FUZZ_ASSERT(rc == JH_OK, "check with the configured settings: %s", jh_strerror(rc));
	jh_findings_clear(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(ini, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);

	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.rules_dir = JH_FUZZ_DIR "/config-rules";
	co.diag_fn = fuzz_quiet_diag;
	jh_config *c = NULL;
	int rc = jh_config_open(&co, &c);
	FUZZ_ASSERT(rc == JH_OK, "jh_config_open: %s", jh_strerror(rc));
	try_settings(c, txt);
	try_settings(c, md);
	jh_config_excluded(c, other);
	jh_config_free(c);

	/* glob_match on the first two lines (pattern, path) */
	const char *nl = memchr(data, '\n', size);
	if (nl && !memchr(data, '\0', size)) {
		size_t pl = (size_t)(nl - (const char *)data);
		const char *rest = nl + 1;
		const char *nl2 = memchr(rest, '\n', size - pl - 1);
		size_t ql = nl2 ? (size_t)(nl2 - rest) : size - pl - 1;
		char *pat = strndup((const char *)data, pl), *path = strndup(rest, ql);
		if (pat && path)
			glob_match(pat, path);
		free(pat);
		free(path);
	}
	return 0;
}
