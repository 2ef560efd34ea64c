/* typo_drift.c — names that drift: a name or term of three characters seen
 * many times in a document and once in a form that differs in one
 * character (段興茂 ×8, 段興買 ×1).  No dictionary of names is needed: the
 * document itself says which form is the name.  What keeps real words out
 * is a list of common words (jieba's) and the statistics of the document:
 *
 *  - the frequent form f appears at least min-count times, the rare form r
 *    at most max-rare times;
 *  - neither f nor r, nor their shared part when it is contiguous, nor
 *    the differing character with a neighbour is a common word (日本人 /
 *    日本兵, 高興地 / 高興的, 軍騎兵 / 軍騎馬);
 *  - f holds together: its two halves rarely occur without each other
 *    (巴根說 ×10 is a name and a verb, 巴根 also comes before 道, 的 …);
 *  - neither form holds a stop character (的, 了, 說 …);
 *  - the differing character is not a numeral (第三團 / 第四團);
 *  - only one frequent form differs from r at that place.
 *
 * As no form with a stop character can be f or r, the counting reads only
 * the runs of Han characters between stop characters (about half of a
 * text's trigrams), in one pass per block over the UTF-8 bytes, into a
 * table of trigram counts, noting the last two characters of each run.
 * What the trigrams left out could still change is worked out afterwards,
 * for the few pairs that get that far: a bigram's count (the cohesion
 * test) is the sum of the counts of the trigrams it begins and of the runs
 * it ends; a frequent trigram with a stop character where r differs from
 * f (the last test) is searched for by f's bytes, only for a pair that
 * passed every other test.  No library offers n-gram counting over
 * characters, and this table is forty lines.
 *
 * The stages are three files: this one (the configuration, the sound
 * table, the check's blocks), typo_drift_count.c (characters by code,
 * the n-gram table, the counting) and typo_drift_pairs.c (the candidate
 * pairs and their tests); typo_drift_int.h holds what they share. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "typo.h"
#include "utf8.h"
#include "wordmap.h"
#include "typo_drift_int.h"

const char *const jh_drift_params[] = {"words", "stop", "sound", "min-count", "max-rare", "cohesion",
                                       NULL};

void jh_drift_free(void *p)
{
	drift_cfg *c = p;
	if (!c)
		return;
	jh_wm_release_shared(c->common);
	jh_strset_free(&c->stop);
	free(c->class3);
	free(c->sound);
	jh_lazy_destroy(&c->once_class);
	jh_lazy_destroy(&c->once);
	jh_lazy_destroy(&c->once_sound);
	free(c);
}

static int cmp_sound(const void *a, const void *b)
{
	const struct sound *x = a, *y = b;
	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

/* The bytes that stop the scan for a tab in load_sound. */
static const unsigned char tab_or_nul[256] = {['\t'] = 1, ['\0'] = 1};

/* The bytes that end a field in sound_line: a tab, a line end, a NUL. */
static const unsigned char field_end[256] = {['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\0'] = 1};

/* One line of the table's usual shape, read in one walk: a character of
 * three bytes, an initial of 1-3 bytes, a final of 1-7, a radical of 1-9
 * digits, a newline.  The general reading would make the same entry of
 * it; anything else (a comment, a CR, a longer field, the last line
 * without its newline) is left to it: NULL.  Else the byte after the
 * line. */
static const char *sound_line(const char *p, const char *end, struct sound *e)
{
	if (end - p < 10)
		return NULL;
	unsigned b0 = (unsigned char)p[0], b1 = (unsigned char)p[1], b2 = (unsigned char)p[2];
	if (b0 < 0xE1 || b0 > 0xEF || b0 == 0xED || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80 ||
	    p[3] != '\t')
		return NULL;
	e->cp = (int32_t)((b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F));
	p += 4;
	size_t k = 0;
	while (k < sizeof e->initial - 1 && p < end && !field_end[(unsigned char)*p])
		e->initial[k++] = *p++;
	if (!k || p == end || *p != '\t')
		return NULL;
	e->initial[k] = '\0';
	p++;
	k = 0;
	while (k < sizeof e->final - 1 && p < end && !field_end[(unsigned char)*p])
		e->final[k++] = *p++;
	if (!k || p == end || *p != '\t')
		return NULL;
	e->final[k] = '\0';
	p++;
	unsigned long v = 0;
	for (k = 0; k < 9 && p < end && *p >= '0' && *p <= '9'; k++)
		v = v * 10 + (unsigned long)(*p++ - '0');
	if (!k || p == end || *p != '\n')
		return NULL;
	e->radical = (unsigned)v;
	return p + 1;
}

