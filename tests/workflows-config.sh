#!/bin/bash
# workflows-config.sh — .jinghua.ini (found upward, --config, --no-config),
# per-rule severity and parameters, per-path sections, accepted words,
# exclusions, extra rule folders, profiles, and inline switches; every wrong
# key or value is an error with file and line and exit 2.
. "$(dirname "$0")/lib.sh"
J=$JINGHUA
export JINGHUA_RULES=$SRCDIR/tests/data/workflows/rules
P=$TMP/proj
mkdir -p "$P/drafts/deep" "$P/vendor" "$P/sub"
cd "$P" || exit 1
# what a file damaged in three ways reports
damaged() { printf '他甩出了*一枪，好。\n子丨弹丨膛，好。\n林林和林林，好。\n' >"$1"; }
damaged a.txt; damaged drafts/deep/b.txt; damaged vendor/c.txt; damaged sub/d.txt
rules_of() { python3 -c 'import json,sys; print(" ".join(sorted(set("%s:%s:%d" % (f["rule"], f["severity"], f["line"]) for f in json.load(open(sys.argv[1]))))))' "$1"; }

$J check --format json --no-config a.txt >"$TMP/none.json"
expect_grep '"rule":"censor.mask"' "$TMP/none.json" "no config: mask found"

cat >.jinghua.ini <<'INI'
# the project's settings
ignore = typo.doubled-char
words = 甩出了*一枪
exclude = vendor/

[censor.separator]
severity = warning

