/* main.c — the jinghua command: argument parsing and the check, fix, rules
 * and test-rules commands. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

#ifndef JH_RULES_DIR
#define JH_RULES_DIR "/usr/local/share/jinghua/rules"
#endif

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

typedef enum { CMD_CHECK, CMD_FIX, CMD_RULES, CMD_TEST_RULES } command;

typedef struct {
	command cmd;
	out_format format;
	int color;              /* -1 auto */
	int fail_on;            /* severity, or 3 = never */
	int unsafe, to_stdout, diff;
	const char *select, *ignore, *explain;
	const char **rule_dirs;
	size_t n_rule_dirs;
	int no_default_rules;
	int quiet;
} options;

static void usage(FILE *o)
{
	fputs("usage: jinghua [check] [OPTIONS] [PATH...|-]\n"
	      "       jinghua fix [--unsafe] [--diff|--stdout] [OPTIONS] [PATH...|-]\n"
	      "       jinghua rules [--explain ID]\n"
	      "       jinghua test-rules [RULEFILE...]\n"
	      "\n"
	      "Finds and repairs damage in Chinese prose: censorship masks and separators,\n"
	      "mixed scripts, punctuation, layout and typos.  Folders are searched\n"
	      "recursively; '-' (or no PATH with a pipe on stdin) reads standard input.\n"
	      "\n"
	      "options:\n"
	      "  -f, --format FMT     human (default) or json\n"
	      "  -s, --select IDS     run only these rules (ids or families, comma separated)\n"
	      "  -i, --ignore IDS     do not run these rules\n"
	      "  -r, --rules DIR      also load rules from DIR (repeatable; later wins)\n"
	      "      --no-default-rules  load only the --rules folders\n"
	      "      --fail-on SEV    exit 1 for findings at or above error|warning|info|never\n"
	      "                       (default warning)\n"
	      "      --color WHEN     auto (default), always, never\n"
	      "  -q, --quiet          fix: no per-file summary on stderr\n"
	      "      --unsafe         fix: apply unsafe fixes too\n"
	      "      --stdout         fix: write the fixed text to stdout, leave files alone\n"
	      "      --diff           fix: print a unified diff, leave files alone\n"
	      "      --explain ID     rules: show one rule with its examples\n"
	      "  -h, --help           this help\n"
	      "  -V, --version        version\n"
	      "\n"
	      "Rules are read from $JINGHUA_RULES, else from the installed folder\n"
	      "(" JH_RULES_DIR ").\n"
	      "Exit: 0 clean, 1 findings at or above --fail-on, 2 usage or rule error, 3 I/O error.\n",
	      o);
}

static void print_diag(const jh_diag *d, void *payload)
{
	int *errors = payload;
	if (errors && d->severity == JH_ERROR)
		(*errors)++;
	fprintf(stderr, "jinghua: ");
	if (d->file) {
		fputs(d->file, stderr);
		if (d->line)
			fprintf(stderr, ":%u", d->line);
		if (d->column)
			fprintf(stderr, ":%u", d->column);
		fputs(": ", stderr);
	}
	fprintf(stderr, "%s: ", d->severity == JH_ERROR ? "error" : "warning");
	if (d->rule_id)
		fprintf(stderr, "[%s] ", d->rule_id);
	fprintf(stderr, "%s\n", d->message);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The installed rules folder, or the one beside the binary in a build tree. */
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
			if (is_dir(buf) && strcmp(buf, JH_RULES_DIR) != 0) {
				char probe[PATH_MAX + 64];
				snprintf(probe, sizeof probe, "%s/../configure.ac", buf);
				if (access(probe, F_OK) == 0) /* a source tree, not an install */
					return buf;
			}
		}
	}
	return JH_RULES_DIR;
}

static int load_rules(const options *o, jh_ruleset **out)
{
	jh_ruleset *rs;
	if (jh_ruleset_new(&rs))
		return EXIT_IO;
	int errors = 0;
	char buf[PATH_MAX + 32];
	if (!o->no_default_rules) {
		const char *dir = default_rules_dir(buf, sizeof buf);
		jh_ruleset_load_dir(rs, dir, print_diag, &errors);
	}
	for (size_t i = 0; i < o->n_rule_dirs; i++)
		jh_ruleset_load_dir(rs, o->rule_dirs[i], print_diag, &errors);
	if (jh_ruleset_compile(rs, print_diag, &errors) == JH_ERR_NOMEM) {
		fprintf(stderr, "jinghua: out of memory\n");
		jh_ruleset_free(rs);
		return EXIT_IO;
	}
	if (errors) {
		fprintf(stderr, "jinghua: %d error%s in rule files\n", errors, errors == 1 ? "" : "s");
		jh_ruleset_free(rs);
		return EXIT_USAGE;
	}
	*out = rs;
	return EXIT_CLEAN;
}

