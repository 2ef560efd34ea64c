#!/bin/bash
# dataloss.sh — the ways a fix or a hook install once lost a user's bytes,
# each made again: a UTF-8 file with one stray Latin-1 byte, a pre-commit
# hook that is not a shell script, a filter given a binary document, a
# file with an ACL and extended attributes, staged names that git reads as
# revisions, a space before an invalid byte, a signal or a file size limit
# in the middle of a write, a file with several hard links.  Every case checks what must hold.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
SPAN="/usr/bin/python3 $SRCDIR/tests/span-check.py"

# 1. Mostly UTF-8 with stray bytes: decoded as UTF-8, and a fix changes only
# bytes inside its findings' spans (never inside a valid character).
# Samples whose safe fixes settle in one round, so that the findings of the
# file as read are the spans of every edit.
/usr/bin/python3 - "$TMP" "$SRCDIR" <<'PY'
import os, random, sys
tmp, src = sys.argv[1], sys.argv[2]
rnd = random.Random(7)
def put(name, data):
    open(os.path.join(tmp, name + '.txt'), 'wb').write(data)
for s in ['000_a5949cc1b610da24', '001_a29c47f7ce22fee1', '002_39197a4f12f91164',
          '004_dbde7f81f1fb45be', 'censor-novel-artifacts']:
    body = open(os.path.join(src, 'corpus-samples', s + '.txt'), 'rb').read()
    put('latin-' + s[:3], 'Café au lait, crème brûlée'.encode('latin-1') + b'\n' + body)
    # stray bytes at random places between characters
    chars = body.decode()
    out, last = [], 0
    for c in sorted(rnd.randrange(len(chars)) for _ in range(12)):
        out += [chars[last:c].encode(), bytes([rnd.choice([0xe9, 0xa0, 0x85, 0xff, 0xc3])])]
        last = c
    put('stray-' + s[:3], b''.join(out) + chars[last:].encode())
put('latin-short', b'Caf\xe9 ' + '菜单\n'.encode())
put('latin-ten', b'na\xefve r\xe9sum\xe9\n' + '他把子丨弹压进了枪膛。\n'.encode() * 10)
PY
for f in $(cd "$TMP" && ls latin-*.txt stray-*.txt | sed 's/\.txt$//'); do
	cp "$TMP/$f.txt" "$TMP/$f.orig"
	$J check --format json "$TMP/$f.txt" >"$TMP/$f.json"
	$J fix --stdout "$TMP/$f.txt" >"$TMP/$f.out" 2>/dev/null
	if $SPAN --utf8 "$TMP/$f.orig" "$TMP/$f.json" "$TMP/$f.out"; then pass; else fail "$f: fix went outside its spans"; fi
	$J fix -q "$TMP/$f.txt" >/dev/null 2>&1
	if cmp -s "$TMP/$f.txt" "$TMP/$f.out"; then pass; else fail "$f: fix in place differs from --stdout"; fi
	# every invalid byte is kept, and is reported
	if /usr/bin/python3 -c "import sys; a=open(sys.argv[1],'rb').read(); b=open(sys.argv[2],'rb').read(); sys.exit(a.decode('utf-8','replace').count('\ufffd') != b.decode('utf-8','replace').count('\ufffd'))" "$TMP/$f.orig" "$TMP/$f.out"; then pass; else fail "$f: invalid bytes not kept"; fi
	expect_grep 'encoding.invalid-utf8' "$TMP/$f.json" "$f: invalid bytes reported"
	# the file is UTF-8 already: --to-utf8 writes what fix writes (no mojibake)
	$J fix --to-utf8 --stdout "$TMP/$f.orig" 2>/dev/null >"$TMP/$f.u8"
	if cmp -s "$TMP/$f.u8" "$TMP/$f.out"; then pass; else fail "$f: --to-utf8 re-encoded a UTF-8 file"; fi
