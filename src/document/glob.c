/* glob.c — the globs of [path:GLOB] sections and `exclude =`: *, ?, [..]
 * and ** (a pattern without '/' matches the base name). */
#include <stdlib.h>
#include <string.h>
#include "document.h"

/* ---- glob matching ---- */


static int class_match(const char **pp, char c)
{
	const char *p = *pp + 1;
	int neg = *p == '!' || *p == '^', hit = 0;
	if (neg)
		p++;
	for (int first = 1; *p && (*p != ']' || first); first = 0) {
		char lo = *p, hi = lo;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			p += 3;
		} else {
			p++;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	if (*p != ']')
		return -1; /* not a class: match '[' literally */
	*pp = p + 1;
	return hit != neg;
}

/* Glob matching is written here because fnmatch(3) has no "**".  A naive
 * backtracking matcher is exponential in the number of stars ("*a*a*a*b"
 * against "aaaa…"), so each (pattern, subject) position pair that failed is
 * remembered and never tried again: cost O(|pattern| * |subject|^2) at worst. */
typedef struct {
	const char *p0, *s0;
	size_t slen1;          /* strlen(subject) + 1 */
	unsigned char *failed; /* bit per (pattern pos, subject pos); NULL = no memo */
} gmemo;

static int gmatch_at(gmemo *m, const char *p, const char *s);

static int gmatch(gmemo *m, const char *p, const char *s)
{
	size_t bit = 0;
	if (m->failed) {
		bit = (size_t)(p - m->p0) * m->slen1 + (size_t)(s - m->s0);
		if (m->failed[bit >> 3] & (1u << (bit & 7)))
			return 0;
	}
	int r = gmatch_at(m, p, s);
	if (!r && m->failed)
		m->failed[bit >> 3] |= (unsigned char)(1u << (bit & 7));
	return r;
}

static int gmatch_at(gmemo *m, const char *p, const char *s)
{
	while (*p) {
		if (p[0] == '*' && p[1] == '*') {
			p += 2;
			while (*p == '*')
				p++;
			if (*p == '/') {
				p++;
				/* "**\/" matches zero or more whole folders */
				if (gmatch(m, p, s))
					return 1;
				for (const char *q = s; *q; q++)
					if (*q == '/' && gmatch(m, p, q + 1))
						return 1;
				return 0;
			}
			for (const char *q = s;; q++) {
				if (gmatch(m, p, q))
					return 1;
				if (!*q)
					return 0;
			}
		}
		if (*p == '*') {
			p++;
			for (const char *q = s;; q++) {
				if (gmatch(m, p, q))
					return 1;
				if (!*q || *q == '/')
					return 0;
			}
		}
		if (!*s)
			return 0;
		if (*p == '?') {
			if (*s == '/')
				return 0;
			p++;
			s++;
			continue;
		}
		if (*p == '[') {
			const char *q = p;
			int r = class_match(&q, *s);
			if (r >= 0) {
				if (!r || *s == '/')
					return 0;
				p = q;
				s++;
				continue;
			}
		}
		if (*p == '\\' && p[1])
			p++;
		if (*p != *s)
			return 0;
		p++;
		s++;
	}
	return !*s;
}

static int gmatch_top(const char *p, const char *s)
{
	/* The config loader refuses longer globs; this keeps the memo bounded
	 * (GLOB_MAX x PATH_MAX bits) for any other caller. */
	if (strlen(p) > GLOB_MAX)
		return 0;
	gmemo m = {p, s, strlen(s) + 1, NULL};
	size_t bits = (strlen(p) + 1) * m.slen1;
	/* Only patterns with a star can backtrack; the memo stays small for
	 * real globs and paths (a few KB at most). */
	if (strchr(p, '*'))
		m.failed = calloc(bits / 8 + 1, 1);
	int r = gmatch(&m, p, s);
	free(m.failed);
	return r;
}

int glob_match(const char *pattern, const char *path)
{
	if (pattern[0] == '/')
		return gmatch_top(pattern + 1, path);
	if (!strchr(pattern, '/')) {
		const char *base = strrchr(path, '/');
		return gmatch_top(pattern, base ? base + 1 : path);
	}
	if (pattern[0] == '.' && pattern[1] == '/')
		pattern += 2;
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '/') { /* "drafts/" = everything in it */
		char p[GLOB_MAX + 3];
		if (n > GLOB_MAX)
			return 0;
		memcpy(p, pattern, n);
		memcpy(p + n, "**", 3);
		return gmatch_top(p, path);
	}
	return gmatch_top(pattern, path);
}
