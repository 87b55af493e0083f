#!/usr/bin/env python3
"""A visit campaign past what one run holds, and its one busy-loop speed.

  tests/cli/test_campaign_visit_runs.py --builddir build [-k NAME] [-v]

  many_runs       a one-cell matrix of reps = 3 and a campaign of
                  --max-blocks 8: its blocks go on past the 3 a run holds,
                  each side's visits in 3 finished runs (3, 3 and 2
                  visits), the manifest's blocks naming runs 0, 0, 0, 1,
                  1, 1, 2, 2; compare reads every run and pairs all 8
                  blocks; a manifest edited so one run holds 4 visits of
                  the cell, a block names a run before the block
                  before's, busy_speed is -1 or per_run 0, is refused in
                  one line naming the member
  kill_resume     the campaign SIGKILLed (with its running visit) once
                  its blocks are in the second round of runs: `campaign
                  DIR` resumes it, the blocks before the kill kept, the
                  sides' runs again 3, 3 and 2 visits
  one_speed       every visit of both sides sized its busy loop by the
                  one speed the manifest records (busy_speed): each row's
                  busy_loops_per_us_used is that speed
  speed_pinned    matrix --visit 0 --busy-speed 1234: the row's
                  busy_loops_per_us_used is 1234 (not the visit's own
                  calibration, which busy_loops_per_us_start still
                  records); --busy-speed without --visit, or 0, x, -5,
                  100001; campaign --max-blocks 0, 2.5, x, 5000, or with
                  --interleave run: exit 2, one line, nothing made
No timing is asserted. Ends with `campaign_visit_runs: N passed, N failed`.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl  # noqa: E402
from test_campaign_visits import (TINY, SIDES, killed_at,  # noqa
                                  manifest, one_line, resumed, side_runs)

SMALL = TINY.replace("reps = auto", "reps = 3")


def campaign(tmp):
    """The campaign of 8 blocks in runs of 3; its folder."""
    mfile = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    cdir = os.path.join(tmp, "c")
    r = fl("campaign", cdir, "--matrix", mfile, *SIDES, "--time-budget",
           "600", "--max-blocks", "8", timeout=900)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-1500:]))
    return cdir


def refused(tmp, cdir, edit, member):
    m = manifest(cdir)
    edit(m)
    spoilt = os.path.join(tmp, "spoilt")
    subprocess.run(["rm", "-rf", spoilt], check=True)
    subprocess.run(["cp", "-a", cdir, spoilt], check=True)
    with open(os.path.join(spoilt, "campaign.json"), "w") as f:
        json.dump(m, f)
    r = fl("compare", spoilt)
    one_line(r, "compare of a manifest with %s edited" % member)
    check(member in r.stderr, "does not name %s: %s" % (member, r.stderr))


def test_many_runs(tmp):
    cdir = campaign(tmp)
    m = manifest(cdir)
    check([b["run"] for b in m["blocks"]] == [0, 0, 0, 1, 1, 1, 2, 2],
          "the blocks' runs: %r" % [b.get("run") for b in m["blocks"]])
    got = side_runs(cdir)
    check(sorted(got) == ["A", "B"], "the sides' runs: %s" % sorted(got))
    for side, rows in got.items():
        check([len(r) for r in rows] == [3, 3, 2],
              "side %s's runs hold %r visits, not 3, 3 and 2" %
              (side, [len(r) for r in rows]))
    r = fl("compare", cdir)
    check(r.returncode == 0, "compare: %d %s" % (r.returncode, r.stderr))
    cell = [x for x in r.stdout.splitlines()
            if x.strip().startswith("cell 0 ")]
    check(len(cell) == 1 and ", 8 blocks:" in cell[0],
          "compare did not pair all 8 blocks:\n%s" % r.stdout)
    check("3 runs a side" in r.stdout, "does not say the runs:\n%s" %
          r.stdout)

    def crowd(m):
        m["blocks"][3]["run"] = 0

    def back(m):
        m["blocks"][7]["run"] = 1
        m["blocks"][6]["run"] = 2

    def speed(m):
        m["busy_speed"] = -1

    def per_run(m):
        m["per_run"] = 0

    refused(tmp, cdir, crowd, "blocks[3]")
    refused(tmp, cdir, back, "blocks[7].run")
    refused(tmp, cdir, speed, "busy_speed")
    refused(tmp, cdir, per_run, "per_run")


def test_kill_resume(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    cdir = os.path.join(tmp, "c")
    before = killed_at(cdir, 4, "--matrix", mfile, *SIDES,
                       "--time-budget", "600", "--max-blocks", "8")
    check(4 <= len(before) < 8, "killed at %d blocks, not in the second "
          "round" % len(before))
    resumed(cdir, before)
    for side, rows in side_runs(cdir).items():
        check([len(r) for r in rows] == [3, 3, 2],
              "side %s's runs hold %r visits after the resume" %
              (side, [len(r) for r in rows]))


def test_one_speed(tmp):
    cdir = campaign(tmp)
    speed = manifest(cdir).get("busy_speed")
    check(isinstance(speed, int) and speed > 0,
          "the manifest's busy_speed: %r" % speed)
    used = [row["busy_loops_per_us_used"]
            for rows in side_runs(cdir).values() for run in rows
            for row in run]
    check(len(used) == 16 and set(used) == {str(speed)},
          "the visits' busy_loops_per_us_used %r, not all %d" %
          (used, speed))


def test_speed_pinned(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY)
    res = os.path.join(tmp, "r")
    r = fl("matrix", mfile, "--results", os.path.join(tmp, "p"), "--visit",
           "0", "--busy-speed", "1234")
    check(r.returncode == 0, "--busy-speed 1234: %d %s" % (r.returncode,
                                                          r.stderr))
    row = runs.rows_of(os.path.join(r.stdout.splitlines()[-1],
                                    "cells.csv"))[0]
    check(row["busy_loops_per_us_used"] == "1234" and
          row["busy_loops_per_us_start"] not in ("", "0", "1234"),
          "used %s, start %s" % (row["busy_loops_per_us_used"],
                                 row["busy_loops_per_us_start"]))
    one_line(fl("matrix", mfile, "--results", res, "--busy-speed", "3000"),
             "--busy-speed without --visit")
    for bad in ("0", "x", "-5", "100001", ""):
        one_line(fl("matrix", mfile, "--results", res, "--visit", "0",
                    "--busy-speed", bad), "--busy-speed %r" % bad)
    check(not os.path.exists(res), "a refused --busy-speed made %s" % res)
    cdir = os.path.join(tmp, "c")
    for bad in ("0", "2.5", "x", "5000"):
        one_line(fl("campaign", cdir, "--matrix", mfile, *SIDES,
                    "--max-blocks", bad), "--max-blocks %r" % bad)
    one_line(fl("campaign", cdir, "--matrix", mfile, *SIDES, "--max-blocks",
                "5", "--interleave", "run"), "--max-blocks, runs")
    check(not os.path.exists(cdir), "a refused --max-blocks made %s" % cdir)


TESTS = [test_many_runs, test_kill_resume, test_one_speed,
         test_speed_pinned]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_visit_runs"))
