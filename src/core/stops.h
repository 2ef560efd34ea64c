/* stops.h — the stop finder: where the class scan must decode a character
 * in full.  Between stops lie runs of "plain" characters: three-byte
 * sequences whose lead byte (E1-EC, EE-EF) makes any two continuation
 * bytes well-formed UTF-8 (U+1000-U+CFFF, U+E000-U+FFFF: all BMP Han
 * characters and CJK punctuation but U+3000's block leads E3, which is
 * plain too).  The finder validates such runs 16 or 32 bytes at a time
 * (SSE2, or AVX2 when the CPU has it, chosen once at run time), so the
 * scan decodes them without checks; everything else (ASCII, two- and
 * four-byte sequences, E0 and ED leads, invalid bytes) is a stop and goes
 * through the strict decoder.  Hand-written: no Debian library offers a
 * run-length validator of this kind (simdutf validates whole buffers). */
#ifndef JH_STOPS_H
#define JH_STOPS_H

#include <stddef.h>

/* The end of the run of plain characters that starts at i (i itself when
 * the character at i is not plain).  i must be a character boundary. */
size_t jh_plain_end(const unsigned char *t, size_t i, size_t len);

/* The same, by one implementation: 0 portable C, 1 SSE2, 2 AVX2 (the
 * test compares them; one the build or CPU lacks falls back to C). */
size_t jh_plain_end_with(int impl, const unsigned char *t, size_t i, size_t len);

/* Which implementation jh_plain_end uses: the CPU's, chosen once (the
 * UTF-8 validator, utf8_valid.c, goes by it too). */
int jh_plain_impl(void);

#endif
