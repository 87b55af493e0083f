#!/usr/bin/env python3
"""The fidelity benchmark: futexlab's measured loops against bare loops
written for the purpose, alternated in one run, as ratios held to
two-sided bounds.

  tools/fidelity.py [--builddir build] [--rounds 20] [--duration 1]
                    [--threads 1,2,4] [--only NAME]
  ninja fidelity

Pairs, each run in turn within every round (the order flips each round,
so neither side always runs first on a warmer or quieter machine):
  mutex --algo mutex3, at each of --threads (1, 2 and 4 by default; 4
    oversubscribes a 2-CPU machine, and up to 4096 may be asked, e.g.
    --threads 1,2,64,1024 --only mutex): `futexlab run mutex --backend
    futex-private --critical 0 --think 0` against fidelity-mutex3
    (Drepper's mutex 3 and nothing else), pinned to the CPUs futexlab's
    cell used;
  hash, 1 thread: `futexlab run hash` against `perf bench futex hash -t 1`
    (same 1024 private futexes; perf runs whole seconds).
A ratio is futexlab's operations/s over the bare loop's, from the same
round. Both start their clock just before releasing their threads. Printed, as a Markdown table (docs/measurement.md shows one): the
median ratio over the rounds with its distribution-free 95% interval
(build/tools/median-ci: the code of futexlab's own cells, see
docs/statistics.md; at least 6 rounds), the bound it is held to, and for
the mutex pairs what the lock did per acquisition on each side: futex
waits, wakes, and handoffs (acquisitions whose previous one was another
thread's), medians over the rounds. futexlab counts them in its measured
loop (mutex's counters); the bare loop in a second, counting run after
its timed one, so its timed loop's fast path carries no counter.

A contended run's rate follows the futex calls each acquisition carried,
and at many threads that mix changes from run to run by several times
on either side (the bare loop against itself at 1024 threads on 2 CPUs:
a 95% interval of [0.651, 1.388] over 12 rounds), so 20 rounds of the
plain ratio cannot see 10% there; 100 rounds could (--rounds 100, about
8 minutes at 1024 threads). For the mutex pairs with futex calls the table
also gives each futexlab run's rate over the bare loop's at the same
calls per acquisition: the bare runs' time per acquisition against their
own calls (the timed run counts its waits and wakes beside the calls),
fitted by Theil-Sen (slopes weighted by their pairs' distance) leaving
the round out, read at futexlab's calls.
The plain ratio says whether the harness changed the rate; the one at
the same calls whether it changed an acquisition's cost; the counts
whether it changed how the lock behaves.

Exit status 1 when a ratio's interval leaves its bound (within 5% of the
bare loop at 1 thread, 10% at 2 and more, either way), or has none
(under 6 rounds), the plain ratio and the one at the same calls alike;
0 when all are inside.

20 rounds by default (about 4.5 minutes on a 2-CPU machine): a contended
loop's rate moves from run to run by about as much as the 10% bound (the
bare loop against a copy of itself, 12 rounds at 2 threads: median 1.033,
interval [0.979, 1.162]), and 10 rounds' interval (the 2nd and 9th of 10)
holds almost all of that scatter, where 20 rounds' (the 6th and 15th)
holds the middle.
"""

import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

# a measured loop may be this far from its bare loop, either way
BOUND_ONE_THREAD = 0.05
BOUND_CONTENDED = 0.10

COUNTS = ("waits", "wakes", "handoffs")


def futexlab(args, workload, threads, extra):
    """One cell, one repetition: (ops/s, the cell's CPU list, counts per
    operation)."""
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
    extra = dict(kv.split("=", 1) for kv in row["extra"].split(";") if kv)
    ops = float(row["ops"])
    per = {}
    for name, key in zip(COUNTS, ("wait_calls", "wake_calls", "handoffs")):
        if key in extra and ops > 0:
            per[name] = float(extra[key]) / ops
    if "waits" in per and "wakes" in per:
        per["timed_calls"] = per["waits"] + per["wakes"]
    return float(row["ops_per_sec"]), row["cpus"], per


