/* check_typo.c — the checks of the typo family written in C: doubled
 * words (exactly twice, only listed words), skip-chars of the doubled
 * check, and names that drift (the frequent form as the fix, and the
 * guards that keep real pairs of words out).  The rules use the real data
 * files in rules/data, so the tests also hold the generated lists to what
 * the rules promise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests.h"
#include "typo_lm.h"
#include "typo_context.h"
#include "utf8.h"

#define RULES_DATA JH_SRCDIR "/rules/data"

static jh_ruleset *typo_ruleset(const char *ini)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs = NULL;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	int rc = jh_ruleset_load_string(rs, TEST_RULES_NAME, ini, RULES_DATA, test_diag_collect, &ds);
	if (rc == JH_OK)
		rc = jh_ruleset_compile(rs, test_diag_collect, &ds);
	ck_assert_msg(rc == JH_OK && ds.count == 0, "rules did not load (%d):%s", rc,
	              test_diags_text(&ds));
	test_diags_free(&ds);
	return rs;
}

static size_t count(const jh_ruleset *rs, const char *text, jh_findings *fs)
{
	jh_findings_clear(fs);
	test_check(rs, text, strlen(text), fs);
	return fs->count;
}

#define DWORD_RULE \
	"[typo.dw]\nkind = builtin\ncheck = doubled-word\nwords = typo-doubled-words.tsv\n" \
	"message = “{match}”\nfix = $1\nsafety = unsafe\nbad = 我们我们走\nfixed = 我们走\n" \
	"good = 我们走\n"

START_TEST(doubled_word)
{
	jh_ruleset *rs = typo_ruleset(DWORD_RULE);
	jh_findings fs = JH_FINDINGS_INIT;
	/* 他(0) 说(3) 我们(6) 我们(12) 走(18) */
	ck_assert_uint_eq(count(rs, "他说我们我们走", &fs), 1);
	test_assert_finding(&fs, 0, "typo.dw", 6, 18, "我们");
	ck_assert_uint_eq(count(rs, "为什么为什么", &fs), 1);       /* three characters */
	test_assert_finding(&fs, 0, "typo.dw", 0, 18, "为什么");
	ck_assert_uint_eq(count(rs, "我们我们我们", &fs), 0);       /* three times: a chant */
	ck_assert_uint_eq(count(rs, "研究研究", &fs), 0);           /* verbs reduplicate */
	ck_assert_uint_eq(count(rs, "不是不是，我错了", &fs), 0);   /* excluded on purpose */
	ck_assert_uint_eq(count(rs, "我们，我们", &fs), 0);         /* not adjacent */
	ck_assert_uint_eq(count(rs, "我们", &fs), 0);
	ck_assert_uint_eq(count(rs, "", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(doubled_skip_chars)
{
	jh_ruleset *rs = typo_ruleset(
		"[typo.dc]\nkind = builtin\ncheck = doubled\nskip-chars = 的了\nmessage = m\n"
		"bad = 炮炮兵\ngood = 他的的书\n");
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "他的的书了了", &fs), 0);
	ck_assert_uint_eq(count(rs, "向炮炮兵阵地", &fs), 1);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* A pair right after a stammer (猩……猩) is speech written as spoken: the
 * fix is offered but unsafe; the same pair without the stammer stays safe. */
START_TEST(doubled_after_stammer)
{
	jh_ruleset *rs = typo_ruleset(
		"[typo.dc]\nkind = builtin\ncheck = doubled\nchars = 我的\nmessage = m\n"
		"fix = $1\nsafety = safe\nbad = 刚刚投弹的的几个骑兵冲了上去\ngood = 他的书\n");
	const char *said[] = {"是猩……猩红热。我我午后来局的时候就知道了", "是猩红热。我我午后来局的时候就知道了",
	                      "他说：“那——那是我我午后来局的时候”"};
	const jh_safety want[] = {JH_UNSAFE, JH_SAFE, JH_UNSAFE};
	for (int k = 0; k < 3; k++) {
		jh_findings fs = JH_FINDINGS_INIT;
		ck_assert_uint_eq(count(rs, said[k], &fs), 1);
		ck_assert_msg(fs.items[0].has_fix && fs.items[0].safety == want[k], "%s", said[k]);
		jh_findings_clear(&fs);
	}
	jh_ruleset_free(rs);
}
END_TEST

#define DRIFT_RULE(extra) \
	"[typo.drift]\nkind = builtin\ncheck = name-drift\nwords = typo-common-words.tsv\n" \
	"stop = typo-drift-stop.tsv\nsound = typo-char-sound.tsv\n" extra \
	"message = “{match}”→“{fix}”\nfix = $1\nsafety = unsafe\n" \
	"bad = 段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。段興買殿後。\n" \
	"good = 段興茂大喜。\n"

START_TEST(name_drift)
{
	jh_ruleset *rs = typo_ruleset(DRIFT_RULE(""));
	jh_findings fs = JH_FINDINGS_INIT;
	const char *text = "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。段興買殿後。";
	ck_assert_uint_eq(count(rs, text, &fs), 1);
	size_t at = (size_t)(strstr(text, "段興買") - text);
	/* The frequent form is an alternative, never a fix (not even unsafe). */
	test_assert_finding(&fs, 0, "typo.drift", at, at + 9, NULL);
	ck_assert_uint_eq(fs.items[0].n_alternatives, 1);
	ck_assert_uint_eq(fs.items[0].alternatives[0].n_edits, 1);
	ck_assert_str_eq(fs.items[0].alternatives[0].edits[0].replacement, "段興茂");
	ck_assert_str_eq(fs.items[0].message, "“段興買”→“段興茂”");
	/* Four times is not enough with min-count 5. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興買殿後。", &fs), 0);
	/* Twice rare is not a slip with max-rare 1. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。"
	                            "段興買殿後。段興買走了。", &fs), 0);
	/* Numerals are never the slip. */
	ck_assert_uint_eq(count(rs, "第三团出发。第三团冲锋。第三团撤退。第三团休息。第三团开饭。"
	                            "第四团跟上。", &fs), 0);
	/* Characters that neither sound nor look alike: two names. */
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂不准。段興茂冷靜。段興茂記著。"
	                            "段興國殿後。", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);

	rs = typo_ruleset(DRIFT_RULE("min-count = 3\n"));
	ck_assert_uint_eq(count(rs, "段興茂大喜。段興茂攻進。段興茂冷靜。段興買殿後。", &fs), 1);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(name_drift_bad_params)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs = NULL;
	ck_assert_int_eq(jh_ruleset_new(&rs), JH_OK);
	jh_ruleset_load_string(rs, TEST_RULES_NAME,
	                       "[typo.drift]\nkind = builtin\ncheck = name-drift\nmin-count = 1\n"
	                       "message = m\nbad = x\ngood = y\n",
	                       RULES_DATA, test_diag_collect, &ds);
	ck_assert_int_eq(jh_ruleset_compile(rs, test_diag_collect, &ds), JH_ERR_RULES);
	ck_assert_ptr_nonnull(test_diags_find(&ds, "min-count"));
	test_diags_free(&ds);
	jh_ruleset_free(rs);
}
END_TEST

