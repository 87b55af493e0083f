"""What the fleet tests share: a small matrix, and the checks of a merged
run (its cells are the matrix's, each repetition once) and of a fleet's
report (the machines side by side, a line per machine in each plot).
Not a test itself: test_merge.py, test_slurm.py and test_parallel.py
use it.
"""

import csv
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
sys.path.insert(0, HERE)
import engines  # noqa: E402
import runs  # noqa: E402
from runs import check, fl  # noqa: E402

# 6 cells in two experiments, 2 repetitions each: a few seconds a run
SMALL = """\
[defaults]
duration = 0.02
warmup = 0.01
reps = 2
threads = 1,2

[experiment m]
workload = mutex
backend = futex-private,spin

[experiment h]
workload = hash
backend = futex-private
"""


def setup(tmp, engine, folder):
    """The small matrix, the results folder, and the engine configured
    in tmp/folder. Its tools missing fails the test: configure.py
    requires their packages (README.md, "Tests")."""
    gone = engines.missing(engine.TOOLS)
    check(not gone, "not installed: %s (./configure.py --install-deps)"
          % ", ".join(gone))
    e = engine(os.path.join(tmp, folder))
    os.makedirs(e.d)
    return (runs.write(os.path.join(tmp, "m.ini"), SMALL),
            os.path.join(tmp, "results"), e)


def listed(matrix, *extra):
    """{cell: (workload, backend, threads, placement, options)} of
    `futexlab matrix FILE --list`."""
    r = fl("matrix", matrix, "--list", *extra, check_rc=0)
    cells = {}
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            continue
        i, _exp, w, b, t, p, o = line.split(" ")
        cells[int(i)] = (w, b, t, p, "" if o == "-" else o)
    return cells


def check_merged(run, matrix, reps=2):
    """The merged run's cells are the matrix's, each repetition's row
    present once, and meta.json names a host for every cell."""
    want = listed(matrix)
    with open(os.path.join(run, "cells.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    got, seen = {}, set()
    for r in rows:
        key = (int(r["cell"]), int(r["rep"]))
        check(key not in seen, "cell %d rep %d twice" % key)
        seen.add(key)
        got[key[0]] = (r["workload"], r["backend"], r["threads"],
                       r["placement"], r["options"])
    check(got == want, "merged cells %s are not the matrix's %s"
          % (sorted(got), sorted(want)))
    check(seen == {(c, k) for c in want for k in range(reps)},
          "not every repetition once: %s" % sorted(seen))
    for c in want:
        check(os.path.isfile(os.path.join(run, "hist",
                                          "cell-%04d.csv" % c)),
              "no histogram of cell %d" % c)
    with open(os.path.join(run, "meta.json")) as f:
        meta = json.load(f)
    hosts = {e["cell"]: e.get("host") for e in meta["cells_reps"]}
    check(sorted(hosts) == sorted(want) and all(hosts.values()),
          "cells_reps does not name each cell's host: %s" % hosts)
    check("shard" not in meta and meta["cells"]["total"] == len(want),
          "merged meta.json: %s" % {k: meta.get(k) for k in
                                    ("shard", "cells")})
    return meta


def check_readers(run, tmp):
    """plot, report and compare read a run like any run (compare against
    a copy of it: compare refuses a run set against itself)."""
    fl("plot", run, check_rc=0, timeout=180)
    fl("report", run, check_rc=0)
    copy = os.path.join(tmp, "copy-of-" + os.path.basename(run))
    shutil.copytree(run, copy, symlinks=True)
    fl("compare", run, copy, "--out", os.path.join(tmp, "cmp"), check_rc=0,
       timeout=180)


def check_fleet_report(out, names):
    """report.md sets the machines side by side, a column each in the
    machines' table and every workload's; each fleet plot draws a line
    per machine for every series."""
    with open(os.path.join(out, "report.md")) as f:
        text = f.read()
    head = "| | " + " | ".join(names) + " |"
    check(head in text, "no machines' table with %s: %s" % (head,
                                                            text[:800]))
    for w in ("mutex", "hash"):
        check(("## %s" % w) in text, "no table of %s" % w)
        check(("| backend | threads | placement | options | " +
               " | ".join(names) + " |") in text,
              "the %s table has no column per machine" % w)
    plots = [p for p in os.listdir(os.path.join(out, "plots"))
             if p.endswith(".gp")]
    check(sorted(plots) == sorted(["%s-fleet-%s.gp" % (w, k)
                                   for w in ("mutex", "hash")
                                   for k in ("throughput", "latency")]),
          "fleet plots: %s" % plots)
    for p in plots:
        with open(os.path.join(out, "plots", p)) as f:
            gp = f.read()
        for n in names:
            lines = gp.count("title '%s " % n)
            check(lines >= 1, "%s: no line of %s" % (p, n))
        counts = {gp.count("title '%s " % n) for n in names}
        check(len(counts) == 1, "%s: machines have different line counts"
              % p)
        png = os.path.join(out, "plots", p[:-3] + ".png")
        check(os.path.isfile(png), "%s not drawn" % png)
