/* hook.c — `jinghua hook install|uninstall`: `jinghua check --staged` in
 * the repository's pre-commit hook.
 *
 * A hook that is a POSIX-like shell script gets our block after its #!
 * line, between two marker lines, and loses exactly that block again.
 * Any other hook (a binary, a fish, pwsh or Python script) is never
 * edited: it is renamed aside, whole and with its mode, and a small shell
 * hook runs our check and then execs it; uninstall renames it back.  A
 * hook that is a symlink (a shared hook) is left alone with a message:
 * editing it would change every repository that shares it. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

#define BEGIN_MARK "# >>> jinghua >>>"
#define END_MARK "# <<< jinghua <<<"
#define CHAINED_SUFFIX ".jinghua-chained"
#define CHAIN_LINE "exec \"$(dirname \"$0\")/pre-commit" CHAINED_SUFFIX "\" \"$@\"\n"

static char *hook_path(void)
{
	char *argv[] = {"git", "rev-parse", "--git-path", "hooks", NULL};
	char *dir = NULL;
	if (run_capture(argv, NULL, 0, &dir, NULL, 1) != 0 || !*dir) {
		free(dir);
		return NULL;
	}
	dir[strcspn(dir, "\n")] = '\0';
	mkdir(dir, 0755);
	char *p = path_join(dir, "pre-commit");
	free(dir);
	return p;
}

static void shell_quote(FILE *o, const char *s)
{
	fputc('\'', o);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", o);
		else
			fputc(*s, o);
	fputc('\'', o);
}

/* Is this hook a script our block can go into?  Text with no NUL byte whose
 * #! line names a Bourne-style shell (directly or through env), or text
 * without a #! line, which git runs with sh. */
static int is_shell_script(const char *data, size_t len)
{
	if (memchr(data, 0, len))
		return 0;
	if (len < 2 || strncmp(data, "#!", 2))
		return 1;
	size_t l = strcspn(data, "\n");
	char *line = xstrndup(data + 2, l - 2);
	static const char *const shells[] = {"sh", "bash", "dash", "ksh", "mksh", "ash", "zsh", "busybox"};
	int ok = 0;
	char *save = NULL, *w = strtok_r(line, " \t\r", &save);
	for (int k = 0; w && k < 2; k++) {
		const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
		if (k == 0 && !strcmp(base, "env")) { /* #!/usr/bin/env bash */
			w = strtok_r(NULL, " \t\r", &save);
			while (w && w[0] == '-')
				w = strtok_r(NULL, " \t\r", &save);
			continue;
		}
		for (size_t i = 0; i < sizeof shells / sizeof *shells; i++)
			ok |= !strcmp(base, shells[i]);
		break;
	}
	free(line);
	return ok;
}

/* Where our block starts and ends in text (len bytes); 0 if it has none. */
static int find_block(const char *text, size_t len, size_t *b, size_t *e)
{
	const char *p = memmem(text, len, BEGIN_MARK, strlen(BEGIN_MARK));
	if (!p)
		return 0;
	const char *q = memmem(p, len - (size_t)(p - text), END_MARK, strlen(END_MARK));
	if (!q)
		return 0;
	q += strlen(END_MARK);
	if (q < text + len && *q == '\n')
		q++;
	*b = (size_t)(p - text);
	*e = (size_t)(q - text);
	return 1;
}

static char *make_block(int argc, char **argv, int extra)
{
	/* which jinghua: this one, by absolute path, else the one on PATH */
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	self[sl > 0 ? sl : 0] = '\0';
	char *block = NULL;
	size_t blen = 0;
	FILE *b = open_memstream(&block, &blen);
	fputs(BEGIN_MARK " (added by `jinghua hook install`; `jinghua hook uninstall` removes it)\n", b);
	fputs("jinghua_bin=${JINGHUA_BIN:-", b);
	shell_quote(b, sl > 0 ? self : "jinghua");
	fputs("}\ncommand -v \"$jinghua_bin\" >/dev/null 2>&1 || jinghua_bin=jinghua\n", b);
	fputs("\"$jinghua_bin\" check --staged", b);
	for (int i = extra; i < argc; i++) {
		fputc(' ', b);
		shell_quote(b, argv[i]);
	}
	fputs(" || {\n\techo \"jinghua: commit stopped: fix the findings above (jinghua fix FILE, then git add),"
	      " or commit with --no-verify\" >&2\n\texit 1\n}\n" END_MARK "\n",
	      b);
	fclose(b);
	return block;
}

