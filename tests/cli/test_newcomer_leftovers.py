#!/usr/bin/env python3
"""What a newcomer still found after the first fixes of their hour.

  tests/cli/test_newcomer_leftovers.py --builddir build [--futexlab BIN]

hash's names: a futex-shared cell's keys are shared, and its label says
so (shared=yes), in what run prints and in cells.csv.

A cell's note is one text in the three places a person reads it: what
run prints, the rows of cells.csv (a repetition's own note: the cell's
is the note of its repetition whose busy loop drifted most, else its
last) and report.md's notes.

A figure whose values are all one value (app's runs/s) is drawn on an
axis whose tick labels differ ("1.0, 1.0, 1.0, 995.0m" said nothing), and
so is one whose values lie close together (4.00M, 4.01M: not 4.0M twice).

An app cell's thread count is the one that starts the program: report.md
and the plots' axis say its threads are the program's own, and report.md
which figure a cell's is (wall time where metric=none). A note's
parts are cut at "; " outside parentheses: pi's verdict is one part.

Ends with `newcomer_leftovers: N passed, N failed`.
"""

import csv
import io
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import test_untrusted as tu  # noqa: E402
from test_newcomer_output import (  # noqa: E402
    run, run_dir, suite_main, write)

check = tu.check  # counts into tu.passed and tu.failed

QUICK = ["--duration", "0.02", "--warmup", "0.01", "--reps", "1"]


def rows_of(rundir):
    with open(os.path.join(rundir, "cells.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_shared_label(fl, tmp):
    """A futex-shared cell of hash is labelled shared=yes."""
    results = os.path.join(tmp, "shared")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "hash", "--backend",
                            "futex-private,futex-shared", "--results",
                            results] + QUICK, tmp)
    problems = [] if st == 0 else ["exit %s: %r" % (st, err[-300:])]
    heads = {line.split()[1]: line for line in out.splitlines()
             if line.startswith("hash ")}
    want = {"futex-private": "shared=no", "futex-shared": "shared=yes"}
    for backend, label in want.items():
        if label not in heads.get(backend, ""):
            problems.append("%s's cell is not %s: %r"
                            % (backend, label, heads.get(backend)))
    if st == 0:
        for row in rows_of(run_dir(out)):
            if want[row["backend"]] not in row["options"]:
                problems.append("cells.csv: %s's options %r"
                                % (row["backend"], row["options"]))
    check("run hash: a futex-shared cell is labelled shared=yes", problems)


def drift_of(row):
    """A row's busy-loop drift from its speed columns, or None."""
    try:
        start = float(row["busy_loops_per_us_start"])
        end = float(row["busy_loops_per_us_end"])
    except (KeyError, ValueError):
        return None
    return (end - start) / start if start > 0 and end > 0 else None


def cell_note(rows):
    """The note the docs give a cell: its repetition's that drifted most
    (past 10%), else its last row's that has one."""
    best, best_d, last = "", 0.0, ""
    for row in rows:
        d = drift_of(row)
        if row["note"]:
            last = row["note"]
        if row["note"] and d is not None and abs(d) > 0.10 and \
                abs(d) > best_d:
            best, best_d = row["note"], abs(d)
    return best or last


def printed_notes(out, workload):
    """Each cell's note as run printed it, in cell order ('' if none)."""
    notes = []
    for line in out.splitlines():
        if line.startswith(workload + " "):
            notes.append("")
        elif line.startswith("  note: ") and notes:
            notes[-1] = line[len("  note: "):]
    return notes


DRIFT = re.compile(r"busy-loop speed drifted ([+-]\d+)%")


def report_drift(fl, tmp, rundir):
    """report.md's drift line: (lo, hi, cells text), or None."""
    st, out, err = run(fl, ["report", rundir], tmp)
    if st != 0:
        return "report exit %s: %r" % (st, err[-300:])
    with open(os.path.join(rundir, "report.md")) as f:
        notes = f.read().split("## Notes")[-1]
    m = re.search(r"^- busy-loop speed drifted ([+-]\d+)%(?: to "
                  r"([+-]\d+)%)?.*\((cells? [^)]*)\)$", notes, re.M)
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2) or m.group(1)),
            re.sub(r":.*", "", m.group(3)))


def cells_text(idx):
    """report.md's way of listing cells: 'cell 3', 'cells 0-1, 4'."""
    if len(idx) == 1:
        return "cell %d" % idx[0]
    parts, start = [], idx[0]
    for a, b in zip(idx, idx[1:] + [None]):
        if b != a + 1:
            parts.append("%d-%d" % (start, a) if a > start else "%d" % a)
            start = b
    return "cells " + ", ".join(parts)


