#!/usr/bin/python3
"""lsp_protocol.py — `jinghua lsp` driven by a small LSP client.

Expected findings come from `jinghua check --format json` on the same text
(byte offsets), turned into LSP positions here, independently of the
server: UTF-16 code units, a CJK Extension B character counting two.
Fixes are checked against `jinghua fix --stdout`.  Run by tests/lsp.sh.
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time

JINGHUA = os.environ["JINGHUA"]
SRCDIR = os.environ["SRCDIR"]
# How long to wait for an answer, in the server's CPU seconds (all its
# threads), not wall time: on a shared machine at load 20 the 2 MB chapter's
# diagnostics took over 120 s of wall time for a few seconds of CPU.  A
# server that works that long without answering has failed; one that hangs
# without working is caught by the wall-time backstop.
TIMEOUT = float(os.environ.get("LSP_TIMEOUT", "120"))
WALL_TIMEOUT = float(os.environ.get("LSP_WALL_TIMEOUT", "600"))
CLK_TCK = os.sysconf("SC_CLK_TCK")

fails = 0
checks = 0


def check(cond, what):
    global fails, checks
    checks += 1
    if not cond:
        fails += 1
        print("FAIL: " + what, file=sys.stderr)
    return cond


class Server:
    def __init__(self, cwd=None, env=None):
        self.p = subprocess.Popen([JINGHUA, "lsp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=cwd, env=env)
        self.buf = b""
        self.eof = False
        self.next_id = 100
        self.inbox = []  # messages read while waiting for something else

    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, msg):
        msg = dict(msg, jsonrpc="2.0")
        body = json.dumps(msg, ensure_ascii=False).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_message(self, deadline):
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n"))
                n = int(fields[b"Content-Length"])
                if len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                self.eof = True
                return None
            self.buf += chunk

    def cpu_seconds(self):
        """The server's CPU time so far (user + system, every thread)."""
        try:
            with open("/proc/%d/stat" % self.p.pid) as f:
                stat = f.read()
        except OSError:
            return 0.0
        fields = stat[stat.rindex(")") + 2:].split()  # fields 14 and 15: utime, stime
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def wait_for(self, pred, what, timeout=TIMEOUT):
        """The first message pred accepts; fails once the server has spent
        timeout CPU seconds (or WALL_TIMEOUT has passed) without one."""
        for i, m in enumerate(self.inbox):
            if pred(m):
                return self.inbox.pop(i)
        cpu0 = self.cpu_seconds()
        wall_end = time.monotonic() + WALL_TIMEOUT
        while True:
            m = self._read_message(min(wall_end, time.monotonic() + 0.5))
            if m is None:
                used = self.cpu_seconds() - cpu0
                if self.eof:
                    why = "the server closed its output"
                elif used > timeout:
                    why = "%.1f CPU s" % used
                elif time.monotonic() >= wall_end:
                    why = "%.0f s of wall time (%.1f CPU s)" % (WALL_TIMEOUT, used)
                else:
                    continue
                check(False, "timed out waiting for %s: %s" % (what, why))
                return None
            if pred(m):
                return m
            self.inbox.append(m)

    def request(self, method, params=None):
        self.next_id += 1
        i = self.next_id
        self.send({"id": i, "method": method, "params": params if params is not None else {}})
        return self.wait_for(lambda m: m.get("id") == i and "method" not in m, method)

    def notify(self, method, params=None):
        self.send({"method": method, "params": params if params is not None else {}})

    def diagnostics(self, uri, version=None):
        def pred(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        m = self.wait_for(pred, "diagnostics of %s version %s" % (uri, version))
        return m["params"] if m else {"diagnostics": [], "version": None}

    def initialize(self, encodings=None, options=None, caps=None, folders=None):
        c = caps or {}
        if encodings is not None:
            c.setdefault("general", {})["positionEncodings"] = encodings
        params = {"processId": os.getpid(), "rootUri": None, "capabilities": c}
        if folders is not None:
            params["workspaceFolders"] = folders
        if options is not None:
            params["initializationOptions"] = options
        r = self.request("initialize", params)
        self.notify("initialized")
        return r

    def close(self):
        """shutdown and exit; returns the exit code."""
        r = self.request("shutdown")
        check(r is not None and "result" in r and r["result"] is None, "shutdown answers null")
        self.notify("exit")
        return self.finish()

    def finish(self):
        try:
            code = self.p.wait(timeout=WALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            code = None
        self.stderr = self.p.stderr.read().decode("utf-8", "replace")
        return code


# ---- positions, computed here from byte offsets ----

def units(s, enc):
    if enc == "utf-8":
        return len(s.encode("utf-8"))
    if enc == "utf-32":
        return len(s)
    return len(s.encode("utf-16-le")) // 2


def byte_to_pos(text, off, enc="utf-16"):
    b = text.encode("utf-8")
    before = b[:off].decode("utf-8")
    line = before.count("\n")
    col = before[before.rfind("\n") + 1:]
    return {"line": line, "character": units(col, enc)}


def pos_to_index(text, pos, enc="utf-16"):
    """Index into the str text of an LSP position."""
    lines = text.split("\n")
    idx = sum(len(l) + 1 for l in lines[:pos["line"]])
    line = lines[pos["line"]] if pos["line"] < len(lines) else ""
    n = 0
    for i, ch in enumerate(line):
        if n >= pos["character"]:
            return idx + i
        n += units(ch, enc)
    return idx + len(line)


def apply_edits(text, edits, enc="utf-16"):
    spans = [(pos_to_index(text, e["range"]["start"], enc), pos_to_index(text, e["range"]["end"], enc),
              e["newText"]) for e in edits]
    for a, b, t in sorted(spans, reverse=True):
        text = text[:a] + t + text[b:]
    return text


def cli_findings(path):
    out = subprocess.run([JINGHUA, "check", "--format", "json", path], capture_output=True)
    return json.loads(out.stdout.decode())


def cli_fixed(path):
    return subprocess.run([JINGHUA, "fix", "--stdout", path], capture_output=True).stdout.decode()


def expected_diags(text, findings, enc="utf-16"):
    return sorted((f["rule"], byte_to_pos(text, f["byte_start"], enc)["line"],
                   byte_to_pos(text, f["byte_start"], enc)["character"],
                   byte_to_pos(text, f["byte_end"], enc)["character"]) for f in findings)


def got_diags(diags):
    return sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"],
                   d["range"]["end"]["character"]) for d in diags)


