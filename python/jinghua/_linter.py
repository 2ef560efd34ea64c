"""Linter: one compiled rule set and the calls that use it.

Every step is a call into libjinghua's public API; this module only turns
Python values into the option structs and findings back into Python
objects.  A compiled rule set is read-only (jinghua.h), each call has its
own findings list and options, and cffi releases the GIL during a call, so
one Linter serves any number of threads at once, in parallel.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence, Union

from . import _lib
from ._lib import ffi, lib
from ._types import (Diagnostic, Edit, Finding, Fix, FixResult, JinghuaError,
                     RuleError)

Text = Union[str, bytes]
RuleNames = Union[str, Iterable[str], None]

_SEVERITY = {lib.JH_INFO: "info", lib.JH_WARNING: "warning", lib.JH_ERROR: "error"}
_SAFETY = {lib.JH_SAFE: "safe", lib.JH_UNSAFE: "unsafe"}


def _s(p: Any) -> Optional[str]:
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else None


@ffi.callback("jh_diag_fn")
def _collect_diag(d: Any, payload: Any) -> None:
    # diagnostics are valid only during the call: copied at once
    ffi.from_handle(payload).append(Diagnostic(
        _SEVERITY.get(d.severity, "error"), _s(d.file), d.line, d.column,
        _s(d.rule_id), _s(d.message) or ""))


class _Diags:
    """A list the library's diagnostics callback appends to."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.handle = ffi.new_handle(self.items)
        self.keep: Any = None

    def raise_for(self, status: int, what: str, cls: type = RuleError) -> None:
        if status == 0:
            return
        diags = tuple(self.items)
        text = "; ".join(str(d) for d in diags if d.severity == "error")
        raise cls(f"{what}: {text or _s(lib.jh_strerror(status))}", status, diags)


def _names(spec: RuleNames) -> Optional[str]:
    if spec is None:
        return None
    if isinstance(spec, str):
        return spec
    return ",".join(spec)


def _as_bytes(text: Text) -> bytes:
    if isinstance(text, bytes):
        return text
    if isinstance(text, str):
        return text.encode("utf-8")
    raise TypeError(f"text must be str or bytes, not {type(text).__name__}")


