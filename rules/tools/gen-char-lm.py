#!/usr/bin/python3
"""Build the character n-gram model mask restoration reads beside the word
trigram (src/checks/mask_charlm.c): novel and narrative prose, so that the
words a story uses in its contexts (咬住, 骑兵, 冷笑道) are proposed and
scored, which sunpinyin's model of modern general text cannot do.

    /usr/bin/python3 rules/tools/gen-char-lm.py OUT.bin TEXT.txt...
        [--t2s rules/data/censor-t2s.tsv] [--exclude NAME ...]

Every TEXT is read as UTF-8 prose (hard-wrapped lines are joined into
paragraphs; a paragraph starts at a blank line or an indented line).
Characters are the model's tokens: Han characters (traditional ones
mapped to simplified with censor-t2s.tsv, as the rule maps the context it
reads) and CJK punctuation folded into four classes (comma, stop, open
quote, close quote, see fold()); any other character ends a stretch.  A
paragraph begins with <s> (U+0002), as the rule's left context does at the
start of a line.

The model: interpolated Kneser-Ney (one discount per order, from the
counts of counts) of ORDER characters, its n-grams of order 3 and more
pruned to those seen MIN_COUNT times or more; each kept n-gram stores its
interpolated ln P and, as a context, its ln backoff weight, quantised to
a byte.  Beside it, lists for proposing fills: the characters most likely
after each context of one and two characters (by P) and before each of
one and two (by count).

The file (little-endian, mapped read-only by the library):
  header   "JHCLM01\\n", then u32 fields: order, n-gram slots (a power of
           two), list slots (a power of two), characters, list cells,
           offsets of the five arrays below, and the quantiser's steps
  grams    per slot: u32 fingerprint (0 = free), u8 ln P, u8 ln backoff
           (two arrays)
  lists    per slot: u32 fingerprint, u32 (cell offset | count << 26)
  chars    u32 code point per character index (lists hold indexes)
  cells    u16 character indexes
Keys are hashed with key() below (the reader has the same function); a
slot is found by linear probing from the hash's low bits, and matched on
the high 32 bits (a false match is about one lookup in 10,000, which
moves a score a little, never the text).
"""
import argparse
import collections
import math
import struct
import sys

ORDER = 4
MIN_COUNT = {1: 1, 2: 2, 3: 2, 4: 2}
SUCC_K = {1: 32, 2: 16}
PRED_K = {1: 32, 2: 16}
LIST_MIN = 3           # a context seen fewer times gets no list
BOS = 0x02
TAG_GRAM, TAG_SUCC, TAG_PRED = 1, 2, 3
QP = 20.0 / 255        # ln P in [-20, 0]
QB = 12.0 / 255        # ln backoff in [-12, 0]
MASK = (1 << 64) - 1

COMMA, STOP, OPEN, CLOSE = 0xFF0C, 0x3002, 0x201C, 0x201D


def fold(cp):
    """The class of a punctuation character (0: not one the model keeps)."""
    c = chr(cp)
    if c in "，、；：,;:﹐﹑":
        return COMMA
    if c in "。！？．!?…—～":
        return STOP
    if c in "“「『‘《〈（":
        return OPEN
    if c in "”」』’》〉）":
        return CLOSE
    return 0


def is_han(cp):
    return 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF \
        or 0x20000 <= cp <= 0x3134F or cp == 0x3007


def key(tag, cps):
    """The 64-bit hash of (tag, code points); mask_charlm.c's cm_key()."""
    h = (0xCBF29CE484222325 ^ tag) & MASK
    for c in cps:
        h = ((h ^ c) * 0x100000001B3) & MASK
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    h ^= h >> 33
    return h


def load_t2s(path):
    m = {}
    if not path:
        return m
    with open(path, encoding="utf-8") as fh:
        for ln in fh:
            if ln.startswith("#"):
                continue
            f = ln.rstrip("\n").split("\t")
            if len(f) >= 2 and len(f[0]) == 1 and len(f[1]) == 1:
                m[ord(f[0])] = ord(f[1])
    return m


