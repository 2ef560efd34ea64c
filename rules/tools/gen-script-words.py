#!/usr/bin/env python3
"""Generate rules/data/script-words.tsv, the word table of script.mixed-variant.

A character of the other variant is converted character by character only
when that cannot go wrong.  Where one simplified character has several
traditional forms (发: 發/髮, 干: 乾/幹/干) the word decides (头发 → 頭髮,
晒干 → 曬乾), and a stray traditional character pulls its neighbour with it
in simplified text (終於 → 终于, not 终於).  This table holds, for each
frequent jieba word, the ways it can be written half converted for which the
character-by-character fix would be wrong, with the right whole word:

    T<as written>   <traditional word>   (in a traditional text)
    S<as written>   <simplified word>    (in a simplified text)

and the characters valid in both variants that a conversion may change
(干 → 乾/幹, 於 → 于): next to one of them, a fix no word decides is unsafe.

    t<char>  <its traditional forms>     s<char>  <its simplified forms>

Sources: OpenCC 1.1.6 (Apache-2.0: s2tw.json, s2t.json, STCharacters,
TSCharacters), jieba dict.txt (MIT).  apt-get install -y opencc
libopencc-data python3-jieba; run from the top of the tree:
    /usr/bin/python3 rules/tools/gen-script-words.py [rules/data]
"""
import itertools
import os
import re
import sys

import lexicons
from lexicons import package_version as version

MIN_FREQ = 3   # 晒干 has 3: the table holds only words the character fix gets wrong
MAX_LEN = 4
NAME_TAGS = {"nr", "nrt", "nrfg", "ns", "nt", "nz"}
HAN = re.compile(r"^[\u4e00-\u9fff]+$")


def read_chars(path):
    """script-chars.tsv: {char: (variant, [forms])}."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c, v, forms = line.rstrip("\n").split("\t")
            out[c] = (v, forms.split("|"))
    return out


def mixes(a, b):
    """Every string with a[i] or b[i] at each position."""
    return {"".join(p) for p in itertools.product(*[(x,) if x == y else (x, y) for x, y in zip(a, b)])}


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "rules/data"
    chars = read_chars(os.path.join(outdir, "script-chars.tsv"))
    st, ts = dict(lexicons.ocd2("STCharacters")), dict(lexicons.ocd2("TSCharacters"))

    def charfix(m, minority):
        return "".join(chars[c][1][0] if c in chars and chars[c][0] == minority else c for c in m)

    words = [w for w, n, pos in lexicons.Jieba().rows
             if HAN.match(w) and 2 <= len(w) <= MAX_LEN and n >= MIN_FREQ and pos not in NAME_TAGS]
    t_tw = lexicons.opencc("s2tw.json", words)
    t_std = lexicons.opencc("s2t.json", words)
    # every word each written form may stand for; a form is kept when the
    # character fix is not one of them (顛覆 is 颠覆 by character already,
    # even though the rare jieba word 颠复 is 顛覆 in traditional too)
    # OpenCC's segmentation slips on some long words (交流干扰 -> 交流乾擾,
    # read as 流干 + 扰; 关联系数 -> 關聯繫數): a word whose conversion differs
    # from that of a shorter word inside it is left out (no word decides it)
    conv = {s: (tw, tstd) for s, tw, tstd in zip(words, t_tw, t_std)}

    def consistent(s, t, k):
        for i in range(len(s)):
            for j in range(i + 2, len(s) + 1):
                sub = s[i:j]
                if j - i < len(s) and sub in conv and len(conv[sub][k]) == j - i and conv[sub][k] != t[i:j]:
                    return False
        return True

    cands = {}
    for s, tw, tstd in zip(words, t_tw, t_std):
        if not consistent(s, tw, 0):
            continue
        if not consistent(s, tstd, 1):
            tstd = tw
        # a word of jieba with a character of the other variant in it (鸱鴞)
        # is no simplified word
        if any(chars.get(c, ("",))[0] == "hant" for c in s):
            continue
        for t in {tw, tstd}:
            if len(t) != len(s) or any(chars.get(c, ("",))[0] == "hans" for c in t):
                continue
            # traditional text (Taiwan forms): the simplified word, or half
            if t == tw:
                for m in mixes(s, t):
                    if m != t and any(chars.get(c, ("",))[0] == "hans" for c in m):
                        cands.setdefault("T" + m, set()).add(t)
            # simplified text: either traditional standard, half converted
            for m in mixes(t, s):
                if m != s and any(chars.get(c, ("",))[0] == "hant" for c in m):
                    cands.setdefault("S" + m, set()).add(s)
    table = {k: v for k, v in cands.items()
             if charfix(k[1:], "hans" if k[0] == "T" else "hant") not in v}
    rows = [(k, "|".join(sorted(v))) for k, v in table.items()]
    # characters of both variants a conversion can change
    for c, v in st.items():
        if len(c) == 1 and c not in chars and any(x != c for x in v):
            rows.append(("t" + c, "|".join(v)))
    for c, v in ts.items():
        if len(c) == 1 and c not in chars and any(x != c for x in v):
            rows.append(("s" + c, "|".join(v)))
    src = f"OpenCC {version('libopencc-data')} (Apache-2.0), jieba dict.txt {version('python3-jieba')} (MIT)"
    with open(os.path.join(outdir, "script-words.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# generated by rules/tools/gen-script-words.py from {src}\n")
        f.write("# T/S + word as written in a traditional/simplified text\tthe right word (a|b = candidates)\n")
        f.write("# t/s + character of both variants\tits forms in the other variant\n")
        for k, v in sorted(rows):
            f.write(f"{k}\t{v}\n")


if __name__ == "__main__":
    main()
