#!/usr/bin/env python3
"""Run `futexlab run hash` and `perf bench futex hash` back to back,
alternated, and print a Markdown table of both and their medians.

  python3 docs/notebook/hash_vs_perf.py [--rounds 3] [--runtime 3] [--threads 1]

(from the repository's top, after ninja: it runs build/futexlab; the
notebook entry 2026-12-03-hash-vs-perf.md is its output)

Both tools report the average operations per second of one thread (perf's
"Averaged N operations/sec"; futexlab's ops_per_sec_per_thread, the median
of its repetitions). Then the private/shared cost ratio is measured with
futexlab alone: both backends in one run, alternated by the cell order.
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

# docs/notebook/ is two levels below the repository's top
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FUTEXLAB = os.path.join(ROOT, "build", "futexlab")


def futexlab_hash(backends, threads, runtime, results):
    cmd = [FUTEXLAB, "run", "hash", "--backend", backends, "--threads",
           str(threads), "--duration", str(runtime), "--results", results]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    run_dir = out.stdout.strip().splitlines()[-1]
    per = {}
    with open(os.path.join(run_dir, "cells.csv")) as f:
        for row in csv.DictReader(f):
            per.setdefault(row["backend"], []).append(
                float(row["ops_per_sec_per_thread"]))
    shown = ["build/futexlab"] + cmd[1:-2]
    return " ".join(shown), {b: statistics.median(v)
                                 for b, v in per.items()}


def perf_hash(threads, runtime, shared=False):
    cmd = ["perf", "bench", "futex", "hash", "-t", str(threads), "-r",
           str(runtime)] + (["-S"] if shared else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    m = re.search(r"Averaged (\d+) operations/sec", out.stdout)
    if not m:
        sys.exit("cannot parse perf output:\n" + out.stdout)
    return " ".join(cmd), float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    results = tempfile.mkdtemp(prefix="hash-vs-perf-")
    fl, pf = [], []
    print("| round | futexlab ops/s/thread | perf ops/s/thread | "
          "futexlab/perf |")
    print("|---|---|---|---|")
    for r in range(args.rounds):
        fl_cmd, fig = futexlab_hash("futex-private", args.threads,
                                    args.runtime, results)
        pf_cmd, p = perf_hash(args.threads, args.runtime)
        fl.append(fig["futex-private"])
        pf.append(p)
        print("| %d | %.0f | %.0f | %.3f |" % (r + 1, fl[-1], p, fl[-1] / p))
    mf, mp = statistics.median(fl), statistics.median(pf)
    print("| median | %.0f | %.0f | %.3f |" % (mf, mp, mf / mp))
    print()
    print("futexlab: `%s`  " % fl_cmd)
    print("perf: `%s`" % pf_cmd)
    print()
    ratios = []
    print("| round | private ops/s | shared ops/s | private/shared cost |")
    print("|---|---|---|---|")
    for r in range(args.rounds):
        cmd, fig = futexlab_hash("futex-private,futex-shared", args.threads,
                                 args.runtime, results)
        ratio = fig["futex-shared"] / fig["futex-private"]
        ratios.append(ratio)
        print("| %d | %.0f | %.0f | %.3f |" % (
            r + 1, fig["futex-private"], fig["futex-shared"], ratio))
    print("| median | | | %.3f |" % statistics.median(ratios))
    print()
    print("command: `%s`" % cmd)


if __name__ == "__main__":
    main()
