/* main.c — the jinghua command: argument parsing, and the check, fix, rules,
 * test-rules and hook commands.  The work per file is in document.c. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

/* src/lsp/server.c; the rules and cache folders are the command line's */
int lsp_main(int argc, char **argv, const char *rules_dir, const char *cache_dir);

typedef enum { CMD_CHECK, CMD_FIX, CMD_RULES, CMD_TEST_RULES } command;

typedef struct {
	command cmd;
	out_format format;
	int color;              /* -1 auto */
	int unsafe, to_stdout, diff, to_utf8, statistics, staged, jsonl, ids;
	int progress;           /* -1 auto */
	const char *explain, *diff_base, *stdin_filename;
	unsigned jobs;
	int quiet;
	jh_config_options cfg;
} options;

static void usage(FILE *o)
{
	fputs("usage: jinghua [check] [OPTIONS] [PATH...|-]\n"
	      "       jinghua fix [--unsafe] [--diff|--stdout] [--to-utf8] [OPTIONS] [PATH...|-]\n"
	      "       jinghua check|fix --jsonl-filter      JSON lines {\"id\",\"text\"} on stdin\n"
	      "       jinghua rules [--explain ID]\n"
	      "       jinghua test-rules [RULEFILE...]\n"
	      "       jinghua lsp          (a language server on stdio, for editors)\n"
	      "       jinghua hook install [-- OPTIONS] | hook uninstall\n"
	      "\n"
	      "Finds and repairs damage in Chinese prose: censorship masks and separators,\n"
	      "mixed scripts, punctuation, layout and typos.  Folders are searched\n"
	      "recursively; '-' (or no PATH with a pipe on stdin) reads standard input.\n"
	      "\n"
	      "output:\n"
	      "  -f, --format FMT     human (default), json, jsonl, sarif, github, checkstyle, rdjsonl\n"
	      "      --statistics     counts per rule instead of each finding (human or json)\n"
	      "      --diff           print the fixes as a unified diff, change nothing\n"
	      "      --color WHEN     auto (default), always, never\n"
	      "      --fail-on SEV    exit 1 for findings at or above error|warning|info|never\n"
	      "                       (default warning)\n"
	      "  -q, --quiet          no per-file summary of fixes, no progress line\n"
	      "      --progress       progress line on stderr even when it is not a terminal\n"
	      "rules:\n"
	      "  -s, --select IDS     run only these rules (ids or families, comma separated)\n"
	      "      --extend-select IDS  also run these rules\n"
	      "  -i, --ignore IDS     do not run these rules\n"
	      "      --profile NAME   rules/profiles/NAME.profile (default: novel, if present)\n"
	      "      --variant V      auto (default), hans or hant: the script the text is meant in\n"
	      "  -r, --rules DIR      also load rules from DIR (repeatable; later wins)\n"
	      "      --no-default-rules  load only the --rules folders\n"
	      "  -c, --config FILE    use this config instead of .jinghua.ini found upward\n"
	      "      --no-config      ignore .jinghua.ini files\n"
	      "input:\n"
	      "      --type T         auto (default: .md is Markdown), text or markdown\n"
	      "      --encoding ENC   auto (default: BOM, UTF-8, else detected), or e.g. gb18030\n"
	      "      --stdin-filename NAME  name for stdin (config, type, messages)\n"
	      "      --staged         check the staged content of staged files (git index)\n"
	      "      --diff-base REV  report only findings on lines changed since REV\n"
	      "  -j, --jobs N         files checked at once (default: number of cores)\n"
	      "fix:\n"
	      "      --unsafe         apply unsafe fixes too\n"
	      "      --stdout         write the fixed text to stdout, leave files alone\n"
	      "      --to-utf8        write fixed files as UTF-8 whatever their encoding\n"
	      "rules command:\n"
	      "      --explain ID     show one rule with its examples\n"
	      "      --ids            rule ids only, one a line\n"
	      "  -h, --help           this help\n"
	      "  -V, --version        version\n"
	      "\n"
	      "Exit: 0 clean, 1 findings at or above --fail-on, 2 usage, rule or config error,\n"
	      "3 I/O error.  See jinghua(1).\n",
	      o);
}

/* ---- running over inputs ---- */

