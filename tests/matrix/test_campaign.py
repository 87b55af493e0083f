#!/usr/bin/env python3
"""Campaigns and compare with the run as the unit.

  tests/matrix/test_campaign.py --builddir build [-k NAME] [-v]

  runs_verdicts      synthetic runs, 5 a side, compared with --a and --b:
                     a cell 10% slower in every run is slower, one the
                     same in every run is equivalent, one whose runs
                     spread over 20% needs more runs (with a count); the
                     summaries take the runs as the unit, so a day effect
                     common to every cell of one run widens them; with
                     one run a side compare says it cannot see between
                     runs; 3 a side have no interval
  campaign_small     a campaign of a tiny matrix, 3 rounds, end to end:
                     sides by a declared setting (mutex --critical 1000
                     against 1050, matched) and by two futexlab binaries
                     (hash); the manifest, the interleaved order, runs
                     that report reads, compare CAMPAIGN
  campaign_resume    a campaign killed (SIGKILL) during a run continues:
                     the finished runs are the same directories, the
                     partial one is resumed, every slot ends recorded
  campaign_spend     --stop-when-decided and --max-rounds on a campaign
                     whose cells are decided / undecided
  bad_inputs         a side mixing matrices or futexlab versions, a side
                     with no runs, a manifest naming a missing run, a
                     foreign run, a path outside the campaign, a run that
                     is a symbolic link, bad --side flags: one line
                     naming it, exit 2, nothing deleted
Ends with `campaign: N passed, N failed` (tests/run.py reads it).
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fake_run, fl, reps, rows_of  # noqa: E402

# the smallest matrix a campaign can run: one cell per experiment, 6
# repetitions of 0.1 s (about a second and a half a run)
TINY = """[defaults]
duration = 0.1
warmup = 0.02
reps = 6
seed = 1
backend = futex-private
threads = 1

