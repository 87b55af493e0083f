#!/usr/bin/env python3
"""Campaigns that interleave their sides visit by visit.

  tests/cli/test_campaign_visits.py --builddir build [-k NAME] [-v]

  visit_campaign  campaign --interleave visit, sides A and
                  B:set=critical=1020, ended by --max-blocks 8, the
                  cell's reps-max (the time budget of 600 s is not
                  reached): each side's
                  run is a finished run directory (runs/NN-SIDE) with as
                  many visits as the other and as the manifest's blocks;
                  the manifest says interleave visit and its blocks, each
                  one visit of both sides, run in an order that is not
                  always the same; compare prints a paired verdict line
                  naming its figure, the geometric mean and the time; a
                  copy whose manifest has a block's value that is no
                  figure, or a block or schedule entry naming another
                  cell, is refused by compare in one line naming it
  kill_resume     the campaign SIGKILLed (with its running visit) after
                  some blocks: `campaign DIR` resumes it, every block
                  recorded before the kill kept as it was, and the sides'
                  runs finish with equal visit counts
  visit_refused   matrix --visit with a cell the matrix lacks (a new run,
                  a partial one), a bad CELL[:N], an N past the next
                  visit, on a finished run, and --finish without --resume:
                  exit 2, one line, nothing made or changed
  kernel_refused  --interleave visit with a kernel= or sysctl= side, and
                  --rounds with it: exit 2, one line, nothing created
  summary_speed   a condvar cell, whose figure is lower-is-better (its p50
                  latency, or its CPU ns/op where the machine was busy):
                  compare's geometric mean line gives the ratio in the
                  figure and, after it, as a speed (the inverse, its
                  interval's ends swapped), so that a slower B is below
                  1 there whatever the figure; a throughput cell's line
                  has no such clause
No timing is asserted. Ends with `campaign_visits: N passed, N failed`.
"""

import glob
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl  # noqa: E402
from test_campaign_untrusted import tree  # noqa: E402

# one cell, one thread: a visit of 0.02 s after a warm-up of 0.01 s
TINY = """[defaults]
duration = 0.02
warmup = 0.01
reps = auto
seed = 1
backend = futex-private
threads = 1

[experiment x]
workload = mutex
critical = 1000
think = 0
"""

SIDES = ["--side", "A", "--side", "B:set=critical=1020"]


def manifest(cdir):
    with open(os.path.join(cdir, "campaign.json")) as f:
        return json.load(f)


def side_runs(cdir):
    """{side: [the rows of each of its runs' cells.csv, in slot order]}"""
    out = {}
    for run in sorted(glob.glob(os.path.join(cdir, "runs", "*"))):
        check(os.path.isfile(os.path.join(run, "meta.json")),
              "%s is not a finished run" % run)
        out.setdefault(os.path.basename(run).split("-", 1)[1], []).append(
            runs.rows_of(os.path.join(run, "cells.csv")))
    return out


def finished_runs(cdir):
    """The sides' finished runs: {side: their rows, run after run}."""
    return {side: [row for run in rows for row in run]
            for side, rows in side_runs(cdir).items()}


def check_runs_match_blocks(cdir):
    m = manifest(cdir)
    got = finished_runs(cdir)
    check(sorted(got) == ["A", "B"], "the runs: %s" % sorted(got))
    check(len(got["A"]) == len(got["B"]) == len(m["blocks"]),
          "visits A %d, B %d, blocks %d" % (len(got["A"]), len(got["B"]),
                                            len(m["blocks"])))
    return m


