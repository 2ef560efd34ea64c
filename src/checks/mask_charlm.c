/* mask_charlm.c — the character n-gram model of mask restoration (see
 * mask_charlm.h).  The file is the one rules/tools/gen-char-lm.py writes:
 * open-addressed tables of hashed n-grams (ln P and ln backoff, a byte
 * each) and of hashed contexts (lists of likely next and previous
 * characters), mapped read-only.  Written here rather than taken from a
 * library: the models Debian packages readers for (KenLM's, through
 * libime's C++ API) are word models of general text, and a reader of this
 * simple form is a few hash probes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "charclass.h"
#include "datafile.h"
#include "jinghua.h"
#include "mask_charlm.h"

#define MAGIC "JHCLM01\n"
#define HEAD_LEN (8 + 12 * 4 + 2 * 4)
#define MAX_ORDER 6
#define BOS 0x02
#define UNK (-16.0) /* ln P of a character the model never saw */
enum { TAG_GRAM = 1, TAG_SUCC = 2, TAG_PRED = 3 };

struct jh_cm {
	const unsigned char *map;
	size_t size;
	unsigned order;
	uint32_t gslots, lslots, nchars, ncells;
	const uint32_t *gfp, *lfp, *lval, *chars;
	const unsigned char *gp, *gb;
	const uint16_t *cells;
	float qp, qb;
};

void jh_cm_free(jh_cm *m)
{
	if (!m)
		return;
	jh_unmap_file(m->map, m->size);
	free(m);
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int jh_cm_open(jh_cm **out, const char *path, char *err, size_t err_len)
{
	*out = NULL;
	const unsigned char *p;
	size_t size;
	int rc = jh_map_file(path, HEAD_LEN, &p, &size, err, err_len);
	if (rc)
		return rc;
	jh_cm *m = calloc(1, sizeof *m);
	if (!m) {
		jh_unmap_file(p, size);
		return JH_ERR_NOMEM;
	}
	m->map = p;
	m->size = size;
	const unsigned char *h = m->map;
	uint32_t f[12];
	for (int i = 0; i < 12; i++)
		f[i] = jh_rd32(h + 8 + 4 * i);
	m->order = f[0];
	m->gslots = f[1];
	m->lslots = f[2];
	m->nchars = f[3];
	m->ncells = f[4];
	memcpy(&m->qp, h + 8 + 48, 4);
	memcpy(&m->qb, h + 8 + 52, 4);
	/* every array inside the file, past the header, aligned, of the size
	 * the counts say: gfp, gp, gb, lfp, lval, chars, cells */
	uint64_t need[7][2] = {{f[5], 4ull * f[1]}, {f[6], f[1]},       {f[7], f[1]},
	                       {f[8], 4ull * f[2]}, {f[9], 4ull * f[2]}, {f[10], 4ull * f[3]},
	                       {f[11], 2ull * f[4]}};
	int bad = memcmp(h, MAGIC, 8) || m->order < 1 || m->order > MAX_ORDER || !is_pow2(f[1]) ||
	          !is_pow2(f[2]) || f[3] > 65536 || f[5] % 4 || f[8] % 4 || f[9] % 4 || f[10] % 4 ||
	          f[11] % 2 || !(m->qp > 0) || !(m->qb > 0);
	for (int i = 0; i < 7 && !bad; i++)
		bad = need[i][0] < HEAD_LEN || need[i][0] + need[i][1] > m->size;
	if (bad) {
		jh_cm_free(m);
		return jh_fail(err, err_len, JH_ERR_RULES, "%s: not a character model of this form",
		               path);
	}
	m->gfp = (const uint32_t *)(h + f[5]);
	m->gp = h + f[6];
	m->gb = h + f[7];
	m->lfp = (const uint32_t *)(h + f[8]);
	m->lval = (const uint32_t *)(h + f[9]);
	m->chars = (const uint32_t *)(h + f[10]);
	m->cells = (const uint16_t *)(h + f[11]);
	/* the lists' cells must lie inside the file and index a character */
	for (uint32_t i = 0; i < m->lslots && !bad; i++)
		if (m->lfp[i]) {
			uint32_t off = m->lval[i] & ((1u << 26) - 1), n = m->lval[i] >> 26;
			bad = (uint64_t)off + n > m->ncells;
		}
	for (uint32_t i = 0; i < m->ncells && !bad; i++)
		bad = m->cells[i] >= m->nchars;
	if (bad) {
		jh_cm_free(m);
		return jh_fail(err, err_len, JH_ERR_RULES, "%s: a list out of bounds", path);
	}
	*out = m;
	return JH_OK;
}

/* gen-char-lm.py's key(): FNV-1a over the tag and code points, then a
 * 64-bit finaliser. */
static uint64_t cm_key(unsigned tag, const int32_t *cp, int n)
{
	uint64_t h = 0xCBF29CE484222325ull ^ tag;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint32_t)cp[i]) * 0x100000001B3ull;
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDull;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ull;
	h ^= h >> 33;
	return h;
}

