/* check_rulecache.c — rules folders and lexicons read from the cache
 * folder (rulecache.c, lexicon_cache.c): the rule set a cached load gives
 * is the one the files give (every field, parameter, example, the order,
 * overrides between folders, the findings), and the cache file is made
 * again when a rule file, an example file or a lexicon changed, when it
 * is damaged or cut short, and not made for a load that reported
 * anything. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rules.h"
#include "tests.h"

static char root[256], cache[300];

static void put(const char *dir, const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* Everything a front end can see of a rule set, and its findings and fix
 * of text, as one string (malloc'd). */
static char *describe(const jh_ruleset *rs, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < jh_ruleset_count(rs); i++) {
		const jh_rule *r = jh_ruleset_rule(rs, i);
		jh_rule_info in = JH_RULE_INFO_INIT;
		jh_rule_get_info(r, &in);
		fprintf(o, "%s|%s|%d|%d|%s|%s|%d|%d|%d|%s:%u|%zu\n", in.id, in.family, in.kind,
		        in.severity, in.message, in.description ? in.description : "-", in.has_fix,
		        in.safety, in.enabled_by_default, in.file, in.line, in.n_examples);
		fprintf(o, "  trigger %s|%s|%u|%s|%u\n", r->trigger ? r->trigger : "-",
		        r->trigger_words ? r->trigger_words : "-", r->lead,
		        r->near_words ? r->near_words : "-", r->near);
		for (size_t k = 0; k < in.n_examples; k++) {
			jh_example ex = JH_EXAMPLE_INIT;
			ck_assert_int_eq(jh_rule_get_example(r, k, &ex), JH_OK);
			fprintf(o, "  %d %s -> %s :%u\n", ex.kind, ex.text, ex.fixed ? ex.fixed : "-", ex.line);
		}
		char *ex = jh_rule_explain(r);
		ck_assert_ptr_nonnull(ex);
		fputs(ex, o);
		free(ex);
	}
	jh_findings fs = JH_FINDINGS_INIT;
	test_check(rs, text, strlen(text), &fs);
	for (size_t i = 0; i < fs.count; i++)
		fprintf(o, "%s %zu-%zu %s\n", fs.items[i].rule_id, fs.items[i].byte_start,
		        fs.items[i].byte_end, fs.items[i].message);
	jh_findings_clear(&fs);
	char *fixed = test_fix(rs, text, 1, NULL);
	fprintf(o, "fixed: %s\n", fixed);
	free(fixed);
	ck_assert_int_eq(fclose(o), 0);
	return buf;
}

/* The rule set of the folders (in order) with the cache folder c (NULL:
 * none), a parameter set on one rule, described; *diags gets the number
 * of diagnostics. */
static char *load(const char *const *dirs, const char *c, const char *text, size_t *diags)
{
	jh_ruleset *rs;
	test_diags ds = TEST_DIAGS_INIT;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	ck_assert_int_eq(jh_ruleset_set_cache_dir(rs, c), JH_OK);
	for (size_t i = 0; dirs[i]; i++)
		jh_ruleset_load_dir(rs, dirs[i], test_diag_collect, &ds);
	/* a configuration's parameter, set on a rule from the cache */
	const char *const with_max[] = {"layout.blank-lines", "layout.blank"};
	for (size_t i = 0; i < 2; i++)
		if (jh_ruleset_find(rs, with_max[i]) >= 0)
			ck_assert_int_eq(jh_ruleset_set_param(rs, with_max[i], "max", "2"), JH_OK);
	jh_ruleset_compile(rs, test_diag_collect, &ds);
	char *d = describe(rs, text);
	if (diags)
		*diags = ds.count;
	test_diags_free(&ds);
	jh_ruleset_free(rs);
	return d;
}