done
# a legacy encoding is still found when the file is in one
printf '他把子丨弹压进了枪膛，日军的伤亡已经接近半数。\n' | iconv -f utf-8 -t gb18030 >"$TMP/gbk.txt"
cp "$TMP/gbk.txt" "$TMP/gbk.orig"
$J check --format json "$TMP/gbk.txt" >"$TMP/gbk.json"
$J fix --stdout "$TMP/gbk.txt" >"$TMP/gbk.out" 2>/dev/null
if [ "$(iconv -f gb18030 -t utf-8 "$TMP/gbk.out")" = '他把子弹压进了枪膛，日军的伤亡已经接近半数。' ]; then pass; else fail "GBK file not fixed in GBK"; fi
if $SPAN "$TMP/gbk.orig" "$TMP/gbk.json" "$TMP/gbk.out"; then pass; else fail "GBK fix went outside its spans"; fi

# Short GB18030 and Big5 texts (a chapter title) are not read as a Latin,
# Greek or Thai code page; Latin-1 text still is Latin-1.
for t in '第一章' '他说,好.' '这个,好.'; do
	printf '%s\n' "$t" | iconv -f utf-8 -t gb18030 >"$TMP/short.gbk"
	got=$($J fix --to-utf8 --stdout "$TMP/short.gbk" 2>/dev/null)
	want=$(printf '%s' "$t" | sed 's/,/，/; s/\.$/。/')
	if [ "$got" = "$want" ]; then pass; else fail "short GBK '$t' read as '$got'"; fi
done
printf '你好,世界.\n' | iconv -f utf-8 -t big5 >"$TMP/short.big5"
got=$($J fix --to-utf8 --stdout "$TMP/short.big5" 2>/dev/null)
if [ "$got" = '你好，世界。' ]; then pass; else fail "short Big5 read as '$got'"; fi
# with full-width punctuation (issue 19's own lines): uchardet names nothing
# for the GBK one and Windows-1252 for the Big5 one, whose bytes hold two
# valid UTF-8 pairs by chance
printf '明天见。\n' | iconv -f utf-8 -t gb18030 >"$TMP/short.gbk"
got=$($J fix --to-utf8 --stdout "$TMP/short.gbk" 2>/dev/null)
if [ "$got" = '明天见。' ]; then pass; else fail "short GBK '明天见。' read as '$got'"; fi
printf '天黑了。\n' | iconv -f utf-8 -t big5 >"$TMP/short.big5"
got=$($J fix --to-utf8 --stdout "$TMP/short.big5" 2>/dev/null)
if [ "$got" = '天黑了。' ]; then pass; else fail "short Big5 '天黑了。' read as '$got'"; fi
# uchardet names a DOS code page (IBM852) for these: one byte a character too
for w in '好。' '他說好。' '是的。'; do
	printf '%s\n' "$w" | iconv -f utf-8 -t big5 >"$TMP/short.big5"
	got=$($J fix --to-utf8 --stdout "$TMP/short.big5" 2>/dev/null)
	if [ "$got" = "$w" ]; then pass; else fail "short Big5 '$w' read as '$got'"; fi
done
printf 'Fran\xe7ais: \xe9t\xe9, \xe0 la plage, tr\xe8s chaud.\n' >"$TMP/fr.txt"
got=$($J fix --to-utf8 --stdout "$TMP/fr.txt" 2>/dev/null)
if [ "$got" = 'Français: été, à la plage, très chaud.' ]; then pass; else fail "Latin-1 French read as '$got'"; fi

# 6. A space before an invalid byte is not trailing.
printf '他说 \xff好的。\n他走了。  \n' >"$TMP/ts.txt"
$J fix --stdout "$TMP/ts.txt" >"$TMP/ts.out" 2>/dev/null
if [ "$(od -An -tx1 "$TMP/ts.out" | tr -d ' \n')" = "$(printf '他说 \xff好的。\n他走了。\n' | od -An -tx1 | tr -d ' \n')" ]; then pass; else
	fail "trailing-space fix around an invalid byte: $(od -c "$TMP/ts.out" | head -3)"
fi

