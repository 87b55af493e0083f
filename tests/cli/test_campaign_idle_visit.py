#!/usr/bin/env python3
"""A visit that completed no operation stops its cell, not the campaign.

  tests/cli/test_campaign_idle_visit.py --builddir build [-k NAME] [-v]

  idle_visit  a visit campaign of two cells whose side B is this
              futexlab behind a wrapper that makes every visit of cell
              1 say 0 ops/s (what a spinner starved of its CPU for a
              whole visit says; the default matrix's waitv on spin
              with 2 threads did it): the campaign ends well (exit 0),
              says in one line that cell 1 stopped because B's visit
              completed no operation, cell 0 gets its blocks, and
              compare prints cell 0's paired verdict line; before, the
              campaign ended with exit 2 ("did not say its figure")
  all_stopped a campaign whose one cell no side can run (the PI mutex on
              spin) stops it at its first visit: the campaign ends with
              exit 1 and one line saying that no block was made and
              where the runs say why, and so does its resume; compare
              refuses it in one line saying the same, exit 2; before,
              the campaign tried to finish a run with no visit ("side
              A has no visit ... to finish its run with", exit 2)
No timing is asserted. Ends with `campaign_idle_visit: N passed, N failed`.
"""

import json
import os
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl  # noqa: E402
from test_campaign_visits import TINY  # noqa: E402

# every other command as futexlab runs it; a visit of cell 1 says 0 ops/s
WRAPPER = """#!/bin/sh
case " $* " in
*" --visit 1:"*)
	"%s" "$@" | sed 's/^\\(visit 1 [0-9]* ok ops_per_sec\\) [^ ]*/\\1 0/'
	;;
*)
	exec "%s" "$@"
	;;
esac
"""


def wrapped_campaign(tmp, script, matrix):
    """A visit campaign of 4 blocks a cell whose side A is this futexlab
    and side B the shell script given; its folder and the result"""
    wrapper = os.path.join(tmp, "futexlab-wrapped")
    with open(wrapper, "w") as f:
        f.write(script)
    os.chmod(wrapper, stat.S_IRWXU)
    mfile = runs.write(os.path.join(tmp, "m.ini"), matrix)
    cdir = os.path.join(tmp, "c")
    r = fl("campaign", cdir, "--matrix", mfile, "--side", "A", "--side",
           "B:bin=" + wrapper, "--interleave", "visit", "--time-budget",
           "600", "--max-blocks", "4", timeout=600)
    check(r.returncode == 0, "campaign: exit %d\n%s" % (r.returncode,
                                                        r.stderr[-1500:]))
    return cdir, r


def test_idle_visit(tmp):
    fl_path = os.path.abspath(runs.FL)
    cdir, r = wrapped_campaign(tmp, WRAPPER % (fl_path, fl_path),
                               TINY.replace("threads = 1", "threads = 1, 2"))
    said = [x for x in r.stderr.splitlines() if "cell 1 stopped" in x]
    check(len(said) == 1 and "completed no operation" in said[0] and
          "side B's visit 1 " in said[0],
          "no line saying why cell 1 stopped:\n%s" % r.stderr[-1500:])
    with open(os.path.join(cdir, "campaign.json")) as f:
        m = json.load(f)
    cells = [b["cell"] for b in m["blocks"]]
    check(cells.count(0) == 4 and 1 not in cells and m["stopped"] == [1],
          "blocks of cells %r, stopped %r" % (cells, m["stopped"]))
    r = fl("compare", cdir)
    check(r.returncode == 0 and any(x.strip().startswith("cell 0 ")
                                    for x in r.stdout.splitlines()),
          "compare: %d\n%s" % (r.returncode, r.stdout + r.stderr[-800:]))


NONE_BLOCK = "no block was made: every cell stopped at its first visit"


def test_all_stopped(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY.replace(
        "backend = futex-private", "backend = spin").replace(
        "workload = mutex", "workload = mutex\nalgo = pi"))
    cdir = os.path.join(tmp, "c")
    for what, args in (("campaign", ("--matrix", mfile, "--side", "A",
                                     "--side", "B", "--interleave",
                                     "visit", "--time-budget", "600",
                                     "--max-blocks", "4")),
                       ("its resume", ())):
        r = fl("campaign", cdir, *args, timeout=600)
        said = [x for x in r.stderr.splitlines() if NONE_BLOCK in x]
        check(r.returncode == 1 and len(said) == 1 and
              "has no visit" not in r.stderr,
              "%s: exit %d\n%s" % (what, r.returncode, r.stderr[-1500:]))
    r = fl("compare", cdir)
    check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
          NONE_BLOCK in r.stderr,
          "compare: exit %d %r" % (r.returncode, r.stderr))


TESTS = [test_idle_visit, test_all_stopped]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_idle_visit"))