/* The hook's mode with its execute bits (a hook git cannot run is none). */
static mode_t hook_mode(mode_t m)
{
	m &= 07777;
	return m | ((m & 0444) >> 2) | 0100;
}

/* Is text our chaining hook: a #! line, our block and the exec line? */
static int is_chain_hook(const char *text, size_t len)
{
	size_t b, e;
	if (!find_block(text, len, &b, &e))
		return 0;
	return len - e == strlen(CHAIN_LINE) && !memcmp(text + e, CHAIN_LINE, len - e);
}

/* A file name as put_name writes it (jh_name_escape: control bytes and
 * bytes that are not UTF-8 as \\xHH), for the messages here that name a
 * hook mid-sentence (file_msg puts the name first): core.hooksPath may
 * hold any bytes. */
static char *shown(const char *path)
{
	size_t n = 4 * strlen(path) + 1;
	char *s = xmalloc(n);
	jh_name_escape(path, s, n);
	return s;
}

/* old: the hook there is, or NULL */
static int install(const char *path, const char *name, const jh_file *old, const char *block)
{
	char *out = NULL;
	size_t olen = 0, b, e, len = 0;
	const char *t = old ? jh_file_data(old, &len) : NULL;
	FILE *o = open_memstream(&out, &olen);
	mode_t mode = old ? hook_mode(jh_file_mode(old)) : 0755;
	int had = 0;
	if (!old) {
		fprintf(o, "#!/bin/sh\n%s", block);
	} else if (is_shell_script(t, len)) {
		/* our block, old or new, right after the #! line, before anything
		 * that might exit */
		had = find_block(t, len, &b, &e);
		size_t l = len >= 2 && !strncmp(t, "#!", 2) ? strcspn(t, "\n") : 0;
		fwrite(t, 1, l, o);
		if (l)
			fputc('\n', o);
		fputs(block, o);
		size_t from = l + (l < len && t[l] == '\n');
		if (had && b >= from) {
			fwrite(t + from, 1, b - from, o);
			fwrite(t + e, 1, len - e, o);
		} else {
			fwrite(t + from, 1, len - from, o);
		}
	} else {
		/* not a shell script: keep it whole under another name and call it */
		char *aside = xmalloc(strlen(path) + sizeof CHAINED_SUFFIX);
		sprintf(aside, "%s%s", path, CHAINED_SUFFIX);
		char *aside_name = shown(aside);
		if (access(aside, F_OK) == 0) {
			fprintf(stderr, "jinghua: %s exists already; not chaining %s (move one of them)\n",
			        aside_name, name);
			free(aside_name);
			free(aside);
			fclose(o);
			free(out);
			return EXIT_USAGE;
		}
		fprintf(o, "#!/bin/sh\n%s" CHAIN_LINE, block);
		fclose(o);
		/* the new hook goes in first under a temporary name, so that a
		 * failure leaves the original where it was */
		int rc = EXIT_CLEAN;
		if (link(path, aside) != 0 || jh_file_write_new(path, out, olen, 0755) != 0) {
			file_msg(stderr, path, "cannot chain the hook: %s\n", strerror(errno));
			unlink(aside);
			rc = EXIT_IO;
		} else {
			printf("jinghua: installed the pre-commit hook in %s; the hook that was there is "
			       "kept whole as %s and runs after the check\n", name, aside_name);
		}
		free(aside_name);
		free(aside);
		free(out);
		return rc;
	}
	fclose(o);
	int rc = EXIT_CLEAN;
	if (jh_file_write_new(path, out, olen, mode)) {
		file_msg(stderr, path, "cannot write: %s\n", strerror(errno));
		rc = EXIT_IO;
	} else {
		printf("jinghua: %s the pre-commit hook in %s\n", had ? "updated" : "installed", name);
	}
	free(out);
	return rc;
}

