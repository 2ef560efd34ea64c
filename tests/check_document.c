/* check_document.c — the document stage: decoding and encoding back in every
 * supported encoding, the Markdown prose map, inline switches, globs, and
 * configuration discovery and merging (jh_config_*, jh_document_*). */
#include <check.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "document.h"
#include "tests.h"

/* ---- decoding ---- */

static char *convert(const char *to, const char *s, size_t n, size_t *out_len)
{
	iconv_t cd = iconv_open(to, "UTF-8");
	ck_assert_ptr_ne(cd, (iconv_t)-1);
	size_t cap = 4 * n + 8, left = cap;
	char *out = malloc(cap), *o = out, *in = (char *)s;
	ck_assert_uint_ne(iconv(cd, &in, &n, &o, &left), (size_t)-1);
	iconv_close(cd);
	*out_len = cap - left;
	return out;
}

/* Decoding gives the UTF-8 text back, every character boundary maps to its
 * offset in the file, and encoding the text again gives the file. */
static void round_trip(const char *enc, const char *bom, size_t bom_len, const char *want)
{
	static const char utf8[] = "第一章　他說：「好的，我們走吧。」\n十二點，雨還在下。\n";
	size_t n;
	char *body = convert(enc, utf8, strlen(utf8), &n);
	char *file = malloc(bom_len + n);
	memcpy(file, bom, bom_len);
	memcpy(file + bom_len, body, n);
	decoded d;
	char err[200];
	ck_assert_msg(decode_text(file, bom_len + n, want, &d, err, sizeof err) == 0, "%s: %s", enc, err);
	ck_assert_uint_eq(d.n_bad, 0);
	/* the BOM of a UTF-16 file is decoded as U+FEFF */
	size_t skip = d.len >= 3 && !memcmp(d.text, "\xEF\xBB\xBF", 3) ? 3 : 0;
	ck_assert_uint_eq(d.len - skip, strlen(utf8));
	ck_assert_msg(!memcmp(d.text + skip, utf8, strlen(utf8)), "%s: decoded text differs", enc);
	/* offsets: each prefix of the text, encoded, is as long as the map says */
	for (size_t pos = 0; pos <= strlen(utf8); pos += jh_utf8_valid_prefix(utf8 + pos, 1) ? 1 : 3) {
		size_t plen;
		char *prefix = convert(enc, utf8, pos, &plen);
		ck_assert_uint_eq(decoded_orig_offset(&d, skip + pos), bom_len + plen);
		free(prefix);
	}
	char *back;
	size_t back_len;
	ck_assert_int_eq(encode_text(&d, d.text, d.len, &back, &back_len, err, sizeof err), 0);
	ck_assert_uint_eq(back_len, bom_len + n);
	ck_assert(!memcmp(back, file, back_len));
	ck_assert_int_eq(decoded_lossless(&d), 1);
	free(back);
	decoded_free(&d);
	free(file);
	free(body);
}

START_TEST(decode_round_trips)
{
	round_trip("GB18030", "", 0, "gb18030");
	round_trip("GB18030", "", 0, "GBK"); /* GBK is read as GB18030: a superset */
	round_trip("BIG5", "", 0, "big5");
	round_trip("UTF-16LE", "\xFF\xFE", 2, NULL); /* found by the BOM */
	round_trip("UTF-16BE", "\xFE\xFF", 2, NULL);
	round_trip("UTF-16LE", "", 0, "UTF-16LE");
}
END_TEST

