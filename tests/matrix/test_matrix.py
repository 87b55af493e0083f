#!/usr/bin/env python3
"""Tests of issue 6: matrix files, resume, compare, plot and report.

  tests/matrix/test_matrix.py --builddir build [-k NAME] [-v]

Each test drives build/futexlab as a user would and checks what it wrote:
  parse_good        cell expansion of a good file: order, values, counts
  threads_syntax    1..2*cpus, cpus, K*cpus, cpus/K and de-duplication
  golden_errors     bad files fail with FILE:LINE: message, exit 2, and
                    create no run directory
  resume_after_kill a real matrix run killed with SIGKILL mid-way (plus a
                    torn last line), refused while the file differs,
                    resumed: every cell exactly once, earlier rows kept
  compare_verdicts  synthetic runs: faster, slower, equivalent,
                    inconclusive, undecided, one-run-only and skipped
                    cells; NOISY cells in regimes judged repetition
                    against repetition (a false "faster" by the shift
                    alone); --delta; setup warnings; the summary lines
  plot_smoke        synthetic run: gnuplot really runs; PNG magic, SVG
                    well-formed and non-empty; specialised plots appear
                    only where their rows exist
  report            report.md: tables, intervals (n/a with too few
                    repetitions), withheld percentiles, skipped reasons,
                    plots
Ends with `matrix: N passed, N failed` (tests/run.py reads it).
"""

import argparse
import csv
import glob
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET

FL = "build/futexlab"
VERBOSE = False
NCPUS = os.cpu_count() or 1