def paragraphs(text):
    """Hard-wrapped prose joined into paragraphs."""
    cur = []
    for ln in text.split("\n"):
        s = ln.rstrip()
        indented = s[:1] in ("\u3000", " ", "\t")
        s = s.strip(" \t\u3000")
        if not s:
            if cur:
                yield "".join(cur)
            cur = []
            continue
        if indented and cur:
            yield "".join(cur)
            cur = []
        cur.append(s)
    if cur:
        yield "".join(cur)


def stretches(par, t2s):
    """Token lists of a paragraph: the first begins with <s>."""
    out = [BOS]
    quote_open = False
    for ch in par:
        cp = ord(ch)
        if ch == '"':
            cp = CLOSE if quote_open else OPEN
            quote_open = not quote_open
            out.append(cp)
            continue
        if is_han(cp):
            out.append(t2s.get(cp, cp))
            continue
        f = fold(cp)
        if f:
            out.append(f)
            continue
        if len(out) > 1 or (out and out[0] != BOS):
            yield out
        out = []
    if len(out) > 1 or (out and out[0] != BOS):
        yield out


def count(files, t2s):
    c = [None] + [collections.Counter() for _ in range(ORDER)]
    chars = 0
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for par in paragraphs(text):
            for s in stretches(par, t2s):
                chars += len(s)
                t = tuple(s)
                for n in range(1, ORDER + 1):
                    cn = c[n]
                    for i in range(len(t) - n + 1):
                        cn[t[i:i + n]] += 1
    return c, chars


def discounts(cn):
    n1 = sum(1 for v in cn.values() if v == 1)
    n2 = sum(1 for v in cn.values() if v == 2)
    return n1 / (n1 + 2 * n2) if n1 + n2 else 0.5


def kneser_ney(c):
    """ln P and ln backoff for the kept n-grams: interpolated KN."""
    # continuation counts for the orders below the top
    kn = [None] * (ORDER + 1)
    kn[ORDER] = c[ORDER]
    for n in range(ORDER - 1, 0, -1):
        cc = collections.Counter()
        for g in c[n + 1]:
            cc[g[1:]] += 1
        # an n-gram at the start of a stretch has no left neighbour: its
        # raw count stands in (<s> grams, stretch starts)
        for g, v in c[n].items():
            if g not in cc:
                cc[g] = v
        kn[n] = cc
    d = [None] + [discounts(kn[n]) for n in range(1, ORDER + 1)]
    prob = [None] + [dict() for _ in range(ORDER)]
    bow = [None] + [dict() for _ in range(ORDER)]
    # unigrams: KN continuation distribution mixed with a uniform floor
    tot = sum(kn[1].values())
    vocab = len(kn[1])
    for g, v in kn[1].items():
        prob[1][g] = 0.999 * v / tot + 0.001 / vocab
    for n in range(2, ORDER + 1):
        ctx_tot = collections.Counter()
        ctx_types = collections.Counter()
        for g, v in kn[n].items():
            ctx_tot[g[:-1]] += v
            ctx_types[g[:-1]] += 1
        for h, tv in ctx_tot.items():
            bow[n - 1][h] = d[n] * ctx_types[h] / tv
        keep = MIN_COUNT[n]
        for g, v in kn[n].items():
            if c[n].get(g, 0) < keep:
                continue
            h = g[:-1]
            lower = lower_p(prob, bow, g[1:])
            prob[n][g] = max(v - d[n], 0) / ctx_tot[h] + bow[n - 1][h] * lower
    return prob, bow, d


def lower_p(prob, bow, g):
    """P(g[-1] | g[:-1]) from the kept n-grams, backing off."""
    n = len(g)
    p = prob[n].get(g)
    if p is not None:
        return p
    if n == 1:
        return 1e-9
    b = bow[n - 1].get(g[:-1], 1.0)
    return b * lower_p(prob, bow, g[1:])


def quant(x, step, lo):
    v = int(round(-max(x, lo) / step))
    return min(max(v, 0), 255)


