/* uri.c — file: URIs as paths and back.  Memory that runs out is the
 * caller's to answer (an LSP error, or a document without a path): a
 * server that aborts loses every open document of the editor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uri.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	                                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int uri_to_path(const char *uri, char **out)
{
	*out = NULL;
	if (strncmp(uri, "file://", 7))
		return 0;
	const char *p = uri + 7;
	if (*p != '/') { /* file://host/path: only the local host */
		if (strncmp(p, "localhost/", 10))
			return 0;
		p += 9;
	}
	size_t n = strlen(p);
	char *path = malloc(n + 1), *w = path;
	if (!path)
		return -1;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int h, l;
		if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
			*w++ = (char)(h * 16 + l);
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	*out = path;
	return 0;
}

char *path_to_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *out = malloc(7 + 3 * n + 2), *w = out;
	if (!out)
		return NULL;
	w += sprintf(w, "file://%s", path[0] == '/' ? "" : "/");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p)) {
			*w++ = (char)*p;
		} else {
			*w++ = '%';
			*w++ = hex[*p >> 4];
			*w++ = hex[*p & 15];
		}
	}
	*w = '\0';
	return out;
}
