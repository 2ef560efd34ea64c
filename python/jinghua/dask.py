"""Checking and fixing many documents with Dask (python3-dask, -distributed).

    import jinghua.dask as jd
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster):
        summary = jd.run(["corpus/*.jsonl"], "out/", fix=True)

Documents are records {"id": ..., "text": ...}: read from JSON-lines files
(one record a line; "type": "markdown" reads the text as Markdown, as the
jsonl filter does) or from text files (one document a file, its path the
id, checked as `jinghua check FILE` checks it: its configuration, type
and encoding; a fixed text is given in UTF-8).  Each partition is checked or fixed
in the worker that holds it, by one Linter per worker process (built on
first use from the options, kept for every later partition, shared by the
worker's threads).  A result record is what `jinghua check|fix
--jsonl-filter` writes for the document: {"id", "findings"} or {"id",
"text", "fixes", "findings"}, or {"id", "error"} for a record that could
not be read or checked.  The summary counts documents, findings per rule,
fixes applied, and lists the documents that failed and why.
"""
from __future__ import annotations

import glob
import json
import os
import threading
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

import dask
import dask.bag as db

from ._linter import Linter, _read
from ._types import JinghuaError

Record = dict[str, Any]
Paths = Union[str, Sequence[str]]

# ---- one Linter per worker process ----

_linters: dict[str, Linter] = {}
_linters_lock = threading.Lock()


def worker_linter(options: dict[str, Any]) -> Linter:
    """The Linter of this process for these options (built once)."""
    key = json.dumps(options, sort_keys=True)
    with _linters_lock:
        linter = _linters.get(key)
        if linter is None:
            linter = _linters[key] = Linter(**options)
        return linter


# ---- reading ----

def _expand(paths: Paths) -> list[str]:
    if isinstance(paths, str):
        paths = [paths]
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out += [os.path.join(root, f) for f in sorted(files) if not f.startswith(".")]
        else:
            hits = sorted(glob.glob(p))
            out += hits if hits else [p]
    return out


def _parse_line(line: str) -> Optional[Record]:
    """A JSON line as a record; a broken line as a record with its error."""
    if not line.strip():
        return None  # blank lines give nothing, as in the jsonl filter
    try:
        rec = json.loads(line)
    except ValueError as e:
        return {"id": None, "error": f"not JSON: {e}"}
    if not isinstance(rec, dict):
        return {"id": None, "error": "not a JSON object"}
    if not isinstance(rec.get("text"), str):
        return {"id": rec.get("id"), "error": "no \"text\" string"}
    return rec


def read_jsonl(paths: Paths, *, blocksize: Union[str, int, None] = "4MiB") -> db.Bag:
    """Records from JSON-lines files (globs allowed), in blocks of about
    blocksize bytes of whole lines per partition."""
    lines = db.read_text(_expand(paths), blocksize=blocksize, encoding="utf-8")
    return lines.map(_parse_line).filter(lambda r: r is not None)


def _read_file(path: str) -> Record:
    """One file's record, read as `jinghua check` reads it (jh_file_read:
    a device refused, a FIFO read up to 1 GiB)."""
    try:
        return {"id": path, "path": path, "bytes": _read(path)}
    except OSError as e:
        return {"id": path, "error": f"{path}: {e.strerror}"}
    except JinghuaError as e:
        return {"id": path, "error": f"{path}: {e.reason}"}


def read_files(paths: Paths, *, npartitions: Optional[int] = None) -> db.Bag:
    """One record per text file (folders walked, globs allowed); the files
    are read in the workers."""
    files = _expand(paths)
    n = npartitions or max(1, min(len(files), 64))
    return db.from_sequence(files, npartitions=n).map(_read_file)


def read(paths: Paths, *, blocksize: Union[str, int, None] = "4MiB") -> db.Bag:
    """read_jsonl if every path names a .jsonl/.ndjson file, else read_files."""
    files = _expand(paths)
    if files and all(f.endswith((".jsonl", ".ndjson")) for f in files):
        return read_jsonl(files, blocksize=blocksize)
    return read_files(files)


# ---- checking and fixing ----

