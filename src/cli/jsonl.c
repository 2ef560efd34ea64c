/* jsonl.c — --jsonl-filter: JSON lines in, JSON lines out, one for one, for
 * Spark's RDD.pipe, Hadoop Streaming and GNU parallel.
 *
 *   in:  {"id": ANY, "text": "…"}            (other members are ignored;
 *                                              "type": "markdown" is honoured)
 *   out: {"id": ANY, "findings": […]}                      (check)
 *        {"id": ANY, "text": "…", "fixes": N, "findings": […]}   (fix)
 *
 * A line that cannot be read gives {"id": …, "error": "…"} in its place.
 * Findings never change the exit status here: a non-zero exit would make
 * Spark and Hadoop fail the whole task. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct {
	const char *p, *end;
} cur;

static void ws(cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char h = p[i];
		*v <<= 4;
		if (h >= '0' && h <= '9')
			*v |= (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			*v |= (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			*v |= (unsigned)(h - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static void put_cp(FILE *o, unsigned v)
{
	if (v < 0x80)
		fputc((int)v, o);
	else if (v < 0x800) {
		fputc((int)(0xC0 | (v >> 6)), o);
		fputc((int)(0x80 | (v & 0x3F)), o);
	} else if (v < 0x10000) {
		fputc((int)(0xE0 | (v >> 12)), o);
		fputc((int)(0x80 | ((v >> 6) & 0x3F)), o);
		fputc((int)(0x80 | (v & 0x3F)), o);
	} else {
		fputc((int)(0xF0 | (v >> 18)), o);
		fputc((int)(0x80 | ((v >> 12) & 0x3F)), o);
		fputc((int)(0x80 | ((v >> 6) & 0x3F)), o);
		fputc((int)(0x80 | (v & 0x3F)), o);
	}
}

/* A JSON string at c->p; decoded into o if o is not NULL. */
static int string(cur *c, FILE *o)
{
	if (c->p >= c->end || *c->p != '"')
		return -1;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;
		if ((unsigned char)ch < 0x20)
			return -1;
		if (ch != '\\') {
			if (o)
				fputc(ch, o);
			continue;
		}
		if (c->p >= c->end)
			return -1;
		char e = *c->p++;
		const char *simple = strchr("\"\\/bfnrt", e);
		if (simple && e) {
			static const char rep[] = "\"\\/\b\f\n\r\t";
			if (o)
				fputc(rep[simple - "\"\\/bfnrt"], o);
			continue;
		}
		if (e != 'u' || c->end - c->p < 4)
			return -1;
		unsigned v;
		if (hex4(c->p, &v))
			return -1;
		c->p += 4;
		if (v >= 0xD800 && v < 0xDC00) {
			unsigned lo;
			if (c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' && !hex4(c->p + 2, &lo) &&
			    lo >= 0xDC00 && lo < 0xE000) {
				v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
				c->p += 6;
			} else {
				v = 0xFFFD;
			}
		} else if (v >= 0xDC00 && v < 0xE000) {
			v = 0xFFFD;
		}
		if (o)
			put_cp(o, v);
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	return 0;
}

static int value(cur *c, int depth)
{
	ws(c);
	if (c->p >= c->end || depth > 64)
		return -1;
	char ch = *c->p;
	if (ch == '"')
		return string(c, NULL);
	if (ch == '{' || ch == '[') {
		char close = ch == '{' ? '}' : ']';
		c->p++;
		ws(c);
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		for (;;) {
			if (ch == '{') {
				ws(c);
				if (string(c, NULL))
					return -1;
				ws(c);
				if (c->p >= c->end || *c->p++ != ':')
					return -1;
			}
			if (value(c, depth + 1))
				return -1;
			ws(c);
			if (c->p >= c->end)
				return -1;
			if (*c->p == ',') {
				c->p++;
				continue;
			}
			if (*c->p++ == close)
				return 0;
			return -1;
		}
	}
	const char *s = c->p;
	while (c->p < c->end && strchr("+-0123456789.eEtruefalsn", *c->p))
		c->p++;
	size_t n = (size_t)(c->p - s);
	if (!n)
		return -1;
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)) ||
	    (n == 4 && !memcmp(s, "null", 4)))
		return 0;
	if (*s == '-' || (*s >= '0' && *s <= '9'))
		return 0;
	return -1;
}

typedef struct {
	const char *id;
	size_t id_len;
	char *text;
	size_t text_len;
	int has_text, markdown;
	const char *error;
} record;

