#!/usr/bin/env python3
"""Restoration benchmark for censor.mask.suggest.

For each clean text given, every word of rules/data/censor-masked.tsv (2-4
characters) that occurs in it between Han characters is masked with **
everywhere in that text, as a site's filter would; jinghua is run on the
masked text and its suggestions at each mask are compared with the word
that was there.  Prints top-1 and top-3 accuracy and how many masks got a
suggestion at all.  With --partial only the second character of each word
is masked (手*弹, 亲*待: sites often mask part of a word), and the answer
is that character.

    python3 rules/tools/bench-censor-restore.py [--jinghua ./jinghua] [--max-words N] FILE...

The texts must be ones the rules were not written from (the project used
Debian's Chinese manual pages and documentation, and 祝福 by Lu Xun).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HAN = re.compile(r"[\u4e00-\u9fff]")


def masked_words():
    out = []
    with open(os.path.join(HERE, "..", "data", "censor-masked.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split("\t")[0]
            if 2 <= len(w) <= 4:
                out.append(w)
    return out


def cases(text, words, max_words, partial=False):
    """(word, masked text, mask offsets) for each word found between Han characters."""
    n = 0
    for w in words:
        pos = [m.start() for m in re.finditer(re.escape(w), text)]
        pos = [p for p in pos if p > 0 and p + len(w) < len(text)
               and HAN.match(text[p - 1]) and HAN.match(text[p + len(w)])]
        if not pos:
            continue
        mask = w[0] + "*" + w[2:] if partial else "**"
        masked = text.replace(w, mask)
        starts, shift = [], 0
        for m in re.finditer(re.escape(w), text):
            starts.append(m.start() - shift + (1 if partial else 0))
            shift += len(w) - len(mask)
        yield (w[1] if partial else w), masked, set(starts)
        n += 1
        if n >= max_words:
            return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jinghua", default="./jinghua")
    ap.add_argument("--max-words", type=int, default=400)
    ap.add_argument("--partial", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    words = masked_words()
    total = top1 = top3 = any_sugg = 0
    for path in a.files:
        text = open(path, encoding="utf-8", errors="replace").read()
        for w, masked, starts in cases(text, words, a.max_words, a.partial):
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as t:
                t.write(masked)
            res = subprocess.run([a.jinghua, "check", "--select", "censor.mask.suggest",
                                  "--format", "json", "--fail-on", "never", t.name],
                                 capture_output=True, text=True)
            os.unlink(t.name)
            found = json.loads(res.stdout or "[]")
            b = masked.encode("utf-8")
            by_start = {}
            for f in found:
                char_start = len(b[:f["byte_start"]].decode("utf-8"))
                by_start[char_start] = f
            mlen = 1 if a.partial else 2
            for s in starts:
                if not (s > 0 and HAN.match(masked[s - 1]) or HAN.match(masked[s + mlen:s + mlen + 1] or "x")):
                    continue
                total += 1
                f = by_start.get(s)
                if not f:
                    continue
                any_sugg += 1
                first = f["fix"]["edits"][0]["replacement"] if f.get("fix") else ""
                cands = f["message"].split("：", 1)[-1].split("、")
                top1 += first == w
                top3 += w in cands[:3]
    if not total:
        print("no masks")
        return
    print("masks %d  suggested %.1f%%  top-1 %.1f%%  top-3 %.1f%%" %
          (total, 100 * any_sugg / total, 100 * top1 / total, 100 * top3 / total))


if __name__ == "__main__":
    main()
