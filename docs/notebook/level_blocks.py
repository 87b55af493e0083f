#!/usr/bin/env python3
"""Would a visit campaign decide sooner on the blocks whose visits ran
at the CPU's fast level? (docs/statistics.md, "Blocks at the CPU's
speed level".)

  python3 docs/notebook/level_blocks.py CAMPAIGN_DIR [--fast 3000]

Reads a finished two-side visit campaign of one cell (sides A and B,
their runs in runs/NN-A and runs/NN-B): block k pairs A's k-th row
with B's k-th, x = log of B's CPU ns/op over A's (cpu_ns / ops). A
block is at the fast level when all four calibrations of its two
visits, before and after (busy_loops_per_us_start and _end), read at
least --fast loops/us. Prints, for all blocks and for the fast ones:
their number, the median of x and its robust deviation (1.4826 times
the median absolute deviation), and the information per block of the
campaign's time of the fast ones against all (n / deviation^2, as a
share of all blocks'): above 1, keeping only the fast blocks would
need fewer blocks' time for the same interval width.
"""

import argparse
import csv
import glob
import math
import os
import statistics


def rows(cdir, side):
    out = []
    for run in sorted(glob.glob(os.path.join(cdir, "runs", "*-" + side))):
        with open(os.path.join(run, "cells.csv")) as f:
            out += list(csv.DictReader(f))
    return out


def cost(r):
    return float(r["cpu_ns"]) / float(r["ops"])


def deviation(x):
    m = statistics.median(x)
    return 1.4826 * statistics.median(abs(v - m) for v in x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("campaign")
    ap.add_argument("--fast", type=float, default=3000)
    a = ap.parse_args()
    A, B = rows(a.campaign, "A"), rows(a.campaign, "B")
    n = min(len(A), len(B))

    def fast(r):
        return (float(r["busy_loops_per_us_start"]) >= a.fast and
                float(r["busy_loops_per_us_end"]) >= a.fast)

    x = [math.log(cost(B[i]) / cost(A[i])) for i in range(n)]
    kept = [x[i] for i in range(n) if fast(A[i]) and fast(B[i])]
    for what, v in (("all", x), ("fast", kept)):
        print("%-4s blocks %4d  median x %+.4f  robust deviation %.4f" %
              (what, len(v), statistics.median(v), deviation(v)))
    print("information of the fast blocks against all, per unit of "
          "time: %.2f" % ((len(kept) / deviation(kept) ** 2) /
                          (n / deviation(x) ** 2)))


if __name__ == "__main__":
    main()