def file_uri(path):
    return "file://" + path


tmp = tempfile.mkdtemp(prefix="jinghua-lsp.")
sample = open(os.path.join(SRCDIR, "corpus-samples/censor-novel-artifacts.txt"), encoding="utf-8").read()
# an Extension B character before the findings of every line
EXT_B = "\U00020000"
TEXT = "".join(EXT_B + "𠮷" + line + "\n" for line in sample.split("\n")[:8])
doc_path = os.path.join(tmp, "chapter.txt")
with open(doc_path, "w", encoding="utf-8") as f:
    f.write(TEXT)
URI = file_uri(doc_path)

# ---- 1. before initialize, malformed input ----
s = Server(cwd=tmp)
r = s.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}})
check(r and r.get("error", {}).get("code") == -32002, "request before initialize: ServerNotInitialized")
s.raw(b"Content-Length: 9\r\n\r\n{not json")
r = s.wait_for(lambda m: "error" in m and m["error"]["code"] == -32700, "ParseError")
check(r is not None and r["id"] is None, "malformed JSON: ParseError with id null")
bad_utf8 = b'{"jsonrpc":"2.0","id":7,"method":"x","params":{"t":"\xff\xfe"}}'
s.raw(b"Content-Length: %d\r\n\r\n" % len(bad_utf8) + bad_utf8)
r = s.wait_for(lambda m: "error" in m and m["error"]["code"] == -32700, "ParseError on invalid UTF-8")
check(r is not None, "invalid UTF-8 in a message: ParseError")
s.raw(b"Content-Type: x\r\n\r\n")  # no Content-Length at all
s.send({"id": "s", "method": 5})
r = s.wait_for(lambda m: m.get("id") == "s", "InvalidRequest")
check(r is not None and r["error"]["code"] == -32600, "method that is not a string: InvalidRequest")
s.raw(b"Content-Length: 3\r\n\r\n[1]")
r = s.wait_for(lambda m: "error" in m and m["error"]["code"] == -32600 and m["id"] is None,
               "InvalidRequest for an array")
