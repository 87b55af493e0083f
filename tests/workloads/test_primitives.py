#!/usr/bin/env python3
"""The rwlock, semaphore and barrier workloads (docs/workloads-primitives.md),
as behaviour, never timing. Each runs every algorithm on every host
backend at 1 and 3 threads (the smoke test has 2):

- rwlock: every row ran, or was skipped for the reason it must be (glibc's
  rwlocks off futex-private and futex-shared, bitset without capability
  bitset); no exclusion violation; reads + writes = acquisitions; writes
  with --writers 30; --writers 0 never writes and --writers 100 never
  reads.
- semaphore: the items taken are at most the items posted plus what the
  stop kick posted (one per thread); posts + waits = operations; the
  futex semaphore counts no wakeup with one thread (it never sleeps).
- barrier: every thread crossed every round (crossings, the largest any
  thread counted, is thread 0's rounds).
- bad option values (--writers 101, -1, garbage; --producers 0;
  --capacity 0; an unknown --algo) exit 2 with one line on stderr.

  tests/workloads/test_primitives.py --builddir build
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

from test_locks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SIZE = ["--duration", "0.05", "--reps", "1", "--warmup", "0",
        "--threads", "1,3"]
LIBC_BACKENDS = ("futex-private", "futex-shared")


def host_backends(futexlab):
    """The available backends other than the module's, and every
    backend's capabilities."""
    out = subprocess.run([futexlab, "list", "--json"], capture_output=True,
                         text=True, timeout=60, check=True)
    listed = json.loads(out.stdout)["backends"]
    return ([b["name"] for b in listed
             if b["available"] and not b["name"].startswith("kmod")],
            {b["name"]: b["caps"].split(",") for b in listed})


def run(c, futexlab, results, workload, *flags):
    """The run's cells.csv rows, or [] with a failure counted."""
    cmd = [futexlab, "run", workload, "--results", results] + SIZE + \
        list(flags)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    lines = out.stdout.strip().splitlines()
    if out.returncode not in (0, 1) or not lines:
        c.check(False, "%s: exit %d\n%s" % (" ".join(cmd), out.returncode,
                                           out.stderr))
        return []
    with open(os.path.join(lines[-1], "cells.csv")) as f:
        return list(csv.DictReader(f))


def extra(row):
    return {k: int(v) for k, v in (kv.split("=", 1)
                                   for kv in row["extra"].split(";") if kv)}


def option(row, name):
    return dict(kv.split("=", 1) for kv in row["options"].split(";"))[name]


def what(row):
    return "%s %s threads=%s %s: %s %r" % (
        row["workload"], row["backend"], row["threads"], row["options"],
        row["status"], row["reason"])


def ran(c, row, glibc, needs=None, caps=None):
    """Whether the row ran; checks a skip's reason when it did not."""
    backend = row["backend"]
    if glibc and backend not in LIBC_BACKENDS:
        c.check(row["status"] == "skipped" and "glibc" in row["reason"] and
                backend in row["reason"], what(row))
        return False
    if needs and needs not in caps[backend]:
        c.check(row["status"] == "skipped" and
                "lacks capability " + needs in row["reason"], what(row))
        return False
    c.check(row["status"] == "ok", what(row))
    return row["status"] == "ok"


def rwlock(c, futexlab, results, backends, caps):
    rows = run(c, futexlab, results, "rwlock", "--backend",
               ",".join(backends), "--algo",
               "glibc-prefer-reader,glibc-prefer-writer,bitset,plain",
               "--writers", "30")
    c.check(len(rows) == 8 * len(backends), "rwlock: %d rows" % len(rows))
    for row in rows:
        algo = option(row, "algo")
        if not ran(c, row, algo.startswith("glibc"),
                   "bitset" if algo == "bitset" else None, caps):
            continue
        x = extra(row)
        c.check(x["violations"] == 0, "violations: " + what(row))
        c.check(x["reads"] + x["writes"] == int(row["ops"]),
                "reads + writes != ops: %s %r" % (what(row), row["extra"]))
        c.check(int(row["ops"]) == 0 or x["writes"] > 0,
                "no write at 30%%: %s %r" % (what(row), row["extra"]))
    for writers, counter in (("0", "writes"), ("100", "reads")):
        rows = run(c, futexlab, results, "rwlock", "--backend",
                   "futex-private", "--algo", "bitset,plain,"
                   "glibc-prefer-writer", "--writers", writers)
        c.check(len(rows) == 6, "rwlock --writers %s: %d rows"
                % (writers, len(rows)))
        for row in rows:
            c.check(row["status"] == "ok" and int(row["ops"]) > 0 and
                    extra(row)[counter] == 0,
                    "--writers %s: %s %r" % (writers, what(row),
                                            row["extra"]))


def semaphore(c, futexlab, results, backends):
    rows = run(c, futexlab, results, "semaphore", "--backend",
               ",".join(backends), "--algo", "glibc,futex")
    c.check(len(rows) == 4 * len(backends), "semaphore: %d rows"
            % len(rows))
    for row in rows:
        algo = option(row, "algo")
        if not ran(c, row, algo == "glibc"):
            continue
        x = extra(row)
        threads = int(row["threads"])
        c.check(x["posts"] + x["waits"] == int(row["ops"]),
                "posts + waits != ops: %s %r" % (what(row), row["extra"]))
        c.check(x["waits"] <= x["posts"] + threads,
                "more taken than posted: %s %r" % (what(row),
                                                   row["extra"]))
        c.check(int(row["ops"]) > 0, "nothing through: " + what(row))
        if algo == "futex" and threads == 1:
            c.check(x["wakeups"] == 0 and x["wait_calls"] == 0,
                    "one thread slept: %s %r" % (what(row), row["extra"]))


def barrier(c, futexlab, results, backends, caps):
    rows = run(c, futexlab, results, "barrier", "--backend",
               ",".join(backends), "--algo", "glibc,wake-all,requeue")
    c.check(len(rows) == 6 * len(backends), "barrier: %d rows" % len(rows))
    for row in rows:
        algo = option(row, "algo")
        if not ran(c, row, algo == "glibc",
                   "requeue" if algo == "requeue" else None, caps):
            continue
        c.check(extra(row)["crossings"] == int(row["ops"]),
                "crossings != rounds: %s %r" % (what(row), row["extra"]))


def bad_values(c, futexlab):
    cases = [("rwlock", "--writers", "101"), ("rwlock", "--writers", "-1"),
             ("rwlock", "--writers", "garbage"),
             ("rwlock", "--algo", "fair"),
             ("semaphore", "--producers", "0"),
             ("semaphore", "--producers", "100"),
             ("semaphore", "--capacity", "0"),
             ("barrier", "--algo", "tree")]
    for workload, flag, value in cases:
        with tempfile.TemporaryDirectory(prefix="fl-prim-bad-") as results:
            out = subprocess.run([futexlab, "run", workload, flag, value,
                                  "--results", results] + SIZE,
                                 capture_output=True, text=True, timeout=60,
                                 cwd=ROOT)
            lines = out.stderr.strip().splitlines()
            c.check(out.returncode == 2 and len(lines) == 1 and
                    flag in lines[0],
                    "%s %s %s: exit %d, stderr %r" % (
                        workload, flag, value, out.returncode, out.stderr))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    c = Checks()
    backends, caps = host_backends(futexlab)
    with tempfile.TemporaryDirectory(prefix="fl-prim-") as results:
        rwlock(c, futexlab, results, backends, caps)
        semaphore(c, futexlab, results, backends)
        barrier(c, futexlab, results, backends, caps)
    bad_values(c, futexlab)
    print("primitives: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
