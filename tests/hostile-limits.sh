#!/bin/bash
# hostile-limits.sh — work and memory that must stay bounded, exit codes
# when output fails, and messages that must say what happened (issue 16):
# 100,000 rules load in linear time, the jsonl filter answers every line
# with one line of valid JSON (a line too long too, without holding it) and
# echoes numeric ids as written, devices and FIFOs are not read forever.
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
    else:                                 # beyond 64 bits too (see below)
        assert 'error' not in o and o['id'] == rec.get('id'), (n, o)
        assert ('text' in o) == (sys.argv[3] == 'fix'), o
PY
done

# ---- jsonl: a line too long is answered, not held ---------------------------
# The filter's read of a line had no bound (getline).  A line of more than
# JINGHUA_JSONL_MAX_LINE bytes (default 256 MiB) gets one error line and is
# read to its end and dropped, never held: 100 MB on one line with the
# limit at 1 MB peaks like a small input.
python3 - "$TMP/long.jsonl" >/dev/null <<'PY'
import json, sys
with open(sys.argv[1], 'w') as f:
    f.write(json.dumps({"id": 1, "text": "子丨弹。"}, ensure_ascii=False) + '\n')
    f.write(json.dumps({"id": 2, "text": "甲" * 2000}, ensure_ascii=False) + '\n')
    f.write(json.dumps({"id": 3, "text": "子丨弹。"}, ensure_ascii=False) + '\n')
    four = json.dumps({"id": 4, "text": "甲" * 332}, ensure_ascii=False)
    f.write(four + '\n')                             # at the limit: taken
    f.write(json.dumps({"id": 5, "text": "甲" * 333}, ensure_ascii=False))  # 3 bytes over, no \n
print(len(four.encode()))
PY
limit=$(python3 - <<'PY'
import json
print(len(json.dumps({"id": 4, "text": "甲" * 332}, ensure_ascii=False).encode()))
PY
)
JINGHUA_JSONL_MAX_LINE=$limit $J check --jsonl-filter <"$TMP/long.jsonl" >"$TMP/long.out" 2>"$TMP/err"
rc=$?
python3 - "$TMP/long.out" <<'PY' 2>"$TMP/py" && [ $rc -eq 0 ] && pass || { fail "jsonl: a line over JINGHUA_JSONL_MAX_LINE: exit $rc, not answered by one error line"; cat "$TMP/py" "$TMP/long.out" >&2; }
import json, sys
out = [json.loads(l) for l in open(sys.argv[1], 'rb').read().split(b'\n')[:-1]]
assert len(out) == 5, out
assert [o.get('id') for o in out] == [1, None, 3, 4, None], out
for o, n in ((out[1], 2), (out[4], 5)):
    assert o['line'] == n and 'too long' in o['error'] and 'id' not in o, o
assert all('findings' in out[i] for i in (0, 2, 3)), out
PY
expect_exit 2 "JINGHUA_JSONL_MAX_LINE=abc" -- sh -c "echo '{\"id\":1,\"text\":\"x\"}' | JINGHUA_JSONL_MAX_LINE=abc $J check --jsonl-filter"
if [ -x /usr/bin/time ]; then
	python3 -c '
