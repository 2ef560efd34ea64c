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

finish
