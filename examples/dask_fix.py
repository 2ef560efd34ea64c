#!/usr/bin/python3
"""Check or fix a corpus on a Dask cluster with the jinghua binding.

    examples/dask_fix.py [--fix] [--unsafe] [--workers N] [--scheduler ADDR]
                         --out DIR INPUT...

INPUT: JSON-lines files ({"id", "text"} a line; globs allowed) or text files
and folders of them (one document a file).  Writes DIR/part-*.jsonl (one
result a document, as `jinghua check|fix --jsonl-filter` writes it) and
DIR/summary.json, and prints the summary.  Without --scheduler it starts a
LocalCluster of N worker processes (default 2) with one thread each.
"""
import argparse
import json
import sys
import time

from dask.distributed import Client, LocalCluster

import jinghua.dask as jd


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--fix", action="store_true")
    p.add_argument("--unsafe", action="store_true")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scheduler", help="address of a running scheduler")
    p.add_argument("--blocksize", default="4MiB", help="JSON lines per partition, in bytes")
    p.add_argument("--select")
    p.add_argument("--ignore")
    p.add_argument("--profile")
    p.add_argument("--config", help="this .jinghua.ini for every document")
    args = p.parse_args()
    options = {k: v for k in ("select", "ignore", "profile", "config")
               if (v := getattr(args, k))}
    start = time.monotonic()
    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        summary = jd.run(args.inputs, args.out, fix=args.fix, unsafe=args.unsafe,
                         blocksize=args.blocksize, **options)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    seconds = time.monotonic() - start
    json.dump(summary, sys.stdout, ensure_ascii=False, indent=1)
    print(f"\n{summary['documents']} documents in {seconds:.1f} s "
          f"({summary['documents'] / seconds:.0f}/s), {len(summary['failed'])} failed",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
