/* regex_pre.c — the character-before check of triggered regex rules (see
 * regex_pre.h).  The pattern is read only as far as needed to be sure: its
 * top-level alternatives, and the one-class lookbehind each starts with.
 * Anything else (inline options, which reach into the next alternatives;
 * quoting; comments; verbs; a quantified lookbehind; a lookbehind of more
 * than one character) means no check, never a guess.  PCRE2 itself says
 * what a class holds: each class is compiled alone and asked about a code
 * point the first time one comes. */
#include <stdlib.h>
#include <string.h>
#include "regex_pre.h"
#include "utf8.h"
#include "util.h"

#define JH_NOINLINE __attribute__((noinline))

static int second_sure(const jh_pre_alt *a);

/* Past the bracket class starting at p ('['), or NULL if it does not close. */
static const char *skip_class(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++; /* a ']' first is a literal */
	while (*p && *p != ']') {
		if (*p == '\\') {
			if (!p[1])
				return NULL;
			p += 2;
		} else if (p[0] == '[' && p[1] == ':') {
			const char *e = strstr(p + 2, ":]");
			if (!e)
				return NULL;
			p = e + 2;
		} else if (*p == '[') {
			return NULL; /* nested classes: not read here */
		} else {
			p++;
		}
	}
	return *p == ']' ? p + 1 : NULL;
}

/* Past one escape at p ('\\') that matches exactly one character, or NULL. */
static const char *skip_escape(const char *p)
{
	char c = p[1];
	if (c == 'p' || c == 'P' || c == 'x') {
		if (p[2] == '{') {
			const char *e = strchr(p + 3, '}');
			return e ? e + 1 : NULL;
		}
		if (c == 'x')
			return NULL; /* \xhh: not read here */
		return p[2] ? p + 3 : NULL; /* \pL */
	}
	if (c && strchr("dDsSwWhHvVtnrfae", c))
		return p + 2;
	if (c && strchr(".[](){}|\\^$*+?-/,:;=!<>#&~\"'@%` ", c))
		return p + 2; /* an escaped literal */
	return NULL;
}

/* Past one item that matches exactly one character, or NULL. */
static const char *skip_item(const char *p)
{
	unsigned char c = (unsigned char)*p;
	if (c == '[')
		return skip_class(p);
	if (c == '\\')
		return skip_escape(p);
	if (c == '.')
		return p + 1;
	if (!c || strchr("^$|()?*+{}", c))
		return NULL;
	int32_t cp;
	size_t n = jh_utf8_decode((const unsigned char *)p, strnlen(p, 4), &cp);
	return cp < 0 ? NULL : p + n;
}

/* Is the pattern free of what would make reading it this way unsafe? */
static int plain_enough(const char *pat)
{
	if (strstr(pat, "\\Q") || strstr(pat, "\\E") || strstr(pat, "(*"))
		return 0;
	/* "(?" must open an assertion or a group, never set options. */
	for (const char *p = strstr(pat, "(?"); p; p = strstr(p + 2, "(?"))
		if (!p[2] || !strchr("<=!:>P'", p[2]))
			return 0;
	return 1;
}

/* The one character item[0..n) stands for when it is a literal (，, \.,
 * \x{FEFF}), else -1: those are compared, not asked of PCRE2. */
static int32_t literal(const char *item, size_t n)
{
	int32_t cp;
	if (item[0] == '\\') {
		if (n == 2 && strchr(".[](){}|\\^$*+?-/,:;=!<>#&~\"'@%` ", item[1]))
			return (unsigned char)item[1];
		if (n > 4 && item[1] == 'x' && item[2] == '{' && item[n - 1] == '}') {
			char *e;
			long v = strtol(item + 3, &e, 16);
			return e == item + n - 1 && v >= 0 && v <= 0x10FFFF ? (int32_t)v : -1;
		}
		return -1;
	}
	if (strchr("[.^$|()?*+{}", item[0]))
		return -1;
	size_t k = jh_utf8_decode((const unsigned char *)item, n, &cp);
	return cp >= 0 && k == n ? cp : -1;
}

/* The class written item[0..n) from cs, added if new (compiled when first
 * asked: a one-line check should not pay for thirty compiles); NULL with
 * *err -1 when memory ran out. */
static jh_pre_class *get_class(const char *item, size_t n, jh_pre_classes *cs, int *err)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i]->n_src == n && !memcmp(cs->v[i]->src, item, n))
			return cs->v[i];
	jh_pre_class *c = calloc(1, sizeof *c);
	char *src = malloc(n + 1);
	if (!c || !src || jh_grow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof *cs->v)) {
		free(c);
		free(src);
		*err = -1;
		return NULL;
	}
	memcpy(src, item, n);
	src[n] = '\0';
	*c = (jh_pre_class){src, n, NULL, NULL, 0, literal(item, n)};
	cs->v[cs->n++] = c;
	return c;
}

