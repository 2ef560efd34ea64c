/* typo_context_data.c — typo.context's compiled settings and tables: the
 * rule's parameters, the syllables and character tables (data/typo-*.tsv),
 * the word dictionary with its Bloom filters, the confusion index and the
 * word trigram model (typo_lm.c).  How they are used: typo_context.c. */
#define _GNU_SOURCE 1 /* memmem */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "findings.h"
#include "typo.h"
#include "typo_lm.h"
#include "utf8.h"
#include "util.h"
#include "typo_context.h"

const char *const jh_context_params[] = {
	"dict",        "lm",           "lm-words",    "stop",         "similar",     "t2s", "s2t",
	"groups",      "min-freq",     "min-char-freq", "margin",      "near-margin",  "shape-margin",
	"stop-margin", "group-margin", "pair-margin", "joint-slack", "long-freq", "trace", "weights", NULL};

void jh_context_free(void *p)
{
	ctx_cfg *c = p;
	if (!c)
		return;
	free(c->dict_path);
	free(c->model_path);
	free(c->lexicon_path);
	jh_lm_free(c->lm);
	free(c->conf);
	free(c->conf_val);
	jh_strset_free(&c->stop);
	free(c->info);
	free(c->shape_cp);
	free(c->forms_cp);
	free(c->dict);
	free(c->single_logp);
	free(c->prefix_bloom);
	free(c->prefix3_bloom);
	free(c->pair_bloom);
	free(c->lm_single);
	free(c->lm_bloom);
	ctx_pool_free(c);
	pthread_mutex_destroy(&c->pool_lock);
	jh_lazy_destroy(&c->once);
	free(c);
}

int decode_all(const char *s, size_t n, int32_t *out, int max)
{
	int k = 0;
	for (size_t i = 0; i < n;) {
		int32_t cp;
		size_t m = jh_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (!m || cp < 0 || k == max)
			return -1;
		out[k++] = cp;
		i += m;
	}
	return k;
}

/* `groups`: words of function characters separated by spaces, 的地得 在再. */
static int parse_groups(ctx_cfg *c, const char *v, const jh_rule *r, unsigned line,
                        jh_diag_fn diag_fn, void *payload)
{
	for (const char *p = v; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t");
		if (!n)
			break;
		int k = c->n_groups < MAX_GROUPS ? decode_all(p, n, c->group_cp[c->n_groups], GROUP_LEN - 1)
		                                 : -1;
		if (k < 2) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, line, 0, r->id,
			          "'groups': '%.*s' is not a group of 2 to %d characters (at most %d groups)",
			          (int)n, p, GROUP_LEN - 1, MAX_GROUPS);
			return JH_ERR_RULES;
		}
		c->group_cp[c->n_groups++][k] = 0;
		p += n;
	}
	return JH_OK;
}

static int copy_param(const jh_rule *r, const char *key, char **out)
{
	unsigned line = r->line;
	const char *v = jh_rule_param(r, key, &line);
	return v && !(*out = strdup(v)) ? JH_ERR_NOMEM : JH_OK;
}

static int compile_margins(ctx_cfg *c, const jh_rule *r, jh_diag_fn diag_fn, void *payload)
{
	struct {
		const char *key;
		unsigned long dflt, max, *out;
	} p[] = {{"min-freq", 300, 100000000, &c->min_freq}, {"margin", 7, 100, &c->margin},
	         {"min-char-freq", 100, 100000000, &c->min_char_freq},
	         {"near-margin", 4, 100, &c->near_margin},
	         {"shape-margin", 8, 100, &c->shape_margin}, {"stop-margin", 6, 100, &c->stop_margin},
	         {"group-margin", 6, 100, &c->group_margin}, {"pair-margin", 0, 100, &c->pair_margin},
	         {"joint-slack", 0, 100, &c->joint_slack},
	         {"long-freq", 0, 100000000, &c->long_freq}, {"trace", 0, 1, &c->trace}};
	int rc = JH_OK;
	for (size_t k = 0; k < sizeof p / sizeof *p && rc == JH_OK; k++)
		rc = jh_param_uint(r, p[k].key, p[k].dflt, p[k].max, p[k].out, diag_fn, payload);
	return rc;
}