#define CONTEXT_RULE(dict) \
	"[typo.ctx]\nkind = builtin\ncheck = context\ndict = " dict "\n" \
	"stop = typo-drift-stop.tsv\nsimilar = typo-similar.tsv\nt2s = typo-t2s.tsv\ns2t = typo-s2t.tsv\n" \
	"message = “{match}”→“{fix}”\nfix = $0\nsafety = unsafe\nbad = 还是炮單威力\n" \
	"good = 炮弹\n"
#define JIEBA_DICT "/usr/lib/python3/dist-packages/jieba/dict.txt"

START_TEST(context_homophone)
{
	FILE *f = fopen(JIEBA_DICT, "rb");
	if (!f)
		return; /* python3-jieba not installed: nothing to score with */
	fclose(f);
	jh_ruleset *rs = typo_ruleset(CONTEXT_RULE(JIEBA_DICT));
	jh_findings fs = JH_FINDINGS_INIT;
	/* 還是(0) 炮(6) 單(9) 威力(12) */
	ck_assert_uint_eq(count(rs, "不論射速、還是炮單威力", &fs), 1);
	const char *t = "不論射速、還是炮單威力";
	size_t at = (size_t)(strstr(t, "單") - t);
	test_assert_finding(&fs, 0, "typo.ctx", at, at + 3, "彈");
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 1);            /* simplified: 弹 */
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "弹");
	ck_assert_uint_eq(count(rs, "还是炮弹威力", &fs), 0);
	ck_assert_uint_eq(count(rs, "“还是炮单威力”", &fs), 0);          /* dialogue */
	ck_assert_uint_eq(count(rs, "还是炮单威力，炮单威力", &fs), 0);  /* written twice */
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

