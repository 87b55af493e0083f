#!/usr/bin/env python3
"""A matrix's visits are journalled apart from its cells: cells.csv's
`cell` column is a cell index at every moment, the visit order is
visits.csv's.

  tests/cli/test_visit_journal.py --builddir build [-k NAME] [-v]

  partial_mid_run    a matrix of several cells killed (SIGKILL to its
                     process group) after a few visits: every row of the
                     partial's cells.csv is its cell's (cell, rep and
                     hist the cell's, the threads the cell's), visits.csv
                     lists the visits written in the order they ran; the
                     resume finishes it into the cells.csv and files an
                     uninterrupted run of the same matrix has
  old_partial        a partial in the layout of a futexlab before the
                     journal (the cell column a visit index, no
                     visits.csv) is refused in one line saying how to
                     resume it, exit 2, nothing in it changed
Ends with `visit-journal: N passed, N failed` (tests/run.py reads it).
"""

import csv
import glob
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import partials as pt  # noqa: E402
import runs  # noqa: E402
from runs import check, fl, rows_of, write  # noqa: E402
from test_resume_untrusted import snapshot  # noqa: E402

THREADS = [1, 2, 3, 4]
REPS = 2
MATRIX = """\
[defaults]
duration = 0.1
warmup = 0
reps = %d
seed = 7

[experiment m]
workload = mutex
backend = futex-private
threads = %s
""" % (REPS, ",".join(str(t) for t in THREADS))
KILL_AFTER = 3          # visits written before the kill


