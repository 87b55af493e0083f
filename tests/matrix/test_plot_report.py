#!/usr/bin/env python3
"""plot and report on a synthetic run directory.

  tests/matrix/test_plot_report.py --builddir build [-k NAME] [-v]

  plot_smoke        synthetic run: gnuplot really runs; PNG magic, SVG
                    well-formed and non-empty; specialised plots appear
                    only where their rows exist
  report            report.md: tables, intervals (n/a with too few
                    repetitions), withheld percentiles, skipped reasons,
                    plots; a run without repetition times: drift over
                    time not judged
  report_drift      a workload whose cells all follow the machine over
                    time is reported as drifting, a steady one as not
  report_busy_host  the busy loop's speed over the run; a busy host
  unknown_workload  a workload this futexlab lacks plots and reports with
                    the generic plots, and with its own plot where
                    meta.json describes one; the run's description wins
                    over the registry; a newer description's plots are
                    left out, a bad one refused
  time_axes         time axes read in ns, us, ms or s by their range
Ends with `plot_report: N passed, N failed` (tests/run.py reads it).
"""

import glob
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import Failure, check, drift_run, fake_run, fl  # noqa: E402


def synthetic_run(path):
    cells = []
    for be, base in (("futex-private", 1000000), ("spin", 3000000)):
        for t in (1, 2, 4):
            cells.append(("mutex", be, t, "algo=mutex3;critical=100", "ok",
                          [base / t, base / t * 1.05, base / t * 0.97],
                          "violations=0;wait_calls=%d" % (t * 10)))
    cells.append(("mutex", "spin", 4, "algo=pi;critical=100", "skipped",
                  [0, 0, 0], ""))
    for be in ("futex-private", "futex-shared"):
        for wake in ("all", "requeue", "requeue-pi"):
            cells.append(("condvar", be, 4, "wake=%s;critical=1000" % wake,
                          "ok", [5000, 5200, 4800], "rounds=100"))
    cells.append(("hash", "futex2", 2, "futexes=1024", "skipped",
                  [0, 0, 0], ""))
    fake_run(path, cells, meta_extra={"workloads": {"mutex": {
        "summary": "contended mutex", "ops_unit": "acquisitions",
        "latency": "acquire latency", "counters": []}}})
    return cells


def valid_png(path):
    data = open(path, "rb").read()
    return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000


def valid_svg(path):
    root = ET.parse(path).getroot()
    drawn = [e for e in root.iter() if e.tag.split("}")[-1] in
             ("path", "polyline", "polygon", "line", "rect")]
    return root.tag.split("}")[-1] == "svg" and len(drawn) > 10


def test_plot_smoke(tmp):
    run = os.path.join(tmp, "run")
    synthetic_run(run)
    r = fl("plot", run, check_rc=0, timeout=120)
    plots = os.path.join(run, "plots")
    want = ["mutex-throughput", "mutex-latency", "mutex-cdf",
            "mutex-fairness", "condvar-throughput", "condvar-wake"]
    for name in want:
        for ext in ("gp", "png", "svg"):
            check(os.path.isfile(os.path.join(plots, name + "." + ext)),
                  "no %s.%s" % (name, ext))
        check(valid_png(os.path.join(plots, name + ".png")),
              "%s.png is not a valid, non-empty PNG" % name)
        try:
            ok = valid_svg(os.path.join(plots, name + ".svg"))
        except ET.ParseError as e:
            raise Failure("%s.svg is not well-formed: %s" % (name, e))
        check(ok, "%s.svg draws nothing" % name)
    # only skipped rows: no plots; no pi or numa rows: no such plots
    for absent in ("hash-throughput.png", "pi-blocked.png",
                   "numa-locality.png"):
        check(not os.path.exists(os.path.join(plots, absent)),
              "%s drawn without rows to draw" % absent)
    # four per workload with ok cells, and condvar's own
    check(r.stdout.strip().splitlines()[-1].startswith("9 plots"),
          "plot count: %r" % r.stdout.splitlines()[-1])
    # a kept script reruns by itself in its directory
    for f in glob.glob(os.path.join(plots, "mutex-throughput.*")):
        if not f.endswith(".gp"):
            os.unlink(f)
    rr = subprocess.run(["gnuplot", "mutex-throughput.gp"], cwd=plots,
                        capture_output=True, text=True)
    check(rr.returncode == 0 and valid_png(os.path.join(
        plots, "mutex-throughput.png")), "the kept script does not rerun")
    r = fl("plot", os.path.join(tmp, "nope"))
    check(r.returncode == 2, "plot of a missing run: exit %d" % r.returncode)


