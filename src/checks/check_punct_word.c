/* check_punct_word.c — builtin checks of the punct family that look at
 * the word around a separator: a half-width full stop between two Han
 * characters (`period`: a separator pushed into a masked word, or a full
 * stop typed half-width) and one space or dot inside a word that filters
 * catch (`in-word`).  Their table entries are in check_punct.c's
 * jh_checks_punct[] (punct.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "punct.h"
#include "utf8.h"
#include "wordmap.h"

/* ---- a half-width full stop between two Han characters ---- */

/* 毒.品 or 验证.参见: the first is a separator pushed into a word to get
 * it past a filter, the second a full stop typed half-width.  No pattern
 * tells them apart; the words do: a separator sits inside a word that
 * filters catch (毒品, of `masked`), a full stop between words (证参 is
 * none of `words`).  A dot inside an ordinary word (忽略.有效: 略有) may
 * be either.  `mode = split` reports the dots inside a masked word
 * (censor.separator.period), `mode = stop` the others
 * (punct.halfwidth-period; unsafe inside an ordinary word on a line
 * with no other half-width mark), so each dot has one rule. */
typedef struct {
	int split;
	const jh_rule *rule;
	const char *words_file, *masked_file;
	unsigned words_line, masked_line;
	/* The ordinary words are the word model that mask suggestions, lost
	 * characters and name drift read (jh_wm_get_shared): one copy per
	 * process, mapped from the cache folder, where reading the 80,000
	 * words into a set of this rule's own at the first dot cost more
	 * instructions than checking 1 MB of prose. */
	const jh_wordmap *words;
	jh_strset masked;
	jh_lazy once;
} period_cfg;

const char *const jh_punct_period_params[] = {"mode", "words", "masked", NULL};

void jh_punct_period_free(void *p)
{
	period_cfg *c = p;
	if (!c)
		return;
	if (c->words)
		jh_wm_release_shared(c->words);
	jh_strset_free(&c->masked);
	jh_lazy_destroy(&c->once);
	free(c);
}

/* The word lists of a period or in-word rule: masked always, the
 * ordinary words only where asked (in-word needs only to know whether
 * the pieces make a masked word; the 80,000 ordinary words, read at the
 * first separator, tell the period's full stop from a typo). */
static int sep_cfg_new(const jh_rule *r, int split, int need_words, period_cfg **out,
                       jh_diag_fn diag_fn, void *payload)
{
	period_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	c->split = split;
	c->rule = r;
	c->words_line = r->line;
	c->masked_line = r->line;
	if (need_words)
		c->words_file = jh_rule_param(r, "words", &c->words_line);
	c->masked_file = jh_rule_param(r, "masked", &c->masked_line);
	jh_lazy_init(&c->once);
	int rc = JH_OK;
	if ((need_words && !c->words_file) || !c->masked_file) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          need_words ? "the period check needs words and masked (word lists in data/)"
		                     : "the in-word check needs masked (a word list in data/)");
		rc = JH_ERR_RULES;
	} else {
		if (need_words)
			rc = jh_data_readable(r, c->words_file, c->words_line, diag_fn, payload);
		if (rc == JH_OK)
			rc = jh_data_readable(r, c->masked_file, c->masked_line, diag_fn, payload);
	}
	if (rc) {
		jh_punct_period_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

int jh_punct_period_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	unsigned line = r->line;
	const char *mode = jh_rule_param(r, "mode", &line);
	if (!mode || (strcmp(mode, "split") && strcmp(mode, "stop"))) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
		          "mode must be split or stop, not '%s'", mode ? mode : "");
		return JH_ERR_RULES;
	}
	return sep_cfg_new(r, !strcmp(mode, "split"), 1, (period_cfg **)out, diag_fn, payload);
}

const char *const jh_punct_inword_params[] = {"masked", NULL};

int jh_punct_inword_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	return sep_cfg_new(r, 1, 0, (period_cfg **)out, diag_fn, payload);
}

typedef struct {
	period_cfg *cfg;
	jh_diag_fn diag_fn;
	void *payload;
} period_arg;

