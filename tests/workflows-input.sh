#!/bin/bash
# workflows-input.sh — encodings (BOM, UTF-8, GB18030, Big5, UTF-16 with and
# without BOM) with positions in the file as it is, fixes written back in the
# file's encoding or as UTF-8 (--to-utf8), undecodable bytes reported and
# kept; Markdown: prose is checked, code, URLs, HTML and front matter are not,
# positions point into the file.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
cd "$TMP" || exit 1
# rule:line:column of each finding, and the bytes at its span must be what it
# is about (checked for UTF-8 files)
spans() { python3 -c 'import json,sys; print(" ".join("%s:%d:%d:%d-%d" % (f["rule"].split(".")[1], f["line"], f["column"], f["byte_start"], f["byte_end"]) for f in json.load(open(sys.argv[1]))))' "$1"; }

# 1. the same text in five encodings: same lines and columns, byte offsets of each file
text='第一行。\n他重新給子｜彈｜膛，好。\n'
printf "$text" >u8.txt
printf "$text" | iconv -t GB18030 >gb.txt
printf "$text" | iconv -t BIG5 >big5.txt
{ printf '\xff\xfe'; printf "$text" | iconv -t UTF-16LE; } >u16bom.txt
printf "$text" | iconv -t UTF-16BE >u16be.txt
printf "$text" | iconv -t UTF-16LE >u16le.txt
declare -A want=(
	[u8.txt]="separator:2:6:28-31 separator:2:8:34-37"
	[gb.txt]="separator:2:6:19-21 separator:2:8:23-25"
	[big5.txt]="separator:2:6:19-21 separator:2:8:23-25"
	[u16bom.txt]="separator:2:6:22-24 separator:2:8:26-28"
	[u16be.txt]="separator:2:6:20-22 separator:2:8:24-26"
	[u16le.txt]="separator:2:6:20-22 separator:2:8:24-26"
)
for f in u8.txt gb.txt big5.txt u16bom.txt u16be.txt u16le.txt; do
	$J check --format json "$f" >"$TMP/$f.json" 2>"$TMP/$f.err"
	got=$(spans "$TMP/$f.json")
	if [ "$got" = "${want[$f]}" ]; then pass; else fail "$f: '$got', expected '${want[$f]}'"; cat "$TMP/$f.err" >&2; fi
done
# fix writes the file back in its own encoding, byte for byte elsewhere
for f in gb.txt big5.txt u16bom.txt u16be.txt u16le.txt; do
	cp "$f" "fix-$f"
	$J fix -q "fix-$f" 2>"$TMP/err"
	enc=$(case $f in gb.txt) echo GB18030;; big5.txt) echo BIG5;; u16bom.txt) echo UTF-16;; u16be.txt) echo UTF-16BE;; u16le.txt) echo UTF-16LE;; esac)
	if [ "$(iconv -f "$enc" "fix-$f" | sed -n 2p)" = "他重新給子彈膛，好。" ]; then pass; else fail "fix of $f not in $enc"; od -c "fix-$f" | head -5 >&2; fi
	# the rest of the file is untouched: compare with the original minus the separators
	printf '第一行。\n他重新給子彈膛，好。\n' | iconv -t "$enc" >"$TMP/expect" 2>/dev/null
	[ "$f" = u16bom.txt ] && { printf '\xff\xfe'; printf '第一行。\n他重新給子彈膛，好。\n' | iconv -t UTF-16LE; } >"$TMP/expect"
	if cmp -s "$TMP/expect" "fix-$f"; then pass; else fail "fix of $f changed other bytes"; fi
done
# --to-utf8
cp big5.txt conv.txt
$J fix -q --to-utf8 conv.txt
if [ "$(cat conv.txt)" = "$(printf '第一行。\n他重新給子彈膛，好。')" ]; then pass; else fail "--to-utf8"; od -c conv.txt | head >&2; fi
cp u16bom.txt conv16.txt
$J fix -q --to-utf8 conv16.txt
if [ "$(head -c 3 conv16.txt | od -An -tx1 | tr -d ' ')" != efbbbf ] && grep -q '子彈膛' conv16.txt; then pass; else fail "--to-utf8 from UTF-16 (BOM dropped)"; fi
# --stdout keeps the encoding too; --encoding forces one
$J fix --stdout gb.txt 2>/dev/null | iconv -f GB18030 >"$TMP/gb.out"
expect_grep '子彈膛' "$TMP/gb.out" "fix --stdout in GB18030"
printf '这是' | iconv -t GB18030 >short.txt
$J check --format json --encoding gb18030 short.txt >"$TMP/short.json"
if python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))==[]' "$TMP/short.json"; then pass; else fail "--encoding gb18030"; fi
expect_exit 2 "--encoding unknown" -- $J check --encoding no-such-charset short.txt
# a forced encoding wins over a BOM of another one; a BOM of its own family
# gives the byte order
cp u16bom.txt forced.txt
$J check --format json --encoding utf-8 forced.txt >"$TMP/forced.json"
expect_grep '"rule":"encoding.invalid-utf8"' "$TMP/forced.json" "--encoding utf-8 over a UTF-16 BOM"
$J fix --stdout --encoding utf-8 forced.txt 2>/dev/null | cmp -s - u16bom.txt && pass || fail "--encoding utf-8 kept the UTF-16 bytes"
$J check --format json --encoding utf-16 u16bom.txt >"$TMP/forced16.json"
expect_grep '"rule":"censor.separator"' "$TMP/forced16.json" "--encoding utf-16 reads the BOM's byte order"

