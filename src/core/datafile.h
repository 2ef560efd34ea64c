/* datafile.h — whole files read into memory, and data files read line by line. */
#ifndef JH_DATAFILE_H
#define JH_DATAFILE_H

#include <stddef.h>
#include <stdint.h>

/* A whole file, NUL-terminated (len excludes the NUL), or NULL with errno
 * set (ENOMEM, EIO, or fopen's). */
char *jh_read_file(const char *path, size_t *len);

/* A data file (TSV word list or table) read whole and handed out line by
 * line, its fields split at tabs in place: one read instead of a getline
 * and a copy per line, for lists of 100,000 lines.  Empty lines and lines
 * starting with '#' are skipped, a BOM at the start and a CR before the
 * line end dropped. */
typedef struct {
	char *data;
	size_t len, pos;
	unsigned line;   /* number of the line last returned */
	char *path;      /* set by jh_data_open (builtins.h), for messages */
} jh_tsv;

/* JH_OK, JH_ERR_NOMEM, or JH_ERR_RULES when the file cannot be read. */
int jh_tsv_open(jh_tsv *t, const char *path);
/* The next line's fields (at most max; the last keeps any further tabs),
 * NUL-terminated; returns how many, 0 at the end of the file. */
int jh_tsv_next(jh_tsv *t, char **fields, size_t *lens, int max);
/* The buffer, handed over to the caller (who frees it): words returned
 * by jh_tsv_next stay valid.  The reader is empty afterwards. */
char *jh_tsv_take(jh_tsv *t);
void jh_tsv_close(jh_tsv *t);

/* Binary model files (the character model, sunpinyin's) are mapped
 * read-only rather than read: they are large and mostly untouched.
 * JH_OK; JH_ERR_IO with "cannot read PATH" when the file cannot be
 * opened or mapped; JH_ERR_RULES with "PATH: too short" when it is a
 * regular file of fewer than min bytes (at least 1: an empty file cannot
 * be mapped), so that a file cut short is a bad data file, not a missing
 * one.  The caller checks every offset it reads against *size. */
int jh_map_file(const char *path, size_t min, const unsigned char **out, size_t *size,
                char *err, size_t err_len);
void jh_unmap_file(const unsigned char *map, size_t size);

/* Writes the message into err (when err_len > 0) and returns rc. */
int jh_fail(char *err, size_t err_len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A little-endian 32-bit word at p, at any alignment. */
static inline uint32_t jh_rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