static int period_load(void *arg)
{
	period_arg *a = arg;
	const jh_rule *r = a->cfg->rule;
	int rc = !a->cfg->words_file ? JH_OK
	                             : jh_wm_get_shared(r, a->cfg->words_file, a->cfg->words_line, 0,
	                                                &a->cfg->words, a->diag_fn, a->payload);
	if (rc == JH_OK)
		rc = jh_load_words(&a->cfg->masked, r->data_dir, a->cfg->masked_file, r,
		                   a->cfg->masked_line, a->diag_fn, a->payload);
	return rc;
}

static int is_han_at(const char *text, size_t len, size_t pos, size_t *clen)
{
	int32_t cp = -1;
	if (pos >= len)
		return 0;
	*clen = jh_utf8_decode((const unsigned char *)text + pos, len - pos, &cp);
	return cp >= 0 && (jh_class_of(cp) & JH_C_HAN);
}

/* The start of the character that ends at pos (pos itself at the start). */
static size_t char_start_before(const char *text, size_t pos)
{
	size_t p = pos;
	while (p > 0 && ((unsigned char)text[--p] & 0xC0) == 0x80)
		;
	return p;
}

/* The two kinds of list a separator is looked up in: the masked words
 * (a set of the rule's own) or the shared word model. */
typedef struct {
	const jh_strset *set;
	const jh_wordmap *wm;
} word_list;

static int list_has(const word_list *l, const char *w, size_t n)
{
	return l->wm ? jh_wm_has(l->wm, w, n) : jh_strset_has(l->set, w, n);
}

/* Does a word of the list span the separator at [dot, after): the two
 * characters beside it, or three with one more on either side? */
static int sep_in_word(const word_list *set, const char *text, size_t len, size_t a, size_t dot,
                       size_t after)
{
	char w[32];
	size_t n1 = dot - a, n2, n3 = 0, n0 = 0;
	if (!is_han_at(text, len, after, &n2) || n1 + n2 > 16)
		return 0;
	memcpy(w, text + a, n1);
	memcpy(w + n1, text + after, n2);
	if (list_has(set, w, n1 + n2))
		return 1;
	if (is_han_at(text, len, after + n2, &n3) && n3 <= 8) {
		memcpy(w + n1 + n2, text + after + n2, n3);
		if (list_has(set, w, n1 + n2 + n3))
			return 1;
	}
	size_t b = char_start_before(text, a);
	if (b < a && is_han_at(text, len, b, &n0) && b + n0 == a && n0 + n1 + n2 <= 24) {
		memcpy(w, text + b, n0 + n1);
		memcpy(w + n0 + n1, text + after, n2);
		if (list_has(set, w, n0 + n1 + n2))
			return 1;
	}
	return 0;
}

static int period_in_word(const word_list *set, const char *text, size_t len, size_t a, size_t dot)
{
	return sep_in_word(set, text, len, a, dot, dot + 1);
}

/* 一.概述, 二十.附录: a list number at a line's start. */
static int period_list_number(const char *text, size_t a)
{
	size_t p = a;
	for (int k = 0; k < 3; k++) {
		if (p == 0 || text[p - 1] == '\n')
			return k > 0;
		size_t q = char_start_before(text, p);
		int32_t cp = -1;
		jh_utf8_decode((const unsigned char *)text + q, p - q, &cp);
		if (!(cp == 0x4E00 || cp == 0x4E8C || cp == 0x4E09 || cp == 0x56DB ||
		                        cp == 0x4E94 || cp == 0x516D || cp == 0x4E03 || cp == 0x516B ||
		                        cp == 0x4E5D || cp == 0x5341))
			return 0;
		p = q;
	}
	return 0;
}

/* Does the line around pos hold a half-width mark used as Chinese
 * punctuation (a , ? ! ; : after Han, a . after Han and not before it)?
 * Then its writer types half-width marks, and a . between Han characters
 * is a full stop even where they make a word (安静下来.年轻人: 来年). */