static long find(const uint32_t *fps, uint32_t slots, uint64_t h)
{
	uint32_t fp = (uint32_t)(h >> 32);
	if (!fp)
		fp = 1;
	for (uint32_t i = (uint32_t)h & (slots - 1), k = 0; k < slots; i = (i + 1) & (slots - 1), k++) {
		if (fps[i] == fp)
			return (long)i;
		if (!fps[i])
			return -1;
	}
	return -1;
}

/* The punctuation classes the model keeps (gen-char-lm.py's fold()); 0
 * for a character that ends a stretch.  Han characters are themselves. */
static int32_t fold(int32_t cp)
{
	if (jh_class_of(cp) == JH_C_HAN)
		return cp;
	switch (cp) {
	case 0xFF0C: case 0x3001: case 0xFF1B: case 0xFF1A: case ',': case ';': case ':':
	case 0xFE50: case 0xFE51:
		return 0xFF0C;
	case 0x3002: case 0xFF01: case 0xFF1F: case 0xFF0E: case '!': case '?': case 0x2026:
	case 0x2014: case 0xFF5E:
		return 0x3002;
	case 0x201C: case 0x300C: case 0x300E: case 0x2018: case 0x300A: case 0x3008: case 0xFF08:
		return 0x201C;
	case 0x201D: case 0x300D: case 0x300F: case 0x2019: case 0x300B: case 0x3009: case 0xFF09:
		return 0x201D;
	default:
		return 0;
	}
}

/* ln P(c | h[0..nh)), h the characters before c, oldest first. */
static double logp(const jh_cm *m, const int32_t *h, int nh, int32_t c)
{
	int32_t g[MAX_ORDER];
	int k = nh < (int)m->order - 1 ? nh : (int)m->order - 1;
	double bo = 0;
	for (; k >= 0; k--) {
		memcpy(g, h + nh - k, (size_t)k * sizeof *g);
		g[k] = c;
		long i = find(m->gfp, m->gslots, cm_key(TAG_GRAM, g, k + 1));
		if (i >= 0)
			return bo - m->qp * m->gp[i];
		if (k > 0) {
			long j = find(m->gfp, m->gslots, cm_key(TAG_GRAM, g, k));
			if (j >= 0)
				bo -= m->qb * m->gb[j];
		}
	}
	return bo + UNK;
}

/* The window as the model reads it: [<s>] left, fill, right, folded; a
 * character that is no token ends the left context there (it is cut) and
 * the right context before it.  *fs is where the fill starts. */
static int window(const jh_mr_query *q, const int32_t *f, int fn, int32_t *w, int *fs)
{
	int n = 0, from = 0;
	for (int i = q->nl - 1; i >= 0; i--)
		if (!fold(q->left[i])) {
			from = i + 1;
			break;
		}
	if (q->bos && from == 0)
		w[n++] = BOS;
	for (int i = from; i < q->nl; i++)
		w[n++] = fold(q->left[i]);
	*fs = n;
	for (int i = 0; i < fn; i++)
		w[n++] = f[i];
	for (int i = 0; i < q->nr && fold(q->right[i]); i++)
		w[n++] = fold(q->right[i]);
	return n;
}

