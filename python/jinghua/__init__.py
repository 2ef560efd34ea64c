"""jinghua (净化): find and repair damage in Chinese prose, from Python.

A thin cffi binding of libjinghua's public API (jinghua.h): the rules,
the engine and the fixer are the library's, the same the ``jinghua``
command runs.

    >>> import jinghua
    >>> jinghua.fix("你好,世界")
    '你好，世界'
    >>> [f.rule for f in jinghua.check("你好,世界")]
    ['punct.halfwidth']

For many calls build one :class:`Linter` (it compiles the rules once) and
share it, between threads too.
"""
from __future__ import annotations

# the generated module may sit in a build folder apart from the sources
# (a VPATH build): both folders make up the package
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)  # type: ignore[name-defined]

import functools  # noqa: E402
import os  # noqa: E402
from typing import Optional  # noqa: E402

from ._linter import Linter, RuleNames, Text  # noqa: E402
from ._types import (ConfigError, Diagnostic, Edit, Finding, Fix,  # noqa: E402
                     FixResult, JinghuaError, RuleError)

__all__ = [
    "check", "fix", "check_file", "fix_file", "Linter", "Finding", "Fix",
    "Edit", "FixResult", "Diagnostic", "JinghuaError", "RuleError",
    "ConfigError", "__version__",
]

__version__ = "0.1.0"


def _key(names: RuleNames) -> Optional[str]:
    if names is None or isinstance(names, str):
        return names
    return ",".join(names)


@functools.lru_cache(maxsize=16)
def _linter(select: Optional[str], ignore: Optional[str],
            variant: Optional[str]) -> Linter:
    return Linter(select=select, ignore=ignore, variant=variant)


def check(text: Text, *, select: RuleNames = None, ignore: RuleNames = None,
          variant: Optional[str] = None) -> list[Finding]:
    """The findings in text (str, or bytes read as UTF-8).

    The rule set for each distinct select/ignore/variant is compiled once
    and kept; for other settings build a :class:`Linter`.
    """
    return _linter(_key(select), _key(ignore), variant).check(text)


def fix(text: Text, *, unsafe: bool = False, select: RuleNames = None,
        ignore: RuleNames = None, variant: Optional[str] = None) -> Text:
    """The fixed text (str in, str out; bytes in, bytes out).

    Safe fixes only unless unsafe=True; fixes are applied until the text
    no longer changes.
    """
    return _linter(_key(select), _key(ignore), variant).fix(text, unsafe=unsafe)


def check_file(path: "str | os.PathLike[str]", *, select: RuleNames = None,
               ignore: RuleNames = None, variant: Optional[str] = None) -> list[Finding]:
    """The findings in a file (offsets into the file's bytes)."""
    return _linter(_key(select), _key(ignore), variant).check_file(path)


def fix_file(path: "str | os.PathLike[str]", *, unsafe: bool = False, write: bool = True,
             select: RuleNames = None, ignore: RuleNames = None,
             variant: Optional[str] = None) -> FixResult:
    """Fix a file in place (atomically, only if it changes); the result."""
    return _linter(_key(select), _key(ignore), variant).fix_file(path, unsafe=unsafe, write=write)