START_TEST(context_without_dictionary)
{
	jh_ruleset *rs = typo_ruleset(CONTEXT_RULE("/nonexistent/dict.txt"));
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST


#define SUNPINYIN "/usr/lib/x86_64-linux-gnu/sunpinyin/data/"
#define LM_MODEL SUNPINYIN "lm_sc.t3g"
#define LM_WORDS SUNPINYIN "pydict_sc.bin"

/* Are jieba's dictionary and sunpinyin's model installed (python3-jieba,
 * sunpinyin-data)?  Without them typo.context has nothing to score with,
 * and its tests have nothing to test. */
static int context_data(void)
{
	FILE *f = fopen(JIEBA_DICT, "rb"), *g = fopen(LM_MODEL, "rb");
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return f && g;
}

static uint32_t lm_id(const jh_lm *lm, const char *word)
{
	int32_t cp[JH_LM_MAX_WORD];
	int n = 0;
	for (const char *p = word; *p && n < JH_LM_MAX_WORD;) {
		size_t k = jh_utf8_decode((const unsigned char *)p, strlen(p), &cp[n++]);
		p += k ? k : 1;
	}
	return jh_lm_word(lm, cp, n);
}

static double lm_sentence(const jh_lm *lm, const char *const *words)
{
	jh_lm_state st = jh_lm_start(lm);
	double sum = 0;
	for (; *words; words++)
		sum += jh_lm_next(lm, st, lm_id(lm, *words), &st);
	return sum;
}

/* sunpinyin-data's model: words have ids, context changes probabilities,
 * and 战士们 beats 战事们 (a slip into another real word). */
START_TEST(lm_sunpinyin)
{
	jh_lm *lm;
	char err[256];
	if (jh_lm_open(&lm, LM_MODEL, LM_WORDS, err, sizeof err) == JH_ERR_IO)
		return; /* sunpinyin-data not installed */
	ck_assert_ptr_nonnull(lm);
	ck_assert_uint_ne(lm_id(lm, "中国"), 0);
	ck_assert_uint_eq(lm_id(lm, "炮單"), 0);
	const char *right[] = {"战士", "们", "赶紧", "趴下", NULL};
	const char *wrong[] = {"战事", "们", "赶紧", "趴下", NULL};
	ck_assert(lm_sentence(lm, right) > lm_sentence(lm, wrong) + 4);
	jh_lm_state st;
	double uni = jh_lm_unigram(lm, lm_id(lm, "们"));
	jh_lm_next(lm, 0, lm_id(lm, "战士"), &st);
	ck_assert(jh_lm_next(lm, st, lm_id(lm, "们"), &st) > uni);
	jh_lm_free(lm);
}
END_TEST

/* The tables jh_lm_open builds, from the cache folder: the model opened
 * without a cache, then with an empty one (built and stored), then again
 * (mapped) answers the same for every word and a sentence; a lexicon
 * changed since (another modification time) is not taken from it. */
static int same_model(const jh_lm *a, const jh_lm *b)
{
	if (jh_lm_count(a) != jh_lm_count(b) || jh_lm_start(a) != jh_lm_start(b))
		return 0;
	for (uint32_t id = 0; id < jh_lm_count(a); id++) {
		int32_t cp[JH_LM_MAX_WORD];
		int n = jh_lm_word_text(a, id, cp, JH_LM_MAX_WORD);
		if (jh_lm_unigram(a, id) != jh_lm_unigram(b, id) || (n > 0 && jh_lm_word(a, cp, n) != jh_lm_word(b, cp, n)))
			return 0;
	}
	const char *words[] = {"战士", "们", "赶紧", "趴下", NULL};
	return lm_sentence(a, words) == lm_sentence(b, words);
}

START_TEST(lm_tables_cached)
{
	jh_lm *plain, *stored, *mapped;
	char err[256], dir[] = "/tmp/jh-lmcache-XXXXXX", cmd[1200], model[64], words[64];
	if (jh_lm_open(&plain, LM_MODEL, LM_WORDS, err, sizeof err) == JH_ERR_IO)
		return; /* sunpinyin-data not installed */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(model, sizeof model, "%s/lm.t3g", dir);
	snprintf(words, sizeof words, "%s/words.bin", dir);
	snprintf(cmd, sizeof cmd, "cp %s %s && cp %s %s && mkdir %s/cache", LM_MODEL, model, LM_WORDS,
	         words, dir);
	ck_assert_int_eq(system(cmd), 0);
	char cache[320];
	snprintf(cache, sizeof cache, "%s/cache", dir);
	ck_assert_int_eq(jh_lm_open_cached(&stored, model, words, cache, err, sizeof err), JH_OK);
	char path[400]; /* the cache file's */
	ck_assert_uint_eq(test_files_in(cache, "lm-", path, sizeof path), 1);
	struct stat built, kept;
	ck_assert_int_eq(stat(path, &built), 0);
	ck_assert_int_eq(jh_lm_open_cached(&mapped, model, words, cache, err, sizeof err), JH_OK);
	ck_assert_int_eq(stat(path, &kept), 0); /* mapped, not built and written again */
	ck_assert_msg(kept.st_ino == built.st_ino, "the cache file was written again");
	ck_assert(same_model(plain, stored));
	ck_assert(same_model(plain, mapped));
	jh_lm_free(mapped);
	/* the lexicon touched: the file is stale, built and stored again */
	snprintf(cmd, sizeof cmd, "touch -d '1 minute ago' %s", words);
	ck_assert_int_eq(system(cmd), 0);
	struct stat before;
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(jh_lm_open_cached(&mapped, model, words, cache, err, sizeof err), JH_OK);
	ck_assert(same_model(plain, mapped));
	struct stat after;
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_msg(after.st_ino != before.st_ino, "the stale cache file was not written again");
	jh_lm_free(mapped);
	jh_lm_free(stored);
	jh_lm_free(plain);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The seen-successor lookup mask restoration intersects with: every word
 * jh_lm_children visits after a history has the probability jh_lm_next
 * gives it there (seen, no back-off), and their number is
 * jh_lm_n_children's; a word not among them (one skipped between two
 * visited ids: the children come in id order) is not seen (-INFINITY),
 * though jh_lm_next backs off to a finite score for it. */
typedef struct {
	const jh_lm *lm;
	jh_lm_state st;
	size_t n, bad;
	uint32_t last, gap;
} seen_arg;

static void seen_child(void *arg, uint32_t wid, double lp)
{
	seen_arg *a = arg;
	jh_lm_state nx;
	/* id 0, the sentence end, is never a word of text: looked up as none */
	if (wid && (jh_lm_seen(a->lm, a->st, wid) != lp || jh_lm_next(a->lm, a->st, wid, &nx) != lp))
		a->bad++;
	if (a->n && !a->gap && wid > a->last + 1)
		a->gap = a->last + 1;
	a->n++;
	a->last = wid;
}

START_TEST(lm_seen_successors)
{
	jh_lm *lm;
	char err[256];
	if (jh_lm_open(&lm, LM_MODEL, LM_WORDS, err, sizeof err) == JH_ERR_IO)
		return; /* sunpinyin-data not installed */
	seen_arg a = {lm, 0, 0, 0, 0, 0};
	jh_lm_next(lm, 0, lm_id(lm, "骑兵"), &a.st);
	ck_assert_uint_eq(jh_lm_children(lm, a.st, 0, seen_child, &a), a.n);
	ck_assert_uint_gt(a.n, 10);
	ck_assert_uint_eq(a.bad, 0);
	ck_assert_uint_eq(jh_lm_n_children(lm, a.st), a.n);
	ck_assert_uint_ne(a.gap, 0);
	jh_lm_state nx;
	ck_assert(jh_lm_seen(lm, a.st, a.gap) == -INFINITY);
	ck_assert(isfinite(jh_lm_next(lm, a.st, a.gap, &nx)));
	ck_assert(jh_lm_seen(lm, a.st, 0) == -INFINITY);              /* no word */
	ck_assert(jh_lm_seen(lm, 0, lm_id(lm, "中国")) == -INFINITY); /* no history */
	jh_lm_free(lm);
}
END_TEST

static void put32(FILE *f, uint32_t v)
{
	unsigned char b[4] = {v & 255, v >> 8 & 255, v >> 16 & 255, v >> 24};
	ck_assert_uint_eq(fwrite(b, 1, 4, f), 4);
}

/* A model of the right size whose every node is garbage (children and
 * threads far out of range), or the real one cut short: open fails with
 * a sentence, or lookups stay in bounds.  Never a crash. */
START_TEST(lm_corrupt)
{
	char model[] = "/tmp/jh-lm-XXXXXX", words[] = "/tmp/jh-lmw-XXXXXX";
	int fd = mkstemp(model), fw = mkstemp(words);
	ck_assert(fd >= 0 && fw >= 0);
	FILE *f = fdopen(fd, "wb"), *w = fdopen(fw, "wb");
	uint32_t sizes[4] = {2, 5, 4, 3};
	put32(f, 3), put32(f, 0);
	for (int l = 0; l < 4; l++)
		put32(f, sizes[l]);
	for (int k = 0; k < 65536 + 16384; k++)
		put32(f, 0x3F000000); /* 0.5 */
	for (int k = 0; k < (2 + 5 + 4) * 3 + 3 * 2; k++)
		put32(f, 0xFFFFFFFFu - (uint32_t)k);
	fclose(f);
	/* words: "", 中, 中国 */
	put32(w, 3), put32(w, 0), put32(w, 12);
	put32(w, 0), put32(w, 0x4E2D), put32(w, 0), put32(w, 0x4E2D), put32(w, 0x56FD), put32(w, 0);
	fclose(w);
	jh_lm *lm;
	char err[256];
	ck_assert_int_eq(jh_lm_open(&lm, model, words, err, sizeof err), JH_OK);
	ck_assert_uint_eq(lm_id(lm, "中国"), 2);
	jh_lm_state st = jh_lm_start(lm);
	for (uint32_t id = 0; id < 300000; id += 997) {
		double p = jh_lm_next(lm, st, id, &st);
		ck_assert(isfinite(p) && p <= 0);
	}
	for (uint32_t s = 0; s < 0x4000000; s += 0x10001) { /* any state at all */
		double p = jh_lm_next(lm, s, 2, &st);
		ck_assert(isfinite(p));
	}
	jh_lm_free(lm);
	/* the real model, cut: an error, not a crash */
	FILE *in = fopen(LM_MODEL, "rb");
	if (in) {
		static char buf[1 << 20];
		size_t n = fread(buf, 1, sizeof buf, in);
		fclose(in);
		size_t cuts[] = {0, 7, 24, 300000, n};
		for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
			f = fopen(model, "wb");
			ck_assert_uint_eq(fwrite(buf, 1, cuts[k], f), cuts[k]);
			fclose(f);
			int rc = jh_lm_open(&lm, model, words, err, sizeof err);
			ck_assert_msg(rc == JH_ERR_RULES || (rc == JH_ERR_IO && cuts[k] == 0), "cut %zu: %d",
			              cuts[k], rc);
			ck_assert_ptr_null(lm);
		}
	}
	/* a word list whose strings run off the end */
	w = fopen(words, "wb");
	put32(w, 50), put32(w, 0), put32(w, 12), put32(w, 0x4E2D);
	fclose(w);
	ck_assert_int_eq(jh_lm_open(&lm, LM_MODEL, words, err, sizeof err),
	                 fopen(LM_MODEL, "rb") ? JH_ERR_RULES : JH_ERR_IO);
	remove(model);
	remove(words);
}
END_TEST

