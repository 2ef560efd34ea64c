/* git.c — git for the pre-commit workflow: the staged files and their
 * content from the index (never the working tree), the lines changed since
 * a revision (`jinghua hook` is in hook.c). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

extern char **environ;

/* Start argv with pipes to its stdin (if in_fd) and from its stdout. */
static pid_t spawn_pipes(char *const argv[], int *in_fd, int *out_fd, int quiet)
{
	int pin[2] = {-1, -1}, pout[2];
	if (in_fd && pipe(pin))
		return -1;
	if (pipe(pout)) {
		if (in_fd) {
			close(pin[0]);
			close(pin[1]);
		}
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (in_fd) {
		posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
		posix_spawn_file_actions_addclose(&fa, pin[1]);
	} else {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	}
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	posix_spawn_file_actions_addclose(&fa, pout[0]);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (in_fd)
		close(pin[0]);
	close(pout[1]);
	if (rc) {
		if (in_fd)
			close(pin[1]);
		close(pout[0]);
		errno = rc;
		return -1;
	}
	if (in_fd)
		*in_fd = pin[1];
	*out_fd = pout[0];
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int run_capture(char *const argv[], const char *input, size_t input_len, char **out,
                size_t *out_len, int quiet)
{
	int ofd, ifd = -1;
	pid_t pid = spawn_pipes(argv, input ? &ifd : NULL, &ofd, quiet);
	if (pid < 0)
		return -1;
	if (input) { /* small inputs only: written before reading */
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		size_t off = 0;
		while (off < input_len) {
			ssize_t n = write(ifd, input + off, input_len - off);
			if (n <= 0 && errno != EINTR)
				break;
			if (n > 0)
				off += (size_t)n;
		}
		close(ifd);
		signal(SIGPIPE, old);
	}
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		ssize_t n = read(ofd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(ofd);
	buf[len] = '\0';
	int st = wait_status(pid);
	if (out) {
		*out = buf;
		if (out_len)
			*out_len = len;
	} else {
		free(buf);
	}
	return st;
}

int git_verify_rev(const char *rev)
{
	char *spec = xmalloc(strlen(rev) + 10);
	sprintf(spec, "%s^{commit}", rev);
	char *argv[] = {"git", "rev-parse", "--verify", "--quiet", spec, NULL};
	int st = run_capture(argv, NULL, 0, NULL, NULL, 1);
	free(spec);
	return st == 0 ? 0 : -1;
}

int git_staged(const char *const *pathspecs, size_t n, staged_file **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	char *cdup = NULL;
	char *a1[] = {"git", "rev-parse", "--show-cdup", NULL};
	if (run_capture(a1, NULL, 0, &cdup, NULL, 1) != 0) {
		free(cdup);
		fprintf(stderr, "jinghua: --staged: not inside a git work tree\n");
		return -1;
	}
	cdup[strcspn(cdup, "\n")] = '\0';
	char *prefix = NULL;
	char *a2[] = {"git", "rev-parse", "--show-prefix", NULL};
	if (run_capture(a2, NULL, 0, &prefix, NULL, 1) != 0)
		prefix[0] = '\0';
	prefix[strcspn(prefix, "\n")] = '\0';
	size_t plen = strlen(prefix);
	char **argv = xmalloc((n + 10) * sizeof *argv);
	size_t k = 0;
	argv[k++] = "git";
	argv[k++] = "diff";
	argv[k++] = "--cached";
	argv[k++] = "--raw";
	argv[k++] = "--no-abbrev";
	argv[k++] = "-z";
	argv[k++] = "--no-renames";
	argv[k++] = "--diff-filter=ACMR";
	argv[k++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)pathspecs[i];
	argv[k] = NULL;
	char *names = NULL;
	size_t nlen = 0;
	int st = run_capture(argv, NULL, 0, &names, &nlen, 0);
	free(argv);
	if (st != 0) {
		fprintf(stderr, "jinghua: --staged: git diff --cached failed\n");
		free(names);
		free(cdup);
		free(prefix);
		return -1;
	}
	/* ":OLDMODE NEWMODE OLDID NEWID STATUS\0PATH\0" per file: the new id is
	 * the staged blob, asked for by id, so no file name is ever parsed
	 * by git as a revision (":2:name" is stage 2 of "name") */
	size_t count = 0;
	for (size_t i = 0; i < nlen; i++)
		count += names[i] == '\0';
	count /= 2;
	if (!count) {
		free(names);
		free(cdup);
		free(prefix);
		return 0;
	}
	/* one git process serves every file's staged content */
	char *cat[] = {"git", "cat-file", "--batch", NULL};
	int ifd, ofd;
	pid_t pid = spawn_pipes(cat, &ifd, &ofd, 0);
	if (pid < 0) {
		fprintf(stderr, "jinghua: --staged: cannot run git cat-file: %s\n", strerror(errno));
		free(names);
		free(cdup);
		free(prefix);
		return -1;
	}
	FILE *w = fdopen(ifd, "w"), *r = fdopen(ofd, "r");
	staged_file *v = calloc(count, sizeof *v);
	if (!w || !r || !v)
		abort();
	size_t got = 0;
	int bad = 0;
	for (char *rec = names; rec < names + nlen && !bad;) {
		char *p = rec + strlen(rec) + 1;
		if (p >= names + nlen)
			break;
		char id[80] = "";
		sscanf(rec, ":%*s %*s %*s %79s", id);
		rec = p + strlen(p) + 1;
		if (!id[0] || strspn(id, "0123456789abcdef") != strlen(id))
			continue;
		fprintf(w, "%s\n", id);
		fflush(w);
		char head[512];
		if (!fgets(head, sizeof head, r)) {
			bad = 1;
			break;
		}
		char type[32];
		unsigned long long size;
		if (sscanf(head, "%*s %31s %llu", type, &size) != 2) {
			continue; /* "missing" */
		}
		char *data = malloc((size_t)size + 1);
		if (!data || fread(data, 1, (size_t)size, r) != size || fgetc(r) != '\n') {
			free(data);
			bad = 1;
			break;
		}
		data[size] = '\0';
		if (strcmp(type, "blob")) {
			free(data);
			continue;
		}
		/* shown relative to the current folder, as git status does */
		v[got].name = plen && !strncmp(p, prefix, plen) ? xstrdup(p + plen) : path_join(cdup, p);
		v[got].data = data;
		v[got].len = (size_t)size;
		got++;
	}
	fclose(w);
	fclose(r);
	wait_status(pid);
	free(names);
	free(cdup);
	free(prefix);
	if (bad) {
		fprintf(stderr, "jinghua: --staged: reading the index failed\n");
		for (size_t i = 0; i < got; i++) {
			free(v[i].name);
			free(v[i].data);
		}
		free(v);
		return -1;
	}
	*out = v;
	*n_out = got;
	return 0;
}

int git_changed_lines(const char *rev, const char *path, int staged, size_t **lines,
                      size_t *n_pairs, int *all)
{
	*lines = NULL;
	*n_pairs = 0;
	*all = 0;
	char *argv[] = {"git", "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0",
	                staged ? "--cached" : "--no-color", (char *)rev, "--", (char *)path, NULL};
	char *out = NULL;
	size_t len = 0;
	if (run_capture(argv, NULL, 0, &out, &len, 1) != 0) {
		free(out);
		return -1;
	}
	size_t *v = NULL, n = 0;
	for (char *p = out; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!strncmp(p, "@@ ", 3)) {
			char *plus = strstr(p, " +");
			if (plus) {
				unsigned long start = strtoul(plus + 2, &plus, 10), count = 1;
				if (*plus == ',')
					count = strtoul(plus + 1, NULL, 10);
				if (count) {
					v = xrealloc(v, (n + 1) * 2 * sizeof *v);
					v[2 * n] = start;
					v[2 * n + 1] = start + count - 1;
					n++;
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!len) {
		/* no difference: unchanged, or not tracked at all (then all new) */
		char *ls[] = {"git", "ls-files", "--error-unmatch", "--", (char *)path, NULL};
		char *sp = xmalloc(strlen(rev) + strlen(path) + 8);
		sprintf(sp, "%s:./%s", rev, path);
		char *cf[] = {"git", "cat-file", "-e", sp, NULL};
		if (run_capture(ls, NULL, 0, NULL, NULL, 1) != 0 || run_capture(cf, NULL, 0, NULL, NULL, 1) != 0)
			*all = 1;
		free(sp);
	}
	free(out);
	*lines = v;
	*n_pairs = n;
	return 0;
}
