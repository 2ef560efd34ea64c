#!/usr/bin/python3
"""Write jinghua/_jinghua_ffi.py: cffi's out-of-line ABI module for the
library's public header (build_ffi.py HEADER OUTDIR).

ABI mode (the library is opened with dlopen, no C compiler or Python.h at
build time) and out of line (the header is parsed here, once, not at every
import: that parse takes about 0.1 s).  See python/README.md for why.
"""
import os
import sys

import cffi

# _header.py alone, not the package (which needs the module made here)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "jinghua"))
from _header import header_to_cdef  # noqa: E402


def main() -> None:
    header, outdir = sys.argv[1], sys.argv[2]
    with open(header, encoding="utf-8") as f:
        cdef = header_to_cdef(f.read())
    ffibuilder = cffi.FFI()
    # and the C library's free(), for the buffers jh_fix returns from malloc
    ffibuilder.cdef(cdef + "void free(void *);\n")
    ffibuilder.set_source("jinghua._jinghua_ffi", None)
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "_jinghua_ffi.py")
    tmp = out + ".tmp"
    ffibuilder.emit_python_code(tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