[experiment %s]
workload = %s
"""


def fake_matrix_run(path, level, matrix="m1", version="0.1.0", day=1.0,
                    m="algo=mutex3"):
    """One synthetic matrix run: three mutex cells (options m) and one
    hash cell, each at level times its own base, every cell times day."""
    cells = [("mutex", "futex-private", t, m, "ok",
              reps(level[t] * day * 100, 0.01), "") for t in (1, 2, 4)]
    cells.append(("hash", "futex-private", 1, "", "ok",
                  reps(level[0] * day * 50, 0.01), ""))
    fake_run(path, cells, meta_extra={
        "matrix": {"fnv1a64": matrix}, "futexlab_version": version,
        "git_commit": "abc", "start_time": os.path.basename(path)})


def test_runs_verdicts(tmp):
    # cell t1 steady in A and 10% lower in every run of B; t2 the same in
    # both; t4 spread over +-10% between runs on both sides
    spread = [1.0, 1.1, 0.9, 1.05, 0.95]
    a, b = [], []
    for k in range(5):
        pa, pb = os.path.join(tmp, "A%d" % k), os.path.join(tmp, "B%d" % k)
        fake_matrix_run(pa, {0: 1.0, 1: 1.0 + k / 1000, 2: 1.0,
                             4: spread[k]})
        fake_matrix_run(pb, {0: 1.0, 1: 0.9 + k / 1000, 2: 1.0,
                             4: spread[(k + 2) % 5]})
        a.append(pa)
        b.append(pb)
    out = os.path.join(tmp, "cmp")
    r = fl("compare", "--a", *a, "--b", *b, "--out", out, check_rc=0)
    rows = {x["threads"] + x["workload"]: x
            for x in rows_of(os.path.join(out, "compare.csv"))}
    check(rows["1mutex"]["verdict"] == "slower", "10%% drop: %r" %
          rows["1mutex"])
    check(0.89 < float(rows["1mutex"]["ratio"]) < 0.91 and
          float(rows["1mutex"]["ratio_hi"]) < 0.98, "its ratio and "
          "interval: %r" % rows["1mutex"])
    check(rows["2mutex"]["verdict"] == "equivalent", "same: %r" %
          rows["2mutex"])
    check(rows["4mutex"]["verdict"] == "needs more runs" and
          int(rows["4mutex"]["runs_needed"]) > 5 and
          "runs per side" in rows["4mutex"]["reason"],
          "spread between runs: %r" % rows["4mutex"])
    check("runs as the unit" in r.stdout and "need more runs" in
          r.stdout, "summary lines: %s" % r.stdout)
    check(os.path.exists(os.path.join(out, "ratios.gp")) and
          "$runs1" in open(os.path.join(out, "ratios.gp")).read(),
          "each run's point in the plot")
    # a day effect: every cell of two of B's runs 8% faster; the cells'
    # own intervals hold, the overall interval widens to hold it
    b2 = []
    for k in range(5):
        p = os.path.join(tmp, "D%d" % k)
        fake_matrix_run(p, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0},
                        day=1.08 if k < 2 else 1.0)
        b2.append(p)
    a2 = []
    for k in range(5):
        p = os.path.join(tmp, "E%d" % k)
        fake_matrix_run(p, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0})
        a2.append(p)
    r = fl("compare", "--a", *a2, "--b", *b2, "--out", out, "--no-plot",
           check_rc=0)
    line = [x for x in r.stdout.splitlines() if "overall:" in x][0]
    lo, hi = [float(v) for v in line.split("[")[1].split("]")[0]
              .split(",")]
    check(lo <= 1.0 <= hi and hi > 1.05, "a day effect widens the "
          "overall interval over runs: %s" % line)
    # sides that differ by a setting: matched only when it is declared
    c = []
    for k in range(4):
        p = os.path.join(tmp, "C%d" % k)
        fake_matrix_run(p, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0},
                        m="algo=mutex3;critical=1050")
        c.append(p)
    r = fl("compare", "--a", *a[:4], "--b", *c, "--setting", "critical",
           "--out", out, "--no-plot", check_rc=0)
    got = [x["verdict"] for x in rows_of(os.path.join(out, "compare.csv"))]
    check(len(got) == 4 and "not comparable" not in got,
          "--setting did not match the cells: %s" % got)
    fl("compare", "--a", *a[:4], "--b", *c, "--out", out, "--no-plot",
       check_rc=0)
    got = [x["verdict"] for x in rows_of(os.path.join(out, "compare.csv"))]
    check(got.count("not comparable") == 6, "cells of another setting "
          "matched without --setting: %s" % got)
    # one run a side: said; three a side: no interval
    r = fl("compare", "--a", a[0], "--b", b[0], "--out", out, "--no-plot",
           check_rc=0)
    check("see a change of the machine between runs" in r.stdout,
          "one run a side not said: %s" % r.stdout)
    r = fl("compare", "--a", *a[:3], "--b", *b[:3], "--out", out,
           "--no-plot", check_rc=0)
    check("no interval: 3 and 3 runs" in r.stdout and "slower" not in
          [x["verdict"] for x in rows_of(os.path.join(out,
                                                      "compare.csv"))],
          "3 a side: %s" % r.stdout)


def campaign(*args, timeout=240):
    return fl("campaign", *args, timeout=timeout)


def manifest(cdir):
    with open(os.path.join(cdir, "campaign.json")) as f:
        return json.load(f)


def test_campaign_small(tmp):
    mfile = os.path.join(tmp, "mutex.ini")
    runs.write(mfile, TINY % ("mutex", "mutex"))
    cdir = os.path.join(tmp, "crit")
    r = campaign(cdir, "--matrix", mfile, "--rounds", "3", "--seed", "7",
                 "--side", "A:set=critical=1000",
                 "--side", "B:set=critical=1050")
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-800:]))
    m = manifest(cdir)
    check(m["setting"] == "critical", "setting not declared: %r" %
          m["setting"])
    sides = [s["side"] for s in m["slots"]]
    check(len(sides) == 6 and all(sorted(sides[i:i + 2]) == ["A", "B"]
                                  for i in (0, 2, 4)),
          "rounds do not interleave the sides: %s" % sides)
    check(len({sides[i] for i in (0, 2, 4)}) == 2,
          "one side leads every round: %s" % sides)
    check(all(s["run"] and s["start_time"] and s["host"] for s in
              m["slots"]), "a slot not recorded: %r" % m["slots"])
    check("critical=1050" in m["sides"][1]["why"], "why: %r" % m["sides"])
    first = os.path.join(cdir, m["slots"][0]["run"])
    fl("report", first, check_rc=0)
    r = fl("compare", cdir, "--no-plot", check_rc=0)
    out = os.path.join(cdir, "compare-A-vs-B")
    # a row per figure: the primary one's, and the cost's where the
    # runs counted it, each of the matched cell
    rows = rows_of(os.path.join(out, "compare.csv"))
    cost = [x for x in rows if x["figure"] == "cpu_ns_per_op"]
    rows = [x for x in rows if x["figure"] != "cpu_ns_per_op"]
    check(len(rows) == 1 and rows[0]["verdict"] == "needs more runs" and
          rows[0]["runs_a"] == "3" and rows[0]["runs_b"] == "3" and
          all(x["runs_a"] == "3" and x["runs_b"] == "3" for x in cost)
          and len(cost) <= 1,
          "cells differing by the declared setting not matched: %r" %
          (rows + cost))
    check(out in r.stdout, "compare CAMPAIGN prints its folder: %s" %
          r.stdout)

    # two futexlab binaries, on hash
    hfile = os.path.join(tmp, "hash.ini")
    runs.write(hfile, TINY % ("hash", "hash"))
    for side in ("1", "2"):
        shutil.copy(runs.FL, os.path.join(tmp, "futexlab-" + side))
    cdir = os.path.join(tmp, "bins")
    r = campaign(cdir, "--matrix", hfile, "--rounds", "3",
                 "--side", "old:bin=" + os.path.join(tmp, "futexlab-1"),
                 "--side", "new:bin=" + os.path.join(tmp, "futexlab-2"))
    check(r.returncode == 0, "campaign of binaries: %d %s" %
          (r.returncode, r.stderr[-800:]))
    for side in ("old", "new"):
        check(os.access(os.path.join(cdir, "builds", side, "futexlab"),
                        os.X_OK), "side %s's binary not copied in" % side)
    check(len(glob.glob(os.path.join(cdir, "runs", "*"))) == 6,
          "not six runs")
    r = fl("compare", cdir, "--no-plot", check_rc=0)
    check("needs more runs" in r.stdout, "hash compared: %s" % r.stdout)


def test_campaign_resume(tmp):
    mfile = os.path.join(tmp, "hash.ini")
    runs.write(mfile, (TINY % ("hash", "hash")).replace("reps = 6",
                                                        "reps = 10"))
    cdir = os.path.join(tmp, "c")
    p = subprocess.Popen([runs.FL, "campaign", cdir, "--matrix", mfile,
                          "--rounds", "2", "--side", "A", "--side", "B"],
                         start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    # kill it once two runs finished and the third wrote rows
    deadline = time.time() + 120
    done = []
    while time.time() < deadline:
        done = sorted(glob.glob(os.path.join(cdir, "runs", "*")))
        rows = glob.glob(os.path.join(cdir, "work", "*", ".partial-*",
                                      "cells.csv"))
        if len(done) >= 2 and rows and \
                len(open(rows[0]).read().splitlines()) >= 3:
            break
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    # the campaign's run is in its group too: a resume before the kill
    # reached it would find the partial still locked ("wait until it
    # ends"), as a user would
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            os.killpg(p.pid, 0)
            time.sleep(0.05)
        except ProcessLookupError:
            break
    check(len(done) >= 2, "never got two runs in: %s" % done)
    before = {d: os.stat(os.path.join(d, "meta.json")).st_ino
              for d in glob.glob(os.path.join(cdir, "runs", "*"))}
    partial = glob.glob(os.path.join(cdir, "work", "*", ".partial-*"))
    check(partial, "no partial run left by the kill")
    r = campaign(cdir)
    check(r.returncode == 0, "resume: %d %s" % (r.returncode,
                                                r.stderr[-800:]))
    m = manifest(cdir)
    resumed = [s["run"] for s in m["slots"] if s["run"] and json.load(
        open(os.path.join(cdir, s["run"], "meta.json"))).get("resumed")]
    check(len(resumed) == 1 and "resuming its partial run" in r.stderr,
          "the partial run was not resumed (matrix --resume): %s, %s" %
          (resumed, r.stderr[-800:]))
    check(all(s["run"] for s in m["slots"]) and len(m["slots"]) == 4,
          "not every slot recorded: %r" % m["slots"])
    for d, ino in before.items():
        check(os.path.exists(d) and
              os.stat(os.path.join(d, "meta.json")).st_ino == ino,
              "a finished run was lost or rewritten: %s" % d)
    check(len(glob.glob(os.path.join(cdir, "runs", "*"))) == 4,
          "not four runs")
    fl("compare", cdir, "--no-plot", check_rc=0)


def test_campaign_spend(tmp):
    mfile = os.path.join(tmp, "hash.ini")
    runs.write(mfile, TINY % ("hash", "hash"))
    # identical sides of a noisy cell: undecided after 4 rounds, so a
    # fifth is added up to --max-rounds
    cdir = os.path.join(tmp, "more")
    r = campaign(cdir, "--matrix", mfile, "--rounds", "4", "--max-rounds",
                 "5", "--delta", "0.01", "--side", "A", "--side", "B",
                 timeout=300)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-800:]))
    n = len(manifest(cdir)["slots"])
    check(n == 10 and "adding a round" in r.stderr or
          n == 8 and "adding" not in r.stderr,
          "rounds added against the verdicts: %d slots, %s" %
          (n, r.stderr[-500:]))
    m = manifest(cdir)
    check(m["max_rounds"] == 5, "max_rounds not recorded")


def files_of(path):
    return sorted(os.path.relpath(os.path.join(d, f), path)
                  for d, _, fs in os.walk(path) for f in fs)


def refused(args, what, keep):
    """futexlab ARGS exits 2 with one line naming `what`, and leaves every
    file under keep where it was."""
    before = files_of(keep)
    r = fl(*args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2, "%s: exit %d, want 2 (%s)" %
          (" ".join(args[:3]), r.returncode, r.stderr[-300:]))
    check(len(lines) == 1 and what in lines[0],
          "%s: stderr %r, want one line naming %r" %
          (" ".join(args[:3]), r.stderr, what))
    check(files_of(keep) == before, "%s deleted or added files" %
          " ".join(args[:3]))


def test_bad_inputs(tmp):
    a = []
    for k in range(3):
        p = os.path.join(tmp, "R%d" % k)
        fake_matrix_run(p, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0})
        a.append(p)
    other = os.path.join(tmp, "other")
    fake_matrix_run(other, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0}, matrix="m2")
    newer = os.path.join(tmp, "newer")
    fake_matrix_run(newer, {0: 1.0, 1: 1.0, 2: 1.0, 4: 1.0},
                    version="0.2.0")
    refused(["compare", "--a", a[0], other, "--b", a[1], a[2]],
            "side A mixes matrices", tmp)
    refused(["compare", "--a", a[0], a[1], "--b", a[2], newer],
            "side B mixes futexlab versions", tmp)
    refused(["compare", "--a", a[0], a[1], "--b"], "side B has no runs",
            tmp)
    refused(["compare", "extra", "--a", a[0], "--b", a[1], a[2]],
            "belongs to a side", tmp)
    # a run whose two cells differ only by the declared setting
    both = []
    for k in range(2):
        p = os.path.join(tmp, "S%d" % k)
        fake_run(p, [("mutex", "futex-private", 1, "algo=mutex3;critical=%d"
                      % c, "ok", reps(100, 0.01), "") for c in (10, 20)],
                 meta_extra={"matrix": {"fnv1a64": "s"},
                             "futexlab_version": "0.1.0",
                             "git_commit": "abc"})
        both.append(p)
    refused(["compare", "--a", both[0], "--b", both[1], "--setting",
             "critical"], "differ only by the setting critical", tmp)

    # a real campaign of two rounds, then its manifest edited
    mfile = os.path.join(tmp, "hash.ini")
    runs.write(mfile, TINY % ("hash", "hash"))
    cdir = os.path.join(tmp, "c")
    r = campaign(cdir, "--matrix", mfile, "--rounds", "2", "--side", "A",
                 "--side", "B")
    check(r.returncode == 0, "campaign: %s" % r.stderr[-500:])
    good = open(os.path.join(cdir, "campaign.json")).read()

    def edited(fn):
        m = json.loads(good)
        fn(m)
        runs.write(os.path.join(cdir, "campaign.json"), json.dumps(m))

    def slot_run(i, value):
        return lambda m: m["slots"][i].update(run=value)

    def other_slot(m):
        # the slot of a run that exists, but named by another slot
        m["slots"][1]["run"] = m["slots"][0]["run"]

    for fn, what in [
            (slot_run(0, "../../etc"), "is not runs/01-"),
            (slot_run(0, "/tmp"), "is not runs/01-"),
            (other_slot, "is not runs/02-"),
            (lambda m: m["slots"][0].update(side="Z"), "no side"),
            (lambda m: m.update(schema="x"), "schema")]:
        edited(fn)
        for args in (["compare", cdir], ["campaign", cdir]):
            refused(args, what, cdir)
    # a recorded run gone: missing
    edited(lambda m: None)
    first = manifest(cdir)["slots"][0]["run"]
    moved = os.path.join(tmp, "moved")
    os.rename(os.path.join(cdir, first), moved)
    refused(["compare", cdir], "missing or not a run", cdir)
    # a foreign run under the recorded name
    shutil.copytree(a[0], os.path.join(cdir, first))
    refused(["compare", cdir], "a foreign run", cdir)
    refused(["campaign", cdir], "a foreign run", cdir)
    shutil.rmtree(os.path.join(cdir, first))
    # the run as a symbolic link to the real one
    os.symlink(moved, os.path.join(cdir, first))
    refused(["compare", cdir], "symbolic link", cdir)
    os.unlink(os.path.join(cdir, first))
    os.rename(moved, os.path.join(cdir, first))
    fl("compare", cdir, "--no-plot", check_rc=0)
    # bad flags
    for args, what in [
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "A"], "two --side"),
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "A", "--side", "A"], "two sides named A"),
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "A", "--side", "B:frob=1"], "not one of"),
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "a/b", "--side", "B"], "its name"),
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "A", "--side", "B:commit=-x"], "not one of"),
            (["campaign", os.path.join(tmp, "n"), "--matrix", mfile,
              "--side", "A:set=critical=1", "--side", "B:set=think=2"],
             "one setting"),
            (["campaign", os.path.join(tmp, "nothing")], "No such")]:
        refused(args, what, tmp)


TESTS = [test_runs_verdicts, test_campaign_small, test_campaign_resume,
         test_campaign_spend, test_bad_inputs]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign"))