int jh_context_compile(const jh_rule *r, void **out, jh_diag_fn diag_fn, void *payload)
{
	ctx_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	jh_lazy_init(&c->once);
	pthread_mutex_init(&c->pool_lock, NULL);
	c->rule = r;
	int rc = copy_param(r, "dict", &c->dict_path);
	if (rc == JH_OK)
		rc = copy_param(r, "lm", &c->model_path);
	if (rc == JH_OK)
		rc = copy_param(r, "lm-words", &c->lexicon_path);
	const char *keys[] = {"stop", "similar", "t2s", "s2t"};
	for (int k = 0; k < 4 && rc == JH_OK; k++) {
		c->lines[k] = r->line;
		c->files[k] = jh_rule_param(r, keys[k], &c->lines[k]);
		if (!c->files[k]) {
			jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id,
			          "check 'context' needs '%s'", keys[k]);
			rc = JH_ERR_RULES;
		} else {
			rc = jh_data_readable(r, c->files[k], c->lines[k], diag_fn, payload);
		}
	}
	unsigned wl = r->line;
	const char *wf = jh_rule_param(r, "weights", &wl);
	if (rc == JH_OK && wf && *wf) {
		c->weights_file = wf, c->weights_line = wl;
		rc = jh_data_readable(r, wf, wl, diag_fn, payload);
	}
	unsigned line = r->line;
	const char *groups = jh_rule_param(r, "groups", &line);
	if (rc == JH_OK && groups)
		rc = parse_groups(c, groups, r, line, diag_fn, payload);
	if (rc == JH_OK)
		rc = compile_margins(c, r, diag_fn, payload);
	if (rc) {
		jh_context_free(c);
		return rc;
	}
	*out = c;
	return JH_OK;
}

/* ---- syllables ---- */

static const char *const INITIALS[] = {"zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l",
                                       "g",  "k",  "h",  "j", "q", "x", "r", "z", "c", "s", "y",
                                       "w",  NULL};

/* The id of syllable name[0..n), added if new; -1 when the table is full
 * or the name too long. */
static int syl_id(ctx_cfg *c, const char *name, size_t n)
{
	if (!n || n >= sizeof c->syl_name[0])
		return -1;
	uint64_t h = 1469598103934665603ull;
	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)name[k]) * 1099511628211ull;
	size_t mask = sizeof c->syl_slot / sizeof *c->syl_slot - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		int id = c->syl_slot[i] - 1;
		if (id < 0)
			break;
		if (strncmp(c->syl_name[id], name, n) == 0 && !c->syl_name[id][n])
			return id;
	}
	if (c->n_syl >= MAX_SYL)
		return -1;
	int id = c->n_syl++;
	memcpy(c->syl_name[id], name, n);
	c->syl_name[id][n] = '\0';
	size_t i = h & mask;
	while (c->syl_slot[i])
		i = (i + 1) & mask;
	c->syl_slot[i] = (uint16_t)(id + 1);
	c->near[id] = (uint16_t)id;
	return id;
}

/* The class of similar syllables a name belongs to: the initial and final
 * with the distinctions that speakers and learners blur dropped (zh z,
 * ch c, sh s, n l, f h; -ng -n).  It is itself a name in the table. */
static int syl_class(ctx_cfg *c, const char *name)
{
	char buf[12] = "";
	const char *fin = name;
	for (int k = 0; INITIALS[k]; k++) {
		size_t n = strlen(INITIALS[k]);
		if (strncmp(name, INITIALS[k], n) == 0 && name[n]) {
			buf[0] = name[0] == 'n' ? 'l' : name[0] == 'f' ? 'h' : name[0]; /* zh → z */
			buf[1] = '\0';
			fin = name + n;
			break;
		}
	}
	size_t b = strlen(buf), f = strlen(fin);
	if (b + f >= sizeof buf)
		return -1;
	memcpy(buf + b, fin, f + 1);
	if (f >= 3 && strcmp(fin + f - 3, "ong") != 0 && strcmp(fin + f - 2, "ng") == 0)
		buf[b + f - 1] = '\0'; /* ang → an, ing → in; ong has no -n partner */
	return syl_id(c, buf, strlen(buf));
}

