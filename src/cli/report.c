/* report.c — printing findings: `human` (the library's jh_report_human:
 * file:line:col, the source line and a caret under the span), `json` (one array),
 * `jsonl` (one finding a line) and --statistics; the CI formats are in
 * format_sarif.c and format_ci.c, the JSON writer the json formats use in
 * jsonout.c (jsonout.h).  Files are checked in parallel, but each
 * file's findings are written by report_write in input order, straight to
 * the output as its turn comes: a report is never built whole in memory
 * (for a 200 MB novel it is larger than the novel). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jsonout.h"

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

/* [{"byte_start":…,"byte_end":…,"replacement":…}, …] in the file's
 * offsets; bs and be are the finding's, which most edits share */
static void json_edits(jout *j, const report_doc *d, const jh_edit *edits, size_t n,
                       const jnum *bs, const jnum *be)
{
	jo_putc(j, '[');
	for (size_t i = 0; i < n; i++) {
		const jh_edit *e = &edits[i];
		char *p = jo_room(j, 2 * UINT_ROOM + 32), *p0 = p;
		if (i)
			*p++ = ',';
		PUT_LIT(p, "{\"byte_start\":");
		p = put_uint_as(p, orig_offset(d, e->byte_start), bs);
		PUT_LIT(p, ",\"byte_end\":");
		p = put_uint_as(p, orig_offset(d, e->byte_end), be);
		PUT_LIT(p, ",\"replacement\":");
		j->n += (size_t)(p - p0);
		jo_str(j, e->replacement);
		jo_putc(j, '}');
	}
	jo_putc(j, ']');
}

/* The finding's severity and place, up to the message's key, at p, in the
 * room its caller made; p past them.  Both JSON writers of a finding. */
static char *put_place(char *p, const jh_finding *f, const jnum *line, const jnum *bs,
                       const jnum *be)
{
	switch (f->severity) { /* jh_severity_name's words */
	case JH_ERROR: PUT_LIT(p, ",\"severity\":\"error\",\"line\":"); break;
	case JH_WARNING: PUT_LIT(p, ",\"severity\":\"warning\",\"line\":"); break;
	case JH_INFO: PUT_LIT(p, ",\"severity\":\"info\",\"line\":"); break;
	default: PUT_LIT(p, ",\"severity\":\"?\",\"line\":"); break;
	}
	p = put_num(p, line);
	PUT_LIT(p, ",\"column\":");
	p = put_uint(p, f->column);
	PUT_LIT(p, ",\"end_line\":");
	p = put_uint_as(p, f->end_line, line);
	PUT_LIT(p, ",\"end_column\":");
	p = put_uint(p, f->end_column);
	PUT_LIT(p, ",\"display_column\":");
	p = put_uint(p, f->display_column);
	PUT_LIT(p, ",\"byte_start\":");
	p = put_num(p, bs);
	PUT_LIT(p, ",\"byte_end\":");
	p = put_num(p, be);
	PUT_LIT(p, ",\"message\":");
	return p;
}

/* One finding's object; its parts of known length go out after one test
 * for room. */
static void jo_finding(jout *j, const report_doc *d, const jh_finding *f)
{
	char *p, *p0;
	if (j->memo && j->memo->head_len) {
		jo_copy_form(j, j->memo, j->memo->head_off, j->memo->head_len);
	} else if (*d->name) { /* jsonl filter records have no file */
		jo_put(j, "{\"file\":", 8);
		jo_str(j, d->name);
		jo_put(j, ",\"rule\":", 8);
	} else {
		jo_put(j, "{\"rule\":", 8);
	}
	jo_str(j, f->rule_id);
	jnum line = num_of(f->line);
	jnum bs = num_of(orig_offset(d, f->byte_start)), be = num_of(orig_offset(d, f->byte_end));
	p = p0 = jo_room(j, 7 * UINT_ROOM + 64);
	p = put_place(p, f, &line, &bs, &be);
	j->n += (size_t)(p - p0);
	jo_str(j, f->message);
	p = p0 = jo_room(j, 64);
	if (!f->has_fix)
		PUT_LIT(p, ",\"fix\":null");
	else if (f->safety == JH_SAFE)
		PUT_LIT(p, ",\"fix\":{\"safety\":\"safe\",\"edits\":");
	else
		PUT_LIT(p, ",\"fix\":{\"safety\":\"unsafe\",\"edits\":");
	j->n += (size_t)(p - p0);
	if (f->has_fix) {
		json_edits(j, d, f->edits, f->n_edits, &bs, &be);
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
			json_edits(j, d, f->alternatives[i].edits, f->alternatives[i].n_edits, &bs, &be);
			jo_puts(j, ",\"score\":");
			jo_score(j, f->alternatives[i].score);
			jo_putc(j, '}');
		}
		jo_putc(j, ']');
	}
	jo_putc(j, '}');
}

