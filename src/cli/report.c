/* report.c — printing findings: `human` (the library's jh_report_human:
 * file:line:col, the source line and a caret under the span), `json` (one array),
 * `jsonl` (one finding a line) and --statistics; the CI formats are in
 * format_sarif.c and format_ci.c.  Files are checked in parallel, but each
 * file's findings are written by report_write in input order, straight to
 * the output as its turn comes: a report is never built whole in memory
 * (for a 200 MB novel it is larger than the novel). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* JSON goes out through a small buffer of its own, one fwrite when it
 * fills or a finding is done: a finding took some thirty stdio calls, each
 * taking the stream's lock (the report is written beside the pool's
 * threads), 7,700 instructions a finding and 50 a byte of manual pages. */
typedef struct {
	FILE *o;
	size_t n;
	char b[4096];
} jout;

static void jo_flush(jout *j)
{
	if (j->n)
		fwrite(j->b, 1, j->n, j->o);
	j->n = 0;
}

static void jo_put(jout *j, const char *s, size_t n)
{
	if (n > sizeof j->b - j->n) {
		jo_flush(j);
		if (n > sizeof j->b) {
			fwrite(s, 1, n, j->o);
			return;
		}
	}
	memcpy(j->b + j->n, s, n);
	j->n += n;
}

static void jo_puts(jout *j, const char *s) { jo_put(j, s, strlen(s)); }

static void jo_putc(jout *j, char c)
{
	if (j->n == sizeof j->b)
		jo_flush(j);
	j->b[j->n++] = c;
}

/* Do the eight bytes at s hold none that JSON escapes (a control
 * character, DEL, '"' or '\\')?  Messages and replacements are mostly
 * Chinese text with nothing to escape: eight bytes a step instead of one
 * (the classic test for a zero byte, on the word xor each byte sought). */
static inline int plain8(const char *s)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t w, q, b, d;
	memcpy(&w, s, 8);
	q = w ^ (ones * '"');
	b = w ^ (ones * '\\');
	d = w ^ (ones * 0x7F);
	uint64_t hit = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) |
	               ((d - ones) & ~d);
	return !(hit & high);
}

/* Bytes go out in runs between the characters that need escaping. */
static void jo_escaped(jout *j, const char *s, size_t len)
{
	size_t run = 0;
	jo_putc(j, '"');
	for (size_t i = 0; i < len;) {
		while (len - i >= 8 && plain8(s + i))
			i += 8;
		if (i >= len)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		jo_put(j, s + run, i - run);
		run = ++i;
		switch (c) {
		case '"': jo_puts(j, "\\\""); break;
		case '\\': jo_puts(j, "\\\\"); break;
		case '\n': jo_puts(j, "\\n"); break;
		case '\r': jo_puts(j, "\\r"); break;
		case '\t': jo_puts(j, "\\t"); break;
		default: {
			char u[8];
			snprintf(u, sizeof u, "\\u%04x", c);
			jo_puts(j, u);
		}
		}
	}
	jo_put(j, s + run, len - run);
	jo_putc(j, '"');
}

/* A JSON string holds Unicode only: invalid UTF-8 is written as the
 * library shows it (jh_utf8_clean, U+FFFD), as the language server does. */
static void jo_string(jout *j, const char *s, size_t len)
{
	if (jh_utf8_valid_prefix(s, len) == len) {
		jo_escaped(j, s, len);
		return;
	}
	size_t n = jh_utf8_clean(s, len, NULL, 0);
	char *clean = xmalloc(n + 1);
	jh_utf8_clean(s, len, clean, n + 1);
	jo_escaped(j, clean, n);
	free(clean);
}

void put_json_string(FILE *out, const char *s, size_t len)
{
	jout j;
	j.o = out;
	j.n = 0;
	jo_string(&j, s, len);
	jo_flush(&j);
}

static int reads_back(char *buf, size_t size, int prec, double score)
{
	snprintf(buf, size, "%.*g", prec, score);
	return strtod(buf, NULL) == score;
}

/* The shortest %.*g form that reads back as the score.  One more digit is
 * never further from the score, so reading back holds from some precision
 * on, and a binary search over 1..17 finds it (4 or 5 conversions instead
 * of up to 17: a mask's three scores cost 150 k instructions walking up).
 * The exception is a power of two, where the doubles below are twice as
 * close as those above and a nearer form may fall outside: walk up there. */
