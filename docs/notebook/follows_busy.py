#!/usr/bin/env python3
"""Does a workload's figure follow the CPU's speed its cells read?

  docs/notebook/follows_busy.py RUN [RUN ...]

For each run and workload: every ok repetition's primary figure (the
workload's "primary" in meta.json: throughput, or the p50 latency as a
speed, 1/latency) and the busy loop's calibration before it
(busy_loops_per_us_start), both as logs centred on their cell's medians,
pooled over the workload's cells; prints Spearman's rank correlation of
the two and the median within-cell standard deviation of the log figure.
A figure that follows its own calibration negatively was sized by it
(a slow reading, a short critical section: the busy loop of that day).
Reads cells.csv and meta.json only; no figure is asserted.
"""
import csv
import json
import math
import os
import statistics
import sys
from collections import defaultdict


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r, i = [0.0] * len(v), 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    a, b = ranks(x), ranks(y)
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    num = sum((p - ma) * (q - mb) for p, q in zip(a, b))
    den = math.sqrt(sum((p - ma) ** 2 for p in a) *
                    sum((q - mb) ** 2 for q in b))
    return num / den if den else 0.0


def one_run(run):
    meta = json.load(open(os.path.join(run, "meta.json")))
    primary = {w: d.get("primary", "throughput")
               for w, d in meta.get("workloads", {}).items()}
    cells = defaultdict(list)
    for r in csv.DictReader(open(os.path.join(run, "cells.csv"))):
        if r["status"] != "ok" or not r.get("busy_loops_per_us_start"):
            continue
        if primary.get(r["workload"]) == "latency_p50":
            p50 = float(r["lat_p50_ns"])
            v = 1e9 / p50 if p50 > 0 else 0.0
        else:
            v = float(r["ops_per_sec"])
        speed = float(r["busy_loops_per_us_start"])
        if v > 0 and speed > 0:
            cells[(r["workload"], r["cell"])].append((math.log(v),
                                                      math.log(speed)))
    by = defaultdict(lambda: ([], [], []))
    for (w, _), reps in cells.items():
        if len(reps) < 4:
            continue
        mf = statistics.median(f for f, _ in reps)
        ms = statistics.median(s for _, s in reps)
        fig, spd, sd = by[w]
        for f, s in reps:
            fig.append(f - mf)
            spd.append(s - ms)
        sd.append(statistics.pstdev(f for f, _ in reps))
    print(os.path.basename(run.rstrip("/")))
    for w, (fig, spd, sd) in by.items():
        print("  %-8s %4d repetitions  rho %+.2f  within-cell sd %.3f"
              % (w, len(fig), spearman(spd, fig), statistics.median(sd)))


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: docs/notebook/follows_busy.py RUN [RUN ...]\n")
        return 2
    for run in sys.argv[1:]:
        try:
            one_run(run)
        except (OSError, ValueError, KeyError) as e:
            sys.stderr.write("follows_busy.py: %s: %s\n" % (run, e))
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
