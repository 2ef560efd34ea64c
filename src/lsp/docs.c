/* docs.c — the documents the client has open: their text as the client
 * sees it (UTF-8, from JSON strings), version and language, and the last
 * check's findings.  Changes come whole or as ranges (incremental sync). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

void docs_init(doc_store *s)
{
	s->head = NULL;
	pthread_mutex_init(&s->lock, NULL);
}

static void doc_free(lsp_doc *d)
{
	free(d->uri);
	free(d->path);
	free(d->language);
	free(d->text);
	line_index_free(&d->lines);
	adapter_result_free(&d->result);
	free(d);
}

void docs_free(doc_store *s)
{
	for (lsp_doc *d = s->head, *next; d; d = next) {
		next = d->next;
		doc_free(d);
	}
	s->head = NULL;
	pthread_mutex_destroy(&s->lock);
}

lsp_doc *docs_find(doc_store *s, const char *uri)
{
	for (lsp_doc *d = s->head; d; d = d->next)
		if (!strcmp(d->uri, uri))
			return d;
	return NULL;
}

static char *dup_bytes(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		abort();
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void set_text(lsp_doc *d, char *text, size_t len)
{
	free(d->text);
	d->text = text;
	d->len = len;
	line_index_free(&d->lines);
	line_index_build(&d->lines, text, len);
}

lsp_doc *docs_open(doc_store *s, const char *uri, const char *language, long version,
                   const char *text, size_t len)
{
	docs_close(s, uri); /* opened twice: the newer wins */
	lsp_doc *d = calloc(1, sizeof *d);
	char *path;
	if (!d || uri_to_path(uri, &path)) {
		free(d);
		return NULL;
	}
	d->path = path;
	d->uri = dup_bytes(uri, strlen(uri));
	d->language = dup_bytes(language, strlen(language));
	d->version = version;
	d->checked_version = -1;
	set_text(d, dup_bytes(text, len), len);
	d->next = s->head;
	s->head = d;
	return d;
}

void docs_close(doc_store *s, const char *uri)
{
	for (lsp_doc **p = &s->head; *p; p = &(*p)->next)
		if (!strcmp((*p)->uri, uri)) {
			lsp_doc *d = *p;
			*p = d->next;
			doc_free(d);
			return;
		}
}

int docs_copy(doc_store *s, const char *uri, doc_copy *out)
{
	pthread_mutex_lock(&s->lock);
	lsp_doc *d = docs_find(s, uri);
	if (d) {
		out->text = dup_bytes(d->text, d->len);
		out->len = d->len;
		out->version = d->version;
		out->path = d->path ? dup_bytes(d->path, strlen(d->path)) : NULL;
		out->language = dup_bytes(d->language, strlen(d->language));
	}
	pthread_mutex_unlock(&s->lock);
	return d ? 0 : -1;
}

lsp_doc *docs_unchanged(doc_store *s, const char *uri, const doc_copy *c)
{
	lsp_doc *d = docs_find(s, uri);
	if (!d || d->version != c->version || d->len != c->len || memcmp(d->text, c->text, c->len))
		return NULL;
	return d;
}

void doc_copy_free(doc_copy *c)
{
	free(c->text);
	free(c->path);
	free(c->language);
}

int docs_change(lsp_doc *d, json_t *change, pos_encoding e)
{
	json_t *t = json_object_get(change, "text");
	if (!json_is_string(t))
		return -1;
	const char *s = json_string_value(t);
	size_t n = json_string_length(t);
	json_t *range = json_object_get(change, "range");
	if (!range) {
		set_text(d, dup_bytes(s, n), n);
		return 0;
	}
	size_t a, b;
	if (json_to_range(&d->lines, d->text, d->len, e, range, &a, &b))
		return -1;
	size_t len = d->len - (b - a) + n;
	char *nt = malloc(len + 1);
	if (!nt)
		abort();
	memcpy(nt, d->text, a);
	memcpy(nt + a, s, n);
	memcpy(nt + a + n, d->text + b, d->len - b);
	nt[len] = '\0';
	set_text(d, nt, len);
	return 0;
}