/* ---- tables ---- */

static int bad_line(const jh_tsv *t, const jh_rule *r, jh_diag_fn diag_fn, void *payload,
                    const char *what)
{
	jh_report(diag_fn, payload, JH_ERROR, t->path, t->line, 0, r->id, "%s", what);
	return JH_ERR_RULES;
}

/* One line of typo-similar.tsv: character, syllables, look-alikes. */
static int similar_line(ctx_cfg *c, char **f, size_t *fl, int nf, size_t *cap_shape)
{
	int32_t cp;
	if (nf < 2 || decode_all(f[0], fl[0], &cp, 1) != 1 || !info_of(c, cp))
		return JH_ERR_RULES;
	char_info *in = &c->info[cp - CJK_LO];
	int k = 0;
	for (char *p = f[1]; *p && k < MAX_READ;) {
		size_t n = strcspn(p, " ");
		if (n) {
			char name[8];
			int id = n < sizeof name ? syl_id(c, p, n) : -1;
			if (id < 0)
				return JH_ERR_RULES;
			memcpy(name, p, n);
			name[n] = '\0';
			int cl = syl_class(c, name);
			if (cl < 0)
				return JH_ERR_RULES;
			c->near[id] = (uint16_t)cl;
			in->syl[k++] = (uint16_t)(id + 1);
		}
		p += n + (p[n] == ' ');
	}
	int32_t sh[16];
	int ns = nf > 2 ? decode_all(f[2], fl[2], sh, 16) : 0;
	if (ns < 0)
		return JH_ERR_RULES;
	if (jh_grow((void **)&c->shape_cp, cap_shape, c->n_shape + (size_t)ns, sizeof *c->shape_cp))
		return JH_ERR_NOMEM;
	in->shape = (uint32_t)c->n_shape;
	for (int j = 0; j < ns; j++)
		if (info_of(c, sh[j]))
			c->shape_cp[c->n_shape++] = sh[j];
	in->n_shape = (uint16_t)(c->n_shape - in->shape);
	return JH_OK;
}

/* typo-t2s.tsv: traditional, simplified. */
static int t2s_line(ctx_cfg *c, char **f, size_t *fl, int nf)
{
	int32_t a, b;
	if (nf != 2 || decode_all(f[0], fl[0], &a, 1) != 1 || decode_all(f[1], fl[1], &b, 1) != 1)
		return JH_ERR_RULES;
	if (info_of(c, a))
		c->info[a - CJK_LO].simp = b;
	return JH_OK;
}

/* typo-s2t.tsv: simplified, its traditional forms (the usual first), its
 * other variants; either list may be empty. */
static int s2t_line(ctx_cfg *c, char **f, size_t *fl, int nf, size_t *cap_forms)
{
	int32_t a, b[16];
	int nt = nf >= 2 ? decode_all(f[1], fl[1], b, 8) : -1;
	int nv = nt >= 0 && nf == 3 ? decode_all(f[2], fl[2], b + nt, 8) : 0;
	if (nt < 0 || nv < 0 || nt + nv == 0 || decode_all(f[0], fl[0], &a, 1) != 1)
		return JH_ERR_RULES;
	if (!info_of(c, a))
		return JH_OK; /* outside the block the rule looks at */
	if (jh_grow((void **)&c->forms_cp, cap_forms, c->n_forms + (size_t)(nt + nv),
	            sizeof *c->forms_cp))
		return JH_ERR_NOMEM;
	char_info *in = &c->info[a - CJK_LO];
	in->trad = nt ? b[0] : 0;
	in->forms = (uint32_t)c->n_forms;
	in->n_forms = (uint8_t)nt;
	in->n_var = (uint8_t)(nt + nv);
	memcpy(c->forms_cp + c->n_forms, b, (size_t)(nt + nv) * sizeof *b);
	c->n_forms += (size_t)(nt + nv);
	return JH_OK;
}