static int period_halfwidth_line(const char *text, size_t len, size_t pos)
{
	size_t a = pos, b = pos;
	while (a > 0 && text[a - 1] != '\n')
		a--;
	while (b < len && text[b] != '\n')
		b++;
	for (size_t p = a; p < b; p++) {
		char ch = text[p];
		if (p == pos || !strchr(",?!;:.", ch) || p == a)
			continue;
		size_t q = char_start_before(text, p), n;
		if (!is_han_at(text, len, q, &n))
			continue;
		if (ch != '.' || !is_han_at(text, len, p + 1, &n))
			return 1;
	}
	return 0;
}

void jh_punct_period_step(jh_brun *run, const jh_char *c)
{
	if (c->cp != '.' || c->prev_cp < 0 || !(jh_class_of(c->prev_cp) & JH_C_HAN))
		return;
	size_t n2;
	if (!is_han_at(run->text, run->len, c->pos + 1, &n2) || period_list_number(run->text, c->pos))
		return;
	period_cfg *cfg = (period_cfg *)run->cfg;
	/* the list is read at the first such dot; the rule set is shared
	 * read-only, its lazy list written once under jh_lazy's lock */
	period_arg arg = {cfg, run->diag_fn, run->payload};
	if (jh_lazy_get(&cfg->once, period_load, &arg) != JH_OK)
		return;
	word_list masked_list = {&cfg->masked, NULL}, words_list = {NULL, cfg->words};
	int masked = period_in_word(&masked_list, run->text, run->len, c->prev_pos, c->pos);
	if (masked != cfg->split)
		return;
	int word = !masked && period_in_word(&words_list, run->text, run->len, c->prev_pos, c->pos) &&
	           !period_halfwidth_line(run->text, run->len, c->pos);
	jh_brun_emit_safety(run, c->pos, c->pos + 1, NULL, 0, NULL,
	                    word ? JH_UNSAFE : run->rule->safety);
}

/* ---- one space or dot pushed into a word that filters catch ---- */

/* 屠 杀, 在城里邪•教组织: a single separator inside a run of Han
 * characters.  censor.separator.dot and .space look for one-character
 * segments (子·弹·上·膛), which a lone separator in running text is not,
 * so only the word tells: the characters beside it make a word of
 * `masked`, as for the period above. */
static const int32_t inword_marks[] = {' ', 0xA0, 0xB7, 0x2022, 0x2027, 0x2219, 0x30FB};

static int inword_mark(int32_t cp)
{
	for (size_t i = 0; i < sizeof inword_marks / sizeof *inword_marks; i++)
		if (cp == inword_marks[i])
			return 1;
	return 0;
}

/* Is the line around pos spaced between Han characters elsewhere too
 * (word by word, 通用 公共 许可证)?  Then its spaces are layout. */
static int inword_spaced_line(const char *text, size_t len, size_t pos)
{
	size_t a = pos, b = pos, n;
	while (a > 0 && text[a - 1] != '\n')
		a--;
	while (b < len && text[b] != '\n')
		b++;
	for (size_t p = a + 1; p + 1 < b; p++) {
		if (p == pos || (text[p] != ' ' && text[p] != '\t'))
			continue;
		if (is_han_at(text, len, char_start_before(text, p), &n) && is_han_at(text, len, p + 1, &n))
			return 1;
	}
	return 0;
}

/* Inside 《》 on its line?  A title's dot parts its pieces (《渡江云·山阴
 *久客》: a tune name and a title), whatever word they make. */
static int inword_in_title(const char *text, size_t pos)
{
	for (size_t p = pos; p >= 3 && text[p - 1] != '\n'; p--) {
		if (!memcmp(text + p - 3, "\xE3\x80\x8B", 3)) /* 》 */
			return 0;
		if (!memcmp(text + p - 3, "\xE3\x80\x8A", 3)) /* 《 */
			return 1;
	}
	return 0;
}

static int inword_indent(const char *text, size_t p, size_t *start)
{
	if (p > 0 && (text[p - 1] == ' ' || text[p - 1] == '\t')) {
		*start = p - 1;
		return 1;
	}
	if (p >= 3 && !memcmp(text + p - 3, "\xE3\x80\x80", 3)) { /* U+3000 */
		*start = p - 3;
		return 1;
	}
	return 0;
}

