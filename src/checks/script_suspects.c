/* script_suspects.c — the findings of the suspect characters of the
 * traditional paragraphs, at the end of the text once check_script.c has
 * held each paragraph to a variant: the conversion check's (phrases of
 * the table converted wrong, 余 and 裡 after numerals) and the regional
 * check's (forms other than the standard or the majority).  The scan
 * counted the suspects (script_count.c); here they are found again. */
#define _GNU_SOURCE /* strndup */
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

#include "script.h"

/* The next suspect character of [p, end): its position (and length in
 * *n), or SIZE_MAX.  finish() finds them again in the paragraphs it looks
 * at rather than keep every position from the scan: on a long
 * traditional text that list was as big as its findings (40 MB for
 * 200 MB), for a second decoding of the few paragraphs that need it. */
static size_t next_suspect(const jh_brun *run, size_t p, size_t end, size_t *n)
{
	const variant_cfg *cfg = run->cfg;
	const unsigned char *t = (const unsigned char *)run->text;
	/* the conversion check's suspects are the flag table's: a run of
	 * well-formed three-byte characters is looked up without the checks
	 * below */
	const uint8_t *bmp = cfg->mode == MODE_PHRASES ? cfg->bmp : NULL;
	while (p < end) {
		if (t[p] < 0x80) { /* ASCII: never a suspect */
			uint64_t w;
			while (p + 8 <= end && (memcpy(&w, t + p, 8), !(w & 0x8080808080808080u)))
				p += 8;
			while (p < end && t[p] < 0x80)
				p++;
			continue;
		}
		if (bmp) {
			/* leads E1-EC, EE, EF take any two continuation bytes */
			for (unsigned c; p < end && p + 2 < run->len && (c = t[p]) >= 0xE1 && c != 0xED &&
			                 c <= 0xEF && ((t[p + 1] ^ 0x80u) | (t[p + 2] ^ 0x80u)) < 0x40;
			     p += 3) {
				int32_t cp = (int32_t)((c & 0x0F) << 12 | (t[p + 1] & 0x3Fu) << 6 | (t[p + 2] & 0x3Fu));
				if ((bmp[cp] & F_SUSPECT) && (jh_class_of(cp) & JH_C_HAN)) {
					*n = 3;
					return p;
				}
			}
			if (p >= end || t[p] < 0x80)
				continue;
		}
		/* Three bytes, the form of every BMP Han character: no character
		 * starts inside them, whatever they decode to. */
		if (t[p] >= 0xE0 && t[p] < 0xF0 && p + 2 < run->len && (t[p + 1] & 0xC0) == 0x80 &&
		    (t[p + 2] & 0xC0) == 0x80) {
			int32_t cp = (t[p] & 0x0F) << 12 | (t[p + 1] & 0x3F) << 6 | (t[p + 2] & 0x3F);
			if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) && (mode_flags(cfg, cp) & F_SUSPECT) &&
			    (jh_class_of(cp) & JH_C_HAN)) {
				*n = 3;
				return p;
			}
			p += 3;
			continue;
		}
		int32_t cp = decode_at(run->text, run->len, p, n);
		if (cp >= 0 && (mode_flags(cfg, cp) & F_SUSPECT) && (jh_class_of(cp) & JH_C_HAN))
			return p;
		p += *n ? *n : 1;
	}
	return SIZE_MAX;
}

static int is_numeral(int32_t cp)
{
	return (cp >= '0' && cp <= '9') || (cp >= 0xFF10 && cp <= 0xFF19) ||
	       cp_in(cp, "〇一二三四五六七八九十百千萬万兩两幾几");
}

void script_emit_fix(jh_brun *run, size_t a, size_t b, const char *right, size_t rlen, int unsafe,
                     const char *note)
{
	const jh_rule *r = run->rule;
	jh_buf fix = {0};
	if (jh_buf_append(&fix, right, rlen) || jh_buf_terminate(&fix)) {
		run->err = JH_ERR_NOMEM;
		jh_buf_free(&fix);
		return;
	}
	jh_hit h = {r, run->rule_index, a, b, r->has_fix ? fix.data : NULL, fix.len,
	            unsafe ? JH_UNSAFE : r->safety, note};
	int rc = jh_findings_add_hit(run->out, run->text, &h);
	if (rc)
		run->err = rc;
	jh_buf_free(&fix);
}

/* 150余騎兵 → 150餘騎兵, 20裡 → 20里: after a numeral 余 is "more than"
 * and 裡 the unit of length (but 十裡面, 百裡挑一 are left alone). */
static int numeral_fix(jh_brun *run, size_t a, size_t b, int32_t cp)
{
	if (a == 0)
		return 0;
	size_t pb = jh_utf8_prev(run->text, a), n;
	if (!is_numeral(decode_at(run->text, run->len, pb, &n)))
		return 0;
	while (pb > 0 && run->text[pb] >= '0' && run->text[pb] <= '9')
		pb--; /* template1裡: the digit ends a name, it is no number */
	if (isalpha((unsigned char)run->text[pb]) || run->text[pb] == '_')
		return 0;
	if (cp == 0x4F59) {
		script_emit_fix(run, a, b, "餘", strlen("餘"), 0, "数词后的“余”在繁体中作“餘”");
		return 1;
	}
	int32_t next = b < run->len ? decode_at(run->text, run->len, b, &n) : -1;
	if (next >= 0 && cp_in(next, "面頭头邊边挑"))
		return 0;
	script_emit_fix(run, a, b, "里", strlen("里"), 0, "表示距离的“里”在繁体中不作“裡/裏”");
	return 1;
}

