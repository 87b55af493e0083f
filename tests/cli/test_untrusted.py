#!/usr/bin/env python3
"""Run directories, matrix files and pipes as an adversary makes them.

  tests/cli/test_untrusted.py --builddir build [--update]

One tiny real run is made, then each case copies it into a fresh
temporary tree, spoils it (a backquoted command in meta.json or in the
directory's name, a workload named ../../X, a symbolic link under a
plot's name, a FIFO under a file's name, NaN or wrapped numbers in any
column, a torn last line, bad bins files, two cells of one setup, a
closed pipe, SIGHUP, a full file system: a 64 KiB tmpfs, when it can be
mounted) and runs one command under a 10 s timeout. Each must end
with the status and the first stderr line in tests/cli/untrusted.golden
(`NAME: STATUS: LINE`, the tree's path written @TMP@), run no command (no
CANARY file appears anywhere in the tree), and create nothing outside
RUN/plots/. A tiny matrix run is turned back into a partial directory
(partials.py) and each RESUME_CASES case spoils a copy and resumes it:
nothing outside the directory may change, nothing but it be renamed, to
its own name, and a resume that succeeds must leave a whole run
(@PARTIAL@ in the golden line). A matrix killed while a visit runs is
resumed at once (orphan-resume). --update rewrites the golden file from
what the binary does now (review the diff). Ends with `untrusted: N
passed, N failed`.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # partials.py leaves no __pycache__
import partials as pt  # noqa: E402
from test_cli import children  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "untrusted.golden")
TIMEOUT = 10
CANARY = "`touch CANARY`"

passed = failed = 0


def check(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print("FAIL %s" % name)
        for p in problems:
            print("     %s" % p)
    else:
        passed += 1
        print("ok   %s" % name)
    sys.stdout.flush()


def tree(top):
    """Every path under top, plots/ folders aside."""
    out = set()
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x != "plots"]
        for f in files + dirs:
            out.add(os.path.relpath(os.path.join(d, f), top))
    return out


def edit_cells(run, fn):
    path = os.path.join(run, "cells.csv")
    with open(path) as f:
        lines = f.read().split("\n")
    head = lines[0].split(",")
    row = lines[1].split(",")
    fn(head, row)
    lines[0] = ",".join(head)
    lines[1] = ",".join(row)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def rename_column(name, to):
    return lambda head, row: head.__setitem__(head.index(name), to)


def tear_last_line(run):
    """A finished run's last row cut in half, as a kill would leave it."""
    path = os.path.join(run, "cells.csv")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text[:len(text) - len(text.splitlines()[-1]) // 2 - 1])


def link_folder_out(run, tmp, name):
    """RUN/NAME replaced by a link to a copy of it outside the run."""
    shutil.copytree(os.path.join(run, name), os.path.join(tmp, "out-" + name))
    shutil.rmtree(os.path.join(run, name))
    os.symlink(os.path.join(tmp, "out-" + name), os.path.join(run, name))


def set_field(name, value):
    return lambda head, row: row.__setitem__(head.index(name), value)


def edit_meta(run, fn):
    path = os.path.join(run, "meta.json")
    with open(path) as f:
        meta = json.load(f)
    fn(meta)
    with open(path, "w") as f:
        json.dump(meta, f)


def edit_topology(run, fn):
    edit_meta(run, lambda m: fn(m["machine"]["topology"]))


def fifo(path):
    os.remove(path)
    os.mkfifo(path)


def wrapped_hist(run):
    path = os.path.join(run, "hist", "cell-0000.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    # two buckets whose counts add up to count only modulo 2^64
    lines[0] = "# count=1 sum=10 min=10 max=10"
    rows = [l for l in lines[2:] if l]
    lo = rows[0].split(",")
    lines[2:] = ["%s,%s,%d" % (lo[0], lo[1], 2 ** 63),
                 "%s,%s,%d" % (lo[0], lo[1], 2 ** 63 + 1)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


BINS0 = os.path.join("bins", "cell-0000-rep-000.csv")


def edit_bins(fn):
    """Cell 0's first bins file, its lines edited by fn."""
    def spoil(run, tmp):
        path = os.path.join(run, BINS0)
        with open(path) as f:
            lines = f.read().splitlines()
        with open(path, "w") as f:
            f.write("".join(l + "\n" for l in fn(lines)))
    return spoil


def set_bin(row, col, value):
    """Field col (0 end_ns, 1 ops) of data row `row` of a bins file."""
    def fn(lines):
        f = lines[2 + row].split(",")
        f[col] = value
        lines[2 + row] = ",".join(f)
        return lines
    return fn


def add_to_bin(lines, k):
    f = lines[2].split(",")
    lines[2] = "%s,%d" % (f[0], int(f[1]) + k)
    return lines


def replace_bins(run, tmp, how):
    path = os.path.join(run, BINS0)
    if how == "symlink":
        shutil.copy(path, os.path.join(tmp, "out-bins.csv"))
        os.remove(path)
        os.symlink(os.path.join(tmp, "out-bins.csv"), path)
    elif how == "directory":
        os.remove(path)
        os.mkdir(path)
    elif how == "fifo":
        fifo(path)
    elif how == "empty":
        open(path, "w").close()


def twin_run(run, tmp):
    """TMP/twin: the run with a second cell of cell 0's very setup (two
    [experiment] sections of one workload and settings make one)."""
    twin = os.path.join(tmp, "twin")
    shutil.copytree(run, twin)
    path = os.path.join(twin, "cells.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    extra = []
    for line in lines[1:]:
        row = line.split(",")
        row[head.index("cell")] = "1"
        row[head.index("hist")] = "hist/cell-0001.csv"
        extra.append(",".join(row))
    with open(path, "w") as f:
        f.write("\n".join(lines + extra) + "\n")
    shutil.copy(os.path.join(twin, "hist", "cell-0000.csv"),
                os.path.join(twin, "hist", "cell-0001.csv"))


def no_plots(run, tmp):
    """A refused --timeline wrote no plot before it was refused."""
    plots = os.path.join(run, "plots")
    left = os.listdir(plots) if os.path.isdir(plots) else []
    return ["plots written before the refusal: %s" % left] if left else []


def plant_symlink(run, tmp):
    os.makedirs(os.path.join(run, "plots"), exist_ok=True)
    for ext in ("gp", "png", "svg"):
        os.symlink(os.path.join(tmp, "victim." + ext),
                   os.path.join(run, "plots", "mutex-throughput." + ext))


# name, how to spoil RUN (a copy of the tiny run in TMP), the command
# (RUN and TMP substituted); most read the run with plot --scripts-only,
# which writes the .gp scripts where the backquotes would land
CASES = [
    ("meta-backquotes", lambda r, t: edit_meta(r, lambda m: m["machine"].update(
        hostname="h" + CANARY, kernel='k"' + CANARY, cpu_model="c\n" +
        CANARY)), ["plot", "RUN"]),
    ("run-name-backquotes", None, ["plot", "TMP/run" + CANARY]),
    ("workload-dotdot", lambda r, t: edit_cells(
        r, set_field("workload", "../../X")), ["plot", "RUN"]),
    ("plots-symlinks", plant_symlink, ["plot", "RUN"]),
    ("plots-dir-symlink", lambda r, t: os.symlink(t, os.path.join(
        r, "plots")), ["plot", "RUN", "--scripts-only"]),
    ("fifo-cells-plot", lambda r, t: fifo(os.path.join(r, "cells.csv")),
     ["plot", "RUN"]),
    ("fifo-meta-report", lambda r, t: fifo(os.path.join(r, "meta.json")),
     ["report", "RUN"]),
    ("fifo-hist-compare", lambda r, t: fifo(os.path.join(
        r, "hist", "cell-0000.csv")), ["compare", "RUN", "RUN"]),
    ("cells-dir-plot", lambda r, t: (os.remove(os.path.join(
        r, "cells.csv")), os.mkdir(os.path.join(r, "cells.csv"))),
     ["plot", "RUN"]),
    ("nan-ops-compare", lambda r, t: edit_cells(
        r, set_field("ops_per_sec", "nan")), ["compare", "RUN", "RUN"]),
    ("negative-p99-report", lambda r, t: edit_cells(
        r, set_field("lat_p99_ns", "-5")), ["report", "RUN"]),
    ("infinite-ops-plot", lambda r, t: edit_cells(
        r, set_field("ops_per_sec", "inf")), ["plot", "RUN"]),
    ("jain-above-one", lambda r, t: edit_cells(
        r, set_field("jain", "1.5")), ["plot", "RUN"]),
    ("rep-twice", lambda r, t: edit_cells(
        r, set_field("rep", "1")), ["plot", "RUN"]),
    ("hist-empty", lambda r, t: open(os.path.join(
        r, "hist", "cell-0000.csv"), "w").close(), ["plot", "RUN"]),
    ("hist-wrapped", lambda r, t: wrapped_hist(r), ["plot", "RUN"]),
    ("hist-outside", lambda r, t: edit_cells(
        r, set_field("hist", "../../etc/passwd")), ["plot", "RUN"]),
    ("meta-corrupt", lambda r, t: open(os.path.join(
        r, "meta.json"), "w").write('{"machine": {'), ["report", "RUN"]),
    ("cdf-cells-missing", None, ["plot", "RUN", "--cdf-cells", "999"]),
    ("fifo-matrix", lambda r, t: os.mkfifo(os.path.join(t, "m.ini")),
     ["matrix", "TMP/m.ini", "--results", "TMP/results"]),
    ("bom-matrix-accepted", lambda r, t: open(os.path.join(
        t, "m.ini"), "w").write("\ufeff[experiment a]\nworkload = mutex\n"),
     ["matrix", "TMP/m.ini", "--list"]),
    ("long-path-reason", None, ["plot", "TMP/" + "x" * 3000]),
    ("fifo-topology", lambda r, t: os.mkfifo(os.path.join(t, "t.xml")),
     ["list", "--topology", "TMP/t.xml"]),
    ("fifo-topology-estimate", lambda r, t: os.mkfifo(os.path.join(
        t, "t.xml")), ["matrix", os.path.join(ROOT, "matrix", "default.ini"),
                       "--estimate", "--topology", "TMP/t.xml"]),
    # meta.json's node distance table: a row per node, SLIT bytes, 10 on
    # the diagonal; a run without one (older) still reads
    ("distances-absent-plot", lambda r, t: edit_topology(
        r, lambda o: o.pop("numa_distances", None)),
     ["plot", "RUN", "--scripts-only"]),
    ("distances-short-row", lambda r, t: edit_topology(r, lambda o: o.update(
        numa_nodes=2, numa_distances=[[10, 21], [21]])), ["report", "RUN"]),
    ("distances-rows-not-nodes", lambda r, t: edit_topology(
        r, lambda o: o.update(numa_nodes=1, numa_distances=[
            [10, 21], [21, 10]])), ["plot", "RUN"]),
    ("distances-beyond-a-byte", lambda r, t: edit_topology(
        r, lambda o: o.update(numa_nodes=2, numa_distances=[
            [10, 256], [21, 10]])), ["compare", "RUN", "RUN"]),
    ("distances-negative", lambda r, t: edit_topology(r, lambda o: o.update(
        numa_nodes=1, numa_distances=[[-10]])), ["report", "RUN"]),
    ("distances-diagonal", lambda r, t: edit_topology(r, lambda o: o.update(
        numa_nodes=1, numa_distances=[[11]])), ["report", "RUN"]),
    ("distances-text", lambda r, t: edit_topology(r, lambda o: o.update(
        numa_nodes=1, numa_distances=[["10"]])), ["report", "RUN"]),
    ("distances-huge-nodes", lambda r, t: edit_topology(
        r, lambda o: o.update(numa_nodes=10 ** 9, numa_distances=[[10]])),
     ["report", "RUN"]),
    # every column is checked, not only the figures the plots draw:
    # numbers are decimal, whole where the writer
    # writes whole numbers, and bounded
] + [(name, lambda r, t, c=column, v=value: edit_cells(
    r, set_field(c, v)), [command, "RUN"] + ["RUN"] * (command == "compare"))
     for name, column, value, command in (
    ("busy-end-nan", "busy_loops_per_us_end", "nan", "plot"),
    ("busy-end-inf", "busy_loops_per_us_end", "inf", "plot"),
    ("busy-end-negative", "busy_loops_per_us_end", "-1", "plot"),
    ("busy-end-abc", "busy_loops_per_us_end", "abc", "plot"),
    ("busy-end-empty", "busy_loops_per_us_end", "", "plot"),
    ("busy-end-2to64", "busy_loops_per_us_end", str(2 ** 64), "plot"),
    ("busy-end-1e300", "busy_loops_per_us_end", "1e300", "plot"),
    ("busy-end-1e300-compare", "busy_loops_per_us_end", "1e300",
     "compare"),
    ("busy-start-huge", "busy_loops_per_us_start", "99999999", "report"),
    ("busy-used-abc", "busy_loops_per_us_used", "abc", "plot"),
    ("idle-wake-short-nan", "idle_wake_short_ns", "nan", "report"),
    ("idle-wake-long-negative", "idle_wake_long_ns", "-1", "compare"),
    ("bin-ns-nan", "bin_ns", "nan", "plot"),
    ("bin-ns-zero", "bin_ns", "0", "plot"),
    ("bin-ns-negative", "bin_ns", "-1e9", "plot"),
    ("sample-every-zero", "sample_every", "0", "report"),
    ("hash-slots-negative", "futex_hash_slots", "-5", "plot"),
    ("hash-slots-1e20", "futex_hash_slots", "1e20", "plot"),
    ("hash-slots-command", "futex_hash_slots", "x;rm -rf", "plot"),
    ("ops-hex", "ops_per_sec", "0x10", "plot"),
    ("cpus-command", "cpus", "`touch CANARY`", "plot"))] + [
    ("ops-column-twice", lambda r, t: edit_cells(
        r, rename_column("ops_per_sec_per_thread", "ops_per_sec")),
     ["report", "RUN"]),
    ("hist-folder-link", lambda r, t: link_folder_out(r, t, "hist"),
     ["plot", "RUN"]),
    # a torn last line: a finished run never has one (item 9)
    ("torn-last-line-plot", lambda r, t: tear_last_line(r), ["plot", "RUN"]),
    ("torn-last-line-report", lambda r, t: tear_last_line(r),
     ["report", "RUN"]),
    ("torn-last-line-compare", lambda r, t: tear_last_line(r),
     ["compare", "RUN", "RUN"]),
    # plot --timeline: the bins files are input like any other, checked
    # before the first plot is written (item 7)
    ("timeline-ok", None, ["plot", "RUN", "--timeline", "0",
                           "--scripts-only"]),
] + [(name, spoil, ["plot", "RUN", "--timeline", "0"], no_plots)
     for name, spoil in (
    ("timeline-nan", edit_bins(set_bin(0, 1, "nan"))),
    ("timeline-negative-ops", edit_bins(set_bin(0, 1, "-5"))),
    # the next bin's operations set too: a real run's second bin may
    # hold none on a loaded machine, which would move the line named
    ("timeline-ops-2to64-1", edit_bins(lambda l: set_bin(1, 1, "1")(
        set_bin(0, 1, str(2 ** 64 - 1))(l)))),
    ("timeline-not-adding-up", edit_bins(lambda l: add_to_bin(l, 1))),
    ("timeline-decreasing", edit_bins(lambda l: l[:2] + [
        "%d,0" % (int(l[-1].split(",")[0]) + 1)] + l[2:])),
    ("timeline-bin-ns-zero", edit_bins(lambda l: ["# bin_ns=0"] + l[1:])),
    ("timeline-no-header", edit_bins(lambda l: l[1:])),
    ("timeline-extra-field", edit_bins(lambda l: l[:2] + [
        l[2] + ",7"] + l[3:])),
    ("timeline-too-many", edit_bins(lambda l: l[:2] + [
        "%d,0" % i for i in range(1, 2049)] + l[2:])),
    ("timeline-symlink", lambda r, t: replace_bins(r, t, "symlink")),
    ("timeline-directory", lambda r, t: replace_bins(r, t, "directory")),
    ("timeline-fifo", lambda r, t: replace_bins(r, t, "fifo")),
    ("timeline-empty", lambda r, t: replace_bins(r, t, "empty")),
    ("timeline-bins-missing", lambda r, t: shutil.rmtree(os.path.join(
        r, "bins"))),
    ("timeline-bins-folder-link", lambda r, t: link_folder_out(r, t,
                                                               "bins")),
    )] + [
    ("timeline-no-cell", None, ["plot", "RUN", "--timeline", "4"],
     no_plots),
    ("timeline-huge-index", None, ["plot", "RUN", "--timeline",
                                   "99999999999999999999"], no_plots),
    ("timeline-empty-item", None, ["plot", "RUN", "--timeline", "0,,1"],
     no_plots),
    # two cells of one setup: compare matches on the setup, so it would
    # pair both with one and drop the other (item 8): refused
    ("compare-twins-in-a", twin_run, ["compare", "TMP/twin", "RUN"]),
    ("compare-twins-in-b", twin_run, ["compare", "RUN", "TMP/twin"]),
    # and a matrix file that would make such a run is refused up front
    # item 9, smaller: each message says what is wrong
    ("matrix-workload-no-equals", lambda r, t: open(os.path.join(
        t, "m.ini"), "w").write("[experiment a]\nworkload mutex\n"),
     ["matrix", "TMP/m.ini", "--list"]),
    ("run-wake-4096-threads", None, ["run", "wake", "--threads", "4096",
                                     "--results", "TMP/results"]),
    # a comment after a list made a line of more than 198 characters
    ("matrix-long-line-accepted", lambda r, t: open(os.path.join(
        t, "m.ini"), "w").write("[experiment a]\nworkload = mutex\n"
                                "threads = 1, 2 ; " + "why " * 60 + "\n"),
     ["matrix", "TMP/m.ini", "--list"]),
    ("matrix-line-too-long", lambda r, t: open(os.path.join(
        t, "m.ini"), "w").write("[experiment a]\nworkload = mutex\n; " +
                                "x" * 5000 + "\n"),
     ["matrix", "TMP/m.ini", "--list"]),
    ("matrix-twin-experiments", lambda r, t: open(os.path.join(
        t, "m.ini"), "w").write("[defaults]\nduration = 0.05\n"
                                "[experiment a]\nworkload = mutex\n"
                                "threads = 1,2\n[experiment b]\n"
                                "workload = mutex\nthreads = 2\n"
                                "reps = 3\n"),
     ["matrix", "TMP/m.ini", "--list"]),
]


# `futexlab matrix --resume P` on a partial directory (partials.py) spoiled
# one way, in TMP/lab/results (so "../../X" from there is TMP/X); each
# must end with its golden status and first stderr line, write nothing
# outside P, rename nothing but P into place as P's own name, and, when
# it succeeds, leave a finished run with every visit planned
RESUME_CASES = [
    ("resume-ok", None),
    ("resume-hist-missing", lambda p, t: os.remove(os.path.join(
        p, "hist", "cell-0003.csv"))),
    # item 1: links planted in the partial directory
    ("resume-hist-file-link", pt.link_out("hist/cell-0000.csv", drop=0)),
    ("resume-matrix-json-link", pt.link_out("matrix.json")),
    ("resume-hist-folder-link", pt.link_out("hist")),
    ("resume-bins-folder-link", pt.link_out("bins", drop=1)),
    ("resume-cells-link", pt.link_out("cells.csv")),
    ("resume-matrix-ini-link", pt.link_out("matrix.ini")),
    ("resume-partial-is-link", pt.partial_is_link),
    # item 2: a name inside matrix.json
    ("resume-name-escapes", pt.edit_state(name="../../ESCAPED_RUN")),
    # item 3: FIFOs, each refused, never waited on
    ("resume-fifo-cells", pt.fifo_at("cells.csv")),
    ("resume-fifo-matrix-json", pt.fifo_at("matrix.json")),
    ("resume-fifo-hist", pt.fifo_at("hist/cell-0000.csv")),
    ("resume-fifo-matrix-ini", pt.fifo_at("matrix.ini")),
    # item 4: the manifest's word against the disk's
    ("resume-finalizing-trusted", lambda p, t: (
        pt.drop_rows(3, 6)(p, t), pt.edit_state(finalizing=True)(p, t))),
    # item 5: kept rows checked by the readers' rules
    ("resume-kept-row-nan", pt.set_row(2, "ops_per_sec", "nan")),
    ("resume-duplicated-row", pt.duplicate_row(2)),
    # item 9: a torn last line, which a kill leaves, is dropped
    ("resume-torn-last-line", pt.tear_last_row),
    # a kill after the rows were put in cell order is finished
    ("resume-killed-after-commit", pt.killed_after_commit),
]


def snapshot(top, skip):
    """Every path under top but skip's subtree: its kind and content."""
    out = {}
    for d, dirs, files in os.walk(top):
        if os.path.abspath(d).startswith(skip):
            dirs[:] = []
            continue
        for n in dirs + files:
            path = os.path.join(d, n)
            if os.path.abspath(path) == skip:
                continue
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[path] = ("file", f.read())
            else:
                out[path] = ("other", None)
    return out


def resume_case(futexlab, template, name, spoil):
    tmp = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        results = os.path.join(tmp, "lab", "results")
        os.makedirs(results)
        partial = os.path.join(results, os.path.basename(template[0]))
        shutil.copytree(template[0], partial, symlinks=True)
        if spoil:
            spoil(partial, tmp)
        outside = snapshot(tmp, results)
        partial_before = snapshot(partial, "-")
        try:
            r = subprocess.run([futexlab, "matrix", "--resume", partial],
                               capture_output=True, text=True,
                               timeout=TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, ["hangs: no end within %d s" % TIMEOUT]
        problems = []
        now = snapshot(tmp, results)
        changed = sorted(k for k in set(now) | set(outside)
                         if now.get(k) != outside.get(k))
        if changed:
            problems.append("changed outside the partial directory: %s"
                            % [os.path.relpath(k, tmp) for k in changed])
        final = os.path.join(results, template[1])
        left = sorted(os.listdir(results))
        if not set(left) <= {os.path.basename(partial), template[1]}:
            problems.append("results/ holds %s" % left)
        if r.returncode == 0:
            problems += pt.complete_problems(final)
        if r.returncode == 0 and not problems:
            rr = subprocess.run([futexlab, "report", final],
                                capture_output=True, text=True,
                                timeout=TIMEOUT, cwd=tmp)
            if rr.returncode:
                problems.append("report refuses the finished run: %s"
                                % rr.stderr.strip())
        elif r.returncode == 2 and os.path.isdir(partial) and \
                snapshot(partial, "-") != partial_before:
            problems.append("a refused resume changed the directory")
        first = (r.stderr.splitlines() or [""])[0]
        first = first.replace(partial, "@PARTIAL@").replace(tmp, "@TMP@")
        first = re.sub(r"(cells\.csv:\d+):\d+:", r"\1:COL:", first)
        return "%s: %d: %s" % (name, r.returncode, first), problems
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def column_problems(message, run):
    """FILE:LINE:COLUMN must point at the value the message quotes."""
    m = re.search(r"cells\.csv:(\d+):(\d+): \w+ '([^']*)'", message)
    if not m:
        return []
    with open(os.path.join(run, "cells.csv")) as f:
        lines = f.read().split("\n")
    line, col, value = int(m.group(1)), int(m.group(2)), m.group(3)
    if line > len(lines) or not lines[line - 1][col - 1:].startswith(value):
        return ["%s:%d:%d does not point at %r" % ("cells.csv", line, col,
                                                  value)]
    return []


def run_case(futexlab, base, name, spoil, args, after=None):
    tmp = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        run = os.path.join(tmp, "run")
        shutil.copytree(base, run)
        if "run" + CANARY in " ".join(args):
            os.rename(run, run + CANARY)
            run = run + CANARY
        if spoil:
            spoil(run, tmp)
        before = tree(tmp)
        argv = [futexlab] + [a.replace("RUN", run).replace("TMP", tmp)
                             for a in args]
        try:
            r = subprocess.run(argv, capture_output=True, text=True,
                               timeout=TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, ["hangs: no end within %d s" % TIMEOUT]
        problems = []
        canaries = glob.glob(os.path.join(tmp, "**", "CANARY"),
                             recursive=True)
        if canaries:
            problems.append("a command ran: %s" % canaries)
        new = tree(tmp) - before
        new = {p for p in new if not p.startswith("results")}
        if new:
            problems.append("created outside RUN/plots: %s" % sorted(new))
        if after:
            problems += after(run, tmp)
        if r.returncode == 0:   # gnuplot's warnings vary: status only
            return "%s: 0" % name, problems
        first = (r.stderr.splitlines() or [""])[0]
        problems += column_problems(first, run)
        first = first.replace(tmp, "@TMP@")
        # the column depends on the digits of this run's timings: it is
        # checked against the file above, and the golden line says COL
        first = re.sub(r"(cells\.csv:\d+):\d+:", r"\1:COL:", first)
        # and a repetition's operation count is this run's
        first = re.sub(r"add up to \d+ operations, (.*) did \d+",
                       r"add up to N operations, \1 did M", first)
        return "%s: %d: %s" % (name, r.returncode, first), problems
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def closed_after(futexlab, args, lines):
    """futexlab ARGS with its stdout closed after `lines` lines (| head):
    (exit status, stderr), or None when it still ran 60 s later."""
    p = subprocess.Popen([futexlab] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    for _ in range(lines):
        p.stdout.readline()
    p.stdout.close()
    try:
        err = p.communicate(timeout=60)[1]
        return p.returncode, err
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def pipe_case(futexlab, name, args, lines):
    """The command's stdout closed after `lines` lines (| head)."""
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        got = closed_after(futexlab, args + ["--results", results], lines)
        if got is None:
            return None, ["still running 60 s after its reader left"]
        rc, err = got
        first = (err.splitlines() or [""])[-1].replace(results, "@RESULTS@")
        first = first.split(".partial-")[0] + ".partial-..."
        # how far it got before the write failed varies
        first = re.sub(r"after \d+ of \d+", "after N of M", first)
        return "%s: %d: %s" % (name, rc, first), []
    finally:
        shutil.rmtree(results, ignore_errors=True)


def run_head_case(futexlab):
    """A run whose stdout closes after one line (| head -1): it prints
    its summaries once the run directory is finished, so whether the
    write fails depends on how fast the reader leaves; either way the
    run directory is complete, and a failed write says so."""
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    problems = []
    try:
        got = closed_after(futexlab, [
            "run", "mutex", "--threads", "1,2", "--duration", "0.1",
            "--reps", "1", "--warmup", "0", "--results", results], 1)
        if got is None:
            return None, ["still running 60 s after its reader left"]
        rc, err = got
        last = (err.splitlines() or [""])[-1]
        runs = os.listdir(results)
        if rc not in (0, 1):
            problems.append("exit %d: %s" % (rc, last))
        if rc == 1 and not re.search(
                r"cannot write the summary: Broken pipe; the run is "
                r"complete in \S+/\d{8}T\d{6}Z-", last):
            problems.append("the failed write not said: %r" % last)
        if len(runs) != 1 or runs[0].startswith(".") or not \
                os.path.exists(os.path.join(results, runs[0], "meta.json")):
            problems.append("no complete run directory: %s" % runs)
        return "run-head: the run directory complete, a failed summary " \
            "said", problems
    finally:
        shutil.rmtree(results, ignore_errors=True)


def sighup_case(futexlab):
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        p = subprocess.Popen([futexlab, "run", "mutex", "--duration", "5",
                              "--reps", "3", "--warmup", "0", "--results",
                              results], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
        deadline = time.monotonic() + 20
        while not any(e.startswith(".partial-") for e in os.listdir(results)):
            if time.monotonic() > deadline:
                p.kill()
                return None, ["no .partial-* directory appeared"]
            time.sleep(0.02)
        time.sleep(0.3)
        p.send_signal(signal.SIGHUP)
        err = p.communicate(timeout=30)[1]
        last = (err.splitlines() or [""])[-1].split(" in ")[0]
        return "sighup-run: %d: %s" % (p.returncode, last), []
    finally:
        shutil.rmtree(results, ignore_errors=True)


def disk_full_case(futexlab):
    """A run on a full file system: stopped at the first failed write."""
    mnt = tempfile.mkdtemp(prefix="fl-untrusted-full-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                       mnt], capture_output=True).returncode:
        os.rmdir(mnt)
        print("note disk-full: cannot mount a small tmpfs (not root?): "
              "not tried")
        return "disk-full-run: not tried", []
    try:
        # one page left: cells.csv's header fits, the first histogram not
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\0" * (60 * 1024))
        r = subprocess.run([futexlab, "run", "mutex", "--threads", "1,2",
                            "--duration", "0.05", "--reps", "1", "--warmup",
                            "0", "--results", os.path.join(mnt, "res")],
                           capture_output=True, text=True, timeout=60,
                           cwd=ROOT)
        lines = [re.sub(r"\.partial-[^/ ]*", ".partial-X",
                        l.replace(mnt, "@MNT@"))
                 for l in r.stderr.splitlines()[1:]]
        return "disk-full-run: %d: %s" % (r.returncode,
                                          " / ".join(lines)), []
    finally:
        subprocess.run(["umount", mnt])
        os.rmdir(mnt)


def alive(pid):
    """pid runs (a zombie that no one reaps is dead)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def orphan_case(futexlab):
    """A matrix killed by SIGKILL while a visit runs, resumed at once
    (item 9): the visit's child holds no descriptor of the run directory,
    whose flock would otherwise outlive its parent until the child had
    died too, so the resume is not refused as 'being written'; and the
    child dies with its parent (PR_SET_PDEATHSIG), long before its 5 s
    visit would have ended. The resume is interrupted once it started."""
    top = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        ini = os.path.join(top, "m.ini")
        with open(ini, "w") as f:
            f.write("[defaults]\nduration = 5\nwarmup = 0\nreps = 1\n"
                    "[experiment m]\nworkload = mutex\nthreads = 1,2\n")
        results = os.path.join(top, "results")
        p = subprocess.Popen([futexlab, "matrix", ini, "--results",
                              results], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=top)
        deadline = time.monotonic() + 30
        kids, partial = [], None
        while not kids and time.monotonic() < deadline:
            time.sleep(0.01)
            kids = children(p.pid)
            partial = (glob.glob(os.path.join(results, ".partial-*")) or
                       [None])[0]
        if not kids or not partial:
            p.kill()
            p.wait()
            return None, ["no visit started within 30 s"]
        # once the visit measures (its threads started), the child is
        # past everything it does before the measurement
        while time.monotonic() < deadline and any(
                len(os.listdir("/proc/%d/task" % k)) < 2
                for k in kids if alive(k)):
            time.sleep(0.01)
        problems = []
        for kid in kids:
            try:
                fds = os.listdir("/proc/%d/fd" % kid)
            except OSError:
                continue
            for fd in fds:
                try:
                    target = os.readlink("/proc/%d/fd/%s" % (kid, fd))
                except OSError:
                    continue
                if target != os.path.realpath(partial):
                    continue
                # an open of the directory is fine (a program's output is
                # kept through it); the parent's, which holds the lock,
                # is not: the kernel lists a file's flock in its fdinfo
                try:
                    with open("/proc/%d/fdinfo/%s" % (kid, fd)) as f:
                        locked = "FLOCK" in f.read()
                except OSError:
                    continue
                if locked:
                    problems.append("the visit's child %d holds the run "
                                    "directory's lock (fd %s)" % (kid, fd))
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        gone = time.monotonic() + 3
        while any(alive(k) for k in kids) and time.monotonic() < gone:
            time.sleep(0.01)
        problems += ["the visit's child %d outlived its killed parent" % k
                     for k in kids if alive(k)]
        r = subprocess.Popen([futexlab, "matrix", "--resume", partial],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=top)
        first = r.stderr.readline().strip()
        if r.poll() is None:
            r.send_signal(signal.SIGINT)
        r.communicate(timeout=60)
        first = re.sub(r"\d+ of \d+", "N of M", first.replace(partial,
                                                           "@PARTIAL@"))
        return "orphan-resume: %d: %s" % (r.returncode, first), problems
    finally:
        shutil.rmtree(top, ignore_errors=True)


def make_base(futexlab, top):
    r = subprocess.run([futexlab, "run", "mutex", "--backend",
                        "futex-private", "--threads", "1", "--duration",
                        "0.05", "--reps", "2", "--warmup", "0", "--results",
                        top], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    top = tempfile.mkdtemp(prefix="fl-untrusted-base-")
    got = []
    try:
        base = make_base(futexlab, top)
        if not base:
            check("a tiny run to spoil", ["futexlab run failed"])
            print("untrusted: %d passed, %d failed" % (passed, failed))
            return 1
        results = []
        for case in CASES:
            results.append((case[0], run_case(futexlab, base, *case)))
        template = pt.template(futexlab, top, ROOT)
        if not template:
            results.append(("a partial matrix run to spoil", (None, [
                "futexlab matrix failed on partials.TINY"])))
        for name, spoil in RESUME_CASES if template else []:
            results.append((name, resume_case(futexlab, template, name,
                                              spoil)))
        results.append(("run-head", run_head_case(futexlab)))
        results.append(("matrix-head", pipe_case(
            futexlab, "matrix-head", ["matrix", "matrix/vm.ini"], 1)))
        results.append(("sighup-run", sighup_case(futexlab)))
        results.append(("orphan-resume", orphan_case(futexlab)))
        results.append(("disk-full-run", disk_full_case(futexlab)))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    golden = {}
    if os.path.exists(GOLDEN) and not args.update:
        with open(GOLDEN) as f:
            for line in f:
                golden[line.split(":", 1)[0]] = line.rstrip("\n")
    for name, (line, problems) in results:
        if line is not None:
            got.append(line)
            if not args.update and golden.get(name) != line:
                problems.append("got    %r" % line)
                problems.append("golden %r" % golden.get(name))
        check(name, problems)
    if args.update:
        with open(GOLDEN, "w") as f:
            f.write("\n".join(got) + "\n")
    print("untrusted: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
