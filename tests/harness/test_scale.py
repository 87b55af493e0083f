#!/usr/bin/env python3
"""The harness at many threads (docs/measurement.md, "The harness at
scale").

- A cell of 4096 threads (FL_MAX_THREADS) runs and writes its run
  directory: every thread has its CPU in the cpus column, and fairness
  counts every one of them (the minimum is at most the mean); run's
  JSON has the harness's start and merge times and the cell process's
  peak memory.
- A hash cell of 1024 threads, whose threads never sleep, ends ok with
  every thread in its count: on two CPUs each CPU's run queue holds 512
  runnable threads, and the controller must still get a CPU to end the
  timed part and join them (measure/cell_child.c).
- A cell with more threads than the CPUs its threads are placed on says
  so in its note, in cells.csv and in `run`'s output; one that fits
  says nothing of it.
- Threads that cannot be created (RLIMIT_NPROC, here as user nobody
  when run as root, whose limit root would not feel) fail the cell with
  one line naming pthread_create, the thread and the limit, promptly:
  no barrier waits for a thread that never started.
No timing is asserted.

  tests/harness/test_scale.py --builddir build
"""

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_measure import Checks  # noqa: E402

NOBODY = 65534


# each case's size, but for the flags it gives itself (run refuses a
# flag given twice)
SIZE = {"--duration": "0.05", "--warmup": "0", "--reps": "1"}


def run(futexlab, results, flags, preexec=None, workload="mutex"):
    size = [x for k, v in SIZE.items() if k not in flags for x in (k, v)]
    cmd = [futexlab, "run", workload, "--backend", "futex-private",
           "--results", results] + size + flags
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         preexec_fn=preexec)
    if "--json" in flags:
        try:
            out.doc = json.loads(out.stdout)
            run_dir = out.doc["run_dir"]
        except ValueError:
            out.doc, run_dir = None, ""
    else:
        run_dir = out.stdout.strip().splitlines()[-1] if out.stdout else ""
    rows = []
    if os.path.isfile(os.path.join(run_dir, "cells.csv")):
        with open(os.path.join(run_dir, "cells.csv")) as f:
            rows = list(csv.DictReader(f))
    return out, rows


def check_every_thread(c, what, out, rows, n):
    """The cell ran ok, and each of its n threads is in its CPUs and in
    its fairness: the total lies between n times the least and n times
    the most a thread did."""
    c.check(out.returncode == 0 and len(rows) == 1,
            "%s: exit %d, %d rows\n%s" % (what, out.returncode, len(rows),
                                          out.stderr))
    if not rows:
        return None
    row = rows[0]
    c.check(row["status"] == "ok", "%s: status %s %s"
            % (what, row["status"], row["reason"]))
    c.check(len(row["cpus"].split(",")) == n,
            "%s: %d CPUs in the cpus column"
            % (what, len(row["cpus"].split(","))))
    ops, lo, hi = (int(row[k]) for k in ("ops", "thread_ops_min",
                                         "thread_ops_max"))
    c.check(ops > 0 and lo * n <= ops <= hi * n,
            "%s: min %d, max %d per thread, %d in all: a thread left out "
            "of fairness" % (what, lo, hi, ops))
    return row


def check_4096(c, futexlab, results):
    out, rows = run(futexlab, results, ["--threads", "4096", "--json"])
    row = check_every_thread(c, "4096 threads", out, rows, 4096)
    if not row:
        return
    ncpus = len(os.sched_getaffinity(0))
    if ncpus < 4096:
        want = "oversubscribed: 4096 threads on %d CPU" % ncpus
        c.check(want in row["note"], "4096 threads: note %r" % row["note"])
        c.check(want in out.doc["cells"][0]["note"],
                "4096 threads: run's output lacks the note:\n" + out.stdout)
    harness = out.doc["cells"][0].get("harness", {})
    c.check(all(harness.get(k, 0) > 0 for k in
                ("start_ns_max", "merge_ns_max", "cell_maxrss_kb")),
            "4096 threads: the harness's own cost missing: %r" % harness)


def check_hash_1024(c, futexlab, results):
    """The brief's own command, warm-up included."""
    out, rows = run(futexlab, results, ["--threads", "1024", "--duration",
                                        "0.2", "--warmup", "0.2"],
                    workload="hash")
    row = check_every_thread(c, "hash, 1024 threads", out, rows, 1024)
    if row:
        c.check("errors=0" in row["extra"],
                "hash, 1024 threads: extra %r" % row["extra"])


def check_oversubscribed(c, futexlab, results):
    cpu = sorted(os.sched_getaffinity(0))[0]
    out, rows = run(futexlab, results, ["--threads", "3", "--placement",
                                        str(cpu)])
    note = rows[0]["note"] if rows else ""
    c.check(out.returncode == 0 and
            "oversubscribed: 3 threads on 1 CPU" in note,
            "3 threads on CPU %d: exit %d, note %r" % (cpu, out.returncode,
                                                       note))
    c.check("note: oversubscribed" in out.stdout,
            "3 threads on one CPU: run's output lacks the note")
    out, rows = run(futexlab, results, ["--threads", "1"])
    note = rows[0]["note"] if rows else None
    c.check(out.returncode == 0 and note is not None and
            "oversubscribed" not in note,
            "1 thread: exit %d, note %r" % (out.returncode, note))


def limited():
    """The child: at most 50 processes of its user (nobody, when root,
    whose processes the limit does not bound)."""
    resource.setrlimit(resource.RLIMIT_NPROC, (50, 50))
    if os.geteuid() == 0:
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def as_nobody(futexlab):
    """The binary where user nobody can run it: a copy in a folder of its
    own when root, whose clone may sit in /root (mode 0700 on a fresh
    Debian)."""
    if os.geteuid() != 0:
        return futexlab
    d = tempfile.mkdtemp(prefix="fl-scale-bin-")
    os.chmod(d, 0o755)
    copy = os.path.join(d, "futexlab")
    shutil.copy2(futexlab, copy)
    return copy


def check_creation_fails(c, futexlab, results):
    os.chmod(results, 0o777)
    runnable = as_nobody(futexlab)
    try:
        out, rows = run(runnable, results, ["--threads", "200"], limited)
    except subprocess.TimeoutExpired:
        c.check(False, "RLIMIT_NPROC 50, 200 threads: still running "
                "after 120 s")
        return
    finally:
        if runnable != futexlab:
            shutil.rmtree(os.path.dirname(runnable))
    lines = [ln for ln in out.stderr.splitlines() if "pthread_create" in ln]
    c.check(out.returncode == 1, "RLIMIT_NPROC 50: exit %d\n%s"
            % (out.returncode, out.stderr))
    c.check(len(lines) == 1 and "RLIMIT_NPROC" in lines[0] and
            "of 200" in lines[0],
            "RLIMIT_NPROC 50: no one line naming the cause:\n" + out.stderr)
    reason = rows[0]["reason"] if rows else ""
    c.check("RLIMIT_NPROC" in reason, "RLIMIT_NPROC 50: cells.csv's "
            "reason %r" % reason)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(args.builddir, "futexlab"))
    results = tempfile.mkdtemp(prefix="fl-scale-")
    c = Checks()
    check_4096(c, futexlab, results)
    check_hash_1024(c, futexlab, results)
    check_oversubscribed(c, futexlab, results)
    check_creation_fails(c, futexlab, results)
    print("scale: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
