"""The Dask pipeline on a real LocalCluster of two worker processes.

20,000 documents (lines of the corpus samples, alone or in pairs, some as
Markdown records, and two broken records) go through examples/dask_fix.py;
every id must come back once, and each fixed text (and fix count, and the
findings left) must be what `jinghua fix --jsonl-filter` gives for the
same document.  Then jinghua.dask's check over a folder of text files
(one in GB18030) on a cluster, against `jinghua check --format json` per
file.  Run by tests/python-dask.sh."""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

JINGHUA = os.environ["JINGHUA"]
SRCDIR = os.environ["SRCDIR"]
SAMPLES = os.path.join(SRCDIR, "corpus-samples")
N_DOCS = 20000


def sample_lines():
    lines = []
    for p in sorted(glob.glob(os.path.join(SAMPLES, "*.txt"))):
        with open(p, encoding="utf-8") as f:
            lines += [ln.rstrip("\n") for ln in f if ln.strip()]
    return lines


def write_corpus(path, docs=N_DOCS, broken=True):
    """docs records (and two broken ones unless broken=False) in path."""
    lines = sample_lines()
    n = len(lines)
    with open(path, "w", encoding="utf-8") as o:
        for i in range(docs):
            text = lines[i % n]
            rec = {"id": i, "text": text, "source": "samples"}
            if i % 3 == 0:  # some documents of two paragraphs
                rec["text"] += "\n" + lines[(i * 7 + 3) % n]
            if i % 500 == 7:  # some Markdown, with code the rules must not see
                rec["text"] = "# 第" + str(i) + "节,开始\n\n" + text + "\n\n`代码,不查`\n"
                rec["type"] = "markdown"
            o.write(json.dumps(rec, ensure_ascii=False) + "\n")
            if broken and i == 777:
                o.write('{"id": "no-text", "body": "x"}\n')
            if broken and i == 12345:
                o.write('{"id": "broken", "text": \n')


class ReadFiles(unittest.TestCase):
    """Files are read in the workers as `jinghua check` reads them: the
    reader read /dev/zero until memory ran out (its own open().read()); a
    missing file is an error record too."""

    def test_device_and_missing_file_are_error_records(self):
        # the address-space cap turns the old reader's endless read into a
        # MemoryError; under ASan (preloaded) it would starve ASan's own
        # shadow mappings, so there the test runs without it
        code = ("import os, resource, jinghua.dask as jd\n"
                "if 'libasan' not in os.environ.get('LD_PRELOAD', ''):\n"
                "    resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))\n"
                "print(jd._read_file('/dev/zero')['error'])\n"
                "print(jd._read_file('/nonexistent/jinghua.txt')['error'])\n")
        got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=300, check=False)
        self.assertEqual(got.stdout, "/dev/zero: a device, not read\n"
                         "/nonexistent/jinghua.txt: No such file or directory\n", got.stderr[-300:])


class DaskPipeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.corpus = os.path.join(cls.tmp.name, "docs.jsonl")
        write_corpus(cls.corpus)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_fix_20000_documents_as_the_jsonl_filter(self):
        with open(self.corpus, "rb") as f:
            want_run = subprocess.run([JINGHUA, "fix", "--jsonl-filter", "-j", "2"], stdin=f,
                                      capture_output=True, check=True)
        want = [json.loads(ln) for ln in want_run.stdout.decode().splitlines()]
        out = os.path.join(self.tmp.name, "fixed")
        run = subprocess.run(
            [sys.executable, os.path.join(SRCDIR, "examples", "dask_fix.py"), "--fix",
             "--workers", "2", "--blocksize", "512KiB", "--out", out, self.corpus],
            capture_output=True, check=False)
        self.assertEqual(run.returncode, 0, run.stderr.decode()[-3000:])
        parts = sorted(glob.glob(os.path.join(out, "part-*.jsonl")))
        self.assertGreater(len(parts), 4)  # several partitions, over both workers
        got = []
        for p in parts:
            with open(p, encoding="utf-8") as f:
                got += [json.loads(ln) for ln in f]

        ids = collections.Counter(json.dumps(r["id"]) for r in got)
        self.assertEqual(len([r for r in got if isinstance(r["id"], int)]), N_DOCS)
        self.assertEqual(sorted(r["id"] for r in got if isinstance(r["id"], int)),
                         list(range(N_DOCS)))
        self.assertEqual([k for k, n in ids.items() if n > 1], [])

        # a line that is not JSON gets {"error", "line"} from the filter, no id
        by_id = {json.dumps(r["id"]): r for r in want if "id" in r}
        fixed = 0
        for r in got:
            if not isinstance(r["id"], int):
                continue
            w = by_id[json.dumps(r["id"])]
            self.assertEqual(r["text"], w["text"], r["id"])
            self.assertEqual(r["fixes"], w["fixes"], r["id"])
            self.assertEqual(r["findings"], w["findings"], r["id"])
            fixed += r["text"] != "" and r["fixes"] > 0
        self.assertGreater(fixed, 1000)  # the fixes were real work

        # the broken records: failed, with why, in the summary too
        failed = {json.dumps(r["id"]): r["error"] for r in got if "error" in r}
        self.assertEqual(set(failed), {'"no-text"', "null"})
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        self.assertEqual(summary["documents"], N_DOCS + 2)
        self.assertEqual(summary["fixes_applied"], sum(r.get("fixes", 0) for r in want))
        rules = collections.Counter(f["rule"] for r in want for f in r.get("findings", []))
        self.assertEqual(summary["findings_per_rule"], dict(sorted(rules.items())))
        self.assertEqual(sorted(json.dumps(x["id"]) for x in summary["failed"]),
                         sorted(failed))
        self.assertTrue(all(x["error"] for x in summary["failed"]))

    def test_check_text_files_one_linter_per_worker(self):
        import dask
        from dask.distributed import Client, LocalCluster

        import jinghua.dask as jd

        folder = os.path.join(self.tmp.name, "chapters")
        os.makedirs(folder)
        for p in glob.glob(os.path.join(SAMPLES, "*")):
            shutil.copy(p, folder)
        with open(os.path.join(SAMPLES, "001_a29c47f7ce22fee1.txt"), encoding="utf-8") as f:
            gb = f.read().encode("gb18030", "replace")
        with open(os.path.join(folder, "gb18030.txt"), "wb") as f:
            f.write(gb)  # decoded by the library, offsets in these bytes
        with LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            records = jd.read_files(folder, npartitions=6)
            results = jd.check_records(records).compute()
            linters = client.run(lambda: len(jd._linters))
            pids = client.run(os.getpid)
        self.assertEqual(len(set(pids.values())), 2)  # two processes
        self.assertEqual(sorted(linters.values()), [1, 1])  # one Linter each
        files = sorted(glob.glob(os.path.join(folder, "*")))
        self.assertEqual([r["id"] for r in results], files)
        for r in results:
            out = subprocess.run([JINGHUA, "check", "--no-config", "--format", "json", r["id"]],
                                 capture_output=True, check=False).stdout
            want = json.loads(out)
            for f in want:
                del f["file"]
            self.assertEqual(r["findings"], want, r["id"])
        self.assertIsNotNone(dask)


if __name__ == "__main__":
    unittest.main()