START_TEST(decode_odd_bytes_kept)
{
	/* UTF-16 with a lone last byte, and GB18030 with a byte that is no
	 * character: marked (0xFF in the text), counted, given back on encoding */
	static const char u16[] = "\xFF\xFE\x60\x4F\x7D\x59\x41";
	static const char gb[] = "\xC4\xE3\xBA\xC3\xFF\xC4\xE3";
	const char *files[] = {u16, gb}, *names[] = {NULL, "GB18030"};
	size_t lens[] = {sizeof u16 - 1, sizeof gb - 1};
	for (int k = 0; k < 2; k++) {
		decoded d;
		char err[200];
		ck_assert_int_eq(decode_text(files[k], lens[k], names[k], &d, err, sizeof err), 0);
		ck_assert_uint_eq(d.n_bad, 1);
		ck_assert_ptr_nonnull(memchr(d.text, 0xFF, d.len));
		char *back;
		size_t back_len;
		ck_assert_int_eq(encode_text(&d, d.text, d.len, &back, &back_len, err, sizeof err), 0);
		ck_assert_uint_eq(back_len, lens[k]);
		ck_assert(!memcmp(back, files[k], lens[k]));
		free(back);
		decoded_free(&d);
	}
	/* UTF-8 with a BOM is UTF-8, the text the bytes as they are */
	decoded d;
	char err[200];
	ck_assert_int_eq(decode_text("\xEF\xBB\xBF好", 6, NULL, &d, err, sizeof err), 0);
	ck_assert(d.utf8);
	ck_assert_uint_eq(d.len, 6);
	decoded_free(&d);
	ck_assert_int_eq(decode_text("x", 1, "no-such-codec", &d, err, sizeof err), JH_ERR_ENCODING);
	ck_assert_ptr_nonnull(strstr(err, "NO-SUCH-CODEC"));
}
END_TEST

/* Text that is not all UTF-8 is still read as UTF-8 when its valid
 * multibyte sequences outweigh its stray bytes, wherever they are: in a
 * long valid prefix (counted last, a block at a time, until they do), in
 * the valid stretches between the stray bytes, or both. */
static int reads_as_utf8(const char *t, size_t len)
{
	decoded d;
	char err[200];
	ck_assert_int_eq(decode_text(t, len, NULL, &d, err, sizeof err), 0);
	int utf8 = d.utf8;
	if (utf8)
		ck_assert(d.text == t && d.len == len); /* the bytes as they are, not a copy */
	decoded_free(&d);
	return utf8;
}

START_TEST(decode_mostly_utf8)
{
	enum { PREFIX = 70000, MAX = PREFIX + 4096 };
	char *t = malloc(MAX);
	ck_assert_ptr_nonnull(t);
	/* Chinese, its last character cut */
	size_t n = 0;
	while (n + 3 <= PREFIX) {
		memcpy(t + n, "中", 3);
		n += 3;
	}
	ck_assert(reads_as_utf8(t, n - 1));
	/* a stray Latin-1 byte every 997 bytes */
	for (size_t i = 500; i < n; i += 997)
		t[i] = (char)0xB7;
	ck_assert(reads_as_utf8(t, n));
	/* ASCII, then ten stray bytes between nine two-byte characters: one
	 * short; two more at the very end of the prefix (past its first block)
	 * tip the balance */
	memset(t, 'a', PREFIX);
	n = PREFIX;
	for (int k = 0; k < 10; k++) {
		memcpy(t + n, k < 9 ? "\xFF" "ab\xC3\xA9" : "\xFF", k < 9 ? 5 : 1);
		n += k < 9 ? 5 : 1;
	}
	ck_assert(!reads_as_utf8(t, n));
	memcpy(t + PREFIX - 4, "\xC3\xA9\xC3\xA9", 4);
	ck_assert(reads_as_utf8(t, n));
	/* no valid prefix: stray bytes, each before a stretch long enough to
	 * be counted a vector at a time, whose two-byte characters come last */
	n = 0;
	for (int k = 0; k < 10; k++) {
		memcpy(t + n, "\xFF" "aaaaaaaaaaaaaaaaaaaa\xC3\xA9\xC3\xA9", 25);
		n += 25;
	}
	ck_assert(reads_as_utf8(t, n));
	free(t);
}
END_TEST

/* ---- documents: Markdown, switches ---- */

static const char comma_rules[] =
	"[punct.tcomma]\nkind = regex\nmessage = comma\npattern = (?<=\\p{Han}),(?=\\p{Han})\n"
	"fix = ，\nsafety = safe\nbad = 好,的 -> 好，的\ngood = a,b\n"
	"[typo.ttishi]\nkind = regex\nmessage = 体,\npattern = 体,\nfix = 体，\nsafety = safe\n"
	"bad = 粗体,的 -> 粗体，的\ngood = 体。\n";

static jh_settings settings_of(const jh_ruleset *rs, jh_doc_type type)
{
	jh_settings s = {JH_SETTINGS_VERSION, rs};
	s.fail_on = JH_WARNING;
	s.type = type;
	return s;
}

