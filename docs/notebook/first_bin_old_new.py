#!/usr/bin/env python3
"""The first bin's excess (work before the clock started) of a short
mutex cell, futexlab before and after the clock moved ahead of the
gate's opening, alternated.

  T=THREADS [D=SECONDS] python3 docs/notebook/first_bin_old_new.py ROUNDS

Runs `futexlab run mutex --algo mutex3 --critical 0 --think 0 --threads T
--duration D (default 0.2) --warmup 0 --reps 1` with /tmp/old/build (futexlab at
f621995, unpacked by `git archive f621995 | tar -x -C /tmp/old` and
built there as the README says, `ninja build/futexlab` for the binary
alone) and build/ in turn,
and prints each run's rate and its first bin's operations beyond the
run's median rate over the bin's width, as a fraction of the run's
operations (first_bin.py's run_cell()).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from first_bin import run_cell  # noqa: E402

if len(sys.argv) != 2 or not sys.argv[1].isdigit():
    sys.exit(__doc__)
threads = os.environ.get("T", "1")
duration = os.environ.get("D", "0.2")
for r in range(int(sys.argv[1])):
    for name, builddir in (("old", "/tmp/old/build"), ("new", "build")):
        rate, excess = run_cell(builddir, threads, duration,
                                ["--warmup", "0"])
        print(name, "rate %.4g" % rate, "first-bin excess %.4f" % excess,
              flush=True)
