#!/usr/bin/env python3
"""Duet against back-to-back blocks on this machine (docs/statistics.md,
"Duet: both sides at once").

  python3 docs/notebook/duet.py [--builddir build] [--pairs 100]

Identical sides, the acceptance cell (`futexlab run mutex --backend
futex-private --threads 1 --critical 1000 --think 0 --duration 0.1
--warmup 0.05 --reps 1`, one process a visit), paired two ways,
alternated pair by pair:
  duet          both visits at once, one pinned to CPU 0 and one to
                CPU 1 (`--placement 0`, `--placement 1`; which side
                gets which CPU drawn at random);
  back-to-back  one after the other on one CPU, drawn at random.
A pair gives x = log of one visit's CPU ns/op over the other's
(cpu_ns / ops from cells.csv), symmetric about 0 for identical sides.
Prints, per way: the pairs, the median of x, its robust deviation
(1.4826 times the median absolute deviation), the wall seconds a pair
took (median), and the information per second of wall time (1 over the
squared deviation, over the seconds a pair): the larger wins. Start the
busy loops the question is about beside it yourself.
"""

import argparse
import csv
import math
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

import level_blocks  # its cost() and deviation(), one copy


def start(fl, cpu):
    d = tempfile.mkdtemp(prefix="fl-duet-")
    p = subprocess.Popen([fl, "run", "mutex", "--backend", "futex-private",
                          "--threads", "1", "--critical", "1000", "--think",
                          "0", "--duration", "0.1", "--warmup", "0.05",
                          "--reps", "1", "--placement", str(cpu),
                          "--results", d], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    return p, d


def cost(p, d):
    if p.wait() != 0:
        raise SystemExit("a visit failed: futexlab run ... --results %s" % d)
    (name,) = os.listdir(d)
    with open(os.path.join(d, name, "cells.csv")) as f:
        r = next(csv.DictReader(f))
    shutil.rmtree(d)
    return level_blocks.cost(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    fl = os.path.join(a.builddir, "futexlab")
    rng = random.Random(a.seed)
    xs = {"duet": [], "back-to-back": []}
    secs = {"duet": [], "back-to-back": []}
    for i in range(2 * a.pairs):
        way = "duet" if i % 2 == 0 else "back-to-back"
        t0 = time.monotonic()
        if way == "duet":
            cpu = rng.randrange(2)
            one, two = start(fl, cpu), start(fl, 1 - cpu)
            c1, c2 = cost(*one), cost(*two)
        else:
            cpu = rng.randrange(2)
            c1 = cost(*start(fl, cpu))
            c2 = cost(*start(fl, cpu))
        secs[way].append(time.monotonic() - t0)
        xs[way].append(math.log(c2 / c1))
    for way in ("duet", "back-to-back"):
        x, s = xs[way], statistics.median(secs[way])
        dev = level_blocks.deviation(x)
        print("%-12s pairs %4d  median x %+.4f  robust deviation %.4f  "
              "%.2f s a pair  information %.0f a second" %
              (way, len(x), statistics.median(x), dev, s,
               1 / dev ** 2 / s))


if __name__ == "__main__":
    main()