static int uninstall(const char *path, const char *name, const jh_file *f)
{
	size_t len, b, e;
	const char *data = jh_file_data(f, &len);
	if (!find_block(data, len, &b, &e)) {
		printf("jinghua: no jinghua hook in %s\n", name);
		return EXIT_CLEAN;
	}
	if (is_chain_hook(data, len)) {
		char *aside = xmalloc(strlen(path) + sizeof CHAINED_SUFFIX);
		sprintf(aside, "%s%s", path, CHAINED_SUFFIX);
		int rc = EXIT_CLEAN;
		if (rename(aside, path) != 0) {
			file_msg(stderr, aside, "cannot put the chained hook back: %s\n",
			         strerror(errno));
			rc = EXIT_IO;
		} else {
			printf("jinghua: removed the hook from %s; the chained hook is back in its place\n",
			       name);
		}
		free(aside);
		return rc;
	}
	/* what is left without our block: nothing but a #! line is no hook */
	char *rest = xmalloc(len - (e - b) + 1);
	memcpy(rest, data, b);
	memcpy(rest + b, data + e, len - e);
	size_t rlen = len - (e - b);
	rest[rlen] = '\0';
	const char *body = rest;
	if (!strncmp(body, "#!", 2))
		body = strchr(body, '\n') ? strchr(body, '\n') + 1 : "";
	body += strspn(body, " \t\n");
	int rc = EXIT_CLEAN;
	if (!*body ? unlink(path) != 0 : jh_file_write_new(path, rest, rlen, hook_mode(jh_file_mode(f))) != 0) {
		file_msg(stderr, path, "%s\n", strerror(errno));
		rc = EXIT_IO;
	} else {
		printf("jinghua: removed the hook from %s\n", name);
	}
	free(rest);
	return rc;
}

int hook_command(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	int inst = !strcmp(sub, "install"), uninst = !strcmp(sub, "uninstall");
	if (!inst && !uninst) {
		fputs("usage: jinghua hook install [-- CHECK-OPTIONS...]\n"
		      "       jinghua hook uninstall\n"
		      "Adds (or removes) `jinghua check --staged` to the repository's pre-commit hook.\n",
		      stderr);
		return EXIT_USAGE;
	}
	int extra = 2;
	if (inst && argc > 2) {
		if (strcmp(argv[2], "--")) {
			fprintf(stderr, "jinghua: hook install: options for the check go after '--'\n");
			return EXIT_USAGE;
		}
		extra = 3;
	} else if (uninst && argc > 2) {
		fprintf(stderr, "jinghua: hook uninstall takes no arguments\n");
		return EXIT_USAGE;
	}
	char *path = hook_path();
	if (!path) {
		fprintf(stderr, "jinghua: hook: not inside a git repository\n");
		return EXIT_USAGE;
	}
	char *name = shown(path);
	struct stat lst;
	int exists = lstat(path, &lst) == 0;
	int status;
	jh_file *old = NULL;
	const char *why;
	if (exists && S_ISLNK(lst.st_mode)) {
		fprintf(stderr, "jinghua: %s is a symlink (a shared hook?); not changed: add "
		                "`jinghua check --staged` to the file it points to yourself\n", name);
		status = EXIT_USAGE;
	} else if (exists && !S_ISREG(lst.st_mode)) {
		fprintf(stderr, "jinghua: %s is not a regular file; not changed\n", name);
		status = EXIT_USAGE;
	} else if (exists && jh_file_read(path, 0, &old, &why)) {
		file_msg(stderr, path, "%s\n", why ? why : strerror(errno));
		status = EXIT_IO;
	} else if (uninst) {
		status = old ? uninstall(path, name, old) : (printf("jinghua: no jinghua hook in %s\n", name),
		                                        EXIT_CLEAN);
	} else {
		char *block = make_block(argc, argv, extra);
		status = install(path, name, old, block);
		free(block);
	}
	jh_file_free(old);
	free(name);
	free(path);
	return status;
}
