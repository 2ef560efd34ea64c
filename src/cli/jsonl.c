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
 * raw NUL, an array) or that holds a number beyond a double (an id of
 * 1E400) gives {"error": "…", "line": N}; an object without a
 * "text" string gives {"id": …, "error": "…", "line": N}.  The id is parsed (jansson)
 * and written out again, so it is valid JSON whatever its type; a number is
 * written as the line wrote it (30 digits, -0.0e-7, 1E5), its token taken
 * from the line once jansson has found the line valid.  A line of more
 * than JINGHUA_JSONL_MAX_LINE bytes (JSONL_MAX_LINE, 256 MiB) gets
 * {"error": "line too long…", "line": N} and is never held whole.
 *
 * Memory: a record's findings are written straight to stdout when its turn
 * comes, not built as one string first (a 20 MB record dense with
 * findings made 118 MB of JSON, held whole).  What a record holds at its
 * peak is its line, jansson's copy of the text and the engine's tables of
 * it; README states the bound that tests/hostile-limits.sh checks.
 *
 * Findings never change the exit status here: a non-zero exit would make
 * Spark and Hadoop fail the whole task. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct {
	const file_settings *fs, *fs_md;
	int fix, unsafe;
	FILE *in, *out;
	size_t max_line;      /* longest line taken, in bytes before its \n */
	size_t line;          /* lines read so far */
} jctx;

typedef struct {
	char *line;           /* NULL: the line was too long, len bytes, dropped */
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

/* One line of x->in, its '\n' kept, into *line (malloc'd) and *len.  A
 * line of more than x->max_line bytes before its '\n' is read to its end
 * and dropped as it goes (*line NULL, *len its length without the '\n'):
 * it is never held whole.  0 at the end of the input.  getline() has no
 * bound, hence this loop; the pool calls it under its lock, one reader at
 * a time, hence getc_unlocked. */
static int read_record(jctx *x, char **line, size_t *len)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;
	int c, over = 0;
	while ((c = getc_unlocked(x->in)) != EOF) {
		if (c != '\n' && !over && n >= x->max_line) {
			over = 1;
			free(buf);
			buf = NULL;
		}
		if (!over) {
			if (n + 2 > cap) {
				cap = cap ? cap * 2 : 256;
				if (cap > x->max_line + 2)
					cap = x->max_line + 2;
				buf = xrealloc(buf, cap);
			}
			buf[n] = (char)c;
		}
		n++;
		if (c == '\n')
			break;
	}
	if (n == 0) {
		free(buf);
		return 0;
	}
	if (buf)
		buf[n] = '\0';
	*line = buf;
	*len = over && c == '\n' ? n - 1 : n;
	return 1;
}

