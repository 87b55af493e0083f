"""test_untrusted.py's cases: CASES, a finished run spoiled one way and
read by one command, and RESUME_CASES, a partial matrix directory
(partials.py) spoiled one way and resumed."""

import os
import shutil

import partials as pt
from spoil_run import (add_to_bin, edit_bins, edit_cells, edit_meta,
                       edit_topology, fifo, header_only, link_folder_out,
                       no_plots, plant_symlink, rename_column, replace_bins,
                       set_bin, set_field, tear_last_line, twin_run,
                       wrapped_hist, write_hist)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# a command in backquotes: where it runs, a CANARY file appears
CANARY = "`touch CANARY`"


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
    ("cpus-command", "cpus", "`touch CANARY`", "plot"),
    # the kernel's counts: empty (not counted) or a whole number
    ("cpu-ns-negative", "cpu_ns", "-1", "report"),
    ("cpu-ns-fraction", "cpu_ns", "1.5", "plot"),
    ("cpu-ns-2to64", "cpu_ns", str(2 ** 64), "compare"),
    ("run-delay-nan", "run_delay_ns", "nan", "report"),
    ("ctx-switches-hex", "ctx_switches", "0x10", "plot"),
    ("cycles-command", "cycles", "`touch CANARY`", "plot"),
    ("steal-1e300", "steal_ns", "1e300", "report"),
    ("contaminated-2", "contaminated", "2", "report"),
    ("contaminated-yes", "contaminated", "yes", "compare"))] + [
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


# Checked as evenly as the columns' ranges: rows of a
# cell that disagree on its setup, an ok repetition of no length,
# histogram buckets that are not the writer's, meta.json members of the
# wrong type, and rows that are not the cells meta.json counts; each
# through every reader
HIST_HEAD = "# count=2 sum=50 min=20 max=30"
# what each reads a run with; a run it accepts has its outputs written
# under TMP/results (report RUN alone writes RUN/report.md: a run read
# twice, as a fleet, is read by the same reader)
# a fleet's report and compare read the spoiled run beside its copy
# (TMP/copy, spoiled alike): a run named twice is refused as such
READERS = (("plot", ["plot", "RUN", "--scripts-only"]),
           ("report", ["report", "RUN", "TMP/copy", "--out",
                       "TMP/results/r"]),
           ("compare", ["compare", "RUN", "TMP/copy", "--out",
                        "TMP/results/c"]))


def meta_set(path, value):
    """meta.json's member at path (keys and list indices) set to value."""
    def fn(m):
        for k in path[:-1]:
            m = m[k]
        m[path[-1]] = value
    return lambda r, t: edit_meta(r, fn)


def meta_drop(*keys):
    def fn(m):
        for k in keys:
            m.pop(k, None)
        m["machine"]["topology"].pop("numa_distances", None)
    return lambda r, t: edit_meta(r, fn)


EVERY_READER = [
    ("rows-differ-duration", lambda r, t: edit_cells(
        r, set_field("duration_ns", "60000000"), line=2)),
    ("ok-duration-zero", lambda r, t: edit_cells(
        r, set_field("duration_ns", "0"))),
    ("hist-high-below-low", lambda r, t: write_hist(
        r, HIST_HEAD, ["20,19,1", "30,30,1"])),
    ("hist-out-of-order", lambda r, t: write_hist(
        r, HIST_HEAD, ["30,30,1", "20,20,1"])),
    ("meta-workloads-text", meta_set(["workloads"], "x")),
    ("meta-settings-list", meta_set(["settings"], [])),
    ("meta-cells-reps-number", meta_set(["cells_reps"], 5)),
    ("meta-rep-start-text", meta_set(["cells_reps", 0, "rep_start", 0],
                                     "x")),
    ("meta-plots-version-999", meta_set(
        ["workloads", "mutex", "plots", "version"], 999)),
    ("cells-header-only", lambda r, t: header_only(r)),
    # a run written before these members existed still reads
    ("meta-old-accepted", meta_drop("cells_reps", "settings", "cells",
                                    "workloads", "statistics", "load",
                                    "build", "foreign_cpu_share")),
]

def with_results(spoil):
    """spoil, TMP/results made for the outputs of a run accepted, and
    the spoiled run copied to TMP/copy."""
    return lambda r, t: (os.makedirs(os.path.join(t, "results")),
                         spoil(r, t), shutil.copytree(
                             r, os.path.join(t, "copy"), symlinks=True))


CASES += [("%s-%s" % (name, reader), with_results(spoil), args)
          for name, spoil in EVERY_READER for reader, args in READERS] + [
    # the same classes beyond the cases above: every column a rule,
    # every member of meta.json a reader reads a type
    ("ok-elapsed-zero", lambda r, t: edit_cells(
        r, set_field("elapsed_ns", "0")), ["report", "RUN"]),
    ("rows-differ-sample-every", lambda r, t: edit_cells(
        r, set_field("sample_every", "64"), line=2),
     ["compare", "RUN", "RUN"]),
    ("hist-bucket-wider", lambda r, t: write_hist(
        r, HIST_HEAD, ["20,25,1", "30,30,1"]), ["plot", "RUN"]),
    ("hist-min-outside", lambda r, t: write_hist(
        r, "# count=2 sum=50 min=5 max=30", ["20,20,1", "30,30,1"]),
     ["compare", "RUN", "RUN"]),
    ("hist-count-trailing", lambda r, t: write_hist(
        r, HIST_HEAD, ["20,20,1x", "30,30,1"]), ["report", "RUN"]),
    ("hist-count-negative", lambda r, t: write_hist(
        r, HIST_HEAD, ["20,20,-1", "30,30,3"]), ["plot", "RUN"]),
    ("meta-hostname-number", meta_set(["machine", "hostname"], 5),
     ["report", "RUN"]),
    ("meta-fairness-text", meta_set(["workloads", "mutex", "fairness"],
                                    "no"), ["plot", "RUN"]),
    ("meta-primary-unknown", meta_set(["workloads", "mutex", "primary"],
                                      "fastest"), ["compare", "RUN", "RUN"]),
    ("meta-cells-ok-text", meta_set(["cells", "ok"], "1"),
     ["report", "RUN"]),
    ("meta-cells-total-more", meta_set(["cells", "total"], 4),
     ["plot", "RUN"]),
    ("meta-cells-reps-reps", meta_set(["cells_reps", 0, "reps"], 3),
     ["compare", "RUN", "RUN"]),
    ("meta-cells-reps-no-cell", meta_set(["cells_reps", 0, "cell"], 7),
     ["report", "RUN"]),
    ("meta-experiment-settings", meta_set(["matrix"], {"experiments": [
        {"name": "a", "settings": 5}]}), ["report", "RUN"]),
    ("meta-vulnerability-number", meta_set(
        ["machine", "vulnerabilities", "meltdown"], 1),
     ["compare", "RUN", "RUN"]),
    # a newer futexlab's plots are its own: generic plots, not refused
    ("meta-plots-newer-run-accepted", lambda r, t: (
        meta_set(["futexlab_version"], "99.0.0")(r, t),
        meta_set(["workloads", "mutex", "plots"], {"version": 2})(r, t)),
     ["plot", "RUN", "--scripts-only"]),
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
