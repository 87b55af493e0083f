#!/usr/bin/env python3
"""A visit campaign's rule: the blocks its time budget holds, the calls
that share its alpha.

  tests/cli/test_campaign_horizon.py --builddir build [-k NAME] [-v]

  budget_horizon   a campaign with --time-budget 10 and no --max-blocks
                   fixes its stopping rule's horizon from its first
                   blocks' pace: it says so in one line ("... s a block:
                   the time budget holds N blocks of a cell ..."), the
                   manifest's horizon is that N (16 or more, less than
                   the 2000 it starts from) and no longer pending, no
                   cell has more blocks than N, and compare reads it
  max_blocks       --max-blocks 12 sets the horizon outright: no pace
                   line, horizon 12, not pending
  old_manifest     a manifest without horizon_pending (a campaign from
                   before) is compared as it was; one whose
                   horizon_pending is not true or false is refused in
                   one line naming it, exit 2
  family           a matrix of 4 cells, one a backend cannot run (the PI
                   mutex on spin): the 3 others' calls share the rule's
                   alpha: one line says so ("3 cells, 1 side against A:
                   each call at alpha 1.7%"), the manifest's family is
                   3, compare's header names the share; a manifest
                   without family (from before) is compared the same,
                   one with a family past the cells' calls, below the
                   calls the cells still visited make, or not a count
                   is refused in one line naming it, exit 2
No timing is asserted. Ends with `campaign_horizon: N passed, N failed`.
"""

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl  # noqa: E402
from test_campaign_visits import SIDES, TINY, manifest  # noqa: E402

PACE = "the time budget holds "


def campaign(tmp, *extra, matrix=TINY):
    # visits of 0.01 s: the first 8 blocks well within the budget of 10 s
    mfile = runs.write(os.path.join(tmp, "m.ini"), matrix.replace(
        "duration = 0.02\nwarmup = 0.01", "duration = 0.01\nwarmup = 0.005"))
    cdir = os.path.join(tmp, "c")
    r = fl("campaign", cdir, "--matrix", mfile, *SIDES, "--interleave",
           "visit", *extra, timeout=600)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-1500:]))
    return cdir, r


def test_budget_horizon(tmp):
    cdir, r = campaign(tmp, "--time-budget", "10")
    said = [x for x in r.stderr.splitlines() if PACE in x]
    check(len(said) == 1, "no one pace line:\n%s" % r.stderr[-1500:])
    check(" of each of 1 cell," in said[0], "not 1 cell: %s" % said[0])
    n = int(said[0].split(PACE)[1].split()[0])
    m = manifest(cdir)
    check(m["horizon"] == n, "said %d blocks, the manifest's horizon is %d"
          % (n, m["horizon"]))
    check(16 <= n < 2000, "horizon %d: not from 16 below 2000" % n)
    check(m["horizon_pending"] is False, "the horizon is still pending")
    check(len(m["blocks"]) <= n, "%d blocks past the horizon %d" %
          (len(m["blocks"]), n))
    r = fl("compare", cdir)
    check(r.returncode == 0 and "cell 0 " in r.stdout,
          "compare: %d %s" % (r.returncode, r.stderr[-800:]))


def test_max_blocks(tmp):
    cdir, r = campaign(tmp, "--time-budget", "600", "--max-blocks", "12")
    check(PACE not in r.stderr, "a pace line with --max-blocks:\n%s" %
          r.stderr[-800:])
    m = manifest(cdir)
    check(m["horizon"] == 12 and m["horizon_pending"] is False,
          "horizon %r, pending %r" % (m["horizon"], m["horizon_pending"]))


def rewrite(cdir, key, value):
    path = os.path.join(cdir, "campaign.json")
    m = manifest(cdir)
    if value is None:
        del m[key]
    else:
        m[key] = value
    with open(path, "w") as f:
        json.dump(m, f)


def older(tmp, cdir, want, key):
    """A copy of cdir whose manifest lacks key (a campaign from before),
    checked to compare as cdir did (want)"""
    old = os.path.join(tmp, "old")
    shutil.copytree(cdir, old, symlinks=True)
    rewrite(old, key, None)
    got = fl("compare", old)
    check(got.returncode == 0 and
          got.stdout.replace(old, cdir) == want.stdout,
          "a manifest without %s: %d\n%s" %
          (key, got.returncode, got.stdout + got.stderr[-800:]))
    return old


def refused(old, key, value):
    rewrite(old, key, value)
    got = fl("compare", old)
    check(got.returncode == 2 and len(got.stderr.splitlines()) == 1 and
          key in got.stderr,
          "%s %r: %d %r" % (key, value, got.returncode, got.stderr))


def test_old_manifest(tmp):
    cdir, _ = campaign(tmp, "--time-budget", "600", "--max-blocks", "12")
    want = fl("compare", cdir)
    check(want.returncode == 0, "compare: %s" % want.stderr[-800:])
    refused(older(tmp, cdir, want, "horizon_pending"), "horizon_pending",
            "yes")


# two algorithms on two backends: spin has no PI, so that cell stops at
# its first visit and takes no share
FOUR = TINY.replace("backend = futex-private", "backend = futex-private,spin"
                    ).replace("workload = mutex", "workload = mutex\n"
                              "algo = mutex3,pi")


def test_family(tmp):
    cdir, r = campaign(tmp, "--time-budget", "600", "--max-blocks", "12",
                       matrix=FOUR)
    m = manifest(cdir)
    check(m["cells"] == 4 and m["stopped"] == [3],
          "cells %r, stopped %r: not 4 with the PI mutex on spin stopped" %
          (m["cells"], m["stopped"]))
    said = [x for x in r.stderr.splitlines() if "each call at alpha" in x]
    check(len(said) == 1 and "3 cells, 1 side against A: each call at "
          "alpha 1.7%, so that any of the 3 is wrong with a chance of 5% "
          "at most" in said[0], "no one family line:\n%s" % r.stderr[-1500:])
    check(m["family"] == 3, "the manifest's family is %r" % m.get("family"))
    want = fl("compare", cdir)
    check(want.returncode == 0 and "(margin 2%; 3 calls, each at alpha "
          "1.7%, any wrong with a chance of 5% at most)" in want.stdout,
          "compare's header:\n%s" % (want.stdout + want.stderr[-800:]))
    old = older(tmp, cdir, want, "family")
    # past the cells' calls, no count, fewer than the 3 cells still
    # visited make
    for bad in (5, -1, "3", 2):
        refused(old, "family", bad)


TESTS = [test_budget_horizon, test_max_blocks, test_old_manifest,
         test_family]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_horizon"))
