#!/usr/bin/env python3
"""The lock algorithms of mutex and the chain of pi (docs/adaptive.md,
docs/workloads-condvar-pi.md), as behaviour, never timing.

- glibc's mutexes (mutex --algo pthread, pthread-adaptive, pthread-pi) run
  on futex-private and futex-shared, and every other backend skips them
  with a reason that names glibc, the backend and where they do run;
  --algo adaptive is skipped for want of capability adaptive on every
  backend without it.
- spin-then-wait with --spin 0 never takes the lock while spinning (its
  counter spin_acquired stays 0) and still sleeps (wait_calls > 0 with two
  threads on one CPU).
- pi --chain 3 starts five threads (the three roles and two owners),
  reports levels 2 and 3 and nothing above, on plain and PI locks; pi
  --chain 1 reports no level. Skipped without SCHED_FIFO (not root).

  tests/workloads/test_locks.py --builddir build
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SIZE = ["--duration", "0.1", "--reps", "1", "--warmup", "0"]


class Checks:
    def __init__(self):
        self.passed, self.failed, self.skipped = 0, 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)


def run(futexlab, results, workload, *flags):
    """The run's cells.csv rows, or None with the reason printed."""
    cmd = [futexlab, "run", workload, "--results", results] + SIZE + \
        list(flags)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    lines = out.stdout.strip().splitlines()
    if out.returncode not in (0, 3) or not lines:
        print("FAIL: %s: exit %d\n%s" % (" ".join(cmd), out.returncode,
                                         out.stderr))
        return None
    with open(os.path.join(lines[-1], "cells.csv")) as f:
        return list(csv.DictReader(f))


def extra(row):
    return dict(kv.split("=", 1) for kv in row["extra"].split(";") if kv)


def option(row, name):
    return dict(kv.split("=", 1) for kv in row["options"].split(";"))[name]


def libc_mapping(c, futexlab, results):
    rows = run(futexlab, results, "mutex", "--threads", "2", "--backend",
               "futex-private,futex-shared,futex2,spin", "--algo",
               "pthread,pthread-adaptive,pthread-pi,adaptive")
    if rows is None:
        c.check(False, "mutex with glibc's mutexes ran")
        return
    c.check(len(rows) == 16, "16 rows, got %d" % len(rows))
    for row in rows:
        algo, backend = option(row, "algo"), row["backend"]
        what = "mutex %s on %s: %s %r" % (algo, backend, row["status"],
                                         row["reason"])
        if algo == "adaptive":
            c.check(row["status"] == "skipped" and
                    "lacks capability adaptive" in row["reason"], what)
        elif backend in ("futex-private", "futex-shared"):
            c.check(row["status"] == "ok" and int(row["ops"]) > 0, what)
        elif algo == "pthread-pi":
            c.check(row["status"] == "skipped" and
                    "lacks capability pi" in row["reason"], what)
        else:
            c.check(row["status"] == "skipped" and
                    "glibc" in row["reason"] and
                    backend in row["reason"] and
                    "futex-private" in row["reason"] and
                    "PTHREAD_PROCESS_SHARED" in row["reason"], what)


def spin_zero(c, futexlab, results):
    rows = run(futexlab, results, "mutex", "--threads", "2", "--backend",
               "futex-private", "--algo", "spin-then-wait", "--spin", "0",
               "--placement", "0,0")
    if rows is None:
        c.check(False, "spin-then-wait --spin 0 ran")
        return
    row = rows[0]
    x = extra(row)
    c.check(row["status"] == "ok", "spin-then-wait --spin 0: %s %r"
            % (row["status"], row["reason"]))
    c.check(x.get("spin_acquired") == "0",
            "--spin 0 took the lock while spinning: %r" % row["extra"])
    c.check(int(x.get("wait_calls", 0)) > 0,
            "two threads on one CPU never slept: %r" % row["extra"])


def pi_chain(c, futexlab, results):
    rows = run(futexlab, results, "pi", "--backend", "futex-private",
               "--lock", "plain,pi", "--chain", "1,3")
    if rows is None:
        c.check(False, "pi --chain ran")
        return
    if all(r["status"] == "skipped" and "CAP_SYS_NICE" in r["reason"]
           for r in rows):
        c.skipped += 1
        print("skip pi --chain: %s" % rows[0]["reason"])
        return
    c.check(len(rows) == 4, "4 rows, got %d" % len(rows))
    for row in rows:
        chain = int(option(row, "chain"))
        x = extra(row)
        what = "pi lock=%s chain=%d" % (option(row, "lock"), chain)
        c.check(row["status"] == "ok", "%s: %s %r" % (what, row["status"],
                                                     row["reason"]))
        threads = len(row["cpus"].split(","))
        c.check(threads == chain + 2, "%s started %d threads" % (what,
                                                               threads))
        for level in range(2, 7):
            v = int(x.get("level%d_max_ns" % level, -1))
            c.check(v > 0 if level <= chain else v == 0,
                    "%s: level%d_max_ns %d" % (what, level, v))
        c.check(("k=3" in row["note"]) == (chain == 3) and
                "k=4" not in row["note"],
                "%s: note %r" % (what, row["note"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="fl-locks-") as results:
        libc_mapping(c, futexlab, results)
        spin_zero(c, futexlab, results)
        pi_chain(c, futexlab, results)
    print("locks: %d passed, %d failed, %d skipped"
          % (c.passed, c.failed, c.skipped))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