class Linter:
    """One compiled rule set, for many check and fix calls (thread-safe).

    rules: folders or rule files to load instead of the default rules
    folder; extra_rules: loaded after them (a later rule of the same id
    wins); select / extend_select / ignore: rule ids or families (a comma
    separated string or a list), as the CLI's -s, --extend-select and -i;
    variant: "auto", "hans" or "hant"; unsafe: the default of fix().
    Rule errors raise RuleError with the file and line of the first.
    """

    def __init__(self, *, rules: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], None] = None,
                 extra_rules: Sequence[Union[str, os.PathLike]] = (),
                 select: RuleNames = None, extend_select: RuleNames = None,
                 ignore: RuleNames = None, variant: Optional[str] = None,
                 unsafe: bool = False) -> None:
        if variant not in (None, "auto", "hans", "hant"):
            raise ValueError(f"variant must be auto, hans or hant, not {variant!r}")
        self.unsafe = unsafe
        self.variant = variant
        self._rs = self._load(rules, extra_rules)
        self._n = lib.jh_ruleset_count(self._rs)
        self._enabled = self._selection(select, extend_select, ignore)
        self._fix_enabled = {u: self._for_fix(u) for u in (False, True)}
        self._variant = ffi.new("char[]", variant.encode()) if variant else ffi.NULL

    # ---- building ----

    def _load(self, rules: Any, extra: Sequence[Any]) -> Any:
        if rules is None:
            default = _lib.rules_dir()
            if default is None:
                raise RuleError("no rules folder: set JINGHUA_RULES or pass rules=")
            paths = [default]
        elif isinstance(rules, (str, os.PathLike)):
            paths = [rules]
        else:
            paths = list(rules)
        paths += list(extra)
        out = ffi.new("jh_ruleset **")
        if lib.jh_ruleset_new(out):
            raise MemoryError("jh_ruleset_new")
        rs = ffi.gc(out[0], lib.jh_ruleset_free)
        diags = _Diags()
        for p in paths:
            p = os.fsencode(p)
            load = lib.jh_ruleset_load_dir if os.path.isdir(p) else lib.jh_ruleset_load_file
            diags.raise_for(load(rs, p, _collect_diag, diags.handle),
                            f"loading rules from {os.fsdecode(p)}")
        diags.raise_for(lib.jh_ruleset_compile(rs, _collect_diag, diags.handle),
                        "compiling the rules")
        return rs

    def _selection(self, select: RuleNames, extend: RuleNames, ignore: RuleNames) -> Any:
        enabled = ffi.new("unsigned char[]", self._n + 1)
        bad = ffi.new("char[]", 256)
        spec = _names(select)
        if spec is not None:  # only these: start from nothing
            ffi.memmove(enabled, b"\0" * self._n, self._n)
        else:
            lib.jh_ruleset_default_selection(self._rs, enabled)
        for names, on in ((spec, 1), (_names(extend), 1), (_names(ignore), 0)):
            if names is None:
                continue
            if lib.jh_selection_apply(self._rs, enabled, names.encode(), on, bad, 256):
                raise RuleError(f"unknown rule or family: {_s(bad)}", lib.JH_ERR_ARG)
        return enabled

    def _for_fix(self, unsafe: bool) -> Any:
        sel = ffi.new("unsigned char[]", self._n + 1)
        ffi.memmove(sel, self._enabled, self._n)
        lib.jh_selection_for_fix(self._rs, sel, int(unsafe))
        return sel

    def _options(self, enabled: Any, name: Optional[bytes], diags: _Diags) -> Any:
        opts = ffi.new("jh_check_options *")
        opts.version = lib.JH_CHECK_OPTIONS_VERSION
        opts.enabled = enabled
        if name is not None:  # kept alive by diags, which lives as long as the call
            diags.keep = ffi.new("char[]", name)
            opts.file = diags.keep
        opts.diag_fn = _collect_diag
        opts.payload = diags.handle
        opts.variant = self._variant
        return opts

    # ---- the rules ----

    @property
    def rules(self) -> list[str]:
        """Ids of the rules this Linter runs, in rule-set order."""
        info = ffi.new("jh_rule_info *")
        out = []
        for i in range(self._n):
            if self._enabled[i]:
                lib.jh_rule_get_info(lib.jh_ruleset_rule(self._rs, i), info)
                out.append(_s(info.id))
        return out

    # ---- checking and fixing ----

    def check(self, text: Text, *, name: Optional[str] = None) -> list[Finding]:
        """The findings in text (str or bytes), sorted by position."""
        data = _as_bytes(text)
        diags = _Diags()
        fname = name.encode() if name else None
        opts = self._options(self._enabled, fname, diags)
        fs = ffi.new("jh_findings *")
        try:
            rc = lib.jh_check(self._rs, data, len(data), opts, fs)
            if rc:
                diags.raise_for(rc, f"checking {name or 'text'}", JinghuaError)
            return _findings(fs)
        finally:
            lib.jh_findings_clear(fs)

    def fix_result(self, text: Text, *, unsafe: Optional[bool] = None,
                   name: Optional[str] = None, findings: bool = True) -> FixResult:
        """Fix text until it settles; the text (same type as given), the
        number of edits applied, the rounds and (unless findings=False)
        the findings left in the fixed text."""
        unsafe = self.unsafe if unsafe is None else unsafe
        data = _as_bytes(text)
        diags = _Diags()
        fname = name.encode() if name else None
        opts = self._options(self._fix_enabled[bool(unsafe)], fname, diags)
        out = ffi.new("char **")
        out_len = ffi.new("size_t *")
        report = ffi.new("jh_fix_report *")
        rc = lib.jh_fix(self._rs, data, len(data), opts, int(unsafe), out, out_len, report)
        if rc:
            diags.raise_for(rc, f"fixing {name or 'text'}", JinghuaError)
        try:
            fixed = ffi.unpack(out[0], out_len[0])
        finally:
            _lib.libc.free(out[0])
        left = self.check(fixed, name=name) if findings else []
        unstable = _s(report.unstable_rules) or ""
        return FixResult(
            fixed.decode("utf-8") if isinstance(text, str) else fixed,
            report.edits_applied, report.rounds, bool(report.converged),
            tuple(u for u in unstable.split(",") if u), left)

    def fix(self, text: Text, *, unsafe: Optional[bool] = None) -> Text:
        """The fixed text: str in, str out; bytes in, bytes out."""
        return self.fix_result(text, unsafe=unsafe, findings=False).text


    # ---- files ----

    def check_file(self, path: Union[str, os.PathLike]) -> list[Finding]:
        """The findings in a file, offsets into its bytes."""
        return self.check(_read(path), name=os.fspath(path))

    def fix_file(self, path: Union[str, os.PathLike], *, unsafe: Optional[bool] = None,
                 write: bool = True) -> FixResult:
        """Fix a file in place (write=False: only return the result).

        The file is replaced atomically and only when the fix changed it;
        if it changed on disk while being fixed it is left alone
        (JinghuaError)."""
        name = os.fspath(path)
        before = os.stat(path)
        data = _read(path)
        res = self.fix_result(data, unsafe=unsafe, name=name)
        if write and res.text != data:
            now = os.stat(path)
            if (now.st_ino, now.st_size, now.st_mtime_ns) != \
                    (before.st_ino, before.st_size, before.st_mtime_ns):
                raise JinghuaError(f"{name}: changed while being fixed; not written")
            write_atomically(path, res.text)
        return res

def _fix_of(f: Any) -> Optional[Fix]:
    if not f.has_fix:
        return None
    edits = tuple(Edit(e.byte_start, e.byte_end, _s(e.replacement) or "")
                  for e in (f.edits[i] for i in range(f.n_edits)))
    return Fix(_SAFETY[f.safety], edits)


def _findings(fs: Any) -> list[Finding]:
    out = []
    for i in range(fs.count):
        f = fs.items[i]
        fix = _fix_of(f)
        out.append(Finding(
            _s(f.rule_id) or "", _SEVERITY.get(f.severity, "error"),
            f.line, f.column, f.end_line, f.end_column, f.display_column,
            f.byte_start, f.byte_end, _s(f.message) or "", fix,
            (fix,) if fix else ()))
    return out


def _read(path: Union[str, os.PathLike]) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def write_atomically(path: Union[str, os.PathLike], data: bytes) -> None:
    """Replace the file at path by data: a temporary file in the same
    folder, flushed to disk, given the old file's mode, then renamed over
    it, so a crash leaves the old file or the new, never half of one."""
    import tempfile

    path = os.fspath(path)
    st = os.stat(path)
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".jinghua-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except PermissionError:
            pass  # not ours to give: the new file stays the caller's
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
