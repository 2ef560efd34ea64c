#!/bin/bash
# trust.sh — held-out sentences for the classes of issue 19: a safe fix never
# changes meaning or code, an unsafe one is right.  Each file of
# tests/data/trust/ holds lines "input<TAB>expected output"; its first line
# "#! OPTIONS" gives the options of `jinghua fix --stdout`.  Lines are
# fixed one at a time (a line is a document), so document-level checks
# see only their own line.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA

for f in "$SRCDIR"/tests/data/trust/*.txt; do
	read -r -a opts < <(sed -n '1s/^#! //p' "$f")
	n=0
	while IFS=$'\t' read -r input expected; do
		case $input in '#'* | '') continue ;; esac
		n=$((n + 1))
		printf '%s\n' "$input" | sed 's/\\n/\n/g' >"$TMP/in.txt"
		printf '%s\n' "$expected" | sed 's/\\n/\n/g' >"$TMP/exp.txt"
		$J fix --no-config --stdout "${opts[@]}" "$TMP/in.txt" >"$TMP/out.txt" 2>"$TMP/err"
		if cmp -s "$TMP/out.txt" "$TMP/exp.txt"; then pass; else
			fail "$(basename "$f"):$n: '$input' gave '$(cat "$TMP/out.txt")', expected '$expected'"
		fi
	done <"$f"
done
finish
