#!/bin/bash
# workflows-git.sh — the pre-commit workflow as a new user meets it: install
# the hook in a fresh repository, see it stop a commit with a masked word and
# let a clean one through; --staged reads the index, not the working tree;
# --diff-base reports only lines changed since a revision.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
command -v git >/dev/null || { echo "git missing (tools/install-deps installs it)"; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP/home" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
mkdir -p "$HOME"
R=$TMP/repo
mkdir -p "$R" && cd "$R" && git init -q . || exit 1

# 1. the README's steps: install the hook, commit a masked word, then a clean text
expect_exit 0 "hook install" -- $J hook install
expect_grep "installed the pre-commit hook" "$TMP/out" "install says where"
if [ -x .git/hooks/pre-commit ]; then pass; else fail "hook not executable"; fi
printf '第一章\n\n他从腰间甩出了*一枪，打中了门框。\n' >chapter.txt
git add chapter.txt
if git commit -q -m "masked" >"$TMP/c1.out" 2>&1; then fail "commit with a masked word went through"; else pass; fi
expect_grep "chapter.txt:3:8: error \[censor.mask\]" "$TMP/c1.out" "hook shows the finding"
expect_grep "commit stopped" "$TMP/c1.out" "hook says why it stopped"
if git rev-parse -q --verify HEAD >/dev/null; then fail "a commit was made"; else pass; fi
printf '第一章\n\n他从腰间甩出了一枪，打中了门框。\n' >chapter.txt
git add chapter.txt
if git commit -q -m "clean" >"$TMP/c2.out" 2>&1; then pass; else fail "clean commit was stopped"; cat "$TMP/c2.out" >&2; fi

# 2. --staged checks the index, not the working tree
printf '他又甩出了*一枪。\n' >>chapter.txt         # bad, but not staged
expect_exit 0 "unstaged damage is not the commit's" -- $J check --staged
git add chapter.txt
printf '第一章\n\n他从腰间甩出了一枪，打中了门框。\n' >chapter.txt  # clean, not staged
expect_exit 1 "staged damage is found" -- $J check --staged
expect_grep "chapter.txt:4" "$TMP/out" "staged line reported"
if git commit -q -m "again" >/dev/null 2>&1; then fail "staged masked word committed"; else pass; fi
git add chapter.txt
expect_exit 0 "clean once the fix is staged" -- $J check --staged
# pathspecs and subfolders: names are shown relative to where you are
mkdir -p book/vol1
printf '子丨弹丨膛，好。\n' >book/vol1/a.txt
git add book
(cd book && $J check --staged --format json >"$TMP/sub.json")
if python3 -c 'import json,sys; fs=json.load(open(sys.argv[1])); assert fs and all(f["file"]=="vol1/a.txt" for f in fs), fs' "$TMP/sub.json"; then pass; else fail "--staged names from a subfolder"; cat "$TMP/sub.json" >&2; fi
expect_exit 0 "--staged with a pathspec that excludes it" -- $J check --staged chapter.txt
git commit -q --no-verify -m "book" >/dev/null
# the hook reads prose files only: a staged program or JSON file with
# Chinese strings does not stop the commit
printf 'int main(void){ printf("你好,世界.\\n"); }\n' >main.c
printf '{"msg": "你好,世界."}\n' >a.json
git add main.c a.json
expect_exit 0 "--staged skips .c and .json" -- $J check --staged
git rm -q --cached main.c a.json && rm -f main.c a.json

# 3. install keeps an existing hook and is idempotent; uninstall takes only ours
printf '#!/bin/sh\necho other-hook-ran\n' >.git/hooks/pre-commit
$J hook install >/dev/null && $J hook install >/dev/null
if [ "$(grep -c '>>> jinghua >>>' .git/hooks/pre-commit)" = 1 ] && grep -q other-hook-ran .git/hooks/pre-commit; then pass; else
	fail "hook install twice: block duplicated or other hook lost"; cat .git/hooks/pre-commit >&2
fi
expect_exit 0 "hook uninstall" -- $J hook uninstall
if grep -q jinghua .git/hooks/pre-commit || ! grep -q other-hook-ran .git/hooks/pre-commit; then fail "uninstall"; else pass; fi
$J hook install -- --fail-on error >/dev/null
expect_grep "check --staged '--fail-on' 'error'" .git/hooks/pre-commit "hook install passes options"
expect_exit 2 "hook outside a repository" -- env GIT_DIR=/nonexistent $J hook install

# 4. --diff-base: only lines added or changed since the revision (on the
# fixed test rules: the shipped ones grow)
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
printf '旧的一行甩出了*一枪。\n中间。\n' >old.txt
git add old.txt && git commit -q --no-verify -m old
base=$(git rev-parse HEAD)
printf '旧的一行甩出了*一枪。\n中间。\n新的一行也甩出了*一枪。\n' >old.txt
printf '新文件甩出了*一枪。\n' >new.txt
$J check --format json --diff-base "$base" old.txt new.txt >"$TMP/db.json"
if python3 -c 'import json,sys; fs=[(f["file"],f["line"]) for f in json.load(open(sys.argv[1]))]
assert fs==[("old.txt",3),("new.txt",1)], fs' "$TMP/db.json"; then pass; else fail "--diff-base lines"; cat "$TMP/db.json" >&2; fi
git add old.txt new.txt
$J check --format json --staged --diff-base HEAD >"$TMP/dbs.json"
if python3 -c 'import json,sys; fs=sorted((f["file"],f["line"]) for f in json.load(open(sys.argv[1])))
assert fs==[("new.txt",1),("old.txt",3)], fs' "$TMP/dbs.json"; then pass; else fail "--staged --diff-base"; cat "$TMP/dbs.json" >&2; fi
expect_exit 2 "--diff-base with a bad revision" -- $J check --diff-base no-such-rev old.txt
expect_exit 2 "fix --staged is refused" -- $J fix --staged

# 5. .pre-commit-hooks.yaml: the hooks the pre-commit framework reads
python3 - "$SRCDIR/.pre-commit-hooks.yaml" <<'PY' 2>"$TMP/yaml.err" && pass || { fail ".pre-commit-hooks.yaml"; cat "$TMP/yaml.err" >&2; }
import sys, yaml
hooks = yaml.safe_load(open(sys.argv[1]))
ids = {h["id"]: h for h in hooks}
assert {"jinghua", "jinghua-fix"} <= set(ids), ids
for h in hooks:
    assert {"id", "name", "entry", "language"} <= set(h), h
    assert h["entry"].split()[0] == "jinghua", h
PY
if command -v pre-commit >/dev/null; then
	# the framework itself, with the hook repository made from our file
	H=$TMP/hookrepo
	mkdir -p "$H" && cp "$SRCDIR/.pre-commit-hooks.yaml" "$H/" && (cd "$H" && git init -q . && git add . && git commit -q -m hooks)
	mkdir -p "$TMP/pc" && cd "$TMP/pc" && git init -q .
	printf '他甩出了*一枪。\n' >a.txt && git add a.txt
	PATH="$(dirname "$J"):$PATH" PRE_COMMIT_HOME="$TMP/pchome" pre-commit try-repo "$H" jinghua --files a.txt >"$TMP/pc.out" 2>&1
	if [ $? -eq 1 ] && grep -q "censor.mask" "$TMP/pc.out"; then pass; else fail "pre-commit try-repo did not stop on a mask"; cat "$TMP/pc.out" >&2; fi
	printf '他甩出了一枪。\n' >a.txt && git add a.txt
	if PATH="$(dirname "$J"):$PATH" PRE_COMMIT_HOME="$TMP/pchome" pre-commit try-repo "$H" jinghua --files a.txt >"$TMP/pc.out" 2>&1; then pass; else
		fail "pre-commit try-repo failed on clean text"; cat "$TMP/pc.out" >&2
	fi
fi
finish
