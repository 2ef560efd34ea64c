/* inifile.c — inih over a text in memory with line numbers and inih's
 * process-wide options set once (see inifile.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "config.h"
#include "inifile.h"
#include "util.h"

static pthread_once_t options_once = PTHREAD_ONCE_INIT;

static void set_options(void)
{
#if HAVE_DECL_INI_ALLOW_INLINE_COMMENTS
	ini_allow_inline_comments = 0;
#endif
#if HAVE_DECL_INI_MAX_LINE
	ini_use_stack = 0;
	ini_max_line = JH_INI_MAX_LINE;
#endif
#if HAVE_DECL_INI_ALLOW_REALLOC
	/* without it the buffer stays at 200 bytes and a longer line (a long
	 * words = list) came back in pieces, the rest a "syntax error" */
	ini_allow_realloc = 1;
#endif
}

/* inih's reader: the next line (or as much of it as fits in str).  One
 * memchr and memcpy a line: a byte at a time, this was 2 M instructions
 * of each start. */
static char *reader(char *str, int num, void *stream)
{
	jh_ini_text *in = stream;
	if (in->pos >= in->len || num < 2)
		return NULL;
	const char *s = in->text + in->pos;
	if (in->at_start) {
		in->line++;
		in->cont = s[0] == ' ' || s[0] == '\t';
		size_t k = 0;
		while (s[k] == ' ' || s[k] == '\t')
			k++;
		if (s[k] == '[' && !in->cont) { /* an indented [ continues a value */
			in->section_line = in->line;
			in->n_keys = 0;
		}
	}
	size_t room = (size_t)num - 1, n = in->len - in->pos;
	if (n > room)
		n = room;
	const char *nl = memchr(s, '\n', n);
	if (nl)
		n = (size_t)(nl - s) + 1;
	memcpy(str, s, n);
	str[n] = '\0';
	in->pos += n;
	/* inih takes the rest of a line longer than its buffer for the next
	 * line, and counts it so: the error belongs to this one */
	if (n == room && str[n - 1] != '\n' && in->pos < in->len && !in->long_line)
		in->long_line = in->line;
	in->at_start = str[n - 1] == '\n';
	return str;
}

int jh_ini_parse_text(jh_ini_text *in, const char *text, ini_handler handler, void *user,
                      int *too_long)
{
	memset(in, 0, sizeof *in);
	in->text = text;
	in->len = strlen(text);
	in->at_start = 1;
	pthread_once(&options_once, set_options);
	int rc = ini_parse_stream(reader, in, handler, user);
	*too_long = rc > 0 && in->long_line && in->long_line < (unsigned)rc;
	if (*too_long)
		rc = (int)in->long_line;
	return rc;
}

unsigned jh_ini_repeat(jh_ini_text *in, const char *key)
{
	for (unsigned i = 0; i < in->n_keys; i++)
		if (!strcmp(in->keys[i].key, key)) {
			unsigned before = in->keys[i].line;
			in->keys[i].line = in->line;
			return before;
		}
	if (in->n_keys < sizeof in->keys / sizeof *in->keys) {
		jh_copy_str(in->keys[in->n_keys].key, sizeof in->keys[0].key, key);
		in->keys[in->n_keys++].line = in->line;
	}
	return 0;
}

int jh_ini_bool(const char *v, int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}