typedef struct {
	char *name;             /* display */
	char *path;             /* on disk (read, write), or NULL */
	char *data;             /* content already read (stdin from git), or NULL */
	size_t len;
	const file_settings *fs;
} job;

typedef struct {
	const options *o;
	run_opts ro;
	reporter *rep;
	job *jobs;
	size_t n_jobs;
	unsigned threads;       /* workers of the pool */
	int status, io_error;
	/* progress */
	int progress, shown;
	double delay;
	struct timespec start, last;
	size_t done, bytes;
} run_ctx;

static double since(const struct timespec *a)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_clear(run_ctx *x)
{
	if (x->shown) {
		fputs("\r\033[K", stderr);
		x->shown = 0;
	}
}

static void tick(void *ctx)
{
	run_ctx *x = ctx;
	/* shown only for runs long enough to need it (JINGHUA_PROGRESS_DELAY
	 * seconds, default 1) */
	if (!x->progress || since(&x->start) < x->delay || since(&x->last) < 0.25)
		return;
	clock_gettime(CLOCK_MONOTONIC, &x->last);
	double secs = since(&x->start), mb = (double)x->bytes / 1e6;
	fprintf(stderr, "\r\033[Kjinghua: %zu/%zu files, %.1f MB, %.1f MB/s, %zu findings", x->done,
	        x->n_jobs, mb, secs > 0 ? mb / secs : 0.0, x->rep->n_findings);
	fflush(stderr);
	x->shown = 1;
}

static int r_next(void *ctx, size_t index, void **j)
{
	run_ctx *x = ctx;
	if (index >= x->n_jobs)
		return 0;
	*j = &x->jobs[index];
	return 1;
}

/* Reports of documents up to this size are formatted by the workers. */
#define PRERENDER_MAX ((size_t)1 << 20)

static void r_work(void *ctx, void *jp, void **result)
{
	run_ctx *x = ctx;
	job *j = jp;
	doc_result *r = xmalloc(sizeof *r);
	char *data = j->data;
	j->data = NULL;
	process_input(j->fs, &x->ro, j->name, j->path, data, j->len, r);
	/* A chapter's report is formatted here, in parallel; a big file's is
	 * written at its turn straight to the output, never held whole. */
	if (x->threads > 1 && r->doc.text && r->doc.len <= PRERENDER_MAX &&
	    report_prerender(x->rep, &r->doc, &r->findings, &r->report, &r->report_len) != 0)
		r->report = NULL; /* out of memory: written at its turn instead */
	*result = r;
}

/* A result's turn: its messages, its text or diff for stdout, then its
 * report, written from its findings straight to the output. */
static void r_emit(void *ctx, size_t index, void *result)
{
	run_ctx *x = ctx;
	doc_result *r = result;
	if (r->err_len || r->text_len || r->diff_a || report_prints(x->rep, &r->findings))
		progress_clear(x);
	if (r->err_len) {
		fflush(stdout);
		fwrite(r->err, 1, r->err_len, stderr);
	}
	if (r->diff_a)
		print_unified_diff(stdout, r->doc.name, r->diff_a, r->diff_a_len, r->text, r->text_len);
	else if (r->text_len && fwrite(r->text, 1, r->text_len, stdout) != r->text_len)
		x->io_error = 1;
	if (r->skipped) /* not checked: counted apart, in no report */
		x->rep->n_skipped++;
	else if (r->report)
		report_put(x->rep, &r->doc, &r->findings, r->report, r->report_len);
	else
		report_write(x->rep, &r->doc, &r->findings);
	if (r->over)
		x->status = EXIT_FINDINGS;
	if (r->io_error)
		x->io_error = 1;
	x->done++;
	x->bytes += r->bytes;
	doc_result_free(r);
	free(r);
}

/* ---- configuration ---- */

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The installed rules folder, or the one beside the binary in a build tree. */
/* (the library knows only the installed one: jh_rules_dir()) */
static const char *default_rules_dir(char *buf, size_t size)
{
	const char *env = getenv("JINGHUA_RULES");
	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", buf, size - 16);
	if (n > 0) {
		buf[n] = '\0';
		char *slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash, "/rules");
			if (is_dir(buf) && strcmp(buf, jh_rules_dir()) != 0) {
				char probe[PATH_MAX + 64];
				snprintf(probe, sizeof probe, "%s/../configure.ac", buf);
				if (access(probe, F_OK) == 0) /* a source tree, not an install */
					return buf;
			}
		}
	}
	return jh_rules_dir();
}


