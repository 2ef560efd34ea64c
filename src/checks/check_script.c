/* check_script.c — the variant checks of the script family: simplified and
 * traditional characters mixed in one text, conversion errors inside
 * traditional text, regional forms (their tables: script_tables.c; the
 * checks of single characters: check_script_chars.c).
 *
 * The variant checks hold their own tables (rules/data/script-*.tsv, made
 * by rules/tools/gen-script-tables.py from OpenCC and jieba): which variant
 * a text is in is known only at its end, so they cannot be lexicon rules.
 * In the scan they only count, one table lookup per Han character
 * (script_count.c); the paragraphs that hold something to report are
 * decoded a second time in finish(): here the vote of the paragraphs and
 * the mixed-variant findings, in script_suspects.c the conversion and
 * regional findings. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/mman.h>
#include <utf8proc.h>
#include "builtins.h"
#include "charclass.h"
#include "tablecache.h"
#include "utf8.h"

#include "foreign.h"
#include "script.h"

static const char *const variant_params[] = {"variant", "chars", "phrases", "paragraph-min", NULL};
static const char *const regional_params[] = {"variant", "chars", "regional", "standard",
                                              "paragraph-min", NULL};

/* The counts of paragraph p that vote: those outside quotation marks, or
 * all of them when nothing in the document is outside (`all`). */
static inline void para_vote(const para *p, int all, uint32_t *hans, uint32_t *hant)
{
	*hans = all ? p->hans : p->hans - p->qhans;
	*hant = all ? p->hant : p->hant - p->qhant;
}

/* A paragraph's own variant, when it has enough evidence of it. */
static int para_own(const variant_cfg *cfg, const para *p, int all)
{
	uint32_t hans, hant;
	para_vote(p, all, &hans, &hant);
	if (hans + hant >= cfg->para_min) {
		if (hans >= 4 * hant)
			return V_HANS;
		if (hant >= 4 * hans)
			return V_HANT;
	}
	return V_NONE;
}

/* How sure a conversion is.  DOUBT_MIXED: the variant it converts to won
 * by two to one or less (a warning with an unsafe fix); DOUBT_QUOTE: the
 * characters are the other variant on purpose, quoted, a title, a name, a
 * character spoken of (a hint with an unsafe fix); DOUBT_MENTION: a
 * character the sentence talks about as a character, next to its other
 * form or to a word about the script (a hint with no fix). */
enum { DOUBT_NONE, DOUBT_MIXED, DOUBT_QUOTE, DOUBT_MENTION };

/* A majority of held to against that is two to one or less: the
 * characters it would convert may be the text's own. */
static inline int weak_majority(uint32_t held, uint32_t against)
{
	return against && 2 * (unsigned long)against >= held;
}

/* The variant each paragraph is held to (in p->v): the one asked for; else,
 * when the minority variant makes up less than a fifth of the document,
 * the document's; else (a long file with chapters in both) its own when it
 * has enough evidence, or that of the nearest paragraph before it (after
 * it, at the start) that has.  Returns DOUBT_MIXED when the document's
 * variant is a guess from a weak majority. */
static int para_variants(const variant_cfg *cfg, int forced, para *v, size_t n, int all)
{
	unsigned long hans = 0, hant = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t a, b;
		para_vote(&v[i], all, &a, &b);
		hans += a;
		hant += b;
	}
	unsigned long minor = hans < hant ? hans : hant, major = hans < hant ? hant : hans;
	if (!hans && !hant && !forced)
		return DOUBT_NONE;
	int mixed = hans + hant >= 4 * cfg->para_min && minor * 5 >= hans + hant;
	int doc = forced ? forced : !mixed ? (hant > hans ? V_HANT : V_HANS) : V_NONE;
	if (doc) {
		for (size_t i = 0; i < n; i++)
			v[i].v = doc;
		return !forced && minor && 2 * minor >= major ? DOUBT_MIXED : DOUBT_NONE;
	}
	/* each paragraph's own variant, found once: kept above the bits of
	 * the one it is held to until the second walk */
	enum { OWN_SHIFT = 4 };
	int last = V_NONE;
	for (size_t i = 0; i < n; i++) {
		int own = para_own(cfg, &v[i], all);
		last = own ? own : last;
		v[i].v = last | own << OWN_SHIFT;
	}
	for (size_t i = n; i-- > 0;) {
		int own = v[i].v >> OWN_SHIFT;
		v[i].v &= (1 << OWN_SHIFT) - 1;
		last = own ? own : i + 1 < n ? v[i + 1].v : V_NONE;
		if (!v[i].v)
			v[i].v = last;
	}
	return DOUBT_NONE;
}

