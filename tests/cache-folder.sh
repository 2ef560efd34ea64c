#!/bin/sh
# cache-folder.sh — the cache folder stays bounded (tablecache.c): files are
# named KIND-<source>-<state>.bin; a store removes its source's files of
# earlier states, temporary files left behind, files of the old naming, and
# the files used longest ago while the folder is over its cap
# (JINGHUA_CACHE_MAX, MB); a file modified in the last seconds (another
# process's) and files not named so are never removed; a map refreshes an
# old file's time; processes storing at once leave whole files; and a
# folder that cannot be made is no error.
. "$SRCDIR/tests/lib.sh"

J=$JINGHUA
C=$TMP/cache
R=$TMP/rules
export JINGHUA_CACHE_DIR="$C"
mkdir -p "$R"
cp "$SRCDIR"/rules/*.rules "$R/"
ln -s "$SRCDIR/rules/data" "$R/data"
export JINGHUA_RULES="$R"
printf '他甲乙在次来了，子丨弹丨膛。\n' >"$TMP/a.txt"
run() { "$J" check --format json "$TMP/a.txt" >"$TMP/out" 2>"$TMP/err"; echo $? >>"$TMP/out"; }
count() { ls "$C" | grep -c "^$1" || true; }
old() { touch -d '2 hours ago' "$@"; }

# a first check: every file is named KIND-<16 hex>-<16 hex>.bin
run
cp "$TMP/out" "$TMP/want"
bad=$(ls "$C" | grep -cvE '^[a-z]+-[0-9a-f]{16}-[0-9a-f]{16}\.bin$' || true)
if [ "$bad" -eq 0 ] && [ "$(count rules-)" -eq 1 ]; then pass; else fail "names: $(ls "$C")"; fi

# a rule file edited: its new file replaces the old one (aged past the
# grace period); a sibling written just now (another process's) stays
old "$C"/*
first=$(ls "$C" | grep '^rules-')
young=$(echo "$first" | sed 's/-[0-9a-f]*\.bin$/-0123456789abcdef.bin/')
cp "$C/$first" "$C/$young"
printf '\n# edited\n' >>"$R/layout.rules"
run
if cmp -s "$TMP/out" "$TMP/want"; then pass; else fail "edited rules: other findings"; fi
if [ ! -e "$C/$first" ]; then pass; else fail "the stale rules file stayed"; fi
if [ -e "$C/$young" ]; then pass; else fail "a sibling written just now was removed"; fi
if [ "$(count rules-)" -eq 2 ]; then pass; else fail "rules files: $(ls "$C" | grep rules-)"; fi
rm -f "$C/$young"

# a map refreshes the time of a file older than an hour
old "$C"/*
run
now=$(date +%s)
for f in "$C"/rules-* "$C"/lexicon-* "$C"/chars-*; do
	t=$(stat -c %Y "$f")
	if [ $((now - t)) -lt 600 ]; then pass; else fail "$(basename "$f"): mapped, time not refreshed"; fi
done

# left behind: a temporary file of an hour ago goes, a fresh one stays; a
# file of the old naming goes; a file not named so stays whatever its age
: >"$C/words-0123456789abcdef-0123456789abcdef.bin.Ab12Cd"
: >"$C/words-0123456789abcdef-0123456789abcdef.bin.Xy34Zw"
: >"$C/phrases-0123456789abcdef.bin"
: >"$C/notes.txt"
old "$C/words-0123456789abcdef-0123456789abcdef.bin.Ab12Cd" "$C/phrases-0123456789abcdef.bin" "$C/notes.txt"
printf '\n# edited again\n' >>"$R/layout.rules"
run
for f in words-0123456789abcdef-0123456789abcdef.bin.Ab12Cd phrases-0123456789abcdef.bin; do
	if [ ! -e "$C/$f" ]; then pass; else fail "$f stayed"; fi
done
for f in words-0123456789abcdef-0123456789abcdef.bin.Xy34Zw notes.txt; do
	if [ -e "$C/$f" ]; then pass; else fail "$f was removed"; fi
done

# the cap: with 1 MB, the oldest files go first, the one just written and
# files of the last seconds stay; the check's findings are the same
big() { head -c $((700 * 1024)) /dev/zero >"$C/$1"; }
touch -d '1 hour ago' "$C"/*
big words-00000000000000a1-0000000000000001.bin
big words-00000000000000a2-0000000000000001.bin
big words-00000000000000a3-0000000000000001.bin
touch -d '3 hours ago' "$C/words-00000000000000a1-0000000000000001.bin"
touch -d '2 hours ago' "$C/words-00000000000000a2-0000000000000001.bin"
printf '\n# and again\n' >>"$R/layout.rules"
JINGHUA_CACHE_MAX=1 run
if cmp -s "$TMP/out" "$TMP/want"; then pass; else fail "capped: other findings"; fi
if [ ! -e "$C/words-00000000000000a1-0000000000000001.bin" ] &&
   [ ! -e "$C/words-00000000000000a2-0000000000000001.bin" ]; then pass; else fail "cap: the oldest stayed"; fi
if [ -e "$C/words-00000000000000a3-0000000000000001.bin" ]; then pass; else fail "cap: a file of the last seconds was removed"; fi
if [ "$(count rules-)" -eq 1 ]; then pass; else fail "cap: the file just written was removed"; fi
if [ -e "$C/notes.txt" ]; then pass; else fail "cap: a file not named so was removed"; fi
total=$(du -cb "$C"/*.bin | tail -n 1 | cut -f1)
young=$(stat -c %s "$C/words-00000000000000a3-0000000000000001.bin")
# what is left beyond the cap is the files too young to remove
if [ $((total - young)) -le $((1024 * 1024)) ]; then pass; else fail "cap: $total bytes left"; fi

# 0: no cap
big words-00000000000000b1-0000000000000001.bin
old "$C/words-00000000000000b1-0000000000000001.bin"
printf '\n# once more\n' >>"$R/layout.rules"
JINGHUA_CACHE_MAX=0 run
if [ -e "$C/words-00000000000000b1-0000000000000001.bin" ]; then pass; else fail "no cap: a file was removed"; fi
expect_exit 2 "a bad JINGHUA_CACHE_MAX" -- env JINGHUA_CACHE_MAX=lots "$J" check "$TMP/a.txt"
expect_grep "JINGHUA_CACHE_MAX" "$TMP/err" "a bad JINGHUA_CACHE_MAX is named"

# six processes at once on an empty folder, all storing the same sources:
# the same findings each, one file per source left, whole (a later run
# maps them all and writes nothing: the same inodes)
rm -rf "$C"
for i in 1 2 3 4 5 6; do
	"$J" check --format json "$TMP/a.txt" >"$TMP/par$i" 2>&1 &
done
wait
same=0
for i in 1 2 3 4 5 6; do
	head -n -1 "$TMP/want" | cmp -s - "$TMP/par$i" && same=$((same + 1))
done
if [ "$same" -eq 6 ]; then pass; else fail "parallel stores: $same of 6 runs gave the findings"; fi
if [ "$(count rules-)" -eq 1 ] && [ "$(count lexicon-)" -eq 1 ] && [ "$(count regex-)" -eq 1 ] &&
   ! ls "$C" | grep -q '\.bin\.'; then pass; else fail "parallel stores left: $(ls "$C")"; fi
ls -i "$C" | sort >"$TMP/inodes"
run
ls -i "$C" | sort >"$TMP/inodes2"
if cmp -s "$TMP/inodes" "$TMP/inodes2"; then pass; else fail "after parallel stores a file was rebuilt: $(diff "$TMP/inodes" "$TMP/inodes2")"; fi

# a cache folder that cannot be made: no error, the same findings
: >"$TMP/file"
JINGHUA_CACHE_DIR="$TMP/file/cache" run
if cmp -s "$TMP/out" "$TMP/want" && [ ! -s "$TMP/err" ]; then pass; else
	fail "no cache folder: $(tail -n 1 "$TMP/out"), $(cat "$TMP/err")"; fi

finish
