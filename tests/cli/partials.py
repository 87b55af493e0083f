"""Partial matrix run directories, as test_untrusted.py spoils them.

A partial directory (results/.partial-NAME-PID-N) is what a matrix run
leaves when it is killed: cells.csv in visit order (the cell column is
the visit's index, one row and one histogram per visit), matrix.ini and
matrix.json. template() runs a tiny matrix to the end and turns the
finished run back into the partial it was just before its rows were put
in cell order; each case copies it and spoils it one way.
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
    out = []
    for k, (c, r) in enumerate(visits_of(state)):
        row = list(by[(c, r)])
        row[head.index("cell")] = str(k)
        row[head.index("rep")] = "0"
        row[head.index("hist")] = "hist/cell-%04d.csv" % k
        out.append(row)
        # the cell's merged histogram stands in for the visit's own
        shutil.copy(os.path.join(final, "hist", "cell-%04d.csv" % c),
                    os.path.join(partial, "hist", "cell-%04d.csv" % k))
    write_rows(partial, head, out)
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
        write_rows(p, head, [r for r in rows if int(r[0]) not in visits])
    return spoil


def set_row(visit, column, value):
    def spoil(p, tmp):
        head, rows = read_rows(p)
        for r in rows:
            if int(r[0]) == visit:
                r[head.index(column)] = value
        write_rows(p, head, rows)
    return spoil


def duplicate_row(visit):
    def spoil(p, tmp):
        head, rows = read_rows(p)
        write_rows(p, head, rows + [r for r in rows if int(r[0]) == visit])
    return spoil


def tear_last_row(p, tmp):
    head, rows = read_rows(p)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(rows[-1])
    write_rows(p, head, rows[:-1], out.getvalue()[:40])


def link_out(name, drop=None):
    """P/name moved out of the directory (to TMP/victim-<base>) and a
    link left in its place; drop: a visit whose row goes too, so the
    resume runs it and writes where the link leads."""
    def spoil(p, tmp):
        victim = os.path.join(tmp, "victim-" + os.path.basename(name))
        os.rename(os.path.join(p, name), victim)
        os.symlink(victim, os.path.join(p, name))
        if drop is not None:
            drop_rows(drop)(p, tmp)
    return spoil


def fifo_at(name):
    def spoil(p, tmp):
        os.remove(os.path.join(p, name))
        os.mkfifo(os.path.join(p, name))
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
    rows in cell order, before the histograms' folders were swapped:
    cells.csv in cell order, hist/ the visits', hist.final/ the cells'."""
    state = state_of(p)
    head, rows = read_rows(p)
    visits = visits_of(state)
    out = []
    for r in rows:
        c, rep = visits[int(r[0])]
        r = list(r)
        r[head.index("cell")] = str(c)
        r[head.index("rep")] = str(rep)
        r[head.index("hist")] = "hist/cell-%04d.csv" % c
        out.append(r)
    out.sort(key=lambda r: (int(r[0]), int(r[head.index("rep")])))
    os.mkdir(os.path.join(p, "hist.final"))
    for k, (c, rep) in enumerate(visits):
        if rep == 0:
            shutil.copy(os.path.join(p, "hist", "cell-%04d.csv" % k),
                        os.path.join(p, "hist.final", "cell-%04d.csv" % c))
    write_rows(p, head, out)
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
