#!/usr/bin/python3
"""span-check.py [--utf8] ORIGINAL FINDINGS_JSON FIXED: does FIXED differ
from ORIGINAL only inside the spans of the findings that carry a fix?

The spans are byte offsets of the file as read.  Outside them, the bytes
of the original must come back in order: the first and last stretches as
the fixed file's prefix and suffix, the stretches between in order after
one another.  With --utf8 (the original is UTF-8 with some invalid
bytes), no span may begin or end inside one of its valid multibyte
characters either: a span there means the file was decoded as something
else.  Exit 0 if so, 1 with the first stretch that is not kept."""
import json
import sys

args = sys.argv[1:]
utf8 = args[0] == '--utf8'
if utf8:
    args = args[1:]
orig = open(args[0], 'rb').read()
findings = json.load(open(args[1]))
fixed = open(args[2], 'rb').read()
spans = sorted((e['byte_start'], e['byte_end'])
               for f in findings if f.get('fix')
               for e in f['fix']['edits'])

def inside_utf8_chars(data):
    """Offsets strictly inside a valid multibyte UTF-8 character."""
    inner, i = set(), 0
    while i < len(data):
        for n in (4, 3, 2):
            if data[i] >= 0xC2:
                try:
                    data[i:i + n].decode('utf-8')
                    if len(data[i:i + n]) == n and all(0x80 <= b <= 0xBF for b in data[i + 1:i + n]):
                        inner.update(range(i + 1, i + n))
                        i += n
                        break
                except UnicodeDecodeError:
                    pass
        else:
            i += 1
    return inner


if utf8:
    inner = inside_utf8_chars(orig)
    for s, e in spans:
        if s in inner or e in inner:
            print(f'{args[0]}: a fix span {s}-{e} cuts a UTF-8 character of the file')
            sys.exit(1)
kept, pos = [], 0
for s, e in spans:
    if s > pos:
        kept.append((pos, s))
    pos = max(pos, e)
kept.append((pos, len(orig)))
at = 0
for i, (s, e) in enumerate(kept):
    piece = orig[s:e]
    if i == 0 and s == 0:
        found = 0 if fixed.startswith(piece) else -1
    elif i == len(kept) - 1:
        found = len(fixed) - len(piece) if fixed.endswith(piece) and len(fixed) - len(piece) >= at else -1
    else:
        found = fixed.find(piece, at)
    if found < 0:
        print(f'{args[0]}: bytes {s}-{e} outside every fix span are not kept: {piece[:40]!r}')
        sys.exit(1)
    at = found + len(piece)