#define CONTEXT_LM_RULE(model) \
	"[typo.ctx]\nkind = builtin\ncheck = context\ndict = " JIEBA_DICT "\nlm = " model "\n" \
	"lm-words = " LM_WORDS "\nstop = typo-drift-stop.tsv\nsimilar = typo-similar.tsv\n" \
	"t2s = typo-t2s.tsv\ns2t = typo-s2t.tsv\npair-margin = 8\nmessage = “{match}”→“{fix}”\nfix = $0\n" \
	"safety = unsafe\nbad = 还是炮單威力\ngood = 炮弹\n"

/* With the model: a slip into another real word (在伤亡聊天 for 在上网聊天,
 * at word-margin 8, below the rule file's 10),
 * and the non-word slips as before; a missing model = the unigram
 * scoring. */
START_TEST(context_trigram)
{
	if (!context_data())
		return;
	jh_ruleset *rs = typo_ruleset(CONTEXT_LM_RULE(LM_MODEL));
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "弹");
	ck_assert_uint_eq(count(rs, "他每天晚上都在伤亡聊天。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "上网");
	ck_assert_uint_eq(count(rs, "他每天晚上都在上网聊天。", &fs), 0);
	ck_assert_uint_eq(count(rs, "这次事故造成了严重的人员伤亡。", &fs), 0);
	jh_ruleset_free(rs);
	rs = typo_ruleset(CONTEXT_LM_RULE("/nonexistent/lm_sc.t3g"));
	ck_assert_uint_eq(count(rs, "还是炮单威力", &fs), 1);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* The guards: a character that is a traditional form or variant of the
 * candidate outside simplified text (反覆, 著), a pair the document
 * writes twice, a neighbour that belongs to a recurring name (牛岛); and
 * the function-character groups (嚇的趕緊 → 嚇得). */
START_TEST(context_guards)
{
	if (!context_data())
		return;
	jh_ruleset *rs = typo_ruleset(CONTEXT_LM_RULE(LM_MODEL) "groups = 的地得 在再\n");
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "日軍嚇的趕緊往後跑。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "得");
	ck_assert_uint_eq(count(rs, "他反覆思考這個問題。", &fs), 0);
	ck_assert_uint_eq(count(rs, "師長巴達諾夫少將陰沉著臉站在大樹邊。", &fs), 0);
	ck_assert_uint_eq(count(rs, "我很羡幕他。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "慕");
	ck_assert_uint_eq(count(rs, "我很羡幕他。我很羡幕他。", &fs), 0);
	ck_assert_uint_eq(count(rs, "牛岛来了。牛岛走了。牛岛尉组织力量向这边扑来。", &fs), 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* The document's pair counts see only adjacent Han characters (羡，幕 is
 * not 羡幕 again), in a document longer than the first table; a spot seen
 * again takes the decision kept (the repeated 羡幕 then stays, as a pair
 * written twice); the 的地得 gates: 的 after a verb is tried as 得, 的
 * after a noun is not, 地 before a verb is not made 的; a function
 * character proposed costs no stop-margin (我门 → 我们). */
START_TEST(context_pairs_and_gates)
{
	if (!context_data())
		return;
	jh_ruleset *rs = typo_ruleset(CONTEXT_LM_RULE(LM_MODEL) "groups = 的地得 在再\n");
	jh_findings fs = JH_FINDINGS_INIT;
	ck_assert_uint_eq(count(rs, "我很羡幕他。羡，幕。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "慕");
	char *doc = malloc(20000 * 3 + 64);
	ck_assert_ptr_nonnull(doc);
	size_t n = 0;
	for (int k = 0; k < 2000; k++) /* 10,000 pairs before the slip */
		n += (size_t)sprintf(doc + n, "%s", k % 2 ? "天气很好。" : "今天下雨。");
	strcpy(doc + n, "我很羡幕他。");
	ck_assert_uint_eq(count(rs, doc, &fs), 1);
	strcpy(doc + n, "我很羡幕他。我很羡幕他。");
	ck_assert_uint_eq(count(rs, doc, &fs), 0);
	free(doc);
	ck_assert_uint_eq(count(rs, "他跑的很快。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "得");
	ck_assert_uint_eq(count(rs, "我的书很好看。", &fs), 0);
	ck_assert_uint_eq(count(rs, "她会很耐心地听我说话。", &fs), 0);
	ck_assert_uint_eq(count(rs, "我门明天去公园。", &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "们");
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

/* A broken line of a table read at first use: an error with its file and
 * line, once, and no findings; a bad `groups` value: a rule error. */
START_TEST(context_bad_tables)
{
	test_diags ds = TEST_DIAGS_INIT;
	jh_ruleset *rs;
	const char *ini = "[typo.ctx]\nkind = builtin\ncheck = context\ndict = " JIEBA_DICT "\n"
	                  "stop = ../../rules/data/typo-drift-stop.tsv\nsimilar = typo-similar-bad.tsv\n"
	                  "t2s = ../../rules/data/typo-t2s.tsv\ns2t = ../../rules/data/typo-s2t.tsv\n"
	                  "message = m\nfix = $0\nsafety = unsafe\nbad = 还是炮单威力\ngood = 好\n";
	ck_assert_msg(test_ruleset_try(ini, &rs, &ds) == JH_OK, "%s", test_diags_text(&ds));
	jh_check_options o = {0};
	o.diag_fn = test_diag_collect;
	o.payload = &ds;
	jh_findings fs = JH_FINDINGS_INIT;
	const char *text = "还是炮单威力";
	for (int round = 0; round < 2; round++)
		ck_assert_int_eq(jh_check(rs, text, strlen(text), &o, &fs), JH_OK);
	const test_diag *d = test_diags_find(&ds, "not a line");
	ck_assert_msg(d != NULL, "%s", test_diags_text(&ds));
	ck_assert_ptr_nonnull(strstr(d->file, "typo-similar-bad.tsv"));
	ck_assert_uint_eq(d->line, 3);
	ck_assert_uint_eq(ds.count, 1);
	ck_assert_uint_eq(fs.count, 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
	test_diags_free(&ds);

	ds = (test_diags)TEST_DIAGS_INIT;
	ck_assert_int_eq(test_ruleset_try("[typo.ctx]\nkind = builtin\ncheck = context\n"
	                                  "stop = ../../rules/data/typo-drift-stop.tsv\n"
	                                  "similar = ../../rules/data/typo-similar.tsv\n"
	                                  "t2s = ../../rules/data/typo-t2s.tsv\n"
	                                  "s2t = ../../rules/data/typo-s2t.tsv\ngroups = 的地得 在\n"
	                                  "message = m\nbad = 还是炮单威力\ngood = 好\n",
	                                  &rs, &ds),
	                 JH_ERR_RULES);
	ck_assert_msg(test_diags_find(&ds, "'groups'") != NULL, "%s", test_diags_text(&ds));
	jh_ruleset_free(rs);
	test_diags_free(&ds);
}
END_TEST

/* The learned decision (weights): a file whose need is 0 takes a
 * candidate the margins refuse (想 → 向 gains less than margin 7), one
 * whose bias no gain overcomes takes none, and a file that is not one
 * weight per known feature with a positive gain is an error with its file
 * and line. */
#define CONTEXT_WEIGHTS_RULE(w) \
	"[typo.ctx]\nkind = builtin\ncheck = context\ndict = " JIEBA_DICT "\nlm = " LM_MODEL "\n" \
	"lm-words = " LM_WORDS "\nstop = typo-drift-stop.tsv\nsimilar = typo-similar.tsv\n" \
	"t2s = typo-t2s.tsv\ns2t = typo-s2t.tsv\nweights = " w "\nmessage = m\nfix = $0\n" \
	"safety = unsafe\nbad = 还是炮單威力\ngood = 炮弹\n"
START_TEST(context_learned)
{
	if (!context_data())
		return;
	const char *far = "对方想跑的话，要全部消灭可就难了。", *slip = "我门明天去公园。";
	jh_findings fs = JH_FINDINGS_INIT;
	jh_ruleset *rs = typo_ruleset(CONTEXT_WEIGHTS_RULE(""));
	ck_assert_uint_eq(count(rs, far, &fs), 0);
	ck_assert_uint_eq(count(rs, slip, &fs), 1);
	jh_ruleset_free(rs);
	rs = typo_ruleset(CONTEXT_WEIGHTS_RULE("../../tests/data/typo-weights-eager.tsv"));
	ck_assert_uint_eq(count(rs, far, &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "向");
	ck_assert_uint_eq(count(rs, slip, &fs), 1);
	ck_assert_str_eq(fs.items[0].edits[0].replacement, "们");
	jh_ruleset_free(rs);
	rs = typo_ruleset(CONTEXT_WEIGHTS_RULE("../../tests/data/typo-weights-never.tsv"));
	ck_assert_uint_eq(count(rs, slip, &fs), 0);
	jh_ruleset_free(rs);
	jh_findings_clear(&fs);

	const char *bad[] = {"typo-weights-bad.tsv", "typo-weights-short.tsv"};
	const unsigned line[] = {2, 0};
	for (int k = 0; k < 2; k++) {
		test_diags ds = TEST_DIAGS_INIT;
		char ini[2048];
		snprintf(ini, sizeof ini, "[typo.ctx]\nkind = builtin\ncheck = context\ndict = " JIEBA_DICT
		         "\nstop = ../../rules/data/typo-drift-stop.tsv\n"
		         "similar = ../../rules/data/typo-similar.tsv\nt2s = ../../rules/data/typo-t2s.tsv\n"
		         "s2t = ../../rules/data/typo-s2t.tsv\nweights = %s\nmessage = m\nfix = $0\n"
		         "safety = unsafe\nbad = 还是炮单威力\ngood = 好\n", bad[k]);
		ck_assert_msg(test_ruleset_try(ini, &rs, &ds) == JH_OK, "%s", test_diags_text(&ds));
		jh_check_options o = {0};
		o.diag_fn = test_diag_collect;
		o.payload = &ds;
		ck_assert_int_eq(jh_check(rs, slip, strlen(slip), &o, &fs), JH_OK);
		const test_diag *d = test_diags_find(&ds, k ? "missing" : "not a line");
		ck_assert_msg(d != NULL, "%s", test_diags_text(&ds));
		ck_assert_ptr_nonnull(strstr(d->file, bad[k]));
		ck_assert_uint_eq(d->line, line[k]);
		ck_assert_uint_eq(fs.count, 0);
		jh_findings_clear(&fs);
		jh_ruleset_free(rs);
		test_diags_free(&ds);
	}
}
END_TEST

/* The sentence-level decision of typo.context: a rescoring callback with
 * a table of gains "with the neighbour written". */
typedef struct {
	double with[4]; /* option j's gain when an earlier near option is taken */
	int calls;
} jd_table;

static double jd_with(void *arg, int opt, const int *near, int n)
{
	jd_table *t = arg;
	t->calls++;
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(near[n - 1], opt);
	return t->with[opt];
}

START_TEST(context_joint_decision)
{
	int out[JD_MAX_CHG];
	jd_table t = {{0}, 0};
	/* one option: kept when it reaches its margin, not when it falls short */
	jd_opt one[] = {{3, 1, 7.5, 7}};
	ck_assert_int_eq(jd_decode(one, 1, 5, jd_with, &t, out), 1);
	ck_assert_int_eq(out[0], 0);
	one[0].gain = 6.5;
	ck_assert_int_eq(jd_decode(one, 1, 5, jd_with, &t, out), 0);
	ck_assert_int_eq(t.calls, 0);
	/* two slips side by side, each short alone (−2, −4), that help each
	 * other (the second gains 10 with the first written): both kept */
	jd_opt two[] = {{3, 1, 5, 7}, {5, 1, 3, 7}};
	t.with[1] = 10;
	ck_assert_int_eq(jd_decode(two, 2, 5, jd_with, &t, out), 2);
	ck_assert_int_eq(out[0], 0);
	ck_assert_int_eq(out[1], 1);
	ck_assert_int_gt(t.calls, 0);
	/* the same without the help: neither */
	t.with[1] = 3;
	ck_assert_int_eq(jd_decode(two, 2, 5, jd_with, &t, out), 0);
	/* a short option is never carried by a strong one out of reach */
	jd_opt far[] = {{3, 1, 5, 7}, {20, 1, 15, 7}};
	ck_assert_int_eq(jd_decode(far, 2, 5, jd_with, &t, out), 1);
	ck_assert_int_eq(out[0], 1);
	/* two candidates for one slip: the second falls once the first is
	 * written (−5), so only the better one is kept */
	jd_opt rival[] = {{3, 1, 11, 7}, {4, 1, 9, 7}};
	t.with[1] = -5;
	ck_assert_int_eq(jd_decode(rival, 2, 5, jd_with, &t, out), 1);
	ck_assert_int_eq(out[0], 0);
	/* a pair and a single on its second character never both */
	jd_opt overlap[] = {{3, 2, 20, 7}, {4, 1, 20, 7}};
	t.with[1] = 20;
	ck_assert_int_eq(jd_decode(overlap, 2, 5, jd_with, &t, out), 1);
}
END_TEST

Suite *typo_suite(void)
{
	Suite *s = suite_create("typo");
	TCase *tc = test_tcase("core", 60);
	tcase_add_test(tc, doubled_word);
	tcase_add_test(tc, doubled_skip_chars);
	tcase_add_test(tc, doubled_after_stammer);
	tcase_add_test(tc, name_drift);
	tcase_add_test(tc, name_drift_bad_params);
	tcase_add_test(tc, context_homophone);
	tcase_add_test(tc, context_without_dictionary);
	tcase_add_test(tc, lm_sunpinyin);
	tcase_add_test(tc, lm_seen_successors);
	tcase_add_test(tc, lm_tables_cached);
	tcase_add_test(tc, lm_corrupt);
	tcase_add_test(tc, context_trigram);
	tcase_add_test(tc, context_guards);
	tcase_add_test(tc, context_pairs_and_gates);
	tcase_add_test(tc, context_bad_tables);
	tcase_add_test(tc, context_learned);
	tcase_add_test(tc, context_joint_decision);
	suite_add_tcase(s, tc);
	return s;
}