/* The cache folder: $JINGHUA_CACHE_DIR (empty: none), else
 * $XDG_CACHE_HOME/jinghua, else ~/.cache/jinghua.  malloc'd, or NULL. */
static char *cli_cache_dir(void)
{
	const char *d = getenv("JINGHUA_CACHE_DIR"), *base;
	if (d)
		return *d ? xstrdup(d) : NULL;
	if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
		return path_join(base, "jinghua");
	if ((base = getenv("HOME")) && *base == '/')
		return path_join(base, ".cache/jinghua");
	return NULL;
}

/* A library status as the command's exit status. */
static int cli_status(int rc)
{
	if (rc == JH_ERR_NOMEM) /* the library's other errors are reported through print_diag */
		fputs("jinghua: out of memory\n", stderr);
	return rc == JH_OK ? EXIT_CLEAN : rc == JH_ERR_CONFIG ? EXIT_USAGE : EXIT_IO;
}

static int cli_settings(jh_config *cfg, const char *path, const file_settings **out)
{
	return cli_status(jh_config_settings(cfg, path, out));
}

static int add_job(run_ctx *x, jh_config *cfg, const char *name, const char *path, const char *where,
                   char *data, size_t len)
{
	const file_settings *fs;
	int st = cli_settings(cfg, where, &fs);
	if (st) {
		free(data);
		return st;
	}
	/* capacity doubles (at 1, 2, 4, ... jobs): growing by one copied the
	 * whole array per file, quadratic for 100,000 files */
	if ((x->n_jobs & (x->n_jobs - 1)) == 0)
		x->jobs = xrealloc(x->jobs, (x->n_jobs ? 2 * x->n_jobs : 1) * sizeof *x->jobs);
	job *j = &x->jobs[x->n_jobs++];
	j->name = xstrdup(name);
	j->path = path ? xstrdup(path) : NULL;
	j->data = data;
	j->len = len;
	j->fs = fs;
	return 0;
}