#define WMAX (JH_MR_CTX * 2 + JH_MR_MAX_FILL + 1)

static double span(const jh_cm *m, const int32_t *w, int from, int to)
{
	double s = 0;
	for (int i = from; i < to; i++)
		s += logp(m, w, i, w[i]);
	return s;
}

double jh_cm_window(const jh_cm *m, const jh_mr_query *q, const int32_t *f, int fn)
{
	int32_t w[WMAX];
	int fs, n = window(q, f, fn, w, &fs);
	return span(m, w, fs, n);
}

double jh_cm_context(const jh_cm *m, const jh_mr_query *q)
{
	int32_t w[WMAX];
	int fs, n = window(q, NULL, 0, w, &fs);
	/* the left context's characters after its first, and the right's
	 * after its first, each side read on its own */
	double s = span(m, w, 1, fs) + span(m, w + fs, 1, n - fs);
	int k = (fs > 1 ? fs - 1 : 0) + (n - fs > 1 ? n - fs - 1 : 0);
	return k >= 3 ? s / k : 0;
}

/* The list of tag for ctx[0..n): cells and their count. */
static const uint16_t *list(const jh_cm *m, unsigned tag, const int32_t *ctx, int n, int *cnt)
{
	*cnt = 0;
	long i = find(m->lfp, m->lslots, cm_key(tag, ctx, n));
	if (i < 0)
		return NULL;
	*cnt = (int)(m->lval[i] >> 26);
	return m->cells + (m->lval[i] & ((1u << 26) - 1));
}

#define BEAM 10
#define CHOICES 48

typedef struct {
	int32_t cp[JH_MR_MAX_FILL];
	double s;
} hyp;

static void add_choice(int32_t *v, int *n, int32_t cp)
{
	if (cp < 0x3400 || (cp >= 0xA000 && cp < 0x20000) || *n >= CHOICES)
		return; /* a fill is Han characters, not <s> or punctuation */
	for (int i = 0; i < *n; i++)
		if (v[i] == cp)
			return;
	v[(*n)++] = cp;
}

static void add_list(const jh_cm *m, unsigned tag, const int32_t *ctx, int n, int32_t *v, int *nv)
{
	int cnt;
	const uint16_t *c = list(m, tag, ctx, n, &cnt);
	for (int i = 0; i < cnt; i++)
		add_choice(v, nv, (int32_t)m->chars[c[i]]);
}

static void keep_hyp(hyp *beam, int *nb, int max, const hyp *h)
{
	if (*nb < max) {
		beam[(*nb)++] = *h;
		return;
	}
	int worst = 0;
	for (int i = 1; i < *nb; i++)
		if (beam[i].s < beam[worst].s)
			worst = i;
	if (h->s > beam[worst].s)
		beam[worst] = *h;
}

static int cmp_hyp(const void *a, const void *b)
{
	const hyp *x = a, *y = b;
	return x->s < y->s ? 1 : x->s > y->s ? -1 : 0;
}

/* Two-character fills, the usual masked word: the first character from
 * the lists after the left context, the second from those before the
 * right context, and each one's own neighbours in the lists (the pair's
 * other half); every pair scored on its fill and the next character, the
 * best PAIRS then on the whole right context.  A beam from the left alone
 * missed the hidden word where the right context decides it. */
#define PAIRS 16

