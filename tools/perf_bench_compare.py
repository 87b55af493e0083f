#!/usr/bin/env python3
"""Run futexlab's perf-bench workloads and `perf bench futex` side by side.

  tools/perf_bench_compare.py [--rounds 3] [--only NAME ...] [--builddir B]

For each comparison below, futexlab and perf run alternately, --rounds
times each, and a Markdown table gives every run's figure, the medians and
their ratio; docs/perf-bench-comparison.md is made from its output. The
figures compared are the ones perf prints:
  hash, lock-pi          operations per second per thread (perf's
                         "Averaged N operations/sec"; futexlab's
                         ops_per_sec_per_thread);
  wake, wake-parallel,   the mean time per round in microseconds (perf's
  requeue                "... in X ms", a mean of ten runs; futexlab's
                         lat_mean_ns over its rounds), with futexlab's p50.
The spread column, (max - min) / median of each tool's runs, says how
much of a difference the machine's noise alone could make. The machine
load (/proc/loadavg) is printed before and after.
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, futexlab arguments, perf command, perf regex, figure kind
COMPARISONS = [
    ("hash -t 1",
     ["hash", "--threads", "1"],
     ["perf", "bench", "futex", "hash", "-t", "1", "-r", "1"],
     r"Averaged (\d+) operations/sec", "ops"),
    ("hash -t 2",
     ["hash", "--threads", "2"],
     ["perf", "bench", "futex", "hash", "-t", "2", "-r", "1"],
     r"Averaged (\d+) operations/sec", "ops"),
    ("hash -t 1 --shared",
     ["hash", "--threads", "1", "--backend", "futex-shared", "--shared"],
     ["perf", "bench", "futex", "hash", "-t", "1", "-r", "1", "-S"],
     r"Averaged (\d+) operations/sec", "ops"),
    ("wake -t 2",
     ["wake", "--threads", "2", "--settle", "100ms"],
     ["perf", "bench", "futex", "wake", "-t", "2"],
     r"Wokeup \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("wake -t 1, waker alone on CPU 1",
     ["wake", "--threads", "1", "--placement", "0,1", "--settle", "100ms"],
     ["taskset", "-c", "1", "perf", "bench", "futex", "wake", "-t", "1"],
     r"Wokeup \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("wake -t 1, waker on the waiter's CPU",
     ["wake", "--threads", "1", "--placement", "0,0", "--settle", "100ms"],
     ["taskset", "-c", "0", "perf", "bench", "futex", "wake", "-t", "1"],
     r"Wokeup \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    # perf creates its wakers with the attributes its last waiter got, so
    # all wakers share that waiter's CPU (CPU 1 here): mirror that
    ("wake-parallel -t 2 (2 wakers)",
     ["wake-parallel", "--threads", "2", "--nwakers", "2", "--placement",
      "0,1,1,1,0", "--settle", "100ms"],
     ["perf", "bench", "futex", "wake-parallel", "-t", "2", "-w", "2"],
     r"Avg per-thread latency \(waking [\d/]+ threads\) in ([\d.]+) ms",
     "ms"),
    ("requeue -t 2",
     ["requeue", "--threads", "2", "--settle", "100ms"],
     ["perf", "bench", "futex", "requeue", "-t", "2"],
     r"Requeued \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("requeue -t 2 --pi",
     ["requeue", "--threads", "2", "--pi", "--settle", "100ms"],
     ["perf", "bench", "futex", "requeue", "-t", "2", "--pi"],
     r"Requeued \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("requeue -t 1 --pi, requeuer alone on CPU 1",
     ["requeue", "--threads", "1", "--pi", "--placement", "0,1",
      "--settle", "100ms"],
     ["taskset", "-c", "1", "perf", "bench", "futex", "requeue", "-t", "1",
      "--pi"],
     r"Requeued \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("requeue -t 1 --pi, requeuer on the waiter's CPU",
     ["requeue", "--threads", "1", "--pi", "--placement", "0,0",
      "--settle", "100ms"],
     ["taskset", "-c", "0", "perf", "bench", "futex", "requeue", "-t", "1",
      "--pi"],
     r"Requeued \d+ of \d+ threads in ([\d.]+) ms", "ms"),
    ("lock-pi -t 2",
     ["lock-pi", "--threads", "2"],
     ["perf", "bench", "futex", "lock-pi", "-t", "2", "-r", "1"],
     r"Averaged (\d+) operations/sec", "ops"),
    ("lock-pi -t 2 --multi",
     ["lock-pi", "--threads", "2", "--multi"],
     ["perf", "bench", "futex", "lock-pi", "-t", "2", "-r", "1", "-M"],
     r"Averaged (\d+) operations/sec", "ops"),
]

COMMON = ["--duration", "1", "--reps", "1"]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def spread(values):
    """(max - min) / median, in percent: the run-to-run noise."""
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else 0.0


def run_futexlab(futexlab, args, results):
    cmd = [futexlab, "run"] + args + COMMON + ["--results", results]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit("futexlab failed (%d): %s\n%s" % (out.returncode,
                                                  " ".join(cmd), out.stderr))
    run_dir = out.stdout.strip().splitlines()[-1]
    with open(os.path.join(run_dir, "cells.csv")) as f:
        row = next(csv.DictReader(f))
    if row["status"] != "ok":
        sys.exit("futexlab cell %s: %s" % (row["status"], row["reason"]))
    return row


def run_perf(cmd, regex):
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(regex, out.stdout)
    if out.returncode != 0 or not m:
        sys.exit("cannot read perf's figure from %s:\n%s%s"
                 % (" ".join(cmd), out.stdout, out.stderr))
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--only", action="append", default=[],
                    help="run only comparisons whose name starts so")
    args = ap.parse_args()
    futexlab = os.path.join(ROOT, args.builddir, "futexlab")
    results = tempfile.mkdtemp(prefix="perf-compare-")
    print("load before: %s" % loadavg())
    print()
    print("| comparison | unit | futexlab runs | perf runs | futexlab "
          "median | perf median | futexlab/perf | spread futexlab, perf | "
          "futexlab p50 |")
    print("|---|---|---|---|---|---|---|---|---|")
    commands = []
    for name, fl_args, pf_cmd, regex, kind in COMPARISONS:
        if args.only and not any(name.startswith(o) for o in args.only):
            continue
        fl, pf, p50 = [], [], []
        for _ in range(args.rounds):
            row = run_futexlab(futexlab, fl_args, results)
            p = run_perf(pf_cmd, regex)
            if kind == "ops":
                fl.append(float(row["ops_per_sec_per_thread"]))
                pf.append(p)
            else:  # microseconds per round
                fl.append(float(row["lat_mean_ns"]) / 1000)
                p50.append(float(row["lat_p50_ns"]) / 1000)
                pf.append(p * 1000)
        unit = "ops/s/thread" if kind == "ops" else "us/round"
        fmt = "%.0f" if kind == "ops" else "%.1f"
        mf, mp = statistics.median(fl), statistics.median(pf)
        print("| %s | %s | %s | %s | %s | %s | %.2f | %.0f%%, %.0f%% | "
              "%s |" % (
                  name, unit, " ".join(fmt % v for v in fl),
                  " ".join(fmt % v for v in pf), fmt % mf, fmt % mp,
                  mf / mp, spread(fl), spread(pf),
                  ("%.1f" % statistics.median(p50)) if p50 else ""))
        sys.stdout.flush()
        commands.append((name, "futexlab run " + " ".join(fl_args + COMMON),
                         " ".join(pf_cmd)))
    print()
    print("load after: %s" % loadavg())
    print()
    print("| comparison | futexlab | perf |")
    print("|---|---|---|")
    for name, fl_cmd, pf_cmd in commands:
        print("| %s | `%s` | `%s` |" % (name, fl_cmd, pf_cmd))


if __name__ == "__main__":
    main()