# 3. A filter never swallows a document: binary input goes through whole.
printf '子丨弹\0膛\n' >"$TMP/nul.txt"
$J fix - <"$TMP/nul.txt" >"$TMP/nul.out" 2>"$TMP/nul.err"
if cmp -s "$TMP/nul.txt" "$TMP/nul.out"; then pass; else fail "fix - dropped a binary document"; fi
expect_grep 'passed through unchanged' "$TMP/nul.err" "fix - says it passed a binary document through"
$J fix --stdout "$TMP/nul.txt" >"$TMP/nul.out" 2>/dev/null
if cmp -s "$TMP/nul.txt" "$TMP/nul.out"; then pass; else fail "fix --stdout dropped a binary document"; fi

# 4. ACLs and extended attributes survive a fix (where the file system has them).
printf '他把子丨弹压进了枪膛。\n' >"$TMP/acl.txt"
chmod 640 "$TMP/acl.txt"
if command -v setfacl >/dev/null && setfacl -m u:nobody:rw "$TMP/acl.txt" 2>/dev/null &&
	setfattr -n user.origin -v novel "$TMP/acl.txt" 2>/dev/null; then
	getfacl -c "$TMP/acl.txt" 2>/dev/null >"$TMP/acl.before"
	expect_exit 0 "fix a file with an ACL" -- $J fix "$TMP/acl.txt"
	getfacl -c "$TMP/acl.txt" 2>/dev/null >"$TMP/acl.after"
	if cmp -s "$TMP/acl.before" "$TMP/acl.after"; then pass; else fail "ACL changed by fix: $(diff "$TMP/acl.before" "$TMP/acl.after" | tr '\n' ' ')"; fi
	if [ "$(stat -c %a "$TMP/acl.txt")" = 660 ] && getfacl -c "$TMP/acl.txt" | grep -q '^group::r--'; then pass; else
		fail "the owning group gained write access: $(stat -c %a "$TMP/acl.txt")"
	fi
	if [ "$(getfattr --only-values -n user.origin "$TMP/acl.txt" 2>/dev/null)" = novel ]; then pass; else fail "user xattr lost by fix"; fi
	if grep -q '子弹' "$TMP/acl.txt"; then pass; else fail "file with an ACL not fixed"; fi
else
	echo "dataloss: no ACL or xattr support here (tools/install-deps installs acl and attr); skipped"
fi

# Signals and file size limits in the middle of a write leave no temporary
# file and the original whole.  strace holds the write at its fsync.
if command -v strace >/dev/null && strace -o /dev/null -e inject=fsync:delay_enter=1 true 2>/dev/null; then
	mkdir -p "$TMP/sig"
	for sig in INT TERM HUP; do
		printf '他把子丨弹压进了枪膛。\n' >"$TMP/sig/s.txt"
		# python resets the three signals to their default: a shell ignores
		# SIGINT in background jobs, and a test run under nohup ignores SIGHUP
		# (which jinghua then keeps ignoring, as it should)
		# LeakSanitizer stops the world with ptrace, which strace holds
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=4000000 \
			/usr/bin/python3 -c 'import signal,os,sys; [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]; os.execv(sys.argv[1], sys.argv[1:])' \
			"$(command -v "$J" || echo "$J")" fix "$TMP/sig/s.txt" >/dev/null 2>&1 &
		spid=$!
		for _ in $(seq 100); do ls -a "$TMP/sig" | grep -q jinghua- && break; sleep 0.1; done
		jpid=$(pgrep -f "^[^ ]*jinghua fix $TMP/sig/s.txt")
		[ -n "$jpid" ] && kill -"$sig" $jpid
		wait $spid 2>/dev/null
		if ls -a "$TMP/sig" | grep -q jinghua-; then fail "SIG$sig during a write left a temporary file"; else pass; fi
		if [ "$(cat "$TMP/sig/s.txt")" = '他把子丨弹压进了枪膛。' ]; then pass; else fail "SIG$sig during a write changed the file"; fi
	done
else
	echo "dataloss: strace cannot delay calls here; signal cases skipped"