/* Read data/FILE: character<TAB>initial<TAB>final<TAB>radical.  A line
 * of the usual shape is read by sound_line (at 290 instructions a line,
 * the general reading was 6 M for the 21,000 of the Unihan table, paid
 * by the first text with a pair that gets that far); any other is split
 * here as jh_tsv_next splits it (a trailing CR dropped, empty and # lines
 * skipped, the fourth field keeps any further tabs). */
static int load_sound(drift_cfg *c)
{
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, c->sound_file, c->rule, c->rule->line, NULL, NULL);
	if (rc)
		return rc;
	size_t cap_v = 0;
	char *data = t.data;
	size_t pos = t.pos, len = t.len;
	/* character<TAB>initial<TAB>final<TAB>radical; a line that is not
	 * that is skipped, as a table with fewer rows only guards less; a line
	 * of fewer fields ends the table */
	while (rc == JH_OK && data && pos < len) {
		if (c->n_sound == cap_v &&
		    jh_grow((void **)&c->sound, &cap_v, c->n_sound + 1, sizeof *c->sound)) {
			rc = JH_ERR_NOMEM;
			break;
		}
		const char *next = sound_line(data + pos, data + len, &c->sound[c->n_sound]);
		if (next) {
			c->n_sound++;
			pos = (size_t)(next - data);
			continue;
		}
		char *ln = data + pos;
		char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		pos += n + (nl != NULL);
		if (n && ln[n - 1] == '\r')
			n--;
		ln[n] = '\0';
		if (!n || ln[0] == '#')
			continue;
		char *f[4], *q = ln;
		size_t fl[4];
		int k = 0;
		f[0] = ln;
		while (k < 3) { /* ln[n] is the NUL: it stops the scan */
			while (!tab_or_nul[(unsigned char)*q])
				q++;
			if (*q == '\0') {
				if (q == ln + n)
					break;
				q++; /* a NUL inside the line is a byte of its field */
				continue;
			}
			*q = '\0';
			fl[k] = (size_t)(q - f[k]);
			f[++k] = ++q;
		}
		if (k < 3)
			break;
		fl[3] = (size_t)(ln + n - f[3]);
		int32_t cp;
		if (fl[1] >= sizeof c->sound->initial || fl[2] >= sizeof c->sound->final || !fl[3] ||
		    jh_utf8_decode((const unsigned char *)f[0], fl[0], &cp) != fl[0] || cp < 0)
			continue;
		struct sound *e = &c->sound[c->n_sound++];
		e->cp = cp;
		memcpy(e->initial, f[1], fl[1] + 1);
		memcpy(e->final, f[2], fl[2] + 1);
		e->radical = (unsigned)strtoul(f[3], NULL, 10);
	}
	jh_tsv_close(&t);
	size_t i = 1;
	while (i < c->n_sound && c->sound[i - 1].cp <= c->sound[i].cp)
		i++;
	if (rc == JH_OK && i < c->n_sound) /* the generator writes it sorted */
		qsort(c->sound, c->n_sound, sizeof *c->sound, cmp_sound);
	return rc;
}

/* Do two characters sound or look alike?  Unknown characters do not. */
int drift_alike(const drift_cfg *c, int32_t a, int32_t b)
{
	struct sound ka = {a, "", "", 0}, kb = {b, "", "", 0};
	const struct sound *x = bsearch(&ka, c->sound, c->n_sound, sizeof ka, cmp_sound);
	const struct sound *y = bsearch(&kb, c->sound, c->n_sound, sizeof kb, cmp_sound);
	if (!x || !y)
		return 0;
	return (strcmp(x->initial, y->initial) == 0 && strcmp(x->initial, "-") != 0) ||
	       strcmp(x->final, y->final) == 0 || (x->radical && x->radical == y->radical);
}

/* Does the stop list hold a Han character beyond the BMP (looked up in
 * the list when one is read)? */