def test_report(tmp):
    run = os.path.join(tmp, "run")
    synthetic_run(run)
    fl("plot", run, check_rc=0, timeout=120)
    r = fl("report", run, check_rc=0)
    path = os.path.join(run, "report.md")
    check(r.stdout.strip() == path, "report prints %r" % r.stdout)
    md = open(path).read()
    for needle in ("## Machine and kernel", "| kernel | 6.1.0",
                   "## mutex", "## condvar",
                   "acquisitions/s (median [95% CI])",
                   "![mutex: throughput against threads]"
                   "(plots/mutex-throughput.png)",
                   "## Skipped cells", "backend lacks pi"):
        check(needle in md, "report.md lacks %r" % needle)
    for img in [ln.split("](")[1].rstrip(")") for ln in md.splitlines()
                if ln.startswith("![")]:
        check(os.path.isfile(os.path.join(run, img)),
              "report.md shows a missing plot %s" % img)
    # 3 repetitions: no interval ("n/a"), never a width of 0%
    row = [ln for ln in md.splitlines() if ln.startswith("| 0 |")][0]
    check("| n/a |" in row and "NOISY" not in row, "row 0: %s" % row)
    # 200 samples: p99.9 withheld, the count beside it
    check("| n/e |" in row and "| 200 |" in row, "row 0: %s" % row)
    check("Drift over time: not judged" in md, "no times, yet judged")


def test_report_drift(tmp):
    run = os.path.join(tmp, "run")
    drift_run(run, {0, 1, 2, 3, 4, 5})
    fl("report", run, check_rc=0)
    md = open(os.path.join(run, "report.md")).read()
    cv = md[md.index("## condvar"):md.index("## hash")]
    hs = md[md.index("## hash"):]
    check("**Drift over time**: the repetitions of all these cells moved "
          "together" in cv, "condvar's drift not reported: %r" % cv)
    check("Drift over time: none found" in hs and "**Drift" not in hs,
          "hash reported as drifting: %r" % hs)
    check("waking an idle CPU" not in md, "a probe no run measured")
    # the probe's two states: 38 us in six passes of eight, 10.5 in two
    run = os.path.join(tmp, "probed")
    drift_run(run, {0, 1, 2, 3, 4, 5}, probe=True)
    fl("report", run, check_rc=0)
    md = open(os.path.join(run, "report.md")).read()
    check(re.search(r"\| waking an idle CPU after 30 us \| "
                    r"median 3[78]\.\d us "
                    r"\(10th-90th percentile 10\.\d-3[78]\.\d us\) over 128 "
                    r"repetitions \|", md), "probe row: %r" % md[:3000])
    check("| waking an idle CPU after 200 us | median 40.0 us" in md,
          "long probe row: %r" % md[:3000])


