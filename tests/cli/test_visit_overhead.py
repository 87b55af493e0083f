#!/usr/bin/env python3
"""What a campaign's visit (`matrix --resume P --visit CELL:N`, one
repetition in a process of its own) does besides its repetition, and that
the readers take what it leaves out.

  tests/cli/test_visit_overhead.py --builddir build [-k NAME] [-v]

  probe_first_visit  a 2-side campaign of two cells: in each side's run
                     the row of each cell's first visit (rep 0) has the
                     idle-wake columns, every later one has them empty
                     (not probed); report, compare of the two runs, plot
                     and compare of the campaign read them, exit 0 and
                     print no nan; the report says how many repetitions
                     were probed
  matrix_probes      an ordinary matrix run (not --visit) still probes
                     before every visit: no row has them empty
  visit_reads        the 7th visit of a partial run whose earlier visits'
                     histograms but the last are FIFOs: it opens none of
                     them (the last one's is the only one a kill can have
                     left missing), appends its row, and rewrites neither
                     cells.csv nor visits.csv (same inodes: they held
                     what it would have written)
  visit_crafted      a partial whose earlier visit's histogram is a FIFO,
                     or garbage: the visit neither reads nor hangs on it
                     and appends its own row; `--finish` (a resume that
                     reads every histogram) refuses it in one line, exit
                     2, the partial unchanged; the last visit's
                     histogram removed: the visit drops that row and
                     makes the visit again, as any resume does
No timing is asserted. Ends with `visit_overhead: N passed, N failed`.
"""

import glob
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl  # noqa: E402
from test_campaign_untrusted import tree  # noqa: E402
from test_campaign_visits import SIDES, TINY, one_line, side_runs  # noqa

WAKE = ("idle_wake_short_ns", "idle_wake_long_ns")
TWO_CELLS = TINY.replace("threads = 1", "threads = 1,2")


def no_nan(r, what):
    check(r.returncode == 0, "%s: exit %d %s" % (what, r.returncode,
                                                 r.stderr[-1500:]))
    for stream in (r.stdout, r.stderr):
        check(not re.search(r"\b(nan|inf)\b", stream, re.I),
              "%s printed nan or inf:\n%s" % (what, stream[-3000:]))


