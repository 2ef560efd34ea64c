#!/bin/bash
# golden.sh — the corpus samples: findings (JSON) and fixed text must equal
# the expected files in corpus-samples/.expected/ exactly.
# `tests/golden.sh --update` (with JINGHUA/SRCDIR set) rewrites them; read
# the diff before committing: every finding must be a real defect.
. "$(dirname "$0")/lib.sh"
update=${1:-}
cd "$SRCDIR/corpus-samples" || exit 1
for f in *.txt; do
	name=${f%.txt}
	"$JINGHUA" check --format json "$f" >"$TMP/$name.json" 2>"$TMP/$name.err"
	rc=$?
	if [ "$rc" -gt 1 ]; then fail "$f: check exited $rc"; cat "$TMP/$name.err" >&2; continue; fi
	"$JINGHUA" fix --stdout "$f" >"$TMP/$name.fixed.txt" 2>/dev/null
	if [ "$update" = --update ]; then
		cp "$TMP/$name.json" ".expected/$name.json"
		cp "$TMP/$name.fixed.txt" ".expected/$name.fixed.txt"
		continue
	fi
	if cmp -s "$TMP/$name.json" ".expected/$name.json"; then pass; else
		fail "$f: findings differ from .expected/$name.json"
		diff -u ".expected/$name.json" "$TMP/$name.json" | head -40 >&2
	fi
	if cmp -s "$TMP/$name.fixed.txt" ".expected/$name.fixed.txt"; then pass; else
		fail "$f: fixed text differs from .expected/$name.fixed.txt"
		diff -u ".expected/$name.fixed.txt" "$TMP/$name.fixed.txt" | head -40 >&2
	fi
done
finish
