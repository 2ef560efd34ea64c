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
# Findings that have no fix: each line of tests/data/trust/*.find is
# "input<TAB>rule<TAB>column" (the rule must be reported at that column of
# line 1; rule "-": nothing reported).  A line may start with a BOM (\ufeff).
for f in "$SRCDIR"/tests/data/trust/*.find; do
	n=0
	while IFS=$'\t' read -r input rule col; do
		case $input in '#'* | '') continue ;; esac
		n=$((n + 1))
		printf '%s\n' "$input" | sed 's/\\ufeff/\xef\xbb\xbf/' >"$TMP/in.txt"
		$J check --no-config --fail-on never --format json "$TMP/in.txt" >"$TMP/out.json" 2>"$TMP/err"
		got=$(/usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join("%s@%d" % (x["rule"], x["column"]) for x in d if x["line"] == 1))' "$TMP/out.json")
		if [ "$rule" = - ]; then
			if [ -z "$got" ]; then pass; else fail "$(basename "$f"):$n: '$input' reported $got"; fi
		else
			case " $got " in *" $rule@$col "*) pass ;; *) fail "$(basename "$f"):$n: '$input' gave '$got', expected $rule@$col" ;; esac
		fi
	done <"$f"
done
finish
