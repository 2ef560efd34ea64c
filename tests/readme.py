#!/usr/bin/python3
"""readme.py — the examples in README.md whose output it shows, run and
compared (a README figure that no longer reproduced went unnoticed):

  * a fenced block of `$ command` lines, each followed by its output,
    run in an empty folder with `jinghua` on the PATH;
  * `PYTHONPATH=python python3 -c '…'` followed by a `# output` line;
  * `jinghua.fix("…")  # '…'` and `…, unsafe=True)  # '…'` lines of the
    Python examples;
  * "`TEXT` gives `  alternatives: …`": the human report's line for TEXT;
  * "for `TEXT`, `Replace “…” with “…” (RULE, N%)`": a code action title
    of `jinghua lsp` on TEXT.

Each kind must occur at least once (so that a rewritten README cannot make
this test pass by matching nothing).  Run by tests/readme.sh; standard
library only, the binding from PY_PATH.
"""
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time

JINGHUA = os.environ["JINGHUA"]
SRCDIR = os.environ["SRCDIR"]
PY_PATH = os.environ.get("PY_PATH", os.path.join(SRCDIR, "python"))

fails = 0
seen = {}


def check(kind, ok, what):
    global fails
    seen[kind] = seen.get(kind, 0) + 1
    if not ok:
        fails += 1
        print("FAIL: README " + what, file=sys.stderr)


def blocks(text):
    """(language, lines) of each fenced block."""
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        yield m.group(1), m.group(2).splitlines()


def transcripts(text, bindir):
    for _, lines in blocks(text):
        if not any(l.startswith("$ ") for l in lines):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
            i = 0
            while i < len(lines):
                cmd = lines[i][2:]
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                want = "".join(l + "\n" for l in lines[i + 1:j])
                got = subprocess.run(cmd, shell=True, cwd=tmp, env=env, capture_output=True,
                                     check=False).stdout.decode()
                check("transcript", got == want,
                      "`%s` prints:\n%s\nnot what README shows:\n%s" % (cmd, got, want))
                i = j


def python_one_liners(text):
    for m in re.finditer(r"^PYTHONPATH=python (python3 -c '[^'\n]*')\n# (.*)$", text, re.M):
        env = dict(os.environ, PYTHONPATH=PY_PATH)
        got = subprocess.run(m.group(1), shell=True, cwd=SRCDIR, env=env, capture_output=True,
                             check=False).stdout.decode().rstrip("\n")
        check("one-liner", got == m.group(2), "`%s` prints %r, not %r" % (m.group(1), got, m.group(2)))


def python_calls(text):
    for p in reversed(PY_PATH.split(os.pathsep)):
        sys.path.insert(0, p)
    import jinghua  # noqa: E402 (the binding of this build)
    linter = jinghua.Linter(no_config=True)
    for lang, lines in blocks(text):
        if lang != "python":
            continue
        for line in lines:
            m = re.match(r"jinghua\.fix\(\"([^\"]*)\"(, unsafe=True)?\)\s+# ('[^']*')", line)
            if m:
                got = linter.fix(m.group(1), unsafe=bool(m.group(2)))
                check("python", repr(got) == m.group(3), "%s gives %r" % (line.strip(), got))


def human(text_in):
    return subprocess.run([JINGHUA, "check", "--no-config", "--color", "never", "-"],
                          input=text_in.encode(), capture_output=True, check=False).stdout.decode()


def alternatives(text):
    for m in re.finditer(r"`([^`\n]+)` gives\s+`(  alternatives: [^`]*)`", text):
        got = human(m.group(1))
        check("alternatives", m.group(2) + "\n" in got,
              "%s: `jinghua check` gives\n%s\nnot the line %r" % (m.group(1), got, m.group(2)))


class Lsp:
    """Just enough of an LSP client for one document's code actions."""

    def __init__(self):
        self.p = subprocess.Popen([JINGHUA, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.buf = b""
        self.n = 0

    def send(self, msg):
        body = json.dumps(dict(msg, jsonrpc="2.0"), ensure_ascii=False).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self, pred, timeout=120):
        end = time.monotonic() + timeout
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                n = int(dict(l.split(b": ", 1) for l in head.split(b"\r\n"))[b"Content-Length"])
                if len(rest) >= n:
                    self.buf = rest[n:]
                    m = json.loads(rest[:n])
                    if pred(m):
                        return m
                    continue
            if not select.select([self.p.stdout], [], [], max(0, end - time.monotonic()))[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk

    def request(self, method, params):
        self.n += 1
        n = self.n
        self.send({"id": n, "method": method, "params": params})
        return self.read(lambda m: m.get("id") == n and "method" not in m)

    def titles(self, text):
        uri = "file:///readme/example.txt"
        self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.send({"method": "initialized", "params": {}})
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "plaintext", "version": 1, "text": text}}})
        d = self.read(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        out = []
        for diag in (d or {}).get("params", {}).get("diagnostics", []):
            r = self.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                             "range": diag["range"], "context": {"diagnostics": [diag]}})
            out += [a.get("title") for a in (r or {}).get("result") or []]
        self.request("shutdown", None)
        self.send({"method": "exit"})
        self.p.wait(timeout=60)
        return out


def code_actions(text):
    for m in re.finditer(r"for\s+`([^`\n]+)`,\s+`(Replace [^`]*)`", text):
        got = Lsp().titles(m.group(1))
        check("lsp", m.group(2) in got, "%s: the code actions are %r, not %r"
              % (m.group(1), got, m.group(2)))


def main():
    with open(os.path.join(SRCDIR, "README.md"), encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as bindir:
        with open(os.path.join(bindir, "jinghua"), "w") as f:
            f.write('#!/bin/sh\nexec "%s" "$@"\n' % JINGHUA)
        os.chmod(os.path.join(bindir, "jinghua"), 0o755)
        transcripts(text, bindir)
    python_one_liners(text)
    python_calls(text)
    alternatives(text)
    code_actions(text)
    for kind in ("transcript", "one-liner", "python", "alternatives", "lsp"):
        if not seen.get(kind):
            print("FAIL: README has no example of kind %s left to check" % kind, file=sys.stderr)
            return 1
    print("readme: %s examples checked, %d failed" % (sum(seen.values()), fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