/* Read table k (1 similar, 2 t2s, 3 s2t); a line that is not of the
 * table's form is an error with its file and line. */
static int load_table(ctx_cfg *c, int k, jh_diag_fn diag_fn, void *payload)
{
	const jh_rule *r = c->rule;
	jh_tsv t;
	int rc = jh_data_open(&t, NULL, c->files[k], r, c->lines[k], diag_fn, payload);
	char *f[3];
	size_t fl[3], cap_a = 0, cap_b = 0;
	int nf;
	while (rc == JH_OK && (nf = jh_tsv_next(&t, f, fl, 3)) > 0) {
		rc = k == 1   ? similar_line(c, f, fl, nf, &cap_a)
		     : k == 2 ? t2s_line(c, f, fl, nf)
		              : s2t_line(c, f, fl, nf, &cap_b);
		if (rc == JH_ERR_RULES)
			bad_line(&t, r, diag_fn, payload,
			         k == 1   ? "not a line 'character<TAB>syllables<TAB>look-alikes'"
			         : k == 2 ? "not a line 'traditional<TAB>simplified'"
			                  : "not a line 'character<TAB>traditional forms<TAB>variants'");
	}
	jh_tsv_close(&t);
	return rc;
}

static void mark_stop_and_groups(ctx_cfg *c)
{
	for (int32_t x = CJK_LO; x <= CJK_HI; x++) {
		char b[4];
		size_t n = jh_utf8_encode(x, b);
		char_info *in = &c->info[x - CJK_LO];
		in->stop = jh_strset_has(&c->stop, b, n) != 0;
		in->hans = in->n_forms > 0;
		for (unsigned f = 0; f < in->n_forms; f++)
			in->hans &= c->forms_cp[in->forms + f] != x;
	}
	for (int g = 0; g < c->n_groups; g++)
		for (int k = 0; c->group_cp[g][k]; k++)
			if (info_of(c, c->group_cp[g][k]))
				c->info[c->group_cp[g][k] - CJK_LO].group = (uint8_t)(g + 1);
}


static void dict_load(ctx_cfg *c);
static int lm_load(ctx_cfg *c, jh_diag_fn diag_fn, void *payload);
static int conf_build(ctx_cfg *c);

/* The first use: the stop list, the character tables, the dictionary and
 * the model. */
int load_tables(void *arg)
{
	lazy_arg *a = arg;
	ctx_cfg *c = a->c;
	const jh_rule *r = c->rule;
	int rc = jh_load_words(&c->stop, r->data_dir, c->files[0], r, c->lines[0], a->diag_fn,
	                       a->payload);
	if (rc == JH_OK && !(c->info = calloc(CJK_HI - CJK_LO + 1, sizeof *c->info)))
		rc = JH_ERR_NOMEM;
	for (int k = 1; k < 4 && rc == JH_OK; k++)
		rc = load_table(c, k, a->diag_fn, a->payload);
	if (rc == JH_OK && c->weights_file)
		rc = ctx_load_weights(c, a->diag_fn, a->payload);
	if (rc != JH_OK)
		return rc;
	mark_stop_and_groups(c);
	dict_load(c);
	if (c->dict_cap)
		rc = conf_build(c);
	if (rc == JH_OK && c->dict_cap && c->model_path && c->lexicon_path)
		rc = lm_load(c, a->diag_fn, a->payload);
	return rc;
}

/* ---- dictionary ---- */