def test_visit_campaign(tmp):
    # ended by the cell's horizon, 8 blocks, not by the clock
    mfile = runs.write(os.path.join(tmp, "m.ini"),
                       TINY.replace("reps = auto", "reps = auto\n"
                                    "reps-max = 8"))
    cdir = os.path.join(tmp, "c")
    r = fl("campaign", cdir, "--matrix", mfile, *SIDES, "--interleave",
           "visit", "--time-budget", "600", "--max-blocks", "8",
           timeout=900)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-1500:]))
    check("blocks" in r.stderr and "decided" in r.stderr,
          "no progress line: %s" % r.stderr[-800:])
    m = check_runs_match_blocks(cdir)
    check(m["interleave"] == "visit" and m["seed"] == 1,
          "manifest: interleave %r seed %r" % (m.get("interleave"),
                                                m.get("seed")))
    check(len(m["blocks"]) == 8, "%d blocks, not the horizon's 8" %
          len(m["blocks"]))
    firsts = [b["order"][0] for b in m["blocks"]]
    check(all(sorted(b["order"]) == ["A", "B"] and
              sorted(b["values"]) == ["A", "B"] for b in m["blocks"]),
          "a block is not one visit of each side: %r" % m["blocks"][:3])
    check(set(firsts) == {"A", "B"}, "every block ran %s first" % firsts[0])
    r = fl("compare", cdir)
    check(r.returncode == 0, "compare: %d %s" % (r.returncode, r.stderr))
    lines = r.stdout.splitlines()
    cell = [x for x in lines if x.strip().startswith("cell 0 ")]
    check(len(cell) == 1 and ("throughput B/A" in cell[0] or
                              "CPU ns/op B/A" in cell[0]) and
          any(v in cell[0] for v in ("faster", "slower", "equivalent",
                                     "needs more blocks")),
          "no paired verdict line naming its figure:\n%s" % r.stdout)
    check(any("geometric mean" in x for x in lines) and
          any("blocks took" in x for x in lines),
          "no summary or time:\n%s" % r.stdout)
    # an edited manifest: a block's value that is no figure, a block
    # of a cell the schedule does not give there
    for path, value in ((("blocks", 0, "values", "B"), -1),
                        (("blocks", 0, "cell"), 1),
                        (("schedule", 0), 5)):
        m = manifest(cdir)
        node = m
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        spoilt = os.path.join(tmp, "spoilt")
        if os.path.exists(spoilt):
            subprocess.run(["rm", "-rf", spoilt], check=True)
        subprocess.run(["cp", "-a", cdir, spoilt], check=True)
        with open(os.path.join(spoilt, "campaign.json"), "w") as f:
            json.dump(m, f)
        r = fl("compare", spoilt)
        one_line(r, "compare of a manifest with %r = %r" % (path, value))
        check("campaign.json" in r.stderr and
              "%s[0]" % path[0] in r.stderr,
              "does not name the member: %s" % r.stderr)


def killed_at(cdir, blocks, *args):
    """`futexlab campaign cdir ARGS` SIGKILLed, with the visit it runs,
    once its manifest has the given blocks; the blocks it then has."""
    p = subprocess.Popen([runs.FL, "campaign", cdir, *args],
                         start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    before = []
    while time.time() < deadline and len(before) < blocks and \
            p.poll() is None:
        time.sleep(0.05)
        try:
            before = manifest(cdir).get("blocks", [])
        except (OSError, ValueError):
            pass
    # the campaign and the visit it runs, at once
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    # until the killed visit is gone too (it held its run's lock)
    while time.time() < deadline:
        try:
            os.killpg(p.pid, 0)
            time.sleep(0.1)
        except ProcessLookupError:
            break
    return manifest(cdir)["blocks"]


def test_kill_resume(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY)
    cdir = os.path.join(tmp, "c")
    before = killed_at(cdir, 3, "--matrix", mfile, *SIDES, "--time-budget",
                       "12")
    check(len(before) >= 3, "killed before 3 blocks: %d" % len(before))
    check(not glob.glob(os.path.join(cdir, "runs", "*")),
          "a run finished before the kill")
    resumed(cdir, before)
    check_runs_match_blocks(cdir)


def resumed(cdir, before):
    """`futexlab campaign cdir` resumed to its end, every block recorded
    before (the list) kept as it was"""
    r = fl("campaign", cdir, timeout=600)
    check(r.returncode == 0, "the resume: %d %s" % (r.returncode,
                                                    r.stderr[-1500:]))
    check(manifest(cdir)["blocks"][:len(before)] == before,
          "a block recorded before the kill changed")


def one_line(r, what):
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1,
          "%s: exit %d, stderr %r" % (what, r.returncode, r.stderr))


