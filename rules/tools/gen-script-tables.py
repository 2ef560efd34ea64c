#!/usr/bin/env python3
"""Write the tables of the script.* variant checks (src/check_script.c):

  rules/data/script-chars.tsv    characters that exist only in simplified
                                 (hans) or only in traditional (hant)
                                 Chinese, with what each converts to;
  rules/data/script-phrases.tsv  conversion errors and leftovers inside
                                 traditional text: words whose characters
                                 are each valid traditional but which a
                                 phrase-level conversion writes otherwise
                                 (髮起 for 發起, 公裡 for 公里, 隻管 for 只管,
                                 剩余 for 剩餘), with context guards from
                                 word frequencies.
  rules/data/script-regional.tsv character pairs that differ only between
                                 the regional standards (裏/裡, 爲/為, 着/著).

Sources (see ../../NOTICE):
  OpenCC 1.1.6 dictionaries (Apache-2.0): STCharacters, STPhrases,
    TSCharacters, TWVariants, HKVariants, dumped from Debian's
    libopencc-data with opencc_dict; s2tw conversion with the opencc command.
  jieba 0.42.1 dict.txt (MIT), Debian python3-jieba: word list and
    frequencies, standing in for word segmentation.
  Unihan (Unicode licence), Debian unicode-data: kTGH, the 2013 General
    Standard list, whose characters are simplified Chinese.

    apt-get install -y opencc libopencc-data python3-jieba unicode-data
    python3 rules/tools/gen-script-tables.py rules/data

Why the phrase table is built this way: a naive character converter picks
one traditional form per simplified character (发→發 everywhere, so 头发
becomes 頭發), a phrase converter with a bad segmentation picks the wrong
phrase (果断发起 → 果斷髮起 via 斷髮), and a half-converted text keeps a
simplified character that is also a traditional one (剩余, 关系 → 關系).  For
every frequent word containing a character with several traditional forms we
take its correct form (OpenCC s2tw) and write each single-position
alternative that is not itself a correct word.  A window of text that
crosses a word boundary (那只|能) must not count: the guards list the
characters that, before or after the entry, form a more frequent word with
its first or last character.
"""
import os
import re
import sys

import lexicons
from lexicons import package_version as version

MIN_FREQ = 100        # jieba frequency of words taken into the phrase table
GUARD_FREQ = 50       # a competing word must be at least this frequent to matter
EXCLUDE = {"数里"}    # 数里 "a few li" is mostly 引數裡, 參數裡 (in the argument)
CROSS_FREQ = 30       # the same for a word in which the character is right
# Entries a reader must judge, and guards the word list cannot give.  皇後
# is 皇后 (empress), but also 堂皇|後 and 倉皇|後 (冠冕堂皇後, 倉皇後撤), after
# words too rare beside 皇后 to make guards: its fix is unsafe (the wrong
# form is its second candidate).  鍾意 "to like" (Hong Kong) is a word
# jieba lacks: 十分鍾意 is no 十分鐘.
JUDGEMENT = {"皇後"}
# Clocks and bells jieba knows but counts below MIN_FREQ (闹钟 61, 挂钟 15):
# a text converted character by character writes them 鬧鍾, 掛鍾, where 鍾
# is only "to love" (鍾情) or a surname.  Taken whatever their frequency or
# tag (原子钟 is "nr" in jieba).  Not words that start with 钟 (钟点, 钟摆):
# 鍾 is a surname there, 老鍾點了點頭.
CLOCK_WORDS = {"闹钟", "挂钟", "座钟", "摆钟", "丧钟", "铜钟", "生物钟", "自鸣钟",
               "一刻钟", "半分钟", "原子钟", "石英钟"}
EXTRA_NEXT_NOT = {"十分鍾": "意", "一髮": "千"}  # 一髮千鈞: the idiom, as 千鈞一髮
NAME_TAGS = {"nr", "nrt", "nrfg", "ns", "nt", "nz"}  # jieba tags of names: 马里, 里德
# Pairs (written, standard) that Taiwan's dictionaries accept both ways, so
# neither is a conversion error: 發布/發佈, 了解/瞭解, 平台/平臺, 匯報/彙報.
# The reverse (迴到 for 回到) is still one.
TOLERATED = {"布佈", "了瞭", "台臺", "匯彙", "盡儘", "周週", "占佔", "嘆歎", "抵牴", "毀燬",
             "折摺", "鑒鑑", "才纔", "念唸", "注註", "回迴", "吊弔", "雇僱", "熏燻", "閑閒",
             "凶兇", "姦奸", "托託", "游遊", "欲慾", "蹟跡", "采彩", "岩巖",
             # and those of the common words jieba tags as names (克扣/剋扣,
             # 升華/昇華, 巨變/鉅變, 管弦樂/管絃樂, 師娘/師孃, 蘇醒/甦醒,
             # 臺風 "stage manner" and 颱風 "typhoon" are two words)
             "克剋", "升昇", "巨鉅", "搜蒐", "朱硃", "梁樑", "弦絃", "夫伕",
             "娘孃", "幸倖", "蘇甦", "漓灕", "臺颱", "台颱"}