/* The edge row of the phrase table for the character at p: "+頭" lists
 * the characters that make a word before 頭 (its prev_not) and after it
 * (its next_not). */
static const phrase_ent *edge_row(const variant_cfg *cfg, const char *text, size_t len, size_t p)
{
	char key[8];
	size_t n;
	decode_at(text, len, p, &n);
	if (n < 1 || n > 4)
		return NULL;
	key[0] = '+';
	memcpy(key + 1, text + p, n);
	return find_phrase(cfg, key, n + 1);
}

/* Can the two-character window [ws, we) (its second character at mid) be
 * read as the ends of two words, one with the character before and one
 * with the character after: 額頭|發燙 (forehead burning), not 頭髮 written
 * wrong?  Then the window is no sure conversion error. */
static int split_reading(jh_brun *run, const variant_cfg *cfg, size_t ws, size_t we, size_t mid)
{
	if (ws == 0 || we >= run->len)
		return 0;
	size_t n;
	int32_t before = decode_at(run->text, run->len, jh_utf8_prev(run->text, ws), &n);
	int32_t after = decode_at(run->text, run->len, we, &n);
	if (before < 0 || after < 0 || !(jh_class_of(before) & JH_C_HAN) || !(jh_class_of(after) & JH_C_HAN))
		return 0;
	const phrase_ent *first = edge_row(cfg, run->text, run->len, ws);
	const phrase_ent *last = edge_row(cfg, run->text, run->len, mid);
	return first && last && cp_in(before, cfg->ph_text + first->prev_not) &&
	       cp_in(after, cfg->ph_text + last->next_not);
}

/* A window that reads as the ends of two words (額頭|發燙) as well as one
 * word converted wrong (頭髮): more often the first, so no fix, not even
 * an unsafe one; the conversion is an alternative to check, and the
 * finding information. */
static void split_emit(jh_brun *run, size_t ws, size_t we, const char *right, size_t rl)
{
	jh_buf msg = {0};
	int rc = jh_buf_puts(&msg, "“");
	rc |= jh_buf_append(&msg, run->text + ws, we - ws);
	rc |= jh_buf_puts(&msg, "”前后各成一词时原文不误；若是简繁转换错误，应作“");
	rc |= jh_buf_append(&msg, right, rl);
	rc |= jh_buf_puts(&msg, "”（须人工判断）");
	rc |= jh_buf_terminate(&msg);
	if (!rc)
		rc = jh_findings_add(run->out, run->rule->id, run->rule_index, JH_INFO, ws, we, msg.data,
		                     NULL, 0, JH_UNSAFE);
	if (!rc && run->rule->has_fix) {
		char *alt = strndup(right, rl);
		jh_edit e = {ws, we, alt};
		rc = alt ? jh_findings_add_alternative(run->out, run->out->count - 1, &e, 1)
		         : JH_ERR_NOMEM;
		free(alt);
	}
	if (rc)
		run->err = rc;
	jh_buf_free(&msg);
}

/* Look for a phrase of the table around the suspect character [a, b) of a
 * traditional paragraph; the longest wins, then the leftmost.  Returns the
 * end of what was reported, or 0. */
