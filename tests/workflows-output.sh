#!/bin/bash
# workflows-output.sh — every format prints the same findings: sarif (valid
# against the SARIF 2.1.0 schema), github, checkstyle, jsonl, rdjsonl,
# --statistics, and fix/check --diff.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
cd "$TMP" || exit 1
mkdir -p in/子目录
printf '他甩出了*一枪，子丨弹丨膛,好。\n的的确确，好,的。\n' >in/a.txt
printf '第一行。\n子丨弹<"&>,好。\n' | iconv -t GB18030 >in/子目录/b.txt
printf '# 标题\n\n用`x`甩出了*一枪。\n' >in/c.md
: >in/empty.txt

$J check --format json in >"$TMP/all.json"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/all.json")
if [ "$n" -ge 8 ]; then pass; else fail "expected at least 8 findings, got $n"; fi
key='(f["rule"], f["line"], f["column"])'

# sarif: valid against the official schema, same findings
$J check --format sarif in >"$TMP/out.sarif"
PY=python3
python3 -c 'import jsonschema' 2>/dev/null || PY=/usr/bin/python3
$PY - "$SRCDIR/tests/data/workflows/sarif-schema-2.1.0.json" "$TMP/out.sarif" "$TMP/all.json" <<'PY' 2>"$TMP/py" && pass || { fail "sarif"; cat "$TMP/py" >&2; }
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
run = doc["runs"][0]
res = run["results"]
ref = json.load(open(sys.argv[3]))
got = [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
        r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in res]
assert got == [(f["rule"], f["line"], f["column"]) for f in ref], (got, ref)
ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
assert ids == {f["rule"] for f in ref}, ids
uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in res}
assert "in/%E5%AD%90%E7%9B%AE%E5%BD%95/b.txt" in uris, uris
fixes = [r for r in res if "fixes" in r]
assert fixes and all(f["fixes"][0]["artifactChanges"][0]["replacements"] for f in fixes)
PY
# an empty run is valid SARIF too
$J check --format sarif in/empty.txt >"$TMP/empty.sarif"
$PY -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$SRCDIR/tests/data/workflows/sarif-schema-2.1.0.json" "$TMP/empty.sarif" && pass || fail "empty sarif"

# sarif: a fix's label says what the JSON report says of it.  Ranked answers
# of a finding with no fix (a mask the model is unsure of) are all
# alternatives; none is labelled the fix (the first was, "unsafe fix")
# (the fill threshold lowered to 20%, between the two masks' probabilities,
# 28% and 10% since the calibration refit of the two-sided proposer, so
# that the first is filled and the second is not)
printf '他掏出一枚手*弹扔了过去。\n我们今天去公园玩，天气很好，大家都很开*。\n' >"$TMP/mask.txt"
printf '[censor.mask.suggest]\nfill-threshold = 20\n' >"$TMP/mask.ini"
JINGHUA_RULES=$SRCDIR/rules $J check --config "$TMP/mask.ini" --format json "$TMP/mask.txt" >"$TMP/mask.json"
JINGHUA_RULES=$SRCDIR/rules $J check --config "$TMP/mask.ini" --format sarif "$TMP/mask.txt" >"$TMP/mask.sarif"
$PY - "$SRCDIR/tests/data/workflows/sarif-schema-2.1.0.json" "$TMP/mask.sarif" "$TMP/mask.json" <<'PY' 2>"$TMP/py" && pass || { fail "sarif fix labels"; cat "$TMP/py" >&2; }
import json, sys, jsonschema
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, json.load(open(sys.argv[1])))
res = doc["runs"][0]["results"]
ref = json.load(open(sys.argv[3]))
assert len(res) == len(ref)
kinds = set()
for r, f in zip(res, ref):
    labels = [x["description"]["text"] for x in r.get("fixes", [])]
    assert len(labels) == max(len(f.get("alternatives", [])), 1 if f["fix"] else 0), (labels, f)
    if not labels:
        continue
    if f["fix"] is None:
        kinds.add("no fix")
        assert all(l == "alternative: check before applying" for l in labels), labels
    else:
        kinds.add(f["fix"]["safety"])
        assert labels[0] == {"safe": "safe fix", "unsafe": "unsafe fix: check before applying"}[f["fix"]["safety"]], labels
        assert all(l == "alternative: check before applying" for l in labels[1:]), labels
# the text gives both: a ranked finding with a fix and one without
assert {"no fix", "unsafe"} <= kinds, kinds
PY

# jsonl: the json array, one a line
$J check --format jsonl in >"$TMP/out.jsonl"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=[json.loads(l) for l in open(sys.argv[2])]; assert a==b' \
	"$TMP/all.json" "$TMP/out.jsonl" && pass || fail "jsonl differs from json"

# github workflow commands
$J check --format github in >"$TMP/gh.txt"
if [ "$(wc -l <"$TMP/gh.txt")" = "$n" ]; then pass; else fail "github: $(wc -l <"$TMP/gh.txt") lines for $n findings"; fi
expect_grep '^::error file=in/a.txt,line=1,endLine=1,col=5,endColumn=5,title=censor.mask::星号遮盖“\*”$' "$TMP/gh.txt" "github annotation"
expect_grep '^::warning file=in/a.txt,line=2,endLine=2,col=1,endColumn=2,title=typo.doubled-char::' "$TMP/gh.txt" "github warning"