static int build_selection(const options *o, const jh_ruleset *rs, unsigned char **out)
{
	size_t n = jh_ruleset_count(rs);
	unsigned char *en = malloc(n ? n : 1);
	if (!en)
		return EXIT_IO;
	jh_ruleset_default_selection(rs, en);
	char bad[128];
	if (o->select) {
		memset(en, 0, n);
		if (jh_selection_apply(rs, en, o->select, 1, bad, sizeof bad)) {
			fprintf(stderr, "jinghua: --select: no rule or family '%s'\n", bad);
			free(en);
			return EXIT_USAGE;
		}
	}
	if (o->ignore && jh_selection_apply(rs, en, o->ignore, 0, bad, sizeof bad)) {
		fprintf(stderr, "jinghua: --ignore: no rule or family '%s'\n", bad);
		free(en);
		return EXIT_USAGE;
	}
	*out = en;
	return EXIT_CLEAN;
}

static int over_threshold(const options *o, const jh_findings *fs)
{
	for (size_t i = 0; i < fs->count; i++)
		if ((int)fs->items[i].severity >= o->fail_on)
			return 1;
	return 0;
}

static const char *display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Read one input; print why it is skipped.  Returns 0 to go on with it,
 * 1 to skip it, -1 on an I/O error. */
static int open_input(const char *path, file_data *fd)
{
	read_status st = read_input(path, fd);
	switch (st) {
	case READ_OK:
		return 0;
	case READ_IO_ERROR:
		fprintf(stderr, "jinghua: %s: %s\n", display_name(path), strerror(errno));
		return -1;
	case READ_BINARY:
		fprintf(stderr, "jinghua: %s: binary file, skipped\n", display_name(path));
		break;
	case READ_UTF16:
		fprintf(stderr, "jinghua: %s: UTF-16 text is not supported yet, skipped\n",
		        display_name(path));
		break;
	}
	file_data_free(fd);
	return 1;
}

static int run_check(const options *o, const jh_ruleset *rs, const unsigned char *en,
                     path_list *files)
{
	reporter rep = {o->format, o->color, stdout, 0, 0, {0}, 1};
	int status = EXIT_CLEAN, io_error = 0;
	report_begin(&rep);
	for (size_t i = 0; i < files->n; i++) {
		const char *path = files->paths[i];
		file_data fd;
		int r = open_input(path, &fd);
		if (r) {
			io_error |= r < 0;
			continue;
		}
		jh_findings fs = JH_FINDINGS_INIT;
		jh_check_options co = {en, NULL, display_name(path), print_diag, NULL};
		int rc = jh_check(rs, fd.data, fd.len, &co, &fs);
		if (rc) {
			fprintf(stderr, "jinghua: %s: %s\n", display_name(path), jh_strerror(rc));
			io_error = 1;
		} else {
			report_file(&rep, display_name(path), fd.data, fd.len, &fs);
			if (over_threshold(o, &fs))
				status = EXIT_FINDINGS;
		}
		jh_findings_clear(&fs);
		file_data_free(&fd);
	}
	report_end(&rep);
	fflush(stdout);
	return io_error ? EXIT_IO : status;
}