check(r is not None, "a JSON array: InvalidRequest")

init = s.initialize()  # no positionEncodings offered: UTF-16
caps = init["result"]["capabilities"] if init else {}
check(caps.get("positionEncoding") == "utf-16", "UTF-16 when the client offers nothing")
check(caps.get("textDocumentSync", {}).get("change") == 2, "incremental sync advertised")
check("source.fixAll.jinghua" in caps.get("codeActionProvider", {}).get("codeActionKinds", []),
      "source.fixAll.jinghua advertised")
r = s.request("initialize", {"capabilities": {}})
check(r and r.get("error", {}).get("code") == -32600, "a second initialize is refused")
r = s.request("textDocument/nonsense", {})
check(r and r.get("error", {}).get("code") == -32601, "unknown method: MethodNotFound")
s.notify("$/unknownNotification", {})
s.notify("workspace/unknown", {})

# ---- 2. open: diagnostics where jinghua check puts them, in UTF-16 ----
want = cli_findings(doc_path)
check(len(want) >= 5, "the sample has findings (%d)" % len(want))
s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "plaintext",
                                                   "version": 1, "text": TEXT}})
d = s.diagnostics(URI, 1)
check(got_diags(d["diagnostics"]) == expected_diags(TEXT, want),
      "diagnostics at jinghua check's positions in UTF-16:\n got  %s\n want %s"
      % (got_diags(d["diagnostics"])[:4], expected_diags(TEXT, want)[:4]))
check(all(x["source"] == "jinghua" and x["severity"] in (1, 2, 3) and x["message"]
          for x in d["diagnostics"]), "source, severity and message on every diagnostic")
check(all(x.get("codeDescription", {}).get("href", "").startswith("file:///") and
          x["codeDescription"]["href"].endswith(".rules") for x in d["diagnostics"]),
      "codeDescription: the rule's file")
sev = {"error": 1, "warning": 2, "info": 3}
check(sorted((x["code"], x["severity"]) for x in d["diagnostics"]) ==
      sorted((f["rule"], sev[f["severity"]]) for f in want), "severities as jinghua check's")
first = min(d["diagnostics"], key=lambda x: (x["range"]["start"]["line"], x["range"]["start"]["character"]))
check(first["range"]["start"]["character"] >= 4, "a finding after the two non-BMP characters")

# ---- 3. code actions: the preferred quickfix fixes the finding ----
sep = [x for x in d["diagnostics"] if x["code"] == "censor.separator"]
check(sep, "a censor.separator finding")
if sep:
    x = sep[0]
    r = s.request("textDocument/codeAction", {"textDocument": {"uri": URI}, "range": x["range"],
                                              "context": {"diagnostics": [x]}})
    acts = r.get("result") or []
    quick = [a for a in acts if a["kind"] == "quickfix" and a.get("isPreferred")]
    check(quick, "a preferred quickfix for the separator")
    dis = [a for a in acts if a["title"].startswith("Disable censor.separator")]
    # the switch is an HTML comment: in a plain-text chapter it would be
    # printed with the text, so plain text gets no such action (Markdown does)
    check(not dis, "no 'disable for this line' action in plain text")
    if quick:
        edits = quick[0]["edit"]["changes"][URI]
        fixed = apply_edits(TEXT, edits)
        wf = [f for f in want if f["rule"] == "censor.separator"][0]
        b = TEXT.encode()
        e0 = wf["fix"]["edits"][0]
        expect = (b[:e0["byte_start"]] + e0["replacement"].encode() + b[e0["byte_end"]:]).decode()
        check(fixed == expect, "the quickfix makes jinghua's fix")
    if dis:
        t2 = apply_edits(TEXT, dis[0]["edit"]["changes"][URI])
        line = x["range"]["start"]["line"]
        check(t2.split("\n")[line].endswith("<!-- jinghua-disable-line censor.separator -->"),
              "the switch goes at the end of the line")
        # 4. a full change: the switch silences the rule on that line
        s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                            "contentChanges": [{"text": t2}]})
        d2 = s.diagnostics(URI, 2)
        check(not [y for y in d2["diagnostics"] if y["code"] == "censor.separator"
                   and y["range"]["start"]["line"] == line], "switched off on that line")
        check([y for y in d2["diagnostics"] if y["code"] != "censor.separator"], "others stay")
        s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3},
                                            "contentChanges": [{"text": TEXT}]})
        s.diagnostics(URI, 3)