static int run_files(const options *o, jh_config *cfg, int argc, char **argv)
{
	reporter rep = {o->format, o->color, o->statistics, stdout};
	run_ctx x = {o};
	x.rep = &rep;
	x.ro.mode = o->cmd == CMD_CHECK ? (o->diff ? MODE_DIFF : MODE_CHECK)
	            : o->to_stdout       ? MODE_STDOUT
	            : o->diff            ? MODE_DIFF
	                                 : MODE_FIX;
	x.ro.unsafe = o->unsafe;
	x.ro.to_utf8 = o->to_utf8;
	x.ro.quiet = o->quiet;
	x.ro.diff_base = o->diff_base;
	x.ro.staged = o->staged;
	x.ro.rep = &rep;
	int status = 0, walk_errors = 0;
	FILE *errout = NULL;
	if (o->staged) {
		staged_file *sf;
		size_t n;
		if (git_staged((const char *const *)argv, (size_t)argc, &sf, &n))
			return EXIT_USAGE;
		for (size_t i = 0; i < n; i++) {
			if (!status && !jh_config_excluded(cfg, sf[i].name))
				status = add_job(&x, cfg, sf[i].name, NULL, sf[i].name, sf[i].data, sf[i].len);
			else
				free(sf[i].data);
			free(sf[i].name);
		}
		free(sf);
	} else {
		path_list files = {0};
		if (argc == 0) {
			if (isatty(STDIN_FILENO)) {
				fprintf(stderr, "jinghua: no input: give files or folders, or - for stdin\n");
				usage(stderr);
				return EXIT_USAGE;
			}
			walk_errors += walk_arg("-", &files);
		}
		for (int i = 0; i < argc; i++)
			walk_errors += walk_arg(argv[i], &files);
		for (size_t i = 0; i < files.n && !status; i++) {
			const char *p = files.paths[i];
			if (!strcmp(p, "-")) {
				const char *name = o->stdin_filename ? o->stdin_filename : "<stdin>";
				const char *where = o->stdin_filename ? o->stdin_filename : "./-";
				jh_file *in;
				const char *why;
				int rc = jh_file_read(NULL, 0, &in, &why);
				if (rc == JH_ERR_NOMEM)
					die_nomem();
				if (rc) {
					fprintf(stderr, "jinghua: <stdin>: %s\n", why ? why : strerror(errno));
					walk_errors++;
					continue;
				}
				size_t len;
				char *data = jh_file_take(in, &len);
				jh_file_free(in);
				status = add_job(&x, cfg, name, NULL, where, data, len);
				continue;
			}
			if (files.walked[i] && jh_config_excluded(cfg, p))
				continue;
			status = add_job(&x, cfg, p, p, p, NULL, 0);
		}
		path_list_free(&files);
	}
	if (!status) {
		x.progress = o->progress > 0 || (o->progress < 0 && !o->quiet && isatty(STDERR_FILENO));
		const char *pd = getenv("JINGHUA_PROGRESS_DELAY");
		x.delay = pd && *pd ? atof(pd) : 1.0;
		clock_gettime(CLOCK_MONOTONIC, &x.start);
		x.last = x.start;
		x.last.tv_sec -= 1;
		/* remaining findings of fix --stdout/--diff go to stderr: stdout has
		 * the text.  stderr writes each character on its own: the report
		 * gets a buffered stream on it, emptied after each file so that it
		 * keeps its place among the messages. */
		if (o->to_stdout || o->diff) {
			int fd = dup(STDERR_FILENO);
			errout = fd < 0 ? NULL : fdopen(fd, "w");
			if (!errout && fd >= 0)
				close(fd);
			rep.out = errout ? errout : stderr;
			rep.flush_each = errout != NULL;
			rep.color = rep.color && isatty(STDERR_FILENO);
		}
		report_begin(&rep);
		unsigned threads = o->jobs ? o->jobs : default_threads();
		if (threads > x.n_jobs)
			threads = (unsigned)(x.n_jobs ? x.n_jobs : 1);
		x.threads = threads;
		pool_run(threads, &x, r_next, r_work, r_emit, tick);
		progress_clear(&x);
		report_end(&rep);
		if (errout && fclose(errout))
			x.io_error = 1;
		status = x.status;
	}
	for (size_t i = 0; i < x.n_jobs; i++) {
		free(x.jobs[i].name);
		free(x.jobs[i].path);
		free(x.jobs[i].data);
	}
	free(x.jobs);
	if (fflush(stdout) || ferror(stdout))
		x.io_error = 1;
	if (status == EXIT_USAGE)
		return status;
	return x.io_error || walk_errors ? EXIT_IO : status;
}

/* ---- rules, test-rules ---- */

static const char *kind_name(jh_kind k)
{
	return k == JH_KIND_REGEX ? "regex" : k == JH_KIND_LEXICON ? "lexicon" : "builtin";
}

static int run_rules(const options *o, const jh_ruleset *rs)
{
	size_t n = jh_ruleset_count(rs);
	if (o->explain) {
		long idx = jh_ruleset_find(rs, o->explain);
		if (idx < 0) {
			fprintf(stderr, "jinghua: no rule '%s'\n", o->explain);
			return EXIT_USAGE;
		}
		char *text = jh_rule_explain(jh_ruleset_rule(rs, (size_t)idx));
		if (!text) {
			fprintf(stderr, "jinghua: out of memory\n");
			return EXIT_IO;
		}
		fputs(text, stdout);
		free(text);
		return EXIT_CLEAN;
	}
	for (size_t i = 0; i < n; i++) {
		jh_rule_info in = JH_RULE_INFO_INIT;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &in);
		if (o->ids) {
			printf("%s\n", in.id);
			continue;
		}
		printf("%-32s %-8s %-8s %-7s %-3s %s\n", in.id, jh_severity_name(in.severity),
		       kind_name(in.kind), in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "-",
		       in.enabled_by_default ? "on" : "off", in.message);
	}
	return EXIT_CLEAN;
}