static int run_fix(const options *o, const jh_ruleset *rs, const unsigned char *en,
                   path_list *files)
{
	int status = EXIT_CLEAN, io_error = 0;
	/* Remaining findings go to stdout unless stdout carries text or a diff. */
	FILE *rest_out = (o->to_stdout || o->diff) ? stderr : stdout;
	reporter rep = {o->format, o->color && rest_out == stdout, rest_out, 0, 0, {0}, 1};
	report_begin(&rep);
	for (size_t i = 0; i < files->n; i++) {
		const char *path = files->paths[i];
		const char *name = display_name(path);
		file_data fd;
		int r = open_input(path, &fd);
		if (r) {
			io_error |= r < 0;
			continue;
		}
		jh_check_options co = {en, NULL, name, print_diag, NULL};
		char *fixed = NULL;
		size_t flen = 0;
		jh_fix_report fr;
		int rc = jh_fix(rs, fd.data, fd.len, &co, o->unsafe, &fixed, &flen, &fr);
		if (rc) {
			fprintf(stderr, "jinghua: %s: %s\n", name, jh_strerror(rc));
			io_error = 1;
			file_data_free(&fd);
			continue;
		}
		int changed = flen != fd.len || memcmp(fixed, fd.data, flen) != 0;
		if (!fr.converged)
			fprintf(stderr, "jinghua: %s: fixes did not settle after %u rounds (rules: %s)\n",
			        name, fr.rounds, fr.unstable_rules);
		if (o->to_stdout) {
			if (fwrite(fixed, 1, flen, stdout) != flen)
				io_error = 1;
		} else if (o->diff) {
			if (changed)
				print_unified_diff(stdout, name, fd.data, fd.len, fixed, flen);
		} else if (changed) {
			if (fd.is_stdin) {
				fwrite(fixed, 1, flen, stdout);
			} else if (write_atomic(path, fixed, flen, fd.mode) != 0) {
				fprintf(stderr, "jinghua: %s: cannot write: %s\n", name, strerror(errno));
				io_error = 1;
			}
		} else if (fd.is_stdin) {
			fwrite(fixed, 1, flen, stdout);
		}
		if (changed && !o->quiet && !o->to_stdout && !fd.is_stdin)
			fprintf(stderr, "jinghua: %s: %zu fix%s %s\n", name, fr.edits_applied,
			        fr.edits_applied == 1 ? "" : "es", o->diff ? "proposed" : "applied");
		/* What is left after fixing is still reported, never hidden. */
		jh_findings rest = JH_FINDINGS_INIT;
		if (jh_check(rs, fixed, flen, &co, &rest) == JH_OK) {
			if (!(fd.is_stdin && rest_out == stdout))
				report_file(&rep, name, fixed, flen, &rest);
			if (over_threshold(o, &rest))
				status = EXIT_FINDINGS;
		}
		jh_findings_clear(&rest);
		free(fixed);
		file_data_free(&fd);
	}
	report_end(&rep);
	fflush(stdout);
	return io_error ? EXIT_IO : status;
}

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
		jh_rule_info in;
		const jh_rule *r = jh_ruleset_rule(rs, (size_t)idx);
		jh_rule_get_info(r, &in);
		printf("%s\n  family:   %s\n  kind:     %s\n  severity: %s\n  fix:      %s\n"
		       "  enabled:  %s\n  defined:  %s:%u\n  message:  %s\n",
		       in.id, in.family, kind_name(in.kind), jh_severity_name(in.severity),
		       in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "none",
		       in.enabled_by_default ? "yes" : "no (opt-in)", in.file, in.line, in.message);
		if (in.description)
			printf("\n  %s\n", in.description);
		printf("\n  examples:\n");
		for (size_t k = 0; k < in.n_examples; k++) {
			jh_example ex;
			jh_rule_get_example(r, k, &ex);
			printf("    %s %s\n", ex.kind == JH_EXAMPLE_BAD ? "bad: " : "good:", ex.text);
			if (ex.fixed)
				printf("      → %s\n", ex.fixed);
		}
		return EXIT_CLEAN;
	}
	for (size_t i = 0; i < n; i++) {
		jh_rule_info in;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &in);
		printf("%-32s %-8s %-8s %-7s %-3s %s\n", in.id, jh_severity_name(in.severity),
		       kind_name(in.kind), in.has_fix ? (in.safety == JH_SAFE ? "safe" : "unsafe") : "-",
		       in.enabled_by_default ? "on" : "off", in.message);
	}
	return EXIT_CLEAN;
}

static int run_test_rules(const options *o, int argc, char **argv)
{
	jh_ruleset *rs;
	int status;
	if (argc == 0) {
		if ((status = load_rules(o, &rs)))
			return status;
	} else {
		if (jh_ruleset_new(&rs))
			return EXIT_IO;
		int errors = 0;
		for (int i = 0; i < argc; i++)
			if (is_dir(argv[i]))
				jh_ruleset_load_dir(rs, argv[i], print_diag, &errors);
			else
				jh_ruleset_load_file(rs, argv[i], print_diag, &errors);
		jh_ruleset_compile(rs, print_diag, &errors);
		if (errors) {
			fprintf(stderr, "jinghua: %d error%s in rule files\n", errors, errors == 1 ? "" : "s");
			jh_ruleset_free(rs);
			return EXIT_USAGE;
		}
	}
	size_t n = jh_ruleset_count(rs), examples = 0;
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		jh_rule_info in;
		jh_rule_get_info(jh_ruleset_rule(rs, i), &in);
		examples += in.n_examples;
		int f = jh_rule_run_examples(rs, i, print_diag, NULL);
		if (f < 0) {
			fprintf(stderr, "jinghua: %s\n", jh_strerror(f));
			jh_ruleset_free(rs);
			return EXIT_IO;
		}
		failures += f;
	}
	printf("%zu rules, %zu examples, %d failure%s\n", n, examples, failures,
	       failures == 1 ? "" : "s");
	jh_ruleset_free(rs);
	return failures ? EXIT_FINDINGS : EXIT_CLEAN;
}

