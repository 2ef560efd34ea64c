"""Linter: one configuration and the check and fix calls that use it.

Every step is a call into libjinghua's document API (jinghua.h): the
configuration (.jinghua.ini found upward or given, profiles, [path:GLOB]
sections, accepted words, rule folders), decoding, Markdown, inline
switches and the fix loop are the library's.  This module turns Python
values into the option structs and findings back into Python objects.
The settings a configuration gives are read-only and its calls are
serialised by the library, each call has its own document, and cffi
releases the GIL during a call: one Linter serves any number of threads.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Iterable, Optional, Sequence, Union

from . import _lib
from ._lib import ffi, lib
from ._types import (ConfigError, Diagnostic, Edit, Finding, Fix, FixResult,
                     JinghuaError, RuleError)

Text = Union[str, bytes]
RuleNames = Union[str, Iterable[str], None]
PathLike = Union[str, "os.PathLike[str]"]

_SEVERITY = {lib.JH_INFO: "info", lib.JH_WARNING: "warning", lib.JH_ERROR: "error"}
_SAFETY = {lib.JH_SAFE: "safe", lib.JH_UNSAFE: "unsafe"}
_TYPES = {None: lib.JH_DOC_AUTO, "auto": lib.JH_DOC_AUTO, "text": lib.JH_DOC_TEXT,
          "markdown": lib.JH_DOC_MARKDOWN}
_FAIL_ON = {None: -1, "info": lib.JH_INFO, "warning": lib.JH_WARNING,
            "error": lib.JH_ERROR, "never": lib.JH_FAIL_NEVER}
# a text without a path is checked as the CLI checks standard input: the
# settings of a file in the current folder (as `jinghua check -` and the
# jsonl filter do)
_NO_PATH = "./-"


def _s(p: Any) -> Optional[str]:
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else None


class _Diags(threading.local):
    """Where the library's diagnostics go: the list of the call running in
    this thread (a configuration reads its files when a path first needs
    them, so its diagnostics come during later calls, in their thread)."""

    items: Optional[list[Diagnostic]] = None


# The library names an option as the CLI spells it ("--select"); here it
# is a keyword of Linter(), and no file.
_OPTIONS = {"--select": "select", "--extend-select": "extend_select", "--ignore": "ignore",
            "--profile": "profile", "--variant": "variant", "--encoding": "encoding",
            "--type": "type", "--config": "config", "--rules": "rules"}


@ffi.callback("jh_diag_fn")
def _collect_diag(d: Any, payload: Any) -> None:
    # a diagnostic is valid only during the call: copied at once
    sink = ffi.from_handle(payload)
    if sink.items is not None:
        file = _s(d.file)
        option = _OPTIONS.get(file or "")
        sink.items.append(Diagnostic(
            _SEVERITY.get(d.severity, "error"), None if option else file, d.line, d.column,
            _s(d.rule_id), _s(d.message) or "", option))


class _Call:
    """Collects the diagnostics of one call in this thread."""

    def __init__(self, sink: _Diags) -> None:
        self.sink = sink
        self.items: list[Diagnostic] = []

    def __enter__(self) -> "_Call":
        self.saved = self.sink.items
        self.sink.items = self.items
        return self

    def __exit__(self, *exc: Any) -> None:
        self.sink.items = self.saved

    def fail(self, status: int, what: str) -> None:
        """Raise the exception for a failed call (status < 0)."""
        diags = tuple(self.items)
        errors = [d for d in diags if d.severity == "error"]
        text = "; ".join(str(d) for d in errors) or _s(lib.jh_strerror(status))
        if status == lib.JH_ERR_RULES or any(
                (d.file or "").endswith((".rules", ".tsv")) for d in errors):
            cls: type = RuleError
        elif status == lib.JH_ERR_CONFIG:
            cls = ConfigError
        elif status == lib.JH_ERR_NOMEM:
            raise MemoryError(what)
        else:
            cls = JinghuaError
        raise cls(f"{what}: {text}", status, diags)


def _names(spec: RuleNames) -> Optional[str]:
    if spec is None or isinstance(spec, str):
        return spec
    return ",".join(spec)


def default_cache_dir() -> str:
    """The CLI's cache folder: $JINGHUA_CACHE_DIR, else
    $XDG_CACHE_HOME/jinghua, else ~/.cache/jinghua."""
    env = os.environ.get("JINGHUA_CACHE_DIR")
    if env is not None:
        return env
    xdg = os.environ.get("XDG_CACHE_HOME")
    return os.path.join(xdg if xdg else os.path.expanduser("~/.cache"), "jinghua")


class Linter:
    """One configuration for many check and fix calls (thread-safe).

    As the CLI's options: config (a file instead of .jinghua.ini found
    upward from each path), no_config, profile (a name or a .profile
    file), rules (folders loaded after the config's; later wins),
    no_default_rules, select / extend_select / ignore (rule ids or
    families: a comma separated string or a list), variant ("auto",
    "hans", "hant"), encoding (a name or "auto", for bytes), type ("auto",
    "text", "markdown"), cache_dir (compiled tables; default as the CLI's,
    "" for none), unsafe (the default of fix).  Configuration and rule
    errors raise ConfigError / RuleError with the file and line of the first.
    """

    def __init__(self, *, config: Optional[PathLike] = None, no_config: bool = False,
                 profile: Optional[str] = None, rules: Sequence[PathLike] = (),
                 no_default_rules: bool = False, select: RuleNames = None,
                 extend_select: RuleNames = None, ignore: RuleNames = None,
                 variant: Optional[str] = None, encoding: Optional[str] = None,
                 type: Optional[str] = None, cache_dir: Optional[PathLike] = None,
                 unsafe: bool = False) -> None:
        if variant not in (None, "auto", "hans", "hant"):
            raise ValueError(f"variant must be auto, hans or hant, not {variant!r}")
        if type not in _TYPES:
            raise ValueError(f"type must be auto, text or markdown, not {type!r}")
        self.unsafe = unsafe
        self._sink = _Diags()
        self._handle = ffi.new_handle(self._sink)
        self._keep: list[Any] = []  # the strings the options point to
        self._settings_of: dict[str, Any] = {}
        self._lock = threading.Lock()
        opts = ffi.new("jh_config_options *")
        opts.version = lib.JH_CONFIG_OPTIONS_VERSION
        opts.config_file = self._c(config)
        opts.no_config = int(no_config)
        opts.rules_dir = self._c(_lib.rules_dir())
        opts.no_default_rules = int(no_default_rules)
        if rules:
            if isinstance(rules, (str, os.PathLike)):
                rules = [rules]
            dirs = [self._c(r) for r in rules]
            arr = ffi.new("const char *[]", dirs)
            self._keep.append(arr)
            opts.rule_dirs, opts.n_rule_dirs = arr, len(dirs)
        opts.select = self._c(_names(select))
        opts.extend_select = self._c(_names(extend_select))
        opts.ignore = self._c(_names(ignore))
        opts.profile = self._c(profile)
        opts.variant = self._c(variant)
        opts.encoding = self._c(encoding)
        opts.type = _TYPES[type]
        opts.fail_on = -1
        opts.cache_dir = self._c(default_cache_dir() if cache_dir is None else cache_dir)
        opts.diag_fn = _collect_diag
        opts.payload = self._handle
        out = ffi.new("jh_config **")
        with _Call(self._sink) as call:
            rc = lib.jh_config_open(opts, out)
            if rc:
                call.fail(rc, "opening the configuration")
        self._cfg = ffi.gc(out[0], lib.jh_config_free)
        self._opts = opts
        self._utf8 = self._c("UTF-8")
        self._settings(None, "the options")  # the rules compiled now: their errors raised here

    def _c(self, value: Optional[Union[str, os.PathLike]]) -> Any:
        """A C string that lives as long as this Linter (or NULL)."""
        if value is None:
            return ffi.NULL
        c = ffi.new("char[]", os.fsencode(value))
        self._keep.append(c)
        return c

    def _settings(self, path: Optional[PathLike], what: Optional[str] = None) -> Any:
        key = _NO_PATH if path is None else os.fspath(path)
        s = self._settings_of.get(key)
        if s is not None:
            return s
        out = ffi.new("jh_settings **")
        with _Call(self._sink) as call:
            rc = lib.jh_config_settings(self._cfg, os.fsencode(key), out)
            if rc:
                call.fail(rc, what or ("the settings for a text without a path" if path is None
                                       else f"the settings for {key}"))
        with self._lock:
            if len(self._settings_of) > 4096:  # a long walk: keep the latest
                self._settings_of.clear()
            self._settings_of[key] = out[0]
        return out[0]

    # ---- the rules ----

    @property
    def rules(self) -> list[str]:
        """Ids of the rules run on a text without a path, in rule-set order."""
        s = self._settings(None)
        info = ffi.new("jh_rule_info *")
        out = []
        for i in range(lib.jh_ruleset_count(s.ruleset)):
            if s.enabled[i]:
                lib.jh_rule_get_info(lib.jh_ruleset_rule(s.ruleset, i), info)
                out.append(_s(info.id) or "")
        return out

    def excluded(self, path: PathLike) -> bool:
        """Is path excluded by its configuration (`exclude =`)?"""
        return lib.jh_config_excluded(self._cfg, os.fsencode(path)) == 1

    def stale(self) -> bool:
        """Has a file this linter's configuration read (or looked for: a
        .jinghua.ini created nearer counts) changed since?  Then make a
        new Linter to see the change (jh_config_stale)."""
        return lib.jh_config_stale(self._cfg) == 1

    # ---- documents ----

    def _document(self, text: Text, path: Optional[PathLike], fix: bool, unsafe: bool,
                  lines: Optional[Sequence[tuple[int, int]]], to_utf8: bool,
                  doc_type: Optional[str] = None) -> tuple[Any, bytes]:
        if isinstance(text, str):
            data = text.encode("utf-8")
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
        else:
            raise TypeError(f"text must be str or bytes, not {type(text).__name__}")
        settings = self._settings(path)
        opts = ffi.new("jh_document_options *")
        opts.version = lib.JH_DOCUMENT_OPTIONS_VERSION
        opts.settings = settings
        name = ffi.new("char[]", os.fsencode(path) if path is not None else b"<text>")
        opts.name = name
        if doc_type not in _TYPES:
            raise ValueError(f"type must be auto, text or markdown, not {doc_type!r}")
        opts.type = _TYPES[doc_type]
        if isinstance(text, str):
            opts.encoding = self._utf8  # a str is its UTF-8, whatever the config says
        if lines is not None:
            flat = ffi.new("size_t[]", [n for pair in sorted(lines) for n in pair])
            opts.lines, opts.n_line_pairs = flat, len(lines)
        opts.unsafe = int(unsafe)
        opts.to_utf8 = int(to_utf8)
        opts.diag_fn = _collect_diag
        opts.payload = self._handle
        out = ffi.new("jh_document **")
        call_fn = lib.jh_document_fix if fix else lib.jh_document_check
        with _Call(self._sink) as call:
            rc = call_fn(data, len(data), opts, out)
            if rc:
                call.fail(rc, f"{'fixing' if fix else 'checking'} {name_of(path)}")
        # the document points into data: data is returned with it, kept alive
        return ffi.gc(out[0], lib.jh_document_free), data

    def check(self, text: Text, *, path: Optional[PathLike] = None,
              type: Optional[str] = None,
              lines: Optional[Sequence[tuple[int, int]]] = None) -> list[Finding]:
        """The findings in text (str, or the bytes of a file), sorted.

        path (need not exist) chooses the configuration, the type (*.md is
        Markdown) and, for bytes, the encoding, as for that file; offsets
        are in the file's bytes (a str: its UTF-8).  lines: only findings
        touching these [first, last] line ranges.  type: "text" or
        "markdown" instead of what the path and configuration say.
        """
        doc, _ = self._document(text, path, False, False, lines, False, type)
        return _findings(doc)

    def document(self, text: Text, *, path: Optional[PathLike] = None,
                 type: Optional[str] = None) -> tuple[Document, int]:
        """The checked Document and the fail-on level of its settings (0
        info, 1 warning, 2 error, 3 never): for front ends that show the
        decoded text, as python3 -m jinghua does."""
        doc, data = self._document(text, path, False, False, None, False, type)
        return Document(doc, data, self), self._settings(path).fail_on

    def fix_result(self, text: Text, *, path: Optional[PathLike] = None,
                   type: Optional[str] = None, unsafe: Optional[bool] = None,
                   to_utf8: bool = False) -> FixResult:
        """Fix text until it settles: the fixed text (str for str; for bytes,
        the bytes in the file's encoding, or UTF-8 with to_utf8), the
        number of edits, the rounds and the findings left.  Raises
        JinghuaError (and gives no text) when the fixes do not settle or
        the result cannot be written back in the file's encoding."""
        unsafe = self.unsafe if unsafe is None else unsafe
        doc, _ = self._document(text, path, True, unsafe, None, to_utf8, type)
        n = ffi.new("size_t *")
        report = ffi.new("jh_fix_report *")
        fixed = lib.jh_document_fixed(doc, n, report)
        if fixed == ffi.NULL:
            why = _s(lib.jh_document_problem(doc)) or "no fixed text"
            err = JinghuaError(f"{name_of(path)}: {why}")
            err.reason = why
            raise err
        out = ffi.unpack(fixed, n[0])
        unstable = _s(report.unstable_rules) or ""
        return FixResult(
            out.decode("utf-8") if isinstance(text, str) else out,
            report.edits_applied, report.rounds, bool(report.converged),
            tuple(u for u in unstable.split(",") if u), _findings(doc))

    def fix(self, text: Text, *, path: Optional[PathLike] = None, type: Optional[str] = None,
            unsafe: Optional[bool] = None, to_utf8: bool = False) -> Text:
        """The fixed text: str in, str out; bytes in, bytes out (in the
        file's encoding when path or the configuration says so)."""
        return self.fix_result(text, path=path, type=type, unsafe=unsafe, to_utf8=to_utf8).text

    def encoding(self, data: bytes, *, path: Optional[PathLike] = None) -> str:
        """The encoding the library reads these bytes in ("UTF-8", "GB18030", ...)."""
        return self.document(data, path=path)[0].encoding

    # ---- files ----

    def check_file(self, path: PathLike) -> list[Finding]:
        """The findings in a file, as `jinghua check FILE` gives them."""
        return self.check(_read(path), path=path)

    def fix_file(self, path: PathLike, *, unsafe: Optional[bool] = None,
                 to_utf8: bool = False, write: bool = True) -> FixResult:
        """Fix a file in place (write=False: only return the result).

        Read and written as `jinghua fix FILE` does (jh_file_read,
        jh_file_replace): replaced atomically and only when the fix
        changed it, through a symlink, with its mode, owner, extended
        attributes and ACLs; if it changed on disk while being read or
        fixed, is read-only, is not a regular file or its attributes cannot
        be kept, it is left alone (JinghuaError).  A SIGTERM or SIGHUP
        during the write leaves no temporary file."""
        f = _File(path)
        res = self.fix_result(f.data, path=path, unsafe=unsafe, to_utf8=to_utf8)
        if write and res.text != f.data:
            _guard_signals()
            f.replace(res.text)
        return res


class Document:
    """A checked (or fixed) document: the library's jh_document, the bytes
    it points into and the Linter whose rule set its findings point into,
    kept alive together."""

    def __init__(self, doc: Any, data: bytes, linter: Linter) -> None:
        self._doc = doc
        self._data = data
        self._linter = linter  # a finding's rule id lives in its rule set

    def text(self) -> bytes:
        """The UTF-8 text the library checked (a file's decoded text)."""
        n = ffi.new("size_t *")
        p = lib.jh_document_text(self._doc, n)
        return ffi.unpack(p, n[0])

    @property
    def encoding(self) -> str:
        return _s(lib.jh_document_encoding(self._doc)) or ""

    @property
    def is_markdown(self) -> bool:
        return bool(lib.jh_document_is_markdown(self._doc))

    def report_human(self, name: PathLike, color: bool = False) -> bytes:
        """The findings as `jinghua check` prints them for people, under the
        file name name (jh_report_human: the same call the CLI makes)."""
        n = ffi.new("size_t *")
        text = lib.jh_document_text(self._doc, n)
        chunks: list[bytes] = []
        rc = lib.jh_report_human(os.fsencode(name), text, n[0], lib.jh_document_findings(self._doc),
                                 lib.JH_REPORT_COLOR if color else 0, _collect_write,
                                 ffi.new_handle(chunks))
        _check_report(rc)
        return b"".join(chunks)


@ffi.callback("jh_write_fn", error=1)
def _collect_write(data: Any, n: int, payload: Any) -> int:
    ffi.from_handle(payload).append(ffi.unpack(data, n))
    return 0


def _check_report(rc: int) -> None:
    if rc == lib.JH_ERR_NOMEM:
        raise MemoryError("jinghua: out of memory")
    if rc:
        raise JinghuaError(_s(lib.jh_strerror(rc)) or "error", rc)


def human_summary(by_severity: dict[str, int], files: int, skipped: int) -> bytes:
    """The line that ends a human report (jh_report_human_summary), or b""
    when no finding was counted: by_severity counts "info", "warning" and
    "error"."""
    by = ffi.new("size_t[3]", [by_severity.get(_SEVERITY[k], 0) for k in range(3)])
    chunks: list[bytes] = []
    _check_report(lib.jh_report_human_summary(by, files, skipped, _collect_write,
                                              ffi.new_handle(chunks)))
    return b"".join(chunks)


def text_findings(doc: Document) -> list[Finding]:
    """The findings with offsets into doc.text() (for showing source lines)."""
    return _findings(doc._doc, False)


def file_findings(doc: Document) -> list[Finding]:
    """The findings with offsets into the file's bytes."""
    return _findings(doc._doc, True)


def shown_name(name: PathLike) -> str:
    """A file name for people, as the CLI prints it (jh_name_escape): control
    bytes and bytes that are not UTF-8 as \\xHH."""
    b = os.fsencode(name)
    size = 4 * len(b) + 1
    buf = ffi.new("char[]", size)
    n = lib.jh_name_escape(b, buf, size)
    return ffi.unpack(buf, n).decode("utf-8")


def name_of(path: Optional[PathLike]) -> str:
    return "text" if path is None else os.fspath(path)


def _same(doc: Any, offset: int) -> int:
    return offset


def _edits(doc: Any, n: int, edits: Any, off: Any) -> tuple[Edit, ...]:
    return tuple(Edit(off(doc, e.byte_start), off(doc, e.byte_end), _s(e.replacement) or "")
                 for e in (edits[i] for i in range(n)))


def _findings(doc: Any, file_offsets: bool = True) -> list[Finding]:
    fs = lib.jh_document_findings(doc)
    off = lib.jh_document_file_offset if file_offsets else _same
    out = []
    for i in range(fs.count):
        f = fs.items[i]
        safety = _SAFETY[f.safety]
        fix = Fix(safety, _edits(doc, f.n_edits, f.edits, off)) if f.has_fix else None
        alts = tuple(Fix(safety, _edits(doc, a.n_edits, a.edits, off),
                         a.score if a.score >= 0 else None)
                     for a in (f.alternatives[k] for k in range(f.n_alternatives)))
        ranked = bool(alts)
        if ranked and fix and alts[0].edits == fix.edits:
            fix = alts[0]  # the same answer, with its score
        elif not ranked and fix:
            alts = (fix,)
        out.append(Finding(
            _s(f.rule_id) or "", _SEVERITY.get(f.severity, "error"),
            f.line, f.column, f.end_line, f.end_column, f.display_column,
            off(doc, f.byte_start), off(doc, f.byte_end), _s(f.message) or "", fix, alts,
            ranked))
    return out


# What a stream (a FIFO) may give before it is refused, as `jinghua check`
# refuses one; a regular file has no bound of its own.
STREAM_MAX = lib.JH_STREAM_MAX


class _File:
    """A file as the library read it (jh_file_read): its bytes, and what
    jh_file_replace needs to write it back as `jinghua fix` does."""

    def __init__(self, path: Optional[PathLike]) -> None:
        self.name = "<stdin>" if path is None else os.fspath(path)
        out = ffi.new("jh_file **")
        why = ffi.new("const char **")
        rc = lib.jh_file_read(ffi.NULL if path is None else os.fsencode(path), STREAM_MAX,
                              out, why)
        if rc:
            _file_error(rc, self.name, why[0])
        self._f = ffi.gc(out[0], lib.jh_file_free)
        n = ffi.new("size_t *")
        self.data = ffi.unpack(lib.jh_file_data(self._f, n), n[0])

    def replace(self, data: bytes) -> None:
        why = ffi.new("const char **")
        rc = lib.jh_file_replace(self._f, data, len(data), why)
        if rc:
            _file_error(rc, self.name, why[0])


def _file_error(rc: int, name: str, why: Any) -> None:
    """Raise what a failed jh_file_* call means: the library's own reason
    (JinghuaError), else the system's (OSError with errno and file name)."""
    if rc == lib.JH_ERR_NOMEM:
        raise MemoryError(name)
    if why != ffi.NULL:
        err = JinghuaError(f"{name}: {_s(why)}")
        err.reason = _s(why)
        raise err
    e = ffi.errno
    raise OSError(e, os.strerror(e), name)


def _read(path: Optional[PathLike]) -> bytes:
    """A file's bytes (None: standard input), read as the CLI reads a file
    it is given (jh_file_read): a device (/dev/zero) is refused
    (JinghuaError), a stream is read up to STREAM_MAX bytes (OSError EFBIG
    past that)."""
    return _File(path).data


_guarded = False


def _guard_signals() -> None:
    """Before the first replace: a SIGTERM or SIGHUP that kills the process
    (Python leaves both at their default) removes the temporary file of a
    replace in progress first, as in the CLI (jh_file_guard_signals).
    Python's SIGINT handler is left alone: KeyboardInterrupt comes after
    the write, which ends whole."""
    global _guarded
    if not _guarded:
        lib.jh_file_guard_signals()
        _guarded = True
