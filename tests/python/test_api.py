"""The Python binding against the CLI: same findings, same fixes, and the
binding's own promises (types, threads, errors, files).  Run by
tests/python.sh (JINGHUA, SRCDIR and PYTHONPATH from make check)."""
import concurrent.futures
import errno
import json
import os
import shutil
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


class InTempDir(unittest.TestCase):
    """A test with a temporary folder of its own (self.tmp)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)


class AgainstTheCli(unittest.TestCase):
    """Real text the tests did not write: the corpus samples."""

    @classmethod
    def setUpClass(cls):
        cls.linter = jinghua.Linter(no_config=True)

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
            got = [f.rule for f in jinghua.Linter(no_config=True, **kw).check_file(p)]
            self.assertEqual(got, want, args)
            self.assertTrue(want, args)

    def test_python_m_jinghua_is_jinghua_check(self):
        env = dict(os.environ)
        for args in ([SAMPLES], ["--format", "json", SAMPLES], ["--format", "jsonl", SAMPLES],
                     ["--fail-on", "error", "-s", "punct", SAMPLES],
                     ["-i", "censor", samples()[0]]):
            want = cli("check", "--no-config", "--color", "never", *args)
            got = subprocess.run([sys.executable, "-m", "jinghua", "--no-config", *args], env=env,
                                 capture_output=True, check=False)
            self.assertEqual(got.stdout.decode(), want.stdout.decode(), args)
            self.assertEqual(got.returncode, want.returncode, args)
        got = subprocess.run([sys.executable, "-m", "jinghua", "-"], input="好,的".encode(),
                             capture_output=True, check=False)
        self.assertEqual(got.returncode, 1)
        self.assertIn(b"<stdin>:1:2: warning [punct.halfwidth]", got.stdout)

    # a file name with ESC, a C1 control, CR, DEL and a byte that is not
    # UTF-8 was printed raw (a terminal runs the escape); the CLI writes each
    # such byte \xHH, and both now call one function (jh_name_escape)
    def test_python_m_jinghua_escapes_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.fsencode(tmp)
            bad = os.path.join(d, b"a\x1b[31m\xc2\x9bb\xff.txt")
            with open(bad, "wb") as f:
                f.write("好,的\n".encode())
            missing = os.path.join(d, b"gone\rnote\x7f.txt")
            for args in ([d], [bad, missing]):
                want = subprocess.run([JINGHUA, "check", "--no-config", "--color", "never", *args],
                                      capture_output=True, check=False)
                got = subprocess.run([sys.executable, "-m", "jinghua", "--no-config", *args],
                                     capture_output=True, check=False)
                self.assertIn(b"a\\x1B[31m\\xC2\\x9Bb\\xFF.txt:1:2: warning", want.stdout)
                self.assertEqual(got.stdout, want.stdout, args)
                self.assertEqual(got.returncode, want.returncode, args)
            self.assertIn(b"gone\\x0Dnote\\x7F.txt: No such file or directory", want.stderr)
            self.assertEqual(got.stderr, want.stderr)

    # python -m jinghua printed the human report with a reporter of its own
    # (one U+FFFD for a cut character where the CLI printed one a byte, no
    # colours); both call jh_report_human now: the same bytes, colours too
    def test_python_m_jinghua_human_report_is_the_clis(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "a.txt")
            with open(p, "wb") as f:
                f.write("好,的\t好".encode() + b"\xe4\xb8" + ",的，他拔出手*弹。\r\n".encode()
                        + "他把子丨弹压进了枪膛，好,的。".encode() * 30 + b"\x01,\n")
            for color in ("never", "always"):
                want = cli("check", "--no-config", "--color", color, p)
                got = subprocess.run([sys.executable, "-m", "jinghua", "--no-config", "--color",
                                      color, p], capture_output=True, check=False)
                self.assertIn(b"alternatives:", want.stdout)
                self.assertIn(b"invalid-utf8", want.stdout)
                self.assertEqual(got.stdout, want.stdout, color)
                self.assertEqual(got.returncode, want.returncode)
            self.assertIn(b"\033[33mwarning", got.stdout)
            with open(p, "rb") as f:
                doc, _ = jinghua.Linter(no_config=True).document(f.read())
            plain = cli("check", "--no-config", "--color", "never", p).stdout
            self.assertEqual(doc.report_human(p), plain[:plain.rindex(b"\n\n") + 1])

    # a UTF-16 file without a byte-order mark was skipped as binary by
    # python -m jinghua (its own test saw only the NUL bytes) and checked by
    # jinghua check: both ask the library now (jh_looks_binary)
    def test_python_m_jinghua_binary_as_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            u16 = os.path.join(tmp, "u16.txt")
            with open(u16, "wb") as f:
                f.write("他把子丨弹压进了枪膛，然后走了。\n".encode("utf-16-le") * 4)
            elf = os.path.join(tmp, "prog.txt")  # a folder walk reads .txt (and skips "prog")
            with open(elf, "wb") as f:
                f.write(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
            want = cli("check", "--no-config", "--color", "never", tmp)
            got = subprocess.run([sys.executable, "-m", "jinghua", "--no-config", tmp],
                                 capture_output=True, check=False)
            self.assertIn(b"u16.txt:1:", want.stdout)
            self.assertIn(b"prog.txt: binary file, skipped", want.stderr)
            self.assertEqual((got.stdout, got.stderr, got.returncode),
                             (want.stdout, want.stderr, want.returncode))

    # as `jinghua check` (hostile-limits.sh): /dev/zero was read until the
    # process was killed; a full disk was a traceback and exit 1 ("findings")
    def test_python_m_jinghua_limits(self):
        got = subprocess.run([sys.executable, "-m", "jinghua", "/dev/zero"], capture_output=True,
                             check=False, timeout=300)
        self.assertEqual((got.returncode, got.stderr), (3, b"jinghua: /dev/zero: a device, not read\n"))
        with open("/dev/full", "w") as full:
            got = subprocess.run([sys.executable, "-m", "jinghua", "-"], input="好,的".encode(),
                                 stdout=full, stderr=subprocess.PIPE, check=False, timeout=300)
        self.assertEqual(got.returncode, 3)
        self.assertEqual(got.stderr, b"jinghua: cannot write to standard output: No space left on device\n")


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
        self.assertFalse(f.ranked)
        self.assertIsNone(f.fix.score)
        self.assertIn("半角", f.message)

    def test_ranked_alternatives(self):
        # censor.mask.suggest ranks the words a mask may hide: each a Fix,
        # the first the finding's fix; its message names the same words
        p = os.path.join(SAMPLES, "001_a29c47f7ce22fee1.txt")
        ranked = [f for f in jinghua.Linter(no_config=True).check_file(p)
                  if len(f.alternatives) > 1]
        self.assertTrue(ranked)
        for f in ranked:
            # below the fill threshold there is no fix, only the answers
            if f.fix is not None:
                self.assertEqual(f.alternatives[0], f.fix)
            self.assertTrue(all(a.safety == "unsafe" for a in f.alternatives))
            self.assertTrue(f.ranked)
            # with the word model each answer has its calibrated
            # probability, ranked by it (the message gives it in percent)
            scores = [a.score for a in f.alternatives]
            if scores[0] is not None:
                self.assertTrue(all(0 <= s <= 1 for s in scores))
                self.assertEqual(scores, sorted(scores, reverse=True))
                self.assertIn(f"{f.alternatives[0].edits[0].replacement}"
                              f"（{int(scores[0] * 100 + 0.5)}%）", f.message)
            words = [a.edits[0].replacement for a in f.alternatives]
            self.assertEqual(len(set(words)), len(words))
            for w in words:
                self.assertIn(w, f.message)
            for a in f.alternatives:  # each answer an edit inside the finding
                for e in a.edits:
                    self.assertTrue(f.byte_start <= e.byte_start <= e.byte_end <= f.byte_end)

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


class Errors(InTempDir):

    def test_broken_rule_has_file_and_line(self):
        path = os.path.join(self.tmp.name, "bad.rules")
        with open(path, "w", encoding="utf-8") as f:
            f.write("[typo.ok]\nkind = regex\npattern = x\nmessage = m\nbad = x\ngood = y\n\n"
                    "[typo.x]\nkind = regex\npattern = (unclosed\nmessage = m\nbad = a\ngood = b\n")
        with self.assertRaises(jinghua.RuleError) as cm:
            jinghua.Linter(rules=[self.tmp.name])
        e = cm.exception
        self.assertEqual((e.file, e.line), (path, 8))
        self.assertIn("typo.x", str(e))
        self.assertIn("missing closing parenthesis", str(e))
        self.assertTrue(e.diagnostics)

    def test_fix_that_never_settles(self):
        # a rule whose fix is never done (甲 -> 甲甲) is left out, named, and
        # its finding stays; the rule beside it that settles (丁 -> 戊) fixes
        with open(os.path.join(self.tmp.name, "grow.rules"), "w", encoding="utf-8") as f:
            f.write("[typo.grow]\nkind = regex\nmessage = m\npattern = 甲\nfix = 甲甲\n"
                    "safety = safe\nbad = 甲 -> 甲甲\ngood = 丙\n\n"
                    "[typo.settles]\nkind = regex\nmessage = m\npattern = 丁\nfix = 戊\n"
                    "safety = safe\nbad = 丁 -> 戊\ngood = 丙\n")
        linter = jinghua.Linter(no_config=True, no_default_rules=True, rules=[self.tmp.name])
        self.assertEqual([f.rule for f in linter.check("甲丙")], ["typo.grow"])
        res = linter.fix_result("甲丙丁")
        self.assertEqual(res.text, "甲丙戊")
        self.assertTrue(res.converged)
        self.assertEqual(res.unstable_rules, ("typo.grow",))
        self.assertEqual([f.rule for f in res.findings], ["typo.grow"])
        path = os.path.join(self.tmp.name, "t.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("甲丙\n")
        before = os.stat(path).st_mtime_ns
        res = linter.fix_file(path)
        self.assertEqual(res.unstable_rules, ("typo.grow",))
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "甲丙\n")  # untouched
        self.assertEqual(os.stat(path).st_mtime_ns, before)

    def test_unknown_rule_name(self):
        with self.assertRaises(jinghua.ConfigError) as cm:
            jinghua.Linter(select="punct,no.such-rule")
        self.assertIn("no.such-rule", str(cm.exception))
        # the error names the option, not "./-" (the stand-in path of a
        # text without one) as a file
        e = cm.exception
        self.assertNotIn("./-", str(e))
        self.assertEqual((e.option, e.file), ("select", None))
        self.assertTrue(str(e).startswith("the options: select: "), str(e))
        with self.assertRaises(jinghua.ConfigError) as cm:
            jinghua.Linter(extend_select=["no.such-rule"])
        self.assertEqual(cm.exception.option, "extend_select")

    def test_missing_rules_folder(self):
        with self.assertRaises(jinghua.JinghuaError):
            jinghua.Linter(rules=[os.path.join(self.tmp.name, "nothing-here")])

    def test_config_error_has_file_and_line(self):
        ini = os.path.join(self.tmp.name, ".jinghua.ini")
        with open(ini, "w", encoding="utf-8") as f:
            f.write("select = punct\nbogus-key = 1\n")
        txt = os.path.join(self.tmp.name, "a.txt")
        with open(txt, "w", encoding="utf-8") as f:
            f.write("好。\n")
        want = cli("check", txt)
        self.assertEqual(want.returncode, 2)
        with self.assertRaises(jinghua.ConfigError) as cm:
            jinghua.Linter(config=ini)
        e = cm.exception
        self.assertEqual((e.file, e.line), (ini, 2))
        self.assertIn("bogus-key", str(e))

    def test_unknown_profile(self):
        with self.assertRaises(jinghua.JinghuaError) as cm:
            jinghua.Linter(profile="no-such-profile")
        self.assertIn("no-such-profile", str(cm.exception))

    def test_bad_variant(self):
        with self.assertRaises(ValueError):
            jinghua.Linter(variant="latin")


TEXT = "第一行。\n他重新給子彈膛,好。\n"


class Stale(InTempDir):
    def test_stale_after_a_nearer_config(self):
        sub = os.path.join(self.tmp.name, "book")
        os.mkdir(sub)
        with open(os.path.join(self.tmp.name, ".jinghua.ini"), "w") as f:
            f.write("ignore = punct.repeated\n")
        lint = jinghua.Linter()
        lint.check("他说,好。", path=os.path.join(sub, "a.txt"))
        self.assertFalse(lint.stale())
        with open(os.path.join(sub, ".jinghua.ini"), "w") as f:
            f.write("ignore = punct.halfwidth\n")
        self.assertTrue(lint.stale())
        self.assertFalse(jinghua.Linter().stale())


class Documents(InTempDir):
    """The document API through the binding: encodings, Markdown, inline
    switches, configuration, all as the CLI does them on the same file."""

    def setUp(self):
        super().setUp()
        self.dir = self.tmp.name

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def same_as_cli(self, path, *args, **kw):
        linter = jinghua.Linter(**kw)
        got = [x.to_dict() for x in linter.check_file(path)]
        out = cli("check", "--format", "json", *args, path).stdout
        want = json.loads(out)
        for f in want:
            del f["file"]
        self.assertEqual(got, want, path)
        fixed = cli("fix", "--stdout", *args, path).stdout
        with open(path, "rb") as f:
            self.assertEqual(linter.fix(f.read(), path=path), fixed, path)
        return got

    def test_encodings_as_cli(self):
        for enc in ("gb18030", "big5", "utf-16"):
            path = self.write(f"{enc}.txt", TEXT.encode(enc))
            found = self.same_as_cli(path)
            self.assertTrue(found, enc)
            fixed = jinghua.fix(TEXT.encode(enc), path=path)
            self.assertEqual(fixed.decode(enc), TEXT.replace(",", "，"), enc)
            self.assertEqual(jinghua.Linter().encoding(TEXT.encode(enc), path=path),
                             {"gb18030": "GB18030", "big5": "BIG5", "utf-16": "UTF-16LE"}[enc])
        # offsets are the file's bytes: the GB18030 comma is byte 28
        (f,) = [x for x in jinghua.check_file(os.path.join(self.dir, "gb18030.txt"))
                if x.rule == "punct.halfwidth"]
        self.assertEqual(TEXT.encode("gb18030")[f.byte_start:f.byte_end], b",")

    def test_to_utf8(self):
        path = self.write("gb.txt", TEXT.encode("gb18030"))
        fixed = jinghua.fix(TEXT.encode("gb18030"), path=path, to_utf8=True)
        self.assertEqual(fixed, cli("fix", "--stdout", "--to-utf8", path).stdout)
        self.assertEqual(fixed.decode("utf-8"), TEXT.replace(",", "，"))

    def test_markdown_and_switches_as_cli(self):
        md = ("# 标题,要查\n\n正文,要查。`代码,不查`\n\n```\n代码块,不查\n```\n\n"
              "<!-- jinghua-disable-next-line -->\n这行,不查。\n\n最后,一行。\n").encode()
        path = self.write("a.md", md)
        found = self.same_as_cli(path)
        self.assertEqual([f["line"] for f in found if f["rule"] == "punct.halfwidth"], [1, 3, 12])
        # the same text without a .md name is plain text: more findings
        self.assertGreater(len(jinghua.check(md)), len(found))
        self.assertEqual(len(jinghua.check(md.decode(), path="x.md")), len(found))

    def test_config_as_cli(self):
        self.write(".jinghua.ini", "ignore = script\nwords = 子丨彈丨膛\n[punct.halfwidth]\n"
                   "severity = error\n".encode())
        text = "第一行。\n他重新給子丨彈丨膛,好。\n"
        path = self.write("c.txt", text.encode())
        found = self.same_as_cli(path)
        self.assertEqual([(f["rule"], f["severity"]) for f in found], [("punct.halfwidth", "error")])
        # without the configuration the separators are found
        rules = {f.rule for f in jinghua.Linter(no_config=True).check_file(path)}
        self.assertIn("censor.separator", rules)
        # path= gives a text the configuration of that place
        self.assertEqual([f.rule for f in jinghua.check(text, path=path)], ["punct.halfwidth"])

    def test_profile_as_cli(self):
        path = self.write("p.txt", "共有3个人在2024年来过,他们用Linux系统。\n".encode())
        novel = self.same_as_cli(path)
        docs = self.same_as_cli(path, "--profile", "docs", profile="docs")
        self.assertNotEqual([f["rule"] for f in novel], [f["rule"] for f in docs])

    def test_lines(self):
        text = "一,二\n三,四\n五,六\n"
        self.assertEqual([f.line for f in jinghua.Linter().check(text, lines=[(2, 3)])], [2, 3])

    def test_library_version(self):
        self.assertRegex(jinghua.library_version(), r"^\d+\.\d+\.\d+")


class Files(InTempDir):

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

    # as `jinghua fix` (tests/dataloss.sh, hostile.sh): fix_file wrote its own
    # way, replacing a symlink by a file, writing over a read-only file and
    # dropping extended attributes and ACLs
    def test_fix_file_through_symlink(self):
        target = os.path.join(self.tmp.name, "target.txt")
        link = os.path.join(self.tmp.name, "link.txt")
        with open(target, "w", encoding="utf-8") as f:
            f.write("应敌,全力\n")
        os.symlink("target.txt", link)
        self.assertEqual(jinghua.fix_file(link).fixes, 1)
        self.assertEqual(os.readlink(link), "target.txt")
        with open(target, encoding="utf-8") as f:
            self.assertEqual(f.read(), "应敌，全力\n")
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["link.txt", "target.txt"])

    def test_fix_file_read_only_refused(self):
        path = os.path.join(self.tmp.name, "ro.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("应敌,全力\n")
        os.chmod(path, 0o444)
        with self.assertRaisesRegex(jinghua.JinghuaError, "ro.txt: read-only file; not fixed"):
            jinghua.fix_file(path)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "应敌,全力\n")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o444)
        self.assertEqual(os.listdir(self.tmp.name), ["ro.txt"])

    def test_fix_file_keeps_xattrs_and_acl(self):
        path = os.path.join(self.tmp.name, "x.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("应敌,全力\n")
        os.chmod(path, 0o640)
        try:
            os.setxattr(path, "user.jinghua-test", b"kept")
        except OSError:
            self.skipTest("no user extended attributes on this file system")
        acl = shutil.which("setfacl") and subprocess.run(
            ["setfacl", "-m", "u:nobody:r", path], capture_output=True).returncode == 0
        before = {a: os.getxattr(path, a) for a in os.listxattr(path)}
        mode = stat.S_IMODE(os.stat(path).st_mode)  # with an ACL, its mask in the group bits
        self.assertEqual(jinghua.fix_file(path).fixes, 1)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "应敌，全力\n")
        self.assertEqual({a: os.getxattr(path, a) for a in os.listxattr(path)}, before)
        if acl:
            self.assertIn("system.posix_acl_access", before)
            self.assertIn("user:nobody:r--", subprocess.run(
                ["getfacl", "-c", path], capture_output=True, text=True).stdout)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), mode)
        self.assertEqual(os.listdir(self.tmp.name), ["x.txt"])

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

    # as `jinghua check` (hostile-limits.sh): check_file("/dev/zero") read
    # until memory ran out
    def test_device_refused(self):
        for fn in (jinghua.check_file, jinghua.fix_file):
            with self.assertRaisesRegex(jinghua.JinghuaError, "/dev/zero: a device, not read"):
                fn("/dev/zero")

    def test_fifo_read_as_a_bounded_stream(self):
        import threading
        fifo = os.path.join(self.tmp.name, "in")
        os.mkfifo(fifo)

        def feed(data):
            with open(fifo, "wb") as f:
                f.write(data)
        t = threading.Thread(target=feed, args=("子丨弹，说了。\n".encode(),))
        t.start()
        self.assertIn("censor.separator", [f.rule for f in jinghua.check_file(fifo)])
        t.join()
        _linter = sys.modules["jinghua._linter"]  # jinghua._linter is a function
        saved, _linter.STREAM_MAX = _linter.STREAM_MAX, 1000
        try:
            t = threading.Thread(target=feed, args=(b"x" * 5000,))
            t.start()
            with self.assertRaises(OSError) as e:
                jinghua.check_file(fifo)
            self.assertEqual(e.exception.errno, errno.EFBIG)
        finally:
            _linter.STREAM_MAX = saved
            t.join()

    # A SIGTERM or SIGHUP during fix_file's write left its temporary file
    # behind (Python leaves both at their default, which kills at once);
    # Ctrl-C (KeyboardInterrupt, after the write) did not.  strace holds the
    # write at its fsync, as tests/dataloss.sh does for the CLI.
    def test_signal_during_fix_file_leaves_no_temporary(self):
        strace = shutil.which("strace")
        if not strace or subprocess.run([strace, "-o", "/dev/null", "-e", "inject=fsync:delay_enter=1",
                                         "true"], capture_output=True).returncode:
            self.skipTest("strace cannot delay calls here")
        import signal
        import time
        child = ("import os, sys, jinghua\n"
                 "print(os.getpid(), flush=True)\n"
                 "jinghua.fix_file(sys.argv[1])\n")
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            path = os.path.join(self.tmp.name, "s.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("他把子丨弹压进了枪膛。\n")
            env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
            p = subprocess.Popen([strace, "-f", "-o", "/dev/null", "-e", "trace=fsync", "-e",
                                  "inject=fsync:delay_enter=4000000", sys.executable, "-c", child, path],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            with p.stdout:
                pid = int(p.stdout.readline())
            deadline = time.monotonic() + 60
            while not [n for n in os.listdir(self.tmp.name) if "jinghua-" in n]:
                self.assertLess(time.monotonic(), deadline, "no temporary file appeared")
                time.sleep(0.01)
            os.kill(pid, sig)
            p.wait(timeout=120)
            self.assertEqual(os.listdir(self.tmp.name), ["s.txt"], sig.name)
            with open(path, encoding="utf-8") as f:
                # SIGINT: the write ends, then KeyboardInterrupt; the others: the old text
                self.assertIn(f.read(), ("他把子丨弹压进了枪膛。\n", "他把子弹压进了枪膛。\n") if sig == signal.SIGINT
                              else ("他把子丨弹压进了枪膛。\n",), sig.name)

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            jinghua.check_file(os.path.join(self.tmp.name, "none.txt"))


if __name__ == "__main__":
    unittest.main()
