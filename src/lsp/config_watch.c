/* config_watch.c — noticing a changed .jinghua.ini without the client's
 * help.  A client that watches files for us (workspace/didChangeWatchedFiles
 * with dynamic registration) reports every change; Neovim 0.7's built-in
 * client, the one README shows, does not, and the server would go on with
 * the configuration it read first until it is restarted.  So, for such a
 * client, each check first looks at the files the configuration lookup
 * reads: the .jinghua.ini in the document's folder and in each folder above
 * it, up to and including the nearest one that exists (the nearest wins, so
 * a file created nearer counts as a change too).  A stat per folder costs a
 * few microseconds against a check's milliseconds.  Files that a
 * configuration names (extend =, words-file =, rules =) are not followed:
 * saving the .jinghua.ini itself, or a client that watches, reloads them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lsp.h"

struct cw_entry {
	char *dir;
	uint64_t sig;
	struct cw_entry *next;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* FNV-1a over the value's bytes */
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The state of the configuration files that dir (malloc'd copy, cut in
 * place) finds. */
static uint64_t signature(char *dir)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t cap = strlen(dir) + sizeof "/.jinghua.ini";
	char *file = malloc(cap);
	if (!file)
		return h;
	for (;;) {
		snprintf(file, cap, "%s/.jinghua.ini", *dir ? dir : "");
		struct stat st;
		if (stat(file, &st) == 0) {
			h = mix(h, (uint64_t)st.st_dev);
			h = mix(h, (uint64_t)st.st_ino);
			h = mix(h, (uint64_t)st.st_size);
			h = mix(h, (uint64_t)st.st_mtim.tv_sec);
			h = mix(h, (uint64_t)st.st_mtim.tv_nsec);
			break; /* the nearest one is the one read */
		}
		h = mix(h, 0);
		char *slash = strrchr(dir, '/');
		if (!slash || !*dir)
			break;
		*slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
	}
	free(file);
	return h;
}

int config_watch_changed(config_watch *cw, const char *path)
{
	if (!path || path[0] != '/')
		return 0;
	char *dir = strdup(path);
	if (!dir)
		return 0;
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	struct cw_entry *e = cw->head;
	while (e && strcmp(e->dir, dir))
		e = e->next;
	char *cut = strdup(dir);
	uint64_t sig = cut ? signature(cut) : 0;
	free(cut);
	if (!e) { /* first seen: what the configuration was read from */
		e = malloc(sizeof *e);
		if (!e) {
			free(dir);
			return 0;
		}
		e->dir = dir;
		e->sig = sig;
		e->next = cw->head;
		cw->head = e;
		return 0;
	}
	free(dir);
	if (e->sig == sig)
		return 0;
	e->sig = sig;
	return 1;
}

void config_watch_forget_all(config_watch *cw)
{
	while (cw->head) {
		struct cw_entry *e = cw->head;
		cw->head = e->next;
		free(e->dir);
		free(e);
	}
}
