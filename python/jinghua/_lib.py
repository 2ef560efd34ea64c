"""Opening libjinghua: which shared library, which rules folder.

The declarations come from the generated _jinghua_ffi module (the public
header, parsed at build time); this module only finds the files:

  library: $JINGHUA_LIBRARY; else the path `make install` recorded in
           _installed.py; else .libs/ of the build tree the generated module
           sits in (a source or VPATH build); else libjinghua.so.0 on the
           dynamic linker's path.
  rules:   $JINGHUA_RULES (as the CLI); else rules/ of the source tree this
           package sits in; else the library's own (jh_rules_dir(), where
           it was installed with).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

try:
    from ._jinghua_ffi import ffi
except ImportError as e:  # pragma: no cover - a tree that was never built
    raise ImportError(
        "jinghua: the generated module jinghua/_jinghua_ffi.py is missing; "
        "run `make` in the source tree first"
    ) from e

try:
    from . import _installed  # written by `make install`
except ImportError:
    _installed = None  # type: ignore[assignment]

SONAME = "libjinghua.so.0"

_HERE = Path(__file__).resolve().parent


def _build_tree_library() -> Optional[str]:
    """.libs/ of the build tree holding the generated module, if any."""
    import importlib.util

    spec = importlib.util.find_spec("jinghua._jinghua_ffi")
    if spec is None or spec.origin is None:
        return None
    top = Path(spec.origin).resolve().parent.parent.parent
    lib = top / ".libs" / SONAME
    if lib.exists() and (top / "Makefile").exists():
        return str(lib)
    return None


def library_path() -> str:
    """The shared library this process opens (a path or a bare soname)."""
    env = os.environ.get("JINGHUA_LIBRARY")
    if env:
        return env
    if _installed is not None:
        return _installed.LIBRARY
    return _build_tree_library() or SONAME


def rules_dir() -> Optional[str]:
    """The default rules folder, or None to let the library decide."""
    env = os.environ.get("JINGHUA_RULES")
    if env:
        return env
    top = _HERE.parent.parent
    if (top / "configure.ac").exists() and (top / "rules").is_dir():
        return str(top / "rules")
    return None


def _open() -> Any:
    path = library_path()
    try:
        return ffi.dlopen(path)
    except OSError as e:
        raise ImportError(f"jinghua: cannot open the library {path}: {e}") from e


lib = _open()
# free() for the buffers the library returns from malloc (jh_fix's text)
libc = ffi.dlopen(None)
