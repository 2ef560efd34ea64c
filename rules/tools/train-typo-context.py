#!/usr/bin/env python3
"""Write rules/data/typo-context-weights.tsv, the learned decision of
typo.context: a logistic regression that says, from what is known of a
candidate at its spot, whether it is the right character.

Training text: clean sentences of Debian's Chinese packages (manpages-zh
rendered, the fortunes-zh collection), one slip put into each of two in
three of them (rules/tools/typo_inject.py), the others left as they are.
jinghua checks them with typo.context's trace on (each candidate of each
spot with its features, data/typo-context-weights.tsv left out so that
the candidates are the same whatever the weights) and the model is fitted
on every candidate: 1 when it is the character the slip replaced at the
slip's position, 0 otherwise.  The last fifth of the sentences is held
out, and the bias is set so that on it the candidates the model takes
(the spot's best, when it is more likely right than wrong by the odds
ODDS) are right at least PRECISION of the time.  Never trained on a test
set: SIGHAN is only for bench/typo-eval.

The texts of the shipped weights: every zh_CN and zh_TW page of
manpages-zh rendered with `groff -mandoc -Tutf8 | col -bx` into one file
(manpages-zh.txt, 9 MB, as bench/README.md describes), and fortunes-zh's
chinese.u8 (fortunes-chinese.txt; its tang300 and song100 are classical
verse, left out); --precision 0.9.

    apt-get install -y manpages-zh fortunes-zh groff-base python3-jieba sunpinyin-data
    python3 rules/tools/train-typo-context.py --precision 0.9 ./jinghua \
        manpages-zh.txt fortunes-chinese.txt > rules/data/typo-context-weights.tsv
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import typo_inject  # noqa: E402

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FEATURES = ["gain", "bias", "near", "shape", "group", "stop-from", "stop-to", "logp-from",
            "logp-to", "word-to", "word-from", "long-to", "long-from", "edge"]
PRECISION = 0.9
L2 = 1e-4
SEED = 17


def gather(paths, limit):
    out = []
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            out += typo_inject.sentences(f.read())
    rng = random.Random(SEED)
    rng.shuffle(out)
    seen, uniq = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq[:limit]


def trace(jinghua, texts):
    """Per text: {byte offset: [(candidate, [features])]}."""
    lines = "".join(json.dumps({"id": str(n), "text": t}, ensure_ascii=False) + "\n"
                    for n, t in enumerate(texts))
    with tempfile.NamedTemporaryFile("w", suffix=".ini", encoding="utf-8") as cfg:
        cfg.write("[typo.context]\nenabled = true\ntrace = 1\nweights =\n")
        cfg.flush()
        res = subprocess.run([jinghua, "check", "-j", "1", "--config", cfg.name, "--select",
                              "typo.context", "--jsonl-filter"], input=lines,
                             capture_output=True, text=True)
    docs = []
    for line in res.stderr.splitlines():
        c = line.split("\t")
        if c[0] == "doc":
            docs.append({})
        elif c[0] == "f" and docs:
            docs[-1].setdefault(int(c[1]), []).append((c[2], [float(x) for x in c[3:]]))
    if len(docs) != len(texts):
        sys.exit("trace: %d documents for %d texts: %s" % (len(docs), len(texts), res.stderr[-300:]))
    return docs


def rows(texts, truth, docs):
    """(features, label, spot id) of every candidate."""
    out = []
    for n, (t, tr, spots) in enumerate(zip(texts, truth, docs)):
        byte = {}
        b = 0
        for i, ch in enumerate(t):
            byte[b] = i
            b += len(ch.encode("utf-8"))
        for off, cands in spots.items():
            i = byte.get(off)
            for cand, f in cands:
                out.append((f, int(i in tr and tr[i] == cand), (n, off)))
    return out


def solve(A, b):
    """x with A x = b (Gaussian elimination with pivoting; A is small)."""
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[c][c]:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] if M[i][i] else 0.0 for i in range(n)]


def fit(data, rounds=12):
    """L2 logistic regression by Newton's method on standardised features,
    the two classes weighted to count alike."""
    k = len(FEATURES)
    mean = [sum(r[0][j] for r in data) / len(data) for j in range(k)]
    sd = [math.sqrt(sum((r[0][j] - mean[j]) ** 2 for r in data) / len(data)) or 1.0
          for j in range(k)]
    mean[1], sd[1] = 0.0, 1.0  # the bias stays 1
    X = [[(r[0][j] - mean[j]) / sd[j] for j in range(k)] for r in data]
    y = [r[1] for r in data]
    pos = sum(y)
    wpos = (len(y) - pos) / pos if pos else 1.0
    w = [0.0] * k
    for _ in range(rounds):
        g = [L2 * len(y) * w[j] if j != 1 else 0.0 for j in range(k)]
        H = [[(L2 * len(y) if i == j and j != 1 else 0.0) for j in range(k)] for i in range(k)]
        for x, t in zip(X, y):
            z = sum(a * b for a, b in zip(w, x))
            p = 1 / (1 + math.exp(-max(-30, min(30, z))))
            c = wpos if t else 1.0
            e, h = c * (p - t), c * p * (1 - p)
            for i in range(k):
                g[i] += e * x[i]
                hi = h * x[i]
                Hi = H[i]
                for j in range(i, k):
                    Hi[j] += hi * x[j]
        for i in range(k):
            for j in range(i):
                H[i][j] = H[j][i]
        step = solve(H, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(x) for x in step) < 1e-6:
            break
    # back to raw features: w_j x'_j = (w_j / sd_j) x_j - w_j mean_j / sd_j
    raw = [w[j] / sd[j] for j in range(k)]
    raw[1] = w[1] - sum(w[j] * mean[j] / sd[j] for j in range(k) if j != 1)
    return raw


def decide(data, w, shift):
    """Per spot the best candidate by the model and whether it is taken:
    (taken, right) counts, and the right characters among all spots."""
    best = {}
    for f, lab, spot in data:
        z = sum(a * b for a, b in zip(w, f)) + shift
        if spot not in best or z > best[spot][0]:
            best[spot] = (z, lab)
    taken = sum(1 for z, _ in best.values() if z > 0)
    right = sum(1 for z, lab in best.values() if z > 0 and lab)
    return taken, right


def main():
    global PRECISION
    args = sys.argv[1:]
    if args[:1] == ["--precision"]:
        PRECISION, args = float(args[1]), args[2:]
    if len(args) < 2:
        sys.exit("usage: train-typo-context.py [--precision P] JINGHUA TEXT...")
    jinghua, paths = args[0], args[1:]
    texts = gather(paths, 24000)
    slips = typo_inject.Slips(os.path.join(RULES, "data"), SEED)
    damaged, truth = [], []
    for n, t in enumerate(texts):
        if n % 3 == 2:
            damaged.append(t)
            truth.append({})
        else:
            d, at = slips.damage(t)
            damaged.append(d)
            truth.append({i: t[i] for i in at})
    docs = trace(jinghua, damaged)
    cut = len(texts) * 4 // 5
    train = rows(damaged[:cut], truth[:cut], docs[:cut])
    held = rows(damaged[cut:], truth[cut:], docs[cut:])
    held = [(f, l, (s[0] + cut, s[1])) for f, l, s in held]
    w = fit(train)
    # the bias that reaches PRECISION on the held-out sentences
    shift, best = 0.0, None
    for step in range(0, 400):
        s = -step * 0.05
        taken, right = decide(held, w, s)
        if taken and right / taken >= PRECISION:
            shift, best = s, (taken, right)
            break
    w[1] += shift
    n_slip = sum(len(t) for t in truth[cut:])
    taken, right = decide(held, w, 0.0)
    print("# typo-context-weights.tsv — the learned decision of typo.context: a")
    print("# logistic regression over a candidate's features (src/checks/typo_context_learn.c).")
    print("# GENERATED by rules/tools/train-typo-context.py; do not edit, regenerate.")
    print("# Trained on %d sentences of Debian's Chinese text (%s), one slip put into" %
          (cut, ", ".join(os.path.basename(p) for p in paths)))
    print("# two in three; %d candidates.  Held out (%d sentences, %d slips): taken %d,"
          % (len(train), len(texts) - cut, n_slip, taken))
    print("# right %d (precision %.3f, recall %.3f)." % (right, right / taken if taken else 0,
                                                         right / n_slip if n_slip else 0))
    print("# Columns: feature<TAB>weight (need = -(sum of the others) / gain).")
    for name, x in zip(FEATURES, w):
        print("%s\t%.6g" % (name, x))


if __name__ == "__main__":
    main()
