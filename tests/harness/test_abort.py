#!/usr/bin/env python3
"""A stuck cell is aborted and the run goes on to the next cell.

The cell's child process is frozen from outside with SIGSTOP, which is what
a hung workload looks like to the harness: no repetition finishes. The
parent must kill it after the repetition's deadline, print one message
naming the workload, backend and thread count, mark the cell's rows
aborted, run the next cell normally, and exit 1.

  tests/harness/test_abort.py --builddir build
"""

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    results = tempfile.mkdtemp(prefix="fl-abort-")
    cmd = [os.path.join(args.builddir, "futexlab"), "run", "mutex",
           "--backend", "futex-private,futex-shared", "--threads", "2",
           "--duration", "0.5", "--reps", "1", "--warmup", "0",
           "--results", results]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    frozen = None
    deadline = time.monotonic() + 10
    while frozen is None and time.monotonic() < deadline:
        kids = children(proc.pid)
        if kids:
            frozen = kids[0]
            os.kill(frozen, signal.SIGSTOP)
        else:
            time.sleep(0.005)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        print("FAIL: the run did not end 30 s after its cell froze")
        return 1
    failures = []
    if frozen is None:
        failures.append("never saw the cell's child process")
    if proc.returncode != 1:
        failures.append("exit status %d, expected 1" % proc.returncode)
    run_dir = out.strip().splitlines()[-1] if out.strip() else ""
    rows = []
    if os.path.isdir(run_dir):
        with open(os.path.join(run_dir, "cells.csv")) as f:
            rows = list(csv.DictReader(f))
    # the visits' order is shuffled from the seed: the first child to
    # appear is either cell's
    status = {r["backend"]: r["status"] for r in rows}
    if sorted(status) != ["futex-private", "futex-shared"] or \
            sorted(status.values()) != ["aborted", "ok"]:
        failures.append("row statuses %r: expected the frozen cell aborted "
                        "and the other one ok" % status)
    else:
        frozen_backend = [b for b in status if status[b] == "aborted"][0]
        expect = ("aborted cell: workload mutex, backend %s, 2 threads" %
                  frozen_backend)
        if expect not in err:
            failures.append("stderr lacks %r: %r" % (expect, err))
    for f in failures:
        print("FAIL: " + f)
    print("abort: %d passed, %d failed" % (0 if failures else 1,
                                          1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
