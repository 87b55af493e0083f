#!/usr/bin/env python3
"""Does the busy-loop calibration before and after a repetition track
the speed the repetition's CPU time shows? (docs/measurement.md, "The
CPU's speed level".)

  python3 docs/notebook/cpu_speed_levels.py [--builddir build] [--runs 30]

Runs `futexlab run mutex --backend futex-private --threads 1 --critical
1000 --think 0 --duration 0.1 --reps 1` --runs times, each in its own
process, so each repetition has a calibration just before it (the cell's
busy_loops_per_us_start, before the warm-up) and just after it (_end).
A repetition's own speed is what its CPU time says: an acquisition's
critical section is busy_loops_per_us_used loops (1000 ns at that
speed), so 1000 * used / (cpu_ns / ops) loops/us, the lock's own few
tens of ns aside. Prints each run's, and Spearman's rho against each
calibration.
"""

import argparse
import csv
import os
import subprocess
import tempfile


def rank(v):
    r = [0] * len(v)
    for k, i in enumerate(sorted(range(len(v)), key=lambda i: v[i])):
        r[i] = k
    return r


def spearman(a, b):
    ra, rb, n = rank(a), rank(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / \
        (n * (n * n - 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    fl = os.path.join(a.builddir, "futexlab")
    rows = []
    for _ in range(a.runs):
        d = tempfile.mkdtemp()
        subprocess.run([fl, "run", "mutex", "--backend", "futex-private",
                        "--threads", "1", "--critical", "1000", "--think",
                        "0", "--duration", "0.1", "--reps", "1",
                        "--results", d], capture_output=True, check=True)
        (name,) = os.listdir(d)
        with open(os.path.join(d, name, "cells.csv")) as f:
            r = next(csv.DictReader(f))
        own = 1000 * int(r["busy_loops_per_us_used"]) / (
            int(r["cpu_ns"]) / int(r["ops"]))
        start = int(r["busy_loops_per_us_start"])
        end = int(r["busy_loops_per_us_end"])
        rows.append((own, start, end))
        print("own %5.0f  before %4d  after %4d loops/us" % rows[-1])
    own = [r[0] for r in rows]
    print("Spearman's rho of its own speed against the calibration "
          "before %.2f, after %.2f, their mean %.2f" % (
              spearman(own, [r[1] for r in rows]),
              spearman(own, [r[2] for r in rows]),
              spearman(own, [(r[1] + r[2]) / 2 for r in rows])))


if __name__ == "__main__":
    main()