fi
mkdir -p "$TMP/sig"
/usr/bin/python3 -c "open('$TMP/sig/big.txt','w').write('他把子丨弹压进了枪膛。\n'*60000)"
cp "$TMP/sig/big.txt" "$TMP/sig/big.orig"
(ulimit -f 500; $J fix "$TMP/sig/big.txt" >/dev/null 2>"$TMP/xfsz.err"; echo $? >"$TMP/xfsz.rc")
if [ "$(cat "$TMP/xfsz.rc")" = 3 ]; then pass; else fail "write past ulimit -f: exit $(cat "$TMP/xfsz.rc"), expected 3"; fi
expect_grep 'File too large' "$TMP/xfsz.err" "write past ulimit -f says why"
if cmp -s "$TMP/sig/big.txt" "$TMP/sig/big.orig"; then pass; else fail "write past ulimit -f changed the file"; fi
if ls -a "$TMP/sig" | grep -q jinghua-; then fail "write past ulimit -f left a temporary file"; else pass; fi

# Hard links: the fix is written through the inode the names share, so every
# name sees the fixed text and the link, mode and inode stay; a rewrite that
# fails (a file size limit reached halfway) puts the old text back, and one
# whose copy of the old text cannot be written is refused; neither leaves a
# temporary file.
mkdir -p "$TMP/hl/other"
printf '刚刚在马背投弹的的几个骑兵。\n' >"$TMP/hl/a.txt"
ln "$TMP/hl/a.txt" "$TMP/hl/other/b.txt" && chmod 640 "$TMP/hl/a.txt"
ino=$(stat -c %i "$TMP/hl/a.txt")
expect_exit 0 "fix of a hard-linked file" -- $J fix -q "$TMP/hl/a.txt"
if [ "$(cat "$TMP/hl/other/b.txt")" = '刚刚在马背投弹的几个骑兵。' ]; then pass; else fail "the other hard link kept the old text"; fi
if [ "$(stat -c %i:%h:%a "$TMP/hl/a.txt")" = "$ino:2:640" ]; then pass; else fail "hard link, inode or mode lost: $(stat -c %i:%h:%a "$TMP/hl/a.txt")"; fi
for i in $(seq 40); do printf '他用Python写代码。\n'; done >"$TMP/hl/grow.txt"
ln -f "$TMP/hl/grow.txt" "$TMP/hl/other/grow.txt" && cp "$TMP/hl/grow.txt" "$TMP/hl/grow.orig"
(ulimit -f 1; $J fix --profile docs "$TMP/hl/grow.txt" >/dev/null 2>"$TMP/hl.err"; echo $? >"$TMP/hl.rc")
if [ "$(cat "$TMP/hl.rc")" = 3 ]; then pass; else fail "hard-linked rewrite past ulimit -f: exit $(cat "$TMP/hl.rc"), expected 3"; fi
expect_grep 'old text is back' "$TMP/hl.err" "a failed in-place rewrite says the old text is back"
if cmp -s "$TMP/hl/other/grow.txt" "$TMP/hl/grow.orig"; then pass; else fail "a failed in-place rewrite changed the file"; fi
cp "$TMP/sig/big.orig" "$TMP/hl/big.txt" && ln -f "$TMP/hl/big.txt" "$TMP/hl/other/big.txt"
(ulimit -f 500; $J fix "$TMP/hl/big.txt" >/dev/null 2>"$TMP/hl.err"; echo $? >"$TMP/hl.rc")
if [ "$(cat "$TMP/hl.rc")" = 3 ]; then pass; else fail "hard-linked file whose copy cannot be written: exit $(cat "$TMP/hl.rc"), expected 3"; fi
expect_grep 'copy of its old text' "$TMP/hl.err" "the refusal says why"
if cmp -s "$TMP/hl/other/big.txt" "$TMP/sig/big.orig"; then pass; else fail "a refused in-place rewrite changed the file"; fi
if [ -n "$(find "$TMP/hl" -name "*.jinghua-*")" ]; then fail "an in-place rewrite left a temporary file"; else pass; fi

