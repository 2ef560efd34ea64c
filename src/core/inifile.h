/* inifile.h — inih with the library's options, over a text in memory,
 * counting lines.  Debian's inih keeps its build options in process-wide
 * variables; they are set once, before the first parse, instead of at
 * every rule or config load (two threads loading at once wrote them while
 * the other parsed: a data race).  Its handler gets no line number (unless
 * built with INI_HANDLER_LINENO, which Debian's is not): the reader here
 * counts them, for the rule files and the configuration files alike. */
#ifndef JH_INIFILE_H
#define JH_INIFILE_H

#include <ini.h>

#define JH_INI_MAX_LINE 16384

/* Where the reader is in the text; the handler reads line and cont. */
typedef struct {
	const char *text;      /* NUL-terminated */
	size_t len;            /* strlen(text) */
	size_t pos;
	unsigned line;         /* 1-based line being read */
	unsigned section_line; /* line of the last [section] header */
	unsigned long_line;    /* first line longer than inih's buffer, or 0 */
	int at_start;          /* the next read starts a line */
	int cont;              /* the current line starts with a blank: a continuation */
	/* the keys of the current section and their lines (see jh_ini_repeat) */
	struct {
		char key[32];
		unsigned line;
	} keys[32];
	unsigned n_keys;
} jh_ini_text;

/* Parse text with handler(user, ...), options set: ';' stays in values
 * (patterns and examples use it), lines up to JH_INI_MAX_LINE, the buffer
 * grows for long lines.  Returns inih's result: 0, -2 for want of memory,
 * or the first line inih could not read; then *too_long says whether it
 * is one longer than JH_INI_MAX_LINE (whose error belongs to the line
 * returned, inih counts its rest as the next). */
int jh_ini_parse_text(jh_ini_text *in, const char *text, ini_handler handler, void *user,
                      int *too_long);

/* The key was given before in the current section: the line of its last
 * time (which becomes this line), or 0 the first time.  A section starts
 * afresh at each [header]. */
unsigned jh_ini_repeat(jh_ini_text *in, const char *key);

/* A true/false value as rule and config files spell it (true yes on 1,
 * false no off 0): 0 with *out set, or -1. */
int jh_ini_bool(const char *v, int *out);

#endif
