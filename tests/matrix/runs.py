"""What the tests of matrix, compare, plot and report share: running
build/futexlab, checks, and synthetic run directories written as
futexlab writes them (cells.csv, hist/, meta.json).

Not a test itself: test_matrix.py, test_compare.py and
test_plot_report.py import it and end with runs.main(TESTS, "name").
"""

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

FL = "build/futexlab"
VERBOSE = False

COLUMNS = ("cell,workload,backend,threads,placement,cpus,options,rep,status,"
           "reason,note,duration_ns,elapsed_ns,ops,ops_per_sec,"
           "ops_per_sec_per_thread,lat_count,lat_p50_ns,lat_p90_ns,"
           "lat_p99_ns,lat_p999_ns,lat_max_ns,lat_mean_ns,jain,"
           "thread_ops_min,thread_ops_max,extra,hist").split(",")


class Failure(Exception):
    pass


class Skip(Exception):
    """A test that cannot run here (a package missing), with the reason:
    counted as skipped, never as passed."""


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


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))



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
WAKE_COLUMNS = ["idle_wake_short_ns", "idle_wake_long_ns"]


def fake_run(path, cells, kernel="6.1.0", host="labhost", meta_extra=None,
             busy=None, idle_wake=None):
    """cells: [(workload, backend, threads, options, status, [ops/s per
    rep], extra)]; latencies scale with 1/ops so plots have shape.
    busy(cell, rep): the busy loop's (start, end) speeds, and
    idle_wake(cell, rep): the idle-wake probe's (short, long) ns, columns
    that runs before them lack when None."""
    os.makedirs(os.path.join(path, "hist"))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS + (BUSY_COLUMNS if busy else []) +
               (WAKE_COLUMNS if idle_wake else []))
    for i, (wl, be, th, opts, status, ops, extra) in enumerate(cells):
        hist = "hist/cell-%04d.csv" % i
        lat = [20 + (i * 7 + k) % 200 for k in range(200)]
        write(os.path.join(path, hist), hist_text(lat))
        for rep, v in enumerate(ops):
            row = dict.fromkeys(COLUMNS, "0")
            row.update(cell=i, workload=wl, backend=be, threads=th,
                       placement="compact",
                       cpus=",".join(["0"] * int(th)), options=opts, rep=rep,
                       status=status, reason="backend lacks pi"
                       if status == "skipped" else "", note="",
                       # a repetition that ran lasted (the reader
                       # refuses 0 on an ok row)
                       duration_ns=1000000000, elapsed_ns=1000000000,
                       ops_per_sec=v, lat_p50_ns=int(1e9 / max(v, 1)),
                       lat_p90_ns=int(2e9 / max(v, 1)),
                       lat_p99_ns=int(4e9 / max(v, 1)) + rep,
                       lat_p999_ns=int(8e9 / max(v, 1)), jain=0.9 + rep / 100,
                       extra=extra, hist=hist)
            w.writerow([row[c] for c in COLUMNS] +
                       (list(busy(i, rep)) if busy else []) +
                       (list(idle_wake(i, rep)) if idle_wake else []))
    write(os.path.join(path, "cells.csv"), out.getvalue())
    import json
    meta = {"machine": {"hostname": host, "kernel": kernel,
                        "cpu_model": "Test CPU", "governor": "none",
                        "topology": {"cpus_online": 2, "numa_nodes": 1}},
            "cells": {"total": len(cells)}}
    meta.update(meta_extra or {})
    write(os.path.join(path, "meta.json"), json.dumps(meta))


def drift_run(path, slow_passes, probe=False, slower=1.0, kernel="6.1.0"):
    """8 condvar cells (latency primary) and 8 steady hash cells, 8
    passes 20 s apart; condvar's wake-ups cost 10.5 us in the passes
    listed and 7.0 us in the others, for every cell at once. probe: each
    repetition records the idle-wake probe, whose short idle reads 38 us
    in the slow passes and 10.5 us in the others; slower: the code makes
    condvar's latency that many times longer."""
    cells, starts = [], []
    for i in range(16):
        wl = "condvar" if i < 8 else "hash"
        ops = []
        for k in range(8):
            if wl == "condvar":
                lat = (10500 if k in slow_passes else 7000) * (1 + k / 1000)
                ops.append(1e9 / (lat * slower))
            else:
                # noise that no pass shares: each cell its own order
                ops.append(5e5 * (1 + ((k * 3 + i * 5) % 8 - 3.5) / 1000))
        cells.append((wl, "futex2", 1 + i % 8, "", "ok", ops, ""))
        starts.append({"cell": i, "rep_start": [
            "2026-12-04T06:%02d:%02d.%03dZ" % (30 + (k * 20 + i) // 60,
                                              (k * 20 + i) % 60, 7 * k)
            for k in range(8)]})
    def idle_wake(i, k):
        # the probe's own noise, in no order the figures share
        jitter = 1 + ((k * 5 + i * 3) % 7 - 3) / 2000
        return (int((38000 if k in slow_passes else 10500) * jitter),
                int(40000 * jitter))

    fake_run(path, cells, kernel=kernel, meta_extra={
        "cells_reps": starts,
        "workloads": {"condvar": {"primary": "latency_p50"},
                      "hash": {"primary": "throughput"}}},
        idle_wake=idle_wake if probe else None)


def reps(level, spread, n=8):
    """n repetitions around level, spread apart (relative), in a fixed
    shuffled order"""
    return [level * (1 + spread * ((k * 5) % n - (n - 1) / 2) / n)
            for k in range(n)]


def main(tests, suite):
    """Run each test in a fresh temporary directory; end with the line
    `SUITE: N passed, N failed` that tests/run.py counts."""
    global FL, VERBOSE
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("-k", default="", help="run tests whose name has this")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    FL = os.path.abspath(os.path.join(args.builddir, "futexlab"))
    VERBOSE = args.v
    passed = failed = skipped = 0
    for t in tests:
        if args.k not in t.__name__:
            continue
        tmp = tempfile.mkdtemp(prefix="fl-matrix-")
        try:
            t(tmp)
            passed += 1
            print("ok %s" % t.__name__)
        except Skip as e:
            skipped += 1
            print("SKIP %s: %s" % (t.__name__, e))
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (t.__name__, e))
        except Exception:
            failed += 1
            print("FAIL %s:\n%s" % (t.__name__, traceback.format_exc()))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        sys.stdout.flush()
    print("%s: %d passed, %d failed%s" % (
        suite, passed, failed, ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0