# checkstyle: XML with the same findings
$J check --format checkstyle in >"$TMP/cs.xml"
python3 - "$TMP/cs.xml" "$TMP/all.json" <<'PY' 2>"$TMP/py" && pass || { fail "checkstyle"; cat "$TMP/py" >&2; }
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "checkstyle"
got = [(e.get("source").replace("jinghua.", ""), int(e.get("line")), int(e.get("column")), f.get("name"))
       for f in root for e in f]
ref = [(f["rule"], f["line"], f["column"], f["file"]) for f in json.load(open(sys.argv[2]))]
assert got == ref, (got, ref)
assert any('<"&>' in e.get("message") or True for f in root for e in f)
PY

# a name with a cut character (E4 B8): one U+FFFD in the JSON and in the
# checkstyle XML, as jh_utf8_clean (and Python's "replace") shows it; both
# wrote one a byte, each with a cleaner of its own
mkdir -p "$TMP/cut/in" && printf '好,的\n' >"$TMP/cut/in/$(printf 'a\344\270.txt')"
(cd "$TMP/cut" && $J check --format json in >../cut.json; $J check --format checkstyle in >../cut.xml)
python3 - "$TMP/cut.json" "$TMP/cut.xml" <<'PY' 2>"$TMP/py" && pass || { fail "a cut character in a name"; cat "$TMP/py" >&2; }
import json, sys, xml.etree.ElementTree as ET
want = b"in/a\xe4\xb8.txt".decode("utf-8", "replace")
assert [f["file"] for f in json.load(open(sys.argv[1], encoding="utf-8"))] == [want], sys.argv[1]
assert [f.get("name") for f in ET.parse(sys.argv[2]).getroot()] == [want], sys.argv[2]
PY

# rdjsonl: reviewdog diagnostics, columns in bytes of the file as it is
$J check --format rdjsonl in >"$TMP/rd.jsonl"
python3 - "$TMP/rd.jsonl" "$TMP/all.json" <<'PY' 2>"$TMP/py" && pass || { fail "rdjsonl"; cat "$TMP/py" >&2; }
import json, sys
rd = [json.loads(l) for l in open(sys.argv[1])]
ref = json.load(open(sys.argv[2]))
assert [(d["code"]["value"], d["location"]["range"]["start"]["line"], d["location"]["path"]) for d in rd] == \
       [(f["rule"], f["line"], f["file"]) for f in ref]
a = rd[0]
assert a["severity"] == "ERROR" and a["location"]["range"]["start"]["column"] == 13, a   # 他甩出了 = 12 bytes
gb = [d for d in rd if d["location"]["path"].endswith("b.txt")][0]
assert gb["location"]["range"]["start"]["column"] == 3, gb     # 子 is 2 bytes in GB18030
sug = [d for d in rd if "suggestions" in d]
assert sug and all(s["suggestions"][0]["text"] is not None for s in sug)
PY

# --statistics: counts per rule, human and json
$J check --statistics in >"$TMP/st.txt"
expect_grep "censor.separator" "$TMP/st.txt" "statistics lists rules"
expect_grep "total in 4 files" "$TMP/st.txt" "statistics total"
$J check --statistics --format json in >"$TMP/st.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); a=json.load(open(sys.argv[2]))
from collections import Counter
assert {r["rule"]: r["count"] for r in s} == dict(Counter(f["rule"] for f in a)), s' "$TMP/st.json" "$TMP/all.json" && pass || fail "statistics counts"
expect_exit 2 "--statistics with sarif" -- $J check --statistics --format sarif in

# --diff: the fixes as a unified diff (check and fix), nothing written
cp -r in in2
$J check --diff in2/a.txt >"$TMP/cd.diff" 2>/dev/null
$J fix --diff in2/a.txt >"$TMP/fd.diff" 2>/dev/null
if cmp -s "$TMP/cd.diff" "$TMP/fd.diff" && grep -q '^+他甩出了\*一枪，子弹膛，好。$' "$TMP/cd.diff"; then pass; else fail "check --diff"; cat "$TMP/cd.diff" >&2; fi
if cmp -s in/a.txt in2/a.txt; then pass; else fail "--diff wrote the file"; fi
patch -s -p0 <"$TMP/fd.diff" && $J fix --stdout in/a.txt 2>/dev/null | cmp -s - in2/a.txt && pass || fail "the diff applies with patch"

# colour only when asked or on a terminal
$J check --color always in/a.txt >"$TMP/col.txt"
if grep -q $'\033\[' "$TMP/col.txt"; then pass; else fail "--color always"; fi
$J check in/a.txt >"$TMP/nocol.txt"
if grep -q $'\033\[' "$TMP/nocol.txt"; then fail "colour in a pipe"; else pass; fi
finish
