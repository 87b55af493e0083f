#!/usr/bin/env python3
"""The fidelity benchmark: futexlab's measured loops against bare loops
written for the purpose, alternated in one run, as ratios.

  tools/fidelity.py [--builddir build] [--rounds 7] [--duration 1]
  ninja fidelity

Pairs, each run in turn within every round (the order flips each round,
so neither side always runs first on a warmer or quieter machine):
  mutex, 1 and 2 threads: `futexlab run mutex --backend futex-private
    --critical 0 --think 0` against fidelity-mutex3 (Drepper's mutex 3
    and nothing else), pinned to the CPUs futexlab's cell used;
  hash, 1 thread: `futexlab run hash` against `perf bench futex hash -t 1`
    (same 1024 private futexes; perf runs whole seconds).
A ratio is futexlab's operations/s over the bare loop's, from the same
round. Printed: the median ratio over the rounds with its distribution-free
95% confidence interval (order statistics, as futexlab's own cells: see
docs/statistics.md; at least 6 rounds), as a Markdown table
(docs/measurement.md shows one).
"""

import argparse
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def futexlab(args, workload, threads, extra):
    """One cell, one repetition: (ops/s, the cell's CPU list)."""
    cmd = [os.path.join(args.builddir, "futexlab"), "run", workload,
           "--backend", "futex-private", "--threads", str(threads),
           "--duration", str(args.duration), "--reps", "1",
           "--results", args.results] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    run_dir = out.stdout.strip().splitlines()[-1]
    with open(os.path.join(run_dir, "cells.csv")) as f:
        row = next(csv.DictReader(f))
    shutil.rmtree(run_dir)
    if row["status"] != "ok":
        sys.exit("futexlab %s: %s %s" % (workload, row["status"],
                                          row["reason"]))
    return float(row["ops_per_sec"]), row["cpus"]


def bare_mutex3(args, cpus):
    cmd = [os.path.join(args.builddir, "tools", "fidelity-mutex3"), cpus,
           str(args.duration)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return float(re.search(r"acquisitions_per_sec ([\d.]+)",
                           out.stdout).group(1))


def perf_hash(args):
    secs = max(1, round(args.duration))
    cmd = ["perf", "bench", "futex", "hash", "-t", "1", "-r", str(secs)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    m = re.search(r"Averaged (\d+) operations/sec", out.stdout)
    if not m:
        sys.exit("cannot parse perf bench output:\n" + out.stdout)
    return float(m.group(1))


def median_ci(v, conf=0.95):
    """The median of v and the order-statistic interval (x(k), x(n+1-k))
    with the largest k whose binomial coverage is at least conf; None
    below 6 values, where no such interval exists."""
    v = sorted(v)
    n = len(v)
    best = None
    for k in range(1, n // 2 + 1):
        tail = sum(math.comb(n, i) for i in range(k)) / 2.0 ** n
        if 1 - 2 * tail >= conf:
            best = (v[k - 1], v[n - k])
    return statistics.median(v), best


def pairs(args):
    """(name, futexlab command shown, bare command shown, one-round fn)."""
    mutex = ["--critical", "0", "--think", "0"]

    cpus_of = {}

    def mutex_round(threads):
        def one(flip):
            if flip or threads not in cpus_of:
                fl, cpus_of[threads] = futexlab(args, "mutex", threads,
                                                mutex)
                return fl, bare_mutex3(args, cpus_of[threads])
            # bare first, pinned where futexlab's cells ran
            bare = bare_mutex3(args, cpus_of[threads])
            return futexlab(args, "mutex", threads, mutex)[0], bare
        return one

    def hash_round(flip):
        if flip:
            return futexlab(args, "hash", 1, [])[0], perf_hash(args)
        bare = perf_hash(args)
        return futexlab(args, "hash", 1, [])[0], bare

    base = "futexlab run %s --backend futex-private --threads %d"
    return [
        ("mutex, 1 thread", base % ("mutex", 1) + " --critical 0 --think 0",
         "fidelity-mutex3 CPU", mutex_round(1)),
        ("mutex, 2 threads", base % ("mutex", 2) + " --critical 0 --think 0",
         "fidelity-mutex3 CPU,CPU", mutex_round(2)),
        ("hash, 1 thread", base % ("hash", 1),
         "perf bench futex hash -t 1", hash_round),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=1.0,
                    help="seconds per measurement (perf: whole seconds)")
    args = ap.parse_args()
    args.results = tempfile.mkdtemp(prefix="fidelity-")
    todo = pairs(args)
    ratios = {name: [] for name, _, _, _ in todo}
    rates = {name: ([], []) for name, _, _, _ in todo}
    try:
        for r in range(args.rounds):
            for name, _, _, one in todo:
                fl, bare = one(r % 2 == 1)
                ratios[name].append(fl / bare)
                rates[name][0].append(fl)
                rates[name][1].append(bare)
                print("round %d/%d %-17s futexlab %.4g/s  bare %.4g/s  "
                      "ratio %.3f" % (r + 1, args.rounds, name, fl, bare,
                                      fl / bare), file=sys.stderr)
    finally:
        shutil.rmtree(args.results, ignore_errors=True)
    print("| loop | futexlab ops/s | bare ops/s | futexlab / bare: median "
          "[95%% interval] over %d alternated rounds |" % args.rounds)
    print("|---|---|---|---|")
    for name, _, _, _ in todo:
        med, ci = median_ci(ratios[name])
        print("| %s | %.4g | %.4g | %.3f %s |" % (
            name, statistics.median(rates[name][0]),
            statistics.median(rates[name][1]), med,
            "[%.3f, %.3f]" % ci if ci else "[n/a: under 6 rounds]"))
    print()
    for name, fl_cmd, bare_cmd, _ in todo:
        print("- %s: `%s` against `%s`" % (name, fl_cmd, bare_cmd))


if __name__ == "__main__":
    main()