COLUMNS = ("cell,workload,backend,threads,placement,cpus,options,rep,status,"
           "reason,note,duration_ns,elapsed_ns,ops,ops_per_sec,"
           "ops_per_sec_per_thread,lat_count,lat_p50_ns,lat_p90_ns,"
           "lat_p99_ns,lat_p999_ns,lat_max_ns,lat_mean_ns,jain,"
           "thread_ops_min,thread_ops_max,extra,hist").split(",")


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def fl(*args, timeout=120, check_rc=None):
    r = subprocess.run([FL] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    if VERBOSE:
        print("$ futexlab %s -> %d" % (" ".join(args), r.returncode))
    if check_rc is not None and r.returncode != check_rc:
        raise Failure("futexlab %s: exit %d, expected %d\nstdout: %s\n"
                      "stderr: %s" % (" ".join(args), r.returncode, check_rc,
                                      r.stdout[-2000:], r.stderr[-2000:]))
    return r


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def listed(path):
    """futexlab matrix --list: [(cell, exp, workload, backend, threads,
    placement, options)]"""
    r = fl("matrix", "--list", path, check_rc=0)
    rows = []
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            continue
        f = line.split(" ")
        rows.append((int(f[0]), f[1], f[2], f[3], int(f[4]), f[5], f[6]))
    return rows


# ---------------------------------------------------------------- parsing

def test_parse_good(tmp):
    path = write(os.path.join(tmp, "good.ini"), """\
; comments and blank lines are fine
[defaults]
duration = 0.05
reps = 2
threads = 1, 2

[experiment a]
workload = mutex
backend = futex-private,spin
algo = mutex3,mutex2
critical = 200

[experiment b.second]
workload = hash
backend = futex2
threads = 3
futexes = 16
placement = compact scatter
""")
    rows = listed(path)
    expect = []
    # fl_spec order: backends outermost, then options, placements, threads
    for b in ("futex-private", "spin"):
        for algo in ("mutex3", "mutex2"):
            for t in (1, 2):
                expect.append(("a", "mutex", b, t, "compact",
                               "algo=%s;critical=200;think=0;spin=100" % algo))
    for p in ("compact", "scatter"):
        expect.append(("b.second", "hash", "futex2", 3, p,
                       "futexes=16;shared=no"))
    check([r[1:] for r in rows] == expect,
          "expansion differs:\n got %s\nwant %s" % ([r[1:] for r in rows],
                                                   expect))
    check([r[0] for r in rows] == list(range(len(expect))),
          "cell indices are not 0..N-1")


def test_threads_syntax(tmp):
    cases = [
        ("1..8", [1, 2, 4, 8]),
        ("3..12", [3, 6, 12]),
        ("1..5", [1, 2, 4, 5]),
        ("cpus", [NCPUS]),
        ("2*cpus", [2 * NCPUS]),
        # values that only meet on this machine merge; an item written
        # twice is an error (GOLDEN below)
        ("1, cpus", [1] + ([NCPUS] if NCPUS != 1 else [])),
        ("cpus/2", [max(1, NCPUS // 2)]),
    ]
    for text, want in cases:
        path = write(os.path.join(tmp, "t.ini"), "[experiment t]\n"
                     "workload = hash\nthreads = %s\n" % text)
        got = [r[4] for r in listed(path)]
        check(got == want, "threads = %s gave %s, want %s" % (text, got,
                                                              want))


# Each case: file text, the expected message after "FILE:" (exact, or a
# prefix when it ends with "..."), for a file named bad.ini.
GOLDEN = [
    ("[experiment x]\nworkload = mutex\nthreads = 1, 2, 1\n",
     "3: threads: '1' is given twice in '1,2,1'"),
    ("[defaults]\nreps = 2\n[experiments x]\nworkload = mutex\n",
     "3: unknown section [experiments x]: expected [defaults] or "
     "[experiment NAME]"),
    ("[defaults]\nrepetitions = 2\n[experiment x]\nworkload = mutex\n",
     "2: unknown key 'repetitions' in [defaults] (known: backend, threads, "
     "placement, duration, warmup, reps, reps-max, time-budget, seed, "
     "hash-slots, sample, bin)"),
    ("[experiment x]\nworkload = mutex\nalgorithm = pi\n",
     "3: unknown key 'algorithm' in [experiment x] (known for workload "
     "mutex: backend, threads, placement, duration, warmup, reps, "
     "reps-max, time-budget, seed, hash-slots, sample, bin, algo, "
     "critical, think, spin)"),
    ("[experiment x]\nworkload = mutexx\n",
     "2: workload: unknown workload 'mutexx' (known: ..."),
    ("[experiment x]\nworkload = mutex\nbackend = futex-private,futex3\n",
     "3: backend: unknown backend 'futex3' (known: ..."),
    ("[defaults]\nreps = many\n[experiment x]\nworkload = mutex\n",
     "2: reps: 'many' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nreps = -3\n",
     "3: reps: '-3' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nduration = -1\n",
     "3: duration: '-1' is not a number of seconds (e.g. 1 or 0.5, above "
     "0, at most one day)"),
    ("[experiment x]\nworkload = mutex\nthreads = 1,-2\n",
     "3: threads: '-2' is not a thread count from 1 to 1024 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
    ("[experiment x]\nworkload = mutex\nthreads = two\n",
     "3: threads: 'two' is not a thread count from 1 to 1024 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
    ("[experiment x]\nworkload = mutex\nthink = -5\n",
     "3: think: '-5' is not a duration (e.g. 100, 100ns, 5us, 2ms)"),
    ("[experiment x]\nworkload = mutex\nalgo = mutex3,mutex9\n",
     "3: algo: unknown value 'mutex9' (choose from mutex3, mutex2, pi, "
     "spin-then-wait, adaptive, pthread, pthread-adaptive, pthread-pi)"),
    ("[experiment x]\nworkload = mutex\nthreads =\n",
     "3: threads: empty list: the experiment would have no cells"),
    ("[experiment x]\nworkload = mutex\nbackend = \n",
     "3: backend: empty list: the experiment would have no cells"),
    ("[experiment x]\nworkload = mutex\nalgo =\n",
     "3: algo: empty value: the experiment would have no cells"),
    ("[defaults]\nreps = 2\n\n[experiment x]\nbackend = spin\n",
     "4: [experiment x] has no 'workload =' key"),
    ("[experiment x]\nworkload = mutex\nreps = 2\nreps = 3\n",
     "4: duplicate key 'reps' in [experiment x] (first at line 3)"),
    ("[experiment x]\nworkload = mutex\n[experiment x]\nworkload = hash\n",
     "3: duplicate section [experiment x] (first at line 1)"),
    ("reps = 2\n[experiment x]\nworkload = mutex\n",
     "1: 'reps' is outside any section: put it under [defaults] or an "
     "[experiment NAME]"),
    ("[experiment x]\nworkload = mutex\njust some words\n",
     "3: not a 'key = value' line, a [section] or a comment"),
    ("[defaults]\nreps = 2\n",
     "2: no [experiment NAME] section: nothing to run"),
    ("[experiment a/b]\nworkload = mutex\n",
     "1: [experiment a/b]: name the experiment with letters, digits, '-', "
     "'_' or '.'"),
    ("[experiment x]\nworkload = mutex\nplacement = 4096\n",
     "3: placement: ..."),
    # two problems: the earliest line is the one reported
    ("[experiment x]\nworkload = mutex\nreps = 0\nthreads = 0\n",
     "3: reps: '0' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nthreads = 0\nreps = 0\n",
     "3: threads: '0' is not a thread count from 1 to 1024 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
]


def test_golden_errors(tmp):
    results = os.path.join(tmp, "results")
    path = os.path.join(tmp, "bad.ini")
    for text, want in GOLDEN:
        write(path, text)
        r = fl("matrix", path, "--results", results)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2, "%r: exit %d, expected 2" % (text,
                                                             r.returncode))
        check(len(lines) == 1, "%r: %d lines on stderr: %r" % (
            text, len(lines), r.stderr))
        got = lines[0]
        prefix = path + ":"
        if want.endswith("..."):
            ok = got.startswith(prefix + want[:-3])
        else:
            ok = got == prefix + want
        check(ok, "%r:\n got  %s\n want %s%s" % (text, got, prefix, want))
        check(not os.path.exists(results) or not os.listdir(results),
              "%r: a run directory was created for a bad file" % text)
    r = fl("matrix", os.path.join(tmp, "missing.ini"))
    check(r.returncode == 2 and "missing.ini: cannot read" in r.stderr,
          "a missing file: exit %d, %r" % (r.returncode, r.stderr))


# ----------------------------------------------------------------- resume

def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_resume_after_kill(tmp):
    results = os.path.join(tmp, "results")
    ini = os.path.join(tmp, "m.ini")
    text = """\
[defaults]
duration = 0.05
warmup = 0
reps = 2

[experiment m]
workload = mutex
backend = futex-private,spin
threads = 1,2
algo = mutex3,pi

[experiment h]
workload = hash
backend = futex-private,futex-shared
threads = 1,2
"""
    write(ini, text)
    plan = listed(ini)
    ncells = len(plan)
    # every cell that runs has 2 repetitions, one per pass, each a visit
    proc = subprocess.Popen([FL, "matrix", ini, "--results", results],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    partial = None
    deadline = time.monotonic() + 60
    killed_after = 0
    while time.monotonic() < deadline and proc.poll() is None:
        dirs = glob.glob(os.path.join(results, ".partial-*"))
        if dirs:
            partial = dirs[0]
            try:
                with open(os.path.join(partial, "cells.csv")) as f:
                    nlines = f.read().count("\n") - 1
            except OSError:
                nlines = 0
            if nlines >= 6:    # six visits, one row each
                kids = children(proc.pid)
                os.kill(proc.pid, signal.SIGKILL)
                for k in kids:  # the cell in progress: do not leave it
                    try:
                        os.kill(k, signal.SIGKILL)
                    except OSError:
                        pass
                killed_after = nlines
                break
        time.sleep(0.005)
    proc.wait()
    check(killed_after, "the matrix run ended before it could be killed")
    check(partial and os.path.isdir(partial), "no partial directory")
    finals = [d for d in os.listdir(results) if not d.startswith(".")]
    check(not finals, "a killed run has a final directory: %s" % finals)
    cells_csv = os.path.join(partial, "cells.csv")
    before = open(cells_csv).read()
    kept_before = [ln for ln in before.splitlines(True)[1:]
                   if ln.endswith("\n")]
    # the passes planned so far say which cell and repetition each visit
    # is (matrix.json keeps them for the resume)
    import json
    state = json.load(open(os.path.join(partial, "matrix.json")))
    visit_of = []
    for cell in [c for pas in state["passes"] for c in pas]:
        visit_of.append((cell, sum(1 for v in visit_of if v[0] == cell)))
    # a kill in the middle of a write leaves a torn line
    with open(cells_csv, "a") as f:
        f.write("%d,mutex,futex-pri" % (ncells - 1))

    # a changed matrix file is refused, naming what changed
    write(ini, text.replace("threads = 1,2\nalgo", "threads = 1,2,3\nalgo"))
    r = fl("matrix", "--resume", partial)
    check(r.returncode == 2, "resume with a changed file: exit %d" %
          r.returncode)
    check("changed since the run started" in r.stderr and
          "[experiment m] threads: '1,2' is now '1,2,3'" in r.stderr,
          "the refusal does not say what changed: %r" % r.stderr)
    check(os.path.isdir(partial), "a refused resume touched the directory")
    write(ini, text.replace("; nothing", "") + "; a comment changes "
          "nothing\n")

    r = fl("matrix", "--resume", partial, timeout=120)
    check(r.returncode == 0, "resume: exit %d: %s" % (r.returncode,
                                                       r.stderr))
    final = r.stdout.strip().splitlines()[-1]
    check(os.path.isdir(final) and not os.path.exists(partial),
          "not renamed into place: %s" % final)
    check(os.path.basename(final) in os.path.basename(partial),
          "the final name %s is not the partial run's" % final)
    rows = rows_of(os.path.join(final, "cells.csv"))
    seen = {}
    for row in rows:
        seen.setdefault(int(row["cell"]), []).append(int(row["rep"]))
    check(sorted(seen) == list(range(ncells)),
          "cells missing: %s" % sorted(set(range(ncells)) - set(seen)))
    skipped = {int(x["cell"]) for x in rows if x["status"] == "skipped"}
    for c, reps in seen.items():
        # a skipped cell would say the same again: one visit
        want = [0] if c in skipped else [0, 1]
        check(sorted(reps) == want, "cell %d has repetitions %s" % (c,
                                                                   reps))
    nvisits = 2 * ncells - len(skipped)
    progress = [ln for ln in r.stdout.splitlines() if ln.startswith("[")]
    # visits are planned pass by pass: N grows to the whole run's count
    check(progress and ("/%d]" % nvisits) in progress[-1],
          "progress lines do not say 'i/N': %r" % progress)
    check(len(progress) == nvisits - killed_after,
          "the resume ran %d visits; %d were missing" % (
              len(progress), nvisits - killed_after))


    for row in rows:
        p = plan[int(row["cell"])]
        check((row["workload"], row["backend"], int(row["threads"]),
               row["placement"], row["options"]) ==
              (p[2], p[3], p[4], p[5], p[6]),
              "cell %s is not the matrix's: %s" % (row["cell"], row))
        check(os.path.isfile(os.path.join(final, row["hist"])),
              "no histogram %s" % row["hist"])
    # the visits finished before the kill were kept, not run again: each
    # is its cell's row for that repetition, measurement unchanged
    after = open(os.path.join(final, "cells.csv")).read()
    final_rows = {(int(x["cell"]), int(x["rep"])): x for x in rows}
    for old in csv.DictReader(io.StringIO(",".join(COLUMNS) + "\n" +
                                          "".join(kept_before))):
        k = int(old["cell"])
        new = final_rows[visit_of[k]]
        for col in ("workload", "backend", "options", "status",
                    "elapsed_ns", "ops", "lat_p99_ns"):
            check(old[col] == new[col], "visit %d's %s changed: %r -> %r"
                  % (k, col, old[col], new[col]))
    check("mutex,futex-pri\n" not in after and after.endswith("\n"),
          "the torn line survived")
    for name in ("meta.json", "matrix.ini", "matrix.json"):
        check(os.path.isfile(os.path.join(final, name)), "no %s" % name)
    import json
    meta = json.load(open(os.path.join(final, "meta.json")))
    check(len(meta.get("resumed", [])) == 1, "meta.json lists %r resumes"
          % meta.get("resumed"))
    check(meta["cells"]["total"] == ncells, "meta cells.total %r" %
          meta["cells"])
    # a finished run is never modified
    r = fl("matrix", "--resume", final)
    check(r.returncode == 2 and "finished run" in r.stderr,
          "resuming a finished run: exit %d %r" % (r.returncode, r.stderr))


# ---------------------------------------------------------------- compare

def hist_text(values):
    """A histogram file for the given latencies (ns, all below 256)."""
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    lines = ["# count=%d sum=%d min=%d max=%d" % (len(values), sum(values),
                                                  min(values), max(values)),
             "low_ns,high_ns,count"]
    for v in sorted(counts):
        lines.append("%d,%d,%d" % (v, v, counts[v]))
    return "\n".join(lines) + "\n"


BUSY_COLUMNS = ["busy_loops_per_us_start", "busy_loops_per_us_end"]


def fake_run(path, cells, kernel="6.1.0", host="labhost", meta_extra=None,
             busy=None):
    """cells: [(workload, backend, threads, options, status, [ops/s per
    rep], extra)]; latencies scale with 1/ops so plots have shape.
    busy(cell, rep): the busy loop's (start, end) speeds, columns that
    runs before them lack when busy is None."""
    os.makedirs(os.path.join(path, "hist"))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS + (BUSY_COLUMNS if busy else []))
    for i, (wl, be, th, opts, status, ops, extra) in enumerate(cells):
        hist = "hist/cell-%04d.csv" % i
        lat = [20 + (i * 7 + k) % 200 for k in range(200)]
        write(os.path.join(path, hist), hist_text(lat))
        for rep, v in enumerate(ops):
            row = dict.fromkeys(COLUMNS, "0")
            row.update(cell=i, workload=wl, backend=be, threads=th,
                       placement="compact", cpus="0", options=opts, rep=rep,
                       status=status, reason="backend lacks pi"
                       if status == "skipped" else "", note="",
                       ops_per_sec=v, lat_p50_ns=int(1e9 / max(v, 1)),
                       lat_p90_ns=int(2e9 / max(v, 1)),
                       lat_p99_ns=int(4e9 / max(v, 1)) + rep,
                       lat_p999_ns=int(8e9 / max(v, 1)), jain=0.9 + rep / 100,
                       extra=extra, hist=hist)
            w.writerow([row[c] for c in COLUMNS] +
                       (list(busy(i, rep)) if busy else []))
    write(os.path.join(path, "cells.csv"), out.getvalue())
    import json
    meta = {"machine": {"hostname": host, "kernel": kernel,
                        "cpu_model": "Test CPU", "governor": "none",
                        "topology": {"cpus_online": 2, "numa_nodes": 1}},
            "cells": {"total": len(cells)}}
    meta.update(meta_extra or {})
    write(os.path.join(path, "meta.json"), json.dumps(meta))


def reps(level, spread, n=8):
    """n repetitions around level, spread apart (relative), in a fixed
    shuffled order"""
    return [level * (1 + spread * ((k * 5) % n - (n - 1) / 2) / n)
            for k in range(n)]


# A cell whose repetitions come in two regimes (1 and 2 M/s), run twice
# on the same machine: B caught more of the fast regime than A. The shift
# interval calls that "faster" (1.95 [1.06, 2.00]); repetition against
# repetition ([1.01, 2.05]) it is inconclusive.
REGIMES_A = [1.00e6, 1.01e6, 1.02e6, 1.03e6, 1.04e6, 1.05e6, 1.06e6, 2.00e6]
REGIMES_B = [1.07e6, 2.00e6, 2.01e6, 2.02e6, 2.03e6, 2.04e6, 2.05e6, 2.06e6]


def test_compare_verdicts(tmp):
    m = "algo=mutex3"
    a = [("mutex", "futex-private", 1, m, "ok", reps(100, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(100, 0.02), ""),
         ("mutex", "futex-private", 4, m, "ok", reps(100, 0.005), ""),
         ("mutex", "spin", 1, m, "ok", [100, 101, 99], ""),
         ("mutex", "spin", 2, m, "ok", reps(100, 0.02), ""),
         ("mutex", "spin", 4, "algo=pi", "skipped", [0, 0], ""),
         ("hash", "futex2", 1, "", "ok", reps(50, 0.2), ""),
         ("condvar", "futex2", 1, "wake=all", "ok", reps(50, 0.02), ""),
         # NOISY, in two regimes: the same machine twice, then hogged
         ("mutex", "futex-shared", 1, m, "ok", REGIMES_A, ""),
         ("mutex", "futex-shared", 2, m, "ok", REGIMES_A, "")]
    b = [("mutex", "futex-private", 1, m, "ok", reps(110, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(90, 0.02), ""),
         ("mutex", "futex-private", 4, m, "ok", reps(100.2, 0.005), ""),
         ("mutex", "spin", 1, m, "ok", [200, 201, 199], ""),
         ("mutex", "spin", 4, "algo=pi", "ok", reps(10, 0.02), ""),
         ("hash", "futex2", 1, "", "ok", reps(51, 0.2), ""),
         ("hash", "futex2", 2, "", "ok", reps(70, 0.02), ""),
         ("condvar", "futex2", 1, "wake=all;rt=0", "ok", reps(50, 0.02),
          ""),
         ("mutex", "futex-shared", 1, m, "ok", REGIMES_B, ""),
         ("mutex", "futex-shared", 2, m, "ok", [v / 4 for v in REGIMES_B],
          "")]
    ra, rb = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    fake_run(ra, a, kernel="6.1.0", meta_extra={"settings": {"reps": 6}})
    # a quarter of B's repetitions ran on a CPU 40% slower at their end
    fake_run(rb, b, kernel="6.2.0", meta_extra={"foreign_cpu_share": 0.4,
                                                "settings": {"reps": 8}},
             busy=lambda i, rep: (3700, 2200 if rep % 4 == 1 else 3690))
    out = os.path.join(tmp, "cmp")
    r = fl("compare", ra, rb, "--out", out, check_rc=0)
    check("differ in kernel: '6.1.0' against '6.2.0'" in r.stderr,
          "no kernel warning: %r" % r.stderr)
    check("differ in settings" in r.stderr, "no settings warning")
    check("differ in host" not in r.stderr, "a false host warning")
    check(re.search(r"speed moved by more than 10% during \d+ of \d+ "
                    r"repetitions of B ", r.stderr) and
          "repetitions of A " not in r.stderr,
          "busy-host warning: %r" % r.stderr)
    check("workload condvar has options 'wake' in A but 'wake,rt' in B"
          in r.stderr, "no warning about the option sets: %r" % r.stderr)
    check("other processes used 40% of the CPU time during B" in r.stderr
          and "during A" not in r.stderr, "busy-machine warning: %r" %
          r.stderr)
    rows = rows_of(os.path.join(out, "compare.csv"))
    got = {(x["workload"], x["backend"], x["threads"], x["options"]):
           (x["verdict"], x["reason"]) for x in rows}
    want = {
        ("mutex", "futex-private", "1", m): "faster",
        ("mutex", "futex-private", "2", m): "slower",
        ("mutex", "futex-private", "4", m): "equivalent",
        ("mutex", "spin", "1", m): "undecided",
        ("mutex", "spin", "2", m): "not comparable",
        ("mutex", "spin", "4", "algo=pi"): "not comparable",
        ("hash", "futex2", "1", ""): "inconclusive",
        ("hash", "futex2", "2", ""): "not comparable",
        ("condvar", "futex2", "1", "wake=all"): "not comparable",
        ("condvar", "futex2", "1", "wake=all;rt=0"): "not comparable",
        ("mutex", "futex-shared", "1", m): "inconclusive",
        ("mutex", "futex-shared", "2", m): "slower",
    }
    check(set(got) == set(want), "cells: got %s" % sorted(got))
    for k, v in want.items():
        check(got[k][0] == v, "%s: verdict %r, want %r" % (k, got[k][0], v))
    check(got[("mutex", "futex-shared", "1", m)][1] == "NOISY in both: "
          "interval of repetition against repetition",
          "NOISY cell's interval not named: %r" %
          (got[("mutex", "futex-shared", "1", m)],))
    check(got[("mutex", "spin", "2", m)][1] == "only in A",
          "one-run cell not listed as such: %r" % (got[("mutex", "spin",
                                                        "2", m)],))
    check(got[("hash", "futex2", "2", "")][1] == "only in B",
          "one-run cell (B) not listed")
    check("backend lacks pi" in got[("mutex", "spin", "4", "algo=pi")][1],
          "the skip reason is not carried")
    fast = [x for x in rows if x["threads"] == "1" and
            x["backend"] == "futex-private"][0]
    check(abs(float(fast["ratio"]) - 1.1) < 1e-3, "ratio %s" % fast["ratio"])
    check(float(fast["ratio_lo"]) > 1.02 and float(fast["p_adjusted"]) <
          0.05, "interval or p: %r" % fast)
    check(fast["delta"] == "0.02", "delta not recorded: %r" % fast)
    md = open(os.path.join(out, "compare.md")).read()
    check("| faster |" in md and "kernel differs" in md,
          "compare.md lacks the verdicts or the warning")
    png = open(os.path.join(out, "ratios.png"), "rb").read()
    check(png.startswith(b"\x89PNG\r\n\x1a\n"), "ratios.png is not a PNG")
    check("1 faster, 2 slower, 1 equivalent, 2 inconclusive, 1 undecided, "
          "5 not comparable" in r.stdout,
          "summary line: %r" % r.stdout.splitlines()[-4:])
    check("overall: geometric mean of B's speed relative to A over 7 "
          "cells" in r.stdout, "no overall summary: %r" % r.stdout)
    # a wider margin makes the 10% cells... still faster; 15% makes them
    # inconclusive, never equivalent
    r = fl("compare", ra, rb, "--out", out, "--delta", "10", "--no-plot",
           check_rc=0)
    rows = rows_of(os.path.join(out, "compare.csv"))
    check([x["verdict"] for x in rows][:3] == ["inconclusive",
                                                "inconclusive",
                                                "equivalent"],
          "--delta 10: %r" % [x["verdict"] for x in rows][:3])
    r = fl("compare", ra)
    check(r.returncode == 2, "one run: exit %d" % r.returncode)
    r = fl("compare", ra, os.path.join(tmp, "nope"))
    check(r.returncode == 2 and "not a run directory" in r.stderr,
          "missing run: %d %r" % (r.returncode, r.stderr))


# ------------------------------------------------------------ plot/report

def synthetic_run(path):
    cells = []
    for be, base in (("futex-private", 1000000), ("spin", 3000000)):
        for t in (1, 2, 4):
            cells.append(("mutex", be, t, "algo=mutex3;critical=100", "ok",
                          [base / t, base / t * 1.05, base / t * 0.97],
                          "violations=0;wait_calls=%d" % (t * 10)))
    cells.append(("mutex", "spin", 4, "algo=pi;critical=100", "skipped",
                  [0, 0, 0], ""))
    for be in ("futex-private", "futex-shared"):
        for wake in ("all", "requeue", "requeue-pi"):
            cells.append(("condvar", be, 4, "wake=%s;critical=1000" % wake,
                          "ok", [5000, 5200, 4800], "rounds=100"))
    cells.append(("hash", "futex2", 2, "futexes=1024", "skipped",
                  [0, 0, 0], ""))
    fake_run(path, cells, meta_extra={"workloads": {"mutex": {
        "summary": "contended mutex", "ops_unit": "acquisitions",
        "latency": "acquire latency", "counters": []}}})
    return cells


def valid_png(path):
    data = open(path, "rb").read()
    return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000


def valid_svg(path):
    root = ET.parse(path).getroot()
    drawn = [e for e in root.iter() if e.tag.split("}")[-1] in
             ("path", "polyline", "polygon", "line", "rect")]
    return root.tag.split("}")[-1] == "svg" and len(drawn) > 10


def test_plot_smoke(tmp):
    run = os.path.join(tmp, "run")
    synthetic_run(run)
    r = fl("plot", run, check_rc=0, timeout=120)
    plots = os.path.join(run, "plots")
    want = ["mutex-throughput", "mutex-latency", "mutex-cdf",
            "mutex-fairness", "condvar-throughput", "condvar-wake"]
    for name in want:
        for ext in ("gp", "png", "svg"):
            check(os.path.isfile(os.path.join(plots, name + "." + ext)),
                  "no %s.%s" % (name, ext))
        check(valid_png(os.path.join(plots, name + ".png")),
              "%s.png is not a valid, non-empty PNG" % name)
        try:
            ok = valid_svg(os.path.join(plots, name + ".svg"))
        except ET.ParseError as e:
            raise Failure("%s.svg is not well-formed: %s" % (name, e))
        check(ok, "%s.svg draws nothing" % name)
    # only skipped rows: no plots; no pi or numa rows: no such plots
    for absent in ("hash-throughput.png", "pi-blocked.png",
                   "numa-locality.png"):
        check(not os.path.exists(os.path.join(plots, absent)),
              "%s drawn without rows to draw" % absent)
    # four per workload with ok cells, and condvar's own
    check(r.stdout.strip().splitlines()[-1].startswith("9 plots"),
          "plot count: %r" % r.stdout.splitlines()[-1])
    # a kept script reruns by itself in its directory
    for f in glob.glob(os.path.join(plots, "mutex-throughput.*")):
        if not f.endswith(".gp"):
            os.unlink(f)
    rr = subprocess.run(["gnuplot", "mutex-throughput.gp"], cwd=plots,
                        capture_output=True, text=True)
    check(rr.returncode == 0 and valid_png(os.path.join(
        plots, "mutex-throughput.png")), "the kept script does not rerun")
    r = fl("plot", os.path.join(tmp, "nope"))
    check(r.returncode == 2, "plot of a missing run: exit %d" % r.returncode)


def test_report(tmp):
    run = os.path.join(tmp, "run")
    synthetic_run(run)
    fl("plot", run, check_rc=0, timeout=120)
    r = fl("report", run, check_rc=0)
    path = os.path.join(run, "report.md")
    check(r.stdout.strip() == path, "report prints %r" % r.stdout)
    md = open(path).read()
    for needle in ("## Machine and kernel", "| kernel | 6.1.0",
                   "## mutex", "## condvar",
                   "acquisitions/s (median [95% CI])",
                   "![mutex: throughput against threads]"
                   "(plots/mutex-throughput.png)",
                   "## Skipped cells", "backend lacks pi"):
        check(needle in md, "report.md lacks %r" % needle)
    for img in [ln.split("](")[1].rstrip(")") for ln in md.splitlines()
                if ln.startswith("![")]:
        check(os.path.isfile(os.path.join(run, img)),
              "report.md shows a missing plot %s" % img)
    # 3 repetitions: no interval ("n/a"), never a width of 0%
    row = [ln for ln in md.splitlines() if ln.startswith("| 0 |")][0]
    check("| n/a |" in row and "NOISY" not in row, "row 0: %s" % row)
    # 200 samples: p99.9 withheld, the count beside it
    check("| n/e |" in row and "| 200 |" in row, "row 0: %s" % row)


TESTS = [test_parse_good, test_threads_syntax, test_golden_errors,
         test_resume_after_kill, test_compare_verdicts, test_plot_smoke,
         test_report]


def main():
    global FL, VERBOSE
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("-k", default="", help="run tests whose name has this")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    FL = os.path.abspath(os.path.join(args.builddir, "futexlab"))
    VERBOSE = args.v
    passed = failed = 0
    for t in TESTS:
        if args.k not in t.__name__:
            continue
        tmp = tempfile.mkdtemp(prefix="fl-matrix-")
        try:
            t(tmp)
            passed += 1
            print("ok %s" % t.__name__)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (t.__name__, e))
        except Exception:
            failed += 1
            print("FAIL %s:\n%s" % (t.__name__, traceback.format_exc()))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        sys.stdout.flush()
    print("matrix: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
