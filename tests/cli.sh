#!/bin/bash
# cli.sh — the command line contract: exit codes, formats, selection, stdin,
# fix modes, rule-file errors with file and line.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
S=$SRCDIR/corpus-samples

expect_exit 0 "--version" -- $J --version
expect_grep "jinghua " "$TMP/out" "version printed"
expect_exit 0 "--help" -- $J --help
expect_grep "usage:" "$TMP/out" "help printed"
expect_exit 2 "unknown option" -- $J check --no-such-option "$S"
expect_exit 2 "bad --format" -- $J check --format xml "$S"
expect_exit 2 "unknown rule in --select" -- $J check --select nosuch.rule "$S"
expect_grep "nosuch.rule" "$TMP/err" "unknown rule named"
expect_exit 3 "missing file" -- $J check "$TMP/does-not-exist.txt"
expect_grep "does-not-exist.txt" "$TMP/err" "missing file named"
expect_exit 2 "--stdout outside fix" -- $J check --stdout "$S"

# findings → exit 1; --fail-on never → 0; clean text → 0
expect_exit 1 "findings on the samples" -- $J check "$S"
expect_exit 0 "--fail-on never" -- $J check --fail-on never "$S"
printf '这是一段干净的中文。\n' >"$TMP/clean.txt"
expect_exit 0 "clean file" -- $J check "$TMP/clean.txt"
if [ ! -s "$TMP/out" ]; then pass; else fail "clean file printed something"; fi

# human format: file:line:col, severity, [rule], source line, caret
printf '前文。子丨弹丨膛，好。\n' >"$TMP/sep.txt"
expect_exit 1 "separator found" -- $J check --color never "$TMP/sep.txt"
expect_grep "sep.txt:1:5: error \[censor.separator\]" "$TMP/out" "human location"
expect_grep "^  | 前文。子丨弹丨膛，好。" "$TMP/out" "source line"
expect_grep "^  |         ^^" "$TMP/out" "caret aligned by display width"

# json: valid, with the documented fields
expect_exit 1 "json" -- $J check --format json "$TMP/sep.txt"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d[0]
need={"file","rule","severity","line","column","end_line","end_column","byte_start","byte_end","message","fix"}
assert need <= set(f), need - set(f)
assert (f["line"],f["column"],f["end_column"],f["byte_start"],f["byte_end"])==(1,5,6,12,15), f
assert f["fix"]["safety"]=="safe" and f["fix"]["edits"][0]["replacement"]==""' "$TMP/out" 2>"$TMP/py"; then pass; else
	fail "json fields"; cat "$TMP/py" >&2
fi
$J check --format json "$TMP/clean.txt" >"$TMP/empty.json"
if python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))==[]' "$TMP/empty.json"; then pass; else fail "json of clean file is not []"; fi

# --select / --ignore by id and by family
expect_exit 0 "--ignore family" -- $J check --ignore censor "$TMP/sep.txt"
expect_exit 0 "--select other family" -- $J check --select typo "$TMP/sep.txt"
expect_exit 1 "--select the rule" -- $J check --select censor.separator "$TMP/sep.txt"

# stdin
printf '子丨弹，好。\n' | $J check --format json - >"$TMP/stdin.json"
expect_grep '"file":"<stdin>"' "$TMP/stdin.json" "stdin named <stdin>"
printf '子丨弹，好。\n' | $J fix --stdout - >"$TMP/stdin.out" 2>/dev/null
expect_grep '^子弹，好。$' "$TMP/stdin.out" "fix from stdin"

# fix --stdout and --diff leave the file alone; fix rewrites it
cp "$TMP/sep.txt" "$TMP/sep2.txt"
$J fix --stdout "$TMP/sep2.txt" >"$TMP/fixed" 2>/dev/null
expect_grep '^前文。子弹膛，好。$' "$TMP/fixed" "fix --stdout"
$J fix --diff "$TMP/sep2.txt" >"$TMP/diff" 2>/dev/null
expect_grep '^-前文。子丨弹丨膛，好。$' "$TMP/diff" "diff removed line"
expect_grep '^+前文。子弹膛，好。$' "$TMP/diff" "diff added line"
if cmp -s "$TMP/sep.txt" "$TMP/sep2.txt"; then pass; else fail "--stdout/--diff changed the file"; fi
expect_exit 0 "fix in place" -- $J fix "$TMP/sep2.txt"
expect_grep '^前文。子弹膛，好。$' "$TMP/sep2.txt" "file fixed in place"