def notes_agree(fl, tmp, name, args, workload):
    results = os.path.join(tmp, name)
    os.makedirs(results)
    st, out, err = run(fl, args + ["--results", results], tmp)
    if st != 0:
        return ["exit %s: %r" % (st, err[-300:])]
    rundir = run_dir(out)
    by_cell = {}
    for row in rows_of(rundir):
        by_cell.setdefault(int(row["cell"]), []).append(row)
    printed = printed_notes(out, workload)
    problems = []
    if len(printed) != len(by_cell):
        return ["%d cells printed, %d in cells.csv"
                % (len(printed), len(by_cell))]
    drifts = {}
    for c in sorted(by_cell):
        want = cell_note(by_cell[c])
        if printed[c] != want:
            problems.append("cell %d: run printed note %r, its rows say "
                            "%r" % (c, printed[c], want))
        m = DRIFT.search(want)
        if m:
            drifts[c] = int(m.group(1))
    got = report_drift(fl, tmp, rundir)
    if isinstance(got, str):
        return problems + [got]
    want = (min(drifts.values()), max(drifts.values()),
            cells_text(sorted(drifts))) if drifts else None
    if got != want:
        problems.append("report.md's drift line says %r, the cells %r"
                        % (got, want))
    return problems


def test_notes_agree(fl, tmp):
    """run's notes, cells.csv's and report.md's, on a run as it came."""
    problems = notes_agree(fl, tmp, "notes-mutex",
                           ["run", "mutex", "--threads", "1,2",
                            "--critical", "0,200", "--duration", "0.02",
                            "--warmup", "0.01", "--reps", "3"], "mutex")
    check("run mutex: each cell's note the same printed, in cells.csv "
          "and in report.md", problems)
    if not shutil.which("sysbench"):
        return
    problems = notes_agree(fl, tmp, "notes-app",
                           ["run", "app", "--cmd",
                            "sysbench mutex --threads=2 "
                            "--mutex-loops=2000 run",
                            "--backend", "futex-private", "--algo",
                            "glibc,mutex3", "--reps", "3", "--duration",
                            "1", "--metric",
                            "total time: +([0-9.]+)s"], "app")
    check("run app --metric: each cell's note the same printed, in "
          "cells.csv and in report.md", problems)


DRIFT_NOTE = "busy-loop speed drifted %+d%% (%d to %d loops/us)"


def test_report_note_of_rows(fl, tmp):
    """The reader's note is the repetition's that drifted most, not the
    last row's, whatever the run printed."""
    results = os.path.join(tmp, "rows")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "hash", "--futexes", "16",
                            "--duration", "0.01", "--warmup", "0.005",
                            "--reps", "3", "--results", results], tmp)
    if st != 0:
        check("report: a cell's note is its repetition's that drifted "
              "most", ["run exit %s: %r" % (st, err[-300:])])
        return
    rundir = run_dir(out)
    path = os.path.join(rundir, "cells.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0].keys())
    # rep 0 drifted most; rep 2, the last, less; rep 1 not at all
    speeds = [(1000, 500), (1000, 1010), (1000, 800)]
    for row, (a, b) in zip(rows, speeds):
        row["busy_loops_per_us_start"] = str(a)
        row["busy_loops_per_us_end"] = str(b)
        d = round((b - a) * 100.0 / a)
        row["note"] = DRIFT_NOTE % (d, a, b) if abs(d) > 10 else ""
    rewrite_rows(path, fields, rows)
    got = report_drift(fl, tmp, rundir)
    want = (-50, -50, "cell 0")
    check("report: a cell's note is its repetition's that drifted most",
          [] if got == want else ["report.md's drift line %r, not %r"
                                  % (got, want)])


def dumb_yticks(gp_path, tmp):
    """The y tick labels gnuplot draws of a script, as text."""
    with open(gp_path) as f:
        text = f.read()
    text = text.replace("'png svg'", "'png'")
    text = re.sub(r"set terminal pngcairo[^\n]*",
                  "set terminal dumb size 100,40", text)
    text = re.sub(r"set output '[^']*'\.fmt", "set output '%s'"
                  % os.path.join(tmp, "dumb.txt"), text)
    script = os.path.join(tmp, "dumb.gp")
    write(script, text)
    r = subprocess.run(["gnuplot", script], capture_output=True, text=True,
                       timeout=60, cwd=tmp)
    if r.returncode:
        return None
    with open(os.path.join(tmp, "dumb.txt")) as f:
        drawn = f.read()
    return re.findall(r"^\s*(-?[0-9.]+ ?[a-zA-Z]?)\s*[|+]", drawn, re.M)


def rewrite_rows(path, fields, rows):
    """cells.csv at path written again with rows (dicts of fields)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write(path, buf.getvalue())


def tick_problems(fl, tmp, rundir, name):
    """Plot rundir's scripts; what is wrong with plot NAME's y ticks."""
    st, out, err = run(fl, ["plot", rundir, "--scripts-only"], tmp)
    gp = os.path.join(rundir, "plots", name + ".gp")
    ticks = dumb_yticks(gp, tmp) if st == 0 else None
    if ticks is None:
        return ["plot exit %s or gnuplot failed: %r" % (st, err[-300:])]
    if len(ticks) < 2 or len(set(t.strip() for t in ticks)) != len(ticks):
        return ["y ticks %r: labels that repeat" % ticks]
    return []


def test_flat_axis(fl, tmp):
    """app's runs/s, one value in every cell: ticks that differ."""
    results = os.path.join(tmp, "flat")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "app", "--cmd", "true", "--algo",
                            "glibc,mutex3", "--duration", "0.05",
                            "--warmup", "0.01", "--reps", "3",
                            "--results", results], tmp)
    problems = [] if st == 0 else ["run exit %s: %r" % (st, err[-300:])]
    if st == 0:
        problems += tick_problems(fl, tmp, run_dir(out), "app-throughput")
    check("plot: a figure of one value has y ticks that differ", problems)