/* Counts of a paragraph (or block) held to v that say otherwise: written
 * in the other variant (a quoted verse, 關關雎鳩 in a simplified anthology:
 * four to one the other way, at least two characters), or a weak majority
 * (two to one or less, at least four characters), where no conversion is
 * sure. */
static int counts_doubt(uint32_t hans, uint32_t hant, int v)
{
	uint32_t against = v == V_HANT ? hans : hant, held = v == V_HANT ? hant : hans;
	if (against >= 2 && against >= 4 * held)
		return DOUBT_QUOTE;
	if (against + held >= 4 && weak_majority(held, against))
		return DOUBT_MIXED;
	return DOUBT_NONE;
}

/* Does the text between two paragraphs hold a line without CJK (a blank
 * line, fortune's %, a scene break of ***)?  Then they are two blocks. */
static int block_break(const char *text, size_t a, size_t b)
{
	int cjk = 1;
	for (size_t i = a; i < b; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n') {
			if (!cjk)
				return 1;
			cjk = 0;
		} else if (c >= 0xE3)
			cjk = 1;
	}
	return 0;
}

/* The doubt of paragraph i from its votes: its own counts, or those of
 * its block (the paragraphs around it up to a line without CJK),
 * whichever is greater: a line of a quoted verse may hold one traditional
 * character and nothing of its own variant (于嗟闊兮), its stanza says
 * what it is. */
static int para_doubt(const jh_brun *run, const para *v, size_t n, size_t i, int all)
{
	uint32_t hans, hant, a, b;
	para_vote(&v[i], all, &hans, &hant);
	int own = counts_doubt(hans, hant, v[i].v);
	for (size_t k = i; k > 0 && !block_break(run->text, v[k - 1].end, v[k].start); k--) {
		para_vote(&v[k - 1], all, &a, &b);
		hans += a;
		hant += b;
	}
	for (size_t k = i; k + 1 < n && !block_break(run->text, v[k].end, v[k + 1].start); k++) {
		para_vote(&v[k + 1], all, &a, &b);
		hans += a;
		hant += b;
	}
	int block = counts_doubt(hans, hant, v[i].v);
	return own > block ? own : block;
}

/* Is a character, or the first of its forms (script-chars.tsv: "發|髮"),
 * outside the BMP or in CJK Extension A?  Such characters (𫖯 for 頫, 𬱟
 * for 頠, 䯄 for 騧) are names and rare words of classical text that the
 * 2013 standard gave simplified forms most fonts and editions lack. */
static int rare_han(int32_t cp)
{
	return cp >= 0x10000 || (cp >= 0x3400 && cp <= 0x4DBF);
}

static int rare_form(int32_t cp, const char *forms)
{
	int32_t f;
	size_t n = strcspn(forms, "|");
	if (rare_han(cp))
		return 1;
	return n && jh_utf8_decode((const unsigned char *)forms, n, &f) && rare_han(f);
}

/* The word table of this check (data/script-words.tsv), read on first
 * use; NULL when it cannot be read (reported: then no fix is safe that a
 * word would have to decide). */
static const variant_cfg *word_table(jh_brun *run)
{
	variant_cfg *cfg = (variant_cfg *)run->cfg;
	phrases_arg arg = {cfg, run->diag_fn, run->payload};
	int rc = jh_lazy_get(&cfg->phrases_once, load_phrases, &arg);
	if (rc == JH_ERR_NOMEM)
		run->err = rc;
	return rc ? NULL : cfg;
}