static void shortest_g(char *buf, size_t size, double score)
{
	int e;
	if (frexp(score, &e) == 0.5) {
		for (int prec = 1; prec <= 17 && !reads_back(buf, size, prec, score); prec++)
			;
		return;
	}
	int lo = 1, hi = 17; /* 17 digits always read back */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (reads_back(buf, size, mid, score))
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(buf, size, "%.*g", lo, score);
}

/* The same form for a score in [1e-7, 1) by exact integer arithmetic,
 * without a conversion of libc (shortest_g's 4 or 5 pairs of snprintf and
 * strtod were a tenth of a mask's cost in censor.mask.suggest): x = m 2^e,
 * scaled by 10^q to V = m 5^q / 2^s in [10^16, 10^17), rounded to p
 * digits for p = 1, 2, ..., and kept at the first p whose decimal lies
 * strictly between x's neighbouring midpoints (on one when m is even:
 * strtod rounds half to even).  Returns 0 (use shortest_g) outside that
 * range, at a power of two and on an exact tie of the rounding. */
static int shortest_fast(char *buf, size_t size, double x)
{
	if (!(x >= 1e-7 && x < 1) || size < 32)
		return 0;
	int be;
	double f = frexp(x, &be);
	if (f == 0.5)
		return 0;
	typedef unsigned __int128 u128;
	uint64_t m = (uint64_t)ldexp(f, 53);
	int e = be - 53;
	static const uint64_t p10[18] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	                                 10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	                                 100000000000ull, 1000000000000ull, 10000000000000ull,
	                                 100000000000000ull, 1000000000000000ull,
	                                 10000000000000000ull, 100000000000000000ull};
	int q = 17;
	u128 n5 = 0, t = 0, rem = 0;
	int s = 0;
	for (int tries = 0; tries < 10; tries++) {
		if (q < 17 || q > 23)
			return 0;
		u128 f5 = 1;
		for (int i = 0; i < q; i++)
			f5 *= 5;
		n5 = f5;
		s = -e - q;
		if (s <= 0 || s >= 120)
			return 0;
		u128 n = (u128)m * f5;
		t = n >> s;
		rem = n & (((u128)1 << s) - 1);
		if (t >= p10[17])
			q--;
		else if (t < p10[16])
			q++;
		else
			break;
	}
	if (t < p10[16] || t >= p10[17])
		return 0;
	u128 bm = (u128)(2 * m - 1) * n5, bp = (u128)(2 * m + 1) * n5;
	u128 one = (u128)1 << s;
	for (int p = 1; p <= 17; p++) {
		uint64_t u = p10[17 - p];
		uint64_t rp = (uint64_t)(t / u), r = (uint64_t)(t % u);
		u128 twice = 2 * ((u128)r * one + rem), whole = (u128)u * one;
		if (twice == whole)
			return 0; /* an exact tie: libc's rounding decides */
		if (twice > whole)
			rp++;
		u128 a = ((u128)rp * u) << (s + 1);
		int ok = (a > bm && a < bp) || ((a == bm || a == bp) && !(m & 1));
		if (!ok)
			continue;
		/* rp has p digits (p + 1 on a carry to 10^p); value rp 10^(17 - p - q) */
		int X = 16 - q; /* the decimal exponent of the first digit */
		if (rp == p10[p]) {
			rp = p10[p - 1];
			X++;
		}
		char dg[20];
		for (int i = p - 1; i >= 0; i--) {
			dg[i] = (char)('0' + rp % 10);
			rp /= 10;
		}
		int nd = p;
		while (nd > 1 && dg[nd - 1] == '0')
			nd--;
		char *o = buf;
		if (X < -4 || X >= p) {
			*o++ = dg[0];
			if (nd > 1) {
				*o++ = '.';
				for (int i = 1; i < nd; i++)
					*o++ = dg[i];
			}
			int ax = X < 0 ? -X : X;
			*o++ = 'e';
			*o++ = X < 0 ? '-' : '+';
			if (ax >= 100)
				*o++ = (char)('0' + ax / 100);
			*o++ = (char)('0' + ax / 10 % 10);
			*o++ = (char)('0' + ax % 10);
		} else if (X < 0) {
			*o++ = '0';
			*o++ = '.';
			for (int i = -1; i > X; i--)
				*o++ = '0';
			for (int i = 0; i < nd; i++)
				*o++ = dg[i];
		} else { /* X == 0: 1 after a carry, or d.ddd */
			*o++ = dg[0];
			if (nd > 1) {
				*o++ = '.';
				for (int i = 1; i < nd; i++)
					*o++ = dg[i];
			}
		}
		*o = '\0';
		return 1;
	}
	return 0;
}

