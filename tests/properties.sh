#!/bin/bash
# properties.sh — what must hold for any input: fixing is idempotent, a file
# with nothing to fix is not rewritten, bad input is reported, never lost.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA

# 1. fix(fix(x)) == fix(x), safe and unsafe, on every sample
for f in "$SRCDIR"/corpus-samples/*.txt; do
	for mode in "" --unsafe; do
		$J fix $mode --stdout "$f" >"$TMP/once" 2>/dev/null
		$J fix $mode --stdout "$TMP/once" >"$TMP/twice" 2>/dev/null
		if cmp -s "$TMP/once" "$TMP/twice"; then pass; else
			fail "fix $mode not idempotent on $(basename "$f")"
			diff "$TMP/once" "$TMP/twice" | head -10 >&2
		fi
	done
done

# 2. a fixed file is not rewritten again (same inode, same mtime)
cp "$SRCDIR/corpus-samples/003_60affdcbf11d6482.txt" "$TMP/novel.txt"
chmod 640 "$TMP/novel.txt"
ino0=$(stat -c %i "$TMP/novel.txt")
$J fix -q "$TMP/novel.txt" >/dev/null 2>&1
ino1=$(stat -c %i "$TMP/novel.txt")
mode1=$(stat -c %a "$TMP/novel.txt")
if [ "$ino0" != "$ino1" ]; then pass; else fail "fix did not replace a file that had fixes"; fi
if [ "$mode1" = 640 ]; then pass; else fail "fix changed the file mode to $mode1"; fi
touch -d '2020-01-01 00:00' "$TMP/novel.txt"
m0=$(stat -c %Y "$TMP/novel.txt")
$J fix -q "$TMP/novel.txt" >/dev/null 2>&1
if [ "$(stat -c %i "$TMP/novel.txt")" = "$ino1" ] && [ "$(stat -c %Y "$TMP/novel.txt")" = "$m0" ]; then pass; else
	fail "a file with nothing left to fix was rewritten"
fi
if ls -a "$TMP" | grep -q 'jinghua-'; then fail "temporary file left behind"; else pass; fi

# 3. invalid UTF-8: reported with its byte offset, kept byte for byte by fix
printf '第一句话。\xff\xfe第二句话，子丨弹。\n' >"$TMP/bad.txt"
$J check --format json "$TMP/bad.txt" >"$TMP/bad.json" 2>&1
expect_grep '"rule":"encoding.invalid-utf8"' "$TMP/bad.json" "invalid UTF-8 reported"
expect_grep '"byte_start":15,"byte_end":17' "$TMP/bad.json" "invalid UTF-8 byte offsets"
$J fix --stdout "$TMP/bad.txt" >"$TMP/bad.fixed" 2>/dev/null
if grep -q $'\xff\xfe' "$TMP/bad.fixed" && grep -q '子弹' "$TMP/bad.fixed"; then pass; else
	fail "fix lost invalid bytes or did not fix around them"
fi

# 4. empty file: clean, and fix leaves it alone
: >"$TMP/empty.txt"
expect_exit 0 "empty file is clean" -- $J check "$TMP/empty.txt"
$J fix --stdout "$TMP/empty.txt" >"$TMP/empty.out" 2>/dev/null
if [ ! -s "$TMP/empty.out" ]; then pass; else fail "fix of an empty file produced output"; fi

# 5. binary file: skipped with a note, not an error
printf 'PK\003\004\000\000binary\000data' >"$TMP/archive.zip"
expect_exit 0 "binary file skipped" -- $J check "$TMP/archive.zip"
expect_grep "binary file, skipped" "$TMP/err" "binary file note"

# 6. no final newline stays without one; CRLF stays CRLF; BOM stays
printf '他说:好的。你呢?' >"$TMP/nonl.txt"
$J fix --stdout "$TMP/nonl.txt" >"$TMP/nonl.out" 2>/dev/null
if [ "$(tail -c 1 "$TMP/nonl.out" | od -An -c | tr -d ' ')" != '\n' ] && [ -s "$TMP/nonl.out" ]; then pass; else
	fail "fix added a final newline"
fi
printf '子丨弹丨膛。\r\n他说，  好。\r\n第二行\r\n' >"$TMP/crlf.txt"
$J fix --stdout "$TMP/crlf.txt" >"$TMP/crlf.out" 2>/dev/null
if [ "$(grep -c $'\r$' "$TMP/crlf.out")" = 3 ] && grep -q '子弹膛' "$TMP/crlf.out"; then pass; else
	fail "CRLF line endings not kept"; od -c "$TMP/crlf.out" | head >&2
fi
printf '\xef\xbb\xbf子丨弹丨膛。\n' >"$TMP/bom.txt"
$J fix --stdout "$TMP/bom.txt" >"$TMP/bom.out" 2>/dev/null
if [ "$(head -c 3 "$TMP/bom.out" | od -An -tx1 | tr -d ' ')" = efbbbf ] && grep -q '子弹膛' "$TMP/bom.out"; then pass; else
	fail "BOM not kept"
fi
$J check --format json "$TMP/bom.txt" >"$TMP/bom.json" 2>&1
if grep -q 'zero-width' "$TMP/bom.json"; then fail "a leading BOM was reported"; else pass; fi

# 7. a huge line (8 MB, no line break) is checked and fixed in one go
python3 - "$TMP/huge.txt" <<'PY'
import sys
open(sys.argv[1], 'w', encoding='utf-8').write('他们说的话很长' * 400000 + '子丨弹' + '。')
PY
expect_exit 1 "huge line checked" -- $J check --format json "$TMP/huge.txt"
expect_grep '"column":2800002' "$TMP/out" "column on a huge line"

# 9. typo.name-drift counts a long file in blocks of about 1 MB (bounded
# memory): a chapter with a drifted name is judged the same at the end of
# 2.6 MB of other text as on its own
for k in $(seq 350); do cat "$SRCDIR/corpus-samples/003_60affdcbf11d6482.txt"; done >"$TMP/long.txt"
cat "$SRCDIR/corpus-samples/001_a29c47f7ce22fee1.txt" >>"$TMP/long.txt"
$J check --select typo.name-drift --format json "$SRCDIR/corpus-samples/001_a29c47f7ce22fee1.txt" >"$TMP/alone.json" 2>/dev/null
$J check --select typo.name-drift --format json "$TMP/long.txt" >"$TMP/long.json" 2>/dev/null
alone=$(grep -o '"rule":"typo.name-drift"' "$TMP/alone.json" | wc -l)
long=$(grep -o '"rule":"typo.name-drift"' "$TMP/long.json" | wc -l)
if [ "$alone" -ge 1 ] && [ "$alone" = "$long" ]; then pass; else
	fail "name drift in the last block of a long file: $long findings, $alone alone"; fi
expect_grep '段興買' "$TMP/long.json" "the drifted name found at the end of a long file"

finish
