#!/bin/bash
# workflows-bulk.sh — many files on one machine (-j N: same output in the
# same order as -j 1, a progress line only where asked) and many documents
# on a cluster (--jsonl-filter, driven here by GNU parallel: every id comes
# back exactly once, fixed).
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
cd "$TMP" || exit 1

# 1. -j N: output identical to -j 1, whatever finishes first
mkdir -p many
python3 - many <<'PY'
import os, random, sys
random.seed(7)
for i in range(300):
    n = random.choice([1, 5, 50, 600])      # mixed sizes so threads finish out of order
    lines = []
    for k in range(n):
        lines.append(random.choice(["他甩出了*一枪，好。", "子丨弹丨膛,好。", "干净的一句话。", "的的确确。"]))
    open(os.path.join(sys.argv[1], "f%03d.txt" % i), "w").write("\n".join(lines) + "\n")
PY
for fmt in human json sarif; do
	$J check -j 1 --format $fmt many >"$TMP/j1.$fmt" 2>"$TMP/j1.err"
	$J check -j 4 --format $fmt many >"$TMP/j4.$fmt" 2>"$TMP/j4.err"
	if cmp -s "$TMP/j1.$fmt" "$TMP/j4.$fmt"; then pass; else fail "-j 4 --format $fmt differs from -j 1"; fi
done
expect_exit 1 "-j 0 means every core" -- $J check -j 0 --format json many
expect_exit 2 "-j with a bad number" -- $J check -j lots many
cp -r many many4
$J fix -q -j 1 many >/dev/null 2>&1
$J fix -q -j 4 many4 >/dev/null 2>&1
if diff -r many many4 >/dev/null; then pass; else fail "fix -j 4 differs from -j 1"; fi
# no progress line in a pipe; --progress asks for one
$J check -j 2 many4 >/dev/null 2>"$TMP/noprog"
if grep -q 'MB/s' "$TMP/noprog"; then fail "progress line without a terminal"; else pass; fi
JINGHUA_PROGRESS_DELAY=0 $J check -j 2 --progress many4 >/dev/null 2>"$TMP/prog"
expect_grep 'jinghua: [0-9]*/300 files, .* MB, .* MB/s, [0-9]* findings' "$TMP/prog" "--progress line"

# 2. --jsonl-filter: one line in, one line out
python3 - >"$TMP/docs.jsonl" <<'PY'
import json
for i in range(5000):
    doc = {"id": "doc-%d" % i if i % 3 else i, "text": "第%d章。他把子丨弹丨膛,压满了。" % i}
    if i % 7 == 0:
        doc["meta"] = {"source": "x", "tags": [1, 2, {"a": None}]}
    print(json.dumps(doc, ensure_ascii=(i % 2 == 0)))
PY
$J fix --jsonl-filter -j 2 <"$TMP/docs.jsonl" >"$TMP/one.jsonl"
python3 - "$TMP/docs.jsonl" "$TMP/one.jsonl" <<'PY' 2>"$TMP/py" && pass || { fail "jsonl filter"; cat "$TMP/py" >&2; }
import json, sys
inp = [json.loads(l) for l in open(sys.argv[1])]
out = [json.loads(l) for l in open(sys.argv[2])]
assert [d["id"] for d in out] == [d["id"] for d in inp]       # same order, one for one
for o in out:
    assert "丨" not in o["text"] and "，压满了" in o["text"], o
    assert o["fixes"] == 3 and o["findings"] == [], o
PY
# the same through GNU parallel, in blocks, several processes at once
if command -v parallel >/dev/null; then
	parallel --will-cite --pipe --block 20k -j 4 "$J fix --jsonl-filter" <"$TMP/docs.jsonl" >"$TMP/par.jsonl" 2>"$TMP/par.err"
	python3 - "$TMP/docs.jsonl" "$TMP/par.jsonl" <<'PY' 2>"$TMP/py" && pass || { fail "GNU parallel"; cat "$TMP/py" "$TMP/par.err" >&2; }
import json, sys
from collections import Counter
ids = [json.loads(l)["id"] for l in open(sys.argv[1])]
out = [json.loads(l) for l in open(sys.argv[2])]
c = Counter(json.dumps(o["id"]) for o in out)
assert len(out) == len(ids), (len(out), len(ids))
assert set(c) == {json.dumps(i) for i in ids} and max(c.values()) == 1
assert all("丨" not in o["text"] for o in out)
PY
else
	fail "GNU parallel missing (tools/install-deps installs it)"
fi
# check mode: findings only; bad lines answered in place
printf '{"id":1,"text":"甩出了*一枪"}\nnot json\n{"id":[2,3],"text":"好,的","type":"markdown"}\n{"text":"没有 id"}\n{"id":4}\n\n{"id":"u","text":"\\ud83d\\ude00子丨弹"}\n' |
	$J check --jsonl-filter >"$TMP/chk.jsonl"
expect_exit 0 "jsonl: findings do not fail the filter" -- sh -c "printf '{\"id\":1,\"text\":\"甩出了*一枪\"}\n' | $J check --jsonl-filter"
python3 - "$TMP/chk.jsonl" <<'PY' 2>"$TMP/py" && pass || { fail "jsonl check mode"; cat "$TMP/py" "$TMP/chk.jsonl" >&2; }
import json, sys
out = [json.loads(l) for l in open(sys.argv[1])]
assert len(out) == 6, out                      # the blank line carries no record
assert out[0]["id"] == 1 and out[0]["findings"][0]["rule"] == "censor.mask" and "text" not in out[0]
assert "id" not in out[1] and "error" in out[1] and out[1]["line"] == 2, out[1]
assert out[2]["id"] == [2, 3] and out[2]["findings"][0]["rule"] == "punct.comma"
assert out[3]["id"] is None and out[3]["findings"] == []
assert out[4]["id"] == 4 and "error" in out[4] and out[4]["line"] == 5, out[4]
assert out[5]["findings"][0]["column"] == 3 and out[5]["findings"][0]["byte_start"] == 7, out[5]
PY
expect_exit 2 "--jsonl-filter takes no paths" -- $J check --jsonl-filter many
finish
