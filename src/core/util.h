/* util.h — every small helper of core/ at once, for the stages that use
 * several: each lives in a file of its own (buf, diag, arena, strset,
 * hash, datafile, lazy, shared, text), included here. */
#ifndef JH_UTIL_H
#define JH_UTIL_H

#include "arena.h"
#include "buf.h"
#include "datafile.h"
#include "diag.h"
#include "hash.h"
#include "lazy.h"
#include "shared.h"
#include "strset.h"
#include "text.h"

#endif
