"""jinghua (净化): find and repair damage in Chinese prose, from Python.

A thin cffi binding of libjinghua's public API (jinghua.h): configuration,
decoding, Markdown, the rules, the engine and the fixer are the
library's, the same the ``jinghua`` command runs.

    >>> import jinghua
    >>> jinghua.fix("你好,世界")
    '你好，世界'
    >>> [f.rule for f in jinghua.check("你好,世界")]
    ['punct.halfwidth']

A text without a path is checked as ``jinghua check -`` checks standard
input: with the .jinghua.ini found from the current folder upward (if
any).  With a path (which need not exist) it is checked as that file:
its configuration, its type (*.md is Markdown) and, for bytes, its
encoding.  For many calls build one :class:`Linter` (it reads the
configuration and compiles the rules once) and share it, between
threads too.
"""
from __future__ import annotations

# the generated module may sit in a build folder apart from the sources
# (a VPATH build): both folders make up the package
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)  # type: ignore[name-defined]

import functools  # noqa: E402
from typing import Optional  # noqa: E402

from ._lib import ffi, lib  # noqa: E402
from ._linter import Linter, PathLike, RuleNames, Text  # noqa: E402
from ._types import (ConfigError, Diagnostic, Edit, Finding, Fix,  # noqa: E402
                     FixResult, JinghuaError, RuleError)

__all__ = [
    "check", "fix", "check_file", "fix_file", "Linter", "Finding", "Fix",
    "Edit", "FixResult", "Diagnostic", "JinghuaError", "RuleError",
    "ConfigError", "library_version", "__version__",
]

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the libjinghua this process runs."""
    return ffi.string(lib.jh_version(ffi.NULL, ffi.NULL, ffi.NULL)).decode()


def _key(names: RuleNames) -> Optional[str]:
    if names is None or isinstance(names, str):
        return names
    return ",".join(names)


@functools.lru_cache(maxsize=32)
def _linter(profile: Optional[str], select: Optional[str], ignore: Optional[str],
            variant: Optional[str], config: Optional[str]) -> Linter:
    return Linter(profile=profile, select=select, ignore=ignore, variant=variant,
                  config=config)


def _for(profile: Optional[str], select: RuleNames, ignore: RuleNames,
         variant: Optional[str], config: Optional[PathLike]) -> Linter:
    import os

    return _linter(profile, _key(select), _key(ignore), variant,
                   None if config is None else os.fspath(config))


def check(text: Text, *, path: Optional[PathLike] = None, profile: Optional[str] = None,
          select: RuleNames = None, ignore: RuleNames = None,
          variant: Optional[str] = None, config: Optional[PathLike] = None) -> list[Finding]:
    """The findings in text (str, or a file's bytes), sorted by position.

    path: check it as that file (configuration, type, encoding); profile,
    select, ignore, variant, config: as the CLI's --profile, -s, -i,
    --variant, --config.  One Linter is kept for each distinct set of
    these options; for others build a :class:`Linter`.
    """
    return _for(profile, select, ignore, variant, config).check(text, path=path)


def fix(text: Text, *, path: Optional[PathLike] = None, unsafe: bool = False,
        to_utf8: bool = False, profile: Optional[str] = None, select: RuleNames = None,
        ignore: RuleNames = None, variant: Optional[str] = None,
        config: Optional[PathLike] = None) -> Text:
    """The fixed text: str in, str out; bytes in, bytes out, in the file's
    encoding (UTF-8 with to_utf8).  Safe fixes only unless unsafe=True,
    applied until the text no longer changes; JinghuaError if they never
    settle or the result cannot be encoded back."""
    return _for(profile, select, ignore, variant, config).fix(
        text, path=path, unsafe=unsafe, to_utf8=to_utf8)


def check_file(path: PathLike, *, profile: Optional[str] = None, select: RuleNames = None,
               ignore: RuleNames = None, variant: Optional[str] = None,
               config: Optional[PathLike] = None) -> list[Finding]:
    """The findings in a file, as `jinghua check FILE` gives them
    (offsets into the file's bytes)."""
    return _for(profile, select, ignore, variant, config).check_file(path)


def fix_file(path: PathLike, *, unsafe: bool = False, to_utf8: bool = False,
             write: bool = True, profile: Optional[str] = None, select: RuleNames = None,
             ignore: RuleNames = None, variant: Optional[str] = None,
             config: Optional[PathLike] = None) -> FixResult:
    """Fix a file in place (atomically, only if it changes), as `jinghua
    fix FILE`; the result."""
    return _for(profile, select, ignore, variant, config).fix_file(
        path, unsafe=unsafe, to_utf8=to_utf8, write=write)