static ino_t inode_of(const char *prefix)
{
	char path[700];
	ck_assert_uint_eq(test_files_in(cache, prefix, path, sizeof path), 1);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

/* Flip one byte at offset from the end, or, when from_end is negative, at
 * -from_end from the start (cut: cut the file short by from_end instead). */
static void damage(const char *prefix, long from_end, int cut)
{
	char path[700];
	ck_assert_uint_eq(test_files_in(cache, prefix, path, sizeof path), 1);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	if (cut) {
		ck_assert_int_eq(truncate(path, st.st_size - from_end), 0);
		return;
	}
	FILE *f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	long at = from_end < 0 ? -from_end : st.st_size - from_end;
	ck_assert_int_lt(at, st.st_size);
	ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
	int ch = fgetc(f);
	ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
	fputc(ch ^ 0x21, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/jh-rulecache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(cache, sizeof cache, "%s/cache", root);
}

static void teardown(void)
{
	sh("rm -rf '%s'%s", root, "");
}

/* The default rules, copied (their data linked): cold, then warm, the
 * same rule set; the warm load takes the file as it is (same inode); a
 * damaged or short file is read around and written anew. */
START_TEST(default_rules_cached)
{
	char rules[400];
	snprintf(rules, sizeof rules, "%s/rules", root);
	sh("mkdir -p '%s' && cp " JH_SRCDIR "/rules/*.rules '%s'", rules, rules);
	sh("ln -s " JH_SRCDIR "/rules/data '%s/data'%s", rules, "");
	const char *dirs[] = {rules, NULL};
	char *text = test_read_sample("000_a5949cc1b610da24.txt");
	size_t diags;
	char *want = load(dirs, NULL, text, &diags);
	ck_assert_uint_eq(diags, 0);
	ck_assert_uint_eq(test_files_in(cache, "", NULL, 0), 0);
	char *cold = load(dirs, cache, text, NULL);
	ck_assert_str_eq(cold, want);
	ck_assert_uint_eq(test_files_in(cache, "rules-", NULL, 0), 1);
	ck_assert_uint_eq(test_files_in(cache, "lexicon-", NULL, 0), 1);
	ino_t ino = inode_of("rules-"), lino = inode_of("lexicon-");
	char *warm = load(dirs, cache, text, NULL);
	ck_assert_str_eq(warm, want);
	ck_assert_uint_eq(inode_of("rules-"), ino);     /* taken, not written again */
	ck_assert_uint_eq(inode_of("lexicon-"), lino);
	free(cold);
	free(warm);
	/* damaged: in the strings, in the rule records (400 bytes in: past the
	 * head and the table of sections), cut short */
	const struct {
		const char *kind;
		long at;
		int cut;
	} harm[] = {{"rules-", 100, 0}, {"rules-", -400, 0}, {"rules-", 1, 1},
	            {"lexicon-", 50, 0}, {"lexicon-", 20, 1}};
	for (size_t i = 0; i < sizeof harm / sizeof *harm; i++) {
		damage(harm[i].kind, harm[i].at, harm[i].cut);
		ino = inode_of(harm[i].kind);
		char *again = load(dirs, cache, text, NULL);
		ck_assert_msg(!strcmp(again, want), "%s damaged (%ld): another rule set", harm[i].kind,
		              harm[i].at);
		free(again);
		ck_assert_msg(inode_of(harm[i].kind) != ino, "%s damaged: not written again", harm[i].kind);
		ino = inode_of(harm[i].kind);
		again = load(dirs, cache, text, NULL);
		ck_assert_str_eq(again, want);
		free(again);
		ck_assert_uint_eq(inode_of(harm[i].kind), ino);
	}
	free(want);
	free(text);
}
END_TEST

#define RULE_A \
	"[typo.ab]\nkind = regex\nmessage = 甲乙 A\npattern = 甲乙\nfix = 乙甲\nsafety = safe\n" \
	"trigger = 乙\ntrigger-words = 乙 乙丙\nlead = 1\nnear-words = 甲\nnear = 3\n" \
	"bad = 甲乙\nfixed = 乙甲\ngood = 乙\n" \
	"[typo.lex]\nkind = lexicon\nlexicon = lex.tsv\nmessage = 词：{match}→{fix}\nsafety = unsafe\n" \
	"bad = 在次\ngood = 再次\n"
#define RULE_B \
	"[layout.blank]\nkind = builtin\ncheck = blank-lines\nmessage = 空行\nmax = 1\n" \
	"fix = $0\nsafety = safe\nbad-file = ex.txt\ngood = 短。\n"

/* A folder of small rules: each of its sources edited in turn changes the
 * rule set as reading it would, and a stale file is not used. */
START_TEST(stale_sources_rebuilt)
{
	char a[400], data[420];
	snprintf(a, sizeof a, "%s/a", root);
	snprintf(data, sizeof data, "%s/data", a);
	sh("mkdir -p '%s' '%s'", a, data);
	put(a, "a.rules", RULE_A);
	put(a, "b.rules", RULE_B);
	put(data, "lex.tsv", "在次\t再次\n");
	put(data, "ex.txt", "第一段。\n\n\n\n\n第二段。");
	const char *dirs[] = {a, NULL};
	const char *text = "他甲乙在次来了。\n\n\n\n\n完。";
	const struct {
		const char *dir, *name, *text;
	} edits[] = {
		{"", "a.rules", RULE_A "[typo.cd]\nkind = regex\nmessage = 丙丁\npattern = 来了\n"
		                       "bad = 来了\ngood = 去了\n"},                 /* a rule more */
		{"", "c.rules", "[typo.ab]\nkind = regex\nmessage = 甲乙 C\npattern = 甲乙\n"
		                "bad = 甲乙\ngood = 乙\n"},                          /* a new file */
		{"data", "lex.tsv", "在次\t再次\n他甲\t他\n"},                        /* the lexicon */
		{"data", "ex.txt", "短"},                                            /* an example file */
	};
	for (size_t i = 0; i <= sizeof edits / sizeof *edits; i++) {
		if (i) {
			usleep(20000); /* another modification time, whatever the file system's */
			put(*edits[i - 1].dir ? data : a, edits[i - 1].name, edits[i - 1].text);
		}
		size_t d0, d1, d2;
		char *want = load(dirs, NULL, text, &d0);
		char *cold = load(dirs, cache, text, &d1);
		char *warm = load(dirs, cache, text, &d2);
		ck_assert_msg(!strcmp(cold, want), "edit %zu: the cache's rule set is not the files'", i);
		ck_assert_msg(!strcmp(warm, want), "edit %zu: the warm rule set is not the files'", i);
		ck_assert_uint_eq(d1, d0);
		ck_assert_uint_eq(d2, d0);
		if (i == 1)
			ck_assert_ptr_nonnull(strstr(want, "typo.cd"));
		if (i == 2)
			ck_assert_ptr_nonnull(strstr(want, "甲乙 C"));
		if (i == 3)
			ck_assert_ptr_nonnull(strstr(want, "typo.lex 0-6"));
		if (i == 4) /* the bad-file example is now short: it fails, and says so */
			ck_assert_ptr_nonnull(strstr(want, " 短 -> -"));
		free(want);
		free(cold);
		free(warm);
	}
}
END_TEST

/* Folders loaded one after another: a later one overrides an earlier
 * one's rule in place, whether either comes from the cache or not, and
 * whatever was loaded before it. */
START_TEST(overrides_between_folders)
{
	char a[400], b[400], data[420];
	snprintf(a, sizeof a, "%s/a", root);
	snprintf(b, sizeof b, "%s/b", root);
	snprintf(data, sizeof data, "%s/data", a);
	sh("mkdir -p '%s' '%s'", data, b);
	put(a, "a.rules", RULE_A);
	put(data, "lex.tsv", "在次\t再次\n");
	sh("mkdir -p '%s/data'%s", b, "");
	sh("cp '%s/lex.tsv' '%s/data/'", data, b);
	put(b, "z.rules", "[typo.new]\nkind = regex\nmessage = 新\npattern = 来\nbad = 来\ngood = 去\n"
	                  "[typo.ab]\nkind = regex\nmessage = 甲乙 B\npattern = 甲\nbad = 甲\ngood = 乙\n");
	const char *text = "他甲乙在次来了。";
	const char *ab[] = {a, b, NULL}, *ba[] = {b, a, NULL}, *bo[] = {b, NULL};
	const char *const *orders[] = {ab, ba, bo, ab};
	for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
		char *want = load(orders[i], NULL, text, NULL);
		for (int k = 0; k < 2; k++) {
			char *got = load(orders[i], cache, text, NULL);
			ck_assert_msg(!strcmp(got, want), "order %zu, run %d: another rule set", i, k);
			free(got);
		}
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(want, "typo.ab|typo|0|1|甲乙 B"));
		free(want);
	}
	ck_assert_uint_eq(test_files_in(cache, "rules-", NULL, 0), 2);
}
END_TEST

/* A load that reported something is not cached: the warning comes again
 * at every start. */
START_TEST(warnings_not_cached)
{
	char a[400];
	snprintf(a, sizeof a, "%s/a", root);
	sh("mkdir -p '%s'%s", a, "");
	put(a, "a.rules", "[typo.x]\nkind = regex\nmessage = m\nmessage = n\npattern = 甲\n"
	                  "bad = 甲\ngood = 乙\n");
	const char *dirs[] = {a, NULL};
	for (int k = 0; k < 2; k++) {
		size_t d;
		char *got = load(dirs, cache, "甲", &d);
		ck_assert_uint_eq(d, 1);
		free(got);
	}
	ck_assert_uint_eq(test_files_in(cache, "rules-", NULL, 0), 0);
}
END_TEST

Suite *rulecache_suite(void)
{
	Suite *s = suite_create("rulecache");
	TCase *tc = test_tcase("rulecache", 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, default_rules_cached);
	tcase_add_test(tc, stale_sources_rebuilt);
	tcase_add_test(tc, overrides_between_folders);
	tcase_add_test(tc, warnings_not_cached);
	suite_add_tcase(s, tc);
	return s;
}