static void jo_score(jout *j, double score)
{
	if (!(score >= 0)) {
		jo_puts(j, "null");
		return;
	}
	char buf[32];
	if (!shortest_fast(buf, sizeof buf, score))
		shortest_g(buf, sizeof buf, score);
	jo_puts(j, buf);
	if (!strpbrk(buf, ".e"))
		jo_puts(j, ".0");
}

void put_json_score(FILE *out, double score)
{
	jout j;
	j.o = out;
	j.n = 0;
	jo_score(&j, score);
	jo_flush(&j);
}

size_t orig_offset(const report_doc *d, size_t pos)
{
	return d->enc ? jh_document_file_offset(d->enc, pos) : pos;
}

void report_begin(reporter *r)
{
	r->first_chunk = 1;
	if (r->statistics)
		return;
	if (r->format == FMT_JSON)
		fputs("[", r->out);
	else if (r->format == FMT_SARIF)
		sarif_begin(r->out);
	else if (r->format == FMT_CHECKSTYLE)
		checkstyle_begin(r->out);
	if (r->flush_each)
		fflush(r->out);
}

/* The line holding pos: its start, and where its line break (or the text)
 * ends it.  A report asks in text order, line after line: the last line is
 * remembered, as walking back from every finding to its line's start made
 * a long line with many findings cost its length squared. */
static void line_at(const report_doc *d, size_t pos, size_t *start, size_t *brk)
{
	size_t p = pos > d->len ? d->len : pos;
	line_memo *m = d->memo;
	if (m && m->valid && m->start <= p && p <= m->brk) {
		*start = m->start;
		*brk = m->brk;
		return;
	}
	size_t s = p;
	while (s > 0 && d->text[s - 1] != '\n')
		s--;
	const char *nl = memchr(d->text + p, '\n', d->len - p);
	*start = s;
	*brk = nl ? (size_t)(nl - d->text) : d->len;
	if (m)
		*m = (line_memo){s, *brk, 1};
}

size_t line_start(const report_doc *d, size_t pos)
{
	size_t s, b;
	line_at(d, pos, &s, &b);
	return s;
}

void put_name(FILE *o, const char *name)
{
	char buf[1024], *big = NULL;
	size_t n = jh_name_escape(name, buf, sizeof buf);
	if (n >= sizeof buf) {
		big = xmalloc(n + 1);
		jh_name_escape(name, big, n + 1);
	}
	fwrite(big ? big : buf, 1, n, o);
	free(big);
}

void file_msg(FILE *o, const char *name, const char *fmt, ...)
{
	va_list ap;
	fputs("jinghua: ", o);
	put_name(o, name);
	fputs(": ", o);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
}

static int write_out(const char *data, size_t len, void *out)
{
	return fwrite(data, 1, len, out) != len;
}

/* The library writes the report; a write that fails shows in the
 * stream's error flag, which the end of the run reads. */
static void human_findings(const reporter *r, const report_doc *d, const jh_findings *fs)
{
	if (jh_report_human(d->name, d->text, d->len, fs, r->color ? JH_REPORT_COLOR : 0, write_out,
	                    r->out) == JH_ERR_NOMEM)
		die_nomem();
}

/* key (with its quotes and colon, after a comma) and a number: fprintf
 * for the eight numbers of a finding was half of the JSON report's time. */
static void json_uint(jout *j, const char *key, size_t v)
{
	char buf[24];
	int n = sizeof buf;
	do
		buf[--n] = (char)('0' + v % 10);
	while ((v /= 10) && n > 0);
	jo_puts(j, key);
	jo_put(j, buf + n, sizeof buf - (size_t)n);
}

/* [{"byte_start":…,"byte_end":…,"replacement":…}, …] in the file's offsets */
static void json_edits(jout *j, const report_doc *d, const jh_edit *edits, size_t n)
{
	jo_putc(j, '[');
	for (size_t i = 0; i < n; i++) {
		const jh_edit *e = &edits[i];
		json_uint(j, i ? ",{\"byte_start\":" : "{\"byte_start\":", orig_offset(d, e->byte_start));
		json_uint(j, ",\"byte_end\":", orig_offset(d, e->byte_end));
		jo_puts(j, ",\"replacement\":");
		jo_string(j, e->replacement, strlen(e->replacement));
		jo_putc(j, '}');
	}
	jo_putc(j, ']');
}