# 2. undecodable bytes: a finding with the file's offset, kept byte for byte
{ printf '第一句。子丨弹，好。' | iconv -t GB18030; printf '\x81\x20'; printf '第二句。\n' | iconv -t GB18030; } >broken.txt
$J check --format json --encoding gb18030 broken.txt >"$TMP/broken.json"
expect_grep '"rule":"encoding.undecodable"' "$TMP/broken.json" "undecodable byte reported"
expect_grep '"byte_start":20,"byte_end":21' "$TMP/broken.json" "undecodable byte at its offset"
expect_grep '81' "$TMP/broken.json" "the byte shown"
cp broken.txt broken2.txt
$J fix -q --encoding gb18030 broken2.txt 2>/dev/null
if [ "$(od -An -tx1 -j 18 -N 4 broken2.txt | tr -d ' ')" = "b5af8120" ] || cmp -s <(tail -c 11 broken.txt) <(tail -c 11 broken2.txt); then pass; else fail "undecodable bytes not kept"; od -tx1 broken2.txt >&2; fi
if iconv -f GB18030 -c broken2.txt 2>/dev/null | grep -q '子弹'; then pass; else fail "fix around undecodable bytes"; fi
expect_exit 3 "--to-utf8 refuses a file with undecodable bytes" -- $J fix --to-utf8 --encoding gb18030 broken2.txt
if cmp -s <(tail -c 11 broken.txt) <(tail -c 11 broken2.txt); then pass; else fail "--to-utf8 changed a file it refused"; fi
# binary data is not mistaken for UTF-16
head -c 4096 /dev/urandom >rand.bin 2>/dev/null || printf '\x00\x01\x02\x03\xff' >rand.bin
expect_exit 0 "random bytes: binary" -- $J check rand.bin
expect_grep "binary file, skipped" "$TMP/err" "random bytes skipped"

# 3. Markdown
cat >doc.md <<'MD'
---
title: 甩出了*一枪
tags: [子丨弹]
---
# 第一章 甩出了*一枪

他说,好。**粗体**,好。使用`a*b`和`子丨弹`命令。

```
代码里甩出了*一枪，子丨弹丨膛。
```

    缩进的代码甩出了*一枪

链接 <https://example.com/子丨弹> 和 [文字](https://example.com/a*b) 以及 https://example.com/x丨y 。
<div>HTML 里甩出了*一枪</div>