def test_probe_first_visit(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"), TWO_CELLS)
    cdir = os.path.join(tmp, "c")
    r = fl("campaign", cdir, "--matrix", mfile, *SIDES, "--max-blocks", "8",
           "--time-budget", "600", timeout=900)
    check(r.returncode == 0, "campaign: %d %s" % (r.returncode,
                                                  r.stderr[-1500:]))
    later = 0
    for side, rows in side_runs(cdir).items():
        for row in rows[0]:
            first = row["rep"] == "0"
            for col in WAKE:
                if first:
                    check(row[col] != "", "side %s cell %s rep 0: %s "
                          "empty" % (side, row["cell"], col))
                else:
                    check(row[col] == "", "side %s cell %s rep %s: %s "
                          "is %r, not empty (not probed)" %
                          (side, row["cell"], row["rep"], col, row[col]))
            later += not first
    check(later > 0, "no cell had a second visit")
    run_a, run_b = sorted(glob.glob(os.path.join(cdir, "runs", "*")))
    rep = fl("report", run_a)
    no_nan(rep, "report")
    md = open(os.path.join(run_a, "report.md")).read()
    wake = [x for x in md.splitlines() if "waking an idle CPU" in x]
    check(len(wake) == 2 and all(" of " in x and "not probed" in x
                                 for x in wake),
          "the report's idle-wake lines do not say how many repetitions "
          "were probed: %r" % wake)
    no_nan(fl("compare", "--a", run_a, "--b", run_b, "--setting",
              "critical"), "compare of the two runs")
    # compare run by run, which sets figures against the probe
    again = os.path.join(tmp, "again")
    shutil.copytree(run_a, again)
    no_nan(fl("compare", run_a, again), "compare of a run and its copy")
    no_nan(fl("plot", run_a, "--scripts-only"), "plot")
    no_nan(fl("compare", cdir), "compare of the campaign")


def test_matrix_probes(tmp):
    mfile = runs.write(os.path.join(tmp, "m.ini"),
                       TINY.replace("reps = auto", "reps = 3"))
    r = fl("matrix", mfile, "--results", os.path.join(tmp, "r"))
    check(r.returncode == 0, "matrix: %d %s" % (r.returncode, r.stderr))
    rows = runs.rows_of(os.path.join(r.stdout.splitlines()[-1],
                                     "cells.csv"))
    check(len(rows) == 3 and all(row[c] != "" for row in rows
                                 for c in WAKE),
          "a matrix run left a visit unprobed: %r" %
          [[row[c] for c in WAKE] for row in rows])


def partial_of(tmp, visits):
    """A partial run of TINY's one cell with visits visits; its path and
    the matrix file."""
    mfile = runs.write(os.path.join(tmp, "m.ini"), TINY)
    r = fl("matrix", mfile, "--results", os.path.join(tmp, "r"), "--visit",
           "0")
    check(r.returncode == 0, "--visit 0: %d %s" % (r.returncode, r.stderr))
    partial = r.stdout.splitlines()[-1]
    for n in range(2, visits + 1):
        r = fl("matrix", "--resume", partial, mfile, "--visit", "0:%d" % n)
        check(r.returncode == 0, "--visit 0:%d: %d %s" % (n, r.returncode,
                                                         r.stderr))
    return partial, mfile


def test_visit_reads(tmp):
    partial, mfile = partial_of(tmp, 6)
    # a FIFO where each earlier visit's histogram was: refused, had the
    # visit opened one; the last visit's, 5, as it was
    for rep in range(5):
        name = os.path.join(partial, "hist", "cell-0000-rep-%03d.csv" % rep)
        os.remove(name)
        os.mkfifo(name)
    inode = {n: os.stat(os.path.join(partial, n)).st_ino
             for n in ("cells.csv", "visits.csv")}
    r = fl("matrix", "--resume", partial, mfile, "--visit", "0:7",
           timeout=60)
    check(r.returncode == 0 and r.stdout.startswith("visit 0 7 ok "),
          "--visit 0:7 read an earlier visit's histogram: %d %s %s" %
          (r.returncode, r.stdout, r.stderr))
    for n, ino in inode.items():
        check(os.stat(os.path.join(partial, n)).st_ino == ino,
              "the visit rewrote %s, which held what it would write" % n)
    rows = runs.rows_of(os.path.join(partial, "cells.csv"))
    check([row["rep"] for row in rows] == [str(k) for k in range(7)],
          "the reps after the visit: %r" % [row["rep"] for row in rows])


def copy_of(partial, tmp, name):
    """A copy of the partial run in a results folder of its own."""
    to = os.path.join(tmp, name, os.path.basename(partial))
    shutil.copytree(partial, to, symlinks=True)
    return to


def test_visit_crafted(tmp):
    made, mfile = partial_of(tmp, 4)
    rep = os.path.join("hist", "cell-0000-rep-%03d.csv")
    for spoil in ("fifo", "garbage"):
        partial = copy_of(made, tmp, spoil)
        os.remove(os.path.join(partial, rep % 1))
        if spoil == "fifo":
            os.mkfifo(os.path.join(partial, rep % 1))
        else:
            runs.write(os.path.join(partial, rep % 1), "not a histogram\n")
        r = fl("matrix", "--resume", partial, mfile, "--visit", "0:5",
               timeout=60)
        check(r.returncode == 0 and r.stdout.startswith("visit 0 5 ok "),
              "%s: --visit 0:5: %d %s %s" % (spoil, r.returncode, r.stdout,
                                             r.stderr))
        before = tree(os.path.dirname(partial))
        r = fl("matrix", "--resume", partial, mfile, "--finish", timeout=60)
        one_line(r, "%s: --finish" % spoil)
        check("cell-0000-rep-001.csv" in r.stderr,
              "%s: --finish does not name the histogram: %s" %
              (spoil, r.stderr))
        check(tree(os.path.dirname(partial)) == before,
              "%s: a refused --finish changed the partial" % spoil)
    partial = copy_of(made, tmp, "last")
    os.remove(os.path.join(partial, rep % 3))
    r = fl("matrix", "--resume", partial, mfile, "--visit", "0:4")
    check(r.returncode == 0 and r.stdout.startswith("visit 0 4 ok ") and
          "dropped 1 row" in r.stderr,
          "the last visit's histogram removed: %d %s %s" %
          (r.returncode, r.stdout, r.stderr))
    rows = runs.rows_of(os.path.join(partial, "cells.csv"))
    check([row["rep"] for row in rows] == ["0", "1", "2", "3"] and
          os.path.exists(os.path.join(partial, rep % 3)),
          "the visit was not made again: reps %r" %
          [row["rep"] for row in rows])


TESTS = [test_probe_first_visit, test_matrix_probes, test_visit_reads,
         test_visit_crafted]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "visit_overhead"))