/* Past the group opening at p ('('), or NULL if it does not close. */
static const char *skip_group(const char *p)
{
	int depth = 0;
	while (*p) {
		if (*p == '\\') {
			if (!p[1])
				return NULL;
			p += 2;
		} else if (*p == '[') {
			if (!(p = skip_class(p)))
				return NULL;
		} else {
			depth += *p == '(';
			depth -= *p == ')';
			p++;
			if (!depth)
				return p;
		}
	}
	return NULL;
}

/* The quantifier at p, if any: how many times at least (*min), whether
 * exactly that many (*exact); past it, or NULL for one not read here. */
static const char *quantifier(const char *p, unsigned *min, int *exact)
{
	*min = 1;
	*exact = 1;
	if (*p == '?' || *p == '*' || *p == '+') {
		*min = *p == '+';
		*exact = 0;
		p++;
	} else if (*p == '{') {
		char *e;
		unsigned long lo = strtoul(p + 1, &e, 10), hi = lo;
		if (e == p + 1 || lo > 64)
			return NULL;
		if (*e == ',') {
			hi = e[1] == '}' ? 65 : strtoul(e + 1, &e, 10);
			if (*e == ',')
				e++;
		}
		if (*e != '}')
			return NULL;
		*min = (unsigned)lo;
		*exact = hi == lo;
		p = e + 1;
	} else {
		return p;
	}
	if (*p == '?' || *p == '+')
		p++; /* lazy or possessive: the same characters */
	return p;
}

/* Adds class item[0..n) to the run of classes that ends at the pool's end
 * (t->first .. t->n); -1 out of memory, -2 no room (the caller gives up
 * on this test). */
static int union_add(jh_pre *pre, jh_pre_test *t, const char *item, size_t n, jh_pre_classes *cs)
{
	if (pre->n_cls == JH_PRE_CLASSES || t->n == UINT8_MAX)
		return -2;
	if (!t->n)
		t->first = (uint8_t)pre->n_cls;
	/* a union's classes must lie together in the pool: a class the pool
	 * holds already is added again (get_class keeps one copy in cs) */
	int err = 0;
	jh_pre_class *c = get_class(item, n, cs, &err);
	if (!c)
		return -1;
	for (int i = t->first; i < t->first + t->n; i++)
		if (pre->cls[i] == c)
			return 0;
	if (t->first + t->n != pre->n_cls)
		return -2;
	pre->cls[pre->n_cls++] = c;
	t->n++;
	return 0;
}

/* Splits g[0..n) at its top-level '|': the start and end of each part in
 * parts (pairs), their number, or -1 for more than max or a broken group. */
static int split_alts(const char *g, size_t n, const char **parts, int max)
{
	const char *p = g, *end = g + n, *a = g;
	int k = 0;
	while (p <= end) {
		if (p == end || *p == '|') {
			if (k == max)
				return -1;
			parts[2 * k] = a;
			parts[2 * k + 1] = p;
			k++;
			a = ++p;
			continue;
		}
		const char *q = *p == '\\' ? (p + 1 < end ? p + 2 : NULL)
		                : *p == '[' ? skip_class(p)
		                : *p == '(' ? skip_group(p)
		                : *p == ')' ? NULL : p + 1;
		if (!q || q > end)
			return -1;
		p = q;
	}
	return k;
}

/* A lookbehind's content g[0..n) at the alternative's start, read into
 * back tests: (?<=X), (?<=XY), (?<=A|BC|D) give the classes 1 (and 2)
 * before t; (?<!X), (?<!A|B) of single characters a class not there.
 * Anything else adds nothing (a lookbehind only takes matches away). */
