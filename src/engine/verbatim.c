/* verbatim.c — the parts of a line that are not prose: URLs, e-mail
 * addresses, paths and format specifiers.  A spacing, punctuation, script
 * or typo rule never edits them (a space in a URL breaks it, a 。 in a path
 * names another file); censor rules still see them (censor.url is about
 * URLs).
 *
 * The spans are found line by line, only on the lines that have a finding
 * of those families, so a text without any costs nothing.  Patterns are
 * PCRE2 (no library finds "the URL in this Chinese sentence": the end of a
 * URL among Han characters is a convention, written down here). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "util.h"
#include "verbatim.h"

/* Characters that end a URL or a path: white space, CJK and full-width
 * punctuation, quotes and brackets of prose. */
#define STOP "\\s<>\"'`\\x{3000}-\\x{303F}\\x{FF01}-\\x{FF0F}\\x{FF1A}-\\x{FF20}" \
             "\\x{FF3B}-\\x{FF40}\\x{FF5B}-\\x{FF65}\\x{2018}-\\x{201F}\\x{2026}\\x{2014}"

/* Spans a rule may touch at their edges (a space before a URL is the
 * copywriting convention) but not inside. */
static const char soft_pattern[] =
	/* a URL: scheme or www., up to a stop; a final . , ; : ! ? ) ] is prose */
	"(?i:(?:https?|ftp|file|git|ssh|sftp)://|www\\.)[^" STOP "]*[^" STOP ".,;:!?)\\]]"
	/* an e-mail address; its domain may be Han (例子.com) */
	"|[A-Za-z0-9._%+-]+@[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)*\\.[A-Za-z]{2,}(?![A-Za-z])"
	/* an absolute or home path of two parts or more (/usr/share/文档/README) */
	"|(?<![A-Za-z0-9_./\\\\])(?:~|\\.{1,2})?/[A-Za-z0-9_.@+-]+(?:/[^" STOP "/,;:!?)\\]]+)+/?"
	"|(?<![A-Za-z0-9_./\\\\])(?:~|\\.{1,2})/[^" STOP "/,;:!?)\\]]+"
	/* a relative path of ASCII parts (src/main.c, TCP/IP) */
	"|(?<![A-Za-z0-9_./\\\\])[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.@+-]+)+"
	/* a Windows path */
	"|(?<![A-Za-z0-9])[A-Za-z]:\\\\[^" STOP ",;:!?)\\]]*";

/* Spans not even touched at their edges: what a program fills in, so the
 * text around it is not ours to space (%s个文件 may read 3个文件). */
static const char hard_pattern[] =
	/* printf: %s %d %-5.2f %1$s %(name)s %lld */
	"%(?:\\d+\\$|\\([A-Za-z_][A-Za-z0-9_]*\\))?[-+ #0]*(?:\\d+|\\*)?(?:\\.(?:\\d+|\\*))?"
	"(?:hh|h|ll|l|L|z|j|t|q)?[diouxXeEfFgGaAcspn@]"
	/* shell and regex replacements: $1 ${name} $name (not a price, $100) */
	"|\\$(?:\\d(?!\\d)|\\{[^{}\\s]+\\}|[A-Za-z_][A-Za-z0-9_]*)"
	/* Python, .NET, ICU, Mustache: {name} {0} {} {name!r:>10} {{name}} */
	"|\\{\\{[^{}\\n]{1,64}\\}\\}"
	"|\\{(?:[A-Za-z_][A-Za-z0-9_.]*|\\d*)(?:![rsa])?(?::[^{}\\s]{0,16})?\\}";

static pcre2_code *soft_re, *hard_re;
static pthread_once_t compiled = PTHREAD_ONCE_INIT;
/* JIT-compiled copies, made once the lines looked at reach JIT_AFTER
 * bytes: compiling both costs 0.8 M instructions, and the interpreter
 * about 280 a byte of line more than JIT (64 KB before JIT cost 1 MB of
 * manual pages 18 M), so JIT pays after about 3 KB; a one-line check
 * (13 M in all) needs none.  Published with a release store; a thread
 * that sees NULL uses the interpreter. */
enum { JIT_AFTER = 2048 };
static pcre2_code *soft_jit, *hard_jit;
static size_t line_work;
static pthread_once_t jitted = PTHREAD_ONCE_INIT;

static void compile_patterns(void)
{
	int err;
	PCRE2_SIZE off;
	/* the text may hold invalid UTF-8 (it is reported, never mended):
	 * matched without this, such bytes made the JIT code read out of
	 * bounds (a libFuzzer crash) */
	uint32_t o = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
	soft_re = pcre2_compile((PCRE2_SPTR)soft_pattern, PCRE2_ZERO_TERMINATED, o, &err, &off, NULL);
	hard_re = pcre2_compile((PCRE2_SPTR)hard_pattern, PCRE2_ZERO_TERMINATED, o, &err, &off, NULL);
}

static pcre2_code *jit_copy(const pcre2_code *re)
{
	pcre2_code *c = re ? pcre2_code_copy(re) : NULL;
	if (c && pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) != 0) {
		pcre2_code_free(c); /* the interpreter stays: slower, the same spans */
		c = NULL;
	}
	return c;
}

