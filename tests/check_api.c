/* check_api.c — a program that uses libjinghua as any other program would:
 * built against the installed header alone (tests/include/, a copy of what
 * `make install` puts in includedir) and linked with the shared
 * libjinghua.la, which exports only what the header declares.
 *
 *   check_api check FILE   the findings as `jinghua check --format json FILE`
 *   check_api fix FILE     the fixed bytes as `jinghua fix --stdout FILE`
 *   check_api threads FILE N  N threads check and fix FILE at once with one
 *                          configuration, each result compared to the first
 *
 * tests/api.sh compares the first two with the command line byte for byte
 * (a GBK Markdown file with an inline switch and a .jinghua.ini); the third
 * runs under ThreadSanitizer in a --enable-tsan build. */
#include <jinghua.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void diag(const jh_diag *d, void *payload)
{
	(void)payload;
	fprintf(stderr, "check_api: %s:%u: %s\n", d->file ? d->file : "-", d->line, d->message);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, k;
	do {
		if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 65536)))
			abort();
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k);
	fclose(f);
	*len = n;
	return buf;
}

/* JSON as the command line writes it (escapes, U+FFFD for invalid UTF-8). */
static void json_string(FILE *o, const char *s)
{
	fputc('"', o);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", o); break;
		case '\\': fputs("\\\\", o); break;
		case '\n': fputs("\\n", o); break;
		case '\r': fputs("\\r", o); break;
		case '\t': fputs("\\t", o); break;
		default:
			if (*p < 0x20 || *p == 0x7F)
				fprintf(o, "\\u%04x", *p);
			else
				fputc(*p, o);
		}
	}
	fputc('"', o);
}

static void print_edits(FILE *o, const jh_document *d, const jh_edit *edits, size_t n)
{
	fputc('[', o);
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "%s{\"byte_start\":%zu,\"byte_end\":%zu,\"replacement\":", i ? "," : "",
		        jh_document_file_offset(d, edits[i].byte_start),
		        jh_document_file_offset(d, edits[i].byte_end));
		json_string(o, edits[i].replacement);
		fputc('}', o);
	}
	fputc(']', o);
}

/* null, or the shortest decimal that reads back as the score */
static void print_score(FILE *o, double score)
{
	if (score < 0) {
		fputs("null", o);
		return;
	}
	char buf[32];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, score);
		if (strtod(buf, NULL) == score)
			break;
	}
	fprintf(o, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
}

static void print_finding(FILE *o, const char *name, const jh_document *d, const jh_finding *f)
{
	fputs("{\"file\":", o);
	json_string(o, name);
	fputs(",\"rule\":", o);
	json_string(o, f->rule_id);
	fprintf(o, ",\"severity\":\"%s\",\"line\":%zu,\"column\":%zu,\"end_line\":%zu,"
	           "\"end_column\":%zu,\"display_column\":%zu,\"byte_start\":%zu,\"byte_end\":%zu",
	        jh_severity_name(f->severity), f->line, f->column, f->end_line, f->end_column,
	        f->display_column, jh_document_file_offset(d, f->byte_start),
	        jh_document_file_offset(d, f->byte_end));
	fputs(",\"message\":", o);
	json_string(o, f->message);
	if (!f->has_fix) {
		fputs(",\"fix\":null", o);
	} else {
		fprintf(o, ",\"fix\":{\"safety\":\"%s\",\"edits\":", f->safety == JH_SAFE ? "safe" : "unsafe");
		print_edits(o, d, f->edits, f->n_edits);
		fputc('}', o);
	}
	if (f->n_alternatives) { /* the ranked answers, each with its score */
		fputs(",\"alternatives\":[", o);
		for (size_t i = 0; i < f->n_alternatives; i++) {
			fprintf(o, "%s{\"safety\":\"%s\",\"edits\":", i ? "," : "",
			        f->safety == JH_SAFE ? "safe" : "unsafe");
			print_edits(o, d, f->alternatives[i].edits, f->alternatives[i].n_edits);
			fputs(",\"score\":", o);
			print_score(o, f->alternatives[i].score);
			fputc('}', o);
		}
		fputc(']', o);
	}
	fputc('}', o);
}

typedef struct {
	const jh_settings *settings; /* NULL: the thread opens a configuration of its own */
	const char *name, *bytes;
	size_t len;
	int fix;
	char *out; /* the result, as printed */
	size_t out_len;
} job;

