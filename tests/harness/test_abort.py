#!/usr/bin/env python3
"""A stuck cell is aborted and the run goes on to the next cell.

- The cell's child process is frozen from outside with SIGSTOP, which is
  what a hung workload looks like to the harness: no repetition finishes.
  The parent must kill it after the repetition's deadline, print one
  message naming the workload, backend and thread count, mark the cell's
  rows aborted, run the next cell normally, and exit 1.
- One thread of a running cell is held in a ptrace stop, a thread that
  never sees the stop flag: the cell's process must give up on it by
  itself and say so, "1 of 2 threads still running", in the cell's
  reason and in one line on stderr.

  tests/harness/test_abort.py --builddir build
"""

import argparse
import ctypes
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


def start(builddir, results, workload, backends, duration):
    """A run of one repetition of 2 threads a cell, no warm-up."""
    cmd = [os.path.join(builddir, "futexlab"), "run", workload,
           "--backend", backends, "--threads", "2", "--duration", duration,
           "--reps", "1", "--warmup", "0", "--results", results]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def rows_of(out):
    """cells.csv's rows of the run directory named last in run's output."""
    run_dir = out.strip().splitlines()[-1] if out.strip() else ""
    if not os.path.isdir(run_dir):
        return []
    with open(os.path.join(run_dir, "cells.csv")) as f:
        return list(csv.DictReader(f))


def frozen_cell(builddir, results):
    proc = start(builddir, results, "mutex", "futex-private,futex-shared",
                 "0.5")
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
        return ["the run did not end 30 s after its cell froze"]
    failures = []
    if frozen is None:
        failures.append("never saw the cell's child process")
    if proc.returncode != 1:
        failures.append("exit status %d, expected 1" % proc.returncode)
    rows = rows_of(out)
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
    return failures


PTRACE_SEIZE, PTRACE_INTERRUPT = 0x4206, 0x4207
WALL = 0x40000000


def hold_thread(tid):
    """Stop one thread, and that thread alone, in a ptrace stop: 0 or
    the errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                            ctypes.c_void_p]
    if libc.ptrace(PTRACE_SEIZE, tid, None, None) or \
            libc.ptrace(PTRACE_INTERRUPT, tid, None, None):
        return ctypes.get_errno()
    return 0


def reap(tid):
    """The held thread's events, its exit among them: left unreaped, its
    process could not end."""
    while True:
        try:
            pid, _ = os.waitpid(tid, os.WNOHANG | WALL)
        except ChildProcessError:
            return
        if pid == 0:
            return


def stuck_thread(builddir, results):
    proc = start(builddir, results, "hash", "futex-private", "2")
    held, err = None, 0
    deadline = time.monotonic() + 10
    while held is None and time.monotonic() < deadline:
        kids = children(proc.pid)
        tasks = os.listdir("/proc/%d/task" % kids[0]) if kids else []
        # the controller and both threads: the idle-wake probe before
        # them makes one thread only
        if len(tasks) >= 3:
            # well inside the 2 s the threads run, past their start
            time.sleep(0.3)
            held = [int(t) for t in tasks if int(t) != kids[0]][0]
            err = hold_thread(held)
        else:
            time.sleep(0.005)
    end = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < end:
        if held and not err:
            reap(held)
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
        return ["a thread held: the run did not end in 30 s"]
    out, stderr = proc.communicate()
    if held is None or err:
        return ["could not hold a thread of the cell (%s)"
                % (os.strerror(err) if err else "none seen")]
    failures = []
    rows = rows_of(out)
    reason = rows[0]["reason"] if rows else ""
    if proc.returncode != 1 or len(rows) != 1 or \
            rows[0]["status"] != "aborted" or \
            "1 of 2 threads still running" not in reason:
        failures.append("a thread held: exit %d, rows %r"
                        % (proc.returncode, rows))
    lines = [ln for ln in stderr.splitlines() if "aborted cell" in ln]
    if len(lines) != 1 or "1 of 2 threads still running" not in lines[0]:
        failures.append("a thread held: stderr is not one line naming "
                        "it: %r" % stderr)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    results = tempfile.mkdtemp(prefix="fl-abort-")
    cases = [frozen_cell(args.builddir, results),
             stuck_thread(args.builddir, results)]
    for f in sum(cases, []):
        print("FAIL: " + f)
    failed = sum(1 for c in cases if c)
    print("abort: %d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