def table(entries, load=0.7):
    """Open addressing: a power of two of slots, linear probing."""
    slots = 1
    while slots * load < len(entries):
        slots *= 2
    fps = [0] * slots
    idx = [None] * slots
    for h, val in entries:
        i = h & (slots - 1)
        fp = (h >> 32) or 1
        while fps[i]:
            i = (i + 1) & (slots - 1)
        fps[i] = fp
        idx[i] = val
    return slots, fps, idx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("texts", nargs="+")
    ap.add_argument("--t2s", default=None)
    args = ap.parse_args()
    t2s = load_t2s(args.t2s)
    c, chars = count(args.texts, t2s)
    sys.stderr.write("gen-char-lm: %d tokens; n-grams by order: %s\n"
                     % (chars, [len(c[n]) for n in range(1, ORDER + 1)]))
    prob, bow, d = kneser_ney(c)
    sys.stderr.write("gen-char-lm: discounts %s; kept %s\n"
                     % (["%.3f" % x for x in d[1:]], [len(prob[n]) for n in range(1, ORDER + 1)]))
    # the character index: every unigram
    chars_list = sorted(g[0] for g in prob[1])
    cindex = {cp: i for i, cp in enumerate(chars_list)}
    assert len(chars_list) < 65536
    grams = []
    for n in range(1, ORDER + 1):
        for g, p in prob[n].items():
            b = bow[n].get(g, 1.0) if n < ORDER else 1.0
            grams.append((key(TAG_GRAM, g), (quant(math.log(p), QP, -20.0),
                                              quant(math.log(b), QB, -12.0))))
    # lists: successors by P, predecessors by count
    lists = []
    cells = []

    def add_list(tag, ctx, members):
        if not members:
            return
        off = len(cells)
        cells.extend(cindex[m] for m in members)
        lists.append((key(tag, ctx), off | len(members) << 26))

    succ = collections.defaultdict(list)
    pred = collections.defaultdict(list)
    for n in (2, 3):
        for g, p in prob[n].items():
            h = g[:-1]
            if c[n - 1].get(h, 0) >= LIST_MIN and g[-1] not in (BOS,):
                succ[h].append((p, g[-1]))
        for g, v in c[n].items():
            r = g[1:]
            if c[n - 1].get(r, 0) >= LIST_MIN and g[0] != BOS:
                pred[r].append((v, g[0]))
    for h, v in succ.items():
        v.sort(reverse=True)
        add_list(TAG_SUCC, h, [cp for _, cp in v[:SUCC_K[len(h)]] if cp in cindex])
    for r, v in pred.items():
        v.sort(reverse=True)
        add_list(TAG_PRED, r, [cp for _, cp in v[:PRED_K[len(r)]] if cp in cindex])
    assert len(cells) < (1 << 26)
    gslots, gfp, gval = table(grams)
    lslots, lfp, lval = table(lists)
    head_fmt = "<8s12I2f"
    head_len = struct.calcsize(head_fmt)
    o_gfp = head_len
    o_gp = o_gfp + 4 * gslots
    o_gb = o_gp + gslots
    o_lfp = (o_gb + gslots + 3) & ~3
    o_lv = o_lfp + 4 * lslots
    o_ch = o_lv + 4 * lslots
    o_cells = o_ch + 4 * len(chars_list)
    with open(args.out, "wb") as fh:
        fh.write(struct.pack(head_fmt, b"JHCLM01\n", ORDER, gslots, lslots, len(chars_list),
                             len(cells), o_gfp, o_gp, o_gb, o_lfp, o_lv, o_ch, o_cells, QP, QB))
        fh.write(struct.pack("<%dI" % gslots, *gfp))
        fh.write(bytes(v[0] if v else 0 for v in gval))
        fh.write(bytes(v[1] if v else 0 for v in gval))
        fh.write(b"\0" * (o_lfp - (o_gb + gslots)))
        fh.write(struct.pack("<%dI" % lslots, *lfp))
        fh.write(struct.pack("<%dI" % lslots, *[v or 0 for v in lval]))
        fh.write(struct.pack("<%dI" % len(chars_list), *chars_list))
        fh.write(struct.pack("<%dH" % len(cells), *cells))
    sys.stderr.write("gen-char-lm: %s: %d gram slots, %d list slots, %d chars, %d cells\n"
                     % (args.out, gslots, lslots, len(chars_list), len(cells)))


if __name__ == "__main__":
    main()
