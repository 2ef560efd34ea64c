/* fileio.c — is an input text?  (Reading and writing files is the
 * library's: jh_file_read, jh_file_replace.) */
#include <string.h>
#include "cli.h"

int looks_binary(const char *data, size_t len)
{
	/* UTF-16 and UTF-32 text has NUL bytes: a BOM or a regular pattern of
	 * them says it is text (encoding.c decodes it). */
	if (len >= 2 && ((data[0] == '\xFF' && data[1] == '\xFE') || (data[0] == '\xFE' && data[1] == '\xFF')))
		return 0;
	if (len >= 4 && !data[0] && !data[1] && data[2] == '\xFE' && data[3] == '\xFF')
		return 0;
	/* Text has no NUL bytes; look at the first 8 KB like git and grep do. */
	size_t probe = len < 8192 ? len : 8192;
	if (!memchr(data, '\0', probe))
		return 0;
	return utf16_guess(data, len) == NULL;
}
