"""The values the binding returns and the exceptions it raises."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True, slots=True)
class Edit:
    """One replacement: the bytes [byte_start, byte_end) become replacement."""

    byte_start: int
    byte_end: int
    replacement: str

    def to_dict(self) -> dict[str, Any]:
        return {"byte_start": self.byte_start, "byte_end": self.byte_end,
                "replacement": self.replacement}


@dataclass(frozen=True, slots=True)
class Fix:
    """A complete set of edits, applied whole or not at all.

    score is the rule's calibrated probability in [0, 1] that this answer
    is the right one (of answers scored 0.7, about seven in ten are right),
    or None when the rule gives no probability (a finding's fix alone has
    none)."""

    safety: str  # "safe" or "unsafe"
    edits: tuple[Edit, ...]
    score: Optional[float] = None

    def to_dict(self) -> dict[str, Any]:
        """The fix as the CLI's JSON report writes a finding's "fix"."""
        return {"safety": self.safety, "edits": [e.to_dict() for e in self.edits]}


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding, with the fields of the CLI's JSON report.

    Byte offsets are into the text as given (for a str, its UTF-8 form; for
    a file, the file's own bytes); lines and columns are 1-based, columns
    count characters and end_column is exclusive.  fix is the first of
    alternatives (or None); alternatives lists every proposed fix, best
    first.  ranked is True when those are the rule's own ranked answers
    (each with its score, if the rule gives one), False when alternatives
    is just the fix (or empty).
    """

    rule: str
    severity: str  # "info", "warning" or "error"
    line: int
    column: int
    end_line: int
    end_column: int
    display_column: int
    byte_start: int
    byte_end: int
    message: str
    fix: Optional[Fix]
    alternatives: tuple[Fix, ...] = ()
    ranked: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The finding as the CLI's JSON report writes it."""
        return {
            "rule": self.rule, "severity": self.severity,
            "line": self.line, "column": self.column,
            "end_line": self.end_line, "end_column": self.end_column,
            "display_column": self.display_column,
            "byte_start": self.byte_start, "byte_end": self.byte_end,
            "message": self.message,
            "fix": self.fix.to_dict() if self.fix else None,
        }


@dataclass(frozen=True, slots=True)
class FixResult:
    """What fixing a text gave: the text, how many edits, how it settled."""

    text: Any  # str or bytes, as the input was
    fixes: int  # edits applied over all rounds
    rounds: int
    converged: bool
    unstable_rules: tuple[str, ...]
    findings: list[Finding] = field(default_factory=list)  # what is left


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem reported by the library (a broken rule, a config line)."""

    severity: str
    file: Optional[str]
    line: int
    column: int
    rule: Optional[str]
    message: str

    def __str__(self) -> str:
        where = self.file or "jinghua"
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        rule = f" [{self.rule}]" if self.rule else ""
        return f"{where}: {self.severity}{rule}: {self.message}"


class JinghuaError(Exception):
    """A call into libjinghua failed; status is its jh_status (negative)."""

    def __init__(self, message: str, status: int = 0,
                 diagnostics: tuple[Diagnostic, ...] = ()):
        super().__init__(message)
        self.reason: str = message  # the library's words, without the file
        self.status = status
        self.diagnostics = diagnostics
        first = next((d for d in diagnostics if d.severity == "error"), None)
        first = first or (diagnostics[0] if diagnostics else None)
        self.file: Optional[str] = first.file if first else None
        self.line: int = first.line if first else 0
        self.column: int = first.column if first else 0


class ConfigError(JinghuaError):
    """The configuration is wrong: a .jinghua.ini, a profile, an option
    (an unknown rule name, profile or encoding), or a rule file."""


class RuleError(ConfigError):
    """A rule file (or one of its lexicons) is wrong."""
