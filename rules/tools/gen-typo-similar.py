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
  Shape: the confusions of shape-based input and of reading, from two
  codes of Unihan: Cangjie codes (kCangjie) of three or more letters that
  differ by one letter inserted, deleted or replaced (操 QRRD / 噪 RRRD),
  or four-corner codes (kFourCornerCode) at most one digit apart whose
  Cangjie codes are at most two edits apart and whose stroke counts
  (kTotalStrokes) differ by at most two (己 1771 SU / 已 1771 RU, 固 6060 /
  困 6090, 目 / 日, 宣 / 宜: short codes, which one letter apart alone would
  make look like dozens of others); at most twelve, the closest first (the
  two distances summed, then the stroke counts).  On the SIGHAN training
  sets this covers 168 of the 2,145 slips that share no syllable, against
  95 for Cangjie alone at eight.

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
import os
import sys
import unicodedata

import lexicons
from lexicons import package_version as version

MAX_SHAPE = 12


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


def edits(a, b):
    """Levenshtein distance of two codes."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diag, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (x != y))
    return row[-1]


def corner_gap(a, b):
    """Digits in which two lists of four-corner codes differ, at best."""
    return min((sum(p != q for p, q in zip(x, y)) for x in a for y in b), default=9)


def shapes(chars, cangjie, corners, strokes):
    """Look-alikes of each character, closest first."""
    cj = {cp: cangjie.get(cp, "") for cp in chars}
    fc = {cp: [x[:4] for x in corners.get(cp, "").split()] for cp in chars}
    st = {cp: int(strokes.get(cp, "0").split()[0]) for cp in chars}
    # index by each code with one position wildcarded (and, for Cangjie,
    # one letter dropped), so that a character meets only its near codes
    index = {}
    for cp in chars:
        keys = {("f", x[:k] + "?" + x[k + 1:]) for x in fc[cp] for k in range(4)}
        c = cj[cp]
        keys |= {("c", c[:k] + "?" + c[k + 1:]) for k in range(len(c))}
        keys |= {("c", c[:k] + c[k + 1:]) for k in range(len(c))} | {("c", c)}
        for key in keys:
            index.setdefault(key, set()).add(cp)
    out = {}
    for cp in chars:
        c = cj[cp]
        if not c:
            continue
        pool = set()
        for x in fc[cp]:
            for k in range(4):
                pool |= index.get(("f", x[:k] + "?" + x[k + 1:]), set())
        for k in range(len(c) + 1):
            pool |= index.get(("c", c[:k] + "?" + c[k + 1:]), set()) if k < len(c) else set()
            pool |= index.get(("c", c[:k] + c[k + 1:]), set()) if k < len(c) else set()
            pool |= index.get(("c", c[:k] + "?" + c[k:]), set())
        pool |= index.get(("c", c), set())
        near = []
        for y in pool - {cp}:
            if not cj[y]:
                continue
            e, f, ds = edits(c, cj[y]), corner_gap(fc[cp], fc[y]), abs(st[cp] - st[y])
            if (e == 1 and len(c) >= 3) or (f <= 1 and e <= 2 and ds <= 2):
                near.append((min(e, 2) + min(f, 2), ds, y))
        if near:
            out[cp] = [y for _, _, y in sorted(near)[:MAX_SHAPE]]
    return out


def traditional_forms():
    return {s: t for s, t in lexicons.ocd2("STCharacters") if len(s) == 1 and t != [""]}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-typo-similar.py DATA-DIR")
    rd = lexicons.unihan("Unihan_Readings.txt.bz2", ("kMandarin", "kTGHZ2013", "kXHC1983"))
    var = lexicons.unihan("Unihan_Variants.txt.bz2",
                          ("kTraditionalVariant", "kSemanticVariant", "kZVariant"))
    dl = lexicons.unihan("Unihan_DictionaryLikeData.txt.bz2", ("kCangjie", "kFourCornerCode"))
    strokes = lexicons.unihan("Unihan_IRGSources.txt.bz2", ("kTotalStrokes",))["kTotalStrokes"]
    chars = sorted(cp for cp in rd["kTGHZ2013"] if 0x4E00 <= cp <= 0x9FFF)
    shape = shapes(chars, dl["kCangjie"], dl["kFourCornerCode"], strokes)
    uv = version("unicode-data")
    with open(os.path.join(sys.argv[1], "typo-similar.tsv"), "w", encoding="utf-8") as w:
        w.write("# typo-similar.tsv — Mandarin syllables and look-alikes of common characters.\n")
        w.write("# Table of typo.context (rules/typo.rules).  GENERATED by\n")
        w.write("# rules/tools/gen-typo-similar.py; do not edit, regenerate.\n")
        w.write("# Source: Unihan (kTGHZ2013, kMandarin, kXHC1983, kCangjie, kFourCornerCode,\n#   kTotalStrokes),\n")
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
