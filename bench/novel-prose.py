#!/usr/bin/python3
"""bench/novel-prose.py FILE... — held-out novel prose for bench/unsafe-damage
--text and the README's novel figures: the stories of Lu Xun (d. 1936, public
domain) as the tallusil/luxun-novel-analysis repository keeps them
(data/combined/*.txt: hard-wrapped at 38 characters, each story followed by
its editor's notes).  A paragraph starts with an indent (paragraphs()); its wrapped lines are joined and the note markers (⑴…⒇, ①…⑳,
〔１〕, （⒈）) taken out, since an editor's apparatus is not the author's text.  Output:
one paragraph a line, indented, a blank line between, as web novels are.
"""
import re
import sys

MARK = re.compile("[\u2474-\u2487\u2460-\u2473]|（[\u2488-\u249b]）|〔[０-９]+〕")
START = re.compile("^(\u3000\u3000|    )(?=[^ \u3000])")
NOTE = re.compile("^(〔[０-９]+〕|[\u2474-\u2487\u2460-\u2473])")


def paragraphs(text):
    """Both layouts of the repository: paragraphs indented with 　　 and
    separated by blank lines (呐喊, 朝花夕拾), or indented with four ASCII
    spaces and not separated (彷徨, 故事新编).  A line indented more deeply, or
    a short one with no punctuation, is a title, a date or a section
    number.  The notes after a story start at
    a line 注释, or one opening with a note number (〔１〕, ⑴, ①), and run
    to the next title."""
    cur, notes = None, False
    for line in text.replace("\r", "").split("\n"):
        body = line.strip(" \u3000")
        title = len(MARK.sub("", body)) <= 15 and not re.search("[。，、；：？！…—“”]", body)
        if len(line) - len(line.lstrip(" ")) >= 8 or (title and body):
            notes = False
        elif NOTE.match(body) or body in ("□注释", "注释：", "注释"):
            notes = True
        if notes or START.match(line) or body == "" or line.startswith((" ", "\u3000")):
            if cur is not None:
                yield cur
            cur = body if (not notes and not title and START.match(line)) else None
        elif cur is not None:
            cur += body
    if cur is not None:
        yield cur


def keep(p):
    """Notes and the editor's descriptions of glyphs a font lacks
    (□【音“需”…】) are the edition's, not the author's."""
    return len(p) >= 2 and not NOTE.match(p) and "□【" not in p and "□（" not in p


def main():
    out = []
    for name in sys.argv[1:]:
        with open(name, encoding="utf-8") as f:
            out += ["\u3000\u3000" + MARK.sub("", p) for p in paragraphs(f.read()) if keep(p)]
    sys.stdout.write("\n\n".join(out) + "\n")


if __name__ == "__main__":
    main()