static int read_behind(const char *g, size_t n, int neg, jh_pre *pre, jh_pre_alt *out,
                       jh_pre_classes *cs)
{
	const char *parts[2 * 16];
	int k = split_alts(g, n, parts, 16);
	if (k <= 0)
		return 0;
	/* each part: its items from the end (at most two kept) */
	const char *last[16][2][2];
	int depth = 2;
	for (int i = 0; i < k; i++) {
		const char *p = parts[2 * i], *e = parts[2 * i + 1];
		int m = 0;
		last[i][0][0] = last[i][1][0] = NULL;
		while (p < e) {
			const char *q = skip_item(p);
			if (!q || q > e || (q < e && strchr("?*+{", *q)))
				return 0; /* not a plain string of characters */
			last[i][1][0] = last[i][0][0];
			last[i][1][1] = last[i][0][1];
			last[i][0][0] = p;
			last[i][0][1] = q;
			m++;
			p = q;
		}
		if (!m)
			return 0;
		if (m < depth)
			depth = m;
	}
	if (neg && depth != 1)
		depth = 1;
	if (neg)
		for (int i = 0; i < k; i++)
			if (last[i][1][0])
				return 0; /* (?<!AB): not a class of one character */
	for (int d = 0; d < depth && out->n_back < JH_PRE_BACK; d++) {
		jh_pre_test t = {0};
		t.back = (uint8_t)(d + 1);
		t.neg = (uint8_t)neg;
		int saved = pre->n_cls;
		for (int i = 0; i < k; i++) {
			int rc = union_add(pre, &t, last[i][d][0], (size_t)(last[i][d][1] - last[i][d][0]), cs);
			if (rc == -1)
				return -1;
			if (rc == -2) {
				pre->n_cls = saved; /* no room: this test is left out */
				t.n = 0;
				break;
			}
		}
		if (t.n)
			out->back[out->n_back++] = t;
	}
	return 0;
}

/* A lookahead's content g[0..n): the classes its first character is in,
 * and whether the end of the text passes (\z, \Z, $), as a LOOK item.
 * 0 with *got 0 when it could start with anything (or is not read). */
static int read_ahead(const char *g, size_t n, jh_pre *pre, jh_pre_test *t, int *got,
                      jh_pre_classes *cs)
{
	const char *parts[2 * 16];
	int k = split_alts(g, n, parts, 16);
	*got = 0;
	if (k <= 0)
		return 0;
	memset(t, 0, sizeof *t);
	t->kind = JH_PRE_LOOK;
	int saved = pre->n_cls;
	for (int i = 0; i < k; i++) {
		const char *p = parts[2 * i], *e = parts[2 * i + 1];
		int sure = 0; /* this part's first character is in the union, or it is at the end */
		while (p < e && !sure) {
			if ((e - p >= 2 && p[0] == '\\' && (p[1] == 'z' || p[1] == 'Z')) || *p == '$') {
				/* \z: the end; \Z and $: the end, or a newline before it */
				t->end_ok = 1;
				if (p[0] != '\\' || p[1] != 'z') {
					int rc = union_add(pre, t, "\\n", 2, cs);
					if (rc == -1)
						return -1;
					if (rc == -2)
						goto open;
				}
				sure = 1;
				break;
			}
			const char *item = p, *item_end;
			if (*p == '(') {
				item = p + 1;
				if (!strncmp(item, "?:", 2))
					item += 2;
				else if (*item == '?')
					goto open;
				item_end = skip_item(item);
				if (!item_end || *item_end != ')')
					goto open;
				p = item_end + 1;
			} else {
				if (!(item_end = skip_item(item)))
					goto open;
				p = item_end;
			}
			unsigned min;
			int exact;
			if (!(p = quantifier(p, &min, &exact)) || p > e)
				goto open;
			int rc = union_add(pre, t, item, (size_t)(item_end - item), cs);
			if (rc == -1)
				return -1;
			if (rc == -2)
				goto open;
			sure = min > 0;
		}
		if (!sure)
			goto open; /* may match the empty string, or not read */
	}
	*got = 1;
	return 0;
open:
	pre->n_cls = saved;
	return 0;
}

/* One alternative, alt[0..n): its back tests and forward items, read from
 * its start as far as it is sure.  0 (maybe nothing read), or -1 when
 * memory ran out. */
