#!/bin/bash
# hostile-limits.sh — work and memory that must stay bounded, exit codes
# when output fails, and messages that must say what happened (issue 16):
# 100,000 rules load in linear time, the jsonl filter answers every line
# with one line of valid JSON, devices and FIFOs are not read forever.
# Every case checks what must hold, so each can fail.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA

# Sanitizer builds are slower: CPU bounds scale with them.
SLOW=1
if ldd "$J" 2>/dev/null | grep -q 'libasan\|libubsan\|libtsan'; then SLOW=4; fi

# ---- 100,000 rules load in linear time ---------------------------------------
# Each new id was compared with every id before it: 10,000 rules loaded in
# 0.6 s, 100,000 in about a minute.  A CPU-time bound 20 times what the
# load takes now (0.4 s) fails the quadratic load by far.
mkdir "$TMP/many-rules"
python3 - "$TMP/many-rules/gen.rules" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(100000):
        f.write('[typo.gen%d]\nkind = regex\nmessage = m\npattern = 甲%d乙\nbad = 甲%d乙\ngood = 甲乙\n\n' % (i, i, i))
PY
printf '甲99999乙\n' >"$TMP/many-rules.txt"
( ulimit -t $((10 * SLOW)); $J check -q --no-default-rules -r "$TMP/many-rules" -f json "$TMP/many-rules.txt" >"$TMP/out" 2>"$TMP/err" )
rc=$?
if [ $rc -eq 1 ] && grep -q '"typo.gen99999"' "$TMP/out"; then pass; else
	fail "100,000 rules: exit $rc (expected 1 and a typo.gen99999 finding within $((10 * SLOW)) CPU seconds)"
	head -5 "$TMP/err" >&2
fi
rm -rf "$TMP/many-rules"

# ---- jsonl: every line one line of valid JSON --------------------------------
# Ids of every JSON type, ids that are not JSON (1true, 01, 1.2.3, -), a raw
# \xff, a raw NUL (which glued two answers into one line), a line that is
# not an object, an object without a text, \u0000 in the text and the id.
printf '%s\n' '{"id":1true,"text":"a"}' '{"id":01,"text":"a"}' '{"id":1.2.3,"text":"a"}' \
	'{"id":-,"text":"a"}' '{"id":[1,{"a":null}],"text":"子丨弹。"}' '{"id":12345678901234567890,"text":"x"}' \
	'[1]' '{"id":5}' '' '{"id":"\u0000","text":"甲\u0000子丨弹。"}' '{"id":0.1,"text":"x","type":"markdown"}' \
	'{"id":true,"text":"甲"}' '{"id":{"k":"v"},"text":"甲"}' >"$TMP/ids.jsonl"
printf '{"id":"\xff","text":"a"}\n{"id":"a\0b","text":"a"}{"id":2,"text":"b"}\n\xff\xfe\n' >>"$TMP/ids.jsonl"
for mode in check fix; do
	$J $mode --jsonl-filter <"$TMP/ids.jsonl" >"$TMP/ids.out" 2>"$TMP/err"
	rc=$?
	python3 - "$TMP/ids.jsonl" "$TMP/ids.out" "$mode" <<'PY' 2>"$TMP/py" && [ $rc -eq 0 ] && pass || { fail "jsonl $mode: exit $rc, not one valid JSON line for each line"; cat "$TMP/py" >&2; }
import json, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')[:-1]
out = open(sys.argv[2], 'rb').read().split(b'\n')
assert out[-1] == b'', 'last line not terminated'
out = [json.loads(l) for l in out[:-1]]   # raises on a line that is not JSON
want = [(n + 1, l) for n, l in enumerate(lines) if l.strip()]
assert len(out) == len(want), (len(out), len(want))
for o, (n, l) in zip(out, want):
    assert isinstance(o, dict), o
    try:
        rec = json.loads(l)
    except Exception:
        rec = None
    if not isinstance(rec, dict):         # not an object: error and line, no id
        assert 'error' in o and o['line'] == n and 'id' not in o, (n, o)
    elif not isinstance(rec.get('text'), str):
        assert 'error' in o and o['line'] == n and o['id'] == rec.get('id'), (n, o)
    else:                                 # beyond 64 bits an integer is read as a real
        same = o['id'] == rec.get('id') or (isinstance(rec['id'], int) and float(rec['id']) == o['id'])
        assert 'error' not in o and same, (n, o)
        assert ('text' in o) == (sys.argv[3] == 'fix'), o
PY
done

# ---- jsonl: one big record in memory proportional to its text ----------------
# A 16 MB record dense with findings (a separator every 60 bytes): the
# answer (about 95 MB of findings) is written as it is made, not held whole.
# Bound: 5 x the record + 64 MB (check held 13 x the record before).
python3 - "$TMP/big.jsonl" <<'PY'
import json, sys
unit = '他们沿着河岸走了很久，谁也没有说话。子丨弹'
text = unit * ((16 << 20) // len(unit.encode()))
with open(sys.argv[1], 'w') as f:
    f.write(json.dumps({"id": "big", "text": text}, ensure_ascii=False) + '\n')
PY
size_kb=$(($(stat -c %s "$TMP/big.jsonl") / 1024))
if [ -x /usr/bin/time ]; then
	for mode in check fix; do
		/usr/bin/time -f %M -o "$TMP/rss" $J $mode --jsonl-filter <"$TMP/big.jsonl" >"$TMP/big.out" 2>"$TMP/err"
		rc=$?
		rss=$(tail -n 1 "$TMP/rss")
		lines=$(wc -l <"$TMP/big.out")
		if [ $rc -eq 0 ] && [ "$lines" -eq 1 ] && [ "$rss" -le $(((5 * size_kb + 65536) * SLOW)) ]; then pass; else
			fail "jsonl $mode of a $((size_kb / 1024)) MB record: exit $rc, $lines lines, peak $((rss / 1024)) MB (bound $(((5 * size_kb + 65536) * SLOW / 1024)) MB)"
		fi
	done
fi
rm -f "$TMP/big.jsonl" "$TMP/big.out"

# ---- exit codes: output that does not reach stdout is an error -------------
printf '子丨弹。\n' >"$TMP/one.txt"
for cmd in "rules" "rules --ids" "--help" "-V" "rules --explain layout.tab" "test-rules" \
	"check -f json $TMP/one.txt" "check $TMP/one.txt" "fix --stdout $TMP/one.txt"; do
	# shellcheck disable=SC2086
	$J $cmd >/dev/full 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 3 ] && grep -q 'cannot write to standard output' "$TMP/err"; then pass; else
		fail "jinghua $cmd >/dev/full: exit $rc (expected 3 and a message)"
		head -3 "$TMP/err" >&2
	fi
done
expect_exit 3 "jsonl filter >/dev/full" -- sh -c "printf '{\"id\":1,\"text\":\"x\"}\n' | $J check --jsonl-filter >/dev/full"
for sel in "--select=" "--select=," "-s ,, "; do
	# shellcheck disable=SC2086
	expect_exit 2 "check $sel" -- $J check $sel "$TMP/one.txt"
	expect_grep 'no rule selected' "$TMP/err" "check $sel"
done

finish