# ---- 5. an incremental change after the non-BMP character ----
ins = "他说,好"
at = {"line": 0, "character": 2}  # just after 𠀀 (2 units); 𠮷 follows
s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 4},
                                    "contentChanges": [{"range": {"start": at, "end": at}, "text": ins}]})
TEXT4 = TEXT[:1] + ins + TEXT[1:]
with open(doc_path, "w", encoding="utf-8") as f:
    f.write(TEXT4)
d4 = s.diagnostics(URI, 4)
check(got_diags(d4["diagnostics"]) == expected_diags(TEXT4, cli_findings(doc_path)),
      "after an incremental change: jinghua check's findings, in UTF-16")
half = [y for y in d4["diagnostics"] if y["code"] == "punct.halfwidth" and y["range"]["start"]["line"] == 0]
check(half and half[0]["range"]["start"]["character"] == 4, "the inserted ',' is at UTF-16 column 4")

# a change that replaces a range spanning the Extension B character
s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 5},
                                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                  "end": {"line": 0, "character": 2}},
                                                        "text": "甲"}]})
TEXT5 = "甲" + TEXT4[1:]
with open(doc_path, "w", encoding="utf-8") as f:
    f.write(TEXT5)
d5 = s.diagnostics(URI, 5)
check(got_diags(d5["diagnostics"]) == expected_diags(TEXT5, cli_findings(doc_path)),
      "a range over a surrogate pair replaces the whole character")

# ---- 6. hover ----
if sep:
    pos = d5["diagnostics"][0]["range"]["start"]
    h = s.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos})
    val = (h.get("result") or {}).get("contents", {}).get("value", "")
    code = d5["diagnostics"][0]["code"]
    check(code in val and "examples:" in val, "hover shows the rule and its examples")
    expl = subprocess.run([JINGHUA, "rules", "--explain", code], capture_output=True).stdout.decode()
    # one renderer (jh_rule_explain): the hover is the finding, then the
    # command line's explanation to the byte, in a code block
    msg = d5["diagnostics"][0]["message"]
    check(expl and val == f"**{code}** — {msg}\n\n```\n{expl}```\n",
          "hover is the finding and `rules --explain` byte for byte")
    h = s.request("textDocument/hover", {"textDocument": {"uri": URI},
                                         "position": {"line": 99, "character": 0}})
    check(h and h.get("result") is None, "hover where there is no finding: null")

# ---- 7. fix-all and formatting: jinghua fix --stdout ----
want_fixed = cli_fixed(doc_path)
check(want_fixed != TEXT5, "the sample has safe fixes")
r = s.request("textDocument/codeAction", {"textDocument": {"uri": URI},
                                          "range": {"start": {"line": 0, "character": 0},
                                                    "end": {"line": 0, "character": 0}},
                                          "context": {"diagnostics": [], "only": ["source.fixAll"]}})
acts = r.get("result") or []
check(len(acts) == 1 and acts[0]["kind"] == "source.fixAll.jinghua", "only source.fixAll: the fix-all action")
if acts:
    a = acts[0]
    if "edit" not in a:
        a = s.request("codeAction/resolve", a).get("result", {})
    check(apply_edits(TEXT5, a["edit"]["changes"][URI]) == want_fixed, "fix-all gives jinghua fix --stdout")
r = s.request("textDocument/formatting", {"textDocument": {"uri": URI},
                                          "options": {"tabSize": 4, "insertSpaces": True}})
check(r and apply_edits(TEXT5, r["result"]) == want_fixed, "formatting gives jinghua fix --stdout")

