/* inifile.c — inih's process-wide options, set once (see inifile.h). */
#include <pthread.h>
#include "config.h"
#include "inifile.h"

static pthread_once_t options_once = PTHREAD_ONCE_INIT;

static void set_options(void)
{
#if HAVE_DECL_INI_ALLOW_INLINE_COMMENTS
	ini_allow_inline_comments = 0;
#endif
#if HAVE_DECL_INI_MAX_LINE
	ini_use_stack = 0;
	ini_max_line = 16384;
#endif
#if HAVE_DECL_INI_ALLOW_REALLOC
	/* without it the buffer stays at 200 bytes and a longer line (a long
	 * words = list) came back in pieces, the rest a "syntax error" */
	ini_allow_realloc = 1;
#endif
}

int jh_ini_parse_stream(ini_reader reader, void *stream, ini_handler handler, void *user)
{
	pthread_once(&options_once, set_options);
	return ini_parse_stream(reader, stream, handler, user);
}
