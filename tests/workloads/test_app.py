#!/usr/bin/env python3
"""The app workload (workloads/app.c, docs/apps.md), as behaviour.

- --cmd is untrusted input: shell syntax, an unclosed quote, a program
  that is not there and a --metric without a group are refused with one
  line naming the flag and exit status 2, and nothing runs.
- A program that exits 0 gives an ok repetition whose figure is its wall
  time; its output is kept under programs/ in the run directory, named in
  the row's extra column; a quoted argument reaches it as one word.
- A status other than 0 fails the repetition, naming the status.
- A program past its deadline is killed with its process group (its
  child too) and the repetition fails, in bounded time.
- --metric takes its figure from the output.
- --algo glibc is skipped off futex-private; every other algorithm runs
  through the interposer (the program sees FUTEXLAB_ALGO).

  tests/workloads/test_app.py --builddir build
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

from test_locks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SIZE = ["--duration", "0.2", "--reps", "1", "--warmup", "0"]


def run(futexlab, results, *flags):
    cmd = [futexlab, "run", "app", "--results", results] + SIZE + list(flags)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def rows(out):
    lines = out.stdout.strip().splitlines()
    if not lines or not os.path.isdir(lines[-1]):
        return None, []
    with open(os.path.join(lines[-1], "cells.csv")) as f:
        return lines[-1], list(csv.DictReader(f))


def kept(rundir, row):
    extra = dict(kv.split("=", 1) for kv in row["extra"].split(";") if kv)
    path = os.path.join(rundir, "programs", "run-%s.txt" % extra["output"])
    return open(path).read() if os.path.exists(path) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    a = ap.parse_args()
    futexlab = os.path.join(ROOT, a.builddir, "futexlab")
    c = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        for bad, flag in (("echo a | cat", "--cmd"), ("echo 'a", "--cmd"),
                          ("no-such-program-here", "--cmd"),
                          ("echo a > f", "--cmd"), ("", "--cmd")):
            r = run(futexlab, tmp, "--cmd", bad)
            c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1
                    and flag in r.stderr,
                    "--cmd %r: exit %d, stderr %r" % (bad, r.returncode,
                                                      r.stderr))
        r = run(futexlab, tmp, "--metric", "time: [0-9.]+")
        c.check(r.returncode == 2 and "--metric" in r.stderr,
                "--metric without a group: exit %d %r" % (r.returncode,
                                                          r.stderr))
        # patterns whose compiling glibc makes exponential or huge
        # (workloads/lib/regex_bound.h): refused before regcomp, promptly
        stacked = "~~~" + "W" * 100 + "~" * 5 + "+" * 20 + "~" * 100
        for bad in (stacked, "([0-9]+)++", "(a*){2}{3}", "x{256}",
                    "((x{255}){255})", "(" * 40 + "x" + ")" * 40,
                    "(" + "a" * 300 + ")"):
            r = run(futexlab, tmp, "--metric", bad)
            c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1
                    and "--metric" in r.stderr,
                    "--metric %r...: exit %d, stderr %r" % (
                        bad[:20], r.returncode, r.stderr))
        c.check(not os.listdir(tmp), "a refused run left %s" % os.listdir(tmp))

        r = run(futexlab, tmp, "--backend", "futex-private", "--algo",
                "mutex3", "--cmd",
                "sh -c 'echo \"algo=$FUTEXLAB_ALGO\"; echo \"$1\"' - 'two words'")
        d, rs = rows(r)
        c.check(r.returncode == 0 and len(rs) == 1 and rs[0]["status"] == "ok"
                and int(rs[0]["lat_p50_ns"]) > 0,
                "ok program: exit %d %s %s" % (r.returncode, rs, r.stderr))
        out = kept(d, rs[0]) if rs else None
        c.check(out is not None and "algo=mutex3" in out and
                "\ntwo words\n" in out, "kept output: %r" % out)

        r = run(futexlab, tmp, "--backend", "futex-private", "--cmd",
                "sh -c 'exit 3'")
        d, rs = rows(r)
        c.check(rs and rs[0]["status"] == "failed" and
                "status 3" in rs[0]["reason"],
                "exit 3: %s %s" % (rs, r.stderr))

        t0 = time.monotonic()
        r = run(futexlab, tmp, "--backend", "futex-private", "--cmd",
                "sh -c 'sleep 37.31 & sleep 37.31'")
        took = time.monotonic() - t0
        d, rs = rows(r)
        c.check(rs and rs[0]["status"] == "failed" and
                "deadline" in rs[0]["reason"] and took < 20,
                "past the deadline: %.1f s %s %s" % (took, rs, r.stderr))
        ps = subprocess.run(["pgrep", "-f", "sleep 37.31"], capture_output=True,
                            text=True).stdout.split()
        c.check(not ps, "the group's sleeps outlived it: %s" % ps)

        r = run(futexlab, tmp, "--backend", "futex-private", "--cmd",
                "echo 'total time: 2.5s'", "--metric",
                "total time: +([0-9.]+)s")
        d, rs = rows(r)
        p50 = int(rs[0]["lat_p50_ns"]) if rs and rs[0]["lat_p50_ns"] else 0
        c.check(abs(p50 - 2.5e9) < 0.02 * 2.5e9,
                "--metric 2.5 s: p50 %d %s" % (p50, r.stderr))

        r = run(futexlab, tmp, "--backend", "futex-shared", "--algo",
                "glibc,pi")
        d, rs = rows(r)
        st = {row["options"].split(";")[0]: row["status"] for row in rs}
        c.check(st == {"algo=glibc": "skipped", "algo=pi": "ok"},
                "glibc on futex-shared: %s %s" % (st, r.stderr))
    print("test_app: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
