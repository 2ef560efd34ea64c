"""The library's public header as cffi declarations.

The binding declares nothing of its own: the cdef is src/jinghua.h (or the
installed copy) with comments, the C++ guard and the preprocessor lines
taken out (a macro's continuation lines with it).  cffi's parser understands the rest as it is; of the macros
only integer constants (``#define NAME 8``) are kept, which cdef accepts.
"""
from __future__ import annotations

import re

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_INT_DEFINE = re.compile(r"#\s*define\s+(\w+)\s+(-?\d+)\s*$")


def header_to_cdef(text: str) -> str:
    """Turn the text of jinghua.h into a cdef string."""
    out: list[str] = []
    in_cplusplus = False
    # a macro continued over several lines is one line
    text = re.sub(r"\\\n", " ", _COMMENT.sub(" ", text))
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            if re.match(r"#\s*ifdef\s+__cplusplus\b", stripped):
                in_cplusplus = True
            elif in_cplusplus and re.match(r"#\s*endif\b", stripped):
                in_cplusplus = False
            elif _INT_DEFINE.match(stripped):
                out.append(stripped)
            continue
        if not in_cplusplus:
            out.append(line)
    return "\n".join(out) + "\n"