def _process(records: Iterable[Record], fix: bool, unsafe: bool,
             options: dict[str, Any]) -> Iterator[Record]:
    linter = worker_linter(options)
    for rec in records:
        if "error" in rec:
            yield {"id": rec.get("id"), "error": rec["error"]}
            continue
        if "bytes" in rec:  # a file: as that file, its fixed text in UTF-8
            text, path, kind = rec["bytes"], rec["path"], None
        else:  # a record: as the jsonl filter reads it
            markdown = rec.get("type") == "markdown"
            text, path = rec["text"], ("./-.md" if markdown else None)
            kind = "markdown" if markdown else "text"
        try:
            if fix:
                res = linter.fix_result(text, path=path, type=kind, unsafe=unsafe, to_utf8=True)
                fixed = res.text.decode("utf-8", "replace") if isinstance(res.text, bytes) \
                    else res.text
                yield {"id": rec.get("id"), "text": fixed, "fixes": res.fixes,
                       "findings": [f.to_dict() for f in res.findings]}
            else:
                found = linter.check(text, path=path, type=kind)
                yield {"id": rec.get("id"), "findings": [f.to_dict() for f in found]}
        except JinghuaError as e:  # one bad document must not fail the partition
            yield {"id": rec.get("id"), "error": e.reason}
        except Exception as e:
            yield {"id": rec.get("id"), "error": f"{type(e).__name__}: {e}"}


def check_records(records: db.Bag, **options: Any) -> db.Bag:
    """Result records {"id", "findings"} (options: those of Linter)."""
    return records.map_partitions(lambda part: list(_process(part, False, False, options)))


def fix_records(records: db.Bag, *, unsafe: bool = False, **options: Any) -> db.Bag:
    """Result records {"id", "text", "fixes", "findings"}."""
    return records.map_partitions(lambda part: list(_process(part, True, unsafe, options)))


# ---- summary and output ----

def _partial(results: Iterable[Record]) -> dict[str, Any]:
    s: dict[str, Any] = {"documents": 0, "findings": 0, "findings_per_rule": {},
                         "fixes_applied": 0, "failed": []}
    for r in results:
        s["documents"] += 1
        if "error" in r:
            s["failed"].append({"id": r.get("id"), "error": r["error"]})
            continue
        s["fixes_applied"] += r.get("fixes", 0)
        for f in r["findings"]:
            s["findings"] += 1
            s["findings_per_rule"][f["rule"]] = s["findings_per_rule"].get(f["rule"], 0) + 1
    return s


def _combine(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    total = _partial(())
    for p in parts:
        total["documents"] += p["documents"]
        total["findings"] += p["findings"]
        total["fixes_applied"] += p["fixes_applied"]
        total["failed"] += p["failed"]
        for rule, n in p["findings_per_rule"].items():
            total["findings_per_rule"][rule] = total["findings_per_rule"].get(rule, 0) + n
    total["findings_per_rule"] = dict(sorted(total["findings_per_rule"].items()))
    return total


def summary(results: db.Bag) -> Any:
    """A lazy summary of result records (call .compute() or dask.compute)."""
    return results.reduction(_partial, _combine)


def _dumps(r: Record) -> str:
    return json.dumps(r, ensure_ascii=False, separators=(",", ":"))


def run(inputs: Paths, output: str, *, fix: bool = False, unsafe: bool = False,
        blocksize: Union[str, int, None] = "4MiB", **options: Any) -> dict[str, Any]:
    """Read inputs, check (or fix) them, write output/part-NNNNN.jsonl (one
    result line per document, in input order) and output/summary.json;
    return the summary.  Runs on the current Dask scheduler (a
    distributed Client if one is active)."""
    records = read(inputs, blocksize=blocksize)
    results = (fix_records(records, unsafe=unsafe, **options) if fix
               else check_records(records, **options))
    os.makedirs(output, exist_ok=True)
    writes = results.map(_dumps).to_textfiles(
        os.path.join(output, "part-*.jsonl"), name_function=lambda i: f"{i:05d}",
        encoding="utf-8", compute=False)
    # one pass over the documents: writing and counting share the results
    _, total = dask.compute(writes, summary(results))
    tmp = os.path.join(output, ".summary.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(total, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(output, "summary.json"))
    return total
