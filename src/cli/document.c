/* document.c — one input of the command line: its bytes read, checked or
 * fixed by the library's document calls (jh_document_check/_fix: decoding,
 * Markdown, inline switches, the fix loop are all there), the fixed bytes
 * written, and what is to be printed kept until the input's turn (see
 * pool.c, report.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* ---- diagnostics ---- */

static void put_diag(FILE *err, const jh_diag *d, int column)
{
	fprintf(err, "jinghua: ");
	if (d->file) {
		put_name(err, d->file);
		if (d->line)
			fprintf(err, ":%u", d->line);
		if (column && d->column)
			fprintf(err, ":%u", d->column);
		fputs(": ", err);
	}
	if (d->severity != JH_INFO)
		fprintf(err, "%s: ", d->severity == JH_ERROR ? "error" : "warning");
	if (d->rule_id)
		fprintf(err, "[%s] ", d->rule_id);
	fprintf(err, "%s\n", d->message);
}

void doc_diag(const jh_diag *d, void *payload)
{
	put_diag(payload, d, 0);
}

void print_diag(const jh_diag *d, void *payload)
{
	int *errors = payload;
	if (errors && d->severity == JH_ERROR)
		(*errors)++;
	put_diag(stderr, d, 1);
}

static int over_threshold(const jh_findings *fs, int fail_on)
{
	for (size_t i = 0; i < fs->count; i++)
		if ((int)fs->items[i].severity >= fail_on)
			return 1;
	return 0;
}

/* ---- what a result owns until its turn to be printed ---- */

/* The result takes over buffer *p (NULL is fine). */
static void own(doc_result *res, char **p)
{
	if (!*p)
		return;
	for (size_t i = 0; i < sizeof res->own / sizeof *res->own; i++)
		if (!res->own[i]) {
			res->own[i] = *p;
			*p = NULL;
			return;
		}
	abort(); /* more buffers than a result holds: a bug here */
}

static void free_held(doc_result *r)
{
	jh_document_free(r->jdoc); /* before the bytes it points into */
	r->jdoc = NULL;
	jh_file_free(r->file);
	r->file = NULL;
	for (size_t i = 0; i < sizeof r->own / sizeof *r->own; i++) {
		free(r->own[i]);
		r->own[i] = NULL;
	}
}

/* Texts nothing will print are freed now, not when the result's turn
 * comes: with -j N, results wait for the files before them. */
static void drop_unneeded(doc_result *res, const run_opts *ro)
{
	if (res->text || res->diff_a || report_prints(ro->rep, &res->findings))
		return;
	free_held(res);
	res->doc.text = NULL;
	res->doc.len = 0;
	res->doc.enc = NULL;
}

void doc_result_free(doc_result *r)
{
	free_held(r);
	free(r->err);
	free(r->report);
	jh_findings_clear(&r->findings);
	memset(r, 0, sizeof *r);
}

/* The result reports the document's findings (moved into the result: the
 * document keeps none), in its text. */
static void take_findings(doc_result *res, jh_document *jd, int fail_on)
{
	jh_findings *fs = (jh_findings *)jh_document_findings(jd);
	res->findings = *fs;
	*fs = (jh_findings)JH_FINDINGS_INIT;
	res->doc.text = jh_document_text(jd, &res->doc.len);
	res->doc.enc = strcmp(jh_document_encoding(jd), "UTF-8") ? jd : NULL;
	res->over = over_threshold(&res->findings, fail_on);
}

static char *take_stream(FILE *f, char **buf, size_t *len)
{
	fclose(f);
	if (!*len) {
		free(*buf);
		*buf = NULL;
	}
	return *buf;
}

/* ---- one input: fix, fix --diff, fix --stdout ---- */

/* The bytes an input came as (read from a file or handed over). */
typedef struct {
	const char *data;
	size_t len;
	const jh_file *file; /* where they were read from, or NULL */
} input;

/* Did fixing change the file?  out is what would be written. */
static int file_changed(const input *in, const char *out, size_t out_len)
{
	return out_len != in->len || memcmp(out, in->data, in->len) != 0;
}

static void say_fixed(const char *name, const run_opts *ro, const jh_fix_report *rep,
                      int convert, const char *enc, FILE *err)
{
	if (rep->edits_applied)
		file_msg(err, name, "%zu fix%s %s%s\n", rep->edits_applied,
		         rep->edits_applied == 1 ? "" : "es", ro->mode == MODE_DIFF ? "proposed" : "applied",
		         convert ? ", converted to UTF-8" : "");
	else if (convert)
		file_msg(err, name, "%s converted to UTF-8\n", enc);
}