static void parse_record(const char *line, size_t len, record *r)
{
	memset(r, 0, sizeof *r);
	cur c = {line, line + len};
	ws(&c);
	if (c.p >= c.end || *c.p != '{') {
		r->error = "not a JSON object";
		return;
	}
	c.p++;
	ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
	} else {
		for (;;) {
			ws(&c);
			const char *k = c.p;
			if (string(&c, NULL)) {
				r->error = "invalid JSON";
				return;
			}
			size_t kl = (size_t)(c.p - k);
			ws(&c);
			if (c.p >= c.end || *c.p++ != ':') {
				r->error = "invalid JSON";
				return;
			}
			ws(&c);
			const char *v = c.p;
			if (kl == 6 && !memcmp(k, "\"text\"", 6) && c.p < c.end && *c.p == '"') {
				free(r->text);
				r->text = NULL;
				FILE *o = open_memstream(&r->text, &r->text_len);
				int bad = string(&c, o);
				fclose(o);
				if (bad) {
					r->error = "invalid JSON";
					return;
				}
				r->has_text = 1;
			} else if (value(&c, 0)) {
				r->error = "invalid JSON";
				return;
			} else if (kl == 4 && !memcmp(k, "\"id\"", 4)) {
				r->id = v;
				r->id_len = (size_t)(c.p - v);
			} else if (kl == 6 && !memcmp(k, "\"type\"", 6)) {
				r->markdown = (size_t)(c.p - v) == 10 && !memcmp(v, "\"markdown\"", 10);
			}
			ws(&c);
			if (c.p < c.end && *c.p == ',') {
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}') {
				c.p++;
				break;
			}
			r->error = "invalid JSON";
			return;
		}
	}
	ws(&c);
	if (c.p != c.end)
		r->error = "invalid JSON: more after the object";
	else if (!r->has_text)
		r->error = "no \"text\" string";
}

typedef struct {
	const file_settings *fs, *fs_md;
	int fix, unsafe;
	FILE *in;
	size_t errors;
} jctx;

typedef struct {
	char *line;
	size_t len;
} jjob;

static int j_next(void *ctx, size_t index, void **job)
{
	jctx *x = ctx;
	for (;;) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n = getline(&line, &cap, x->in);
		if (n < 0) {
			free(line);
			return 0;
		}
		size_t k = strspn(line, " \t\r\n");
		if (k == (size_t)n) { /* blank lines carry no record */
			free(line);
			continue;
		}
		jjob *j = xmalloc(sizeof *j);
		j->line = line;
		j->len = (size_t)n;
		*job = j;
		return 1;
	}
}

static void j_work(void *ctx, void *job, void **result)
{
	jctx *x = ctx;
	jjob *j = job;
	record r;
	parse_record(j->line, j->len, &r);
	char *out = NULL;
	size_t olen = 0;
	FILE *o = open_memstream(&out, &olen);
	fputs("{\"id\":", o);
	if (r.id)
		fwrite(r.id, 1, r.id_len, o);
	else
		fputs("null", o);
	if (r.error) {
		fputs(",\"error\":", o);
		json_string(o, r.error, strlen(r.error));
	} else {
		const file_settings *s = r.markdown ? x->fs_md : x->fs;
		jh_document_options dopt = JH_DOCUMENT_OPTIONS_INIT;
		dopt.settings = s;
		dopt.name = "<jsonl>";
		dopt.encoding = "UTF-8"; /* the text is what the record holds, as it is */
		dopt.type = s->type == TYPE_MARKDOWN ? TYPE_MARKDOWN : TYPE_TEXT;
		dopt.unsafe = x->unsafe;
		jh_document *jd = NULL;
		int rc = x->fix ? jh_document_fix(r.text, r.text_len, &dopt, &jd)
		                : jh_document_check(r.text, r.text_len, &dopt, &jd);
		const char *problem = rc ? jh_strerror(rc) : jh_document_problem(jd);
		if (problem) {
			fputs(",\"error\":", o);
			json_string(o, problem, strlen(problem));
		} else {
			size_t tlen;
			const char *text = jh_document_text(jd, &tlen);
			if (x->fix) {
				jh_fix_report rep;
				size_t flen;
				const char *fixed = jh_document_fixed(jd, &flen, &rep);
				fputs(",\"text\":", o);
				json_string(o, fixed, flen);
				fprintf(o, ",\"fixes\":%zu", rep.edits_applied);
			}
			fputs(",\"findings\":[", o);
			report_doc d = {"", text, tlen, NULL, s->ruleset};
			const jh_findings *fs = jh_document_findings(jd);
			for (size_t i = 0; i < fs->count; i++) {
				if (i)
					fputc(',', o);
				json_finding(o, &d, &fs->items[i]);
			}
			fputc(']', o);
		}
		jh_document_free(jd);
	}
	fputs("}\n", o);
	fclose(o);
	free(r.text);
	free(j->line);
	free(j);
	*result = out;
}

static void j_emit(void *ctx, size_t index, void *result)
{
	char *out = result;
	fputs(out, stdout);
	free(out);
}

int jsonl_filter(jh_config *cfg, int fix, int unsafe, unsigned threads)
{
	const file_settings *fs, *fs_md;
	int st = jh_config_settings(cfg, "./-", &fs);
	if (st)
		return st == JH_ERR_CONFIG ? EXIT_USAGE : EXIT_IO;
	if ((st = jh_config_settings(cfg, "./-.md", &fs_md)))
		return st == JH_ERR_CONFIG ? EXIT_USAGE : EXIT_IO;
	/* a copy of the settings with Markdown forced, for "type": "markdown" */
	file_settings md = *fs_md;
	md.type = TYPE_MARKDOWN;
	jctx x = {fs, &md, fix, unsafe, stdin, 0};
	pool_run(threads, &x, j_next, j_work, j_emit, NULL);
	if (fflush(stdout) || ferror(stdout))
		return EXIT_IO;
	return EXIT_CLEAN;
}