static size_t phrase_at(jh_brun *run, const para *pp, size_t a, size_t b, size_t done)
{
	const variant_cfg *cfg = run->cfg;
	enum { K = 3 };
	/* every window holds the suspect and a neighbour: with neither
	 * neighbour beside it in any phrase, none is in the table */
	const uint64_t *pairs = __atomic_load_n(&cfg->pairs, __ATOMIC_ACQUIRE);
	if (!pairs)
		phrase_filter_count(cfg);
	if (pairs) {
		size_t pa = a > 0 ? jh_utf8_start_back(run->text, a) : a, nb = b, nn;
		if (b < run->len && decode_at(run->text, run->len, b, &nn) >= 0)
			nb = b + nn;
		if (!(pa < a && phrase_pair(pairs, run->text + pa, b - pa)) &&
		    !(nb > b && phrase_pair(pairs, run->text + a, nb - a)))
			return 0;
	}
	size_t bounds[2 * K + 2];
	int nb = 0, na = 0;
	size_t before[K], after[K];
	for (size_t p = a; nb < K && p > pp->start && p > done;) {
		size_t q = jh_utf8_start_back(run->text, p), n;
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (cp < 0 || q + n != p || !(jh_class_of(cp) & JH_C_HAN))
			break; /* as in emit_chars: a character that ends where the next begins */
		before[nb++] = p = q;
	}
	for (size_t p = b; na < K && p < pp->end;) {
		size_t n;
		int32_t cp = decode_at(run->text, run->len, p, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		after[na++] = p += n;
	}
	int m = 0;
	for (int i = nb - 1; i >= 0; i--)
		bounds[m++] = before[i];
	int self = m;
	bounds[m++] = a;
	bounds[m++] = b;
	for (int i = 0; i < na; i++)
		bounds[m++] = after[i];
	/* bounds[0..m) are character starts and the last end; the suspect is
	 * the character from bounds[self] to bounds[self+1].  A window is in
	 * the table only if each two neighbours in it are in the filter. */
	int pair_ok[2 * K + 1];
	for (int j = 0; j + 2 < m; j++)
		pair_ok[j] = phrase_pair(pairs, run->text + bounds[j], bounds[j + 2] - bounds[j]);
	for (int l = 4; l >= 2; l--)
		for (int s = self - l + 1; s <= self; s++) {
			if (s < 0 || s + l > m - 1)
				continue;
			int ok = 1;
			for (int j = s; j + 2 <= s + l && ok; j++)
				ok = pair_ok[j];
			if (!ok)
				continue;
			size_t ws = bounds[s], we = bounds[s + l];
			const phrase_ent *e = find_phrase(cfg, run->text + ws, we - ws);
			if (!e)
				continue;
			size_t n;
			const char *prev_not = cfg->ph_text + e->prev_not, *next_not = cfg->ph_text + e->next_not;
			const char *right = cfg->ph_text + e->right;
			if (ws > 0 && *prev_not &&
			    cp_in(decode_at(run->text, run->len, jh_utf8_prev(run->text, ws), &n), prev_not))
				continue;
			if (we < run->len && *next_not && cp_in(decode_at(run->text, run->len, we, &n), next_not))
				continue;
			size_t rl = strcspn(right, "|");
			if (l == 2 && split_reading(run, cfg, ws, we, bounds[s + 1]))
				split_emit(run, ws, we, right, rl);
			else
				script_emit_fix(run, ws, we, right, rl, right[rl] == '|', NULL);
			return we;
		}
	return 0;
}

/* The suspects of paragraph p.  The scan counted them (p->suspects, all
 * but 字, which it passes to the mention test): the walk stops at the
 * last one, unless 字 is a suspect itself. */
void script_phrases_in_para(jh_brun *run, const para *p)
{
	const variant_cfg *cfg = run->cfg;
	size_t done = p->start, n, left = p->suspects;
	int counted = !(char_flags(cfg, 0x5B57) & F_SUSPECT);
	for (size_t i = p->start;
	     !(counted && !left) && (i = next_suspect(run, i, p->end, &n)) != SIZE_MAX && !run->err;
	     i += n) {
		int32_t cp = decode_at(run->text, run->len, i, &n);
		left -= left && cp != 0x5B57;
		if (i < done)
			continue;
		size_t end = phrase_at(run, p, i, i + n, done);
		if (!end && (cp == 0x4F59 || cp == 0x88E1 || cp == 0x88CF) && numeral_fix(run, i, i + n, cp))
			end = i + n;
		if (end)
			done = end;
	}
}

/* Regional forms in the traditional paragraphs: each group's form is the
 * standard asked for, else the one the text uses most; the others are
 * reported.  Unsafe: 著 is also the OpenCC form of zhù (著名), so 著 → 着 needs
 * a reader. */
void script_regional_finish(jh_brun *run, const variant_state *s)
{
	const variant_cfg *cfg = run->cfg;
	uint32_t (*count)[GROUP_FORMS] = calloc(MAX_GROUPS, sizeof *count);
	if (!count) {
		run->err = JH_ERR_NOMEM;
		return;
	}
	size_t n;
	for (size_t i = 0; i < s->n; i++) { /* count the forms used in traditional paragraphs */
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX; a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			for (int f = 0; f < GROUP_FORMS; f++)
				count[g][f] += cfg->forms[g][f] == cp;
		}
	}
	int32_t want[MAX_GROUPS] = {0};
	for (int g = 0; g < MAX_GROUPS; g++) {
		if (cfg->standard) {
			want[g] = cfg->forms[g][cfg->standard - 1];
			continue;
		}
		int best = -1;
		for (int f = 0; f < GROUP_FORMS; f++)
			if (count[g][f] && (best < 0 || count[g][f] > count[g][best]))
				best = f;
		want[g] = best >= 0 ? cfg->forms[g][best] : 0;
	}
	for (size_t i = 0; i < s->n && !run->err; i++) {
		const para *p = &s->v[i];
		if (p->v != V_HANT || !p->suspects)
			continue;
		for (size_t a = p->start; !run->err && (a = next_suspect(run, a, p->end, &n)) != SIZE_MAX;
		     a += n) {
			int32_t cp = decode_at(run->text, run->len, a, &n);
			int g = cfg->group[cp] - 1;
			if (!want[g] || want[g] == cp)
				continue;
			char u[5];
			u[jh_utf8_encode(want[g], u)] = 0;
			script_emit_fix(run, a, a + n, u, strlen(u), 1, NULL);
		}
	}
	free(count);
}
