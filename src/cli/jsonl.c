/* jsonl.c — --jsonl-filter: JSON lines in, JSON lines out, one for one, for
 * Spark's RDD.pipe, Hadoop Streaming and GNU parallel.
 *
 *   in:  {"id": ANY, "text": "…"}            (other members are ignored;
 *                                              "type": "markdown" is honoured)
 *   out: {"id": ANY, "findings": […]}                      (check)
 *        {"id": ANY, "text": "…", "fixes": N, "findings": […]}   (fix)
 *
 * Every input line that is not blank gets exactly one output line of valid
 * JSON.  A line that is not a JSON object (invalid JSON, invalid UTF-8, a
 * raw NUL, an array) gives {"error": "…", "line": N}; an object without a
 * "text" string gives {"id": …, "error": "…", "line": N}.  The id is parsed (jansson)
 * and written out again, so it is valid JSON whatever its type: numbers may
 * change form (0.1 is written 0.10000000000000001, 1E5 as 100000.0), an
 * integer beyond 64 bits is read as a real.
 *
 * Memory: a record's findings are written straight to stdout when its turn
 * comes, not built as one string first (a 20 MB record dense with
 * findings made 118 MB of JSON, held whole).  What a record holds at its
 * peak is its line, jansson's copy of the text and the engine's tables of
 * it; README states the bound that tests/hostile-limits.sh checks.
 *
 * Findings never change the exit status here: a non-zero exit would make
 * Spark and Hadoop fail the whole task. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct {
	const file_settings *fs, *fs_md;
	int fix, unsafe;
	FILE *in, *out;
	size_t line;          /* lines read so far */
} jctx;

typedef struct {
	char *line;
	size_t len;
	size_t line_no;
} jjob;

/* What one record gives: the head of its answer ({"id":…, up to and
 * without the findings), then the findings, written by j_emit. */
typedef struct {
	char *head;
	jh_document *jd;      /* the checked record, or NULL: head is the whole answer */
	report_doc doc;       /* the document's text, which its findings point into */
	json_t *record;       /* the parsed line, whose "text" the document points into */
} jresult;

static int j_next(void *ctx, size_t index, void **job)
{
	jctx *x = ctx;
	(void)index;
	for (;;) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n = getline(&line, &cap, x->in);
		if (n < 0) {
			free(line);
			return 0;
		}
		x->line++;
		size_t k = strspn(line, " \t\r\n");
		if (k == (size_t)n) { /* blank lines carry no record */
			free(line);
			continue;
		}
		jjob *j = xmalloc(sizeof *j);
		j->line = line;
		j->len = (size_t)n;
		j->line_no = x->line;
		*job = j;
		return 1;
	}
}

/* The line as a JSON value, or NULL with the reason in err.  JSON_ALLOW_NUL:
 * a text may hold \u0000 (the engine takes a length).  An integer too big
 * for 64 bits is read as a real rather than refused. */
static json_t *parse_line(const char *line, size_t len, json_error_t *err)
{
	json_t *v = json_loadb(line, len, JSON_ALLOW_NUL, err);
	if (!v && json_error_code(err) == json_error_numeric_overflow)
		v = json_loadb(line, len, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, err);
	return v;
}

/* ,"error":…,"line":N} — after an id, or after '{' (first is set). */
static void put_error(FILE *o, const char *msg, size_t line_no, int first)
{
	fputs(first ? "\"error\":" : ",\"error\":", o);
	put_json_string(o, msg, strlen(msg)); /* jansson's message may quote raw bytes */
	fprintf(o, ",\"line\":%zu}\n", line_no);
}

/* {"id":… — the record's id written again by jansson (null if none). */
static void put_id(FILE *o, json_t *id)
{
	char *s = id ? json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	fputs("{\"id\":", o);
	fputs(s ? s : "null", o);
	free(s);
}