static char *fixed_of(const jh_settings *s, const char *name, const char *text, test_diags *ds)
{
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = s;
	o.name = name;
	o.diag_fn = test_diag_collect;
	o.payload = ds;
	jh_document *d;
	ck_assert_int_eq(jh_document_fix(text, strlen(text), &o, &d), JH_OK);
	size_t n;
	const char *f = jh_document_fixed(d, &n, NULL);
	ck_assert_ptr_nonnull(f);
	char *copy = strndup(f, n);
	jh_document_free(d);
	return copy;
}

START_TEST(markdown_mapping)
{
	jh_ruleset *rs = test_ruleset(comma_rules);
	jh_settings s = settings_of(rs, JH_DOC_AUTO);
	test_diags ds = TEST_DIAGS_INIT;
	/* markup between the characters: the comma is still seen, and fixed in
	 * place; code and link targets are never touched */
	char *f = fixed_of(&s, "a.md", "好,的 **粗**,体 `好,的` [好,的](http://x/a,b)\n", &ds);
	ck_assert_str_eq(f, "好，的 **粗**，体 `好,的` [好，的](http://x/a,b)\n");
	free(f);
	/* an edit whose span holds markup in the document is not applied
	 * (体, is 体**, in the file) but is still reported */
	const char *md = "**粗体**,的\n";
	f = fixed_of(&s, "a.md", md, &ds);
	ck_assert_str_eq(f, "**粗体**，的\n"); /* the comma rule's point edit, not 体, → 体， */
	free(f);
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = &s;
	o.name = "a.md";
	jh_document *d;
	ck_assert_int_eq(jh_document_check(md, strlen(md), &o, &d), JH_OK);
	const jh_findings *fs = jh_document_findings(d);
	int tishi = 0;
	for (size_t i = 0; i < fs->count; i++)
		if (!strcmp(fs->items[i].rule_id, "typo.ttishi")) {
			tishi = 1;
			ck_assert_int_eq(fs->items[i].has_fix, 0);
			ck_assert_uint_eq(fs->items[i].byte_start, 5); /* 体 in the file */
		}
	ck_assert(tishi);
	ck_assert(jh_document_is_markdown(d));
	jh_document_free(d);
	/* the same text as plain text: a `code` span on one line is kept
	 * verbatim there too, the prose after it is fixed */
	f = fixed_of(&s, "a.txt", "`好,的`是代码,这是正文\n", &ds);
	ck_assert_str_eq(f, "`好,的`是代码，这是正文\n");
	free(f);
	/* a backtick pair across lines is no span: both lines are prose */
	f = fixed_of(&s, "a.txt", "`好,的\n好,的`\n", &ds);
	ck_assert_str_eq(f, "`好，的\n好，的`\n");
	free(f);
	ck_assert_uint_eq(ds.count, 0);
	test_diags_free(&ds);
	jh_ruleset_free(rs);
}
END_TEST

/* A space between Han and Latin letters, inserted at a point. */
static const char space_rules[] =
	"[layout.tspace]\nkind = regex\nmessage = space\n"
	"pattern = (?<=\\p{Han})(?=[A-Za-z])|(?<=[A-Za-z])(?=\\p{Han})\n"
	"fix = $0\\s\nsafety = safe\nbad = 好A -> 好 A\ngood = 好 A\n";

/* The same, as an edit of the letter itself (C → "C "). */
static const char space_rules2[] =
	"[layout.tspace2]\nkind = regex\nmessage = space\n"
	"pattern = [A-Za-z](?=\\p{Han})\nfix = $0\\s\nsafety = safe\nbad = A好 -> A 好\ngood = A 好\n";