/* The document is fixed; write, print or diff what it gives. */
static void use_fixed(const run_opts *ro, const char *name, const input *in, jh_document *jd,
                      doc_result *res, FILE *err)
{
	jh_fix_report rep = JH_FIX_REPORT_INIT;
	size_t out_len;
	const char *out = jh_document_fixed(jd, &out_len, &rep);
	const char *problem = jh_document_problem(jd);
	if (problem) { /* nothing is written: the file stays as it is */
		file_msg(err, name, "%s\n", problem);
		res->io_error = 1;
		out = in->data;
		out_len = in->len;
	}
	const char *enc = jh_document_encoding(jd);
	int convert = ro->to_utf8 && strcmp(enc, "UTF-8") && !problem;
	int changed = file_changed(in, out, out_len);
	int is_stdin = !in->file;
	if (ro->mode == MODE_STDOUT || (ro->mode == MODE_FIX && is_stdin)) {
		res->text = out;
		res->text_len = out_len;
	} else if (ro->mode == MODE_DIFF) {
		if (changed) {
			res->diff_a = jh_document_original_text(jd, &res->diff_a_len);
			res->text = jh_document_text(jd, &res->text_len);
		}
	} else if (changed) {
		const char *why;
		if (jh_file_replace(in->file, out, out_len, &why) != JH_OK) {
			/* EINVAL: a FIFO or device, which --stdout writes out */
			file_msg(err, name, "%s%s\n", why ? why : strerror(errno),
			         errno == EINVAL ? " (use --stdout)" : "");
			res->io_error = 1;
			changed = 0; /* not written: no "fixes applied" after "not fixed" */
		}
	}
	if (changed && !ro->quiet && ro->mode != MODE_STDOUT && !is_stdin)
		say_fixed(name, ro, &rep, convert, enc, err);
}

/* ---- one input, from its bytes ---- */

/* --diff-base: only lines changed since the base are reported (and fixed).
 * Git is asked only about files that have findings at all.  Returns 0 with
 * *lines NULL when every line counts, or -1 (reported) when git cannot say. */
static int diff_base_lines(const jh_document_options *o, const run_opts *ro, const char *path,
                           const char *data, size_t len, size_t **lines, size_t *n_pairs,
                           FILE *err)
{
	jh_document *probe;
	*lines = NULL;
	*n_pairs = 0;
	if (jh_document_check(data, len, o, &probe) != JH_OK)
		return 0; /* the real run reports it */
	int rc = 0;
	if (jh_document_findings(probe)->count) {
		int all = 0;
		if (git_changed_lines(ro->diff_base, path ? path : o->name, ro->staged, lines, n_pairs,
		                      &all)) {
			file_msg(err, o->name, "cannot get the changes since %s\n",
			         ro->diff_base);
			rc = -1;
		} else if (all) {
			free(*lines);
			*lines = NULL;
		} else if (!*lines) { /* no changed line: none may be reported */
			*lines = xmalloc(2 * sizeof **lines);
			*n_pairs = 0;
		}
	}
	jh_document_free(probe);
	return rc;
}

void process_input(const file_settings *fs, const run_opts *ro, const char *name, const char *path,
                   char *data, size_t len, doc_result *res)
{
	memset(res, 0, sizeof *res);
	res->doc.name = name;
	FILE *err = open_memstream(&res->err, &res->err_len);
	input in = {data, len, NULL};
	size_t *lines = NULL;
	own(res, &data);
	if (!in.data) {
		const char *why;
		int rc = jh_file_read(path, 0, &res->file, &why);
		if (rc == JH_ERR_NOMEM)
			die_nomem();
		if (rc) {
			file_msg(err, name, "%s\n", why ? why : strerror(errno));
			res->io_error = 1;
			goto done;
		}
		in.data = jh_file_data(res->file, &in.len);
		in.file = res->file;
	}
	res->bytes = in.len;
	if (in.file && jh_file_changed(in.file) && ro->mode != MODE_FIX) /* fix refuses it when it writes */
		file_msg(err, name, "warning: changed while being read\n");
	if (looks_binary(in.data, in.len)) {
		/* A filter never swallows its input: what it will not fix goes
		 * through as it came. */
		if (ro->mode == MODE_STDOUT || (ro->mode == MODE_FIX && !in.file)) {
			file_msg(err, name, "binary file, passed through unchanged\n");
			res->text = in.data;
			res->text_len = in.len;
		} else {
			file_msg(err, name, "binary file, skipped\n");
			res->skipped = 1;
		}
		goto done;
	}
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = fs;
	o.name = name;
	o.type = fs->type == TYPE_AUTO && path && is_markdown_name(path) ? TYPE_MARKDOWN : TYPE_AUTO;
	o.unsafe = ro->unsafe;
	o.to_utf8 = ro->to_utf8;
	o.diag_fn = doc_diag;
	o.payload = err;
	res->doc.rs = fs->ruleset;
	if (ro->diff_base) {
		if (diff_base_lines(&o, ro, path, in.data, in.len, &lines, &o.n_line_pairs, err)) {
			res->io_error = 1;
			goto done;
		}
		o.lines = lines;
	}
	int rc = ro->mode == MODE_CHECK ? jh_document_check(in.data, in.len, &o, &res->jdoc)
	                                : jh_document_fix(in.data, in.len, &o, &res->jdoc);
	if (rc == JH_ERR_ENCODING) { /* reported through doc_diag */
		res->io_error = 1;
	} else if (rc) {
		file_msg(err, name, "%s\n", jh_strerror(rc));
		res->io_error = 1;
	} else {
		if (ro->mode != MODE_CHECK)
			use_fixed(ro, name, &in, res->jdoc, res, err);
		take_findings(res, res->jdoc, fs->fail_on);
	}
done:
	take_stream(err, &res->err, &res->err_len);
	free(lines);
	drop_unneeded(res, ro);
}