# 2. Hooks: a binary or non-shell hook is chained whole, a symlink left alone.
if command -v git >/dev/null; then
	export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP/home"
	mkdir -p "$HOME"
	R=$TMP/repo
	mkdir -p "$R" && cd "$R" && git init -q . || exit 1
	H=.git/hooks/pre-commit
	mkdir -p .git/hooks
	printf '\177ELF\0\0\0binary hook\0\1\2\3' >"$H.bin"
	cp "$H.bin" "$H" && chmod 750 "$H"
	expect_exit 0 "hook install over a binary hook" -- $J hook install
	if cmp -s "$H.jinghua-chained" "$H.bin" && [ "$(stat -c %a "$H.jinghua-chained")" = 750 ]; then pass; else
		fail "binary hook not kept whole with its mode"
	fi
	expect_grep 'jinghua-chained' "$H" "the new hook calls the chained one"
	expect_exit 0 "hook uninstall puts a chained hook back" -- $J hook uninstall
	if cmp -s "$H" "$H.bin" && [ "$(stat -c %a "$H")" = 750 ] && [ ! -e "$H.jinghua-chained" ]; then pass; else
		fail "binary hook not restored whole by uninstall ($(stat -c %s "$H") bytes)"
	fi
	# a fish script is not edited, and still runs after the check
	printf '#!/usr/bin/env fish\necho fish-hook-ran > %s/ran\n' "$TMP" >"$H"
	chmod 755 "$H"
	cp "$H" "$TMP/fish.orig"
	expect_exit 0 "hook install over a fish hook" -- $J hook install
	if cmp -s "$H.jinghua-chained" "$TMP/fish.orig"; then pass; else fail "fish hook edited"; fi
	$J hook uninstall >/dev/null
	if cmp -s "$H" "$TMP/fish.orig"; then pass; else fail "fish hook not restored"; fi
	# a chained POSIX hook runs after the check and gets its arguments
	printf '#!/usr/bin/python3\nimport sys\nopen("%s/ran", "w").write("ran")\n' "$TMP" >"$H"
	chmod 755 "$H"
	$J hook install >/dev/null
	printf '他走了。\n' >ok.txt && git add ok.txt
	rm -f "$TMP/ran"
	if GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x git commit -q -m ok >/dev/null 2>&1 &&
		[ -f "$TMP/ran" ]; then pass; else fail "chained hook did not run after the check"; fi
	$J hook uninstall >/dev/null
	# a bash script keeps its mode and every byte around our block
	printf '#!/usr/bin/env bash\nset -e\necho mine\n' >"$H"
	chmod 700 "$H"
	cp "$H" "$TMP/bash.orig"
	$J hook install >/dev/null
	if [ "$(stat -c %a "$H")" = 700 ] && grep -q 'check --staged' "$H"; then pass; else fail "bash hook: mode $(stat -c %a "$H") or block missing"; fi
	$J hook uninstall >/dev/null
	if cmp -s "$H" "$TMP/bash.orig" && [ "$(stat -c %a "$H")" = 700 ]; then pass; else fail "bash hook not restored byte for byte"; fi
	# a symlinked (shared) hook is not replaced by a file
	printf '#!/bin/sh\nexit 0\n' >"$TMP/shared-hook"
	rm -f "$H" && ln -s "$TMP/shared-hook" "$H"
	expect_exit 2 "hook install over a symlink refuses" -- $J hook install
	expect_grep 'symlink' "$TMP/err" "the refusal says why"
	if [ -L "$H" ] && [ "$(cat "$TMP/shared-hook")" = "$(printf '#!/bin/sh\nexit 0')" ]; then pass; else fail "symlinked hook replaced or its target edited"; fi
	rm -f "$H"

	# 5. --staged reads names that look like revisions (0:..3:, colons, newlines)
	for n in '0:a.txt' '2:b.txt' 'c:d.txt' $'e\nf.txt'; do printf '他把子丨弹压进了枪膛。\n' >"$n"; done
	git add -- '0:a.txt' '2:b.txt' 'c:d.txt' $'e\nf.txt'
	$J check --staged --format json >"$TMP/staged.json" 2>"$TMP/staged.err"
	for n in '0:a.txt' '2:b.txt' 'c:d.txt'; do
		if grep -qF "\"file\":\"$n\"" "$TMP/staged.json"; then pass; else fail "--staged skipped '$n'"; fi
	done
	if grep -qF '"file":"e\nf.txt"' "$TMP/staged.json"; then pass; else fail "--staged skipped a name with a line break"; fi
fi

finish