static int read_alt(const char *alt, size_t n, jh_pre *pre, jh_pre_alt *out, jh_pre_classes *cs)
{
	const char *p = alt, *end = alt + n;
	int consumed = 0;
	memset(out, 0, sizeof *out);
	while (p < end && out->n_fwd < JH_PRE_ITEMS) {
		if (!strncmp(p, "(?<=", 4) || !strncmp(p, "(?<!", 4) || !strncmp(p, "(?=", 3) ||
		    !strncmp(p, "(?!", 3)) {
			const char *g = skip_group(p), *after;
			unsigned qmin;
			int qexact;
			if (!g || g > end || !(after = quantifier(g, &qmin, &qexact)) || after > end)
				return 0;
			/* a quantified assertion may be skipped: passed over, as are
			 * negative lookaheads and lookbehinds after what the
			 * alternative consumed (they only take matches away) */
			int plain = after == g;
			if (plain && p[2] == '<' && !consumed) {
				if (read_behind(p + 4, (size_t)(g - 1 - (p + 4)), p[3] == '!', pre, out, cs))
					return -1;
			} else if (plain && p[2] == '=') {
				jh_pre_test t;
				int got;
				if (read_ahead(p + 3, (size_t)(g - 1 - (p + 3)), pre, &t, &got, cs))
					return -1;
				if (got)
					out->fwd[out->n_fwd++] = t;
			}
			p = after;
			continue;
		}
		const char *item, *item_end;
		jh_pre_test t = {0};
		int rc;
		if (*p == '(') {
			/* a group of single characters: (X), (?:X), (A|B|C) */
			const char *g = skip_group(p), *in = p + 1;
			if (!g || g > end)
				return 0;
			if (!strncmp(in, "?:", 2))
				in += 2;
			else if (*in == '?')
				return 0;
			const char *parts[2 * 16];
			int k = split_alts(in, (size_t)(g - 1 - in), parts, 16);
			if (k <= 0)
				return 0;
			int saved = pre->n_cls;
			for (int i = 0; i < k; i++) {
				const char *q = skip_item(parts[2 * i]);
				if (!q || q != parts[2 * i + 1]) {
					pre->n_cls = saved;
					return 0;
				}
				if ((rc = union_add(pre, &t, parts[2 * i], (size_t)(q - parts[2 * i]), cs))) {
					pre->n_cls = saved;
					return rc == -1 ? -1 : 0;
				}
			}
			item = item_end = NULL;
			p = g;
		} else {
			item = p;
			if (!(item_end = skip_item(item)))
				return 0;
			p = item_end;
			if ((rc = union_add(pre, &t, item, (size_t)(item_end - item), cs)))
				return rc == -1 ? -1 : 0;
		}
		unsigned min;
		int exact;
		const char *q0 = p;
		if (!(p = quantifier(p, &min, &exact)) || p > end)
			return 0;
		consumed = 1;
		for (unsigned k = 0; k < min && k < 4 && out->n_fwd < JH_PRE_ITEMS; k++) {
			t.kind = JH_PRE_ONE;
			out->fwd[out->n_fwd++] = t;
		}
		if (min > 4)
			return 0; /* the rest is sure, but past what is kept */
		if (!exact && out->n_fwd < JH_PRE_ITEMS) {
			/* x?, or more than one more: any number (more than the
			 * pattern allows only lets more through) */
			t.kind = *q0 == '?' ? JH_PRE_OPT : JH_PRE_STAR;
			out->fwd[out->n_fwd++] = t;
		}
	}
	return 0;
}

int jh_pre_build(jh_pre *pre, const char *pattern, unsigned lead, jh_pre_classes *cs)
{
	memset(pre, 0, sizeof *pre);
	if (lead || !plain_enough(pattern))
		return 0;
	const char *p = pattern;
	for (;;) {
		/* one alternative: to a '|' at depth 0 or the end */
		const char *a = p;
		while (*p && *p != '|') {
			const char *q = *p == '\\' ? (p[1] ? p + 2 : NULL)
			                : *p == '[' ? skip_class(p)
			                : *p == '(' ? skip_group(p)
			                : *p == ')' ? NULL : p + 1;
			if (!q)
				goto none;
			p = q;
		}
		if (pre->n == JH_PRE_MAX_ALTS)
			goto none;
		jh_pre_alt *alt = &pre->alt[pre->n];
		if (read_alt(a, (size_t)(p - a), pre, alt, cs))
			return -1;
		int open = !alt->n_back;
		for (int j = 0; j < alt->n_fwd && open; j++)
			open = alt->fwd[j].kind == JH_PRE_OPT || alt->fwd[j].kind == JH_PRE_STAR;
		if (open)
			goto none; /* this one could match anywhere */
		for (int j = 0; j < alt->n_back + alt->n_fwd; j++) {
			jh_pre_test *t = j < alt->n_back ? &alt->back[j] : &alt->fwd[j - alt->n_back];
			t->lit = t->n == 1 ? pre->cls[t->first]->lit : -1;
		}
		/* Decided by the characters at t - 1 and t alone: no test two
		 * back, and nothing after the first item that needs a character. */
		int decided = !alt->n_fwd || alt->fwd[0].kind == JH_PRE_ONE;
		for (int j = 0; j < alt->n_back && decided; j++)
			decided = alt->back[j].back == 1;
		for (int j = 1; j < alt->n_fwd && decided; j++)
			decided = alt->fwd[j].kind == JH_PRE_OPT || alt->fwd[j].kind == JH_PRE_STAR;
		if (decided)
			pre->decided |= (uint16_t)(1u << pre->n);
		/* ...or with the character after t too */
		int decided2 = second_sure(alt);
		for (int j = 0; j < alt->n_back && decided2; j++)
			decided2 = alt->back[j].back == 1;
		for (int j = 2; j < alt->n_fwd && decided2; j++)
			decided2 = alt->fwd[j].kind == JH_PRE_OPT || alt->fwd[j].kind == JH_PRE_STAR;
		if (alt->n_fwd >= 2 && alt->fwd[0].kind == JH_PRE_ONE)
			pre->second |= (uint16_t)(1u << pre->n);
		if (decided2)
			pre->decided2 |= (uint16_t)(1u << pre->n);
		pre->n++;
		if (!*p)
			return 0;
		p++; /* past '|' */
	}
none:
	memset(pre, 0, sizeof *pre); /* the classes stay in cs, for others */
	return 0;
}