static int has_astral_stop(const jh_strset *stop)
{
	for (size_t k = 0; k < stop->cap; k++) {
		int32_t cp;
		const char *w = stop->keys[k];
		if (w && jh_utf8_decode((const unsigned char *)w, stop->lens[k], &cp) == stop->lens[k] &&
		    cp >= 0x10000 && (jh_class_of(cp) & JH_C_HAN))
			return 1;
	}
	return 0;
}

int jh_drift_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	drift_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once_class);
	jh_lazy_init(&c->once);
	jh_lazy_init(&c->once_sound);
	c->rule = r;
	int rc = JH_OK;
	/* words and sound: checked now, read on first use (drift_load). */
	const char *keys[2] = {"words", "sound"};
	const char **names[2] = {&c->words_file, &c->sound_file};
	for (int k = 0; k < 2 && rc == JH_OK; k++) {
		unsigned line = r->line;
		*names[k] = jh_rule_param(r, keys[k], &line);
		if (*names[k])
			rc = jh_data_readable(r, *names[k], line, diag_fn, payload);
	}
	unsigned line = r->line;
	const char *stop = jh_rule_param(r, "stop", &line);
	if (rc == JH_OK && stop)
		rc = jh_load_words(&c->stop, r->data_dir, stop, r, line, diag_fn, payload);
	if (rc == JH_OK)
		c->astral_stop = has_astral_stop(&c->stop);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "min-count", 5, 1000000, &c->min_count, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "max-rare", 1, 1000, &c->max_rare, diag_fn, payload);
	if (rc == JH_OK)
		rc = jh_param_uint(r, "cohesion", 60, 100, &c->cohesion, diag_fn, payload);
	if (rc == JH_OK && c->min_count <= c->max_rare) {
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
		          "min-count must be larger than max-rare");
		rc = JH_ERR_RULES;
	}
	if (rc) {
		jh_drift_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

int drift_sound_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = c->sound_file ? load_sound(c) : JH_OK;
	return rc == JH_ERR_NOMEM ? rc : JH_OK; /* a file gone: fewer guards */
}

/* Read the common words, once (jh_lazy): the rule set may serve several
 * threads.  A file gone since compiling means fewer guards, not an error;
 * only running out of memory stops the check. */
static int drift_read(void *arg)
{
	drift_cfg *c = arg;
	int rc = JH_OK;
	if (c->words_file)
		/* the word-model table (wordmap.h): shared, and mapped from the
		 * cache folder after the first run */
		rc = jh_wm_get_shared(c->rule, c->words_file, c->rule->line, 0, &c->common, NULL, NULL);
	return rc == JH_ERR_NOMEM ? rc : JH_OK;
}

int drift_load(drift_cfg *c)
{
	return jh_lazy_get(&c->once, drift_read, c);
}

/* ---- the check ---- */

static int cmp_hit(const void *a, const void *b)
{
	/* a total order: the first window of a character wins whatever order
	 * the table gave the hits in */
	const drift_hit *x = a, *y = b;
	if (x->dpos != y->dpos)
		return x->dpos < y->dpos ? -1 : 1;
	if (x->rpos != y->rpos)
		return x->rpos < y->rpos ? -1 : 1;
	return x->fpos < y->fpos ? -1 : x->fpos > y->fpos;
}

/* The document is counted in blocks of about DRIFT_BLOCK bytes (cut at a
 * line end): a name and its drifted form are compared within a block, so
 * the n-gram table stays at a few MB and in cache whatever the file's
 * size (one table over a 200 MB file took gigabytes).  A megabyte is a
 * hundred chapters: a name that drifts is seen often in far less. */
#ifndef DRIFT_BLOCK
#define DRIFT_BLOCK ((size_t)1 << 20)
#endif
_Static_assert(DRIFT_BLOCK / 2 < UINT32_MAX, "a block's counts must fit a uint32_t");

static size_t block_end(const char *text, size_t len, size_t start)
{
	if (len - start <= DRIFT_BLOCK + DRIFT_BLOCK / 4)
		return len; /* no short last block */
	const char *nl = memchr(text + start + DRIFT_BLOCK, '\n', DRIFT_BLOCK / 4);
	return nl ? (size_t)(nl - text) + 1 : start + DRIFT_BLOCK;
}

