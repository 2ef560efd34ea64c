/* config_api.c — the public calls on a configuration (jh_config_* of
 * jinghua.h) around the internal ones of config.c: copies of the options,
 * one lock per configuration, where diagnostics go, and the statuses the
 * caller gets (a configuration that ran out of memory is spent). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "config_model.h"
#include "util.h"

/* statuses of the internal calls (as in config.c) */
enum { EXIT_USAGE = 2, EXIT_IO = 3 };

struct jh_config {
	cfg_ctx *ctx;
	pthread_mutex_t lock;
	jh_diag_fn diag_fn;
	void *payload;
	char **strings;        /* copies of the options' strings */
	size_t n_strings;
	const char **rule_dirs;
	int nomem;             /* memory ran out in a call: the configuration is spent */
	cfg_stamps stamps;     /* the files read, as they were (jh_config_stale) */
};

/* A copy of s owned by c (NULL for NULL; out of memory is noted). */
static const char *keep(jh_config *c, const char *s)
{
	char *k;
	if (!s || cfg_push(&c->strings, c->n_strings, sizeof *c->strings) || !(k = cfg_strdup(s)))
		return NULL;
	return c->strings[c->n_strings++] = k;
}

/* The internal status as the public one; memory that ran out during the
 * call spends the configuration (what it holds may lack a part). */
static int public_status(jh_config *c, int st)
{
	if (cfg_take_nomem() || st == EXIT_IO)
		c->nomem = 1;
	return c->nomem ? JH_ERR_NOMEM : st == 0 ? JH_OK : JH_ERR_CONFIG;
}

int jh_config_open(const jh_config_options *o, jh_config **out)
{
	if (!o || !out)
		return JH_ERR_ARG;
	*out = NULL;
	jh_config *c = calloc(1, sizeof *c);
	if (!c)
		return JH_ERR_NOMEM;
	pthread_mutex_init(&c->lock, NULL);
	c->diag_fn = o->diag_fn;
	c->payload = o->payload;
	cfg_take_nomem();
	cfg_cli cli = {0};
	cli.config = keep(c, o->config_file);
	cli.no_config = o->no_config;
	c->rule_dirs = cfg_malloc((o->n_rule_dirs + 1) * sizeof *c->rule_dirs);
	for (size_t i = 0; c->rule_dirs && i < o->n_rule_dirs; i++)
		c->rule_dirs[i] = keep(c, o->rule_dirs[i]);
	cli.rule_dirs = c->rule_dirs;
	cli.n_rule_dirs = o->n_rule_dirs;
	cli.no_default_rules = o->no_default_rules;
	cli.select = keep(c, o->select);
	cli.extend_select = keep(c, o->extend_select);
	cli.ignore = keep(c, o->ignore);
	cli.profile = keep(c, o->profile);
	cli.variant = keep(c, o->variant);
	cli.encoding = keep(c, o->encoding);
	cli.type = o->type;
	cli.fail_on = o->fail_on;
	cli.rules_dir = keep(c, o->rules_dir);
	cli.cache_dir = o->cache_dir && *o->cache_dir ? keep(c, o->cache_dir) : NULL;
	if (cfg_take_nomem()) { /* before anything is read: nothing to report */
		jh_config_free(c);
		return JH_ERR_NOMEM;
	}
	cfg_set_diag(c->diag_fn, c->payload);
	cfg_set_watch(&c->stamps);
	c->ctx = cfg_new(&cli);
	cfg_set_watch(NULL);
	cfg_set_diag(NULL, NULL);
	int st = public_status(c, c->ctx ? 0 : EXIT_IO);
	if (st == JH_OK && cfg_failed(c->ctx))
		st = JH_ERR_CONFIG;
	if (st) {
		jh_config_free(c);
		return st;
	}
	*out = c;
	return JH_OK;
}

void jh_config_free(jh_config *c)
{
	if (!c)
		return;
	cfg_free(c->ctx);
	for (size_t i = 0; i < c->n_strings; i++)
		free(c->strings[i]);
	free(c->strings);
	free(c->rule_dirs);
	cfg_stamps_free(&c->stamps);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int jh_config_settings(jh_config *c, const char *path, const jh_settings **out)
{
	if (!c || !path || !out)
		return JH_ERR_ARG;
	pthread_mutex_lock(&c->lock);
	int st = JH_ERR_NOMEM;
	if (!c->nomem) {
		cfg_set_diag(c->diag_fn, c->payload);
		cfg_set_watch(&c->stamps);
		st = public_status(c, cfg_settings(c->ctx, path, out));
		cfg_set_watch(NULL);
		cfg_set_diag(NULL, NULL);
	}
	pthread_mutex_unlock(&c->lock);
	return st;
}

int jh_config_excluded(jh_config *c, const char *path)
{
	if (!c || !path)
		return 0;
	pthread_mutex_lock(&c->lock);
	int hit = 0;
	if (!c->nomem) {
		cfg_set_diag(c->diag_fn, c->payload);
		cfg_set_watch(&c->stamps);
		hit = cfg_excluded(c->ctx, path);
		cfg_set_watch(NULL);
		cfg_set_diag(NULL, NULL);
		if (public_status(c, 0)) /* out of memory: not known, so not excluded */
			hit = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

int jh_config_ruleset(jh_config *c, const jh_ruleset **out)
{
	if (!c || !out)
		return JH_ERR_ARG;
	pthread_mutex_lock(&c->lock);
	int st = JH_ERR_NOMEM;
	if (!c->nomem) {
		cfg_set_diag(c->diag_fn, c->payload);
		cfg_set_watch(&c->stamps);
		st = public_status(c, cfg_base_ruleset(c->ctx, out));
		cfg_set_watch(NULL);
		cfg_set_diag(NULL, NULL);
	}
	pthread_mutex_unlock(&c->lock);
	return st;
}

int jh_config_stale(jh_config *c)
{
	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	int stale = cfg_stamps_changed(&c->stamps);
	pthread_mutex_unlock(&c->lock);
	return stale;
}