def test_report_busy_host(tmp):
    """The machine table gives the busy loop's speed over the run, and
    calls the host busy by compare's rule: more than 10% of repetitions
    whose speed moved by more than 10% between the calibrations before
    and after them."""
    cells = [("mutex", "futex-private", t, "algo=mutex3", "ok",
              [1e6 + 1e4 * k for k in range(8)], "") for t in (1, 2)]
    rows = {}
    for name, busy in (("none", None),
                       ("steady", lambda i, rep: (3700, 3690)),
                       ("busy", lambda i, rep: (2200, 3690) if rep % 4 == 1
                        else (3700, 3690))):
        run = os.path.join(tmp, name)
        fake_run(run, cells, busy=busy)
        fl("report", run, check_rc=0)
        md = open(os.path.join(run, "report.md")).read()
        rows[name] = [ln for ln in md.splitlines()
                      if ln.startswith("| busy loop's speed |")]
    check(rows["none"] == [], "a speed no run measured: %r" % rows["none"])
    check(rows["steady"] == ["| busy loop's speed | median 3700 loops/us "
                             "(10th-90th percentile 3700-3700) over 16 "
                             "repetitions, calibrated before each; it "
                             "moved by more than 10% during 0 of 16 |"],
          "steady: %r" % rows["steady"])
    check(len(rows["busy"]) == 1 and
          "median 3700 loops/us (10th-90th percentile 2200-3700)"
          in rows["busy"][0] and
          "during 4 of 16 (**busy host**: expect wide intervals) |"
          in rows["busy"][0], "busy: %r" % rows["busy"])


def lock_cells(wl, lat_ns):
    """Cells of workload wl with lock=plain and lock=pi at 3 threads, whose
    latencies (lat_ns of plain, a ninth of it for pi) come from their
    ops/s as fake_run makes them."""
    return [(wl, "futex-private", 3, "lock=%s" % lock, "ok",
             [1e9 / (lat_ns / div) * (1 + k / 100) for k in range(6)],
             "rounds=10")
            for lock, div in (("plain", 1), ("pi", 9))]


# what a futexlab with a workload "frobnicate" would record of it
FROB_PLOTS = {"version": 1, "special": [{
    "name": "frobnicate-lock", "option": "lock",
    "title": "frobnicate: blocked time per lock type",
    "ylabel": "blocked time",
    "panels": [{"figure": "lat_p50_ns", "title": "p50"},
               {"figure": "lat_p99_ns", "title": "p99"}],
    "caption": "blocked time per lock kind"}]}


def plot_and_report(run, render=False):
    """futexlab plot and report of run: the plot scripts written and the
    report's text (which shows only plots drawn, so render to see them)."""
    fl("plot", run, *([] if render else ["--scripts-only"]), check_rc=0,
       timeout=120)
    fl("report", run, check_rc=0)
    plots = os.path.join(run, "plots")
    names = sorted(f[:-3] for f in os.listdir(plots) if f.endswith(".gp")) \
        if os.path.isdir(plots) else []
    md = os.path.join(run, "report.md")
    return names, open(md).read() if os.path.exists(md) else ""


def test_unknown_workload(tmp):
    generic = ["frobnicate-cdf", "frobnicate-fairness", "frobnicate-latency",
               "frobnicate-throughput"]
    # no description at all: the generic plots, a table, never refused
    run = os.path.join(tmp, "bare")
    fake_run(run, lock_cells("frobnicate", 9e6))
    names, md = plot_and_report(run)
    check(names == generic, "bare: plots %r" % names)
    check("## frobnicate" in md and "| lock=plain |" in md, "bare: %r" % md)
    # described by the futexlab that wrote it: its own plot too
    run = os.path.join(tmp, "described")
    fake_run(run, lock_cells("frobnicate", 9e6), meta_extra={"workloads": {
        "frobnicate": {"ops_unit": "rounds", "latency": "blocked time",
                       "fairness": False, "primary": "latency_p50",
                       "plots": FROB_PLOTS}}})
    names, md = plot_and_report(run, render=True)
    check(names == sorted(generic[:1] + generic[2:] + ["frobnicate-lock"]),
          "described: plots %r" % names)
    gp = open(os.path.join(run, "plots", "frobnicate-lock.gp")).read()
    check("frobnicate: blocked time per lock type" in gp and
          "set xlabel 'lock'" in gp, "frobnicate-lock.gp: %r" % gp)
    check("![frobnicate: blocked time per lock kind]"
          "(plots/frobnicate-lock.png)" in md,
          "the report does not show it: %r" % md)
    # the run's description wins over this binary's registry: a pi run
    # that says it has no plot of its own gets none
    run = os.path.join(tmp, "pi-none")
    fake_run(run, lock_cells("pi", 9e6), meta_extra={"workloads": {
        "pi": {"plots": {"version": 1, "special": []}}}})
    names, _ = plot_and_report(run)
    check("pi-blocked" not in names, "pi-none: plots %r" % names)
    # ... and one written before the description falls back to it
    run = os.path.join(tmp, "pi-old")
    fake_run(run, lock_cells("pi", 9e6))
    names, md = plot_and_report(run)
    check("pi-blocked" in names, "pi-old: plots %r" % names)
    # a newer futexlab's description: generic plots, said so, not refused
    run = os.path.join(tmp, "newer")
    fake_run(run, lock_cells("frobnicate", 9e6), meta_extra={"workloads": {
        "frobnicate": {"plots": {"version": 99, "special": "anything"}}}})
    r = fl("plot", run, "--scripts-only", check_rc=0)
    check("plots version 99" in r.stdout, "newer: %r" % r.stdout)
    names, _ = plot_and_report(run)
    check(names == generic, "newer: plots %r" % names)
    # a description that would write outside plots/ is refused
    for key, bad in (("name", "../frobnicate-lock"), ("option", ""),
                     ("title", "two\nlines")):
        run = os.path.join(tmp, "bad-" + key)
        plots = json.loads(json.dumps(FROB_PLOTS))
        plots["special"][0][key] = bad
        fake_run(run, lock_cells("frobnicate", 9e6), meta_extra={
            "workloads": {"frobnicate": {"plots": plots}}})
        r = fl("plot", run, "--scripts-only", check_rc=2)
        check("meta.json" in r.stderr and
              "workloads.frobnicate.plots.special[0].%s" % key in r.stderr,
              "bad %s: %r" % (key, r.stderr))
        fl("report", run, check_rc=2)