/* Is the dot at pos on a line that is nothing but three or four
 * one-character pieces and their dots, after indentation (the shape
 * censor.separator.dot leaves alone as a heading, 狗·猫·鼠; its
 * indentation reaches the line's start, or is 8 characters or more, a
 * centred title)?  Then at and w get the pieces' offsets and lengths. */
static int inword_heading(const char *text, size_t len, size_t pos, size_t at[4], size_t w[4],
                          int *n)
{
	size_t first = char_start_before(text, pos), q, cl;
	int32_t cp = -1;
	/* back over earlier pieces: a dot, then one Han character */
	for (int k = 0; k < 3 && first > 0; k++) {
		q = char_start_before(text, first);
		jh_utf8_decode((const unsigned char *)text + q, first - q, &cp);
		if (!inword_mark(cp) || cp == ' ' || cp == 0xA0 || q == 0)
			break;
		size_t h = char_start_before(text, q);
		if (!is_han_at(text, len, h, &cl) || h + cl != q)
			return 0;
		first = h;
	}
	unsigned ind = 0;
	for (q = first; inword_indent(text, q, &q);)
		ind++;
	if (q > 0 && text[q - 1] != '\n' && ind < 8)
		return 0;
	size_t p = first;
	for (*n = 0;;) {
		if (*n == 4 || !is_han_at(text, len, p, &cl))
			return 0;
		at[*n] = p;
		w[(*n)++] = cl;
		p += cl;
		if (p >= len)
			break;
		cl = jh_utf8_decode((const unsigned char *)text + p, len - p, &cp);
		if (!inword_mark(cp) || cp == ' ' || cp == 0xA0)
			break;
		p += cl;
	}
	while (p < len && (text[p] == ' ' || text[p] == '\t' ||
	                   (len - p >= 3 && !memcmp(text + p, "\xE3\x80\x80", 3))))
		p += text[p] == ' ' || text[p] == '\t' ? 1 : 3;
	if (p < len && text[p] == '\r')
		p++;
	return *n >= 3 && (p >= len || text[p] == '\n');
}

/* Do two or three neighbouring pieces of such a line make a masked word
 * (子·弹·膛: 子弹)?  Then the line is a word pulled apart, not a heading
 * of three words (狗·猫·鼠). */
static int inword_heading_masked(const jh_strset *set, const char *text, const size_t at[4],
                                 const size_t w[4], int n)
{
	for (int i = 0; i + 1 < n; i++)
		for (int m = 2; m <= 3 && i + m <= n; m++) {
			char buf[16];
			size_t bl = 0;
			for (int j = i; j < i + m; j++) {
				memcpy(buf + bl, text + at[j], w[j]);
				bl += w[j];
			}
			if (jh_strset_has(set, buf, bl))
				return 1;
		}
	return 0;
}

/* Is the bar at pos (丨 or ｜) on a line that is nothing but two pieces
 * of 2-8 Han characters (斗破苍穹丨天蚕土豆), or such a line with up to
 * three more short pieces after spaces (长夜将明丨北山 著), the shape
 * censor.separator leaves alone as a title and its author? */
/* The Han characters in a row that end at pos, walked back at most max
 * of them (a long line, a 16 MB record, costs a few steps a bar): their
 * number, or -1 for more than max or a 丨 among them (a chain of bars is
 * censor.separator's); *start is where the walk stopped. */
static int han_piece_before(const char *text, size_t len, size_t pos, int max, size_t *start)
{
	size_t p = pos, cl;
	int n = 0;
	while (p > 0 && text[p - 1] != '\n') {
		size_t q = char_start_before(text, p);
		if (!is_han_at(text, len, q, &cl) || q + cl != p)
			break;
		int32_t cp;
		jh_utf8_decode((const unsigned char *)text + q, cl, &cp);
		if (cp == 0x4E28 || ++n > max)
			return -1;
		p = q;
	}
	*start = p;
	return n;
}

