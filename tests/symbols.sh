#!/bin/sh
# symbols.sh — libjinghua.so exports exactly what src/jinghua.h declares:
# every function of the header (none missing: a program linking it would
# not link), and nothing else (internal jh_ functions stay internal, so
# they can change without breaking programs).  src/jinghua.sym is the list
# libtool exports.
. "$SRCDIR/tests/lib.sh"

so=$(ls "$BUILDDIR"/.libs/libjinghua.so 2>/dev/null)
if [ -z "$so" ]; then
	echo "symbols.sh: no .libs/libjinghua.so (static build?): skipped"
	exit 77
fi
grep -ohE '\bjh_[a-z0-9_]+\(' "$SRCDIR/src/jinghua.h" | tr -d '(' | sort -u >"$TMP/declared"
nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sort -u >"$TMP/exported"
sort -u "$SRCDIR/src/jinghua.sym" >"$TMP/listed"
missing=$(comm -23 "$TMP/declared" "$TMP/exported" | tr '\n' ' ')
extra=$(comm -13 "$TMP/declared" "$TMP/exported" | tr '\n' ' ')
unlisted=$(comm -3 "$TMP/declared" "$TMP/listed" | tr -d '\t' | tr '\n' ' ')
if [ -z "$missing" ]; then pass; else fail "declared in jinghua.h, not exported: $missing"; fi
if [ -z "$extra" ]; then pass; else fail "exported, not declared in jinghua.h: $extra"; fi
if [ -z "$unlisted" ]; then pass; else fail "jinghua.h and jinghua.sym differ: $unlisted"; fi
echo "symbols: $(wc -l <"$TMP/exported") exported, $(wc -l <"$TMP/declared") declared"
finish
