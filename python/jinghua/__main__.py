"""python3 -m jinghua [OPTIONS] [PATH...|-]: the CLI's `check`, through the binding.

Files as given, folders recursively in name order, hidden entries and
symbolic links inside folders skipped and files their configuration
excludes (as the CLI walks); '-' or no PATH reads standard input.
Configuration, decoding and Markdown are the library's.  Output formats
human (the library's jh_report_human, as the CLI prints it), json and jsonl
as the CLI writes them; exit 0 clean, 1 findings at
or above the fail-on level, 2 usage, rule or configuration errors, 3 a
file that could not be read (a device is not read; a stream, stdin too,
stops at 1 GiB) or output that could not be written.  Binary files are
skipped as the CLI skips them (jh_looks_binary: a NUL byte in the first 8 KB
that UTF-16 or UTF-32 does not explain).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Iterator, Optional, TextIO

from . import JinghuaError, Linter
from ._lib import lib
from ._linter import _read, file_findings, human_summary, shown_name, text_findings
from ._types import Finding

_RANK = {"info": 0, "warning": 1, "error": 2}
_FAIL_ON = {"info": 0, "warning": 1, "error": 2, "never": 3}


def _walk(path: str) -> Iterator[str]:
    """Regular files under a folder, in byte order of their names."""
    try:
        names = sorted(os.listdir(os.fsencode(path)))
    except OSError as e:
        print(f"jinghua: {shown_name(path)}: {e.strerror}", file=sys.stderr)
        raise
    for n in names:
        if n.startswith(b"."):
            continue
        p = os.path.join(path, os.fsdecode(n))
        if os.path.isdir(p) and not os.path.islink(p):
            yield from _walk(p)
        elif os.path.isfile(p) and not os.path.islink(p):
            yield p


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m jinghua",
                                description="Check Chinese prose (jinghua check, through the binding).")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("-f", "--format", choices=("human", "json", "jsonl"), default="human")
    p.add_argument("--fail-on", choices=tuple(_FAIL_ON))
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("-s", "--select")
    p.add_argument("--extend-select")
    p.add_argument("-i", "--ignore")
    p.add_argument("--variant", choices=("auto", "hans", "hant"))
    p.add_argument("-r", "--rules", action="append", default=[])
    p.add_argument("--no-default-rules", action="store_true")
    p.add_argument("--profile")
    p.add_argument("-c", "--config")
    p.add_argument("--no-config", action="store_true")
    p.add_argument("--type", choices=("auto", "text", "markdown"))
    p.add_argument("--encoding")
    p.add_argument("--stdin-filename")
    return p


def _emit(fmt: str, out: TextIO, name: str, findings: list[Finding], first: list[bool]) -> None:
    """json and jsonl: findings in the file's bytes, under name as it is."""
    for g in findings:
        d = {"file": name, **g.to_dict()}
        line = json.dumps(d, ensure_ascii=False, separators=(",", ":"))
        if fmt == "jsonl":
            out.write(line + "\n")
        else:
            out.write(("\n" if first[0] else ",\n") + line)
            first[0] = False


def main(argv: Optional[list[str]] = None) -> int:
    try:
        return _main(argv)
    except OSError as e:  # reads and walks are answered inside: this is the output
        if e.filename is not None:
            raise
        print(f"jinghua: cannot write to standard output: {e.strerror}", file=sys.stderr)
        # what is still buffered goes nowhere, not into a second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 3


def _main(argv: Optional[list[str]]) -> int:
    args = _parser().parse_args(argv)
    try:
        linter = Linter(config=args.config, no_config=args.no_config, profile=args.profile,
                        rules=args.rules, no_default_rules=args.no_default_rules,
                        select=args.select, extend_select=args.extend_select,
                        ignore=args.ignore, variant=args.variant, encoding=args.encoding,
                        type=args.type)
    except (JinghuaError, ValueError) as e:
        print(f"jinghua: {e}", file=sys.stderr)
        return 2
    paths = args.paths or ["-"]
    out = sys.stdout
    color = args.color == "always" or (args.color == "auto" and out.isatty()
                                       and "NO_COLOR" not in os.environ)
    first = [True]
    if args.format == "json":
        out.write("[")
    failing = False
    found: list[Finding] = []
    files = skipped = 0
    status = 0
    for arg in paths:
        try:
            walked = arg != "-" and os.path.isdir(arg)
            names = list(_walk(arg)) if walked else [arg]
        except OSError:
            status = 3
            continue
        for name in names:
            if walked and linter.excluded(name):
                continue
            try:  # a device refused, a stream bounded, as check_file reads
                data = _read(None if name == "-" else name)
            except OSError as e:
                print(f"jinghua: {shown_name(name)}: {e.strerror}", file=sys.stderr)
                status = 3
                continue
            except JinghuaError as e:
                print(f"jinghua: {shown_name(name)}: {e.reason}", file=sys.stderr)
                status = 3
                continue
            shown = shown_name((args.stdin_filename or "<stdin>") if name == "-" else name)
            if lib.jh_looks_binary(data, len(data)):
                print(f"jinghua: {shown}: binary file, skipped", file=sys.stderr)
                skipped += 1
                continue
            path = (args.stdin_filename or None) if name == "-" else name
            try:
                doc, fail_on = linter.document(data, path=path)
            except JinghuaError as e:
                print(f"jinghua: {e}", file=sys.stderr)
                return 2
            in_text = text_findings(doc)
            files += 1
            found += in_text
            limit = _FAIL_ON[args.fail_on] if args.fail_on else fail_on
            failing |= any(_RANK[f.severity] >= limit for f in in_text)
            given = name if name != "-" else (args.stdin_filename or "<stdin>")
            if args.format == "human":
                out.flush()
                out.buffer.write(doc.report_human(given, color))
            else:
                _emit(args.format, out, given, file_findings(doc), first)
    if args.format == "json":
        out.write("\n]\n" if not first[0] else "]\n")
    elif args.format == "human":
        out.flush()
        out.buffer.write(human_summary({s: sum(1 for f in found if f.severity == s) for s in _RANK},
                                       files, skipped))
    out.flush()
    if status:
        return status
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