static int run_test_rules(const options *o, jh_config *cfg, int argc, char **argv)
{
	jh_ruleset *own = NULL;
	const jh_ruleset *rs;
	int status;
	if (argc == 0) {
		if ((status = cli_status(jh_config_ruleset(cfg, &rs))))
			return status;
	} else {
		if (jh_ruleset_new(&own))
			return EXIT_IO;
		int errors = 0;
		for (int i = 0; i < argc; i++)
			if (is_dir(argv[i]))
				jh_ruleset_load_dir(own, argv[i], print_diag, &errors);
			else
				jh_ruleset_load_file(own, argv[i], print_diag, &errors);
		jh_ruleset_compile(own, print_diag, &errors);
		if (errors) {
			fprintf(stderr, "jinghua: %d error%s in rule files\n", errors, errors == 1 ? "" : "s");
			jh_ruleset_free(own);
			return EXIT_USAGE;
		}
		rs = own;
	}
	size_t n = jh_ruleset_count(rs), examples = 0;
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		jh_rule_info in = JH_RULE_INFO_INIT;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &in);
		examples += in.n_examples;
		int f = jh_rule_run_examples(rs, i, print_diag, NULL);
		if (f < 0) {
			fprintf(stderr, "jinghua: %s\n", jh_strerror(f));
			jh_ruleset_free(own);
			return EXIT_IO;
		}
		failures += f;
	}
	printf("%zu rules, %zu examples, %d failure%s\n", n, examples, failures,
	       failures == 1 ? "" : "s");
	jh_ruleset_free(own);
	return failures ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* ---- options ---- */

static int parse_format(const char *v, out_format *f)
{
	static const struct { const char *name; out_format f; } names[] = {
		{"human", FMT_HUMAN}, {"json", FMT_JSON}, {"jsonl", FMT_JSONL}, {"sarif", FMT_SARIF},
		{"github", FMT_GITHUB}, {"checkstyle", FMT_CHECKSTYLE}, {"rdjsonl", FMT_RDJSONL},
		{"rdjson", FMT_RDJSONL},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(v, names[i].name)) {
			*f = names[i].f;
			return 0;
		}
	return -1;
}