/* len bytes of a form at p, sixteen at a time (room is left for the
 * overshoot); returns the end. */
static inline char *put_form(char *p, const char *q, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 16)
		memcpy(p + i, q + i, 16);
	return p + len;
}

/* The common finding (its strings in the memo, one edit or none, no
 * alternatives) written in one piece after one test for room, sep before
 * it; 0 when f is not of that kind. */
static int jo_finding_fast(jout *j, const report_doc *d, const jh_finding *f, const char sep[4],
                           size_t sep_len)
{
	jmemo *m = j->memo;
	const jh_edit *e = f->has_fix ? f->edits : NULL;
	if (!m->head_len || f->n_alternatives || (f->has_fix && f->n_edits != 1))
		return 0;
	/* the slots' contents are copied: two strings may share a slot, and
	 * the memo may start afresh (then it is asked again) */
	jseen rule, msg, rep = {NULL, 0, 0};
	for (unsigned fresh = m->fresh;;) {
		const jseen *a = memo_get(m, f->rule_id);
		if (!a) /* a string too long to keep */
			return 0;
		rule = *a;
		if (!(a = memo_get(m, f->message)))
			return 0;
		msg = *a;
		if (e) {
			if (!(a = memo_get(m, e->replacement)))
				return 0;
			rep = *a;
		}
		if (fresh == m->fresh)
			break;
		fresh = m->fresh;
	}
	size_t room = sep_len + m->head_len + rule.len + msg.len + rep.len + 512;
	if (room > j->cap / 2)
		return 0;
	/* a line's findings follow each other: its number is made once */
	jnum line;
	if (m->line_n && m->line == f->line) {
		line = (jnum){m->line, m->line_w, m->line_n};
	} else {
		line = num_of(f->line);
		m->line = line.v;
		m->line_w = line.w;
		m->line_n = line.n;
	}
	/* the end mostly a few bytes past the start: its last digit moved on */
	jnum bs = num_of(orig_offset(d, f->byte_start)), be;
	uint64_t end = orig_offset(d, f->byte_end), step = end - bs.v;
	if (bs.n && end >= bs.v && step < 10 && (bs.w >> (8 * (bs.n - 1)) & 0xFF) - '0' + step < 10)
		be = (jnum){end, bs.w + (step << (8 * (bs.n - 1))), bs.n};
	else
		be = num_of(end);
	const char *forms = m->forms; /* no form is made from here on */
	char *p = jo_room(j, room), *p0 = p;
	memcpy(p, sep, 4);
	p += sep_len;
	p = put_form(p, forms + m->head_off, m->head_len);
	p = put_form(p, forms + rule.off, rule.len);
	p = put_place(p, f, &line, &bs, &be);
	p = put_form(p, forms + msg.off, msg.len);
	if (!e) {
		PUT_LIT(p, ",\"fix\":null}");
	} else {
		if (f->safety == JH_SAFE)
			PUT_LIT(p, ",\"fix\":{\"safety\":\"safe\",\"edits\":[{\"byte_start\":");
		else
			PUT_LIT(p, ",\"fix\":{\"safety\":\"unsafe\",\"edits\":[{\"byte_start\":");
		/* the edit mostly spans the finding: its offsets are known */
		p = e->byte_start == f->byte_start ? put_num(p, &bs)
		                                   : put_uint(p, orig_offset(d, e->byte_start));
		PUT_LIT(p, ",\"byte_end\":");
		p = e->byte_end == f->byte_end ? put_num(p, &be) : put_uint(p, orig_offset(d, e->byte_end));
		PUT_LIT(p, ",\"replacement\":");
		p = put_form(p, forms + rep.off, rep.len);
		PUT_LIT(p, "}]}}");
	}
	j->n += (size_t)(p - p0);
	return 1;
}