[path:drafts/**]
fail-on = never
ignore = censor.separator
INI
$J check --format json a.txt >"$TMP/a.json"
if [ "$(rules_of "$TMP/a.json")" = "censor.separator:warning:2 punct.run-on:info:3" ] || [ "$(rules_of "$TMP/a.json")" = "censor.separator:warning:2" ]; then pass; else
	fail "config: ignore, severity, accepted word: $(rules_of "$TMP/a.json")"; fi
# found upward from the file, whatever the current folder
(cd /; $J check --format json "$P/sub/d.txt") >"$TMP/d.json"
if [ "$(rules_of "$TMP/d.json")" = "censor.separator:warning:2" ]; then pass; else fail "config found upward"; fi
# per-path section: drafts/** do not fail and do not report separators
expect_exit 0 "fail-on = never in [path:drafts/**]" -- $J check drafts/deep/b.txt
# exclude applies to files found in folders, not to files named
$J check --format json . >"$TMP/all.json" 2>/dev/null
if grep -q vendor "$TMP/all.json"; then fail "exclude = vendor/ ignored"; else pass; fi
expect_exit 1 "an excluded file named on the command line is checked" -- $J check vendor/c.txt
# a glob with many stars against a long name that almost matches: linear
# enough to finish (a backtracking matcher takes minutes here).  Bounded in
# CPU seconds (ulimit -t: exit 137 or 152), so that load cannot fail it;
# the wall-time limit is only a backstop
G=$TMP/glob; mkdir -p "$G"; long=$(printf 'a%.0s' $(seq 60))
printf '他甩出了*一枪。\n' >"$G/$long.txt"
printf 'exclude = *a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b, **/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n' >"$G/.jinghua.ini"
expect_exit 1 "many-star glob on a long name finishes and does not match" -- \
	timeout 600 sh -c 'ulimit -t 20 && exec "$0" check "$1"' "$J" "$G"
printf 'exclude = %s\n' "$(printf 'x%.0s' $(seq 300))" >"$TMP/midglob.ini"
expect_exit 1 "a config line longer than 200 bytes is read whole" -- $J check --config "$TMP/midglob.ini" a.txt
printf 'exclude = %s\n' "$(printf 'x%.0s' $(seq 1100))" >"$TMP/longglob.ini"
expect_exit 2 "a glob longer than 1024 bytes is a config error" -- $J check --config "$TMP/longglob.ini" a.txt
expect_grep 'longglob.ini:1:' "$TMP/err" "long glob error names file and line"
# the command line wins over the config
$J check --format json --select censor.mask a.txt >"$TMP/sel.json"
if [ "$(rules_of "$TMP/sel.json")" = "" ]; then pass; else fail "--select with an accepted word: $(rules_of "$TMP/sel.json")"; fi
$J check --format json --extend-select typo a.txt >"$TMP/ext.json"
expect_grep '"rule":"typo.doubled-char"' "$TMP/ext.json" "--extend-select re-enables"
expect_exit 0 "--no-config ... --fail-on never" -- $J check --no-config --fail-on never a.txt
$J check --format json --no-config a.txt >"$TMP/nc.json"
expect_grep '"rule":"censor.mask"' "$TMP/nc.json" "--no-config ignores .jinghua.ini"
# --config FILE replaces the search
printf 'select = censor.separator\n' >"$TMP/other.ini"
$J check --format json --config "$TMP/other.ini" a.txt >"$TMP/cf.json"
if [ "$(rules_of "$TMP/cf.json")" = "censor.separator:error:2" ]; then pass; else fail "--config: $(rules_of "$TMP/cf.json")"; fi

# severity lists, extend, words-file
printf 'extend = ../.jinghua.ini\nwords-file = words.txt\n[censor.separator]\nseverity = info\n' >sub/.jinghua.ini
printf '# names\n林林\n' >sub/words.txt
$J check --format json --extend-select typo sub/d.txt >"$TMP/ext2.json"
if [ "$(rules_of "$TMP/ext2.json")" = "censor.separator:info:2" ]; then pass; else fail "extend + words-file: $(rules_of "$TMP/ext2.json")"; fi
printf 'severity = censor:info, typo.doubled-char:error\n' >sub/.jinghua.ini
$J check --format json sub/d.txt >"$TMP/sev.json"
if [ "$(rules_of "$TMP/sev.json")" = "censor.mask:info:1 censor.separator:info:2 typo.doubled-char:error:3" ]; then pass; else fail "severity list: $(rules_of "$TMP/sev.json")"; fi
rm sub/.jinghua.ini

# rule parameters from the config reach the check; bad ones name the config line
printf 'select = punct.run-on\n\n[punct.run-on]\nlimit = 5\n' >"$TMP/param.ini"
printf '这是一个没有任何标点的很长的句子\n' >"$TMP/long.txt"
expect_exit 0 "without the parameter: no run-on" -- $J check --no-config --select punct.run-on --fail-on info "$TMP/long.txt"
expect_exit 1 "parameter limit = 5 applies" -- $J check --config "$TMP/param.ini" --fail-on info "$TMP/long.txt"
expect_grep "punct.run-on" "$TMP/out" "run-on reported with the lower limit"
printf 'select = punct.run-on\n\n[punct.run-on]\nlimit = many\n' >"$TMP/param.ini"
expect_exit 2 "bad parameter value" -- $J check --config "$TMP/param.ini" "$TMP/long.txt"
expect_grep "param.ini:4:.*limit" "$TMP/err" "bad parameter: config file and line"

# every kind of mistake: file, line, exit 2, nothing checked
bad_config() { # DESCRIPTION LINE CONTENT
	printf '%b' "$3" >"$TMP/bad.ini"
	expect_exit 2 "$1" -- $J check --config "$TMP/bad.ini" a.txt
	expect_grep "bad.ini:$2: error" "$TMP/err" "$1: file and line"
	if [ -s "$TMP/out" ]; then fail "$1: findings printed despite the error"; else pass; fi
}
bad_config "unknown key" 2 '# c\nbogus = 1\n'
bad_config "bad fail-on" 1 'fail-on = sometimes\n'
bad_config "unknown rule in select" 3 '\n\nselect = censor.nosuch\n'
bad_config "unknown rule section" 1 '[censor.nosuch]\nseverity = info\n'
bad_config "bad severity" 2 '[censor.mask]\nseverity = fatal\n'
bad_config "bad severity list" 1 'severity = censor.mask\n'
bad_config "bad variant" 1 'variant = klingon\n'
bad_config "bad type" 1 'type = html\n'
bad_config "bad encoding" 1 'encoding = no-such-charset\n'
bad_config "unknown section" 1 '[whatever]\nx = 1\n'
bad_config "missing rules folder" 1 'rules = no/such/dir\n'
bad_config "unknown profile" 1 'profile = no-such-profile\n'
bad_config "syntax error" 2 'ignore = typo\nthis line has no equals sign\n'
bad_config "unknown key in a path section" 2 '[path:*.txt]\nlimit = 3\n'
expect_exit 2 "--config missing" -- $J check --config "$TMP/nope.ini" a.txt
expect_grep "nope.ini" "$TMP/err" "missing config named"

# extra rules folder and a profile, both from the config
mkdir -p rules-extra/profiles
printf '[typo.house-style]\nkind = regex\npattern = 酱紫\nmessage = 不用“酱紫”\nfix = 这样子\nsafety = safe\nbad = 就酱紫\nfixed = 就这样子\ngood = 这样子\n' >rules-extra/house.rules
printf '# a test profile\ndisable = censor\nenable = typo\n\n[typo.house-style]\nseverity = error\n' >rules-extra/profiles/strict.profile
printf 'rules = rules-extra\nprofile = strict\n' >"$P/.jinghua.ini"
printf '甩出了*一枪，就酱紫。\n' >p.txt
$J check --format json p.txt >"$TMP/p.json"
if [ "$(rules_of "$TMP/p.json")" = "typo.house-style:error:1" ]; then pass; else fail "rules folder + profile: $(rules_of "$TMP/p.json")"; fi
$J check --format json --profile "$P/rules-extra/profiles/strict.profile" --no-config --rules rules-extra p.txt >"$TMP/p2.json"
if [ "$(rules_of "$TMP/p2.json")" = "typo.house-style:error:1" ]; then pass; else fail "--profile PATH"; fi
expect_exit 2 "--profile unknown" -- $J check --profile no-such p.txt
printf 'bogus = 1\n' >rules-extra/profiles/broken.profile
expect_exit 2 "broken profile" -- $J check --profile broken p.txt
expect_grep "broken.profile:1: error" "$TMP/err" "profile error with file and line"
rm .jinghua.ini

# inline switches, in plain text
cat >sw.txt <<'TXT'
一甩出了*一枪。
<!-- jinghua-disable censor.mask -->
二甩出了*一枪，子丨弹丨膛，好。
<!-- jinghua-enable censor.mask -->
三甩出了*一枪。
<!-- jinghua-disable-next-line -->
四甩出了*一枪，子丨弹丨膛，好。
五甩出了*一枪。<!-- jinghua-disable-line censor -->
<!-- jinghua-disable -->
六甩出了*一枪。
TXT
$J check --format json sw.txt >"$TMP/sw.json"
got=$(python3 -c 'import json,sys; print(" ".join("%s:%d" % (f["rule"].split(".")[1], f["line"]) for f in json.load(open(sys.argv[1]))))' "$TMP/sw.json")
if [ "$got" = "mask:1 separator:3 separator:3 mask:5" ]; then pass; else fail "inline switches: $got"; fi
printf '<!-- jinghua-disable censor.nosuch -->\n甩出了*一枪。\n' >sw2.txt
expect_exit 1 "switch naming an unknown rule" -- $J check sw2.txt
expect_grep "sw2.txt:1: warning: jinghua-disable: no rule or family 'censor.nosuch'" "$TMP/err" "unknown rule in a switch is a warning"
# fix leaves switched-off text alone
printf '<!-- jinghua-disable-next-line -->\n子丨弹丨膛，好。\n子丨弹丨膛，好。\n' >sw3.txt
$J fix --stdout sw3.txt >"$TMP/sw3" 2>/dev/null
if [ "$(sed -n 2p "$TMP/sw3")" = "子丨弹丨膛，好。" ] && [ "$(sed -n 3p "$TMP/sw3")" = "子弹膛，好。" ]; then pass; else fail "fix inside a switched-off line"; cat "$TMP/sw3" >&2; fi
# `select = ,` selects nothing: an error, as --select= is, never every rule off
mkdir -p "$TMP/selnone" && printf '[jinghua]\nselect = ,\n' >"$TMP/selnone/.jinghua.ini"
printf '他把子丨弹压进了枪膛。\n' >"$TMP/selnone/a.txt"
expect_exit 2 "select = , in a config" -- $J check "$TMP/selnone/a.txt"
expect_grep ".jinghua.ini:2: error: select: no rule selected" "$TMP/err" "select = , says where"
# a key whose later value replaces the earlier, given twice in a section:
# a warning naming both lines, and the later value is used; lists add up
mkdir -p "$TMP/dup" && printf '他把子丨弹压进了枪膛。\n' >"$TMP/dup/a.txt"
printf 'fail-on = never\nwords = 甲\nwords = 乙\n[censor.separator]\nseverity = error\n\nseverity = info\n' >"$TMP/dup/.jinghua.ini"
$J check --format json "$TMP/dup/a.txt" >"$TMP/dup.json" 2>"$TMP/err"
expect_grep ".jinghua.ini:7: warning: key 'severity' given again (first on line 5): the later value is used" "$TMP/err" "duplicate key in a rule section"
if grep -q "words" "$TMP/err"; then fail "a list key given twice warned"; else pass; fi
if grep -q '"rule":"censor.separator","severity":"info"' "$TMP/dup.json"; then pass; else fail "duplicate key: the later value is not used"; fi
printf 'fail-on = never\nvariant = hans\n[path:*.txt]\ntype = text\ntype = markdown\n' >"$TMP/dup/.jinghua.ini"
expect_exit 0 "duplicate key is a warning" -- $J check "$TMP/dup/a.txt"
expect_grep ".jinghua.ini:5: warning: key 'type' given again (first on line 4)" "$TMP/err" "duplicate key in a path section"
# a problem in a file another names says which line named it
mkdir -p "$TMP/via/sub"
printf 'bogus = 1\n' >"$TMP/via/base.ini"
printf '# x\nextend = ../base.ini\n' >"$TMP/via/sub/.jinghua.ini"
printf '好。\n' >"$TMP/via/sub/a.txt"
expect_exit 2 "error in an extended config" -- $J check "$TMP/via/sub/a.txt"
expect_grep "base.ini:1: error: unknown key 'bogus'.*(read for extend = on .*sub/.jinghua.ini:2)" "$TMP/err" "extend: target and the referring line"
mkdir -p "$TMP/via/rules-x/profiles"
printf 'disable = censor\nbogus = 2\n' >"$TMP/via/rules-x/profiles/odd.profile"
printf 'rules = rules-x\n\nprofile = odd\n' >"$TMP/via/.jinghua.ini"
printf '好。\n' >"$TMP/via/b.txt"
expect_exit 2 "error in a profile" -- $J check "$TMP/via/b.txt"
expect_grep "odd.profile:2: error: unknown key 'bogus'.*(read for profile = on .*via/.jinghua.ini:3)" "$TMP/err" "profile: target and the referring line"
printf 'words-file = no-such.txt\n' >"$TMP/via/.jinghua.ini"
expect_exit 2 "missing words-file" -- $J check "$TMP/via/b.txt"
expect_grep "via/.jinghua.ini:1: error: cannot read words-file .*no-such.txt" "$TMP/err" "words-file: the referring line and the target"
finish
