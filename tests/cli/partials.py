"""Partial matrix run directories, as test_untrusted.py spoils them.

A partial directory (results/.partial-NAME-PID-N) is what a matrix run
leaves when it is killed: cells.csv with its cells' rows in the order
the visits ran, each visit's own histogram hist/cell-C-rep-R.csv, the
journal visits.csv (visit,cell,rep: rundir/visits.h), matrix.ini and
matrix.json. template() runs a tiny matrix to the end and turns the
finished run back into the partial it was just before its rows were put
in cell order; each case copies it and spoils it one way. A row is
named by its place, which is its visit's index.
"""

import csv
import io
import json
import os
import shutil
import subprocess

# 4 cells of 2 repetitions: 8 visits in 2 passes, a second or so
TINY = """\
[defaults]
duration = 0.02
warmup = 0
reps = 2
seed = 1

[experiment m]
workload = mutex
backend = futex-private
threads = 1,2,3,4
"""


def visits_of(state):
    """[(cell, rep)] of every visit matrix.json planned, by visit index."""
    out, seen = [], {}
    for c in (c for p in state["passes"] for c in p):
        out.append((c, seen.get(c, 0)))
        seen[c] = seen.get(c, 0) + 1
    return out


def read_rows(d):
    with open(os.path.join(d, "cells.csv"), newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def write_rows(d, head, rows, tail=""):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(head)
    w.writerows(rows)
    with open(os.path.join(d, "cells.csv"), "w") as f:
        f.write(out.getvalue() + tail)


def visit_hist(c, rep):
    """A visit's own histogram in a partial directory."""
    return "hist/cell-%04d-rep-%03d.csv" % (c, rep)


def visit_hist_of(p, k):
    """Visit k's own histogram in the partial directory p."""
    return visit_hist(*visits_of(state_of(p))[k])


def unfinalize(final, partial):
    """The finished run at final as the partial directory partial."""
    shutil.copytree(final, partial)
    with open(os.path.join(final, "matrix.json")) as f:
        state = json.load(f)
    head, rows = read_rows(final)
    by = {(int(r[head.index("cell")]), int(r[head.index("rep")])): r
          for r in rows}
    shutil.rmtree(os.path.join(partial, "hist"))
    os.mkdir(os.path.join(partial, "hist"))
    out, journal = [], "visit,cell,rep\n"
    for k, (c, r) in enumerate(visits_of(state)):
        out.append(by[(c, r)])
        journal += "%d,%d,%d\n" % (k, c, r)
        # the cell's merged histogram stands in for the visit's own
        shutil.copy(os.path.join(final, "hist", "cell-%04d.csv" % c),
                    os.path.join(partial, visit_hist(c, r)))
    write_rows(partial, head, out)
    with open(os.path.join(partial, "visits.csv"), "w") as f:
        f.write(journal)
    os.remove(os.path.join(partial, "meta.json"))
    state.pop("finalizing", None)
    set_state(partial, state)


def template(futexlab, top, cwd):
    """(a partial directory to copy, the finished name it will take), or
    None when the tiny matrix does not run."""
    ini = os.path.join(top, "tiny.ini")
    with open(ini, "w") as f:
        f.write(TINY)
    results = os.path.join(top, "tiny-results")
    r = subprocess.run([futexlab, "matrix", ini, "--results", results],
                       capture_output=True, text=True, cwd=cwd, timeout=120)
    if r.returncode != 0:
        return None
    final = r.stdout.strip().splitlines()[-1]
    name = os.path.basename(final)
    partial = os.path.join(top, ".partial-%s-1-0" % name)
    unfinalize(final, partial)
    return partial, name


def state_of(d):
    with open(os.path.join(d, "matrix.json")) as f:
        return json.load(f)


def set_state(d, state):
    with open(os.path.join(d, "matrix.json"), "w") as f:
        json.dump(state, f, indent=2)


# ------------------------------------------------------------ the spoils

def drop_rows(*visits):
    def spoil(p, tmp):
        head, rows = read_rows(p)
        write_rows(p, head, [r for k, r in enumerate(rows)
                             if k not in visits])
    return spoil


def set_row(visit, column, value):
    def spoil(p, tmp):
        head, rows = read_rows(p)
        rows[visit][head.index(column)] = value
        write_rows(p, head, rows)
    return spoil


def duplicate_row(cell, rep=0):
    """The row of the cell's repetition written a second time."""
    def spoil(p, tmp):
        head, rows = read_rows(p)
        write_rows(p, head, rows + [
            r for r in rows if (int(r[head.index("cell")]),
                                int(r[head.index("rep")])) == (cell, rep)])
    return spoil


def tear_last_row(p, tmp):
    head, rows = read_rows(p)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(rows[-1])
    write_rows(p, head, rows[:-1], out.getvalue()[:40])


def link_out(name, drop=None):
    """P/name moved out of the directory (to TMP/victim-<base>) and a
    link left in its place (name: or visit_hist_of's visit when a
    number); drop: a visit whose row goes too, so the resume runs it and
    writes where the link leads."""
    def spoil(p, tmp):
        at = visit_hist_of(p, name) if isinstance(name, int) else name
        victim = os.path.join(tmp, "victim-" + os.path.basename(at))
        os.rename(os.path.join(p, at), victim)
        os.symlink(victim, os.path.join(p, at))
        if drop is not None:
            drop_rows(drop)(p, tmp)
    return spoil


def fifo_at(name):
    """P/name a FIFO (name: or visit_hist_of's visit when a number)."""
    def spoil(p, tmp):
        at = visit_hist_of(p, name) if isinstance(name, int) else name
        os.remove(os.path.join(p, at))
        os.mkfifo(os.path.join(p, at))
    return spoil


def remove_visit_hist(visit):
    def spoil(p, tmp):
        os.remove(os.path.join(p, visit_hist_of(p, visit)))
    return spoil


def edit_state(**kv):
    def spoil(p, tmp):
        state = state_of(p)
        state.update(kv)
        set_state(p, state)
    return spoil


def partial_is_link(p, tmp):
    """The partial directory itself a link to one elsewhere."""
    elsewhere = os.path.join(tmp, "elsewhere")
    os.mkdir(elsewhere)
    target = os.path.join(elsewhere, os.path.basename(p))
    os.rename(p, target)
    os.symlink(target, p)


def killed_after_commit(p, tmp):
    """What a kill leaves after the finalizing replaced cells.csv by the
    rows in cell order and removed the journal, before the histograms'
    folders were swapped: cells.csv in cell order, hist/ the visits',
    hist.final/ the cells'."""
    state = state_of(p)
    head, rows = read_rows(p)
    rows.sort(key=lambda r: (int(r[0]), int(r[head.index("rep")])))
    os.mkdir(os.path.join(p, "hist.final"))
    for c, rep in visits_of(state):
        if rep == 0:
            shutil.copy(os.path.join(p, visit_hist(c, rep)),
                        os.path.join(p, "hist.final", "cell-%04d.csv" % c))
    write_rows(p, head, rows)
    os.remove(os.path.join(p, "visits.csv"))
    state["finalizing"] = True     # what an older futexlab wrote
    set_state(p, state)


def complete_problems(final):
    """A finished matrix run: every visit planned is one row of its cell
    and repetition, and the readers accept it (checked by the caller)."""
    if os.path.islink(final) or not os.path.isdir(final):
        return ["no finished run directory %s" % final]
    if not os.path.isfile(os.path.join(final, "cells.csv")):
        return ["the finished run has no cells.csv: %s"
                % sorted(os.listdir(final))]
    head, rows = read_rows(final)
    have = sorted((int(r[head.index("cell")]), int(r[head.index("rep")]))
                  for r in rows)
    want = sorted(visits_of(state_of(final)))
    if have != want:
        return ["the finished run's rows %s are not the visits planned %s"
                % (have, want)]
    return []