static void drift_emit(jh_brun *run, drift_work *w)
{
	const char *text = run->text;
	size_t len = run->len;
	drift_hit *hits = w->hits;
	if (w->n_hits > 1)
		qsort(hits, w->n_hits, sizeof *hits, cmp_hit);
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < w->n_hits; k++) {
		if (hits[k].dpos == last)
			continue; /* one finding per character, from its first window */
		last = hits[k].dpos;
		size_t ro[4], fo[4];
		drift_tri_offsets(text, len, hits[k].rpos, ro);
		drift_tri_offsets(text, len, hits[k].fpos, fo);
		size_t g[2] = {fo[0], fo[3]};
		size_t at = run->out->count;
		jh_brun_emit(run, ro[0], ro[3], g, 1, NULL);
		/* The frequent form is an answer to check, not a fix: where
		 * a text spells a name two ways both are often right
		 * (transliterations, a quoted misprint, an idiom that shares
		 * two characters), and the document cannot tell which
		 * (README, "How often an unsafe fix is right").  So not even
		 * `fix --unsafe` applies it; the message still names it. */
		if (!run->err && run->out->count == at + 1) {
			jh_finding *f = &run->out->items[at];
			if (f->has_fix && f->n_edits == 1) {
				int e = jh_findings_add_alternative(run->out, at, f->edits, 1);
				if (e)
					run->err = e;
				else
					jh_finding_drop_fix(&run->out->items[at]);
			}
		}
	}
}

static int drift_block(jh_brun *run, drift_work *w, size_t start, size_t end)
{
	const drift_cfg *cfg = run->cfg;
	ng_clear(&w->dc.tri); /* the next block starts empty, in the same memory */
	w->dc.n_tails = 0;
	if (!w->dc.cap_tails &&
	    jh_grow((void **)&w->dc.tails, &w->dc.cap_tails, 1024, sizeof *w->dc.tails))
		return JH_ERR_NOMEM;
	/* A Han character is three bytes and about half the trigrams hold a
	 * stop character: a chapter's table is made once, at its size; a
	 * long block starts at 32,768 keys and grows, as repeated text has
	 * few distinct ones. */
	size_t most = (end - start) / 6;
	int rc = ng_reserve(&w->dc.tri, most < 32768 ? most : 32768);
	if (rc == JH_OK)
		rc = drift_count_block(cfg, w->class3, (const unsigned char *)run->text, run->len, start,
		                       end, &w->dc);
	/* Most texts a hook sees are short: without a frequent form there is
	 * nothing to compare, and the tables need not be read. */
	if (rc == JH_OK)
		rc = drift_forms_sort(cfg, w);
	w->n_pairs = w->n_hits = 0;
	if (rc == JH_OK && w->n_freq && w->n_rare)
		rc = drift_frequent_build(w);
	if (rc == JH_OK && w->n_freq && w->n_rare)
		rc = drift_candidates(cfg, w);
	if (rc == JH_OK && w->n_pairs)
		rc = drift_hits(run, w, start, end);
	if (rc == JH_OK)
		drift_emit(run, w);
	return rc;
}

/* Below this many bytes a text is read without the class table: building
 * it costs what reading 1,500 characters without it does, and most texts
 * a hook or an editor checks are a line or a paragraph. */
#ifndef CLASS_TABLE_MIN
#define CLASS_TABLE_MIN 4096
#endif

void jh_drift_finish(jh_brun *run)
{
	drift_cfg *cfg = (drift_cfg *)run->cfg;
	drift_work w = {0};
	int rc = JH_OK;
	if (run->len >= CLASS_TABLE_MIN) {
		rc = jh_lazy_get(&cfg->once_class, drift_build_classes, cfg);
		w.class3 = cfg->class3;
	}
	for (size_t start = 0, end; start < run->len && rc == JH_OK; start = end) {
		end = block_end(run->text, run->len, start);
		rc = drift_block(run, &w, start, end);
	}
	if (rc)
		run->err = rc;
	ng_free(&w.dc.tri);
	ng_free(&w.masks);
	ng_free(&w.halves);
	free(w.dc.tails);
	free(w.rare);
	free(w.freq);
	free(w.pairs);
	free(w.hits);
}