# ---- 8. a client that resolves edits lazily gets them on resolve ----
# ---- 8. odd documents and messages do not kill the server ----
odd = "file:///odd.txt"
lone = b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///lone.txt","languageId":"plaintext","version":1,"text":"\\ud800,"}}}'
s.raw(b"Content-Length: %d\r\n\r\n" % len(lone) + lone)
r = s.wait_for(lambda m: "error" in m and m["error"]["code"] == -32700, "ParseError on a lone surrogate")
check(r is not None, "a lone surrogate escape: ParseError")
s.raw(b"Content-Length: 99999999999\r\n\r\n")  # more than the server takes
s.notify("textDocument/didOpen", {"textDocument": {"uri": odd, "languageId": "plaintext",
                                                   "version": 1, "text": "他\u0000说,好\r\n。。"}})
d = s.diagnostics(odd, 1)
check([x for x in d["diagnostics"] if x["code"] == "punct.halfwidth"], "a NUL in the text is checked past")
s.notify("textDocument/didChange", {"textDocument": {"uri": odd, "version": 2},
                                    "contentChanges": [{"range": {"start": {"line": 7, "character": 99},
                                                                  "end": {"line": 0, "character": 1}},
                                                        "text": "x"}]})
d = s.diagnostics(odd, 2)
check(d["version"] == 2, "a reversed range past the end is clamped, not fatal")
s.notify("textDocument/didChange", {"textDocument": {"uri": "file:///not-open.txt", "version": 2},
                                    "contentChanges": [{"text": "x"}]})
s.notify("textDocument/didClose", {"textDocument": {"uri": odd}})
s.diagnostics(odd)

# ---- 9. close clears ----
s.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
dc = s.diagnostics(URI)
check(dc["diagnostics"] == [], "close clears the diagnostics")
r = s.request("textDocument/formatting", {"textDocument": {"uri": URI}, "options": {}})
check(r and "error" in r, "formatting a closed document is an error, not a crash")
code = s.close()
check(code == 0, "shutdown then exit: exit code 0 (got %s)" % code)
check("positions in utf-16" in s.stderr and "parse error" in s.stderr, "logs on stderr")
rest = s.buf + s.p.stdout.read()
check(rest == b"", "nothing but framed messages on stdout (left: %r)" % rest[:80])

# ---- 10. other encodings ----
for enc in ("utf-8", "utf-32"):
    s = Server(cwd=tmp)
    # this client resolves a code action's edit when it is chosen
    init = s.initialize(encodings=[enc, "utf-16"],
                        caps={"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}})
    check(init["result"]["capabilities"]["positionEncoding"] == enc, enc + " when offered first")
    s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "plaintext",
                                                       "version": 1, "text": TEXT5}})
    d = s.diagnostics(URI, 1)
    check(got_diags(d["diagnostics"]) == expected_diags(TEXT5, cli_findings(doc_path), enc),
          "diagnostic positions in " + enc)
    r = s.request("textDocument/formatting", {"textDocument": {"uri": URI}, "options": {}})
    check(r and apply_edits(TEXT5, r["result"], enc) == want_fixed, "formatting in " + enc)
    r = s.request("textDocument/codeAction", {"textDocument": {"uri": URI},
                                              "range": {"start": {"line": 1, "character": 0},
                                                        "end": {"line": 1, "character": 0}},
                                              "context": {"diagnostics": []}})
    fa = [a for a in r.get("result") or [] if a["kind"] == "source.fixAll.jinghua"]
    check(fa and "edit" not in fa[0], "fix-all left to codeAction/resolve")
    if fa:
        a = s.request("codeAction/resolve", fa[0]).get("result", {})
        check(apply_edits(TEXT5, a.get("edit", {}).get("changes", {}).get(URI, []), enc) == want_fixed,
              "the resolved fix-all gives jinghua fix --stdout (" + enc + ")")
    check(s.close() == 0, "clean exit")

# ---- 11. exit without shutdown: 1; end of input without shutdown: 1 ----
s = Server(cwd=tmp)
s.initialize()
s.notify("exit")
check(s.finish() == 1, "exit without shutdown: exit code 1")
s = Server(cwd=tmp)
s.initialize()
s.p.stdin.close()
check(s.finish() == 1, "end of input without shutdown: exit code 1")

# ---- 12. Markdown, configuration, initialization options ----
proj = os.path.join(tmp, "proj")
os.makedirs(proj)
md_path = os.path.join(proj, "notes.md")
MD = "# 标题\n\n他说,好。。\n\n```\n代码,里。。\n```\n"
with open(md_path, "w", encoding="utf-8") as f:
    f.write(MD)
