#!/usr/bin/env python3
"""run app's program and its input as an adversary makes them.

- Ctrl-C: futexlab interrupted (SIGINT to it alone, and to its process
  group as a terminal sends it) while the program sleeps exits 130, and
  no process the cell started is left: none whose command line has the
  run's unique token, none in the program's process group, and none
  reparented to this script, which makes itself a child subreaper first
  so that whatever escaped futexlab's tree would come to it, not init.
- A program that daemonises (setsid, a background child, exit 0): its
  children die with the repetition.
- A --metric that glibc's regexec searches for seconds (it is quadratic
  or worse on some expressions) fails its repetition with a reason that
  names the expression; the cell is not aborted for its threads.
- A --metric refused before it is compiled names the expression and why,
  in one line, exit 2.
- list --topology with an hwloc XML file without a NUMA node: one line,
  futexlab's, and none of hwloc's own.

  tests/cli/test_app_untrusted.py --builddir build
"""

import argparse
import csv
import ctypes
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PR_SET_CHILD_SUBREAPER = 36
SIZE = ["--warmup", "0", "--backend", "futex-private"]

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def processes():
    """pid -> (ppid, pgid, state, cmdline) of every process now."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        procs[int(d)] = (int(fields[1]), int(fields[2]), fields[0], cmd)
    return procs


def reap_adopted():
    """Reap what was reparented to this script and has died."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def left_behind(token, pgids):
    """What the cell left: live processes with the token, in one of the
    program's groups, or adopted by this script."""
    reap_adopted()
    me = os.getpid()
    return ["%d %s %r" % (pid, p[2], p[3])
            for pid, p in processes().items()
            if pid != me and p[2] != "Z" and
            (token in p[3] or p[1] in pgids or p[0] == me)]


def token():
    return "%d.%06d" % (300 + random.randrange(100), random.randrange(10**6))


def futexlab_args(b, tmp, *flags):
    """One repetition unless flags say how many (a flag is given once)."""
    reps = [] if "--reps" in flags else ["--reps", "1"]
    return [os.path.join(b, "futexlab"), "run", "app", "--results", tmp] + \
        reps + SIZE + list(flags)


def interrupted(b, tmp, to_group):
    """SIGINT while the program sleeps: exit 130, nothing left."""
    tok = token()
    p = subprocess.Popen(futexlab_args(b, tmp, "--duration", "20", "--cmd",
                                       "sleep %s" % tok),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=to_group, cwd=ROOT)
    pgids, end = set(), time.monotonic() + 30
    while not pgids and time.monotonic() < end and p.poll() is None:
        pgids = {q[1] for q in processes().values()
                 if q[3].startswith("sleep " + tok)}
        time.sleep(0.05)
    what = "SIGINT to futexlab's group" if to_group else "SIGINT to futexlab"
    check(pgids, "%s: the program never started" % what)
    if to_group:
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    check(p.returncode == 130, "%s: exit %s, not 130: %s" % (what,
                                                          p.returncode, err))
    left = left_behind(tok, pgids)
    check(not left, "%s: the cell's processes outlived it: %s" % (what, left))
    for pid in [int(x.split()[0]) for x in left]:
        os.kill(pid, signal.SIGKILL)


def daemonised(b, tmp):
    """A program that leaves children behind and exits 0."""
    tok = token()
    r = subprocess.run(futexlab_args(
        b, tmp, "--duration", "0.3", "--reps", "2", "--cmd",
        'setsid sh -c "sleep %s & sleep %s & echo bg"' % (tok, tok)),
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    check(r.returncode == 0, "daemonised: exit %d: %s" % (r.returncode,
                                                         r.stderr))
    left = left_behind(tok, set())
    check(not left, "daemonised: its children outlived the run: %s" % left)
    for pid in [int(x.split()[0]) for x in left]:
        os.kill(pid, signal.SIGKILL)


def slow_metric(b, tmp):
    """An expression glibc takes seconds on, over 64 KiB of output."""
    expr = "(a|aa)*c([0-9])"
    r = subprocess.run(futexlab_args(
        b, tmp, "--duration", "0.2", "--cmd",
        "python3 -c \"print('a' * 65536)\"", "--metric", expr),
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    lines = r.stdout.strip().splitlines()
    rows = []
    if lines and os.path.isdir(lines[-1]):
        with open(os.path.join(lines[-1], "cells.csv")) as f:
            rows = list(csv.DictReader(f))
    reason = rows[0]["reason"] if rows else ""
    check(rows and rows[0]["status"] == "failed" and
          ("'%s'" % expr) in reason and "threads" not in r.stderr,
          "slow --metric: exit %d, rows %s, stderr %r" % (
              r.returncode, rows, r.stderr))


def refused_metric(b, tmp):
    for expr, why in (("([0-9]+)++", "repetition repeated"),
                      ("x{256}", "count above 255"),
                      ("(" * 40 + "x" + ")" * 40, "nested deeper")):
        r = subprocess.run(futexlab_args(b, tmp, "--metric", expr),
                           capture_output=True, text=True, timeout=60,
                           cwd=ROOT)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
              ("--metric '%s'" % expr) in r.stderr and why in r.stderr,
              "--metric %r: exit %d, stderr %r" % (expr[:20], r.returncode,
                                                   r.stderr))


def numa_less_topology(b, tmp):
    with open(os.path.join(ROOT, "tests", "cli", "topologies",
                           "distance-300.xml")) as f:
        xml = f.read()
    xml = re.sub(r'\s*<object type="NUMANode"[^>]*>\s*<page_type[^>]*/>'
                 r'\s*</object>', "", xml)
    xml = re.sub(r"\s*<distances2.*?</distances2>", "", xml, flags=re.S)
    path = os.path.join(tmp, "no-numa.xml")
    with open(path, "w") as f:
        f.write(xml)
    for cmd in (["list", "--topology", path],
                ["matrix", "--estimate", "--topology", path,
                 os.path.join(ROOT, "matrix", "default.ini")]):
        r = subprocess.run([os.path.join(b, "futexlab")] + cmd,
                           capture_output=True, text=True, timeout=60,
                           cwd=ROOT)
        lines = r.stderr.splitlines()
        check(r.returncode == 2 and len(lines) == 1 and
              lines[0].startswith("futexlab ") and "NUMA" in lines[0],
              "%s with a NUMA-less topology: exit %d, stderr %r" % (
                  cmd[0], r.returncode, r.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    a = ap.parse_args()
    b = os.path.join(ROOT, a.builddir)     # an absolute one is itself
    libc = ctypes.CDLL(None, use_errno=True)
    check(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0,
          "PR_SET_CHILD_SUBREAPER: %s" % os.strerror(ctypes.get_errno()))
    with tempfile.TemporaryDirectory() as tmp:
        interrupted(b, tmp, False)
        interrupted(b, tmp, True)
        daemonised(b, tmp)
        slow_metric(b, tmp)
        refused_metric(b, tmp)
        numa_less_topology(b, tmp)
    print("app_untrusted: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