static int j_next(void *ctx, size_t index, void **job)
{
	jctx *x = ctx;
	(void)index;
	for (;;) {
		char *line;
		size_t n;
		if (!read_record(x, &line, &n))
			return 0;
		x->line++;
		if (line && strspn(line, " \t\r\n") == n) { /* blank lines carry no record */
			free(line);
			continue;
		}
		jjob *j = xmalloc(sizeof *j);
		j->line = line;
		j->len = n;
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

/* ---- the id's own text ----
 * jansson keeps a number as a 64-bit integer or a double, so an id of 30
 * digits, 0.1 or 1E5 would come back in another form; and it has no
 * option to keep a number's text.  So for a numeric id the answer repeats
 * the id's token from the line as written.  The line is already known to
 * be one valid JSON object (jansson parsed it), so this walk only has to
 * find where its top-level members start and end, not check them. */

/* A numeric id longer than this is written as jansson reads it. */
#define RAW_ID_MAX 1024

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/* Past the string that starts at s[i] ('"'). */
static size_t skip_string(const char *s, size_t i, size_t n)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/* Past the value that starts at s[i]. */
static size_t skip_value(const char *s, size_t i, size_t n)
{
	if (s[i] == '"')
		return skip_string(s, i, n);
	if (s[i] == '{' || s[i] == '[') {
		size_t depth = 0;
		while (i < n) {
			if (s[i] == '"') {
				i = skip_string(s, i, n);
				continue;
			}
			if (s[i] == '{' || s[i] == '[')
				depth++;
			else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
				return i + 1;
			i++;
		}
		return i;
	}
	while (i < n && !strchr(",}] \t\r\n", s[i]))
		i++;
	return i;
}

/* Is the key token s[a..b) (quotes included) "id"?  Escaped keys
 * ("\u0069d") are decoded by jansson. */
static int key_is_id(const char *s, size_t a, size_t b)
{
	if (!memchr(s + a, '\\', b - a))
		return b - a == 4 && !memcmp(s + a, "\"id\"", 4);
	json_t *k = json_loadb(s + a, b - a, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	int is = json_is_string(k) && json_string_length(k) == 2 && !memcmp(json_string_value(k), "id", 2);
	json_decref(k);
	return is;
}

/* The text of the top-level "id" member's value in the object line[0..n)
 * (the last one, as jansson keeps the last of a repeated key): 1 with
 * [*a, *b), else 0. */
static int raw_id(const char *s, size_t n, size_t *a, size_t *b)
{
	int found = 0;
	size_t i = skip_ws(s, 0, n);
	if (i >= n || s[i] != '{')
		return 0;
	i = skip_ws(s, i + 1, n);
	while (i < n && s[i] == '"') {
		size_t k = i;
		i = skip_string(s, i, n);
		int is_id = key_is_id(s, k, i < n ? i : n);
		i = skip_ws(s, i, n);
		if (i >= n || s[i] != ':')
			return 0;
		i = skip_ws(s, i + 1, n);
		if (i >= n)
			return 0;
		size_t v = i;
		i = skip_value(s, i, n);
		if (is_id) {
			*a = v;
			*b = i;
			found = 1;
		}
		i = skip_ws(s, i, n);
		if (i < n && s[i] == ',')
			i = skip_ws(s, i + 1, n);
	}
	return found;
}

/* ,"error":…,"line":N} — after an id, or after '{' (first is set). */
static void put_error(FILE *o, const char *msg, size_t line_no, int first)
{
	fputs(first ? "\"error\":" : ",\"error\":", o);
	put_json_string(o, msg, strlen(msg)); /* jansson's message may quote raw bytes */
	fprintf(o, ",\"line\":%zu}\n", line_no);
}

/* {"id":… — a numeric id as the line wrote it (raw, n bytes), any other
 * written again by jansson (null if none). */
static void put_id(FILE *o, json_t *id, const char *raw, size_t n)
{
	fputs("{\"id\":", o);
	if (raw && json_is_number(id)) {
		fwrite(raw, 1, n, o);
		return;
	}
	char *s = id ? json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	fputs(s ? s : "null", o);
	free(s);
}

/* Why the line s[0..n) is not taken, into msg.  A number beyond a double
 * (1E400, a 400-digit integer) is valid JSON that jansson cannot read: said
 * so, not "invalid JSON", and named as the id when it is the id.  Such an
 * id is not echoed: a reader built on jansson, or on doubles, could not
 * read the answer either. */
static void parse_error_text(char *msg, size_t size, const char *s, size_t n, const json_error_t *e)
{
	size_t a, b;
	if (json_error_code(e) != json_error_numeric_overflow) {
		snprintf(msg, size, "invalid JSON: %s (column %d)", e->text, e->column);
	} else if (raw_id(s, n, &a, &b) && b == (size_t)e->position) {
		int shown = b - a > 40 ? 40 : (int)(b - a);
		snprintf(msg, size, "id out of range: %.*s%s is more than a double holds; send the id as "
		         "a string (column %d)", shown, s + a, shown < (int)(b - a) ? "…" : "", e->column);
	} else {
		snprintf(msg, size, "number out of range: %s (column %d); jansson reads numbers as doubles",
		         e->text, e->column);
	}
}

static void j_work(void *ctx, void *job, void **result)
{
	jctx *x = ctx;
	jjob *j = job;
	jresult *res = xmalloc(sizeof *res);
	memset(res, 0, sizeof *res);
	size_t hlen = 0;
	FILE *o = open_memstream(&res->head, &hlen);
	if (!j->line) {
		char msg[160];
		snprintf(msg, sizeof msg, "line too long: %zu bytes, more than %zu (JINGHUA_JSONL_MAX_LINE)",
		         j->len, x->max_line);
		fputc('{', o);
		put_error(o, msg, j->line_no, 1);
		fclose(o);
		free(j);
		*result = res;
		return;
	}
	json_error_t jerr;
	json_t *rec = parse_line(j->line, j->len, &jerr);
	json_t *id = json_is_object(rec) ? json_object_get(rec, "id") : NULL;
	json_t *text = json_is_object(rec) ? json_object_get(rec, "text") : NULL;
	char raw[RAW_ID_MAX];
	size_t ra, rb, rlen = 0;
	if (json_is_number(id) && raw_id(j->line, j->len, &ra, &rb) && rb - ra <= sizeof raw) {
		rlen = rb - ra;
		memcpy(raw, j->line + ra, rlen);
	}
	char msg[200 + JSON_ERROR_TEXT_LENGTH];
	if (!rec)
		parse_error_text(msg, sizeof msg, j->line, j->len, &jerr);
	free(j->line); /* jansson holds its own copy of the text */
	j->line = NULL;
	if (!rec) {
		fputc('{', o);
		put_error(o, msg, j->line_no, 1);
	} else if (!json_is_object(rec)) {
		fputc('{', o);
		put_error(o, "not a JSON object", j->line_no, 1);
	} else if (!json_is_string(text)) {
		put_id(o, id, rlen ? raw : NULL, rlen);
		put_error(o, "no \"text\" string", j->line_no, 0);
	} else {
		put_id(o, id, rlen ? raw : NULL, rlen);
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
				jh_fix_report rep = JH_FIX_REPORT_INIT;
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
	jctx x = {fs, &md, o->fix, o->unsafe, in, out, o->max_line ? o->max_line : JSONL_MAX_LINE, 0};
	pool_run(o->threads ? o->threads : 1, &x, j_next, j_work, j_emit, NULL);
	if (fflush(out) || ferror(out))
		return EXIT_IO;
	return EXIT_CLEAN;
}

int jsonl_filter(jh_config *cfg, int fix, int unsafe, unsigned threads)
{
	jsonl_options o = {fix, unsafe, threads, JSONL_MAX_LINE};
	/* the CLI's knob, for tests and for corpora of bigger records; the
	 * library reads no environment */
	const char *env = getenv("JINGHUA_JSONL_MAX_LINE");
	if (env && *env) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(env, &end, 10);
		if (errno || *end || v == 0 || *env == '-' || v > SIZE_MAX / 2) {
			fprintf(stderr, "jinghua: JINGHUA_JSONL_MAX_LINE must be a number of bytes, not '%s'\n",
			        env);
			return EXIT_USAGE;
		}
		o.max_line = (size_t)v;
	}
	return jsonl_stream(cfg, &o, stdin, stdout);
}