START_TEST(markdown_space_outside_markup)
{
	/* the text, and what each rule set makes of it */
	static const char *const cases[][3] = {
		/* never inside an element before its closing tag or after its
		 * opening tag: outside it */
		{"快捷键<kbd>Ctrl</kbd>+<kbd>C</kbd>复制\n", "快捷键 <kbd>Ctrl</kbd>+<kbd>C</kbd> 复制\n",
		 "快捷键<kbd>Ctrl</kbd>+<kbd>C</kbd> 复制\n"},
		{"按<kbd>Ctrl</kbd>键\n", "按 <kbd>Ctrl</kbd> 键\n", "按<kbd>Ctrl</kbd> 键\n"},
		{"<b>English</b>粗体\n", "<b>English</b> 粗体\n", "<b>English</b> 粗体\n"},
		{"粗体<b>English</b>\n", "粗体 <b>English</b>\n", "粗体<b>English</b>\n"},
		{"<b>A</b><i>中</i>\n", "<b>A</b> <i>中</i>\n", "<b>A</b> <i>中</i>\n"},
		/* Markdown spans: a space inside a closing ** ends no emphasis */
		{"这是**粗体**English\n", "这是**粗体** English\n", "这是**粗体**English\n"},
		{"English**粗体**好\n", "English **粗体**好\n", "English **粗体**好\n"},
		{"这是~~删除~~English\n", "这是~~删除~~ English\n", "这是~~删除~~English\n"},
		{"见[文档](http://x/a)English\n", "见[文档](http://x/a) English\n",
		 "见[文档](http://x/a)English\n"},
		/* must not change: already spaced, or no Han beside a letter */
		{"按 <kbd>Ctrl</kbd> 键\n", "按 <kbd>Ctrl</kbd> 键\n", "按 <kbd>Ctrl</kbd> 键\n"},
		{"<kbd>Ctrl</kbd>+<kbd>C</kbd>\n", "<kbd>Ctrl</kbd>+<kbd>C</kbd>\n",
		 "<kbd>Ctrl</kbd>+<kbd>C</kbd>\n"},
	};
	const char *const sets[] = {space_rules, space_rules2};
	for (size_t k = 0; k < 2; k++) {
		jh_ruleset *rs = test_ruleset(sets[k]);
		jh_settings s = settings_of(rs, JH_DOC_AUTO);
		test_diags ds = TEST_DIAGS_INIT;
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
			char *f = fixed_of(&s, "a.md", cases[i][0], &ds);
			ck_assert_msg(!strcmp(f, cases[i][1 + k]), "rules %zu: %s gave %s, want %s", k,
			              cases[i][0], f, cases[i][1 + k]);
			free(f);
		}
		ck_assert_uint_eq(ds.count, 0);
		test_diags_free(&ds);
		jh_ruleset_free(rs);
	}
}
END_TEST

START_TEST(inline_switches)
{
	jh_ruleset *rs = test_ruleset(comma_rules);
	jh_settings s = settings_of(rs, JH_DOC_AUTO);
	test_diags ds = TEST_DIAGS_INIT;
	char *f = fixed_of(&s, "t.txt",
	                   "好,的\n<!-- jinghua-disable punct.tcomma -->\n好,的\n<!-- jinghua-enable -->\n"
	                   "好,的\n<!-- jinghua-disable-next-line -->\n好,的\n好,的 <!-- jinghua-disable-line punct -->\n"
	                   "好,的\n",
	                   &ds);
	ck_assert_str_eq(f, "好，的\n<!-- jinghua-disable punct.tcomma -->\n好,的\n<!-- jinghua-enable -->\n"
	                    "好，的\n<!-- jinghua-disable-next-line -->\n好,的\n好,的 <!-- jinghua-disable-line punct -->\n"
	                    "好，的\n");
	free(f);
	ck_assert_uint_eq(ds.count, 0);
	/* an unknown rule or switch is a warning with its line; a switch in
	 * Markdown code is text, not a switch */
	f = fixed_of(&s, "t.md", "好,的\n\n<!-- jinghua-disable nosuch -->\n\n<!-- jinghua-frobnicate -->\n\n"
	                         "`<!-- jinghua-disable -->` 好,的\n", &ds);
	ck_assert_str_eq(f, "好，的\n\n<!-- jinghua-disable nosuch -->\n\n<!-- jinghua-frobnicate -->\n\n"
	                    "`<!-- jinghua-disable -->` 好，的\n");
	free(f);
	const test_diag *w = test_diags_find(&ds, "no rule or family 'nosuch'");
	ck_assert_ptr_nonnull(w);
	ck_assert_uint_eq(w->line, 3);
	ck_assert_ptr_nonnull(test_diags_find(&ds, "unknown switch 'jinghua-frobnicate'"));
	test_diags_free(&ds);
	jh_ruleset_free(rs);
}
END_TEST