int main(int argc, char **argv)
{
	options o = {.cmd = CMD_CHECK, .format = FMT_HUMAN, .color = -1, .fail_on = JH_WARNING};
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
	}
	enum { O_FAIL_ON = 256, O_COLOR, O_UNSAFE, O_STDOUT, O_DIFF, O_EXPLAIN, O_NO_DEFAULT };
	static const struct option longs[] = {
		{"format", required_argument, 0, 'f'},   {"select", required_argument, 0, 's'},
		{"ignore", required_argument, 0, 'i'},   {"rules", required_argument, 0, 'r'},
		{"fail-on", required_argument, 0, O_FAIL_ON}, {"color", required_argument, 0, O_COLOR},
		{"unsafe", no_argument, 0, O_UNSAFE},    {"stdout", no_argument, 0, O_STDOUT},
		{"diff", no_argument, 0, O_DIFF},        {"explain", required_argument, 0, O_EXPLAIN},
		{"no-default-rules", no_argument, 0, O_NO_DEFAULT},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
	const char *dirs[64];
	o.rule_dirs = dirs;
	optind = argi;
	int c;
	while ((c = getopt_long(argc, argv, "f:s:i:r:qhV", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "human"))
				o.format = FMT_HUMAN;
			else if (!strcmp(optarg, "json"))
				o.format = FMT_JSON;
			else {
				fprintf(stderr, "jinghua: --format must be human or json, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's': o.select = optarg; break;
		case 'i': o.ignore = optarg; break;
		case 'r':
			if (o.n_rule_dirs == 64) {
				fprintf(stderr, "jinghua: too many --rules folders\n");
				return EXIT_USAGE;
			}
			dirs[o.n_rule_dirs++] = optarg;
			break;
		case O_FAIL_ON: {
			jh_severity s;
			if (!strcmp(optarg, "never"))
				o.fail_on = 3;
			else if (jh_severity_parse(optarg, &s) == 0)
				o.fail_on = (int)s;
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
		case O_UNSAFE: o.unsafe = 1; break;
		case O_STDOUT: o.to_stdout = 1; break;
		case O_DIFF: o.diff = 1; break;
		case O_EXPLAIN: o.explain = optarg; break;
		case O_NO_DEFAULT: o.no_default_rules = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return EXIT_CLEAN;
		case 'V': printf("jinghua %s\n", JH_VERSION); return EXIT_CLEAN;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (o.cmd != CMD_FIX && (o.unsafe || o.to_stdout || o.diff)) {
		fprintf(stderr, "jinghua: --unsafe, --stdout and --diff belong to 'jinghua fix'\n");
		return EXIT_USAGE;
	}
	if (o.to_stdout && o.diff) {
		fprintf(stderr, "jinghua: choose one of --stdout and --diff\n");
		return EXIT_USAGE;
	}
	if (o.color < 0)
		o.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (o.format != FMT_HUMAN)
		o.color = 0;

	if (o.cmd == CMD_TEST_RULES)
		return run_test_rules(&o, argc - optind, argv + optind);

	jh_ruleset *rs = NULL;
	int status = load_rules(&o, &rs);
	if (status)
		return status;
	if (o.cmd == CMD_RULES) {
		status = run_rules(&o, rs);
		jh_ruleset_free(rs);
		return status;
	}
	unsigned char *en = NULL;
	if ((status = build_selection(&o, rs, &en))) {
		jh_ruleset_free(rs);
		return status;
	}
	path_list files = {0};
	int walk_errors = 0;
	if (optind == argc) {
		if (isatty(STDIN_FILENO)) {
			fprintf(stderr, "jinghua: no input: give files or folders, or - for stdin\n");
			usage(stderr);
			status = EXIT_USAGE;
			goto done;
		}
		walk_errors += walk_arg("-", &files);
	}
	for (int i = optind; i < argc; i++)
		walk_errors += walk_arg(argv[i], &files);
	status = o.cmd == CMD_FIX ? run_fix(&o, rs, en, &files) : run_check(&o, rs, en, &files);
	if (walk_errors)
		status = EXIT_IO;
done:
	path_list_free(&files);
	free(en);
	jh_ruleset_free(rs);
	return status;
}