# folders: recursive, sorted, hidden entries skipped
mkdir -p "$TMP/tree/b" "$TMP/tree/.hidden" "$TMP/tree/a"
cp "$TMP/sep.txt" "$TMP/tree/b/2.txt"; cp "$TMP/sep.txt" "$TMP/tree/a/1.txt"; cp "$TMP/sep.txt" "$TMP/tree/.hidden/x.txt"
$J check --format json "$TMP/tree" >"$TMP/tree.json"
if python3 -c 'import json,sys; fs=[f["file"].split("/tree/")[1] for f in json.load(open(sys.argv[1]))]
assert sorted(set(fs))==["a/1.txt","b/2.txt"] and fs==sorted(fs), fs' "$TMP/tree.json"; then pass; else fail "folder walk"; fi

# rule files: errors name file and line, exit 2; --rules adds a folder
mkdir -p "$TMP/rules"
printf '[typo.x]\nkind = regex\npattern = (unclosed\nmessage = m\nbad = a\ngood = b\n' >"$TMP/rules/bad.rules"
expect_exit 2 "broken rule file" -- $J check --rules "$TMP/rules" "$TMP/clean.txt"
expect_grep "bad.rules:1:.*typo.x.*missing closing parenthesis" "$TMP/err" "regex error with file and line"
printf '[typo.y]\nkind = regex\npattern = x\nmessage = m\nbogus = 1\nbad = x\ngood = y\n' >"$TMP/rules/bad.rules"
expect_exit 2 "unknown key" -- $J check --rules "$TMP/rules" "$TMP/clean.txt"
expect_grep "bad.rules:5:.*unknown key 'bogus'" "$TMP/err" "unknown key with line"
printf '[typo.own]\nkind = regex\npattern = 干净\nmessage = 自定义规则\nbad = 很干净\ngood = 很脏\n' >"$TMP/rules/bad.rules"
expect_exit 1 "extra rules folder" -- $J check --rules "$TMP/rules" "$TMP/clean.txt"
expect_grep "typo.own" "$TMP/out" "extra rule runs"
expect_exit 0 "test-rules on a file" -- $J test-rules "$TMP/rules/bad.rules"
printf '[typo.own]\nkind = regex\npattern = 干净\nmessage = m\nbad = 很脏\ngood = 很干净\n' >"$TMP/rules/bad.rules"
expect_exit 1 "test-rules failing examples" -- $J test-rules "$TMP/rules/bad.rules"
expect_grep "bad.rules:5:.*bad example is not found" "$TMP/err" "failing example with line"

# foreign = (where Japanese and Korean text silences a rule): a user's rule
# file and a configuration set it; a wrong value is an error with its line
mkdir -p "$TMP/frules"
printf 'これは東京の駅です、大きいです。\n' >"$TMP/ja.txt"
own_rule() { printf '[punct.own-comma]\nkind = regex\npattern = 、\nmessage = 顿号\nforeign = %s\nbad = 甲、乙\ngood = 甲，乙\n' "$1" >"$TMP/frules/own.rules"; }
own_rule never
expect_exit 1 "foreign = never: reported in Japanese" -- $J check --no-config --rules "$TMP/frules" --select punct.own-comma "$TMP/ja.txt"
expect_grep "punct.own-comma" "$TMP/out" "foreign = never rule runs in Japanese"
own_rule sentence
expect_exit 0 "foreign = sentence: quiet in Japanese" -- $J check --no-config --rules "$TMP/frules" --select punct.own-comma "$TMP/ja.txt"
printf '中文句子：甲、乙、丙都到了。\n' >"$TMP/zh.txt"
expect_exit 1 "foreign = sentence: reported in Chinese" -- $J check --no-config --rules "$TMP/frules" --select punct.own-comma "$TMP/zh.txt"
# two Japanese-only forms and no kana: a sentence for 'sentence', not for 'kana'
printf '中文句子，甲、乙、丙都到了。変態的薬物、弾药。再说一句。\n' >"$TMP/forms.txt"
$J check --no-config --rules "$TMP/frules" --select punct.own-comma -f json --fail-on never "$TMP/forms.txt" >"$TMP/s.json"
own_rule kana
$J check --no-config --rules "$TMP/frules" --select punct.own-comma -f json --fail-on never "$TMP/forms.txt" >"$TMP/k.json"
cols() { python3 -c 'import json,sys; print(" ".join(str(f["column"]) for f in json.load(open(sys.argv[1]))))' "$1"; }
if [ "$(cols "$TMP/s.json")" = "7 9" ] && [ "$(cols "$TMP/k.json")" = "7 9 20" ]; then pass; else
	fail "foreign = sentence / kana on kanji forms: $(cols "$TMP/s.json") / $(cols "$TMP/k.json")"; fi
