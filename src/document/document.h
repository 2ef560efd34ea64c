/* document.h — the document stage of libjinghua (not installed): a file's
 * bytes → UTF-8 text (encoding.c), a Markdown file's prose (markdown.c),
 * settings per file (config.c), and the pipeline that checks and fixes a
 * document (document.c, behind jh_document_* of jinghua.h). */
#ifndef JH_DOCUMENT_H
#define JH_DOCUMENT_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "jinghua.h"

/* ---- file_read.c, file_write.c: jh_file_* of jinghua.h ---- */
struct jh_file {
	char *data;      /* NUL-terminated, from malloc; NULL once taken */
	size_t len;
	char *path;      /* as given; NULL for standard input */
	int fd;          /* open while reading, else -1 */
	mode_t mode;     /* permission bits */
	int is_regular;
	int changed;     /* its size or times changed while it was read */
	struct stat st;  /* as it was when reading ended (st_ino 0: unknown) */
};
/* Same file, same size, same modification and change times. */
int jh_file_same_version(const struct stat *a, const struct stat *b);
/* Create or replace path with data atomically (a temporary file renamed
 * over it), with this mode and nothing of an old file's (the command
 * line's hooks).  Returns 0, or -1 with errno set. */
int jh_file_write_new(const char *path, const char *data, size_t len, mode_t mode);

/* ---- paths.c: path arithmetic (NULL for want of memory) ---- */
/* "dir/name" (dir may be "" or end in '/'); malloc'd. */
char *jh_path_join(const char *dir, const char *name);
/* Absolute, lexically normalised form of path (no symlinks resolved). */
char *jh_path_absolute(const char *path);

/* ---- encoding.c: bytes in any encoding → UTF-8 text, and back ---- */
typedef struct {
	size_t u8, orig; /* a character boundary in both texts */
} enc_mark;

typedef struct {
	char name[32];      /* "UTF-8", "GB18030", "BIG5", "UTF-16LE", ... */
	int utf8;           /* the text is the file's bytes as they are */
	int lossless;       /* encoding the text again gives the file back (-1: not known yet) */
	char *text;         /* UTF-8; undecodable bytes are 0xFF markers, one per byte */
	size_t len;
	enc_mark *marks;    /* every few characters, for positions */
	size_t n_marks;
	unsigned char *bad; /* the undecodable bytes, in order */
	size_t n_bad;
	const char *src;    /* the file's bytes (not owned) */
	size_t src_len;
	void *cd;           /* iconv converter for positions, opened when first needed */
	const char *detect_problem; /* the encoding was to be detected, but uchardet
	                               could not be loaded: why (static), or NULL */
} decoded;

/* Decode data: BOM, strict UTF-8, else the encoding forced (want, NULL or
 * "auto" = detect with uchardet).  For UTF-8 input text points at data.
 * Returns 0, or JH_ERR_ENCODING (unknown encoding name) or JH_ERR_NOMEM
 * with a message in err. */
int decode_text(const char *data, size_t len, const char *want, decoded *out, char *err,
                size_t errsize);
void decoded_free(decoded *d);
/* Does encoding the text again give the file's bytes back?  1 or 0, or
 * JH_ERR_NOMEM (not known yet). */
int decoded_lossless(decoded *d);
/* "UTF-16LE" or "UTF-16BE" if data reads as UTF-16 text without a BOM. */
const char *utf16_guess(const char *data, size_t len);
/* common_han.c (generated): the most common Han characters, most common
 * first, and traditional forms of them, each before its simplified one. */
extern const char jh_common_han[], jh_common_han_trad[];
/* Offset in the file of UTF-8 offset pos. */
size_t decoded_orig_offset(const decoded *d, size_t pos);
/* Encode UTF-8 text back into the file's encoding (markers become the
 * original undecodable bytes).  Returns 0, or JH_ERR_ENCODING (a
 * character the encoding lacks) or JH_ERR_NOMEM with a message in err. */
int encode_text(const decoded *d, const char *text, size_t len, char **out, size_t *out_len,
                char *err, size_t errsize);

/* ---- config.c: .jinghua.ini, profiles, per-path settings ---- */
typedef jh_doc_type doc_type;
#define TYPE_AUTO JH_DOC_AUTO
#define TYPE_TEXT JH_DOC_TEXT
#define TYPE_MARKDOWN JH_DOC_MARKDOWN

