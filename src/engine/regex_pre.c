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
		if (strlen(cs->v[i]->src) == n && !memcmp(cs->v[i]->src, item, n))
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
	*c = (jh_pre_class){src, NULL, NULL, 0, literal(item, n)};
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

/* One alternative, alt[0..n): what it needs of the characters at t - 1,
 * t and t + 1, read from its start as far as it is sure.  0 (at[] set,
 * maybe all NULL), or an add_class error. */
static int read_alt(const char *alt, size_t n, jh_pre_alt *out, jh_pre_classes *cs)
{
	const char *p = alt, *end = alt + n;
	int pos = 0; /* offset from t of the next character consumed */
	int err = 0;
	memset(out, 0, sizeof *out);
	while (p < end && pos <= 1) {
		const char *item, *item_end;
		if (!strncmp(p, "(?<=", 4) && pos == 0) {
			item = p + 4;
			item_end = skip_item(item);
			if (!item_end || *item_end != ')') {
				p = skip_group(p); /* of more than one class: passed over */
				if (!p || p > end)
					return 0;
				continue;
			}
			if ((item_end[1] && strchr("?*+{", item_end[1])))
				return 0;
			if (!out->at[0] && !(out->at[0] = get_class(item, (size_t)(item_end - item), cs, &err)))
				return err < 0 ? -1 : 0;
			p = item_end + 1;
			continue;
		}
		if (!strncmp(p, "(?=", 3) && pos <= 1) {
			/* a lookahead of one item: the next character is in it */
			item = p + 3;
			item_end = skip_item(item);
			if (item_end && *item_end == ')' && !(item_end[1] && strchr("?*+{", item_end[1]))) {
				if (!out->at[1 + pos] &&
				    !(out->at[1 + pos] = get_class(item, (size_t)(item_end - item), cs, &err)))
					return err < 0 ? -1 : 0;
				p = item_end + 1;
				continue;
			}
		}
		if (!strncmp(p, "(?<!", 4) || !strncmp(p, "(?!", 3) || !strncmp(p, "(?=", 3)) {
			/* an assertion: passed over, it needs nothing sure here */
			p = skip_group(p);
			if (!p || p > end)
				return 0;
			continue;
		}
		if (*p == '(') {
			/* a group of one item: (X) or (?:X) */
			item = p + 1;
			if (!strncmp(item, "?:", 2))
				item += 2;
			else if (*item == '?')
				return 0;
			item_end = skip_item(item);
			if (!item_end || *item_end != ')')
				return 0;
			p = item_end + 1;
		} else {
			item = p;
			if (!(item_end = skip_item(item)))
				return 0;
			p = item_end;
		}
		unsigned min;
		int exact;
		if (!(p = quantifier(p, &min, &exact)) || p > end)
			return 0;
		for (unsigned k = 0; k < min && pos + (int)k <= 1; k++)
			if (!out->at[1 + pos + k] &&
			    !(out->at[1 + pos + k] = get_class(item, (size_t)(item_end - item), cs, &err)))
				return err < 0 ? -1 : 0;
		if (!exact)
			break; /* how many it took is not known: nothing sure after it */
		pos += (int)min;
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
		if (read_alt(a, (size_t)(p - a), alt, cs))
			return -1;
		if (!alt->at[0] && !alt->at[1] && !alt->at[2])
			goto none; /* this one could match anywhere */
		/* The cheapest and most telling tests first: single characters
		 * (at t first, which tells alternatives such as ，， and 、、
		 * apart), then classes (before t first: a class at t mostly
		 * holds the trigger itself). */
		static const uint8_t lit_places[3] = {1, 2, 0}, class_places[3] = {0, 2, 1};
		for (int pass = 0; pass < 2; pass++)
			for (int j = 0; j < 3; j++) {
				int k = pass ? class_places[j] : lit_places[j];
				if (alt->at[k] && (alt->at[k]->lit >= 0) == !pass) {
					alt->lit[alt->n_tests] = alt->at[k]->lit;
					alt->order[alt->n_tests++] = (uint8_t)k;
				}
			}
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

/* The code point of the character ending at t (0 when t is 0: none), or -1
 * when the bytes before t are not a valid character. */
static int32_t char_before(const char *text, size_t t, int *none)
{
	*none = t == 0;
	if (!t)
		return 0;
	size_t b = t - 1;
	while (b > 0 && t - b < 4 && ((unsigned char)text[b] & 0xC0) == 0x80)
		b--;
	int32_t cp;
	size_t n = jh_utf8_decode((const unsigned char *)text + b, t - b, &cp);
	return cp >= 0 && b + n == t ? cp : -1;
}

/* The code point at place k (0: t - 1, 1: t, 2: t + 1) of text around t:
 * -2 for none, -1 for bytes that are not a valid character.  cp[1] and
 * *after are set first when k is 2. */
static int32_t place(const char *text, size_t len, size_t t, int k, int32_t *cp, unsigned *have,
                     size_t *after)
{
	if (k == 0) {
		int none;
		int32_t c = char_before(text, t, &none);
		return none ? -2 : c;
	}
	if (k == 2 && !(*have & 2u)) {
		cp[1] = place(text, len, t, 1, cp, have, after);
		*have |= 2u;
	}
	size_t at = k == 1 ? t : *after;
	if (k == 2 && cp[1] < 0)
		return cp[1];
	if (at >= len)
		return -2;
	int32_t c;
	size_t n = jh_utf8_decode((const unsigned char *)text + at, len - at, &c);
	if (k == 1)
		*after = at + n;
	return c;
}

int jh_pre_maybe(const jh_pre *pre, const char *text, size_t len, size_t t, pcre2_match_data *md)
{
	if (!pre->n)
		return 1;
	int32_t cp[3];
	unsigned have = 0;
	size_t after = 0;
	for (int i = 0; i < pre->n; i++) {
		const jh_pre_alt *a = &pre->alt[i];
		int ok = 1;
		for (int j = 0; j < a->n_tests && ok; j++) {
			int k = a->order[j];
			if (!(have >> k & 1u)) {
				cp[k] = place(text, len, t, k, cp, &have, &after);
				have |= 1u << k;
			}
			if (cp[k] == -1)
				return 1; /* not valid UTF-8 there: PCRE2 decides */
			ok = cp[k] != -2 &&
			     (a->lit[j] >= 0 ? cp[k] == a->lit[j] : class_has(a->at[k], cp[k], md));
		}
		if (ok)
			return 1;
	}
	return 0;
}
