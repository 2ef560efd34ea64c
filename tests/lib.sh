# lib.sh — helpers shared by the shell tests (sourced, not run).
# JINGHUA, JINGHUA_RULES and SRCDIR come from the Makefile's test environment.
set -u
: "${JINGHUA:?run through make check}"
: "${SRCDIR:?run through make check}"
export JINGHUA_RULES="${JINGHUA_RULES:-$SRCDIR/rules}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jinghua-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
tests=0

pass() { tests=$((tests + 1)); }
fail() { tests=$((tests + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# expect_exit CODE DESCRIPTION -- COMMAND...
expect_exit() {
	local want=$1 what=$2
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then pass; else
		fail "$what: exit $got, expected $want"
		sed 's/^/    /' "$TMP/err" >&2
	fi
}

# expect_grep PATTERN FILE DESCRIPTION
expect_grep() {
	if grep -q -- "$1" "$2"; then pass; else fail "$3: '$1' not in $(basename "$2")"; sed 's/^/    /' "$2" | head -20 >&2; fi
}

finish() {
	echo "$tests checks, $fails failed"
	[ "$fails" -eq 0 ]
}
