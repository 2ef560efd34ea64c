/* uri.h — file: URIs and paths, apart from the rest of the server so that
 * tests/check_oom can link them alone (they need nothing but libc). */
#ifndef JH_LSP_URI_H
#define JH_LSP_URI_H

/* The path of a file: URI (percent-decoded, malloc'd) in *out; *out NULL
 * for other schemes.  0, or -1 when memory ran out (*out NULL). */
int uri_to_path(const char *uri, char **out);
/* The file: URI of a path (percent-encoded), malloc'd; NULL when memory
 * ran out. */
char *path_to_uri(const char *path);

#endif
