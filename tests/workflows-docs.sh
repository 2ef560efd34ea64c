#!/bin/bash
# workflows-docs.sh — the manual page (well formed, every option of --help
# documented), bash and zsh completions, and `rules --explain`.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
MAN=$SRCDIR/doc/jinghua.1

# 1. the manual page
if command -v mandoc >/dev/null; then
	if mandoc -T lint -W warning "$MAN" >"$TMP/lint" 2>&1; then pass; else fail "mandoc -T lint"; cat "$TMP/lint" >&2; fi
fi
if command -v man >/dev/null && MANWIDTH=80 man -l "$MAN" >"$TMP/man.txt" 2>"$TMP/man.err"; then pass; else
	command -v man >/dev/null && { fail "man -l"; cat "$TMP/man.err" >&2; }
fi
$J --help >"$TMP/help"
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$TMP/help" | sort -u); do
	if grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$MAN" || grep -q -- "$opt" "$MAN"; then pass; else fail "$opt is not in jinghua.1"; fi
done

# 2. bash completion (plain bash, with or without the bash-completion package)
bash -c '
. "$1"
J=$2
complete_line() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _jinghua; printf "%s\n" "${COMPREPLY[@]}"; }
complete_line "$J" ch | grep -qx check || { echo "command"; exit 1; }
complete_line "$J" check --for | grep -qx -- --format || { echo "option"; exit 1; }
complete_line "$J" check --format sa | grep -qx sarif || { echo "format value"; exit 1; }
complete_line "$J" fix --to | grep -qx -- --to-utf8 || { echo "fix option"; exit 1; }
complete_line "$J" check --select censor.ma | grep -qx censor.mask || { echo "rule id"; exit 1; }
complete_line "$J" check --ignore typo,cen | grep -qx typo,censor || { echo "second id"; exit 1; }
complete_line "$J" hook in | grep -qx install || { echo "hook"; exit 1; }
' _ "$SRCDIR/completions/jinghua" "$J" >"$TMP/bc" 2>&1 && pass || { fail "bash completion: $(cat "$TMP/bc")"; }

# 3. zsh completion: parses, and defines the function
if command -v zsh >/dev/null; then
	if zsh -n "$SRCDIR/completions/_jinghua" 2>"$TMP/zsh"; then pass; else fail "zsh -n _jinghua"; cat "$TMP/zsh" >&2; fi
	zsh -fc "fpath=($SRCDIR/completions \$fpath); autoload -Uz compinit && compinit -u -d $TMP/zcd; autoload -Uz _jinghua; whence -w _jinghua" >"$TMP/zw" 2>&1
	expect_grep "_jinghua: function" "$TMP/zw" "zsh autoloads _jinghua"
fi

# 4. rules --explain shows the examples and how to switch the rule off
expect_exit 0 "rules --explain" -- $J rules --explain censor.separator
expect_grep "bad:  子丨弹" "$TMP/out" "explain: bad example"
expect_grep "→ 子弹" "$TMP/out" "explain: fixed example"
expect_grep "jinghua-disable-next-line censor.separator" "$TMP/out" "explain: how to switch it off"
expect_exit 0 "rules --ids" -- $J rules --ids
if [ "$(head -1 "$TMP/out")" = "censor.mask" ]; then pass; else fail "rules --ids"; fi
finish
