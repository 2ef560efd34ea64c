#!/usr/bin/env python3
"""Write rules/data/doubled-starts.tsv: the words that begin with a
function character of typo.doubled-function-char, for that rule.

在在逃 is 在 + 在逃, not a slip: a doubled function character is only a
duplication when the second copy does not start a word.  This list is the
words it can start (在逃, 在场, 在线, 把手, 是非), in simplified and
traditional forms.  Left out, because a doubled character before them is a
slip: words of a pronoun (这个, 我们), function words (就要, 也许, from
typo-doubled-words.tsv), names,
and the phrases a word list also holds (在他, 在做, 又是, 被打): the
character followed by a free word of its own.

Sources: jieba's dictionary (words of frequency >= MIN_FREQ, names left
out) and friso's main lexicon, which has words jieba lacks (在逃, 在岗,
在途).  friso also lists phrases, so a word found only there is kept when
its remainder is one character that is neither a function character nor a
frequent free word (jieba frequency < MAX_FREE, parts of speech other than
pronoun, preposition, conjunction, particle, adverb, numeral, measure word
and locality), or two characters that are no word in jieba.

Needs Debian's python3-jieba, friso-dict and opencc:
    apt-get install -y python3-jieba friso-dict opencc
    python3 rules/tools/gen-doubled-starts.py > rules/data/doubled-starts.tsv
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

JIEBA = "/usr/lib/python3/dist-packages/jieba/dict.txt"
FRISO = "/usr/share/friso/dict/UTF-8/lex-main.lex"
HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "..", "typo.rules")
FUNC = os.path.join(HERE, "..", "data", "typo-doubled-words.tsv")
HAN = re.compile(r"^[\u4e00-\u9fff]{2,3}$")
MIN_FREQ = 20
MAX_FREE = 20000
FUNC_POS = ("r", "p", "c", "u", "d", "y", "e", "m", "q", "f", "zg")
OPENCC_CONFIGS = ("s2t.json", "s2tw.json", "s2hk.json")


def package_version(name):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", name],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def opencc(config, words):
    out = subprocess.run(["opencc", "-c", config], input="\n".join(words) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    if len(out) != len(words):
        sys.exit("opencc returned %d lines for %d words" % (len(out), len(words)))
    return out


def rule_chars():
    """The simplified characters of typo.doubled-function-char's chars."""
    section = None
    for line in open(RULES, encoding="utf-8"):
        m = re.match(r"^\[(.+)\]", line)
        if m:
            section = m.group(1)
        elif section == "typo.doubled-function-char" and line.startswith("chars"):
            return line.split("=", 1)[1].strip()
    sys.exit("no chars in [typo.doubled-function-char] of " + RULES)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jieba", default=JIEBA)
    ap.add_argument("--friso", default=FRISO)
    args = ap.parse_args()
    if not shutil.which("opencc"):
        sys.exit("opencc not found (apt-get install opencc)")
    chars = set(rule_chars())
    func = set()
    for line in open(FUNC, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            func.add(line.split("\t")[0])
    jraw = open(args.jieba, "rb").read()
    jieba = {}
    for line in jraw.decode("utf-8").splitlines():
        w, f, pos = line.split()
        jieba[w] = (int(f), pos)
    fraw = open(args.friso, "rb").read()
    friso = [l.split("/")[0].strip() for l in fraw.decode("utf-8").splitlines() if l.strip()]

    def free_word(r):
        """Is r (the rest of a candidate) a word that stands alone, so that
        the candidate is a phrase (在 + 做) rather than a word (在逃)?"""
        if r[0] == "\0" or r in func:
            return True
        if r not in jieba:
            return False
        f, pos = jieba[r]
        if len(r) > 1:
            return True
        return f >= MAX_FREE or pos.startswith(FUNC_POS)

    # a pronoun (我, 这) before a word it starts (我们, 这个) is a stutter
    chars = {c for c in chars if not jieba.get(c, (0, ""))[1].startswith("r")}
    words = {}
    for w, (f, pos) in jieba.items():
        if HAN.match(w) and w[0] in chars and f >= MIN_FREQ and pos not in ("nr", "nrfg") \
                and w not in func and w[1] != w[0]:
            words[w] = str(f)
    for w in friso:
        if HAN.match(w) and w[0] in chars and w not in words and w not in func \
                and w[1] != w[0] and not free_word(w[1:]):
            if w in jieba and jieba[w][1] in ("nr", "nrfg"):
                continue
            words[w] = "friso"
    simplified = sorted(words)
    trad = {}
    for config in OPENCC_CONFIGS:
        for s, t in zip(simplified, opencc(config, simplified)):
            if t != s and t not in words and t not in func and HAN.match(t):
                trad[t] = s
    out = sys.stdout
    out.write("# doubled-starts.tsv — words that begin with a function character.\n")
    out.write("# Word list of typo.doubled-function-char (rules/typo.rules): a doubled\n")
    out.write("# character whose second copy starts one of them is two words (在 + 在逃).\n")
    out.write("# GENERATED by rules/tools/gen-doubled-starts.py; do not edit, regenerate.\n#\n")
    out.write("# Sources: the dictionary of jieba %s (%s, sha256 %s),\n"
              % (package_version("python3-jieba"), os.path.basename(args.jieba),
                 hashlib.sha256(jraw).hexdigest()[:16]))
    out.write("#   https://github.com/fxsjy/jieba, copyright 2012-2017 Sun Junyi, MIT\n")
    out.write("#   licence: words of 2-3 Han characters, frequency >= %d, no names;\n" % MIN_FREQ)
    out.write("# friso's lexicon, Debian friso-dict %s (%s, sha256 %s),\n"
              % (package_version("friso-dict"), os.path.basename(args.friso),
                 hashlib.sha256(fraw).hexdigest()[:16]))
    out.write("#   https://github.com/lionsoul2014/friso, copyright 2010-2021 lionsoul,\n")
    out.write("#   Apache-2.0 licence: the words jieba lacks that are not a phrase.\n")
    out.write("# Traditional forms: OpenCC %s (%s), Apache-2.0 (see NOTICE).\n"
              % (package_version("opencc"), ", ".join(OPENCC_CONFIGS)))
    out.write("# Columns: word<TAB>jieba frequency, friso, or the simplified word.\n")
    out.write("# %d simplified + %d traditional.\n" % (len(simplified), len(trad)))
    for w in simplified:
        out.write("%s\t%s\n" % (w, words[w]))
    for t in sorted(trad):
        out.write("%s\t%s\n" % (t, trad[t]))


if __name__ == "__main__":
    main()
