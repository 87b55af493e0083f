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
Ends with `plot_report: N passed, N failed` (tests/run.py reads it).
"""

import glob
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


TESTS = [test_plot_smoke, test_report, test_report_drift,
         test_report_busy_host]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "plot_report"))