static int inword_bar_line(const char *text, size_t len, size_t pos, size_t bar_len)
{
	size_t p, cl;
	int32_t cp = -1;
	int n = han_piece_before(text, len, pos, 8, &p);
	if (n < 2 || (p > 0 && text[p - 1] != '\n')) /* the piece is the line's start */
		return 0;
	/* the first piece after the bar has 2-8 characters, up to three more
	 * (北山 著) 1-8 each, after 1-3 spaces, tabs or ideographic spaces */
	p = pos + bar_len;
	for (int piece = 0; piece < 4; piece++) {
		if (piece > 0) {
			size_t q = p;
			int sp = 0;
			while (q < len && sp < 3) {
				if (text[q] == ' ' || text[q] == '\t')
					q++;
				else if (q + 3 <= len && (unsigned char)text[q] == 0xE3 &&
					 (unsigned char)text[q + 1] == 0x80 && (unsigned char)text[q + 2] == 0x80)
					q += 3; /* U+3000 */
				else
					break;
				sp++;
			}
			if (sp == 0 || q >= len || !is_han_at(text, len, q, &cl))
				break;
			p = q;
		}
		n = 0;
		for (; p < len && is_han_at(text, len, p, &cl); p += cl) {
			jh_utf8_decode((const unsigned char *)text + p, cl, &cp);
			if (++n > 8 || cp == 0x4E28)
				return 0;
		}
		if (n < (piece == 0 ? 2 : 1))
			return 0;
	}
	while (p < len && (text[p] == ' ' || text[p] == '\t' || text[p] == '\r'))
		p++;
	return p >= len || text[p] == '\n';
}

/* Is the bar at pos (丨 or ｜) a column or title separator after a
 * short prefix: a piece of 2-4 Han characters that starts the line or
 * follows ：, :, 【, [, a space, tab or U+3000 (深度丨中国新能源汽车,
 * 萌萌：分享：专访｜王小明), with two more Han characters or ASCII letters
 * or digits after the bar?  censor.separator leaves that shape alone; a
 * dodge in it (他把匕丨首藏在靴子里) is decided here by the word. */
static int inword_bar_prefix(const char *text, size_t len, size_t pos, size_t bar_len)
{
	size_t p, cl;
	int32_t cp = -1;
	if (han_piece_before(text, len, pos, 4, &p) < 2)
		return 0;
	if (p > 0 && text[p - 1] != '\n') {
		size_t q = char_start_before(text, p);
		jh_utf8_decode((const unsigned char *)text + q, p - q, &cp);
		if (cp != 0xFF1A && cp != ':' && cp != 0x3010 && cp != '[' && cp != ' ' && cp != '\t' &&
		    cp != 0x3000)
			return 0;
	}
	p = pos + bar_len;
	for (int i = 0; i < 2; i++) {
		if (p >= len)
			return 0;
		if (is_han_at(text, len, p, &cl)) {
			jh_utf8_decode((const unsigned char *)text + p, cl, &cp);
			if (cp == 0x4E28)
				return 0;
			p += cl;
		} else if ((text[p] >= '0' && text[p] <= '9') || (text[p] >= 'A' && text[p] <= 'Z') ||
		           (text[p] >= 'a' && text[p] <= 'z')) {
			p++;
		} else {
			return 0;
		}
	}
	return 1;
}

/* A bar between two Han characters on such a line: a word of `masked`
 * across it (他把匕丨首藏在靴子里: 匕首) is a word pulled apart; else the
 * pieces are a title and its author, as censor.separator takes them. */
static void inword_bar(jh_brun *run, const jh_char *c)
{
	size_t n;
	if (c->prev_cp < 0 || c->prev_cp == 0x4E28 || !(jh_class_of(c->prev_cp) & JH_C_HAN))
		return;
	size_t after = c->pos + c->len;
	if (!is_han_at(run->text, run->len, after, &n) ||
	    (!inword_bar_line(run->text, run->len, c->pos, c->len) &&
	     !inword_bar_prefix(run->text, run->len, c->pos, c->len)))
		return;
	period_cfg *cfg = (period_cfg *)run->cfg;
	period_arg arg = {cfg, run->diag_fn, run->payload};
	if (jh_lazy_get(&cfg->once, period_load, &arg) != JH_OK)
		return;
	word_list masked_list = {&cfg->masked, NULL};
	if (sep_in_word(&masked_list, run->text, run->len, c->prev_pos, c->pos, after))
		jh_brun_emit_safety(run, c->pos, after, NULL, 0, NULL, run->rule->safety);
}

