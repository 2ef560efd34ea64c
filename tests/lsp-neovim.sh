#!/bin/sh
# lsp-neovim.sh — Neovim (headless) as the client of `jinghua lsp`: the
# configuration of tests/lsp/init.lua, then tests/lsp/neovim_test.lua.
. "$SRCDIR/tests/lib.sh"
if ! command -v nvim >/dev/null 2>&1; then
	echo "nvim not found (tools/install-deps installs neovim)" >&2
	exit 77
fi
export EXPECT_DIR="$TMP"
sed -n '1,8p' "$SRCDIR/corpus-samples/censor-novel-artifacts.txt" | sed 's/^/𠀀/' >"$TMP/chapter.txt"
printf '# 标题\n\n他说,好。。\n\n```\n代码,里。。\n```\n' >"$TMP/notes.md"
"$JINGHUA" check --format json "$TMP/chapter.txt" >"$TMP/findings.json"
"$JINGHUA" fix --stdout "$TMP/chapter.txt" >"$TMP/fixed.txt" 2>"$TMP/fix.err"
grep -q censor.separator "$TMP/findings.json" || fail "the sample has no separators"
# no user configuration, no swap files, no shada: only init.lua
HOME="$TMP" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" XDG_STATE_HOME="$TMP/state" \
	timeout 600 nvim --headless -n -i NONE -u "$SRCDIR/tests/lsp/init.lua" \
	-c "luafile $SRCDIR/tests/lsp/neovim_test.lua" >"$TMP/nvim.out" 2>"$TMP/nvim.err"
rc=$?
if [ $rc -eq 0 ]; then pass; else
	fail "neovim test (exit $rc)"
	sed 's/^/    /' "$TMP/nvim.err" "$TMP/nvim.out" >&2
fi
grep -q "all passed" "$TMP/nvim.err" && pass || fail "neovim did not report"
finish