/* One document checked or fixed; what `jinghua` would print into j->out. */
static int run(job *j)
{
	jh_document_options o = JH_DOCUMENT_OPTIONS_INIT;
	o.settings = j->settings;
	o.name = j->name;
	o.diag_fn = diag;
	jh_document *d;
	int rc = j->fix ? jh_document_fix(j->bytes, j->len, &o, &d)
	                : jh_document_check(j->bytes, j->len, &o, &d);
	if (rc) {
		fprintf(stderr, "check_api: %s: %s\n", j->name, jh_strerror(rc));
		return 1;
	}
	FILE *out = open_memstream(&j->out, &j->out_len);
	if (j->fix) {
		size_t n;
		const char *fixed = jh_document_fixed(d, &n, NULL);
		if (fixed)
			fwrite(fixed, 1, n, out);
		else
			fprintf(stderr, "check_api: %s: %s\n", j->name, jh_document_problem(d));
	} else {
		const jh_findings *fs = jh_document_findings(d);
		fputc('[', out);
		for (size_t i = 0; i < fs->count; i++) {
			fputs(i ? ",\n" : "\n", out);
			print_finding(out, j->name, d, &fs->items[i]);
		}
		fputs(fs->count ? "\n]\n" : "]\n", out);
	}
	fclose(out);
	jh_document_free(d);
	return 0;
}

/* A thread with a configuration of its own loads and compiles the rules
 * while the others load theirs or check. */
static void *thread_main(void *arg)
{
	job *j = arg;
	jh_config *own = NULL;
	if (!j->settings) {
		jh_config_options co = JH_CONFIG_OPTIONS_INIT;
		co.rules_dir = getenv("JINGHUA_RULES");
		co.diag_fn = diag;
		if (jh_config_open(&co, &own) || jh_config_settings(own, j->name, &j->settings))
			return (void *)1L;
	}
	int rc = run(j);
	jh_config_free(own);
	return (void *)(long)rc;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "check") && strcmp(argv[1], "fix") && strcmp(argv[1], "threads"))) {
		fputs("usage: check_api check|fix FILE | threads FILE N\n", stderr);
		return 2;
	}
	int major;
	const char *version = jh_version(&major, NULL, NULL);
	if (strcmp(version, JH_VERSION) || major != JH_VERSION_MAJOR) {
		fprintf(stderr, "check_api: library %s, headers %s\n", version, JH_VERSION);
		return 1;
	}
	jh_config_options co = JH_CONFIG_OPTIONS_INIT;
	co.rules_dir = getenv("JINGHUA_RULES"); /* the source tree's, not yet installed */
	co.diag_fn = diag;
	jh_config *cfg;
	const jh_settings *settings;
	if (jh_config_open(&co, &cfg) || jh_config_settings(cfg, argv[2], &settings))
		return 2;
	size_t len;
	char *bytes = slurp(argv[2], &len);
	if (!bytes) {
		perror(argv[2]);
		return 3;
	}
	int status = 0;
	if (strcmp(argv[1], "threads")) {
		job j = {settings, argv[2], bytes, len, !strcmp(argv[1], "fix"), NULL, 0};
		status = run(&j);
		if (!status)
			fwrite(j.out, 1, j.out_len, stdout);
		free(j.out);
	} else {
		/* several threads: the same configuration, settings and rule set */
		int n = argc > 3 ? atoi(argv[3]) : 4;
		if (n < 1 || n > 64)
			n = 4;
		job jobs[64];
		pthread_t t[64];
		for (int i = 0; i < n; i++) {
			/* threads 0 and 1 share the main configuration; the rest
			 * have their own, half of them checking, half fixing */
			jobs[i] = (job){i < 2 ? settings : NULL, argv[2], bytes, len, i % 2, NULL, 0};
			if (pthread_create(&t[i], NULL, thread_main, &jobs[i]))
				abort();
		}
		for (int i = 0; i < n; i++) {
			void *rc;
			pthread_join(t[i], &rc);
			status |= rc != NULL;
		}
		for (int i = 2; i < n; i++)
			if (jobs[i].out_len != jobs[i % 2].out_len ||
			    memcmp(jobs[i].out, jobs[i % 2].out, jobs[i].out_len)) {
				fprintf(stderr, "check_api: thread %d's result differs from thread %d's\n", i, i % 2);
				status = 1;
			}
		for (int i = 0; i < n; i++)
			free(jobs[i].out);
		if (!status)
			printf("%d threads: the same results\n", n);
	}
	free(bytes);
	jh_config_free(cfg);
	return status;
}