dict_slot *dict_find(const ctx_cfg *c, const int32_t *cp, int n, uint64_t h)
{
	for (size_t i = h & (c->dict_cap - 1);; i = (i + 1) & (c->dict_cap - 1)) {
		dict_slot *s = &c->dict[i];
		if (!s->h)
			return s;
		if (s->h == h && memcmp(s->cp, cp, n * sizeof *cp) == 0 && (n == MAX_WORD || !s->cp[n]))
			return s;
	}
}

uint32_t dict_freq(const ctx_cfg *c, const int32_t *cp, int n)
{
	if (!c->dict_cap)
		return 0;
	if (n >= 2 && !prefix_maybe(c, cp[0], cp[1]))
		return 0;
	if (n >= 3 && !prefix3_maybe(c, cp[0], cp[1], cp[2]))
		return 0;
	const dict_slot *s = dict_find(c, cp, n, jh_hash_cps(cp, n));
	return s->h ? s->freq : 0;
}

/* One line of jieba's dict.txt (word freq tag): a Han word of 1-4
 * characters goes into the table; the frequency counts toward the total
 * whatever the word. */
static void dict_add(ctx_cfg *c, const char *ln, size_t len, size_t *n_words, double *total)
{
	const char *sp = memchr(ln, ' ', len);
	if (!sp)
		return;
	int32_t cp[MAX_WORD] = {0};
	int n = 0, ok = 1;
	for (const char *p = ln; p < sp && ok;) {
		int32_t x;
		size_t k = jh_utf8_decode((const unsigned char *)p, (size_t)(sp - p), &x);
		ok = n < MAX_WORD && x > 0 && (jh_class_of(x) & JH_C_HAN);
		if (ok)
			cp[n++] = x;
		p += k ? k : 1;
	}
	char *end;
	unsigned long freq = strtoul(sp + 1, &end, 10);
	*total += (double)freq;
	while (end < ln + len && *end == ' ')
		end++;
	size_t tl = (size_t)(ln + len - end);
	uint8_t tag = !tl                ? 0
	              : *end == 'v'      ? TAG_VERB | TAG_PRED
	              : *end == 'a' || *end == 'd' || (tl == 1 && *end == 'z') ||
	                (tl == 2 && memcmp(end, "ug", 2) == 0)
	                  ? TAG_PRED
	                  : 0;
	if (!ok || !n || !freq)
		return;
	if (n >= 2)
		bloom_add(c->prefix_bloom, cp[0], cp[1]);
	if (n >= 3)
		bloom_add(c->prefix3_bloom, cp[0], fold3(cp[1], cp[2]));
	uint64_t h = jh_hash_cps(cp, n);
	dict_slot *s = dict_find(c, cp, n, h);
	if (!s->h) {
		s->h = h;
		memcpy(s->cp, cp, sizeof cp);
		(*n_words)++;
	}
	s->freq = freq > UINT32_MAX ? UINT32_MAX : (uint32_t)freq;
	s->tag = tag;
}

uint8_t dict_tag(const ctx_cfg *c, const int32_t *cp, int n)
{
	if (!c->dict_cap || (n >= 2 && !prefix_maybe(c, cp[0], cp[1])))
		return 0;
	const dict_slot *s = dict_find(c, cp, n, jh_hash_cps(cp, n));
	return s->h ? s->tag : 0;
}

/* Read jieba's dict.txt; without it (or without memory for it) the rule
 * finds nothing. */
