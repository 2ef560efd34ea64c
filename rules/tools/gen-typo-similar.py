#!/usr/bin/env python3
"""Write rules/data/typo-similar.tsv and rules/data/typo-s2t.tsv, the
confusion tables of typo.context.

typo-similar.tsv: for each character of the General Standard Chinese
Characters list (the 8105 characters with a kTGHZ2013 reading) its
Mandarin syllables, tones dropped, every modern reading (得 de dei: an
input method offers a character under each of its readings), and the
characters of the same list that look like it.

  Readings: kMandarin, kTGHZ2013 and kXHC1983 (modern dictionaries; the
  classical readings of kHanyuPinyin would make every character sound
  like dozens of others).
  Shape: Cangjie codes (kCangjie) of three or more letters that differ by
  one letter inserted, deleted or replaced (操 QRRD / 噪 RRRD), the
  confusions of shape-based input and of reading; at most eight, those
  with the closest stroke count (kTotalStrokes) first.

typo-s2t.tsv: each character of that list that OpenCC writes otherwise in
traditional text, with its traditional forms, the usual one first (复 →
復 複 覆), and each that has variants in Unihan (kTraditionalVariant,
kSemanticVariant, kZVariant: 着 → 著).  typo.context writes its
suggestion for traditional text in the first OpenCC form, and outside
simplified text leaves alone a character that is one of the forms or
variants of the candidate (反覆 is 反复 in simplified text, 著 is 着: a
spelling, not a typo).

Sources: the Unihan database of Unicode 15.0 as shipped by Debian's
unicode-data (Unicode licence), and OpenCC's STCharacters dictionary
(Debian libopencc-data, Apache-2.0), dumped with opencc_dict; see NOTICE.

    apt-get install -y unicode-data opencc
    python3 rules/tools/gen-typo-similar.py rules/data
"""
import bz2
import os
import subprocess
import sys
import tempfile
import unicodedata

UNIHAN = "/usr/share/unicode/"
OPENCC = "/usr/share/opencc/STCharacters.ocd2"
MAX_SHAPE = 8


def read(name, fields):
    out = {f: {} for f in fields}
    with bz2.open(UNIHAN + name, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("U+"):
                cp, key, value = line.rstrip("\n").split("\t", 2)
                if key in out:
                    out[key][int(cp[2:], 16)] = value
    return out


def plain(syllable):
    s = unicodedata.normalize("NFD", syllable)
    return "".join(ch for ch in s if not unicodedata.combining(ch)).replace("ü", "v")


def readings(cp, rd):
    """Toneless syllables, kMandarin's first: the most common reading."""
    out = []
    for field in ("kMandarin", "kTGHZ2013", "kXHC1983"):
        for token in rd[field].get(cp, "").split():
            for syl in token.split(":", 1)[-1].split(","):
                syl = plain(syl)
                if syl.isalpha() and syl not in out:
                    out.append(syl)
    return out


def one_edit(a, b):
    """a and b differ by one letter inserted, deleted or replaced."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    if len(a) > len(b):
        a, b = b, a
    return any(b[:k] + b[k + 1:] == a for k in range(len(b)))


def shapes(chars, cangjie, strokes):
    by_len = {}
    for cp in chars:
        code = cangjie.get(cp, "")
        if len(code) >= 3:
            by_len.setdefault(len(code), []).append(cp)
    out = {}
    for cp in chars:
        code = cangjie.get(cp, "")
        if len(code) < 3:
            continue
        near = [y for n in (len(code) - 1, len(code), len(code) + 1)
                for y in by_len.get(n, ()) if y != cp and one_edit(code, cangjie[y])]
        st = int(strokes.get(cp, "0").split()[0])
        near.sort(key=lambda y: (abs(int(strokes.get(y, "0").split()[0]) - st), y))
        if near:
            out[cp] = near[:MAX_SHAPE]
    return out


def traditional_forms():
    with tempfile.TemporaryDirectory() as tmp:
        txt = os.path.join(tmp, "st.txt")
        subprocess.run(["opencc_dict", "-i", OPENCC, "-o", txt, "-f", "ocd2", "-t", "text"],
                       check=True)
        forms = {}
        with open(txt, encoding="utf-8") as f:
            for line in f:
                s, _, t = line.rstrip("\n").partition("\t")
                if len(s) == 1 and t:
                    forms[s] = t.split()
        return forms


def version(pkg):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-typo-similar.py DATA-DIR")
    rd = read("Unihan_Readings.txt.bz2", ("kMandarin", "kTGHZ2013", "kXHC1983"))
    var = read("Unihan_Variants.txt.bz2", ("kTraditionalVariant", "kSemanticVariant", "kZVariant"))
    cangjie = read("Unihan_DictionaryLikeData.txt.bz2", ("kCangjie",))["kCangjie"]
    strokes = read("Unihan_IRGSources.txt.bz2", ("kTotalStrokes",))["kTotalStrokes"]
    chars = sorted(cp for cp in rd["kTGHZ2013"] if 0x4E00 <= cp <= 0x9FFF)
    shape = shapes(chars, cangjie, strokes)
    uv = version("unicode-data")
    with open(os.path.join(sys.argv[1], "typo-similar.tsv"), "w", encoding="utf-8") as w:
        w.write("# typo-similar.tsv — Mandarin syllables and look-alikes of common characters.\n")
        w.write("# Table of typo.context (rules/typo.rules).  GENERATED by\n")
        w.write("# rules/tools/gen-typo-similar.py; do not edit, regenerate.\n")
        w.write("# Source: Unihan (kTGHZ2013, kMandarin, kXHC1983, kCangjie, kTotalStrokes),\n")
        w.write("#   Debian unicode-data %s, Unicode licence (see NOTICE).\n" % uv)
        w.write("# Columns: character<TAB>syllables, tones dropped, most common first"
                "<TAB>look-alikes.\n")
        for cp in chars:
            syl = readings(cp, rd)
            if syl:
                w.write("%s\t%s\t%s\n" % (chr(cp), " ".join(syl),
                                          "".join(map(chr, shape.get(cp, ())))))
    forms = traditional_forms()
    with open(os.path.join(sys.argv[1], "typo-s2t.tsv"), "w", encoding="utf-8") as w:
        w.write("# typo-s2t.tsv — traditional forms of simplified characters, usual first.\n")
        w.write("# Table of typo.context (rules/typo.rules).  GENERATED by\n")
        w.write("# rules/tools/gen-typo-similar.py; do not edit, regenerate.\n")
        w.write("# Source: OpenCC %s (STCharacters), Apache-2.0 licence (see NOTICE).\n"
                % version("libopencc-data"))
        w.write("# Source of the variants: Unihan (kTraditionalVariant, kSemanticVariant,\n")
        w.write("#   kZVariant), Debian unicode-data %s, Unicode licence.\n" % uv)
        w.write("# Columns: character<TAB>traditional forms (OpenCC)<TAB>other variants.\n")
        for cp in chars:
            s = chr(cp)
            t = forms.get(s, [])
            if t == [s]:
                t = []
            v = []
            for field in var.values():
                for u in field.get(cp, "").split():
                    ch = chr(int(u.split("<")[0][2:], 16))
                    if ch != s and ch not in t and ch not in v:
                        v.append(ch)
            if t or v:
                w.write("%s\t%s\t%s\n" % (s, "".join(t), "".join(v)))


if __name__ == "__main__":
    main()