static int check_encoding_name(const char *e)
{
	if (!e || !strcmp(e, "auto"))
		return 0;
	char name[64];
	if (jh_encoding_check(e, name, sizeof name)) {
		fprintf(stderr, "jinghua: --encoding: unknown encoding '%s'\n", name);
		return -1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	options o = {.cmd = CMD_CHECK, .format = FMT_HUMAN, .color = -1, .progress = -1,
	             .cfg = JH_CONFIG_OPTIONS_INIT};
	jh_file_guard_signals();
	int argi = 1;
	if (argc > 1) {
		const char *c = argv[1];
		if (!strcmp(c, "check"))
			argi = 2;
		else if (!strcmp(c, "fix"))
			o.cmd = CMD_FIX, argi = 2;
		else if (!strcmp(c, "rules"))
			o.cmd = CMD_RULES, argi = 2;
		else if (!strcmp(c, "test-rules"))
			o.cmd = CMD_TEST_RULES, argi = 2;
		else if (!strcmp(c, "hook"))
			return hook_command(argc - 1, argv + 1);
		else if (!strcmp(c, "lsp")) {
			char buf[PATH_MAX + 32];
			char *cache = cli_cache_dir();
			int rc = lsp_main(argc - 1, argv + 1, default_rules_dir(buf, sizeof buf), cache);
			free(cache);
			return rc;
		}
	}
	enum { O_FAIL_ON = 256, O_COLOR, O_UNSAFE, O_STDOUT, O_DIFF, O_EXPLAIN, O_NO_DEFAULT,
	       O_EXTEND, O_PROFILE, O_VARIANT, O_NO_CONFIG, O_TYPE, O_ENCODING, O_TO_UTF8, O_STAGED,
	       O_DIFF_BASE, O_STATS, O_JSONL, O_STDIN_NAME, O_IDS, O_PROGRESS };
	static const struct option longs[] = {
		{"format", required_argument, 0, 'f'},   {"select", required_argument, 0, 's'},
		{"ignore", required_argument, 0, 'i'},   {"rules", required_argument, 0, 'r'},
		{"fail-on", required_argument, 0, O_FAIL_ON}, {"color", required_argument, 0, O_COLOR},
		{"colour", required_argument, 0, O_COLOR},
		{"unsafe", no_argument, 0, O_UNSAFE},    {"stdout", no_argument, 0, O_STDOUT},
		{"diff", no_argument, 0, O_DIFF},        {"explain", required_argument, 0, O_EXPLAIN},
		{"no-default-rules", no_argument, 0, O_NO_DEFAULT},
		{"extend-select", required_argument, 0, O_EXTEND},
		{"profile", required_argument, 0, O_PROFILE}, {"variant", required_argument, 0, O_VARIANT},
		{"config", required_argument, 0, 'c'},   {"no-config", no_argument, 0, O_NO_CONFIG},
		{"type", required_argument, 0, O_TYPE},  {"encoding", required_argument, 0, O_ENCODING},
		{"to-utf8", no_argument, 0, O_TO_UTF8},  {"staged", no_argument, 0, O_STAGED},
		{"diff-base", required_argument, 0, O_DIFF_BASE},
		{"statistics", no_argument, 0, O_STATS}, {"jsonl-filter", no_argument, 0, O_JSONL},
		{"stdin-filename", required_argument, 0, O_STDIN_NAME},
		{"ids", no_argument, 0, O_IDS},          {"jobs", required_argument, 0, 'j'},
		{"progress", no_argument, 0, O_PROGRESS},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
	const char *dirs[argc > 0 ? argc : 1]; /* --rules folders: at most one per argument */
	o.cfg.rule_dirs = (const char *const *)dirs;
	optind = argi;
	int c;
	while ((c = getopt_long(argc, argv, "f:s:i:r:c:j:qhV", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_format(optarg, &o.format)) {
				fprintf(stderr, "jinghua: --format must be human, json, jsonl, sarif, github, "
				                "checkstyle or rdjsonl, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			/* an empty --select= would run nothing and say nothing */
			if (optarg[strspn(optarg, ", ")] == '\0') {
				fprintf(stderr, "jinghua: --select: no rule selected (give rule ids or families)\n");
				return EXIT_USAGE;
			}
			o.cfg.select = optarg;
			break;
		case 'i': o.cfg.ignore = optarg; break;
		case O_EXTEND: o.cfg.extend_select = optarg; break;
		case 'r': dirs[o.cfg.n_rule_dirs++] = optarg; break;
		case 'c': o.cfg.config_file = optarg; break;
		case O_NO_CONFIG: o.cfg.no_config = 1; break;
		case O_PROFILE: o.cfg.profile = optarg; break;
		case O_VARIANT:
			if (strcmp(optarg, "auto") && strcmp(optarg, "hans") && strcmp(optarg, "hant")) {
				fprintf(stderr, "jinghua: --variant must be auto, hans or hant\n");
				return EXIT_USAGE;
			}
			o.cfg.variant = optarg;
			break;
		case O_TYPE:
			if (!strcmp(optarg, "auto"))
				o.cfg.type = TYPE_AUTO;
			else if (!strcmp(optarg, "text") || !strcmp(optarg, "txt"))
				o.cfg.type = TYPE_TEXT;
			else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md"))
				o.cfg.type = TYPE_MARKDOWN;
			else {
				fprintf(stderr, "jinghua: --type must be auto, text or markdown\n");
				return EXIT_USAGE;
			}
			break;
		case O_ENCODING:
			if (check_encoding_name(optarg))
				return EXIT_USAGE;
			o.cfg.encoding = strcmp(optarg, "auto") ? optarg : NULL;
			break;
		case O_FAIL_ON: {
			jh_severity s;
			if (!strcmp(optarg, "never"))
				o.cfg.fail_on = FAIL_NEVER;
			else if (jh_severity_parse(optarg, &s) == 0)
				o.cfg.fail_on = (int)s;
			else {
				fprintf(stderr, "jinghua: --fail-on must be error, warning, info or never\n");
				return EXIT_USAGE;
			}
			break;
		}
		case O_COLOR:
			if (!strcmp(optarg, "auto"))
				o.color = -1;
			else if (!strcmp(optarg, "always"))
				o.color = 1;
			else if (!strcmp(optarg, "never"))
				o.color = 0;
			else {
				fprintf(stderr, "jinghua: --color must be auto, always or never\n");
				return EXIT_USAGE;
			}
			break;
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 1024) {
				fprintf(stderr, "jinghua: --jobs must be a number from 0 (all cores) to 1024\n");
				return EXIT_USAGE;
			}
			o.jobs = (unsigned)n;
			break;
		}
		case O_UNSAFE: o.unsafe = 1; break;
		case O_STDOUT: o.to_stdout = 1; break;
		case O_DIFF: o.diff = 1; break;
		case O_TO_UTF8: o.to_utf8 = 1; break;
		case O_STAGED: o.staged = 1; break;
		case O_DIFF_BASE: o.diff_base = optarg; break;
		case O_STATS: o.statistics = 1; break;
		case O_JSONL: o.jsonl = 1; break;
		case O_STDIN_NAME: o.stdin_filename = optarg; break;
		case O_EXPLAIN: o.explain = optarg; break;
		case O_IDS: o.ids = 1; break;
		case O_PROGRESS: o.progress = 1; break;
		case O_NO_DEFAULT: o.cfg.no_default_rules = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return EXIT_CLEAN;
		case 'V': printf("jinghua %s\n", JH_VERSION); return EXIT_CLEAN;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	const char *bad = NULL;
	if (o.cmd != CMD_FIX && (o.unsafe || o.to_stdout || o.to_utf8))
		bad = "--unsafe, --stdout and --to-utf8 belong to 'jinghua fix'";
	else if (o.to_stdout && o.diff)
		bad = "choose one of --stdout and --diff";
	else if (o.staged && o.cmd == CMD_FIX)
		bad = "fix --staged is not supported: fix the files, then git add them";
	else if (o.statistics && o.format != FMT_HUMAN && o.format != FMT_JSON)
		bad = "--statistics prints human or json";
	else if (o.jsonl && (o.staged || o.diff_base || o.diff || o.to_stdout || optind < argc))
		bad = "--jsonl-filter reads stdin only, and takes no PATH, --staged, --diff-base, --diff or --stdout";
	else if ((o.cmd == CMD_RULES || o.cmd == CMD_TEST_RULES) && (o.staged || o.diff_base || o.jsonl))
		bad = "--staged, --diff-base and --jsonl-filter belong to check and fix";
	if (bad) {
		fprintf(stderr, "jinghua: %s\n", bad);
		return EXIT_USAGE;
	}
	if (o.diff_base && git_verify_rev(o.diff_base)) {
		fprintf(stderr, "jinghua: --diff-base: '%s' is not a commit in this repository\n", o.diff_base);
		return EXIT_USAGE;
	}
	if (o.color < 0)
		o.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (o.format != FMT_HUMAN)
		o.color = 0;

	char rules_buf[PATH_MAX + 32];
	o.cfg.rules_dir = default_rules_dir(rules_buf, sizeof rules_buf);
	o.cfg.cache_dir = cli_cache_dir();
	o.cfg.diag_fn = print_diag;
	jh_config *cfg = NULL;
	int status = cli_status(jh_config_open(&o.cfg, &cfg));
	if (status) {
		/* reported */
	} else if (o.cmd == CMD_TEST_RULES) {
		status = run_test_rules(&o, cfg, argc - optind, argv + optind);
	} else if (o.cmd == CMD_RULES) {
		const jh_ruleset *rs;
		status = cli_status(jh_config_ruleset(cfg, &rs));
		if (!status)
			status = run_rules(&o, rs);
	} else if (o.jsonl) {
		status = jsonl_filter(cfg, o.cmd == CMD_FIX, o.unsafe, o.jobs ? o.jobs : default_threads());
	} else {
		status = run_files(&o, cfg, argc - optind, argv + optind);
	}
	jh_config_free(cfg);
	free((char *)o.cfg.cache_dir);
	return status;
}

/* Whatever the command, output that did not reach stdout (a full disk, a
 * closed pipe, >/dev/full) is an I/O error with a message, not exit 0. */
static int stdout_status(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (errno)
		fprintf(stderr, "jinghua: cannot write to standard output: %s\n", strerror(errno));
	else
		fprintf(stderr, "jinghua: cannot write to standard output\n");
	return EXIT_IO;
}

/* $JINGHUA_CACHE_MAX: the cache folder's cap in MB (0: none), for the
 * library's default of 256 MB.  Exit status 2 for a bad value. */
static int cache_max_from_env(void)
{
	const char *v = getenv("JINGHUA_CACHE_MAX");
	if (!v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long mb = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-' || mb > (~0ull >> 20)) {
		fprintf(stderr, "jinghua: JINGHUA_CACHE_MAX must be a number of MB (0: no cap), not '%s'\n", v);
		return EXIT_USAGE;
	}
	jh_set_cache_limit(mb << 20);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = cache_max_from_env();
	return bad ? bad : stdout_status(run(argc, argv));
}
