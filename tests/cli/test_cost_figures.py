#!/usr/bin/env python3
"""The cost of an operation: what the kernel counted of a
cell's threads, as run, report, plot and compare give it.

  tests/cli/test_cost_figures.py --builddir build [--futexlab BIN]

- run prints a cost line under the cell: CPU time per operation with its
  95% interval, switches per operation and the CPU share; and how many
  repetitions were contaminated, counted from the rows' marks (no note
  repeats the count);
- report.md has the cost table in the workload's section, with its
  columns;
- plot draws plots/mutex-cost.gp: throughput and CPU time per operation,
  its data the cells' medians;
- compare of two runs prints a verdict line naming "CPU ns/op", and
  compare.csv a row whose figure is cpu_ns_per_op; so does compare
  --a A --b B (the runs as the unit);
- a run whose cells.csv lacks the counters' columns (an older run: the
  columns cut from a copy) still reads, and shows no cost, saying "not
  counted"; its compare gives no cost verdict.

Ends with `cost_figures: N passed, N failed`.
"""

import argparse
import csv
import io
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import test_untrusted as tu  # noqa: E402
from test_newcomer_output import run  # noqa: E402

check = tu.check  # counts into tu.passed and tu.failed

# the counters' columns (COUNTERS-INTERFACE.md), cut from an "old" run
COUNTER_COLUMNS = ["cpu_ns", "cpu_ns_thread_min", "cpu_ns_thread_max",
                   "run_delay_ns", "run_delay_ns_thread_max",
                   "ctx_switches", "cpu_migrations", "page_faults",
                   "cycles", "instructions", "ref_cycles", "steal_ns",
                   "contaminated"]


def a_run(fl, tmp, threads):
    """A short run of mutex: its status, stdout and directory."""
    rc, out, err = run(fl, ["run", "mutex", "--backend", "futex-private",
                            "--threads", str(threads), "--duration",
                            "0.05", "--reps", "3", "--results",
                            os.path.join(tmp, "results")], tmp)
    lines = out.strip().splitlines()
    return rc, out, err, (lines[-1] if lines else "")


def cost_lines(out):
    return [x for x in out.splitlines() if x.startswith("  cost: ")]


def test_run_prints_cost(fl, tmp, state):
    rc, out, err, d = a_run(fl, tmp, 1)
    state["a"] = d
    cost = cost_lines(out)
    problems = []
    if rc != 0:
        problems.append("run exit %r: %s" % (rc, err.strip()))
    if len(cost) != 1:
        problems.append("not one cost line: %r" % out)
    # three repetitions: a median, and an interval that says n/a; the
    # unit per operation, then switches and the share
    elif not ("CPU " in cost[0] and "/op" in cost[0] and
              "(interval n/a: 3 reps)" in cost[0] and
              "switches" in cost[0] and "CPU share" in cost[0]):
        problems.append("the cost line lacks a figure: %r" % cost[0])
    check("run prints the cost of an operation", problems)
    # the contamination run prints is counted from the rows' marks, as
    # report.md's cost table counts it: never "N of M" from one row's
    # note (the machine decides whether any was marked: both ways hold)
    marked = 0
    if rc == 0:
        with open(os.path.join(d, "cells.csv")) as f:
            marked = sum(r["contaminated"] == "1"
                         for r in csv.DictReader(f))
    said = [x for x in out.splitlines() if x.startswith("  contamination: ")]
    want = "  contamination: %d of 3 repetitions contaminated" % marked
    problems = []
    if marked and (len(said) != 1 or not said[0].startswith(want)):
        problems.append("%d rows marked, run printed %r" % (marked, said))
    if not marked and said:
        problems.append("no row marked, run printed %r" % said)
    notes = [x for x in out.splitlines() if x.startswith("  note: ") and
             "repetitions contaminated" in x]
    if notes:
        problems.append("a note repeats the count: %r" % notes)
    check("run counts contamination from the rows' marks", problems)


def test_report_has_cost_table(fl, tmp, state):
    d = state["a"]
    rc, out, err = run(fl, ["report", d], tmp)
    problems = [] if rc == 0 else ["report exit %r: %s" % (rc, err)]
    md = open(os.path.join(d, "report.md")).read() if rc == 0 else ""
    head = [x for x in md.splitlines() if x.startswith("| cell |") and
            "CPU/op: median [95% CI]" in x]
    if len(head) != 1:
        problems.append("no cost table's header: %r" % md[-2000:])
    else:
        for col in ("switches/op", "CPU share", "cycles/op",
                    "instructions/op", "contaminated"):
            if col not in head[0]:
                problems.append("the cost table lacks %r: %r" %
                                (col, head[0]))
        rows = md.splitlines()
        at = rows.index(head[0])
        row = rows[at + 2] if at + 2 < len(rows) else ""
        if "futex-private" not in row or " us" not in row and \
                " ns" not in row:
            problems.append("the cost row is not a time: %r" % row)
    check("report.md has the workload's cost table", problems)


def test_plot_draws_cost(fl, tmp, state):
    d = state["a"]
    rc, out, err = run(fl, ["plot", d], tmp)
    gp = os.path.join(d, "plots", "mutex-cost.gp")
    problems = [] if rc == 0 else ["plot exit %r: %s" % (rc, err)]
    if not os.path.exists(gp):
        problems.append("no plots/mutex-cost.gp")
    else:
        text = open(gp).read()
        if "CPU time per operation" not in text or \
                "throughput" not in text:
            problems.append("mutex-cost.gp lacks its two panels")
        # panel 1 (the cost): the cell's median at 1 thread, as the
        # report has it (ns)
        block = text.split("$p1_s0 << EOD")[-1].split("EOD")[0]
        data = [x.split() for x in block.splitlines()
                if x and not x.startswith("#")]
        if len(data) != 1 or data[0][0] != "1" or \
                not 10 < float(data[0][1]) < 1e7:
            problems.append("the cost panel's data: %r" % data)
    check("plot draws CPU time per operation beside throughput", problems)