void json_finding(FILE *o, const report_doc *d, const jh_finding *f)
{
	jout jo, *j = &jo;
	jo.o = o;
	jo.n = 0;
	jo_putc(j, '{');
	if (*d->name) { /* jsonl filter records have no file */
		jo_puts(j, "\"file\":");
		jo_string(j, d->name, strlen(d->name));
		jo_putc(j, ',');
	}
	jo_puts(j, "\"rule\":");
	jo_string(j, f->rule_id, strlen(f->rule_id));
	jo_puts(j, ",\"severity\":\"");
	jo_puts(j, jh_severity_name(f->severity));
	jo_putc(j, '"');
	json_uint(j, ",\"line\":", f->line);
	json_uint(j, ",\"column\":", f->column);
	json_uint(j, ",\"end_line\":", f->end_line);
	json_uint(j, ",\"end_column\":", f->end_column);
	json_uint(j, ",\"display_column\":", f->display_column);
	json_uint(j, ",\"byte_start\":", orig_offset(d, f->byte_start));
	json_uint(j, ",\"byte_end\":", orig_offset(d, f->byte_end));
	jo_puts(j, ",\"message\":");
	jo_string(j, f->message, strlen(f->message));
	jo_puts(j, ",\"fix\":");
	if (!f->has_fix) {
		jo_puts(j, "null");
	} else {
		jo_puts(j, f->safety == JH_SAFE ? "{\"safety\":\"safe\",\"edits\":"
		                                : "{\"safety\":\"unsafe\",\"edits\":");
		json_edits(j, d, f->edits, f->n_edits);
		jo_putc(j, '}');
	}
	/* the ranked answers, when the rule gives them (the first is the fix
	 * when there is one); the binding's Finding.to_dict writes the same */
	if (f->n_alternatives) {
		const char *safety = f->safety == JH_SAFE ? "safe" : "unsafe";
		jo_puts(j, ",\"alternatives\":[");
		for (size_t i = 0; i < f->n_alternatives; i++) {
			jo_puts(j, i ? ",{\"safety\":\"" : "{\"safety\":\"");
			jo_puts(j, safety);
			jo_puts(j, "\",\"edits\":");
			json_edits(j, d, f->alternatives[i].edits, f->alternatives[i].n_edits);
			jo_puts(j, ",\"score\":");
			jo_score(j, f->alternatives[i].score);
			jo_putc(j, '}');
		}
		jo_putc(j, ']');
	}
	jo_putc(j, '}');
	jo_flush(j);
}

/* JSON and SARIF items are separated by commas: none before the first. */
static void separate(reporter *r, FILE *o)
{
	fputs(r->first_chunk ? "\n" : ",\n", o);
	r->first_chunk = 0;
}

static void write_finding(reporter *r, const report_doc *d, const jh_finding *f)
{
	FILE *o = r->out;
	switch (r->format) {
	case FMT_HUMAN: /* whole files, in report_render */
		break;
	case FMT_JSON:
		separate(r, o);
		json_finding(o, d, f);
		break;
	case FMT_JSONL:
		json_finding(o, d, f);
		fputc('\n', o);
		break;
	case FMT_SARIF:
		separate(r, o);
		sarif_result(o, d, f);
		break;
	case FMT_GITHUB:
		github_finding(o, d, f);
		break;
	case FMT_RDJSONL:
		rdjson_finding(o, d, f);
		fputc('\n', o);
		break;
	case FMT_CHECKSTYLE:
		break;
	}
}

static void count(reporter *r, const jh_ruleset *rs, const jh_finding *f)
{
	r->n_findings++;
	r->by_sev[f->severity]++;
	for (size_t i = 0; i < r->n_counts; i++)
		if (!strcmp(r->counts[i].id, f->rule_id)) {
			r->counts[i].count++;
			r->counts[i].fixable += f->has_fix && f->safety == JH_SAFE;
			r->counts[i].unsafe += f->has_fix && f->safety != JH_SAFE;
			return;
		}
	if (r->n_counts == r->cap_counts) {
		r->cap_counts = r->cap_counts ? r->cap_counts * 2 : 32;
		r->counts = xrealloc(r->counts, r->cap_counts * sizeof *r->counts);
	}
	r->counts[r->n_counts++] = (rule_count){f->rule_id, rs, f->severity, 1,
	                                        (size_t)(f->has_fix && f->safety == JH_SAFE),
	                                        (size_t)(f->has_fix && f->safety != JH_SAFE)};
}

void report_count(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	r->n_files++;
	for (size_t i = 0; i < fs->count; i++)
		count(r, doc->rs, &fs->items[i]);
}

void report_write(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	report_count(r, doc, fs);
	report_render(r, doc, fs);
}