static void j_work(void *ctx, void *job, void **result)
{
	jctx *x = ctx;
	jjob *j = job;
	jresult *res = xmalloc(sizeof *res);
	memset(res, 0, sizeof *res);
	size_t hlen = 0;
	FILE *o = open_memstream(&res->head, &hlen);
	json_error_t jerr;
	json_t *rec = parse_line(j->line, j->len, &jerr);
	free(j->line); /* jansson holds its own copy of the text */
	j->line = NULL;
	json_t *id = json_is_object(rec) ? json_object_get(rec, "id") : NULL;
	json_t *text = json_is_object(rec) ? json_object_get(rec, "text") : NULL;
	if (!rec) {
		fputc('{', o);
		char msg[200 + JSON_ERROR_TEXT_LENGTH];
		snprintf(msg, sizeof msg, "invalid JSON: %s (column %d)", jerr.text, jerr.column);
		put_error(o, msg, j->line_no, 1);
	} else if (!json_is_object(rec)) {
		fputc('{', o);
		put_error(o, "not a JSON object", j->line_no, 1);
	} else if (!json_is_string(text)) {
		put_id(o, id);
		put_error(o, "no \"text\" string", j->line_no, 0);
	} else {
		put_id(o, id);
		const char *type = json_string_value(json_object_get(rec, "type"));
		const file_settings *s = type && strcmp(type, "markdown") == 0 ? x->fs_md : x->fs;
		jh_document_options dopt = JH_DOCUMENT_OPTIONS_INIT;
		dopt.settings = s;
		dopt.name = "<jsonl>";
		dopt.encoding = "UTF-8"; /* the text is what the record holds, as it is */
		dopt.type = s->type == TYPE_MARKDOWN ? TYPE_MARKDOWN : TYPE_TEXT;
		dopt.unsafe = x->unsafe;
		const char *t = json_string_value(text);
		size_t tlen = json_string_length(text);
		jh_document *jd = NULL;
		int rc = x->fix ? jh_document_fix(t, tlen, &dopt, &jd) : jh_document_check(t, tlen, &dopt, &jd);
		const char *problem = rc ? jh_strerror(rc) : jh_document_problem(jd);
		if (problem) {
			put_error(o, problem, j->line_no, 0);
			jh_document_free(jd);
		} else {
			size_t dlen;
			const char *dtext = jh_document_text(jd, &dlen);
			if (x->fix) {
				jh_fix_report rep;
				size_t flen;
				const char *fixed = jh_document_fixed(jd, &flen, &rep);
				fputs(",\"text\":", o);
				put_json_string(o, fixed, flen);
				fprintf(o, ",\"fixes\":%zu", rep.edits_applied);
			}
			fputs(",\"findings\":[", o);
			/* the document points into the record's text: both stay until j_emit */
			res->jd = jd;
			res->record = json_incref(rec);
			res->doc = (report_doc){"", dtext, dlen, NULL, s->ruleset, NULL};
		}
	}
	fclose(o);
	json_decref(rec);
	free(j);
	*result = res;
}

static void j_emit(void *ctx, size_t index, void *result)
{
	jctx *x = ctx;
	(void)index;
	jresult *res = result;
	fputs(res->head, x->out);
	if (res->jd) {
		const jh_findings *fs = jh_document_findings(res->jd);
		for (size_t i = 0; i < fs->count; i++) {
			if (i)
				putc(',', x->out);
			json_finding(x->out, &res->doc, &fs->items[i]);
		}
		fputs("]}\n", x->out);
	}
	jh_document_free(res->jd);
	json_decref(res->record);
	free(res->head);
	free(res);
}

int jsonl_stream(jh_config *cfg, const jsonl_options *o, FILE *in, FILE *out)
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
	jctx x = {fs, &md, o->fix, o->unsafe, in, out, 0};
	pool_run(o->threads ? o->threads : 1, &x, j_next, j_work, j_emit, NULL);
	if (fflush(out) || ferror(out))
		return EXIT_IO;
	return EXIT_CLEAN;
}

int jsonl_filter(jh_config *cfg, int fix, int unsafe, unsigned threads)
{
	jsonl_options o = {fix, unsafe, threads};
	return jsonl_stream(cfg, &o, stdin, stdout);
}