void jh_pre_classes_free(jh_pre_classes *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		pcre2_code_free(cs->v[i]->code);
		free(cs->v[i]->memo);
		free(cs->v[i]->src);
		free(cs->v[i]);
	}
	free(cs->v);
	memset(cs, 0, sizeof *cs);
}

/* The class compiled, or NULL when PCRE2 does not take it alone (then the
 * check answers yes). */
static pcre2_code *class_code(jh_pre_class *c)
{
	pcre2_code *code = __atomic_load_n(&c->code, __ATOMIC_ACQUIRE);
	if (code || __atomic_load_n(&c->bad, __ATOMIC_RELAXED))
		return code;
	int e;
	PCRE2_SIZE off;
	code = pcre2_compile((PCRE2_SPTR)c->src, PCRE2_ZERO_TERMINATED,
	                     PCRE2_UTF | PCRE2_UCP | PCRE2_ANCHORED, &e, &off, NULL);
	if (!code) { /* out of memory: tried again next time */
		if (e != PCRE2_ERROR_HEAP_FAILED)
			__atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	pcre2_code *none = NULL;
	if (!__atomic_compare_exchange_n(&c->code, &none, code, 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		pcre2_code_free(code); /* another thread's came first */
		code = none;
	}
	return code;
}

static int class_has(jh_pre_class *c, int32_t cp, pcre2_match_data *md)
{
	if (c->lit >= 0)
		return cp == c->lit;
	uint8_t *memo = __atomic_load_n(&c->memo, __ATOMIC_ACQUIRE);
	if (cp < 0x10000) {
		if (!memo) {
			uint8_t *m = calloc(0x10000, 1);
			uint8_t *none = NULL;
			if (m && !__atomic_compare_exchange_n(&c->memo, &none, m, 0, __ATOMIC_ACQ_REL,
			                                      __ATOMIC_ACQUIRE)) {
				free(m); /* another thread's came first */
			}
			memo = __atomic_load_n(&c->memo, __ATOMIC_ACQUIRE);
		}
		uint8_t v = memo ? __atomic_load_n(&memo[cp], __ATOMIC_RELAXED) : 0;
		if (v)
			return v == 2;
	}
	pcre2_code *code = class_code(c);
	if (!code)
		return 1;
	char buf[4];
	size_t n = jh_utf8_encode(cp, buf);
	int rc = pcre2_match(code, (PCRE2_SPTR)buf, n, 0, 0, md, NULL);
	int yes = rc > 0 && pcre2_get_ovector_pointer(md)[1] == n;
	if (cp < 0x10000 && memo)
		__atomic_store_n(&memo[cp], (uint8_t)(yes ? 2 : 1), __ATOMIC_RELAXED);
	return yes;
}

/* The code point of the character ending at t (-2 when t is 0: none), or
 * -1 when the bytes before t are not a valid character; *start: where it
 * starts. */
static int32_t char_before(const char *text, size_t t, size_t *start)
{
	*start = t;
	if (!t)
		return -2;
	size_t b = t - 1;
	while (b > 0 && t - b < 4 && ((unsigned char)text[b] & 0xC0) == 0x80)
		b--;
	int32_t cp;
	size_t n = jh_utf8_decode((const unsigned char *)text + b, t - b, &cp);
	*start = b;
	return cp >= 0 && b + n == t ? cp : -1;
}

/* Is cp in one of test t's classes?  The answers PCRE2 gave are read
 * here without a call: this runs at most trigger positions of a text. */
static inline int test_has(const jh_pre *pre, const jh_pre_test *t, int32_t cp,
                           pcre2_match_data *md)
{
	if (t->lit >= 0)
		return cp == t->lit;
	for (int k = t->first; k < t->first + t->n; k++) {
		jh_pre_class *c = pre->cls[k];
		if (c->lit >= 0) {
			if (cp == c->lit)
				return 1;
			continue;
		}
		const uint8_t *memo = __atomic_load_n(&c->memo, __ATOMIC_RELAXED);
		uint8_t v = memo && cp < 0x10000 ? __atomic_load_n(&memo[cp], __ATOMIC_RELAXED) : 0;
		if (v ? v == 2 : class_has(c, cp, md))
			return 1;
	}
	return 0;
}

/* The forward items of a from t (c0, n0 the character there): 1 when the
 * text can take them all (or the window ends first), 0 when it cannot,
 * -1 for a character that is not valid UTF-8 on the way. */
static int walk(const jh_pre *pre, const jh_pre_alt *a, const char *text, size_t len, size_t t,
                int32_t c, size_t cn, pcre2_match_data *md)
{
	uint32_t states = 1, done = 1u << a->n_fwd;
	for (int steps = 0;; steps++) {
		/* the items passed without a character: optional ones, and
		 * lookaheads this character fits (epsilon moves go forward only) */
		for (int i = 0; i < a->n_fwd; i++) {
			if (!(states >> i & 1u))
				continue;
			const jh_pre_test *it = &a->fwd[i];
			if (it->kind == JH_PRE_OPT || it->kind == JH_PRE_STAR)
				states |= 2u << i;
			else if (it->kind == JH_PRE_LOOK && c != -1 &&
			         (c == -2 ? it->end_ok : test_has(pre, it, c, md)))
				states |= 2u << i;
		}
		if (states & done)
			return 1;
		if (c == -1)
			return -1;
		if (c == -2 || steps == JH_PRE_WINDOW)
			return c != -2;
		uint32_t next = 0;
		for (int i = 0; i < a->n_fwd; i++) {
			const jh_pre_test *it = &a->fwd[i];
			if (!(states >> i & 1u) || it->kind == JH_PRE_LOOK || !test_has(pre, it, c, md))
				continue;
			next |= it->kind == JH_PRE_STAR ? 1u << i : 2u << i;
		}
		if (!next)
			return 0;
		states = next;
		t += cn;
		if (t >= len)
			c = -2;
		else
			cn = jh_utf8_decode((const unsigned char *)text + t, len - t, &c);
	}
}

/* The alternatives of mask tried in full: 1 when one fits. */
static int check_alts(const jh_pre *pre, unsigned mask, const char *text, size_t len, size_t t,
                      int32_t before, size_t before_at, int32_t at, size_t n_at,
                      pcre2_match_data *md)
{
	int32_t before2 = 0;
	int have2 = 0;
	for (int i = 0; i < pre->n; i++) {
		const jh_pre_alt *a = &pre->alt[i];
		if (!(mask >> i & 1u))
			continue;
		/* the character at t first: it tells most alternatives apart */
		if (a->n_fwd && a->fwd[0].kind == JH_PRE_ONE && at >= 0 &&
		    !test_has(pre, &a->fwd[0], at, md))
			continue;
		int ok = 1;
		for (int j = 0; j < a->n_back && ok; j++) {
			const jh_pre_test *bt = &a->back[j];
			int32_t cp = before;
			if (bt->back == 2) {
				if (!have2) {
					size_t s;
					before2 = before < 0 ? before : char_before(text, before_at, &s);
					have2 = 1;
				}
				cp = before2;
			}
			if (cp == -1)
				return 1; /* not valid UTF-8 there: PCRE2 decides */
			ok = cp == -2 ? bt->neg : bt->neg != test_has(pre, bt, cp, md);
		}
		if (!ok)
			continue;
		int w = walk(pre, a, text, len, t, at, n_at, md);
		if (w)
			return 1; /* maybe, or not valid UTF-8 on the way */
	}
	return 0;
}

/* Of the alternatives in need, those that can take cp at one place:
 * AT_T (their first item), BEFORE_T (every back test of one character;
 * cp -2: none there) or AFTER_T (the second item, when the first takes
 * one character and the second one or is a lookahead). */
enum { AT_T, BEFORE_T, AFTER_T };

static int second_sure(const jh_pre_alt *a)
{
	return a->n_fwd >= 2 && a->fwd[0].kind == JH_PRE_ONE &&
	       (a->fwd[1].kind == JH_PRE_ONE || a->fwd[1].kind == JH_PRE_LOOK);
}

/* After its first item took the character at t, can alternative a go on
 * with cp at t + 1: do its items end before it, or does one of those it
 * may stand at take it? */
static int goes_on(const jh_pre *pre, const jh_pre_alt *a, int32_t cp, pcre2_match_data *md)
{
	uint32_t states = 2; /* at item 1 */
	for (int i = 1; i < a->n_fwd; i++) {
		if (!(states >> i & 1u))
			continue;
		const jh_pre_test *it = &a->fwd[i];
		if (it->kind == JH_PRE_LOOK) {
			if (test_has(pre, it, cp, md))
				states |= 2u << i;
			continue;
		}
		if (test_has(pre, it, cp, md))
			return 1;
		if (it->kind != JH_PRE_ONE)
			states |= 2u << i;
	}
	return (states >> a->n_fwd & 1u) != 0;
}

static unsigned alts_taking(const jh_pre *pre, int32_t cp, int place, unsigned need,
                            pcre2_match_data *md)
{
	unsigned m = 0;
	for (int i = 0; i < pre->n; i++) {
		const jh_pre_alt *a = &pre->alt[i];
		if (!(need >> i & 1u))
			continue;
		int ok = 1;
		if (place == AT_T) {
			ok = !(a->n_fwd && a->fwd[0].kind == JH_PRE_ONE) || test_has(pre, &a->fwd[0], cp, md);
		} else if (place == AFTER_T) {
			ok = !(a->n_fwd >= 2 && a->fwd[0].kind == JH_PRE_ONE) || goes_on(pre, a, cp, md);
		} else {
			for (int j = 0; j < a->n_back && ok; j++)
				if (a->back[j].back == 1)
					ok = cp == -2 ? a->back[j].neg
					              : a->back[j].neg != test_has(pre, &a->back[j], cp, md);
		}
		m |= (unsigned)ok << i;
	}
	return m;
}

/* Per BMP code point, the alternatives that can take it at t and at t - 1,
 * found as they are first needed (256-entry pages, made when first
 * needed; entries and pages written with atomics: rule sets are shared by
 * threads, and a race only writes the same answers twice or loses some,
 * found again).  An entry holds the alternatives known (high byte) and,
 * of those, the ones that take it (low byte): an alternative the
 * character at t already ruled out is never asked about the one before,
 * so that no class is asked what it was not asked before. */
struct jh_pre_memo {
	uint16_t *page[3][256];
};

static JH_NOINLINE unsigned memo_fill(const jh_pre *pre, int32_t cp, int before, unsigned need,
                                      pcre2_match_data *md)
{
	struct jh_pre_memo *mm = __atomic_load_n(&pre->memo, __ATOMIC_ACQUIRE);
	if (!mm) {
		struct jh_pre_memo *none = NULL, *m = calloc(1, sizeof *m);
		if (!m)
			return alts_taking(pre, cp, before, need, md);
		if (!__atomic_compare_exchange_n(&((jh_pre *)pre)->memo, &none, m, 0, __ATOMIC_ACQ_REL,
		                                 __ATOMIC_ACQUIRE)) {
			free(m); /* another thread's came first */
			m = none;
		}
		mm = m;
	}
	uint16_t **slot = &mm->page[before][cp >> 8];
	uint16_t *pg = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!pg) {
		uint16_t *none = NULL, *p = calloc(256, sizeof *p);
		if (!p)
			return alts_taking(pre, cp, before, need, md);
		if (!__atomic_compare_exchange_n(slot, &none, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			free(p);
			p = none;
		}
		pg = p;
	}
	unsigned v = __atomic_load_n(&pg[cp & 0xFF], __ATOMIC_RELAXED);
	unsigned missing = need & ~(v >> 8);
	if (missing) {
		v |= missing << 8 | alts_taking(pre, cp, before, missing, md);
		__atomic_store_n(&pg[cp & 0xFF], (uint16_t)v, __ATOMIC_RELAXED);
	}
	return v & need;
}

/* The alternatives of need that take cp (a BMP code point) at t or t - 1:
 * two loads when known. */
static inline unsigned memo_alts(const jh_pre *pre, int32_t cp, int before, unsigned need,
                                 pcre2_match_data *md)
{
	const struct jh_pre_memo *mm = __atomic_load_n(&pre->memo, __ATOMIC_ACQUIRE);
	const uint16_t *pg = mm ? __atomic_load_n(&mm->page[before][cp >> 8], __ATOMIC_ACQUIRE) : NULL;
	if (pg) {
		unsigned v = __atomic_load_n(&pg[cp & 0xFF], __ATOMIC_RELAXED);
		if (!(need & ~(v >> 8)))
			return v & need;
	}
	return memo_fill(pre, cp, before, need, md);
}

void jh_pre_free(jh_pre *pre)
{
	struct jh_pre_memo *mm = pre->memo;
	if (mm)
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 256; k++)
				free(mm->page[b][k]);
	free(mm);
	pre->memo = NULL;
}

int jh_pre_maybe_at(const jh_pre *pre, const char *text, size_t len, size_t t, int32_t before,
                    size_t before_at, int32_t at, size_t n_at, pcre2_match_data *md)
{
	if (!pre->n)
		return 1;
	unsigned all = (1u << pre->n) - 1;
	if (before == -1 || before >= 0x10000 || at < 0 || at >= 0x10000)
		return check_alts(pre, all, text, len, t, before, before_at, at, n_at, md);
	/* Two table loads decide most triggers: the alternatives the
	 * character at t and the one before it allow.  Those whose test ends
	 * there answer at once; the others are walked in full. */
	unsigned m = memo_alts(pre, at, 0, all, md);
	if (!m)
		return 0;
	m = before == -2 ? alts_taking(pre, -2, BEFORE_T, m, md) : memo_alts(pre, before, BEFORE_T, m, md);
	if (m & pre->decided)
		return 1;
	m &= ~(unsigned)pre->decided;
	if (!m)
		return 0;
	/* then the character after t, for those whose second item is sure */
	if (m & pre->second && t + n_at < len) {
		int32_t c1;
		jh_utf8_decode((const unsigned char *)text + t + n_at, len - t - n_at, &c1);
		if (c1 >= 0 && c1 < 0x10000) {
			m = memo_alts(pre, c1, AFTER_T, m, md);
			if (m & pre->decided2)
				return 1;
			m &= ~(unsigned)pre->decided2;
		}
	}
	return m && check_alts(pre, m, text, len, t, before, before_at, at, n_at, md);
}

int jh_pre_pair(const jh_pre *pre, int32_t before, int32_t at, pcre2_match_data *md)
{
	/* the first steps of jh_pre_maybe_at, to the first that reads the text */
	if (!pre->n)
		return 1;
	unsigned m = memo_alts(pre, at, 0, (1u << pre->n) - 1, md);
	if (!m)
		return 0;
	m = memo_alts(pre, before, BEFORE_T, m, md);
	if (m & pre->decided)
		return 1;
	return m & ~(unsigned)pre->decided ? -1 : 0;
}

int jh_pre_maybe(const jh_pre *pre, const char *text, size_t len, size_t t, pcre2_match_data *md)
{
	if (!pre->n)
		return 1;
	size_t before_at;
	int32_t before = char_before(text, t, &before_at), at = -2;
	size_t n = 0;
	if (t < len)
		n = jh_utf8_decode((const unsigned char *)text + t, len - t, &at);
	return jh_pre_maybe_at(pre, text, len, t, before, before_at, at, n, md);
}

/* ---- for tests ---- */

static void put(char *buf, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);
	if (*at + n >= size)
		n = *at + 1 < size ? size - *at - 1 : 0;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

static void put_classes(const jh_pre *pre, const jh_pre_test *t, char *buf, size_t size, size_t *at)
{
	if (t->n != 1)
		put(buf, size, at, "{");
	for (int k = 0; k < t->n; k++) {
		if (k)
			put(buf, size, at, ",");
		put(buf, size, at, pre->cls[t->first + k]->src);
	}
	if (t->end_ok)
		put(buf, size, at, t->n ? ",\\z" : "\\z");
	if (t->n != 1)
		put(buf, size, at, "}");
}

void jh_pre_describe(const jh_pre *pre, char *buf, size_t size)
{
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < pre->n; i++) {
		const jh_pre_alt *a = &pre->alt[i];
		if (i)
			put(buf, size, &at, " | ");
		for (int j = 0; j < a->n_back; j++) {
			put(buf, size, &at, a->back[j].back == 2 ? "<2" : "<1");
			if (a->back[j].neg)
				put(buf, size, &at, "!");
			put_classes(pre, &a->back[j], buf, size, &at);
			put(buf, size, &at, " ");
		}
		for (int j = 0; j < a->n_fwd; j++) {
			const jh_pre_test *t = &a->fwd[j];
			if (j)
				put(buf, size, &at, " ");
			if (t->kind == JH_PRE_LOOK)
				put(buf, size, &at, "(?=");
			put_classes(pre, t, buf, size, &at);
			put(buf, size, &at, t->kind == JH_PRE_OPT ? "?" : t->kind == JH_PRE_STAR ? "*"
			                    : t->kind == JH_PRE_LOOK ? ")" : "");
		}
		if (at && buf[at - 1] == ' ')
			buf[--at] = '\0';
	}
}