static void dict_load(ctx_cfg *c)
{
	jh_tsv t;
	if (!c->dict_path || jh_tsv_open(&t, c->dict_path) != JH_OK)
		return;
	c->dict_cap = (size_t)1 << 20; /* 1 M slots for jieba's 350 k words */
	c->dict = calloc(c->dict_cap, sizeof *c->dict);
	c->single_logp = calloc(CJK_HI - CJK_LO + 1, sizeof *c->single_logp);
	c->prefix_bloom = calloc(PREFIX_BITS / 64, sizeof *c->prefix_bloom);
	c->prefix3_bloom = calloc(PREFIX_BITS / 64, sizeof *c->prefix3_bloom);
	if (!c->dict || !c->single_logp || !c->prefix_bloom || !c->prefix3_bloom) {
		free(c->dict);
		free(c->single_logp);
		free(c->prefix_bloom);
		free(c->prefix3_bloom);
		c->dict = NULL, c->single_logp = NULL, c->prefix_bloom = NULL;
		c->prefix3_bloom = NULL;
		c->dict_cap = 0;
		jh_tsv_close(&t);
		return;
	}
	char *f[1];
	size_t fl[1], n_words = 0;
	double total = 0;
	while (n_words < c->dict_cap / 2 && jh_tsv_next(&t, f, fl, 1) > 0)
		dict_add(c, f[0], fl[0], &n_words, &total);
	jh_tsv_close(&t);
	c->log_total = log(total > 1 ? total : 1);
	c->rare_logp = (float)(log((double)c->min_char_freq) - c->log_total);
	for (int32_t x = CJK_LO; x <= CJK_HI; x++) {
		const dict_slot *s = dict_find(c, &x, 1, jh_hash_cps(&x, 1));
		c->single_logp[x - CJK_LO] = (float)(log(s->h ? s->freq : 1) - c->log_total);
	}
}

/* ---- the confusion index ---- */






typedef struct {
	uint64_t key;
	int32_t v[2];
} conf_entry;

static int cmp_conf(const void *a, const void *b)
{
	const conf_entry *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? -1 : 1;
	return x->v[1] < y->v[1] ? -1 : x->v[1] > y->v[1];
}

/* The entries of one two-character word a b: b under (left a, each class
 * of b), a under (right b, each class of a), the word under each pair of
 * classes. */
static int conf_add_word(const ctx_cfg *c, int32_t a, int32_t b, conf_entry **e, size_t *n,
                         size_t *cap)
{
	uint32_t ca[MAX_READ], cb[MAX_READ];
	int na = classes_of(c, a, ca), nb = classes_of(c, b, cb);
	if (!na || !nb)
		return JH_OK;
	if (jh_grow((void **)e, cap, *n + (size_t)(na + nb + na * nb), sizeof **e))
		return JH_ERR_NOMEM;
	for (int k = 0; k < nb; k++)
		(*e)[(*n)++] = (conf_entry){conf_key(CONF_LEFT, (uint32_t)a, cb[k]), {b, 0}};
	for (int k = 0; k < na; k++)
		(*e)[(*n)++] = (conf_entry){conf_key(CONF_RIGHT, (uint32_t)b, ca[k]), {a, 0}};
	for (int j = 0; j < na; j++)
		for (int k = 0; k < nb; k++)
			(*e)[(*n)++] = (conf_entry){conf_key(CONF_PAIR, ca[j], cb[k]), {a, b}};
	return JH_OK;
}

/* The key of a word of 3 or 4 characters w[0..L) with the character at o
 * left out (its class is the key's other half). */

/* The entries of one word of 3 or 4 characters: each character under the
 * others and its classes (望尘莫及: 望 under 尘莫及 at 0, class wan). */
static int conf_add_long(const ctx_cfg *c, const int32_t *w, int L, conf_entry **e, size_t *n,
                         size_t *cap)
{
	for (int o = 0; o < L; o++) {
		uint32_t cl[MAX_READ];
		int nc = classes_of(c, w[o], cl);
		if (jh_grow((void **)e, cap, *n + (size_t)nc, sizeof **e))
			return JH_ERR_NOMEM;
		for (int k = 0; k < nc; k++)
			(*e)[(*n)++] = (conf_entry){conf_key(CONF_LONG, conf_long_hash(w, L, o), cl[k]),
			                            {w[o], 0}};
	}
	return JH_OK;
}

/* The index, from the dictionary's two-character words of min-freq or
 * more whose characters have a syllable, and its words of three or four
 * characters of long-freq or more. */