void json_finding(FILE *o, const report_doc *d, const jh_finding *f)
{
	jout j;
	jo_init(&j, o, NULL, NULL, 0);
	jo_finding(&j, d, f);
	jo_flush(&j);
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
	case FMT_JSON: /* a file at a time, in json_render */
	case FMT_JSONL:
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

/* Count f; returns the index of its rule's entry. */
static size_t count(reporter *r, const jh_ruleset *rs, const jh_finding *f)
{
	r->n_findings++;
	r->by_sev[f->severity]++;
	/* ids are unique in counts: one with f's very pointer (a rule's id
	 * points into its rule set) is the one strcmp would find */
	size_t i = 0;
	while (i < r->n_counts && r->counts[i].id != f->rule_id)
		i++;
	if (i == r->n_counts)
		for (i = 0; i < r->n_counts && strcmp(r->counts[i].id, f->rule_id); i++)
			;
	if (i < r->n_counts) {
		r->counts[i].count++;
		r->counts[i].fixable += f->has_fix && f->safety == JH_SAFE;
		r->counts[i].unsafe += f->has_fix && f->safety != JH_SAFE;
		return i;
	}
	if (r->n_counts == r->cap_counts) {
		r->cap_counts = r->cap_counts ? r->cap_counts * 2 : 32;
		r->counts = xrealloc(r->counts, r->cap_counts * sizeof *r->counts);
	}
	r->counts[r->n_counts++] = (rule_count){f->rule_id, rs, f->severity, 1,
	                                        (size_t)(f->has_fix && f->safety == JH_SAFE),
	                                        (size_t)(f->has_fix && f->safety != JH_SAFE)};
	return r->n_counts - 1;
}

void report_count(reporter *r, const report_doc *doc, const jh_findings *fs)
{
	r->n_files++;
	size_t last = 0; /* a file's findings come in runs of one rule */
	for (size_t i = 0; i < fs->count; i++) {
		const jh_finding *f = &fs->items[i];
		if (last < r->n_counts && r->counts[last].id == f->rule_id) {
			rule_count *c = &r->counts[last];
			r->n_findings++;
			r->by_sev[f->severity]++;
			c->count++;
			c->fixable += f->has_fix && f->safety == JH_SAFE;
			c->unsafe += f->has_fix && f->safety != JH_SAFE;
			continue;
		}
		last = count(r, doc->rs, f);
	}
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

/* A file's findings as JSON (an array's elements) or JSON lines, through
 * one buffer and one memo of the strings' JSON forms. */
static void json_render(reporter *r, const report_doc *d, const jh_findings *fs)
{
	jmemo *m = xmalloc(sizeof *m);
	memset(m->seen, 0, sizeof m->seen);
	m->forms = NULL;
	m->n = m->cap = 0;
	m->head_off = m->head_len = 0;
	m->fresh = 0;
	m->line_n = 0;
	/* what every finding of the file begins with, made once (a name too
	 * long for that is escaped each time) */
	size_t name_len = strlen(d->name);
	memo_room(m, 18 * JFORM_MAX + 32);
	if (name_len > JFORM_MAX) {
		m->n = 0;
	} else if (*d->name) { /* jsonl filter records have no file */
		memcpy(m->forms, "{\"file\":", 8);
		m->n = 8;
		m->n += memo_form(m, d->name, name_len);
		memcpy(m->forms + m->n, ",\"rule\":", 8);
		m->n += 8;
	} else {
		memcpy(m->forms, "{\"rule\":", 8);
		m->n = 8;
	}
	m->head_off = 0;
	m->head_len = (uint32_t)m->n;
	jout *j = xmalloc(sizeof *j);
	char *buf = xmalloc(65536);
	jo_init(j, r->out, m, buf, 65536);
	for (size_t i = 0; i < fs->count; i++) {
		/* JSON: commas between elements, none before the first; JSON
		 * lines: a line break after each */
		static const char seps[3][4] = {"", "\n", ",\n"};
		int k = r->format == FMT_JSONL ? 0 : r->first_chunk ? 1 : 2;
		const char *sep = seps[k];
		size_t sep_len = (size_t)k;
		if (r->format == FMT_JSON)
			r->first_chunk = 0;
		if (jo_finding_fast(j, d, &fs->items[i], sep, sep_len)) {
			if (r->format == FMT_JSONL)
				jo_putc(j, '\n');
			continue;
		}
		jo_put(j, sep, sep_len);
		jo_finding(j, d, &fs->items[i]);
		if (r->format == FMT_JSONL)
			jo_putc(j, '\n');
	}
	jo_flush(j);
	free(buf);
	free(j);
	free(m->forms);
	free(m);
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
	else if (r->format == FMT_JSON || r->format == FMT_JSONL)
		json_render(r, &d, fs);
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