static void jit_patterns(void)
{
	__atomic_store_n(&soft_jit, jit_copy(soft_re), __ATOMIC_RELEASE);
	__atomic_store_n(&hard_jit, jit_copy(hard_re), __ATOMIC_RELEASE);
}

/* The code to match a line with: the JIT copy once there is one. */
static const pcre2_code *code_for(const pcre2_code *re, pcre2_code **jit)
{
	if (!re)
		return NULL;
	const pcre2_code *j = __atomic_load_n(jit, __ATOMIC_ACQUIRE);
	return j ? j : re;
}

int jh_verbatim_family(const char *family)
{
	return family && (!strcmp(family, "punct") || !strcmp(family, "layout") ||
	                  !strcmp(family, "script") || !strcmp(family, "typo"));
}

typedef struct {
	size_t start, end;
	int hard;
} span;

typedef struct {
	span *v;
	size_t n, cap;
	size_t line_start, line_end; /* the line these spans are of */
} spans;

static int add_spans(spans *s, const pcre2_code *re, const char *text, size_t a, size_t b, int hard,
                     pcre2_match_data *md)
{
	if (!re)
		return JH_OK;
	size_t at = a;
	while (at < b) {
		int rc = pcre2_match(re, (PCRE2_SPTR)text, b, at, PCRE2_NO_UTF_CHECK, md, NULL);
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (ov[1] <= ov[0]) { /* no pattern matches empty; be safe anyway */
			at = ov[0] + 1;
			while (at < b && ((unsigned char)text[at] & 0xC0) == 0x80)
				at++;
			continue;
		}
		if (s->n == s->cap) {
			size_t nc = s->cap ? 2 * s->cap : 16;
			span *nv = realloc(s->v, nc * sizeof *nv);
			if (!nv)
				return JH_ERR_NOMEM;
			s->v = nv;
			s->cap = nc;
		}
		s->v[s->n++] = (span){ov[0], ov[1], hard};
		at = ov[1];
	}
	return JH_OK;
}

/* The spans of the line around pos (cached: findings come in order). */
static int line_spans(spans *s, const char *text, size_t len, size_t pos, pcre2_match_data *md)
{
	if (s->line_end > s->line_start && pos >= s->line_start && pos < s->line_end)
		return JH_OK;
	size_t a, b;
	jh_line_bounds(text, len, pos, &a, &b);
	s->n = 0;
	s->line_start = a;
	s->line_end = b + 1; /* a point at the line's end belongs to it */
	if (__atomic_add_fetch(&line_work, b - a + 1, __ATOMIC_RELAXED) >= JIT_AFTER)
		pthread_once(&jitted, jit_patterns);
	int rc = add_spans(s, code_for(soft_re, &soft_jit), text, a, b, 0, md);
	if (rc == JH_OK)
		rc = add_spans(s, code_for(hard_re, &hard_jit), text, a, b, 1, md);
	return rc;
}

/* Does [fs, fe) (a point when equal) edit inside a span? */
static int inside(const span *v, size_t n, size_t fs, size_t fe)
{
	for (size_t i = 0; i < n; i++) {
		size_t a = v[i].start, b = v[i].end;
		if (fe > fs ? fs < b && fe > a : (v[i].hard ? a <= fs && fs <= b : a < fs && fs < b))
			return 1;
	}
	return 0;
}

/* What an edit really changes: its span less the bytes its replacement
 * keeps at either end (m → "m " after an address is an insertion at the
 * address's end, not an edit of its last letter). */
static void changed(const char *text, const jh_edit *e, size_t *cs, size_t *ce)
{
	size_t s = e->byte_start, t = e->byte_end;
	const char *r = e->replacement ? e->replacement : "";
	size_t rl = strlen(r), i = 0, j = 0;
	while (s + i < t && i < rl && text[s + i] == r[i])
		i++;
	while (t - j > s + i && rl - j > i && text[t - 1 - j] == r[rl - 1 - j])
		j++;
	*cs = s + i;
	*ce = t - j;
}

static int finding_inside(const jh_finding *f, const char *text, const span *v, size_t n)
{
	if (!f->n_edits)
		return inside(v, n, f->byte_start, f->byte_end);
	for (size_t j = 0; j < f->n_edits; j++) {
		size_t cs, ce;
		changed(text, &f->edits[j], &cs, &ce);
		if (inside(v, n, cs, ce))
			return 1;
	}
	return 0;
}

int jh_verbatim_drop(jh_findings *out, size_t first, const char *text, size_t len,
                     const jh_rule *const *rules, size_t n_rules)
{
	pthread_once(&compiled, compile_patterns);
	if (!soft_re && !hard_re)
		return JH_OK;
	pcre2_match_data *md = NULL;
	spans s = {0};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		if (rc == JH_OK && idx >= 0 && (size_t)idx < n_rules && jh_verbatim_family(rules[idx]->family)) {
			if (!md && !(md = pcre2_match_data_create(2, NULL)))
				rc = JH_ERR_NOMEM;
			if (rc == JH_OK)
				rc = line_spans(&s, text, len, f->byte_start, md);
			if (rc == JH_OK && s.n && finding_inside(f, text, s.v, s.n))
				continue; /* its strings stay in the list's store */
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(s.v);
	pcre2_match_data_free(md);
	return rc;
}