/* The entry of the word table for prefix and the text [s, s + n). */
static const char *word_entry(const variant_cfg *w, char prefix, const char *s, size_t n)
{
	char key[1 + 4 * 4];
	if (!w || n > sizeof key - 1)
		return NULL;
	key[0] = prefix;
	memcpy(key + 1, s, n);
	const phrase_ent *e = find_phrase(w, key, n + 1);
	return e ? w->ph_text + e->right : NULL;
}

enum { WORD_MAX = 4, CTX = WORD_MAX - 1, RUN_MAX = 64 };

/* Whether the Han characters around [a, b), up to a character of another
 * class (16 at most each way), or the run itself hold a Japanese form
 * (foreign.h: 駅, 変): 東京駅 is Japanese, and converting 東 alone would
 * leave 东京駅, neither Chinese nor Japanese. */
static int japanese_near(const jh_brun *run, const para *pp, size_t a, size_t b)
{
	size_t n;
	for (size_t p = a; p < b; p += n ? n : 1)
		if (jh_japanese_wide_form(decode_at(run->text, b, p, &n)))
			return 1;
	size_t p = a;
	for (int k = 0; k < 16 && p > pp->start; k++) {
		size_t q = jh_utf8_start_back(run->text, p);
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (cp < 0 || q + n != p || !(jh_class_of(cp) & JH_C_HAN))
			break;
		if (jh_japanese_wide_form(cp))
			return 1;
		p = q;
	}
	p = b;
	for (int k = 0; k < 16 && p < pp->end; k++) {
		int32_t cp = decode_at(run->text, run->len, p, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		if (jh_japanese_wide_form(cp))
			return 1;
		p += n;
	}
	return 0;
}

/* A run of minority characters [a, b) of paragraph p: one finding.  Where
 * a word of the table covers a character of the run (with its neighbours,
 * half converted or not: 头发, 晒干, 終於), the whole word is written as
 * the table has it and the finding grows to it; the other characters are
 * converted one by one.  Safe only if each character no word covers has a
 * single form in the other variant and no neighbour a conversion could
 * change (a character valid in both: 干, 於), else the word may be left
 * half converted; and no doubt: DOUBT_QUOTE (and a rare character or form:
 * rare_form) gives a hint with an unsafe fix, DOUBT_MIXED a warning with
 * one, DOUBT_MENTION a hint with none.  *done: the end of the last
 * finding, which a word must not reach back over. */
static void emit_chars(jh_brun *run, const para *pp, size_t a, size_t b, int v, int doubt,
                       size_t *done)
{
	const variant_cfg *cfg = run->cfg;
	jh_buf fix = {0}, note = {0}, alts = {0};
	int single = 1, rc = 0;
	size_t at[CTX + RUN_MAX + CTX + 1]; /* character starts, then the last end */
	int m = 0, ra, rb, doubt0 = doubt;
	rc |= jh_buf_puts(&note, v == V_HANT ? "繁体文本中夹杂简体字" : "简体文本中夹杂繁体字");
	/* the Han characters just before a, right to left; each must end where
	 * the next begins (in invalid text a step back may land on a lead byte
	 * followed by stray continuation bytes) */
	size_t before[CTX];
	for (size_t p = a; m < CTX && p > pp->start && p > *done;) {
		size_t q = jh_utf8_start_back(run->text, p), n;
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (cp < 0 || q + n != p || !(jh_class_of(cp) & JH_C_HAN))
			break;
		before[m++] = p = q;
	}
	/* at[] from the left: the m characters before a, the run, CTX after */
	int mm = 0;
	while (mm < m) {
		at[mm] = before[m - 1 - mm];
		mm++;
	}
	ra = mm;
	size_t p = a, rest = 0;
	for (; p < b && mm < CTX + RUN_MAX; mm++) {
		size_t n;
		decode_at(run->text, b, p, &n);
		at[mm] = p;
		p += n ? n : 1;
	}
	rb = mm;
	if (p < b) /* a very long run: its tail is a finding of its own */
		rest = b, b = p;
	size_t e = b;
	for (int k = 0; k < CTX && e < pp->end && !rest; k++) {
		size_t n;
		int32_t cp = decode_at(run->text, run->len, e, &n);
		if (cp < 0 || !(jh_class_of(cp) & JH_C_HAN))
			break;
		at[mm++] = e;
		e += n;
	}
	at[mm] = e;
	/* the words: for each character of the run not yet in one, the longest
	 * word around it, then the leftmost */
	const variant_cfg *w = word_table(run);
	char prefix = v == V_HANT ? 'T' : 'S';
	int wlen[CTX + RUN_MAX + CTX];
	const char *wright[CTX + RUN_MAX + CTX];
	memset(wlen, 0, sizeof wlen);
	int covered = 0; /* characters before this index are in a word already */
	for (int i = ra; i < rb && w; i++) {
		if (i < covered)
			continue;
		for (int l = WORD_MAX; l >= 2; l--) {
			int hit = 0;
			for (int s0 = i - l + 1 < covered ? covered : i - l + 1; s0 <= i && !hit; s0++) {
				if (s0 + l > mm)
					break;
				const char *r = word_entry(w, prefix, run->text + at[s0], at[s0 + l] - at[s0]);
				if (r) {
					wlen[s0] = l;
					wright[s0] = r;
					covered = s0 + l;
					hit = 1;
				}
			}
			if (hit)
				break;
		}
	}
	int lo = ra, hi = rb;
	for (int k = 0; k < mm; k++)
		if (wlen[k]) {
			lo = k < lo ? k : lo;
			hi = k + wlen[k] > hi ? k + wlen[k] : hi;
		}
	for (int k = lo; k < hi && !rc;) {
		if (wlen[k]) {
			size_t rl = strcspn(wright[k], "|");
			rc |= jh_buf_append(&fix, wright[k], rl);
			if (wright[k][rl] == '|') {
				single = 0;
				rc |= jh_buf_puts(&alts, alts.len ? "；" : "");
				rc |= jh_buf_append(&alts, run->text + at[k], at[k + wlen[k]] - at[k]);
				rc |= jh_buf_puts(&alts, "可作");
				for (const char *q = wright[k]; *q; q++)
					rc |= *q == '|' ? jh_buf_puts(&alts, "、") : jh_buf_putc(&alts, *q);
			}
			k += wlen[k];
			continue;
		}
		size_t pk = at[k], n = at[k + 1] - at[k];
		int32_t cp = decode_at(run->text, at[k + 1], pk, &n);
		const char_ent *ent = k >= ra && k < rb ? find_ent(cfg, cp) : NULL;
		const char *forms = ent ? ent->forms : "";
		size_t first = strcspn(forms, "|");
		if (rare_form(cp, forms))
			doubt = doubt > DOUBT_QUOTE ? doubt : DOUBT_QUOTE;
		if (first)
			rc |= jh_buf_append(&fix, forms, first);
		else
			rc |= jh_buf_append(&fix, run->text + pk, n);
		if (forms[first] == '|') {
			single = 0;
			rc |= jh_buf_puts(&alts, alts.len ? "；" : "");
			rc |= jh_buf_append(&alts, run->text + pk, n);
			rc |= jh_buf_puts(&alts, "可作");
			for (const char *q = forms; *q; q++)
				rc |= *q == '|' ? jh_buf_puts(&alts, "、") : jh_buf_putc(&alts, *q);
		}
		/* a neighbour outside the run that a conversion may change (晒干
		 * with no word: 曬干 or 曬乾?): the fix may leave a word half done */
		for (int d = -1; d <= 1 && ent; d += 2) {
			int j = k + d;
			if (j < 0 || j >= mm || (j >= ra && j < rb) || (j >= lo && j < hi))
				continue;
			if (!w || word_entry(w, v == V_HANT ? 't' : 's', run->text + at[j], at[j + 1] - at[j]))
				single = 0;
		}
		k++;
	}
	int japanese = japanese_near(run, pp, a, b);
	if (japanese)
		single = 0;
	if (alts.len)
		rc |= jh_buf_puts(&note, "（") || jh_buf_append(&note, alts.data, alts.len) ||
		      jh_buf_puts(&note, "，须按词义选择）");
	else if (japanese)
		rc |= jh_buf_puts(&note, "（旁有日文字形，或是日文）");
	rc |= jh_buf_terminate(&fix) || jh_buf_terminate(&note);
	if (rc) {
		run->err = JH_ERR_NOMEM;
	} else {
		const jh_rule *r = run->rule;
		int fixable = r->has_fix && doubt != DOUBT_MENTION;
		size_t s0 = doubt == DOUBT_MENTION ? a : at[lo], s1 = doubt == DOUBT_MENTION ? b : at[hi];
		jh_hit h = {r, run->rule_index, s0, s1, fixable ? fix.data : NULL, fixable ? fix.len : 0,
		            single && !doubt ? r->safety : JH_UNSAFE, note.data};
		if ((rc = jh_findings_add_hit(run->out, run->text, &h)))
			run->err = rc;
		else if (doubt >= DOUBT_QUOTE)
			run->out->items[run->out->count - 1].severity = JH_INFO;
		if (!rc && doubt == DOUBT_MENTION) {
			/* the template's “应作” would read as a fix */
			jh_buf msg = {0};
			int mrc = jh_buf_puts(&msg, v == V_HANT ? "繁体文本中的简体字“" : "简体文本中的繁体字“") ||
			          jh_buf_append(&msg, run->text + a, b - a) ||
			          jh_buf_puts(&msg, "”：句中谈论字形，不改") || jh_buf_terminate(&msg);
			if (mrc || (mrc = jh_finding_set_message(run->out,
			                                         &run->out->items[run->out->count - 1],
			                                         msg.data)))
				run->err = mrc < 0 ? mrc : JH_ERR_NOMEM;
			jh_buf_free(&msg);
		}
		*done = s1;
	}
	jh_buf_free(&fix);
	jh_buf_free(&note);
	jh_buf_free(&alts);
	if (rest && !run->err)
		emit_chars(run, pp, b, rest, v, doubt0, done);
}

/* Words about the script: a sentence that holds one talks about
 * characters as characters (繁体字“發”). */
static const char *const script_talk[] = {
	"繁体", "繁體", "简体", "簡體", "正体", "正體", "异体", "異體", "字形", "写法", "寫法",
	"字体", "字體", "旧字", "舊字", "汉字", "漢字", "日文", "日语", "日語", NULL};

/* Where run_mentioned's sentence ends: 。！？!? or the line's end (what
 * cp_in(cp, "。！？!?\n") says, without a string search a character). */
static inline int sentence_end(int32_t cp)
{
	return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == '!' || cp == '?' || cp == '\n';
}

/* The characters of the string set (forms "發|髮", its | too) into v[],
 * for cp_in's answer by comparing numbers; -1 when they do not fit or do
 * not decode (then cp_in itself is asked). */
static int set_chars(const char *set, int32_t *v, int max)
{
	int k = 0;
	for (size_t i = 0, len = strlen(set), n; i < len; i += n) {
		if (k == max)
			return -1;
		if ((v[k++] = decode_at(set, len, i, &n)) < 0)
			return -1;
	}
	return k;
}

/* Is the run [a, b) of paragraph p, one character, spoken of as such: its
 * sentence holds another form of it between the same two neighbours,
 * characters or quotation marks (的漢字 … 的汉字, “國” … “国”),
 * or it is shown as such (before 字, alone in quotation marks) in a sentence with
 * a word about the script (日本的漢字, 繁体字“發”)? */
static int run_mentioned(const jh_brun *run, const para *pp, size_t a, size_t b)
{
	const variant_cfg *cfg = run->cfg;
	size_t ss = a, se = b, n;
	/* what needs no walk over the sentence first: a run of one
	 * character, that has other forms or stands before 字 or in quotes */
	int32_t self = decode_at(run->text, b, a, &n);
	if (a + n != b)
		return 0; /* a word is not spoken of as characters */
	int32_t prev = a > pp->start ? decode_at(run->text, run->len, jh_utf8_prev(run->text, a), &n) : -1;
	int32_t next = b < pp->end ? decode_at(run->text, pp->end, b, &n) : -1;
	const char_ent *e = find_ent(cfg, self);
	int talk = next == 0x5B57 || (quote_kind(prev) > 0 && quote_kind(next) < 0);
	if (!e && !talk)
		return 0;
	while (ss > pp->start) {
		size_t q = jh_utf8_prev(run->text, ss);
		int32_t cp = decode_at(run->text, run->len, q, &n);
		if (sentence_end(cp))
			break;
		ss = q;
	}
	for (int32_t cp; se < pp->end; se += n ? n : 1)
		if ((cp = decode_at(run->text, pp->end, se, &n)) >= 0 && sentence_end(cp))
			break;
	/* another form of it in the same place: a half-converted sentence has
	 * both forms too (這个人 … 这個人), but not between the same two */
	int32_t forms[16];
	int nf = e ? set_chars(e->forms, forms, 16) : 0;
	for (size_t p = ss; p < se && e; p += n ? n : 1) {
		int32_t cp = decode_at(run->text, se, p, &n);
		if (p == a || cp < 0)
			continue;
		int in = nf < 0 ? cp_in(cp, e->forms) : 0;
		for (int k = 0; k < nf && !in; k++)
			in = forms[k] == cp;
		if (!in)
			continue;
		size_t m;
		int32_t fp = p > ss ? decode_at(run->text, run->len, jh_utf8_prev(run->text, p), &m) : -1;
		int32_t fn = p + n < se ? decode_at(run->text, se, p + n, &m) : -1;
		if (fn == next && next >= 0 && ((jh_class_of(next) & JH_C_HAN) || quote_kind(next)) &&
		    fp == prev && prev >= 0 && ((jh_class_of(prev) & JH_C_HAN) || quote_kind(prev)))
			return 1;
	}
	/* a talk word speaks of one character shown as such: 漢字, “發” */
	if (!talk)
		return 0;
	for (int k = 0; script_talk[k]; k++) {
		size_t tl = strlen(script_talk[k]);
		if (memmem(run->text + ss, a - ss, script_talk[k], tl) ||
		    memmem(run->text + b, se - b, script_talk[k], tl))
			return 1;
	}
	return 0;
}

/* A quotation of a paragraph that finish() looks at, with its own counts
 * (of the quotations inside it too). */
typedef struct {
	uint32_t hans, hant;
	uint32_t chars;  /* its characters, up to QUOTE_SHORT + 1 */
	uint8_t title;   /* 《》 〈〉: a title or a name */
	uint8_t clause;  /* a clause or sentence mark inside: speech */
} quote_span;

/* A quotation of at most this many characters and no clause mark is a
 * term, a sign, an inscription (“达旨”, “天下第一樓”), quoted as written. */
#define QUOTE_SHORT 12

/* The doubt of a run inside quotation q: a title, or a quotation written
 * in the other variant (none of its characters of v, or two to one the
 * other way), is quoted on purpose: 门匾上写着“天下第一樓”, 《紅樓夢》.  A
 * stray character in a quotation of v's (“今天的會议”) is judged with the
 * paragraph. */
static int quote_doubt(const quote_span *q, int v)
{
	uint32_t against = v == V_HANT ? q->hans : q->hant, held = v == V_HANT ? q->hant : q->hans;
	if (q->title || (against && (!held || against >= 2 * held)) ||
	    (against && !q->clause && q->chars <= QUOTE_SHORT))
		return DOUBT_QUOTE;
	return DOUBT_NONE;
}


/* The quotations of paragraph p, in the order they open (*spans, *n), and
 * the minority characters it speaks of as characters (驚字還敬缺末筆, 以甯代
 * 儀: one alone before 字; each of its uses in the paragraph is then the
 * character itself, kept as written). */
static int para_quotes(jh_brun *run, const para *p, uint8_t want, quote_span **spans, size_t *n,
                       int32_t *mention, int *n_mention)
{
	const variant_cfg *cfg = run->cfg;
	size_t cap = 0, idx[Q_DEPTH_MAX];
	int q = 0;
	int32_t prev = -1, prev2 = -1;
	*n = 0;
	*n_mention = 0;
	for (size_t i = p->start, len; i < p->end; i += len) {
		int32_t cp = decode_at(run->text, p->end, i, &len);
		uint8_t f = cp >= 0 ? char_flags(cfg, cp) & (F_HANS | F_HANT) : 0;
		if (cp < 0 || !len) {
			len = len ? len : 1;
		} else if (f && (jh_class_of(cp) & JH_C_HAN)) {
			for (int d = 0; d < quote_depth(q); d++) {
				(*spans)[idx[d]].hans += !!(f & F_HANS);
				(*spans)[idx[d]].hant += !!(f & F_HANT);
			}
		} else if (!(jh_class_of(cp) & JH_C_HAN)) {
			int d = quote_depth(q);
			q = quote_update(q, cp);
			if (quote_depth(q) > d) {
				if (jh_grow((void **)spans, &cap, *n + 1, sizeof **spans))
					return JH_ERR_NOMEM;
				(*spans)[*n] = (quote_span){0, 0, 0, cp == 0x300A || cp == 0x3008, 0};
				idx[d] = (*n)++;
			} else if (quote_depth(q) == d && cp_in(cp, "，。！？；：、,.!?;:")) {
				for (int k = 0; k < d; k++)
					(*spans)[idx[k]].clause = 1;
			}
		} else if (cp == 0x5B57 && prev >= 0 && (char_flags(cfg, prev) & want) && /* 字 */
		           !(prev2 >= 0 && (char_flags(cfg, prev2) & want)) && !cp_in(prev, script_mention_not) &&
		           *n_mention < MENTION_MAX) {
			mention[(*n_mention)++] = prev; /* one minority character alone before 字 */
		}
		for (int k = 0; k < quote_depth(q) && quote_kind(cp) == 0; k++)
			(*spans)[idx[k]].chars += (*spans)[idx[k]].chars <= QUOTE_SHORT;
		prev2 = prev;
		prev = cp;
	}
	return 0;
}

static void chars_in_para(jh_brun *run, const para *p, int v, int doubt)
{
	const variant_cfg *cfg = run->cfg;
	uint8_t want = v == V_HANT ? F_HANS : F_HANT;
	quote_span *spans = NULL;
	size_t n_spans, idx[Q_DEPTH_MAX], a = 0, b = 0, in = SIZE_MAX, done = p->start;
	int32_t mention[MENTION_MAX];
	int n_mention, q = 0, open = 0, spoken = 0;
	if ((run->err = para_quotes(run, p, want, &spans, &n_spans, mention, &n_mention))) {
		free(spans);
		return;
	}
	size_t next_span = 0;
	for (size_t i = p->start; i < p->end && !run->err;) {
		size_t n;
		int32_t cp = decode_at(run->text, p->end, i, &n);
		n = n ? n : 1;
		if (cp >= 0 && (char_flags(cfg, cp) & want) && (jh_class_of(cp) & JH_C_HAN)) {
			if (!open) {
				a = i;
				in = quote_depth(q) && idx[quote_depth(q) - 1] < n_spans ? idx[quote_depth(q) - 1]
				                                                          : SIZE_MAX;
				spoken = 0;
			}
			for (int k = 0; k < n_mention; k++)
				spoken |= mention[k] == cp;
			open = 1;
			b = i + n;
		} else {
			if (open) {
				int d = in != SIZE_MAX ? quote_doubt(&spans[in], v) : DOUBT_NONE;
				d = spoken ? DOUBT_QUOTE : d > doubt ? d : doubt;
				emit_chars(run, p, a, b, v, run_mentioned(run, p, a, b) ? DOUBT_MENTION : d, &done);
				open = 0;
			}
			if (cp >= 0 && !(jh_class_of(cp) & JH_C_HAN)) {
				int d = quote_depth(q);
				q = quote_update(q, cp);
				if (quote_depth(q) > d)
					idx[d] = next_span++;
			}
		}
		i += n;
	}
	if (open) {
		int d = in != SIZE_MAX ? quote_doubt(&spans[in], v) : DOUBT_NONE;
		d = spoken ? DOUBT_QUOTE : d > doubt ? d : doubt;
		emit_chars(run, p, a, b, v, run_mentioned(run, p, a, b) ? DOUBT_MENTION : d, &done);
	}
	free(spans);
}


static void variant_finish(jh_brun *run)
{
	const variant_cfg *cfg = run->cfg;
	variant_state *s = run->state;
	/* the last paragraph's counts */
	if (!s && (run->tally_total[0] || run->tally_total[1]))
		s = script_new_state(run);
	script_tally_flush(run, s, run->tally_total);
	if (!s)
		return;
	script_para_close(run, s, run->len);
	int forced = parse_variant(run->variant);
	if (forced <= 0)
		forced = cfg->variant;
	/* a document that quotes all it holds (a line of verse in quotation
	 * marks) votes with its quotations */
	int all = 1;
	for (size_t i = 0; i < s->n && all; i++)
		all = s->v[i].hans == s->v[i].qhans && s->v[i].hant == s->v[i].qhant;
	int doc_doubt = para_variants(cfg, forced, s->v, s->n, all);
	int loaded = 0; /* the phrase table, asked for at the first paragraph that needs it */
	for (size_t i = 0; i < s->n && !run->err; i++) {
		const para *p = &s->v[i];
		if (cfg->mode == MODE_CHARS && ((p->v == V_HANT && p->hans) || (p->v == V_HANS && p->hant))) {
			/* the variant asked for is no guess: no doubt of the votes
			 * (quotations are still quoted) */
			int d = forced > 0 ? DOUBT_NONE : para_doubt(run, s->v, s->n, i, all);
			chars_in_para(run, p, p->v, d > doc_doubt ? d : doc_doubt);
		}
		if (cfg->mode == MODE_PHRASES && p->v == V_HANT && p->suspects) {
			if (!loaded) {
				phrases_arg a = {(variant_cfg *)cfg, run->diag_fn, run->payload};
				int rc = jh_lazy_get(&((variant_cfg *)cfg)->phrases_once, load_phrases, &a);
				if (rc == JH_ERR_NOMEM)
					run->err = rc;
				if (rc) /* a table gone since compiling: reported, no phrase findings */
					break;
				loaded = 1;
			}
			script_phrases_in_para(run, p);
		}
	}
	if (cfg->mode == MODE_REGIONAL)
		script_regional_finish(run, s);
	free(s->v);
	free(s);
	run->state = NULL;
}

/* Han characters, line ends and the quotation marks (script_step) */
#define VARIANT_WAKE (JH_C_HAN | JH_C_NEWLINE | JH_C_CJK_PUNCT | JH_C_ASCII_PUNCT)

const jh_builtin_def jh_checks_script[] = {
	{"variant", VARIANT_WAKE, variant_params, chars_compile, variant_free, script_step,
	 variant_finish, 0, JH_HAN_WANTS, script_mark, script_ascii, NULL, script_other,
	 script_tally, script_mark_tallied},
	{"conversion", VARIANT_WAKE, variant_params, phrases_compile, variant_free, script_step,
	 variant_finish, 0, JH_HAN_WANTS, script_mark, script_ascii, NULL, script_other,
	 script_tally, script_mark_tallied},
	{"regional", VARIANT_WAKE, regional_params, regional_compile, variant_free, script_step,
	 variant_finish, 0, JH_HAN_WANTS, script_mark, script_ascii, NULL, script_other,
	 script_tally, script_mark_tallied},
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