| 列 | 列 |
|---|---|
| 子丨弹 | 好,的 |
MD
$J check --format json doc.md >"$TMP/md.json"
got=$(python3 -c 'import json,sys
data=open(sys.argv[2],"rb").read()
out=[]
for f in json.load(open(sys.argv[1])):
    out.append("%s:%d:%d:%s" % (f["rule"].split(".")[1], f["line"], f["column"], data[f["byte_start"]:f["byte_end"]].decode()))
print(" ".join(out))' "$TMP/md.json" doc.md)
want_md="mask:5:10:* comma:7:3:, comma:7:12:, separator:20:4:丨 comma:20:10:,"
if [ "$got" = "$want_md" ]; then pass; else fail "Markdown findings: '$got', expected '$want_md'"; fi
cp doc.md fix.md
$J fix -q fix.md
diff doc.md fix.md >"$TMP/md.diff"
if [ "$(grep -c '^>' "$TMP/md.diff")" = 2 ] && grep -q '^> 他说，好。\*\*粗体\*\*，好。使用`a\*b`和`子丨弹`命令。$' "$TMP/md.diff" && grep -q '^> | 子弹 | 好，的 |$' "$TMP/md.diff"; then pass; else
	fail "Markdown fix touched more than prose"; cat "$TMP/md.diff" >&2
fi
# the same text as plain text: everything is prose
$J check --format json --type text doc.md >"$TMP/mdt.json"
if [ "$(grep -o '"rule"' "$TMP/mdt.json" | wc -l)" -gt 8 ]; then pass; else fail "--type text"; fi
# stdin with --type markdown, and a .md name through --stdin-filename
printf '用`甩出了*一枪`命令,好。\n' | $J check --format json --type markdown - >"$TMP/mds.json"
if [ "$(spans "$TMP/mds.json")" = "comma:1:12:27-28" ]; then pass; else fail "stdin --type markdown: $(spans "$TMP/mds.json")"; fi
printf '用`甩出了*一枪`命令,好。\n' | $J check --format json --stdin-filename x.md - >"$TMP/mds2.json"
if [ "$(spans "$TMP/mds2.json")" = "comma:1:12:27-28" ]; then pass; else fail "--stdin-filename x.md: $(spans "$TMP/mds2.json")"; fi
expect_grep '"file":"x.md"' "$TMP/mds2.json" "--stdin-filename names the input"
# inline switches in Markdown are HTML comments; in code they are just text
cat >sw.md <<'MD'
<!-- jinghua-disable-next-line -->
一甩出了*一枪。

```
<!-- jinghua-disable -->
```

二甩出了*一枪。
MD
$J check --format json sw.md >"$TMP/swmd.json"
if [ "$(spans "$TMP/swmd.json")" = "mask:8:5:105-106" ]; then pass; else fail "switches in Markdown: $(spans "$TMP/swmd.json")"; fi
# Short one-line files (issue 19): GB18030 and Big5 text of a few common
# characters is read as such, also where its bytes are valid UTF-8 by
# chance (什么 is ʲô, 谢谢 is лл) or hold more chance UTF-8 pairs than stray
# bytes (谢谢,好。), and where Big5 bytes decode under GBK too (謝謝 is 谅谅);
# short UTF-8 text of other scripts stays UTF-8.
for t in 什么 谢谢 明天见。 天黑了。 为什么 没有; do
	printf '%s\n' "$t" | iconv -t GB18030 >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "short GB18030 '$t' read as '$got'"; fi
done
for t in 什麼 謝謝 明天見。 天黑了。; do
	printf '%s\n' "$t" | iconv -t BIG5 >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "short Big5 '$t' read as '$got'"; fi
done
for t in да Ελλάδα éé ô привет «да»; do
	printf '%s\n' "$t" >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "short UTF-8 '$t' read as '$got'"; fi
done
# One or two characters of GB18030 or Big5 whose bytes are valid UTF-8 that
# reads as no text (水 is ˮ, 说 ˵, 十 ʮ, 时间 ʱ¼ä; 禮 in Big5 is §, 職 ¾)
# are read as GB18030 or Big5; short UTF-8 of letters (café, é, naïve, да),
# digits and signs (±5%), a lone IPA letter (ʃ), emoji or Chinese, stays UTF-8.
for t in 水 说 十 山 水说 色 时间; do
	printf '%s\n' "$t" | iconv -t GB18030 >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "one-character GB18030 '$t' read as '$got'"; fi
done
for t in 禮 職 簡; do
	printf '%s\n' "$t" | iconv -t BIG5 >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "one-character Big5 '$t' read as '$got'"; fi
done
for t in café é naïve ô ʃ ˈ '±5%' ° 😀 中文 水; do
	printf '%s\n' "$t" >short1.txt
	got=$($J fix --to-utf8 --stdout short1.txt 2>/dev/null)
	if [ "$got" = "$t" ]; then pass; else fail "short UTF-8 '$t' read as '$got'"; fi
done
# fix --diff of a short GBK file shows the text decoded, changes nothing;
# fix writes GBK back, --to-utf8 UTF-8
printf '什么,好。\n' | iconv -t GB18030 >shortdiff.txt
cp shortdiff.txt shortdiff.orig
$J fix --diff shortdiff.txt >"$TMP/short.diff" 2>/dev/null
if grep -qx -- '-什么,好。' "$TMP/short.diff" && grep -qx -- '+什么，好。' "$TMP/short.diff" &&
	cmp -s shortdiff.txt shortdiff.orig; then pass; else fail "fix --diff of short GBK"; cat "$TMP/short.diff" >&2; fi
$J fix -q shortdiff.txt 2>/dev/null
if [ "$(iconv -f GB18030 shortdiff.txt)" = '什么，好。' ] && [ "$(printf '什么，好。\n' | iconv -t GB18030 | od -An -tx1)" = "$(od -An -tx1 shortdiff.txt)" ]; then pass; else fail "fix of short GBK not in GBK"; od -c shortdiff.txt >&2; fi
cp shortdiff.orig shortdiff.txt
$J fix -q --to-utf8 shortdiff.txt 2>/dev/null
if [ "$(cat shortdiff.txt)" = '什么，好。' ]; then pass; else fail "fix --to-utf8 of short GBK"; od -c shortdiff.txt >&2; fi
# CRLF Markdown keeps its line ends when fixed
printf '他说,好。\r\n\r\n`a,b`好,的。\r\n' >crlf.md
$J fix -q crlf.md
if [ "$(cat crlf.md)" = "$(printf '他说，好。\r\n\r\n`a,b`好，的。\r')" ]; then pass; else fail "CRLF Markdown"; od -c crlf.md >&2; fi
finish
