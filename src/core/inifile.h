/* inifile.h — inih with the library's options.  Debian's inih keeps
 * its build options in process-wide variables; they are set once, before
 * the first parse, instead of at every rule or config load (two threads
 * loading at once wrote them while the other parsed: a data race). */
#ifndef JH_INIFILE_H
#define JH_INIFILE_H

#include <ini.h>

/* ini_parse_stream with the options set: ';' stays in values (patterns and
 * examples use it), lines up to 16 KB, the buffer grows for long lines. */
int jh_ini_parse_stream(ini_reader reader, void *stream, ini_handler handler, void *user);

#endif