own_rule bogus
expect_exit 2 "foreign = bogus in a rule file" -- $J check --no-config --rules "$TMP/frules" "$TMP/ja.txt"
expect_grep "own.rules:5:.*foreign must be sentence, kana, document or never" "$TMP/err" "bad foreign names file and line"
printf '今日は雨,明日は晴れ。\n' >"$TMP/ja2.txt"
expect_exit 0 "shipped punct.halfwidth: quiet in Japanese" -- $J check --no-config --select punct.halfwidth "$TMP/ja2.txt"
printf '[punct.halfwidth]\nforeign = never\n' >"$TMP/foreign.ini"
expect_exit 1 "config foreign = never: reported in Japanese" -- $J check --config "$TMP/foreign.ini" --select punct.halfwidth "$TMP/ja2.txt"
expect_grep "punct.halfwidth" "$TMP/out" "config's foreign = never applies"
printf '[punct.halfwidth]\nforeign = nowhere\n' >"$TMP/foreign.ini"
expect_exit 2 "config foreign = nowhere" -- $J check --config "$TMP/foreign.ini" "$TMP/ja2.txt"
expect_grep "foreign.ini:2:.*foreign must be sentence, kana, document or never, not 'nowhere'" "$TMP/err" "config's bad foreign names its line"
expect_exit 0 "explain a rule's foreign" -- $J rules --explain script.halfwidth-kana
expect_grep "foreign:  never" "$TMP/out" "explain shows foreign"

# rules listing and explain
expect_exit 0 "rules" -- $J rules
expect_grep "censor.separator" "$TMP/out" "rules lists ids"
expect_exit 0 "rules --explain" -- $J rules --explain censor.separator
expect_grep "bad:" "$TMP/out" "explain shows examples"
expect_exit 2 "explain unknown" -- $J rules --explain nosuch.rule

# every shipped rule passes its own examples
expect_exit 0 "test-rules on the shipped rules" -- $J test-rules
# a folder walk reads prose files only (.txt .text .md .markdown .mdx, any
# case): a safe fix must never rewrite a program's string literals or data;
# a file named on the command line is read whatever its type; `extensions =`
# in .jinghua.ini changes the list (none = files without an extension)
W=$TMP/walk-types
mkdir -p "$W/src"
printf '/* 问候,然后退出. */\nint main(void){ printf("你好,世界.\\n"); }\n' >"$W/src/main.c"
printf '{"msg": "你好,世界."}\n' >"$W/a.json"
printf 'msg = "保存成功,请刷新."\n' >"$W/s.py"
printf '<p>你好,世界</p>\n' >"$W/i.html"
printf '你好,世界.\n' >"$W/LICENSE"
printf '你好,世界.\n' >"$W/ch1.txt"
printf '你好,世界.\n' >"$W/ch2.MD"
cp "$W/src/main.c" "$TMP/main.c.orig"
(cd "$W" && $J fix .) >/dev/null 2>&1
if cmp -s "$W/src/main.c" "$TMP/main.c.orig" && grep -q '"你好,世界."' "$W/a.json" &&
	grep -q '保存成功,请刷新' "$W/s.py" && grep -q '<p>你好,世界</p>' "$W/i.html" &&
	grep -q '你好,世界' "$W/LICENSE"; then pass; else fail "fix . rewrote code, data or a file without an extension"; fi
if grep -q '你好，世界。' "$W/ch1.txt" && grep -q '你好，世界。' "$W/ch2.MD"; then pass; else fail "fix . left .txt/.MD prose unfixed"; fi
expect_exit 1 "a .c file named on the command line is checked" -- $J check "$W/src/main.c"
printf 'extensions = .c, none\n' >"$W/.jinghua.ini"
(cd "$W" && $J check --format json .) >"$TMP/ext.json" 2>/dev/null
if grep -q 'main.c' "$TMP/ext.json" && grep -q 'LICENSE' "$TMP/ext.json" && ! grep -q 'a.json' "$TMP/ext.json"; then pass; else
	fail "extensions = .c, none: not the files read"; cat "$TMP/ext.json" >&2; fi
