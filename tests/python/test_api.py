"""The Python binding against the CLI: same findings, same fixes, and the
binding's own promises (types, threads, errors, files).  Run by
tests/python.sh (JINGHUA, SRCDIR and PYTHONPATH from make check)."""
import concurrent.futures
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

import jinghua

JINGHUA = os.environ["JINGHUA"]
SRCDIR = os.environ["SRCDIR"]
SAMPLES = os.path.join(SRCDIR, "corpus-samples")


def samples():
    return sorted(os.path.join(SAMPLES, f) for f in os.listdir(SAMPLES)
                  if not f.startswith("."))


def cli(*args, stdin=None):
    return subprocess.run([JINGHUA, *args], input=stdin, capture_output=True, check=False)


def cli_findings(path):
    out = json.loads(cli("check", "--no-config", "--format", "json", path).stdout)
    for f in out:
        del f["file"]
    return out


class AgainstTheCli(unittest.TestCase):
    """Real text the tests did not write: the corpus samples."""

    @classmethod
    def setUpClass(cls):
        cls.linter = jinghua.Linter()

    def test_check_equals_cli_json(self):
        total = 0
        for p in samples():
            with open(p, "rb") as f:
                data = f.read()
            mine = [x.to_dict() for x in self.linter.check(data)]
            self.assertEqual(mine, cli_findings(p), p)
            total += len(mine)
        self.assertGreater(total, 100)  # the samples are damaged text

    def test_fix_equals_cli_stdout(self):
        for p in samples():
            with open(p, "rb") as f:
                data = f.read()
            for unsafe in (False, True):
                want = cli("fix", "--no-config", "--stdout", *(["--unsafe"] if unsafe else []), p).stdout
                self.assertEqual(self.linter.fix(data, unsafe=unsafe), want, (p, unsafe))
                self.assertEqual(self.linter.fix(data.decode("utf-8"), unsafe=unsafe),
                                 want.decode("utf-8"), (p, unsafe))

    def test_module_functions_equal_linter(self):
        p = samples()[0]
        with open(p, encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(jinghua.check(text), self.linter.check(text))
        self.assertEqual(jinghua.fix(text), self.linter.fix(text))
        self.assertEqual(jinghua.check_file(p), self.linter.check(text))

    def test_select_and_ignore_as_cli(self):
        p = os.path.join(SAMPLES, "punct-defects.txt")
        for args, kw in ((["-s", "punct"], {"select": "punct"}),
                         (["-i", "censor,script"], {"ignore": ["censor", "script"]}),
                         (["-s", "punct.unpaired", "--extend-select", "punct.halfwidth"],
                          {"select": "punct.unpaired", "extend_select": "punct.halfwidth"})):
            out = json.loads(cli("check", "--no-config", "--format", "json", *args, p).stdout)
            want = [f["rule"] for f in out]
            got = [f.rule for f in jinghua.Linter(**kw).check_file(p)]
            self.assertEqual(got, want, args)
            self.assertTrue(want, args)

    def test_python_m_jinghua_is_jinghua_check(self):
        env = dict(os.environ)
        for args in ([SAMPLES], ["--format", "json", SAMPLES], ["--format", "jsonl", SAMPLES],
                     ["--fail-on", "error", "-s", "punct", SAMPLES],
                     ["-i", "censor", samples()[0]]):
            want = cli("check", "--no-config", "--color", "never", *args)
            got = subprocess.run([sys.executable, "-m", "jinghua", *args], env=env,
                                 capture_output=True, check=False)
            self.assertEqual(got.stdout.decode(), want.stdout.decode(), args)
            self.assertEqual(got.returncode, want.returncode, args)
        got = subprocess.run([sys.executable, "-m", "jinghua", "-"], input="好,的".encode(),
                             capture_output=True, check=False)
        self.assertEqual(got.returncode, 1)
        self.assertIn(b"<stdin>:1:2: warning [punct.halfwidth]", got.stdout)


class Types(unittest.TestCase):
    def test_str_and_bytes(self):
        self.assertEqual(jinghua.fix("日军顾不得应敌,全力行军."), "日军顾不得应敌，全力行军。")
        self.assertEqual(jinghua.fix("应敌,全力".encode()), "应敌，全力".encode())
        self.assertIsInstance(jinghua.fix(b"plain"), bytes)
        with self.assertRaises(TypeError):
            jinghua.check(42)

    def test_finding_fields(self):
        (f,) = jinghua.check("第一行\n应敌,全力", select="punct.halfwidth")
        self.assertEqual((f.rule, f.severity, f.line, f.column, f.end_line, f.end_column),
                         ("punct.halfwidth", "warning", 2, 3, 2, 4))
        self.assertEqual((f.byte_start, f.byte_end), (16, 17))  # UTF-8 offsets
        self.assertEqual(f.fix.safety, "safe")
        self.assertEqual([(e.byte_start, e.byte_end, e.replacement) for e in f.fix.edits],
                         [(16, 17, "，")])
        self.assertEqual(f.alternatives[0], f.fix)
        self.assertIn("半角", f.message)

    def test_invalid_utf8_bytes(self):
        data = "前文".encode() + b"\xff\xfe" + "后文".encode()
        rules = [f.rule for f in jinghua.check(data)]
        self.assertIn("encoding.invalid-utf8", rules)
        self.assertIn(b"\xff", jinghua.fix(data))  # never lost

    def test_unsafe(self):
        self.assertEqual(jinghua.fix("在次见面"), "在次见面")
        self.assertEqual(jinghua.fix("在次见面", unsafe=True), "再次见面")

    def test_fix_result(self):
        r = jinghua.Linter().fix_result("应敌,全力,行军.")
        self.assertEqual((r.text, r.fixes, r.converged), ("应敌，全力，行军。", 3, True))
        self.assertEqual(r.findings, [])


class Threads(unittest.TestCase):
    def test_one_linter_many_threads(self):
        linter = jinghua.Linter()
        texts = []
        for p in samples():
            with open(p, encoding="utf-8") as f:
                texts.append(f.read())
        want = [(linter.check(t), linter.fix(t, unsafe=True)) for t in texts]
        jobs = texts * 6
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda t: (linter.check(t), linter.fix(t, unsafe=True)), jobs))
        self.assertEqual(got, want * 6)

    def test_linters_built_in_threads(self):
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            linters = list(pool.map(lambda s: jinghua.Linter(select=s), ["punct", "censor"] * 2))
        self.assertEqual([l.rules for l in linters[:2]], [l.rules for l in linters[2:]])


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_broken_rule_has_file_and_line(self):
        path = os.path.join(self.tmp.name, "bad.rules")
        with open(path, "w", encoding="utf-8") as f:
            f.write("[typo.ok]\nkind = regex\npattern = x\nmessage = m\nbad = x\ngood = y\n\n"
                    "[typo.x]\nkind = regex\npattern = (unclosed\nmessage = m\nbad = a\ngood = b\n")
        with self.assertRaises(jinghua.RuleError) as cm:
            jinghua.Linter(rules=path)
        e = cm.exception
        self.assertEqual((e.file, e.line), (path, 8))
        self.assertIn("typo.x", str(e))
        self.assertIn("missing closing parenthesis", str(e))
        self.assertTrue(e.diagnostics)

    def test_unknown_rule_name(self):
        with self.assertRaises(jinghua.RuleError) as cm:
            jinghua.Linter(select="punct,no.such-rule")
        self.assertIn("no.such-rule", str(cm.exception))

    def test_missing_rules_folder(self):
        with self.assertRaises(jinghua.JinghuaError):
            jinghua.Linter(rules=os.path.join(self.tmp.name, "nothing-here"))

    def test_bad_variant(self):
        with self.assertRaises(ValueError):
            jinghua.Linter(variant="latin")


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_fix_file_in_place_keeps_mode(self):
        path = os.path.join(self.tmp.name, "a.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("应敌,全力\n")
        os.chmod(path, 0o640)
        r = jinghua.fix_file(path)
        self.assertEqual(r.fixes, 1)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "应敌，全力\n")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
        self.assertEqual(os.listdir(self.tmp.name), ["a.txt"])  # no temporary left

    def test_clean_file_not_rewritten(self):
        path = os.path.join(self.tmp.name, "clean.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("这是干净的一句话。\n")
        ino = os.stat(path).st_ino
        self.assertEqual(jinghua.fix_file(path).fixes, 0)
        self.assertEqual(os.stat(path).st_ino, ino)

    def test_write_false_leaves_file(self):
        path = os.path.join(self.tmp.name, "a.txt")
        with open(path, "wb") as f:
            f.write("应敌,全力".encode())
        r = jinghua.fix_file(path, write=False)
        self.assertEqual(r.text, "应敌，全力".encode())
        with open(path, "rb") as f:
            self.assertEqual(f.read(), "应敌,全力".encode())

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            jinghua.check_file(os.path.join(self.tmp.name, "none.txt"))


if __name__ == "__main__":
    unittest.main()
