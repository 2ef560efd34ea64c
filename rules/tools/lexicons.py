"""The sources the generators of rules/tools read, read once here: jieba's
dictionary, friso's lexicon, OpenCC (the opencc command and the dumped
.ocd2 dictionaries), Unihan (Debian's unicode-data), the Debian versions
cited in the generated headers, and the parameters of a rule they generate
data for.

Imported by the gen-*.py scripts and add-traditional.py (they run as
`python3 rules/tools/gen-….py`, so this folder is on sys.path).
"""
import bz2
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

JIEBA = "/usr/lib/python3/dist-packages/jieba/dict.txt"
JIEBA_CITE = "https://github.com/fxsjy/jieba, copyright 2012-2017 Sun Junyi"
FRISO = "/usr/share/friso/dict/UTF-8/lex-main.lex"
OCD = "/usr/share/opencc"
OPENCC_CONFIGS = ("s2t.json", "s2tw.json", "s2hk.json")
UNIHAN = "/usr/share/unicode/"
RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def package_version(name):
    """The Debian version of an installed package, for a data file's header."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def sha16(raw):
    """The first 16 hex digits of the SHA-256 of a source, for a header."""
    return hashlib.sha256(raw).hexdigest()[:16]


class Jieba:
    """jieba's dict.txt: raw (its bytes, for the header's digest) and rows,
    (word, frequency, part of speech) in the file's order."""

    def __init__(self, path=JIEBA):
        self.path = path
        with open(path, "rb") as f:
            self.raw = f.read()
        self.rows = []
        for line in self.raw.decode("utf-8").splitlines():
            w, freq, pos = line.split()
            self.rows.append((w, int(freq), pos))

    def cite(self):
        """'jieba VERSION (dict.txt, sha256 DIGEST)', for a header."""
        return "jieba %s (%s, sha256 %s)" % (package_version("python3-jieba"),
                                             os.path.basename(self.path), sha16(self.raw))


def friso_words(path=FRISO):
    """friso's main lexicon: (its bytes, its words in the file's order)."""
    with open(path, "rb") as f:
        raw = f.read()
    return raw, [l.split("/")[0].strip() for l in raw.decode("utf-8").splitlines() if l.strip()]


def need_opencc(hint=""):
    if not shutil.which("opencc"):
        sys.exit("opencc not found (apt-get install opencc)" + hint)


def opencc(config, texts):
    """Each text converted by `opencc -c config`, one line each."""
    if not texts:
        return []
    out = subprocess.run(["opencc", "-c", config], input="\n".join(texts) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(texts):
        sys.exit("opencc returned %d lines for %d texts" % (len(out), len(texts)))
    return out


def opencc_pairs(words):
    """(simplified, traditional) for each word whose s2t, s2tw or s2hk form
    differs from it, configuration by configuration."""
    for config in OPENCC_CONFIGS:
        for s, t in zip(words, opencc(config, words)):
            if t != s:
                yield s, t


def opencc_cite():
    """'OpenCC VERSION (s2t.json, s2tw.json, s2hk.json)', for a header."""
    return "OpenCC %s (%s)" % (package_version("opencc"), ", ".join(OPENCC_CONFIGS))


def ocd2(name):
    """The entries of OpenCC's NAME.ocd2 (dumped with opencc_dict), in its
    order: (key, [values])."""
    with tempfile.TemporaryDirectory() as d:
        txt = os.path.join(d, name + ".txt")
        subprocess.run(["opencc_dict", "-i", os.path.join(OCD, name + ".ocd2"), "-o", txt,
                        "-f", "ocd2", "-t", "text"], check=True)
        with open(txt, encoding="utf-8") as f:
            return [(k, v.split(" ")) for k, _, v in
                    (line.rstrip("\n").partition("\t") for line in f)]


def unihan(name, fields):
    """The FIELDS of Unihan's NAME (a .txt.bz2 of unicode-data): for each
    field, {code point: value}."""
    out = {f: {} for f in fields}
    with bz2.open(UNIHAN + name, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("U+"):
                cp, key, value = line.rstrip("\n").split("\t", 2)
                if key in out:
                    out[key][int(cp[2:], 16)] = value
    return out


def rule_param(family, section, key):
    """The value of KEY in [SECTION] of rules/FAMILY.rules."""
    path = os.path.join(RULES, family + ".rules")
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\[(.+)\]", line)
            if m:
                current = m.group(1)
            elif current == section and line.startswith(key):
                return line.split("=", 1)[1].strip()
    sys.exit("no %s in [%s] of %s" % (key, section, path))