# Pairs in which the first is right only in another sense (扎針, 必須) or in a
# name (扎西): tolerated in the words jieba tags as names, where they came
# from, and nowhere else, since Taiwan writes 鬍鬚, 白鬚, 包紮, 駐紮 and 紮營.
TOLERATED_IN_NAMES = {"須鬚", "扎紮"}
# Two-character entries read across their edges: 額頭|發燙 is two words, not
# 頭髮 written wrong, though 額頭 and 發燙 are too rare beside 頭髮 to make
# guards.  Where the character before makes a word with the first character
# and the last makes one with the character after, a reader must choose:
# the edge rows ("+頭": what makes a word before and after 頭) list the
# characters of every two-character word of jieba (this frequency or more,
# names left out) or of friso's main lexicon, and the checker's fix there is
# unsafe.
EDGE_FREQ = 10
EDGE_MARK = "+"
MAX_LEN = 4           # longest phrase (the checker looks at windows up to this)
NUMERALS = "0123456789〇一二三四五六七八九十百千萬万兩两幾几"
TRANSLITERATION = "马玛哈卡亚巴加萨特德尔拉利克斯"  # 马里 is Mali, not 馬裡
HAN = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$")


def dump(name):
    return {k: v for k, v in lexicons.ocd2(name) if k}


convert = lexicons.opencc


