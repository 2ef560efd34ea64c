"""Slips put into clean text, for typo.context's learned decision
(rules/tools/train-typo-context.py) and its novel-prose figures
(bench/typo-novel): the kinds of slip the SIGHAN training sets show, in
about their shares (same syllable 73%, a similar syllable 15%, a
look-alike 7% of the others; a function character swapped within its
group, 的 for 得 and the like, 15% of all; a character a learner confuses
for no likeness of sound or shape is not modelled), the wrong character drawn among those an input method offers
for the syllable, the more frequent ones more often."""
import os
import random
import re

import lexicons

HERE = os.path.dirname(os.path.abspath(__file__))
INITIALS = ("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q",
            "x", "r", "z", "c", "s", "y", "w")
FOLD = {"zh": "z", "ch": "c", "sh": "s", "n": "l", "f": "h"}


def near_class(syl):
    """The class of similar syllables (zh/z, ch/c, sh/s, n/l, f/h, -ng/-n)."""
    ini, fin = "", syl
    for i in INITIALS:
        if syl.startswith(i) and len(syl) > len(i):
            ini, fin = FOLD.get(i, i), syl[len(i):]
            break
    if fin.endswith("ng") and not fin.endswith("ong") and len(fin) >= 3:
        fin = fin[:-1]
    return ini + fin


class Slips:
    def __init__(self, data_dir, seed):
        self.rng = random.Random(seed)
        self.syl, self.shape = {}, {}
        with open(os.path.join(data_dir, "typo-similar.tsv"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                c = line.rstrip("\n").split("\t")
                self.syl[c[0]] = c[1].split()
                self.shape[c[0]] = c[2] if len(c) > 2 else ""
        freq = {w: fr for w, fr, _ in lexicons.Jieba().rows if len(w) == 1}
        self.freq = freq
        self.group = {}
        for g in lexicons.rule_param("typo", "typo.context", "groups").split():
            for ch in g:
                self.group[ch] = g
        self.by_syl, self.by_class = {}, {}
        for ch, syls in self.syl.items():
            if freq.get(ch, 0) < 50:
                continue  # an input method seldom offers a rare character first
            for s in syls:
                self.by_syl.setdefault(s, []).append(ch)
                self.by_class.setdefault(near_class(s), []).append(ch)

    def _pick(self, pool, right):
        pool = [c for c in set(pool) if c != right]
        if not pool:
            return None
        pool.sort()
        return self.rng.choices(pool, weights=[self.freq.get(c, 1) ** 0.5 for c in pool])[0]

    def wrong_for(self, right):
        """A slip for the character right, or None."""
        syls = self.syl.get(right)
        if not syls:
            return None
        r = self.rng.random()
        if r < 0.78:
            pool = [c for s in syls for c in self.by_syl.get(s, ())]
        elif r < 0.94:
            mine = set(syls)
            pool = [c for s in syls for c in self.by_class.get(near_class(s), ())
                    if not mine & set(self.syl[c])]
        else:
            pool = [c for c in self.shape.get(right, "") if self.freq.get(c, 0) >= 50]
        return self._pick(pool, right)

    def damage(self, sentence, slips=1):
        """sentence with up to `slips` characters replaced: (text, positions)."""
        text = list(sentence)
        done = []
        fn = [i for i, ch in enumerate(text) if ch in self.group]
        if fn and self.rng.random() < 0.15:
            i = self.rng.choice(fn)
            text[i] = self.rng.choice([c for c in self.group[text[i]] if c != text[i]])
            done.append(i)
        spots = [i for i, ch in enumerate(text) if ch in self.syl and self.freq.get(ch, 0) >= 100
                 and i not in done]
        self.rng.shuffle(spots)
        for i in spots:
            if len(done) == slips:
                break
            x = self.wrong_for(text[i])
            if x:
                text[i] = x
                done.append(i)
        return "".join(text), sorted(done)


def sentences(text, lo=8, hi=80):
    """The sentences of text (ended by 。！？ or a line end) of lo..hi
    characters, mostly Han; a line break inside a sentence of hard-wrapped
    text is not an end."""
    text = re.sub(r"(?<=[\u4e00-\u9fff，、；：“”])\n(?=[\u4e00-\u9fff“”])", "", text)
    out, cur = [], []
    for ch in text:
        cur.append(ch)
        if ch in "。！？\n":
            s = "".join(cur).strip()
            cur = []
            han = sum("\u4e00" <= c <= "\u9fff" for c in s)
            if lo <= len(s) <= hi and han >= 0.7 * len(s) and "\t" not in s:
                out.append(s)
    return out