def test_compare_names_cost(fl, tmp, state):
    rc, out, err, b = a_run(fl, tmp, 1)
    problems = [] if rc == 0 else ["second run exit %r" % rc]
    cmp_dir = os.path.join(tmp, "cmp")
    rc, out, err = run(fl, ["compare", state["a"], b, "--out", cmp_dir],
                       tmp)
    if rc != 0:
        problems.append("compare exit %r: %s" % (rc, err))
    verdicts = [x for x in out.splitlines() if "CPU ns/op " in x and
                "mutex futex-private" in x]
    if len(verdicts) != 1:
        problems.append("no verdict line naming CPU ns/op: %r" % out)
    thr = [x for x in out.splitlines() if "throughput " in x and
           "mutex futex-private" in x]
    if len(thr) != 1:
        problems.append("the throughput verdict does not name its "
                        "figure: %r" % out)
    if rc == 0:
        with open(os.path.join(cmp_dir, "compare.csv")) as f:
            figs = [r["figure"] for r in csv.DictReader(f)]
        if figs != ["ops_per_sec", "cpu_ns_per_op"]:
            problems.append("compare.csv's figures: %r" % figs)
    state["b"] = b
    check("compare gives a verdict on CPU ns/op", problems)
    # two runs a side, the run as the unit: the same, a table of its own
    more = [a_run(fl, tmp, 1) for _ in range(2)]
    problems = ["a run failed: %r" % m[2] for m in more if m[0] != 0]
    runs_dir = os.path.join(tmp, "cmp-runs")
    rc, out, err = run(fl, ["compare", "--a", state["a"], more[0][3],
                            "--b", b, more[1][3], "--out", runs_dir,
                            "--no-plot"], tmp)
    if rc != 0:
        problems.append("compare --a --b exit %r: %s" % (rc, err))
    if "runs of B against" not in out:
        problems.append("not compared with the run as the unit: %r" % out)
    if not [x for x in out.splitlines() if "CPU ns/op " in x and
            "mutex futex-private" in x]:
        problems.append("no verdict line naming CPU ns/op: %r" % out)
    if rc == 0:
        with open(os.path.join(runs_dir, "compare.csv")) as f:
            figs = sorted(r["figure"] for r in csv.DictReader(f))
        if figs != ["cpu_ns_per_op", "ops_per_sec"]:
            problems.append("compare.csv's figures: %r" % figs)
    check("compare --a --b gives a verdict on CPU ns/op", problems)


def strip_counters(src, dst):
    """A copy of run src as a futexlab before the counters wrote it."""
    shutil.copytree(src, dst, symlinks=True)
    shutil.rmtree(os.path.join(dst, "plots"), ignore_errors=True)
    path = os.path.join(dst, "cells.csv")
    with open(path) as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0])
            if name not in COUNTER_COLUMNS]
    cut = len(rows[0]) - len(keep)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for r in rows:
        w.writerow([r[i] for i in keep])
    with open(path, "w") as f:
        f.write(out.getvalue())
    return cut


def test_old_run_not_counted(fl, tmp, state):
    old = os.path.join(tmp, "old")
    cut = strip_counters(state["a"], old)
    problems = [] if cut == len(COUNTER_COLUMNS) else \
        ["cut %d of the counters' columns" % cut]
    rc, out, err = run(fl, ["report", old], tmp)
    if rc != 0:
        problems.append("report of the old run: exit %r: %s" % (rc, err))
    else:
        md = open(os.path.join(old, "report.md")).read()
        if "CPU/op: median" in md or "not counted" not in md:
            problems.append("report.md does not say the cost was not "
                            "counted")
    rc, out, err = run(fl, ["plot", old], tmp)
    if rc != 0 or os.path.exists(os.path.join(old, "plots",
                                              "mutex-cost.gp")):
        problems.append("plot of the old run: exit %r, a cost plot "
                        "drawn of nothing" % rc)
    cmp_dir = os.path.join(tmp, "cmp-old")
    rc, out, err = run(fl, ["compare", old, state["b"], "--out", cmp_dir],
                       tmp)
    if rc != 0 or "CPU ns/op" in out:
        problems.append("compare against an old run: exit %r, %r" %
                        (rc, out))
    check("an old run without the counters reads, cost 'not counted'",
          problems)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--futexlab", help="the binary (default BUILDDIR's)")
    a = ap.parse_args()
    fl = os.path.abspath(a.futexlab or os.path.join(a.builddir,
                                                    "futexlab"))
    tmp = tempfile.mkdtemp(prefix="fl-cost-")
    state = {}
    try:
        test_run_prints_cost(fl, tmp, state)
        test_report_has_cost_table(fl, tmp, state)
        test_plot_draws_cost(fl, tmp, state)
        test_compare_names_cost(fl, tmp, state)
        test_old_run_not_counted(fl, tmp, state)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("cost_figures: %d passed, %d failed" % (tu.passed, tu.failed))
    return 1 if tu.failed else 0


if __name__ == "__main__":
    sys.exit(main())