def group_gone(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def killed_partial(tmp):
    """The matrix started in a process group of its own and killed with
    SIGKILL once KILL_AFTER rows are written; its partial directory."""
    ini = write(os.path.join(tmp, "m.ini"), MATRIX)
    results = os.path.join(tmp, "results")
    p = subprocess.Popen([runs.FL, "matrix", ini, "--results", results],
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    partial = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None:
        found = glob.glob(os.path.join(results, ".partial-*"))
        cells = found and os.path.join(found[0], "cells.csv")
        if cells and os.path.exists(cells):
            with open(cells) as f:
                if f.read().count("\n") - 1 >= KILL_AFTER:
                    partial = found[0]
                    break
        time.sleep(0.002)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    while time.monotonic() < deadline and not group_gone(p.pid):
        time.sleep(0.01)
    check(group_gone(p.pid), "the matrix's process group outlived SIGKILL")
    check(partial is not None, "the matrix ended before %d visits were "
          "written" % KILL_AFTER)
    finals = [d for d in os.listdir(results) if not d.startswith(".")]
    check(not finals, "a killed matrix has a finished run: %s" % finals)
    return ini, partial


def journal_of(partial):
    path = os.path.join(partial, "visits.csv")
    check(os.path.isfile(path), "the partial has no visits.csv: %s"
          % sorted(os.listdir(partial)))
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    check(lines and lines[0] == ["visit", "cell", "rep"],
          "visits.csv's header: %r" % (lines[:1],))
    return [tuple(int(x) for x in ln) for ln in lines[1:]]


def shape(run):
    """What a run's files are, apart from its measurements: the rows'
    cell, rep and cell description, in order, and the names of its
    files."""
    rows = rows_of(os.path.join(run, "cells.csv"))
    with open(os.path.join(run, "cells.csv")) as f:
        header = f.readline()
    files = sorted(os.path.relpath(os.path.join(d, n), run)
                   for d, _, ns in os.walk(run) for n in ns)
    return header, [(r["cell"], r["rep"], r["workload"], r["backend"],
                     r["threads"], r["options"], r["hist"]) for r in rows], \
        files


def test_partial_mid_run(tmp):
    ini, partial = killed_partial(tmp)
    rows = rows_of(os.path.join(partial, "cells.csv"))
    planned = pt.visits_of(pt.state_of(partial))
    check(len(rows) >= KILL_AFTER, "the partial holds %d rows" % len(rows))
    for i, r in enumerate(rows):
        c, rep = int(r["cell"]), int(r["rep"])
        check(0 <= c < len(THREADS), "row %d: cell %d is not a cell" % (i, c))
        check(int(r["threads"]) == THREADS[c],
              "row %d: cell %d has %s threads, the cell %d" % (
                  i, c, r["threads"], THREADS[c]))
        check(r["hist"] == "hist/cell-%04d.csv" % c,
              "row %d: hist %s is not cell %d's" % (i, r["hist"], c))
        check((c, rep) in planned, "row %d: cell %d repetition %d is not "
              "a visit the run planned" % (i, c, rep))
    journal = journal_of(partial)
    # the rows ran in visit order; the kill may come between a row and
    # its journal line
    check(len(rows) - 1 <= len(journal) <= len(rows),
          "%d rows but %d journal lines" % (len(rows), len(journal)))
    check([v for v, _, _ in journal] == list(range(len(journal))),
          "the journal's visits are not in the order they ran: %s"
          % journal)
    for v, c, rep in journal:
        check((c, rep) == planned[v], "journal: visit %d is cell %d rep %d;"
              " the plan says %s" % (v, c, rep, planned[v]))
    check([(c, rep) for _, c, rep in journal] ==
          [(int(r["cell"]), int(r["rep"])) for r in rows[:len(journal)]],
          "the journal and the rows disagree")

    r = fl("matrix", "--resume", partial, timeout=120)
    check(r.returncode == 0, "resume: exit %d: %s" % (r.returncode,
                                                       r.stderr))
    resumed = r.stdout.strip().splitlines()[-1]
    r = fl("matrix", ini, "--results", os.path.join(tmp, "whole"),
           timeout=120, check_rc=0)
    whole = r.stdout.strip().splitlines()[-1]
    got, want = shape(resumed), shape(whole)
    check(got[0] == want[0], "the header differs: %r %r" % (got[0], want[0]))
    check(got[1] == want[1], "the rows differ from an uninterrupted run's:"
          " %s\n%s" % (got[1], want[1]))
    check(got[2] == want[2], "the files differ from an uninterrupted "
          "run's: %s\n%s" % (got[2], want[2]))


def to_old_layout(partial):
    """The partial as a futexlab before the journal left it: the cell
    column the visit's index, rep 0, one histogram per visit under its
    index, no visits.csv."""
    journal = journal_of(partial)
    head, rows = pt.read_rows(partial)
    out = []
    for (v, c, rep), row in zip(journal, rows):
        row = list(row)
        row[head.index("cell")] = str(v)
        row[head.index("rep")] = "0"
        row[head.index("hist")] = "hist/cell-%04d.csv" % v
        os.rename(os.path.join(partial, "hist",
                               "cell-%04d-rep-%03d.csv" % (c, rep)),
                  os.path.join(partial, "hist", "cell-%04d.csv" % v))
        out.append(row)
    pt.write_rows(partial, head, out)
    os.remove(os.path.join(partial, "visits.csv"))


def test_old_partial(tmp):
    _, partial = killed_partial(tmp)
    if os.path.exists(os.path.join(partial, "visits.csv")):
        to_old_layout(partial)
    # else: this futexlab has no journal, its partial is the old layout
    before = snapshot(os.path.dirname(partial))
    r = fl("matrix", "--resume", partial, timeout=120)
    lines = r.stderr.splitlines()
    check(r.returncode == 2, "an old partial: exit %d: %s" % (
        r.returncode, r.stderr))
    check(len(lines) == 1 and "visit journal" in lines[0] and
          "the futexlab that started it" in lines[0],
          "the refusal is not one line saying how: %r" % r.stderr)
    check(snapshot(os.path.dirname(partial)) == before,
          "the refused resume changed a file")


TESTS = [test_partial_mid_run, test_old_partial]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "visit-journal"))