/* ---- globs and configuration ---- */

START_TEST(globs)
{
	ck_assert(glob_match("*.md", "docs/a.md"));       /* no '/': the base name */
	ck_assert(!glob_match("*.md", "docs/a.txt"));
	ck_assert(glob_match("docs/*.md", "docs/a.md"));
	ck_assert(!glob_match("docs/*.md", "docs/sub/a.md")); /* * stays in a folder */
	ck_assert(glob_match("docs/**/a.md", "docs/sub/deep/a.md"));
	ck_assert(glob_match("docs/**/a.md", "docs/a.md"));
	ck_assert(glob_match("[ab]?.txt", "b1.txt"));
	ck_assert(!glob_match("[!ab]?.txt", "b1.txt"));
	ck_assert(glob_match("ch[0-9][0-9].txt", "vol/ch07.txt"));
	ck_assert(!glob_match("ch[0-9][0-9].txt", "vol/ch7.txt"));
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(config_discovery_and_merging)
{
	char dir[] = "/tmp/jh-config-test.XXXXXX", p[600];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/rules", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/rules/t.rules", dir);
	write_file(p, comma_rules);
	snprintf(p, sizeof p, "%s/book", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/book/notes", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/.jinghua.ini", dir);
	write_file(p, "[jinghua]\nwords = 张三\nfail-on = error\n");
	snprintf(p, sizeof p, "%s/book/.jinghua.ini", dir);
	write_file(p, "[jinghua]\nextend = ../.jinghua.ini\nignore = typo.ttishi\n"
	              "[path:notes/*.txt]\nignore = punct.tcomma\nwords = 李四\n");
	char rules[600];
	snprintf(rules, sizeof rules, "%s/rules", dir);
	const char *dirs[] = {rules};
	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.no_default_rules = 1;
	co.rule_dirs = dirs;
	co.n_rule_dirs = 1;
	test_diags ds = TEST_DIAGS_INIT;
	co.diag_fn = test_diag_collect;
	co.payload = &ds;
	jh_config *cfg;
	ck_assert_int_eq(jh_config_open(&co, &cfg), JH_OK);
	const jh_settings *top, *book, *note;
	snprintf(p, sizeof p, "%s/a.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &top), JH_OK);
	snprintf(p, sizeof p, "%s/book/ch1.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &book), JH_OK);
	snprintf(p, sizeof p, "%s/book/notes/n.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &note), JH_OK);
	ck_assert_msg(ds.count == 0, "%s", test_diags_text(&ds));
	long comma = jh_ruleset_find(top->ruleset, "punct.tcomma");
	long tishi = jh_ruleset_find(top->ruleset, "typo.ttishi");
	ck_assert(comma >= 0 && tishi >= 0);
	/* the nearest file wins; extend brings its parent's keys */
	ck_assert(top->enabled[comma] && top->enabled[tishi]);
	ck_assert(book->enabled[comma] && !book->enabled[tishi]);
	ck_assert(!note->enabled[comma] && !note->enabled[tishi]);
	ck_assert_int_eq(top->fail_on, JH_ERROR);
	ck_assert_int_eq(book->fail_on, JH_ERROR);
	ck_assert_uint_eq(top->n_accept, 1);
	ck_assert_uint_eq(note->n_accept, 2);
	ck_assert_str_eq(note->accept[1], "李四");
	/* one rule set for the three: the same folders and parameters */
	ck_assert_ptr_eq(top->ruleset, note->ruleset);
	jh_config_free(cfg);
	/* the options on top; a broken config is an error with its line */
	co.select = "typo.ttishi";
	ck_assert_int_eq(jh_config_open(&co, &cfg), JH_OK);
	snprintf(p, sizeof p, "%s/book/notes/n.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &note), JH_OK);
	ck_assert(!note->enabled[comma] && note->enabled[tishi]);
	jh_config_free(cfg);
	snprintf(p, sizeof p, "%s/book/.jinghua.ini", dir);
	write_file(p, "[jinghua]\nignore = typo.ttishi\nbogus = 1\n");
	co.select = NULL;
	ck_assert_int_eq(jh_config_open(&co, &cfg), JH_OK);
	snprintf(p, sizeof p, "%s/book/ch1.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &book), JH_ERR_CONFIG);
	const test_diag *e = test_diags_find(&ds, "unknown key 'bogus'");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->line, 3);
	jh_config_free(cfg);
	/* jh_config_stale: the files read, and those looked for in vain */
	snprintf(p, sizeof p, "%s/book/.jinghua.ini", dir);
	write_file(p, "[jinghua]\nextend = ../.jinghua.ini\n");
	ck_assert_int_eq(jh_config_open(&co, &cfg), JH_OK);
	ck_assert_int_eq(jh_config_stale(cfg), 0);
	snprintf(p, sizeof p, "%s/book/notes/n.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &note), JH_OK);
	ck_assert_int_eq(jh_config_stale(cfg), 0);
	snprintf(p, sizeof p, "%s/book/notes/.jinghua.ini", dir); /* nearer: a change */
	write_file(p, "[jinghua]\n");
	ck_assert_int_eq(jh_config_stale(cfg), 1);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(jh_config_stale(cfg), 0); /* as it was read */
	snprintf(p, sizeof p, "%s/.jinghua.ini", dir); /* the extended one, longer */
	write_file(p, "[jinghua]\nwords = 张三, 王五\nfail-on = error\n");
	ck_assert_int_eq(jh_config_stale(cfg), 1);
	jh_config_free(cfg);
	ck_assert_int_eq(jh_config_open(&co, &cfg), JH_OK);
	snprintf(p, sizeof p, "%s/book/notes/n.txt", dir);
	ck_assert_int_eq(jh_config_settings(cfg, p, &note), JH_OK);
	snprintf(p, sizeof p, "%s/rules/u.rules", dir); /* a rule file added */
	write_file(p, "");
	ck_assert_int_eq(jh_config_stale(cfg), 1);
	jh_config_free(cfg);
	ck_assert_int_eq(jh_config_stale(NULL), 0);
	test_diags_free(&ds);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(utf16_columns)
{
	const char *t = "a好\n😀b";
	ck_assert_uint_eq(jh_utf16_column(t, strlen(t), 0), 1);
	ck_assert_uint_eq(jh_utf16_column(t, strlen(t), 1), 2);
	ck_assert_uint_eq(jh_utf16_column(t, strlen(t), 4), 3);
	ck_assert_uint_eq(jh_utf16_column(t, strlen(t), 5), 1);  /* the next line */
	ck_assert_uint_eq(jh_utf16_column(t, strlen(t), 9), 3);  /* after a surrogate pair */
}
END_TEST

static int cancel_now(void *payload)
{
	(*(int *)payload)++;
	return 1;
}

START_TEST(cancel_check)
{
	jh_ruleset *rs = test_ruleset(comma_rules);
	jh_findings fs = JH_FINDINGS_INIT;
	int asked = 0;
	jh_check_options o = JH_CHECK_OPTIONS_INIT;
	o.cancel = cancel_now;
	o.cancel_payload = &asked;
	ck_assert_int_eq(jh_check(rs, "好,的", strlen("好,的"), &o, &fs), JH_ERR_CANCELLED);
	ck_assert_int_ge(asked, 1);
	ck_assert_uint_eq(fs.count, 0);
	jh_findings_clear(&fs);
	jh_ruleset_free(rs);
}
END_TEST

Suite *document_suite(void)
{
	Suite *s = suite_create("document");
	TCase *tc = test_tcase("document", 4);
	tcase_add_test(tc, decode_round_trips);
	tcase_add_test(tc, decode_odd_bytes_kept);
	tcase_add_test(tc, decode_mostly_utf8);
	tcase_add_test(tc, markdown_mapping);
	tcase_add_test(tc, markdown_space_outside_markup);
	tcase_add_test(tc, inline_switches);
	tcase_add_test(tc, globs);
	tcase_add_test(tc, config_discovery_and_merging);
	tcase_add_test(tc, utf16_columns);
	tcase_add_test(tc, cancel_check);
	suite_add_tcase(s, tc);
	return s;
}