import sys
sys.stdout.write("{\"id\":1,\"text\":\"" + "甲乙丙丁" * ((100 << 20) // 12) + "\"}\n{\"id\":2,\"text\":\"子丨弹\"}\n")' >"$TMP/huge.jsonl"
	JINGHUA_JSONL_MAX_LINE=1048576 /usr/bin/time -f %M -o "$TMP/rss" $J check --jsonl-filter <"$TMP/huge.jsonl" >"$TMP/huge.out" 2>"$TMP/err"
	rc=$?
	rss=$(tail -n 1 "$TMP/rss")
	if [ $rc -eq 0 ] && [ "$(wc -l <"$TMP/huge.out")" -eq 2 ] && grep -q '"line":1}' "$TMP/huge.out" &&
		grep -q '"id":2,' "$TMP/huge.out" && [ "$rss" -le $((65536 * SLOW)) ]; then pass; else
		fail "jsonl: a 100 MB line over a 1 MB limit: exit $rc, peak $((rss / 1024)) MB (bound $((64 * SLOW)) MB)"
		head -c 300 "$TMP/huge.out" >&2
	fi
	rm -f "$TMP/huge.jsonl" "$TMP/huge.out"
fi

# ---- jsonl: a numeric id comes back as written --------------------------------
# jansson reads a number as a 64-bit integer or a double: 30 digits came
# back as 1.2345678901234568e+29, 0.1 as 0.10000000000000001.  The answer
# repeats the id's token from the line, digit for digit.
printf '%s\n' '{"id":123456789012345678901234567890,"text":"子丨弹"}' '{"text":"a","id":-98765432109876543210987}' \
	'{"id":0.1,"text":"a"}' '{"id":-0.0e-7,"text":"a"}' '{"id":1E5,"text":"a"}' '{"id":12.50,"text":"a"}' \
	'{ "id" : 18446744073709551616 , "text" : "a" }' '{"id":1,"text":"a","id":2E+3}' '{"\u0069d":7.0,"text":"a"}' \
	'{"id":{"id":5},"text":"a","x":[{"id":3}]}' '{"id":99999999999999999999999,"extra":5}' >"$TMP/numid.jsonl"
for mode in check fix; do
	$J $mode --jsonl-filter <"$TMP/numid.jsonl" >"$TMP/numid.out" 2>"$TMP/err"
	rc=$?
	python3 - "$TMP/numid.out" <<'PY' 2>"$TMP/py" && [ $rc -eq 0 ] && pass || { fail "jsonl $mode: numeric ids not echoed as written (exit $rc)"; cat "$TMP/py" "$TMP/numid.out" >&2; }
import json, re, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')[:-1]
for l in lines:
    json.loads(l)                          # each a valid JSON line
ids = [re.match(rb'\{"id":(.*?),"(findings|text|error)"', l).group(1) for l in lines]
want = [b'123456789012345678901234567890', b'-98765432109876543210987', b'0.1', b'-0.0e-7', b'1E5',
        b'12.50', b'18446744073709551616', b'2E+3', b'7.0', b'{"id":5}', b'99999999999999999999999']
assert len(ids) == len(want), (ids, want)
for g, w in zip(ids, want):
    assert g == w, (g, w)
PY
done

# ---- jsonl: a number beyond a double ------------------------------------------
# 1E400 is valid JSON that jansson cannot read (it overflows a double, and a
# 400-digit integer read as a real does too): the line gets one error line
# that says so and names the id, not "invalid JSON"; no id is echoed, and
# the lines around it are answered.  1e-400 (underflow) is read.
python3 - >"$TMP/bigid.jsonl" <<'PY'
print('{"id":1E400,"text":"子丨弹"}')
print('{"id":2,"text":"子丨弹"}')
print('{"text":"a", "id" : -1e999 }')
print('{"id":1' + '0' * 400 + ',"text":"a"}')
print('{"id":3,"text":"a","x":1e400}')
print('{"id":1e-400,"text":"a"}')
print('{"id":1e400,"id":4,"text":"a"}')
print('{"id":5,"text":"a"}')
PY
for mode in check fix; do
	$J $mode --jsonl-filter <"$TMP/bigid.jsonl" >"$TMP/bigid.out" 2>"$TMP/err"
	rc=$?
	python3 - "$TMP/bigid.out" $mode <<'PY' 2>"$TMP/py" && [ $rc -eq 0 ] && pass || { fail "jsonl $mode: a number beyond a double (exit $rc)"; cat "$TMP/py" "$TMP/bigid.out" >&2; }
import json, sys
raw = open(sys.argv[1], 'rb').read().split(b'\n')
assert raw[-1] == b''
out = [json.loads(l) for l in raw[:-1]]
assert len(out) == 8, out
ids = {0: '1E400', 2: '-1e999', 3: '1' + '0' * 39 + '…'}
for i, o in enumerate(out):
    if i in ids:
        assert o == {'error': o['error'], 'line': i + 1}, o
        assert o['error'].startswith('id out of range: ' + ids[i] + ' is more than a double holds'), o
    elif i in (4, 6):                     # not the id that is kept: said as a number
        assert o == {'error': o['error'], 'line': i + 1}, o
        assert o['error'].startswith('number out of range: real number overflow'), o
    else:
        assert 'error' not in o and 'findings' in o, o
assert [raw[i].split(b',')[0] for i in (1, 5, 7)] == [b'{"id":2', b'{"id":1e-400', b'{"id":5'], raw
assert out[1]['fixes'] == 1 if sys.argv[2] == 'fix' else out[1]['findings'], out[1]
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

# ---- unbounded reads: devices, FIFOs, config files that never end -----------
# check /dev/zero grew to 15 GB; a FIFO named in a config hung the open.
for dev in /dev/zero /dev/urandom; do
	timeout 20 $J check "$dev" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 3 ] && grep -q "$dev: a device, not read" "$TMP/err"; then pass; else
		fail "check $dev: exit $rc (expected 3 and 'a device, not read')"; head -3 "$TMP/err" >&2
	fi
done
mkdir "$TMP/fifo" && mkfifo "$TMP/fifo/in" "$TMP/fifo/cfg"
printf '子丨弹，说了。\n' >"$TMP/fifo/t.txt"
# a FIFO named as input is read as a stream, as stdin is
(printf '子丨弹，说了。\n' >"$TMP/fifo/in" &)
timeout 20 $J check -f json "$TMP/fifo/in" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '"censor.separator"' "$TMP/out"; then pass; else
	fail "check FIFO: exit $rc (expected 1 and a finding)"; head -3 "$TMP/err" >&2
fi
# a stream past 1 GiB is refused, not read until memory runs out
if [ "$SLOW" -eq 1 ] && [ -x /usr/bin/time ]; then
	head -c 1200M /dev/zero | /usr/bin/time -f %M -o "$TMP/rss" timeout 60 $J check - >"$TMP/out" 2>"$TMP/err"
	rc=$?
	rss=$(tail -n 1 "$TMP/rss")
	if [ $rc -eq 3 ] && grep -q 'File too large' "$TMP/err" && [ "$rss" -le $((1100 * 1024)) ]; then pass; else
		fail "1.2 GB on stdin: exit $rc, peak $((rss / 1024)) MB (expected 3, 'File too large', at most 1,100 MB)"
		head -3 "$TMP/err" >&2
	fi
fi
for key in "extend = /dev/zero" "extend = cfg" "words-file = /dev/zero" "words-file = cfg" \
	"profile = /dev/zero" "profile = ./cfg"; do
	printf '[jinghua]\nselect = censor\n%s\n' "$key" >"$TMP/fifo/.jinghua.ini"
	timeout 20 $J check "$TMP/fifo/t.txt" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '\.jinghua\.ini:3: error: .*not a regular file' "$TMP/err"; then pass; else
		fail "config '$key': exit $rc (expected 2 and the file, line 3 and 'not a regular file')"
		head -3 "$TMP/err" >&2
	fi
done

# ---- messages that say what happened ------------------------------------------
mkdir "$TMP/msg"
# a refused write is not followed by "1 fix applied"
printf '子丨弹，说了。\n' >"$TMP/msg/ro.txt"
chmod 444 "$TMP/msg/ro.txt"
$J fix "$TMP/msg/ro.txt" >"$TMP/out" 2>"$TMP/err"
if grep -q 'read-only file; not fixed' "$TMP/err" && ! grep -q 'applied' "$TMP/err"; then pass; else
	fail "fix of a read-only file: the refusal and no 'applied'"; cat "$TMP/err" >&2
fi
# a file name of 250 bytes can be fixed: the temporary name is shortened
long=$(printf '名%.0s' $(seq 82))x.txt   # 82 x 3 + 5 = 251 bytes
printf '子丨弹，说了。\n' >"$TMP/msg/$long"
$J fix "$TMP/msg/$long" >"$TMP/out" 2>"$TMP/err"
if grep -q '子弹，说了' "$TMP/msg/$long" && ! ls -a "$TMP/msg" | grep -q 'jinghua-'; then pass; else
	fail "fix of a ${#long}-character file name"; cat "$TMP/err" >&2
fi
# a line over 16 KB is reported on its own line, not the next
python3 -c "print('[jinghua]'); print('words = ' + 'x' * 20000); print('select = censor')" >"$TMP/msg/long.ini"
$J check -c "$TMP/msg/long.ini" "$TMP/msg/ro.txt" >"$TMP/out" 2>"$TMP/err"
expect_grep 'long.ini:2: error: line longer than 16384 bytes' "$TMP/err" "config line over 16 KB"
python3 -c "print('[typo.x]'); print('kind = regex'); print('message = ' + 'x' * 20000); print('pattern = 甲'); print('bad = 甲'); print('good = 乙')" >"$TMP/msg/long.rules"
$J test-rules "$TMP/msg/long.rules" >"$TMP/out" 2>"$TMP/err"
expect_grep 'long.rules:3: error: line longer than 16384 bytes' "$TMP/err" "rule file line over 16 KB"
# a NUL in a config: said, not "Invalid argument"
printf '[jinghua]\nselect = cen\0sor\n' >"$TMP/msg/nul.ini"
expect_exit 2 "config with a NUL" -- $J check -c "$TMP/msg/nul.ini" "$TMP/msg/ro.txt"
expect_grep 'a NUL byte on line 2' "$TMP/err" "config with a NUL"
# a rule id or a key given twice in one file: a warning with both lines
printf '[typo.a]\nkind = regex\nmessage = m\npattern = 甲\npattern = 乙\nbad = 乙\ngood = 丙\n\n[typo.b]\nkind = regex\nmessage = m\npattern = 丁\nbad = 丁\ngood = 丙\n\n[typo.a]\nkind = regex\nmessage = m\npattern = 戊\nbad = 戊\ngood = 丙\n' >"$TMP/msg/dup.rules"
$J test-rules "$TMP/msg/dup.rules" >"$TMP/out" 2>"$TMP/err"
expect_grep "dup.rules:5: warning: \[typo.a\] key 'pattern' given again (first on line 4)" "$TMP/err" "key given twice"
expect_grep 'dup.rules:16: warning: \[typo.a\] rule \[typo.a\] defined again (first on line 1)' "$TMP/err" "rule given twice"
# control bytes of a file name are escaped in human and github output
bad_name=$(printf 'a\033[31mb\rc.txt')
printf '子丨弹，说了。\n' >"$TMP/msg/$bad_name"
for fmt in human github; do
	(cd "$TMP/msg" && $J check --color never -f $fmt "$bad_name") >"$TMP/out" 2>"$TMP/err"
	if grep -q "$(printf '\033')" "$TMP/out" || grep -q "$(printf '\r')" "$TMP/out"; then
		fail "$fmt output: raw control bytes of a file name"
	else pass; fi
	[ $fmt = human ] && expect_grep 'a\\x1B\[31mb\\x0Dc.txt:1:2' "$TMP/out" "human output: the name escaped"
	[ $fmt = github ] && expect_grep 'file=a%1B\[31mb%0Dc.txt,' "$TMP/out" "github output: the name escaped"
done
# ... and in every stderr line naming a file: the fix count, a refusal, a
# binary file, an error (they printed the name raw), with invalid UTF-8
# and a C1 control (CSI) escaped as well
nl_name=$(printf 'e\033]0;x\a\nf\xff\xc2\x9b.txt')
printf '子丨弹，说了。\n' >"$TMP/msg/$nl_name"
printf 'a\0b' >"$TMP/msg/$nl_name.bin"
cp "$TMP/msg/$nl_name" "$TMP/msg/$nl_name.ro" && chmod 444 "$TMP/msg/$nl_name.ro"
(cd "$TMP/msg" && $J fix "$nl_name" "$nl_name.bin" "$nl_name.ro" "$nl_name.missing") >"$TMP/out" 2>"$TMP/err"
python3 - "$TMP/err" <<'PY' && pass || { fail "stderr lines about files: raw bytes of the names"; cat -A "$TMP/err" >&2; }
import sys
err = open(sys.argv[1], 'rb').read()
lines = err.split(b'\n')[:-1]
assert not any(c in err for c in (b'\x1b', b'\x07', b'\xff', b'\xc2\x9b')), err
name = rb'e\x1B]0;x\x07\x0Af\xFF\xC2\x9B.txt'
for what in (b': 1 fix applied', b'.bin: binary file, skipped', b'.ro: read-only file; not fixed',
             b'.missing: No such file or directory'):
    assert b'jinghua: ' + name + what in lines, (what, lines)
PY

# ... and in `hook`'s messages, which name the hook mid-sentence (they
# printed it raw): core.hooksPath may hold any bytes
git init -q "$TMP/hk"
hk_dir=$(printf 'h\033[31mk\xff')
mkdir "$TMP/hk/$hk_dir"
git -C "$TMP/hk" config core.hooksPath "$hk_dir"
(
	cd "$TMP/hk" || exit 1
	$J hook install && $J hook uninstall
	ln -s /nonexistent "$hk_dir/pre-commit" && $J hook install
	rm "$hk_dir/pre-commit" && printf '\177ELF\0' >"$hk_dir/pre-commit"
	touch "$hk_dir/pre-commit.jinghua-chained" && $J hook install
	rm "$hk_dir/pre-commit.jinghua-chained" && $J hook install && $J hook uninstall
	rm "$hk_dir/pre-commit" && mkdir "$hk_dir/pre-commit" && $J hook install
) >"$TMP/out" 2>&1
python3 - "$TMP/out" <<'PY' && pass || { fail "hook messages: raw bytes of the hook's path"; cat -A "$TMP/out" >&2; }
import sys
out = open(sys.argv[1], 'rb').read()
assert not any(c in out for c in (b'\x1b', b'\xff')), out
lines = out.split(b'\n')[:-1]
hook = rb'h\x1B[31mk\xFF/pre-commit'
for want in (b'installed the pre-commit hook in ' + hook, b'removed the hook from ' + hook,
             hook + b' is a symlink', hook + b'.jinghua-chained exists already; not chaining ' + hook,
             b'kept whole as ' + hook + b'.jinghua-chained', b'the chained hook is back',
             hook + b' is not a regular file'):
    assert any(want in l for l in lines), (want, lines)
PY
rm -rf "$TMP/hk"

# --statistics: "fixable" counts safe fixes only, fixes that need --unsafe
# apart; a summary says how many binary files were skipped, not counted
# as checked
printf '这事zf根本不管，子丨弹。\n' >"$TMP/msg/st.txt"
printf 'a\0b' >"$TMP/msg/st.bin"
$J check --statistics "$TMP/msg/st.txt" "$TMP/msg/st.bin" >"$TMP/out" 2>"$TMP/err"
$J check --statistics -f json "$TMP/msg/st.txt" >"$TMP/st.json" 2>/dev/null
$J check -f json "$TMP/msg/st.txt" >"$TMP/all.json" 2>/dev/null
python3 - "$TMP/st.json" "$TMP/all.json" "$TMP/out" <<'PY' && pass || { fail "--statistics: safe and unsafe fixes apart"; cat "$TMP/out" "$TMP/st.json" >&2; }
import json, sys
st = {r["rule"]: r for r in json.load(open(sys.argv[1]))}
for f in json.load(open(sys.argv[2])):
    r = st[f["rule"]]
    fix = f.get("fix")
    want = (1, 0) if fix and fix["safety"] == "safe" else (0, 1) if fix else (0, 0)
    assert (r["fixable"], r["unsafe_fixable"]) == want, (r, f)
assert any(r["unsafe_fixable"] for r in st.values()) and any(r["fixable"] for r in st.values()), st
human = open(sys.argv[3], encoding="utf-8").read()
assert "with --unsafe" in human and "total in 1 file checked, 1 binary file skipped" in human, human
PY
$J check "$TMP/msg/st.txt" "$TMP/msg/st.bin" >"$TMP/out" 2>"$TMP/err"
expect_grep 'in 1 file checked, 1 binary file skipped$' "$TMP/out" "summary: binary files skipped apart"

finish
