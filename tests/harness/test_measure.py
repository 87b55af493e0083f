#!/usr/bin/env python3
"""What a run records about its own measurement (docs/measurement.md).

- With --sample 1 every operation is timed: the histogram's count equals
  the operation count, in mutex (2 threads) and hash.
- By default hash times about one operation in 64, and cells.csv says so.
- Each repetition's bins (bins/cell-<i>-rep-<r>.csv) add up exactly to
  its operation count; cells.csv records the bin width, both
  calibrations of the busy loop and the speed the loop was sized by (no
  slower than the cell's own).
- `futexlab plot --timeline` draws a chosen cell, a line per repetition,
  and refuses a malformed bins file naming its file and line.
- --sample and --bin reject values out of range.
- A cell run as several visits (a repetition each) gives a note over all
  of them: pi's verdict counts every repetition's rounds, not the first
  visit's (needs SCHED_FIFO: skipped, and said, without it).
No timing is asserted.

  tests/harness/test_measure.py --builddir build
"""

import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)


def run(futexlab, results, workload, *flags):
    cmd = [futexlab, "run", workload, "--duration", "0.2", "--warmup", "0",
           "--results", results] + list(flags)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s" % (" ".join(cmd), out.returncode,
                                            out.stderr))
    run_dir = out.stdout.strip().splitlines()[-1]
    with open(os.path.join(run_dir, "cells.csv")) as f:
        return run_dir, list(csv.DictReader(f))


def bins_total(run_dir, cell, rep):
    path = os.path.join(run_dir, "bins", "cell-%04d-rep-%03d.csv"
                        % (cell, rep))
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("# bin_ns=") and lines[1] == "end_ns,ops"
    return sum(int(line.split(",")[1]) for line in lines[2:])


def check_rows(c, run_dir, rows, sample_every, every_op_timed):
    for row in rows:
        name = "%s rep %s" % (row["workload"], row["rep"])
        ops, lat = int(row["ops"]), int(row["lat_count"])
        c.check(row["status"] == "ok", "%s: status %s" % (name,
                                                         row["status"]))
        c.check(int(row["sample_every"]) == sample_every,
                "%s: sample_every %s, expected %d"
                % (name, row["sample_every"], sample_every))
        if every_op_timed:
            c.check(lat == ops, "%s: --sample 1 timed %d of %d operations"
                    % (name, lat, ops))
        else:
            c.check(0 < lat < ops, "%s: %d of %d operations timed"
                    % (name, lat, ops))
        c.check(row["bin_ns"] == "10000000", "%s: bin_ns %s"
                % (name, row["bin_ns"]))
        c.check(int(row["busy_loops_per_us_start"]) > 0 and
                int(row["busy_loops_per_us_end"]) > 0,
                "%s: busy-loop calibrations missing" % name)
        # the loop is sized by the fastest reading the run has seen,
        # never by a slower one of this cell's own (measure/busy_loop.h)
        c.check(int(row["busy_loops_per_us_used"]) >=
                int(row["busy_loops_per_us_start"]),
                "%s: sized by %s loops/us, slower than its own %s"
                % (name, row["busy_loops_per_us_used"],
                   row["busy_loops_per_us_start"]))
        # the idle-wake probe needs two CPUs to run on, which the harness
        # tests' machines have (os.sched_getaffinity: what it may use)
        wake = (int(row["idle_wake_short_ns"]), int(row["idle_wake_long_ns"]))
        if len(os.sched_getaffinity(0)) >= 2:
            c.check(wake[0] > 0 and wake[1] > 0,
                    "%s: idle-wake probe missing: %r" % (name, wake))
        else:
            c.check(wake == (0, 0), "%s: a probe on one CPU: %r"
                    % (name, wake))
        total = bins_total(run_dir, int(row["cell"]), int(row["rep"]))
        c.check(total == ops, "%s: bins add up to %d, ops %d"
                % (name, total, ops))


def check_verdict_over_visits(c, futexlab, results):
    """pi at 3 repetitions runs 3 visits; the cell's note (run --json)
    must count the rounds of all three."""
    out = subprocess.run([futexlab, "run", "pi", "--lock", "pi",
                          "--duration", "0.1", "--warmup", "0", "--reps",
                          "3", "--results", results, "--json"],
                         capture_output=True, text=True)
    c.check(out.returncode == 0, "pi --reps 3: exit %d, %s"
            % (out.returncode, out.stderr))
    if out.returncode:
        return
    doc = json.loads(out.stdout)
    cell = doc["cells"][0]
    if cell["status"] == "skipped":
        print("skip: pi needs SCHED_FIFO: %s" % cell.get("reason", ""))
        return
    with open(os.path.join(doc["run_dir"], "cells.csv")) as f:
        rows = list(csv.DictReader(f))
    rounds = sum(int(kv.split("=", 1)[1]) for r in rows
                 for kv in r["extra"].split(";") if kv.startswith("rounds="))
    said = re.search(r"of (\d+) rounds", cell["note"])
    c.check(len(rows) == 3 and said and int(said.group(1)) == rounds,
            "pi's verdict over %d repetitions with %d rounds says %r"
            % (len(rows), rounds, cell["note"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    futexlab = os.path.join(args.builddir, "futexlab")
    results = tempfile.mkdtemp(prefix="fl-measure-")
    c = Checks()

    mutex_dir, rows = run(futexlab, results, "mutex", "--threads", "2",
                          "--critical", "0", "--reps", "2", "--sample", "1")
    check_rows(c, mutex_dir, rows, 1, True)
    run_dir, rows = run(futexlab, results, "hash", "--sample", "1",
                        "--reps", "1")
    check_rows(c, run_dir, rows, 1, True)
    run_dir, rows = run(futexlab, results, "hash", "--reps", "1")
    check_rows(c, run_dir, rows, 64, False)

    out = subprocess.run([futexlab, "plot", mutex_dir, "--timeline", "0",
                          "--scripts-only"], capture_output=True, text=True)
    script = os.path.join(mutex_dir, "plots", "mutex-timeline-cell-0.gp")
    c.check(out.returncode == 0 and os.path.exists(script),
            "plot --timeline 0: exit %d, %s" % (out.returncode, out.stderr))
    if os.path.exists(script):
        text = open(script).read()
        c.check("$r0 << EOD" in text and "$r1 << EOD" in text,
                "the timeline script lacks a repetition's datablock")
    bad = sorted(glob.glob(os.path.join(mutex_dir, "bins", "*.csv")))[0]
    with open(bad, "a") as f:
        f.write("12,not-a-number\n")
    out = subprocess.run([futexlab, "plot", mutex_dir, "--timeline", "0",
                          "--scripts-only"], capture_output=True, text=True)
    c.check(out.returncode != 0 and os.path.basename(bad) + ":" in
            out.stderr, "a malformed bins file was not refused by name: "
            "exit %d, %r" % (out.returncode, out.stderr))

    check_verdict_over_visits(c, futexlab, results)

    for flag, value in (("--sample", "0"), ("--sample", "x"),
                        ("--bin", "100us"), ("--bin", "11s")):
        out = subprocess.run([futexlab, "run", "mutex", flag, value,
                              "--results", results],
                             capture_output=True, text=True)
        c.check(out.returncode == 2 and flag in out.stderr,
                "%s %s: exit %d, %r" % (flag, value, out.returncode,
                                        out.stderr))
    print("measure: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