ini = os.path.join(proj, ".jinghua.ini")
with open(ini, "w") as f:
    f.write("ignore = punct.repeated\n")
s = Server(cwd=tmp)
s.initialize(caps={"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
reg = s.wait_for(lambda m: m.get("method") == "client/registerCapability", "registerCapability")
if reg:
    s.send({"id": reg["id"], "result": None})
MDURI = file_uri(md_path)
s.notify("textDocument/didOpen", {"textDocument": {"uri": MDURI, "languageId": "markdown",
                                                   "version": 1, "text": MD}})
d = s.diagnostics(MDURI, 1)
check(got_diags(d["diagnostics"]) == expected_diags(MD, cli_findings(md_path)),
      "Markdown and .jinghua.ini: as jinghua check")
check(not [x for x in d["diagnostics"] if x["range"]["start"]["line"] > 3], "nothing in code")
check(not [x for x in d["diagnostics"] if x["code"] == "punct.repeated"], "the config's ignore applies")
with open(ini, "w") as f:
    f.write("ignore = punct.halfwidth\n")
s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": file_uri(ini), "type": 2}]})
d = s.diagnostics(MDURI, 1)
check([x for x in d["diagnostics"] if x["code"] == "punct.repeated"] and
      not [x for x in d["diagnostics"] if x["code"] == "punct.halfwidth"],
      "the config is read again when it changes")
s.notify("workspace/didChangeConfiguration", {"settings": {"jinghua": {"ignore": ["punct"]}}})
d = s.diagnostics(MDURI, 1)
check(not [x for x in d["diagnostics"] if x["code"].startswith("punct")],
      "didChangeConfiguration: ignore from the settings")
with open(ini, "w") as f:
    f.write("select = no.such.rule\n")
s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": file_uri(ini), "type": 2}]})
d = s.diagnostics(MDURI, 1)
check(len(d["diagnostics"]) == 1 and d["diagnostics"][0]["severity"] == 1 and
      "no.such.rule" in d["diagnostics"][0]["message"],
      "a broken .jinghua.ini: one error diagnostic naming the problem: %s" % d["diagnostics"])
# formatting and fix-all with it: no edits and a message that says why
# (they were JSON-RPC internal errors, -32603, "fixing failed")
r = s.request("textDocument/formatting", {"textDocument": {"uri": MDURI}, "options": {}})
check(r and "error" not in r and r["result"] == [],
      "formatting under a broken .jinghua.ini: no edits, not an error: %s" % r)
msg = s.wait_for(lambda m: m.get("method") == "window/showMessage", "showMessage")
check(msg and msg["params"]["type"] == 1 and "no.such.rule" in msg["params"]["message"],
      "formatting under a broken .jinghua.ini: a message naming the problem: %s" % msg)
act = {"title": "Fix all safe jinghua findings", "kind": "source.fixAll.jinghua",
       "data": {"uri": MDURI}}
r = s.request("codeAction/resolve", act)
check(r and "error" not in r and r["result"] == act,
      "fix-all resolved under a broken .jinghua.ini: the action, without edits: %s" % r)
with open(ini, "w") as f:
    f.write("ignore = punct.halfwidth\n")
s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": file_uri(ini), "type": 2}]})
d = s.diagnostics(MDURI, 1)
check(not [x for x in d["diagnostics"] if "could not check" in x["message"]], "mended: checked again")
check(s.close() == 0, "clean exit")

# a client that does not watch files (Neovim 0.7's): the server notices a
# changed .jinghua.ini itself at the next check
with open(ini, "w") as f:
    f.write("ignore = punct.repeated\n")
s = Server(cwd=tmp)
s.initialize()
s.notify("textDocument/didOpen", {"textDocument": {"uri": MDURI, "languageId": "markdown",
                                                   "version": 1, "text": MD}})
d = s.diagnostics(MDURI, 1)
check(not [x for x in d["diagnostics"] if x["code"] == "punct.repeated"] and
      [x for x in d["diagnostics"] if x["code"] == "punct.halfwidth"],
      "no file watching: the config's ignore applies")
with open(ini, "w") as f:
    f.write("# now the other one\nignore = punct.halfwidth\n")
s.notify("textDocument/didChange", {"textDocument": {"uri": MDURI, "version": 2},
                                    "contentChanges": [{"text": MD}]})
d = s.diagnostics(MDURI, 2)
check([x for x in d["diagnostics"] if x["code"] == "punct.repeated"] and
      not [x for x in d["diagnostics"] if x["code"] == "punct.halfwidth"],
      "no file watching: a changed .jinghua.ini is read again at the next check: %s"
      % [x["code"] for x in d["diagnostics"]])
md_first = min(d["diagnostics"], key=lambda x: (x["range"]["start"]["line"], x["range"]["start"]["character"]))
r = s.request("textDocument/codeAction", {"textDocument": {"uri": MDURI}, "range": md_first["range"],
                                          "context": {"diagnostics": [md_first]}})
dis = [a for a in (r.get("result") or []) if a["title"].startswith("Disable " + md_first["code"])]
check(dis, "Markdown: a 'disable for this line' action")
if dis:
    t2 = apply_edits(MD, dis[0]["edit"]["changes"][MDURI])
    line = md_first["range"]["start"]["line"]
    check(t2.split("\n")[line].endswith("<!-- jinghua-disable-line %s -->" % md_first["code"]),
          "the switch goes at the end of the line")
    s.notify("textDocument/didChange", {"textDocument": {"uri": MDURI, "version": 3},
                                        "contentChanges": [{"text": t2}]})
    d2 = s.diagnostics(MDURI, 3)
    check(not [y for y in d2["diagnostics"] if y["code"] == md_first["code"]
               and y["range"]["start"]["line"] == line], "switched off on that line")
    s.notify("textDocument/didChange", {"textDocument": {"uri": MDURI, "version": 4},
                                        "contentChanges": [{"text": MD}]})
    d = s.diagnostics(MDURI, 4)
check(s.close() == 0, "clean exit")

# several workspace folders: a change in one folder's .jinghua.ini reads
# that folder's configuration again and checks its documents, not the
# other folder's (jh_config_stale decides, per folder)
folders, fdocs = [], []
for name in ("wa", "wb"):
    fdir = os.path.join(tmp, name)
    os.makedirs(fdir)
    with open(os.path.join(fdir, ".jinghua.ini"), "w") as f:
        f.write("ignore = punct.repeated\n")
    fdocs.append(file_uri(os.path.join(fdir, "notes.md")))
    folders.append({"uri": file_uri(fdir), "name": name})
for watching in (True, False):
    for fdir in (os.path.join(tmp, "wa"), os.path.join(tmp, "wb")):
        with open(os.path.join(fdir, ".jinghua.ini"), "w") as f:
            f.write("ignore = punct.repeated\n")
    s = Server(cwd=tmp)
    caps = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}} if watching else {}
    s.initialize(caps=caps, folders=folders)
    if watching:
        reg = s.wait_for(lambda m: m.get("method") == "client/registerCapability", "registerCapability")
        if reg:
            s.send({"id": reg["id"], "result": None})
    for u in fdocs:
        s.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "markdown",
                                                           "version": 1, "text": MD}})
        d = s.diagnostics(u, 1)
        check(not [x for x in d["diagnostics"] if x["code"] == "punct.repeated"],
              "folder %s: its config applies" % u)
    wa_ini = os.path.join(tmp, "wa", ".jinghua.ini")
    with open(wa_ini, "w") as f:
        f.write("# changed\nignore = punct.halfwidth\n")
    if watching:
        s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": file_uri(wa_ini), "type": 2}]})
        d = s.diagnostics(fdocs[0], 1)
    else:
        s.notify("textDocument/didChange", {"textDocument": {"uri": fdocs[0], "version": 2},
                                            "contentChanges": [{"text": MD}]})
        d = s.diagnostics(fdocs[0], 2)
    check([x for x in d["diagnostics"] if x["code"] == "punct.repeated"],
          "folder wa (watching %s): its changed config is read again" % watching)
    time.sleep(1.5)
    s.request("textDocument/formatting", {"textDocument": {"uri": fdocs[0]}, "options": {}})
    again = [m for m in s.inbox if m.get("method") == "textDocument/publishDiagnostics" and
             m["params"]["uri"] == fdocs[1]]
    check(not again, "folder wb (watching %s): not read nor checked again: %d publications"
          % (watching, len(again)))
    check(s.close() == 0, "clean exit")