int report_prerender(const reporter *r, const report_doc *doc, const jh_findings *fs, char **out,
                     size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (!report_prints(r, fs))
		return 0;
	/* only the settings fixed before the threads start are read from r */
	reporter local = {0};
	local.format = r->format;
	local.color = r->color;
	local.first_chunk = 1;
	if (!(local.out = open_memstream(out, out_len)))
		return -1;
	report_render(&local, doc, fs);
	if (fclose(local.out) != 0) {
		free(*out);
		*out = NULL;
		*out_len = 0;
		return -1;
	}
	return 0;
}

void report_put(reporter *r, const report_doc *doc, const jh_findings *fs, const char *chunk,
                size_t len)
{
	report_count(r, doc, fs);
	if (!len)
		return;
	/* the chunk was rendered as if first: "\n" before its first element */
	if ((r->format == FMT_JSON || r->format == FMT_SARIF) && !r->first_chunk)
		fputc(',', r->out);
	if (r->format == FMT_JSON || r->format == FMT_SARIF)
		r->first_chunk = 0;
	fwrite(chunk, 1, len, r->out);
	if (r->flush_each)
		fflush(r->out);
}

void report_render(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	if (r->statistics || !fs->count)
		return;
	line_memo memo = {0};
	report_doc d = *doc;
	d.memo = &memo;
	if (r->format == FMT_CHECKSTYLE)
		checkstyle_file(r->out, &d, fs);
	else if (r->format == FMT_HUMAN)
		human_findings(r, &d, fs);
	else
		for (size_t i = 0; i < fs->count; i++)
			write_finding(r, &d, &fs->items[i]);
	if (r->flush_each)
		fflush(r->out);
}

int report_prints(const reporter *r, const jh_findings *fs)
{
	return !r->statistics && fs->count;
}

static int cmp_count(const void *a, const void *b)
{
	const rule_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->id, y->id);
}

const char *rule_message(const jh_ruleset *rs, const char *id)
{
	long idx = rs ? jh_ruleset_find(rs, id) : -1;
	if (idx < 0)
		return NULL;
	jh_rule_info in = JH_RULE_INFO_INIT;
	jh_rule_get_info(jh_ruleset_rule(rs, (size_t)idx), &in);
	return in.message;
}

/* The end of a summary line: the binary files that were not checked. */
static void put_skipped(FILE *o, const reporter *r)
{
	if (r->n_skipped)
		fprintf(o, " checked, %zu binary file%s skipped", r->n_skipped,
		        r->n_skipped == 1 ? "" : "s");
	fputc('\n', o);
}

static void print_statistics(reporter *r)
{
	if (r->n_counts > 1) /* counts is NULL without findings: not for qsort */
		qsort(r->counts, r->n_counts, sizeof *r->counts, cmp_count);
	FILE *o = r->out;
	if (r->format == FMT_JSON) {
		fputs("[", o);
		for (size_t i = 0; i < r->n_counts; i++) {
			const rule_count *c = &r->counts[i];
			fprintf(o, "%s\n{\"rule\":", i ? "," : "");
			put_json_string(o, c->id, strlen(c->id));
			fprintf(o, ",\"severity\":\"%s\",\"count\":%zu,\"fixable\":%zu,\"unsafe_fixable\":%zu}",
			        jh_severity_name(c->severity), c->count, c->fixable, c->unsafe);
		}
		fputs(r->n_counts ? "\n]\n" : "]\n", o);
		return;
	}
	for (size_t i = 0; i < r->n_counts; i++) {
		const rule_count *c = &r->counts[i];
		fprintf(o, "%7zu  %-32s %-7s %7zu fixable", c->count, c->id, jh_severity_name(c->severity),
		        c->fixable);
		if (c->unsafe)
			fprintf(o, ", %zu with --unsafe", c->unsafe);
		fputc('\n', o);
	}
	if (r->n_counts) {
		fprintf(o, "%7zu  total in %zu file%s", r->n_findings, r->n_files,
		        r->n_files == 1 ? "" : "s");
		put_skipped(o, r);
	}
}

void report_end(reporter *r)
{
	if (r->statistics) {
		print_statistics(r);
	} else if (r->format == FMT_JSON) {
		fputs(r->first_chunk ? "]\n" : "\n]\n", r->out);
	} else if (r->format == FMT_SARIF) {
		sarif_end(r);
	} else if (r->format == FMT_CHECKSTYLE) {
		checkstyle_end(r->out);
	} else if (r->format == FMT_HUMAN) {
		jh_report_human_summary(r->by_sev, r->n_files, r->n_skipped, write_out, r->out);
	}
	if (r->flush_each)
		fflush(r->out);
	free(r->counts);
	r->counts = NULL;
	r->n_counts = r->cap_counts = 0;
}
