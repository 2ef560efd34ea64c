/* config_stamp.c — what a configuration was read from, to tell later
 * whether it still holds (jh_config_stale).  Each file the reading looked
 * at is noted once, as it was then: the .jinghua.ini files found and those
 * looked for in vain (one created nearer wins), extend = chains, profiles
 * (and where they were looked for), word files, the rules folders and
 * their .rules files.  A stamp is device, inode, size and modification
 * time: an editor that saves by rename changes the inode, one that writes
 * in place the time or the size. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include "config_model.h"

/* Set by the public calls for their thread, as cfg_set_diag. */
static __thread cfg_stamps *watching;

void cfg_set_watch(cfg_stamps *s)
{
	watching = s;
}

static void take(cfg_stamp *t, const struct stat *st)
{
	t->present = st != NULL;
	t->dev = st ? (unsigned long long)st->st_dev : 0;
	t->ino = st ? (unsigned long long)st->st_ino : 0;
	t->size = st ? (long long)st->st_size : 0;
	t->sec = st ? (long long)st->st_mtim.tv_sec : 0;
	t->nsec = st ? (long)st->st_mtim.tv_nsec : 0;
}

void cfg_note_stat(const char *path, const struct stat *st)
{
	cfg_stamps *s = watching;
	if (!s || !path)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].path, path))
			return; /* the first look is what was read */
	char *p = cfg_strdup(path);
	if (!p || cfg_push(&s->v, s->n, sizeof *s->v)) {
		free(p);
		return; /* noted as out of memory: the configuration is spent */
	}
	s->v[s->n].path = p;
	take(&s->v[s->n++], st);
}

void cfg_note(const char *path)
{
	struct stat st;
	if (watching && path)
		cfg_note_stat(path, stat(path, &st) == 0 ? &st : NULL);
}

void cfg_note_rules_dir(const char *dir)
{
	if (!watching || !dir)
		return;
	cfg_note(dir); /* a rule file added, removed or renamed */
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t dl = strlen(dir);
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 7 || strcmp(e->d_name + n - 6, ".rules"))
			continue;
		char *p = cfg_malloc(dl + n + 2);
		if (!p)
			break;
		memcpy(p, dir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, e->d_name, n + 1);
		cfg_note(p); /* one edited in place */
		free(p);
	}
	closedir(d);
}

int cfg_stamps_changed(const cfg_stamps *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct stat st;
		cfg_stamp now;
		take(&now, stat(s->v[i].path, &st) == 0 ? &st : NULL);
		const cfg_stamp *was = &s->v[i];
		if (now.present != was->present || now.dev != was->dev || now.ino != was->ino ||
		    now.size != was->size || now.sec != was->sec || now.nsec != was->nsec)
			return 1;
	}
	return 0;
}

void cfg_stamps_free(cfg_stamps *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