def test_visit_refused(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY)
    res = os.path.join(tmp, "r")
    one_line(fl("matrix", mfile, "--results", res, "--visit", "1"),
             "a new run's --visit 1 of a 1-cell matrix")
    one_line(fl("matrix", mfile, "--results", res, "--visit", "0:2"),
             "a new run's --visit 0:2")
    check(not os.path.exists(res), "a refused --visit made %s" % res)
    r = fl("matrix", mfile, "--results", res, "--visit", "0")
    check(r.returncode == 0 and r.stdout.startswith("visit 0 1 ok "),
          "--visit 0: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    partial = r.stdout.splitlines()[-1]
    check(os.path.basename(partial).startswith(".partial-"),
          "not left partial: %s" % partial)
    before = tree(res)
    for bad in ("7", "-1", "x", "0:", ":1", "0:0", "0:3", "1:1",
                "99999999999"):
        one_line(fl("matrix", "--resume", partial, mfile, "--visit", bad),
                 "--visit %s" % bad)
    one_line(fl("matrix", mfile, "--finish"), "--finish without --resume")
    check(tree(res) == before, "a refused --visit changed the partial run")
    r = fl("matrix", "--resume", partial, mfile, "--finish")
    check(r.returncode == 0, "--finish: %d %s" % (r.returncode, r.stderr))
    final = r.stdout.splitlines()[-1]
    check(len(runs.rows_of(os.path.join(final, "cells.csv"))) == 1,
          "--finish did not keep its one visit")
    before = tree(res)
    one_line(fl("matrix", "--resume", final, mfile, "--visit", "0"),
             "--visit on a finished run")
    check(tree(res) == before, "--visit changed a finished run")


def test_kernel_refused(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY)
    cdir = os.path.join(tmp, "c")
    for side, what in (("B:kernel=debian", "kernel"),
                       ("B:sysctl=kernel.sched_rr_timeslice_ms=90",
                        "sysctl")):
        r = fl("campaign", cdir, "--matrix", mfile, "--side", "A", "--side",
               side, "--interleave", "visit")
        one_line(r, "--interleave visit with %s" % side)
        check(what + "=" in r.stderr, "does not name %s=: %s" % (what,
                                                                 r.stderr))
        check(not os.path.exists(cdir), "%s was created" % cdir)
    one_line(fl("campaign", cdir, "--matrix", mfile, *SIDES, "--interleave",
                "visit", "--rounds", "3"), "--interleave visit --rounds 3")
    one_line(fl("campaign", cdir, "--matrix", mfile, *SIDES, "--interleave",
                "sometimes"), "--interleave sometimes")
    check(not os.path.exists(cdir), "%s was created" % cdir)


def summary_line(tmp, name, matrix):
    mfile = runs.write(os.path.join(tmp, name + ".ini"), matrix)
    cdir = os.path.join(tmp, name)
    r = fl("campaign", cdir, "--matrix", mfile, *SIDES, "--interleave",
           "visit", "--time-budget", "600", "--max-blocks", "6",
           timeout=600)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-1500:]))
    r = fl("compare", cdir)
    said = [x for x in r.stdout.splitlines() if "geometric mean" in x]
    check(r.returncode == 0 and len(said) == 1,
          "compare: %d\n%s" % (r.returncode, r.stdout + r.stderr[-800:]))
    return said[0]


def test_summary_speed(tmp):
    line = summary_line(tmp, "condvar", TINY.replace(
        "workload = mutex\ncritical = 1000\nthink = 0",
        "workload = condvar\nwake = all"))
    check(("p50 latency B/A" in line or "CPU ns/op B/A" in line) and
          "; as a speed " in line, "no speed in %r" % line)
    nums = [float(x) for x in line.replace("[", " ").replace("]", " ")
            .replace(",", " ").replace(";", " ").split()
            if x.replace(".", "", 1).isdigit()]
    mean, lo, hi, speed, slo, shi = nums[-6:]
    for a, b in ((mean, speed), (lo, shi), (hi, slo)):
        check(abs(a * b - 1.0) < 0.005, "%r: %g and %g are not inverses" %
              (line, a, b))
    line = summary_line(tmp, "mutex", TINY)
    check("throughput B/A" not in line or "as a speed" not in line,
          "a speed clause on throughput: %r" % line)


TESTS = [test_visit_campaign, test_kill_resume, test_visit_refused,
         test_kernel_refused,
         test_summary_speed]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_visits"))