void jh_punct_inword_han_mark(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	table[0x4E28] |= bit; /* 丨 is a Han character */
}

void jh_punct_inword_step(jh_brun *run, const jh_char *c)
{
	size_t n2, n;
	if (c->cp == 0x4E28 || c->cp == 0xFF5C) {
		inword_bar(run, c);
		return;
	}
	if (!inword_mark(c->cp) || c->prev_cp < 0 || !(jh_class_of(c->prev_cp) & JH_C_HAN))
		return;
	size_t after = c->pos + c->len;
	if (!is_han_at(run->text, run->len, after, &n2))
		return;
	period_cfg *cfg = (period_cfg *)run->cfg;
	period_arg arg = {cfg, run->diag_fn, run->payload};
	size_t at[4], w[4];
	int pieces;
	if (c->cp != ' ' && c->cp != 0xA0 &&
	    inword_heading(run->text, run->len, c->pos, at, w, &pieces)) {
		/* the dot rule's heading: what the pieces are decides */
		if (jh_lazy_get(&cfg->once, period_load, &arg) == JH_OK &&
		    inword_heading_masked(&cfg->masked, run->text, at, w, pieces))
			jh_brun_emit_safety(run, c->pos, after, NULL, 0, NULL, run->rule->safety);
		return;
	}
	/* a piece that goes on into a longer run of Han characters, and no
	 * chain: one-character segments on both sides (子·弹) and chains
	 * (子·弹·上) are the regex rules' */
	size_t b = char_start_before(run->text, c->prev_pos);
	int left = b < c->prev_pos && is_han_at(run->text, run->len, b, &n);
	int right = is_han_at(run->text, run->len, after + n2, &n);
	int32_t cp = -1;
	if (!left && b < c->prev_pos) {
		jh_utf8_decode((const unsigned char *)run->text + b, c->prev_pos - b, &cp);
		if (inword_mark(cp))
			return;
	}
	if (!right && after + n2 < run->len) {
		jh_utf8_decode((const unsigned char *)run->text + after + n2, run->len - after - n2, &cp);
		if (inword_mark(cp))
			return;
	}
	if (!left && !right)
		return;
	if (c->cp == ' ' && inword_spaced_line(run->text, run->len, c->pos))
		return;
	if (c->cp != ' ' && c->cp != 0xA0 && inword_in_title(run->text, c->pos))
		return;
	if (jh_lazy_get(&cfg->once, period_load, &arg) != JH_OK)
		return;
	word_list masked_list = {&cfg->masked, NULL};
	if (sep_in_word(&masked_list, run->text, run->len, c->prev_pos, c->pos, after))
		jh_brun_emit_safety(run, c->pos, after, NULL, 0, NULL, run->rule->safety);
}

/* The class scan wakes jh_punct_period_step only at '.' after a Han
 * character, jh_punct_inword_step (of ASCII) only at a space after one:
 * the first tests of each. */
void jh_punct_period_ascii(const void *cfg, unsigned char wants[128])
{
	(void)cfg;
	wants['.'] = JH_ASCII_AFTER_HAN;
}

void jh_punct_inword_ascii(const void *cfg, unsigned char wants[128])
{
	(void)cfg;
	wants[' '] = JH_ASCII_AFTER_HAN;
}

/* The characters outside ASCII and Han that the step acts on (builtins.h
 * other_mark): the rest of their classes pass through it untouched. */
void jh_punct_inword_other(const void *cfg, uint16_t *table, uint16_t bit)
{
	(void)cfg;
	jh_mark_other(table, bit, 0xFF5C);
	for (size_t i = 0; i < sizeof inword_marks / sizeof *inword_marks; i++)
		jh_mark_other(table, bit, inword_marks[i]);
}