def bare_mutex3(args, cpus):
    """The bare loop's acquisitions/s, its counting run's counts per
    acquisition, and the timed run's own futex calls per acquisition."""
    cmd = [os.path.join(args.builddir, "tools", "fidelity-mutex3"), cpus,
           str(args.duration)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    rate = re.search(r"^acquisitions_per_sec ([\d.]+)", out.stdout, re.M)
    timed = re.search(r"^timed waits_per_acq ([\d.]+) wakes_per_acq "
                      r"([\d.]+)", out.stdout, re.M)
    counted = re.search(r"^counted .*", out.stdout, re.M)
    counted = dict(re.findall(r"(\w+)_per_acq ([\d.]+)",
                              counted.group(0) if counted else ""))
    if not rate or not timed or set(counted) != set(COUNTS):
        sys.exit("cannot read fidelity-mutex3's output:\n" + out.stdout)
    counts = {k: float(v) for k, v in counted.items()}
    counts["timed_calls"] = float(timed.group(1)) + float(timed.group(2))
    return float(rate.group(1)), counts


def perf_hash(args):
    secs = max(1, round(args.duration))
    cmd = ["perf", "bench", "futex", "hash", "-t", "1", "-r", str(secs)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    m = re.search(r"Averaged (\d+) operations/sec", out.stdout)
    if not m:
        sys.exit("cannot read perf bench's output:\n" + out.stdout)
    return float(m.group(1)), {}


def median_ci(args, values):
    """The median and its 95% interval (lo, hi), or None under 6 values,
    from futexlab's own statistics (tools/median_ci.c)."""
    out = subprocess.run([os.path.join(args.builddir, "tools", "median-ci")],
                         input=" ".join(repr(v) for v in values),
                         check=True, capture_output=True, text=True)
    f = out.stdout.split()
    return float(f[0]), (None if f[1] == "n/a" else
                         (float(f[1]), float(f[2])))


def pairs(args):
    """(name, bound, futexlab command shown, bare command shown, one-round
    fn(flip) -> (futexlab ops/s, bare ops/s, futexlab counts, bare
    counts))."""
    cpus_of = {}

    def mutex_round(threads, algo):
        flags = ["--algo", algo, "--critical", "0", "--think", "0"]

        def one(flip):
            key = (threads, algo)
            if flip or key not in cpus_of:
                fl, cpus_of[key], flc = futexlab(args, "mutex", threads,
                                                 flags)
                bare, barec = bare_mutex3(args, cpus_of[key])
                return fl, bare, flc, barec
            # bare first, pinned where futexlab's cells ran
            bare, barec = bare_mutex3(args, cpus_of[key])
            fl, _, flc = futexlab(args, "mutex", threads, flags)
            return fl, bare, flc, barec
        return one

    def hash_round(flip):
        if flip:
            fl = futexlab(args, "hash", 1, [])[0]
            return (fl,) + perf_hash(args) + ({},)
        bare, _ = perf_hash(args)
        return futexlab(args, "hash", 1, [])[0], bare, {}, {}

    base = "futexlab run %s --backend futex-private --threads %d"
    todo = []
    for threads in args.threads:
        todo.append((
            "mutex mutex3, %d thread%s" % (threads, "s"[threads == 1:]),
            BOUND_ONE_THREAD if threads == 1 else BOUND_CONTENDED,
            base % ("mutex", threads) +
            " --algo mutex3 --critical 0 --think 0",
            "fidelity-mutex3 " + (",".join(["CPU"] * threads)
                                  if threads <= 4 else
                                  "CPU,CPU,... (%d, the cell's)" % threads),
            mutex_round(threads, "mutex3")))
    todo.append(("hash, 1 thread", BOUND_ONE_THREAD, base % ("hash", 1),
                 "perf bench futex hash -t 1", hash_round))
    return [t for t in todo if not args.only or
            any(t[0].startswith(o) for o in args.only)]


def theil_sen(xs, ys):
    """The line through (xs, ys) by Theil and Sen, each pairwise slope
    weighted by how far apart its two x are (Sievers' weighting): the
    weighted median slope and the median intercept, which a few runs far
    off the line do not move. Unweighted, the many pairs of runs that
    made nearly the same calls, whose slopes are mostly noise, would
    outvote the few pairs far apart that say where the line goes.
    (intercept, slope)."""
    pairs = sorted(((ys[k] - ys[j]) / (xs[k] - xs[j]), abs(xs[k] - xs[j]))
                   for j in range(len(xs)) for k in range(j + 1, len(xs))
                   if xs[k] != xs[j])
    slope, half, seen = 0.0, sum(w for _, w in pairs) / 2, 0.0
    for slope, w in pairs:
        seen += w
        if seen >= half:
            break
    return statistics.median(y - slope * x for x, y in zip(xs, ys)), slope


def adjusted_ratios(rounds):
    """Each round's futexlab rate over the bare loop's rate at futexlab's
    futex calls per acquisition, or None when the bare loop made no
    calls (one thread) or a side did not count them.

    A contended loop's time per acquisition grows with the futex calls
    each acquisition carries, and at many threads that mix moves from run
    to run by several times on either side; so the bare runs' time per
    acquisition is fitted against their calls (Theil-Sen), and each
    futexlab run is compared with the fit at its own calls. The fit for
    round i leaves round i's bare run out, so that no ratio is judged by
    a line its own round drew."""
    if not all("timed_calls" in flc and "timed_calls" in barec
               for _, _, flc, barec in rounds):
        return None
    if not any(barec["timed_calls"] for _, _, _, barec in rounds):
        return None
    ratios = []
    for i, (fl, _, flc, _) in enumerate(rounds):
        rest = [r for j, r in enumerate(rounds) if j != i]
        a, b = theil_sen([r[3]["timed_calls"] for r in rest],
                         [1.0 / r[1] for r in rest])
        predicted = a + b * flc["timed_calls"]
        if predicted > 0:
            ratios.append(fl * predicted)
    return ratios


def counts_cell(fl, bare, name):
    """'futexlab / bare' medians of one count per acquisition."""
    if not fl or not bare:
        return ""
    return "%.4f / %.4f" % (statistics.median(c[name] for c in fl),
                            statistics.median(c[name] for c in bare))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--duration", type=float, default=1.0,
                    help="seconds per measurement (perf: whole seconds)")
    ap.add_argument("--threads", default="1,2,4",
                    help="the mutex pairs' thread counts, e.g. 1,2,64,1024")
    ap.add_argument("--only", action="append", default=[],
                    help="run only pairs whose name starts so "
                    "(repeatable), e.g. 'mutex mutex3, 2'")
    args = ap.parse_args()
    try:
        args.threads = [int(t) for t in args.threads.split(",")]
    except ValueError:
        args.threads = []
    if not args.threads or not all(1 <= t <= 4096 for t in args.threads):
        print("fidelity: --threads: a list of counts from 1 to 4096, "
              "like 1,2,64,1024", file=sys.stderr)
        sys.exit(2)
    todo = pairs(args)
    if not todo:
        sys.exit("fidelity: no pair matches --only")
    args.results = tempfile.mkdtemp(prefix="fidelity-")
    got = {t[0]: [] for t in todo}
    with open("/proc/loadavg") as f:
        load_before = " ".join(f.read().split()[:3])
    try:
        for r in range(args.rounds):
            for name, _, _, _, one in todo:
                fl, bare, flc, barec = one(r % 2 == 1)
                got[name].append((fl, bare, flc, barec))
                waits = ("  waits/acq %.4f / %.4f  calls/acq %.4f / %.4f"
                         % (flc["waits"], barec["waits"],
                            flc["timed_calls"], barec["timed_calls"])
                         if flc and barec else "")
                print("round %d/%d %-22s futexlab %.4g/s  bare %.4g/s  "
                      "ratio %.3f%s" % (r + 1, args.rounds, name, fl, bare,
                                        fl / bare, waits), file=sys.stderr)
    finally:
        shutil.rmtree(args.results, ignore_errors=True)
    with open("/proc/loadavg") as f:
        load_after = " ".join(f.read().split()[:3])

    print("| loop | futexlab ops/s | bare ops/s | futexlab / bare: median "
          "[95%% interval] over %d alternated rounds | at the same futex "
          "calls / acq | bound | waits / acq (futexlab / bare) | wakes / "
          "acq | handoffs / acq |" % args.rounds)
    print("|---|---|---|---|---|---|---|---|---|")
    failed = []

    def judged(ratios, bound):
        """'median [interval]' and whether the interval is inside."""
        med, ci = median_ci(args, ratios)
        inside = ci is not None and 1 - bound <= ci[0] and \
            ci[1] <= 1 + bound
        return ("%.3f %s" % (med, "[%.3f, %.3f]" % ci if ci else
                             "[n/a: under 6 rounds]")
                + ("" if inside else " **outside**")), inside

    for name, bound, _, _, _ in todo:
        rounds = got[name]
        raw, inside = judged([fl / bare for fl, bare, _, _ in rounds], bound)
        adjusted = adjusted_ratios(rounds)
        same_calls = "n/a"
        if adjusted is not None:
            same_calls, inside_adjusted = judged(adjusted, bound)
            inside = inside and inside_adjusted
        if not inside:
            failed.append(name)
        flc = [c for _, _, c, _ in rounds if c]
        barec = [c for _, _, _, c in rounds if c]
        print("| %s | %.4g | %.4g | %s | %s | +-%d%% | %s | %s | %s |" % (
            name, statistics.median(r[0] for r in rounds),
            statistics.median(r[1] for r in rounds), raw, same_calls,
            round(bound * 100), counts_cell(flc, barec, "waits"),
            counts_cell(flc, barec, "wakes"),
            counts_cell(flc, barec, "handoffs")))
    print()
    for name, _, fl_cmd, bare_cmd, _ in todo:
        print("- %s: `%s` against `%s`" % (name, fl_cmd, bare_cmd))
    print("- load average before %s, after %s" % (load_before, load_after))
    if failed:
        print("fidelity: outside the bound: %s" % ", ".join(failed),
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