s = Server(cwd=tmp)
s.initialize(options={"select": "punct.halfwidth"})
s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "plaintext",
                                                   "version": 1, "text": TEXT5}})
d = s.diagnostics(URI, 1)
check(d["diagnostics"] and all(x["code"] == "punct.halfwidth" for x in d["diagnostics"]),
      "initializationOptions select")

# ---- 13. many quick changes: the last version is published, never a stale result ----
cur = TEXT5
for v in range(2, 30):
    cur = cur.replace(",", "，", 1) if v % 2 else cur.replace("，", ",", 1)
    s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": v},
                                        "contentChanges": [{"text": cur}]})
with open(doc_path, "w", encoding="utf-8") as f:
    f.write(cur)
d = s.diagnostics(URI, 29)
exp = [x for x in expected_diags(cur, cli_findings(doc_path)) if x[0] == "punct.halfwidth"]
check(got_diags(d["diagnostics"]) == exp, "after a burst of changes: the last version's findings")
seen = [m["params"]["version"] for m in s.inbox if m.get("method") == "textDocument/publishDiagnostics"]
check(seen == sorted(seen), "versions published in order: %s" % seen)
# ---- 14. a 2 MB chapter does not block the message loop ----
s = Server(cwd=tmp)
s.initialize()
big_uri = "file:///big.txt"
big = (sample + "\n") * (2 * 1024 * 1024 // len(sample.encode()) + 1)
s.notify("textDocument/didOpen", {"textDocument": {"uri": big_uri, "languageId": "plaintext",
                                                   "version": 1, "text": big}})
r = s.request("jinghua/noSuchMethod", {})
check(r and r["error"]["code"] == -32601, "answered while the check runs")
early = [m for m in s.inbox if m.get("method") == "textDocument/publishDiagnostics"
         and m["params"]["uri"] == big_uri]
check(not early, "the answer came before the 2 MB chapter's diagnostics")
d = s.diagnostics(big_uri, 1)
check(len(d["diagnostics"]) > 1000, "the 2 MB chapter's diagnostics (%d)" % len(d["diagnostics"]))
check(s.close() == 0, "clean exit")

# ---- 15. a path that is not UTF-8 in a message: U+FFFD, the rest kept ----
# (the messages were cut at the first such byte: the reason was lost)
bad_dir = os.path.join(tmp.encode(), b"bad\xffdir")
os.makedirs(bad_dir)
with open(os.path.join(bad_dir, b".jinghua.ini"), "w") as f:
    f.write("select = no.such.rule\n")
with open(os.path.join(bad_dir, b"notes.md"), "w", encoding="utf-8") as f:
    f.write(MD)
BADURI = file_uri(tmp) + "/bad%FFdir/notes.md"
s = Server(cwd=tmp)
s.initialize()
s.notify("textDocument/didOpen", {"textDocument": {"uri": BADURI, "languageId": "markdown",
                                                   "version": 1, "text": MD}})
s.diagnostics(BADURI, 1)
r = s.request("textDocument/formatting", {"textDocument": {"uri": BADURI}, "options": {}})
check(r and "error" not in r and r["result"] == [], "formatting under a broken .jinghua.ini "
      "in a folder whose name is not UTF-8: no edits: %s" % r)
msg = s.wait_for(lambda m: m.get("method") == "window/showMessage", "showMessage")
check(msg and "no.such.rule" in msg["params"]["message"] and
      "bad\ufffddir" in msg["params"]["message"],
      "showMessage: the invalid byte as U+FFFD, the reason kept: %s" % msg)
logs = [m["params"]["message"] for m in s.inbox if m.get("method") == "window/logMessage"]
check([x for x in logs if "no.such.rule" in x and "bad\ufffddir" in x],
      "logMessage: the invalid byte as U+FFFD, the reason kept: %s" % logs)
check(s.close() == 0, "clean exit")

print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