/* one file's settings are the public jh_settings */
typedef jh_settings file_settings;

typedef struct cfg_ctx cfg_ctx;

typedef struct {
	const char *config;          /* --config FILE, or NULL to search */
	int no_config;
	const char **rule_dirs;      /* --rules */
	size_t n_rule_dirs;
	int no_default_rules;
	const char *select, *extend_select, *ignore;
	const char *profile, *variant, *encoding;
	doc_type type;
	int fail_on;                 /* -1 = from the config (default warning) */
	const char *rules_dir;       /* the default rules folder (NULL: jh_rules_dir()) */
	const char *cache_dir;       /* for the rule sets, NULL = none */
} cfg_cli;

cfg_ctx *cfg_new(const cfg_cli *cli);
/* Did reading --config fail (errors already printed)? */
int cfg_failed(const cfg_ctx *c);
void cfg_free(cfg_ctx *c);
/* Settings for a file at path (its folder is searched for .jinghua.ini,
 * then its parents).  Errors are printed with file and line; returns 0,
 * JH_ERR_CONFIG for a configuration error. */
int cfg_settings(cfg_ctx *c, const char *path, const file_settings **out);
/* Is a file found by walking a folder excluded by its config? */
int cfg_excluded(cfg_ctx *c, const char *path);
/* The rule set the command line alone gives (for `rules`, SARIF rules). */
int cfg_base_ruleset(cfg_ctx *c, const jh_ruleset **out);
/* Glob matching with *, ?, [..] and ** (a pattern without '/' matches the
 * base name). */
#define GLOB_MAX 1024 /* the longest glob: a longer one matches nothing */
int glob_match(const char *pattern, const char *path);
/* Where the configuration's errors go (set by the public calls around
 * the internal ones, for the calling thread). */
void cfg_set_diag(jh_diag_fn fn, void *payload);
/* Report a configuration error (file may be NULL, line 0 if unknown). */
void cfg_error(const char *file, unsigned line, const char *fmt, const char *a, const char *b);
/* The same as a warning: the configuration is still used. */
void cfg_warn(const char *file, unsigned line, const char *msg);
/* While a file named by another is read (`extend =`, `profile =`), its
 * problems also name the line that named it: key, file and line of that
 * line, or key NULL when none.  Returns the one it replaces, to restore. */
typedef struct {
	const char *key, *file;
	unsigned line;
} cfg_via;
cfg_via cfg_set_via(cfg_via via);

/* ---- markdown.c: the prose of a Markdown document ---- */
typedef enum { SEG_PROSE, SEG_CODE, SEG_SYNTH } seg_kind;
typedef struct {
	size_t c, t, len; /* offset in the prose text, offset in the document, length */
	seg_kind kind;
} md_seg;

typedef struct {
	char *text; /* prose with markup removed: what the rules see */
	size_t len;
	md_seg *segs;
	size_t n_segs, cap_segs;
	size_t *html; /* ranges of raw HTML in the document, pairs */
	size_t n_html, cap_html;
	/* where Markdown spans (emphasis, strikethrough, links) open and close,
	 * as prose offsets: 2c for an opening, 2c + 1 for a closing, in order */
	size_t *marks;
	size_t n_marks, cap_marks;
	const char *doc; /* the document parsed (not owned) */
	size_t doc_len;
} md_prose;

/* 0, JH_ERR_NOMEM, or -1 when md4c cannot take the document (over 4 GB). */
int markdown_prose(const char *doc, size_t len, md_prose *out);
void md_prose_free(md_prose *m);
/* Map a prose offset to the document; end = 1 prefers the end of the
 * segment before a boundary. */
size_t md_to_doc(const md_prose *m, size_t c, int end);
/* Map a point between two prose segments to the document so that what is
 * inserted there lands outside the markup: after closing markup (</kbd>,
 * a closing **), before opening markup (<kbd>, an opening **).  Returns 0
 * and sets *at, or -1 when no such place is sure (markup of both kinds
 * that cannot be told apart). */
int md_point_to_doc(const md_prose *m, size_t c, size_t *at);
/* Index of the segment that holds prose offset c (the last starting at or before it). */
size_t md_seg_at(const md_prose *m, size_t c);
/* Map a document offset to the prose (the next prose position). */
size_t md_to_prose(const md_prose *m, size_t t);
/* Is a file name Markdown by its extension? */
int is_markdown_name(const char *name);

#endif