def test_time_axes(tmp):
    """pi's blocked time is milliseconds: its axes say ms, not "9M ns"."""
    run = os.path.join(tmp, "pi")
    # pi is a round workload: its p50 is the primary figure, the median
    # of the repetitions' (its merged histogram here is fake_run's
    # nanoseconds, whose p99 is withheld)
    fake_run(run, lock_cells("pi", 9e6), meta_extra={
        "workloads": {"pi": {"primary": "latency_p50"}}})
    fl("plot", run, "--scripts-only", check_rc=0)
    plots = os.path.join(run, "plots")
    gp = open(os.path.join(plots, "pi-blocked.gp")).read()
    check("set ylabel 'blocked time (ms)'" in gp and "($2/1e+06)" in gp,
          "pi-blocked.gp: %r" % gp)
    lat = open(os.path.join(plots, "pi-latency.gp")).read()
    check("(ms)'" in lat and "(ns)'" not in lat, "pi-latency.gp: %r" % lat)
    # a log axis (a spread above 30x) labels each decade in its unit:
    # the p50 of a round workload, its repetitions' median
    run = os.path.join(tmp, "wide")
    fake_run(run, [("wake", be, t, "", "ok", [1e9 / lat] * 3, "")
                   for t in (1, 2) for be, lat in (("spin", 80),
                                                   ("futex-private", 9e4))],
             meta_extra={"workloads": {"wake": {"primary": "latency_p50"}}})
    fl("plot", run, "--scripts-only", check_rc=0)
    lat = open(os.path.join(run, "plots", "wake-latency.gp")).read()
    check("set logscale y" in lat and "'100 ns' 100" in lat and
          "'10 us' 10000" in lat and "%c" not in lat.split("EOD")[-1],
          "wake-latency.gp: %r" % lat)
    cdf = open(os.path.join(run, "plots", "wake-cdf.gp")).read()
    check("'100 ns' 100" in cdf and "(ns)" not in cdf,
          "wake-cdf.gp: %r" % cdf)
    # no SI prefix on a time axis ("9M ns"): throughput keeps its own
    for name in ("pi-blocked", "pi-latency"):
        gp = open(os.path.join(plots, name + ".gp")).read()
        check("%.0s%c" not in gp, "%s.gp: %r" % (name, gp))


TESTS = [test_plot_smoke, test_report, test_report_drift,
         test_report_busy_host, test_unknown_workload, test_time_axes]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "plot_report"))
