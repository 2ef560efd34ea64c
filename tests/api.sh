#!/bin/sh
# api.sh — a program built against the installed header alone
# (tests/check_api.c) checks and fixes a file through the document API and
# gets what the command line gives, byte for byte: a GBK Markdown file with
# inline switches, accepted words and a [path:] section of a .jinghua.ini.
# Then several threads load, check and fix at once (run under TSan in a
# --enable-tsan build).
. "$SRCDIR/tests/lib.sh"
API=$BUILDDIR/tests/check_api
if [ ! -x "$API" ]; then echo "api.sh: no tests/check_api: skipped"; exit 77; fi

mkdir -p "$TMP/proj/docs"
cat >"$TMP/proj/.jinghua.ini" <<'INI'
[jinghua]
words = 夫上校
fail-on = info
[path:docs/*.md]
ignore = punct.halfwidth-paren
INI
cat >"$TMP/proj/docs/a.md" <<'MD'
# 标题,测试

这是一个测试,包含半角逗号。他在次来到这里的的时候**夫上校**说了话。

<!-- jinghua-disable typo -->
他在次来到这里。
<!-- jinghua-enable typo -->

```
代码,不查
```

`行内,代码` 和 [链接,文字](http://a.b/c,d) 。帝**人来了
<!-- jinghua-disable-next-line -->
这行在次不查,真的。
最后一行 ( 括号 ) 结束.
MD
iconv -f UTF-8 -t GBK "$TMP/proj/docs/a.md" >"$TMP/proj/docs/gbk.md"
cd "$TMP/proj" || exit 1
for f in docs/a.md docs/gbk.md; do
	"$JINGHUA" check --format json "$f" >"$TMP/cli.json" 2>"$TMP/err"
	"$API" check "$f" >"$TMP/api.json" 2>>"$TMP/err"
	if cmp -s "$TMP/cli.json" "$TMP/api.json" && [ -s "$TMP/api.json" ]; then pass; else
		fail "$f: jh_document_check differs from jinghua check --format json"
		diff "$TMP/cli.json" "$TMP/api.json" | head -10 >&2
	fi
	"$JINGHUA" fix --stdout "$f" >"$TMP/cli.fix" 2>"$TMP/err"
	"$API" fix "$f" >"$TMP/api.fix" 2>>"$TMP/err"
	if cmp -s "$TMP/cli.fix" "$TMP/api.fix" && [ -s "$TMP/api.fix" ]; then pass; else
		fail "$f: jh_document_fix differs from jinghua fix --stdout"
	fi
done
# the GBK file stays GBK, its fixes made, code and switched-off lines left alone
if iconv -f GBK -t UTF-8 "$TMP/api.fix" >/dev/null 2>&1; then pass; else fail "gbk.md: the fix is not GBK"; fi
"$API" fix docs/gbk.md | iconv -f GBK -t UTF-8 >"$TMP/fixed.md"
expect_grep '^代码,不查$' "$TMP/fixed.md" "code blocks are not fixed"
expect_grep '^这行在次不查,真的。$' "$TMP/fixed.md" "a line switched off is not fixed"
expect_grep '^# 标题，测试$' "$TMP/fixed.md" "prose is fixed"
expect_grep '"byte_start":6,"byte_end":7' "$TMP/api.json" "offsets are the GBK file's"

expect_exit 0 "8 threads load, check and fix at once" -- "$API" threads docs/gbk.md 8
expect_grep '8 threads: the same results' "$TMP/out" "every thread gets the same results"
finish