def test_narrow_axis(fl, tmp):
    """Rates within 1% of each other: ticks that differ (4.00M, 4.01M)."""
    results = os.path.join(tmp, "narrow")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "mutex", "--threads", "1,2",
                            "--results", results] + QUICK, tmp)
    problems = [] if st == 0 else ["run exit %s: %r" % (st, err[-300:])]
    if st == 0:
        rundir = run_dir(out)
        path = os.path.join(rundir, "cells.csv")
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            fields = list(rows[0].keys())
        for i, row in enumerate(rows):
            row["ops_per_sec"] = "%.1f" % (4.0e6 + 3.0e4 * i)
        rewrite_rows(path, fields, rows)
        problems += tick_problems(fl, tmp, rundir, "mutex-throughput")
    check("plot: rates within 1% of each other have y ticks that differ",
          problems)


def test_app_threads(fl, tmp):
    """report.md and the plots say what an app cell's threads are."""
    results = os.path.join(tmp, "app-threads")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "app", "--cmd", "true", "--duration",
                            "0.05", "--warmup", "0.01", "--reps", "3",
                            "--results", results], tmp)
    problems = [] if st == 0 else ["run exit %s: %r" % (st, err[-300:])]
    want = "the program's own"
    if st == 0:
        rundir = run_dir(out)
        st, _, perr = run(fl, ["plot", rundir, "--scripts-only"], tmp)
        st2, _, rerr = run(fl, ["report", rundir], tmp)
        if st or st2:
            problems.append("plot exit %s, report exit %s: %r"
                            % (st, st2, (perr + rerr)[-300:]))
        else:
            with open(os.path.join(rundir, "report.md")) as f:
                section = f.read().split("## app")[-1]
            if "*threads*: " + want not in section:
                problems.append("report.md's app section does not say "
                                "its threads are %r" % want)
            if "wall time from start to exit where metric=none" not in \
                    section:
                problems.append("report.md's app section does not say "
                                "which figure a cell's is: %r"
                                % section[:400])
            for kind in ("throughput", "latency"):
                with open(os.path.join(rundir, "plots", "app-%s.gp"
                                       % kind)) as f:
                    xl = re.findall(r"^set xlabel (.*)$", f.read(), re.M)
                if not xl or want not in xl[-1].replace("''", "'"):
                    problems.append("app-%s.gp's x axis: %r" % (kind, xl))
    check("report, plot: an app cell's threads are the program's own, "
          "its figure wall time unless --metric", problems)


def test_note_parts_whole(fl, tmp):
    """pi's verdict, "(... > 5 ms; max 9.81 ms)", is one note, not two
    lines cut at the "; " inside its parentheses."""
    results = os.path.join(tmp, "pi-notes")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "pi", "--duration", "0.05", "--warmup",
                            "0.01", "--reps", "2", "--results", results],
                       tmp)
    problems = [] if st == 0 else ["run exit %s: %r" % (st, err[-300:])]
    if st == 0:
        rundir = run_dir(out)
        st, _, rerr = run(fl, ["report", rundir], tmp)
        with open(os.path.join(rundir, "report.md")) as f:
            notes = re.findall(r"^- .*$", f.read().split("## Notes")[-1],
                               re.M)
        verdicts = [n for n in notes if n.startswith("- verdict: ")]
        if st or len(verdicts) != 1:
            problems.append("report exit %s; verdict lines %r"
                            % (st, verdicts))
        for n in notes:
            if n.count("(") != n.count(")"):
                problems.append("a note cut in two: %r" % n)
    check("report: a note's parts are cut at '; ' outside parentheses",
          problems)


def main():
    return suite_main("newcomer_leftovers", (
        test_shared_label, test_report_note_of_rows, test_notes_agree,
        test_flat_axis, test_narrow_axis, test_app_threads,
        test_note_parts_whole))


if __name__ == "__main__":
    sys.exit(main())