printf 'extensions = c.x\n' >"$W/.jinghua.ini"
expect_exit 2 "extensions = c.x is an error" -- $J check "$W"
expect_grep "not a file extension" "$TMP/err" "extensions error says why"
rm -f "$W/.jinghua.ini"


# Markdown $…$: maths only by pandoc's tex_math_dollars rule, and a $ before
# a shell variable or digits is that variable: prices and $VAR/$1 are prose,
# never cut by the Latin–Han spacing; real formulae are still spaced
md_fix() { printf '%s\n' "$1" | $J fix --stdout --profile docs --type markdown - 2>/dev/null; }
for s in '原价$20，现价$15。' '变量$HOME和$USER都要设置。' '用$1和$2表示参数。' '设${name}和${x}为空。' \
	'运费$5，税$3，共计$8。' '先设$PATH再运行$0。' '设${x}和$y$。'; do
	got=$(md_fix "$s")
	if [ "$got" = "$s" ]; then pass; else fail "markdown \$: '$s' became '$got'"; fi
done
for pair in '公式$a+b$很简单。|公式 $a+b$ 很简单。' '线段$AB=CD$成立，设$n$个点。|线段 $AB=CD$ 成立，设 $n$ 个点。' \
	'取$x_1$和$x_2$。|取 $x_1$ 和 $x_2$。'; do
	got=$(md_fix "${pair%%|*}")
	if [ "$got" = "${pair#*|}" ]; then pass; else fail "markdown maths: '${pair%%|*}' became '$got'"; fi
done

# a `code` span: verbatim in plain text too (nothing put inside it), and in
# Markdown one word to the docs spacing, spaced on both sides or neither
tx_fix() { printf '%s\n' "$1" | $J fix --stdout --profile docs --type text - 2>/dev/null; }
for pair in '执行`git提交`命令即可。|执行`git提交`命令即可。' '运行`a,b.c`再说,然后重启.|运行`a,b.c`再说，然后重启。' \
	'在`src目录`下运行make即可。|在`src目录`下运行 make 即可。' \
	"带有\`-a'的\`-b'选项,默认关闭.|带有\`-a'的\`-b'选项，默认关闭。" '反向引号 (``) 执行命令,结果 (``) 送出.|反向引号 (``) 执行命令，结果 (``) 送出。' \
	'通过page`设定大小,或者通过width`设定宽度.|通过 page`设定大小，或者通过 width`设定宽度。'; do
	got=$(tx_fix "${pair%%|*}")
	if [ "$got" = "${pair#*|}" ]; then pass; else fail "plain code span: '${pair%%|*}' became '$got'"; fi
done
for pair in '执行`git提交`命令即可。|执行 `git提交` 命令即可。' '先看`日志.txt`再说。|先看 `日志.txt` 再说。' \
	'用`ls`列出文件。|用 `ls` 列出文件。' '设置`中文`选项。|设置`中文`选项。' '执行 `git提交`命令。|执行 `git提交` 命令。'; do
	got=$(md_fix "${pair%%|*}")
	if [ "$got" = "${pair#*|}" ]; then pass; else fail "markdown code span: '${pair%%|*}' became '$got'"; fi
done

# an e-mail address whose local part is Han: its domain's dots are not
# prose in any profile nor in Markdown; a stray . between Han still is
for args in '' '--profile docs' '--profile novel' '--type markdown' '--profile docs --type markdown' '--unsafe'; do
	for s in '报名请写信给张三@例子.中国或者admin@foo.cn。' '小王@公司.中国' '请联系李四@研究所.公司。'; do
		got=$(printf '%s\n' "$s" | $J fix --stdout $args - 2>/dev/null)
		case "$got" in *'@例子.中国'*|*'@公司.中国'|*'@研究所.公司'*) pass ;; *) fail "e-mail ($args): '$s' became '$got'" ;; esac
	done
	got=$(printf '请把信寄给小李@他家.然后回来。\n' | $J fix --stdout $args - 2>/dev/null)
	if [ "$got" = '请把信寄给小李@他家。然后回来。' ]; then pass; else fail "stray dot after @ ($args): '$got'"; fi
done

finish