static int conf_build(ctx_cfg *c)
{
	conf_entry *e = NULL;
	size_t n = 0, cap = 0;
	if (!(c->pair_bloom = calloc(PREFIX_BITS / 64, sizeof *c->pair_bloom)))
		return JH_ERR_NOMEM;
	for (size_t i = 0; i < c->dict_cap; i++) {
		const dict_slot *d = &c->dict[i];
		int L = !d->h || !d->cp[1] ? 0 : !d->cp[2] ? 2 : !d->cp[3] ? 3 : 4;
		if (L == 2 && d->freq >= c->min_freq)
			bloom_add(c->pair_bloom, d->cp[0], d->cp[1]);
		if ((L == 2 && d->freq >= c->min_freq &&
		     conf_add_word(c, d->cp[0], d->cp[1], &e, &n, &cap)) ||
		    (L > 2 && c->long_freq && d->freq >= c->long_freq &&
		     conf_add_long(c, d->cp, L, &e, &n, &cap))) {
			free(e);
			return JH_ERR_NOMEM;
		}
	}
	qsort(e, n, sizeof *e, cmp_conf);
	/* at most half full: nearly every lookup is of a key that is not
	 * there, and it probes on to an empty slot */
	c->conf_cap = 1;
	while (c->conf_cap < 2 * n + 16)
		c->conf_cap <<= 1;
	c->conf = calloc(c->conf_cap, sizeof *c->conf);
	c->conf_val = malloc((n * 2 + 1) * sizeof *c->conf_val);
	if (!c->conf || !c->conf_val) {
		free(e);
		return JH_ERR_NOMEM;
	}
	for (size_t k = 0; k < n;) {
		size_t j = k, m = 0;
		uint32_t start = (uint32_t)c->n_conf_val;
		int pair = (e[k].key >> 62) == CONF_PAIR;
		for (; j < n && e[j].key == e[k].key; j++) {
			if (j > k && e[j].v[0] == e[j - 1].v[0] && e[j].v[1] == e[j - 1].v[1])
				continue; /* the same word under two readings */
			c->conf_val[c->n_conf_val++] = e[j].v[0];
			if (pair)
				c->conf_val[c->n_conf_val++] = e[j].v[1];
			m++;
		}
		size_t i = conf_at(c, e[k].key);
		while (c->conf[i].key)
			i = (i + 1) & (c->conf_cap - 1);
		c->conf[i] = (conf_slot){e[k].key, start, (uint32_t)m};
		k = j;
	}
	free(e);
	return JH_OK;
}

/* The model, if the package is there.  Missing files leave the rule with
 * its unigram scoring; a broken file is reported, and the rule then finds
 * nothing. */
/* The fast paths of lm_word. */
static int lm_index(ctx_cfg *c)
{
	c->lm_single = calloc(CJK_HI - CJK_LO + 1, sizeof *c->lm_single);
	c->lm_bloom = calloc(PREFIX_BITS / 64, sizeof *c->lm_bloom);
	if (!c->lm_single || !c->lm_bloom)
		return JH_ERR_NOMEM;
	for (int32_t x = CJK_LO; x <= CJK_HI; x++)
		c->lm_single[x - CJK_LO] = jh_lm_word(c->lm, &x, 1);
	for (uint32_t id = 1; id < jh_lm_count(c->lm); id++) {
		int32_t w[JH_LM_MAX_WORD];
		if (jh_lm_word_text(c->lm, id, w, JH_LM_MAX_WORD) >= 2)
			bloom_add(c->lm_bloom, w[0], w[1]);
	}
	return JH_OK;
}

static int lm_load(ctx_cfg *c, jh_diag_fn diag_fn, void *payload)
{
	char err[300];
	int rc = jh_lm_open_cached(&c->lm, c->model_path, c->lexicon_path, c->rule->cache_dir, err,
	                           sizeof err);
	if (rc == JH_ERR_IO)
		return JH_OK;
	if (rc) {
		const jh_rule *r = c->rule;
		jh_report(diag_fn, payload, JH_ERROR, r->file, r->line, 0, r->id, "%s", err);
		return rc;
	}
	return lm_index(c);
}