static int propose2(const jh_cm *m, int32_t *w, int fs, int n, hyp *out)
{
	int32_t a[CHOICES], b[CHOICES];
	int na = 0, nb = 0, nr = n - fs - 2;
	const int32_t *right = w + fs + 2;
	for (int k = 2; k >= 1; k--) {
		if (fs >= k)
			add_list(m, TAG_SUCC, w + fs - k, k, a, &na);
		if (nr >= k)
			add_list(m, TAG_PRED, right, k, b, &nb);
	}
	int nh = 0;
	double la[CHOICES];
	for (int i = 0; i < na; i++)
		la[i] = logp(m, w, fs, a[i]);
	/* pairs (a, b), (a, after a), (before b, b) */
	for (int pass = 0; pass < 3; pass++) {
		int ni = pass == 2 ? nb : na;
		for (int i = 0; i < ni; i++) {
			int32_t c2v[CHOICES], c1v[CHOICES];
			int nc = 0;
			if (pass == 0) {
				memcpy(c2v, b, (size_t)nb * sizeof *b);
				nc = nb;
			} else if (pass == 1) {
				add_list(m, TAG_SUCC, &a[i], 1, c2v, &nc);
			} else {
				add_list(m, TAG_PRED, &b[i], 1, c1v, &nc);
			}
			for (int j = 0; j < nc; j++) {
				hyp h;
				h.cp[0] = pass == 2 ? c1v[j] : a[i];
				h.cp[1] = pass == 2 ? b[i] : c2v[j];
				w[fs] = h.cp[0];
				w[fs + 1] = h.cp[1];
				h.s = (pass == 2 ? logp(m, w, fs, h.cp[0]) : la[i]) + logp(m, w, fs + 1, h.cp[1]);
				if (nr >= 1)
					h.s += logp(m, w, fs + 2, w[fs + 2]);
				int dup = 0;
				for (int k = 0; k < nh && !dup; k++)
					dup = out[k].cp[0] == h.cp[0] && out[k].cp[1] == h.cp[1];
				if (!dup)
					keep_hyp(out, &nh, PAIRS, &h);
			}
		}
	}
	for (int k = 0; k < nh; k++) { /* the rest of the right context */
		w[fs] = out[k].cp[0];
		w[fs + 1] = out[k].cp[1];
		if (nr >= 1)
			out[k].s += span(m, w, fs + 3, n);
	}
	return nh;
}

int jh_cm_propose(const jh_cm *m, const jh_mr_query *q, int len, int32_t out[][JH_MR_MAX_FILL],
                  double *score, int max)
{
	if (len < 1 || len > JH_MR_MAX_FILL || max < 1)
		return 0;
	int32_t w[WMAX], blank[JH_MR_MAX_FILL] = {0};
	int fs, n = window(q, blank, len, w, &fs);
	int nr = n - fs - len; /* right context tokens */
	const int32_t *right = w + fs + len;
	hyp beam[PAIRS > BEAM ? PAIRS : BEAM], next[BEAM];
	int nb = 1;
	if (len == 2) {
		nb = propose2(m, w, fs, n, beam);
		goto ranked;
	}
	beam[0].s = 0;
	for (int t = 0; t < len; t++) {
		int nn = 0;
		for (int b = 0; b < nb; b++) {
			memcpy(w + fs, beam[b].cp, (size_t)t * sizeof *w);
			int at = fs + t; /* the position filled now */
			int32_t v[CHOICES];
			int nv = 0;
			for (int k = 2; k >= 1; k--)
				if (at >= k)
					add_list(m, TAG_SUCC, w + at - k, k, v, &nv);
			if (t == len - 1)
				for (int k = 2; k >= 1; k--)
					if (nr >= k)
						add_list(m, TAG_PRED, right, k, v, &nv);
			for (int i = 0; i < nv; i++) {
				hyp h = beam[b];
				h.cp[t] = v[i];
				h.s += logp(m, w, at, v[i]);
				keep_hyp(next, &nn, BEAM, &h);
			}
		}
		memcpy(beam, next, (size_t)nn * sizeof *beam);
		nb = nn;
	}
	/* the right context decides between them */
	for (int b = 0; b < nb; b++) {
		memcpy(w + fs, beam[b].cp, (size_t)len * sizeof *w);
		beam[b].s += span(m, w, fs + len, n);
	}
ranked:
	qsort(beam, (size_t)nb, sizeof *beam, cmp_hyp);
	int k = nb < max ? nb : max;
	for (int i = 0; i < k; i++) {
		memcpy(out[i], beam[i].cp, (size_t)len * sizeof *out[i]);
		if (score)
			score[i] = beam[i].s;
	}
	return k;
}
