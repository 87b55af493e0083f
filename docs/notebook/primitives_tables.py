#!/usr/bin/env python3
"""Print the "One run" tables of docs/workloads-primitives.md from rwlock, semaphore and barrier run directories.

Reads each RUN_DIR's cells.csv (one row per repetition) and prints one
Markdown table row per cell, in the run's cell order, with the columns
the page shows. Every figure is the median over the cell's ok
repetitions: ops/s as futexlab reports it, percentiles as the
repetitions' own (lat_p50_ns, lat_p99_ns), and each counter ratio
(reads or writes over the duration, wake calls per post or per round)
computed per repetition first. Numbers are written in futexlab's format
(stats/format.c: three significant digits, k/M/G, ns/us/ms/s). Skipped
cells are left out, as the page leaves them out.
"""
import argparse
import csv
import os
import statistics
import sys


def fmt_rate(v):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return "%.3g%s" % (v / div, suffix)
    return "%.3g" % v


def fmt_ns(ns):
    ns = int(ns)
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= div:
            return "%.3g %s" % (ns / div, unit)
    return "%d ns" % ns


def extra(row):
    return {k: float(v) for k, v in
            (kv.split("=", 1) for kv in row["extra"].split(";") if kv)}


def option(row, name):
    for kv in row["options"].split(";"):
        k, _, v = kv.partition("=")
        if k == name:
            return v
    return ""


def med(values):
    return statistics.median(values)


def pct(reps, column):
    sampled = [r for r in reps if int(r["lat_count"]) > 0]
    if not sampled:
        return "n/e"
    return fmt_ns(med([float(r[column]) for r in sampled]))


def rwlock_row(reps):
    r0 = reps[0]
    ex = [extra(r) for r in reps]
    dur = [float(r["duration_ns"]) / 1e9 for r in reps]
    writes = med([e["writes"] for e in ex])
    wait = med([e["writer_wait_max_ns"] for e in ex])
    return [option(r0, "algo"), option(r0, "writers"), r0["threads"],
            fmt_rate(med([float(r["ops_per_sec"]) for r in reps])),
            fmt_rate(med([e["reads"] / d for e, d in zip(ex, dur)])),
            fmt_rate(med([e["writes"] / d for e, d in zip(ex, dur)])),
            pct(reps, "lat_p50_ns"), pct(reps, "lat_p99_ns"),
            fmt_ns(wait) if writes > 0 else "n/e",
            "%d" % max(e["violations"] for e in ex)]


def semaphore_row(reps):
    r0 = reps[0]
    ex = [extra(r) for r in reps]
    posts = [e["posts"] + e["slot_posts"] for e in ex]
    return [r0["backend"], option(r0, "algo"), r0["threads"],
            fmt_rate(med([float(r["ops_per_sec"]) for r in reps])),
            pct(reps, "lat_p50_ns"), pct(reps, "lat_p99_ns"),
            "%.3f" % med([e["wake_calls"] / p for e, p in zip(ex, posts)]),
            "%.3f" % med([e["wakeups"] / p for e, p in zip(ex, posts)])]


def barrier_row(reps):
    r0 = reps[0]
    ex = [extra(r) for r in reps]
    return [r0["backend"], option(r0, "algo"), r0["threads"],
            fmt_rate(med([float(r["ops_per_sec"]) for r in reps])),
            pct(reps, "lat_p50_ns"), pct(reps, "lat_p99_ns"),
            "%.2f" % med([e["wake_calls"] / e["crossings"] for e in ex])]


ROWS = {"rwlock": rwlock_row, "semaphore": semaphore_row,
        "barrier": barrier_row}


def table(run_dir):
    path = os.path.join(run_dir, "cells.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit("primitives_tables: %s: %s" % (path, e.strerror))
    cells = {}
    for r in rows:
        cells.setdefault(int(r["cell"]), []).append(r)
    for cell in sorted(cells):
        reps = [r for r in cells[cell] if r["status"] == "ok"]
        if not reps:
            continue
        make = ROWS.get(reps[0]["workload"])
        if make is None:
            sys.exit("primitives_tables: %s: workload %s is not one of %s"
                     % (path, reps[0]["workload"], ", ".join(ROWS)))
        print("| " + " | ".join(make(reps)) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", nargs="+", metavar="RUN_DIR",
                    help="a futexlab run directory of rwlock, semaphore "
                    "or barrier")
    args = ap.parse_args()
    for i, d in enumerate(args.run_dir):
        if i:
            print()
        table(d)


if __name__ == "__main__":
    main()