def close_rights(table, phrases):
    """A right form must not hold another entry's wrong one: OpenCC's own
    segmentation slips on some words (十几分钟 -> 十幾分鍾, read as 幾分 + 鍾;
    几十里 -> 幾十裡), and the table that flags 幾分鍾 must not fix 十几分鍾 to
    it.  Such a part is replaced by that entry's first right form, longest
    entries first, unless the right form is one of OpenCC's own phrases
    (千鈞一髮), which OpenCC converts whole instead of segmenting."""
    wrongs = sorted((w for w in table if len(w) >= 2), key=len, reverse=True)
    for w, e in table.items():
        fixed = []
        for r in e[0]:
            for x in wrongs if r not in phrases else ():
                if x != w and x in r and len(x) < len(r):
                    r = r.replace(x, table[x][0][0])
            fixed.append(r)
        e[0][:] = list(dict.fromkeys(fixed))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "rules/data"
    st, ts = dump("STCharacters"), dump("TSCharacters")
    stp = dump("STPhrases")
    tw = {k: v[0] for k, v in dump("TWVariants").items()}
    hk = {k: v[0] for k, v in dump("HKVariants").items()}
    src = f"OpenCC {version('libopencc-data')} (Apache-2.0), jieba dict.txt {version('python3-jieba')} (MIT)"

    # ---- characters ----
    # Taiwan and Hong Kong forms (群, 峰, 秘) are traditional too
    valid_t = set(ts) | {c for v in st.values() for c in v} | set(tw.values()) | set(hk.values())
    valid_s = set(st) | {c for v in ts.values() for c in v}
    twf = lambda c: tw.get(c, c)
    rows = []
    for c, v in sorted(st.items()):
        if len(c) == 1 and c not in valid_t:
            cands = []
            for t in v:  # Taiwan forms first: most traditional web text uses them
                for x in (twf(t), t):
                    if x not in cands and x != c:
                        cands.append(x)
            # a regional pair (爲/為) is one choice, not two
            uniq = [x for x in cands if not (x in tw and tw[x] in cands)]
            rows.append((c, "hans", "|".join(uniq)))
    # The 2013 General Standard list (Unihan kTGH) is simplified Chinese: the
    # old forms it took back for names and set uses (甯 a surname, 哪吒,
    # 甦, 昇, 祕魯) are not traditional leftovers in simplified text.
    general = lexicons.unihan("Unihan_OtherMappings.txt.bz2", ("kTGH",))["kTGH"]
    for c, v in sorted(ts.items()):
        if len(c) == 1 and c not in valid_s and ord(c) not in general:
            rows.append((c, "hant", "|".join(x for x in v if x != c)))
    with open(os.path.join(outdir, "script-chars.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# generated by rules/tools/gen-script-tables.py from {src}\n")
        f.write("# char\thans|hant (the only variant it belongs to)\tits forms in the other variant (first = default)\n")
        for r in sorted(rows, key=lambda r: ord(r[0])):  # by code point: no sort at start-up
            f.write("\t".join(r) + "\n")

    # ---- regional pairs (裏/裡) ----
    with open(os.path.join(outdir, "script-regional.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# generated by rules/tools/gen-script-tables.py from {src}\n")
        f.write("# OpenCC standard form\tTaiwan form\tHong Kong form\n")
        for c in sorted(set(tw) | set(hk)):
            if len(c) == 1 and c in valid_t:
                f.write(f"{c}\t{tw.get(c, c)}\t{hk.get(c, c)}\n")

    # ---- phrases ----
    # A word friso's main lexicon lists is a common word even where jieba
    # tags it as a name (松树 is "nr" in jieba, so 鬆樹 went unflagged):
    # friso keeps its names in lexicons of their own (lex-lname, lex-cn-place).
    common = set(lexicons.friso_words()[1])
    freq, names, tags = {}, set(), {}
    for w, n, pos in lexicons.Jieba().rows:
        if HAN.match(w):
            freq[w] = n
            tags[w] = pos
            if pos in NAME_TAGS:
                names.add(w)
    amb = {c: v for c, v in st.items() if len(c) == 1 and (len(v) > 1 or v[0] == c)}
    words = sorted(w for w, n in freq.items()
                   if 2 <= len(w) <= MAX_LEN and n >= MIN_FREQ and any(c in amb for c in w)
                   and (w not in names or w in common) and w not in EXCLUDE
                   or w in CLOCK_WORDS)
    # (STPhrases entries that jieba does not know are mostly names and rare
    # phrases, 国梁 → 國樑: taking them in flags 劉國梁.)
    t_tw = convert("s2tw.json", words)
    t_std = convert("s2t.json", words)
    # every correct traditional form of every word we know, in any standard
    alltw = sorted(w for w in freq if len(w) <= MAX_LEN)
    alltw_t = convert("s2tw.json", alltw)
    alls_t = convert("s2t.json", alltw)
    correct = set(t_tw) | set(t_std) | set(alltw_t) | set(alls_t)
    # the traditional characters that are words of their own: the forms of
    # a frequent one-character jieba word that is neither a bound morpheme
    # ("zg": 锺) nor a surname ("nr": 钟, which OpenCC writes 鍾 when alone)
    free = {t for u, ts in zip(alltw, zip(alltw_t, alls_t)) if len(u) == 1
            and tags.get(u) != "zg" and tags.get(u) not in NAME_TAGS
            and freq[u] >= GUARD_FREQ for t in ts}
    # where a character is right in a word that crosses the entry's edge:
    # 控制檯|上 (not 檯上 for 臺上), 那|只能, 列出|侷限 (not 出侷 for 出局)
    ends, starts = {}, {}
    for u, ut in zip(alltw, alltw_t):
        if len(u) >= 2 and len(ut) == len(u) and (freq[u] >= CROSS_FREQ or u in names):
            # (not the idiom 文身断发, but the name 沙烏地|里亞爾)
            ends.setdefault(ut[-1], set()).update((ut[-2], u[-2]))
            starts.setdefault(ut[0], set()).update((ut[1], u[1]))
    correct |= {w for w in stp.values() for w in w}
    # words by their first and last character, for the guards: 列出|局限
    # gives 列 before 出局, 控制台|上 gives 制 before 台上
    first, last = {}, {}
    for w, n in freq.items():
        if len(w) >= 2:
            first.setdefault(w[0], []).append((w[1], n))
            last.setdefault(w[-1], []).append((w[-2], n))

    def forms(c):
        """c's traditional forms (the guards are read only in traditional
        text), and c itself when it is also traditional."""
        out = [c] if c in valid_t else []
        for t in st.get(c, [c]):
            for x in (t, twf(t)):
                if x not in out:
                    out.append(x)
        return out

    def two_words(w, i):
        """Is w two correct words side by side?  OpenCC's own segmentation
        slips on longer words (十几分钟 → 十幾分鍾), so a 3- or 4-character
        form made of correct parts is not called wrong.  A part of one
        character that is the changed one (w[i]) must be a word of its own:
        十分|鍾 is not two words (鍾 is bound: 鍾愛, 鍾情), so 十分鍾 is
        十分鐘 written wrong."""
        for k in range(1, len(w)):
            a, b = w[:k], w[k:]
            if max(len(a), len(b)) < 2:
                continue
            if (len(a) == 1 and i == 0 and a not in free) or \
                    (len(b) == 1 and i == len(w) - 1 and b not in free):
                continue
            if (len(a) == 1 or a in correct) and (len(b) == 1 or b in correct):
                return True
        return False

    table = {}
    for s, ttw, tstd in zip(words, t_tw, t_std):
        if len(ttw) != len(s) or len(tstd) != len(s):
            continue
        n = freq.get(s, 0)
        prev = "".join(sorted({x for p, m in last.get(s[0], []) if m > max(n, GUARD_FREQ)
                               for x in forms(p)}))
        nxt = "".join(sorted({x for q, m in first.get(s[-1], []) if m > max(n, GUARD_FREQ)
                              for x in forms(q)}))
        for i, c in enumerate(s):
            if c not in amb:
                continue
            right = {ttw[i], tstd[i], twf(tstd[i])}
            for k in amb[c] + [twf(x) for x in amb[c]]:
                if k in right or twf(k) in right or (k + ttw[i]) in TOLERATED or \
                        (s in names and (k + ttw[i]) in TOLERATED_IN_NAMES):
                    continue
                # 里 stays in names (里德, 沙烏地里亞爾): only 家里, 里面 count
                if k == "里" and ttw[i] != "里" and (
                        not (i == len(s) - 1 or s[i + 1] in "面头边") or
                        (i > 0 and s[i - 1] in TRANSLITERATION)):
                    continue
                for base in {ttw, tstd}:
                    w = base[:i] + k + base[i + 1:]
                    if w in correct or two_words(w, i):
                        continue  # a word in its own right (頭髮, 一隻), or two (十幾|分鐘)
                    p = prev + NUMERALS if w[0] in "里裡裏余餘" else prev  # 三十|里外
                    q = nxt
                    if i == 0:
                        p = "".join(sorted(set(p) | ends.get(k, set())))
                    if i == len(s) - 1:
                        q = "".join(sorted(set(q) | starts.get(k, set())))
                    e = table.setdefault(w, [[], p, q, n])
                    if ttw not in e[0]:
                        e[0].append(ttw)
                    if n > e[3]:
                        e[1], e[2], e[3] = p, q, n
    close_rights(table, {w for v in stp.values() for w in v})
    # A number before a number is one number: 三十|分鍾 is 三十分鐘 as 十分鍾
    # is 十分鐘 (十分 "very" is no word after 三).  A numeral (or 數, 第)
    # before an entry that starts with a numeral guards it only where the
    # rest could then be right: where the rest is an entry of its own with
    # the same fix (十分鍾: 分鍾 → 分鐘), the numeral is dropped from the
    # guard.  Not where the rest is right alone (五一|只放三天假).
    for w, e in table.items():
        rest = table.get(w[1:])
        if len(w) >= 3 and w[0] in NUMERALS and rest and rest[0][0] == e[0][0][1:]:
            e[1] = "".join(x for x in e[1] if x not in NUMERALS + "數第")
    # ---- edge rows: the two-character words around a two-character entry ----
    two = sorted({w for w, n in freq.items() if len(w) == 2 and n >= EDGE_FREQ and w not in names}
                 | {w for w in common if len(w) == 2 and HAN.match(w)})
    before, after = {}, {}
    for u, a, b in zip(two, convert("s2tw.json", two), convert("s2t.json", two)):
        for t in {u, a, b, twf(a[0]) + twf(a[1])}:
            if len(t) == 2:
                before.setdefault(t[1], set()).add(t[0])
                after.setdefault(t[0], set()).add(t[1])
    firsts = {w[0] for w in table if len(w) == 2}
    lasts = {w[1] for w in table if len(w) == 2}
    edges = {}
    for c in sorted(firsts | lasts):
        p = "".join(sorted(before.get(c, ()))) if c in firsts else ""
        q = "".join(sorted(after.get(c, ()))) if c in lasts else ""
        if p or q:
            edges[EDGE_MARK + c] = (p, q)
    with open(os.path.join(outdir, "script-phrases.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# generated by rules/tools/gen-script-tables.py from {src}\n")
        f.write("# wrong\tright (a|b = candidates)\tprev_not\tnext_not\n")
        f.write(f"# {EDGE_MARK}c\t{EDGE_MARK}c\tcharacters that make a word before c\tcharacters that make one after it\n")
        for w in sorted(table):
            rights, prev, nxt, _ = table[w]
            rights = rights + [w] if w in JUDGEMENT else rights
            nxt = "".join(sorted(set(nxt) | set(EXTRA_NEXT_NOT.get(w, ""))))
            f.write(f"{w}\t{'|'.join(rights)}\t{prev}\t{nxt}\n")
        for k in sorted(edges):
            f.write(f"{k}\t{k}\t{edges[k][0]}\t{edges[k][1]}\n")
    print(f"{len(rows)} characters, {len(table)} phrases", file=sys.stderr)


if __name__ == "__main__":
    main()
