#!/usr/bin/env python3
"""What a newcomer reads in compare's and plot's output.

  tests/cli/test_newcomer_compare.py --builddir build [-k NAME] [-v]
      [--update]

Each test writes synthetic runs (tests/matrix/runs.py) and runs the
built futexlab on them as a user would:

- compare's table says what its B/A is (the Hodges-Lehmann estimate,
  not column B over column A), names the options of its cells, says
  what every cell shares once, and labels the summaries by what they
  are, one pair of runs and several runs a side (golden stdout:
  tests/cli/golden/newcomer-*.stdout, rewritten with --update);
- a summary has no interval when none of its cells has one, and an
  inconclusive cell says what would decide it (golden);
- the latency plot draws the percentiles the report's table prints (of
  the merged histogram) and leaves out the ones it withholds (n/e),
  saying so, in the plot against threads and numa's locality plot;
- gnuplot's warning that it widened a range of equal values does not
  reach the terminal;
- the ratio plots leave room under the graph for their rotated labels.

Ends with `newcomer-compare: N passed, N failed`.
"""

import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True
import runs  # noqa: E402
from runs import check, fake_run, fl, reps  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")
UPDATE = "--update" in sys.argv
if UPDATE:
    sys.argv.remove("--update")

M = "algo=mutex3;critical=100;think=0;spin=100"


def golden(name, text, tmp):
    """text, the test's folder tmp written TMP, must be
    tests/cli/golden/NAME.stdout (or becomes it)."""
    text = text.replace(tmp, "TMP")
    path = os.path.join(GOLDEN, name + ".stdout")
    if UPDATE:
        with open(path, "w") as f:
            f.write(text)
        return
    want = open(path).read() if os.path.exists(path) else ""
    check(text == want, "%s differs from %s:\n--- got\n%s--- want\n%s" %
          (name, path, text, want))


def mutex_pair(tmp, a_levels, b_levels, n=8, spread=0.1, opts=None):
    """Runs A and B of mutex cells on futex-private at 1, 2 and 4
    threads: level[i] * reps(spread, n) each."""
    paths = []
    for name, levels in (("A", a_levels), ("B", b_levels)):
        cells = [("mutex", "futex-private", t, (opts or [M] * 3)[i],
                  "ok", reps(levels[i], spread, n), "")
                 for i, t in enumerate((1, 2, 4))]
        path = os.path.join(tmp, name)
        fake_run(path, cells, meta_extra={"settings": {"reps": n}})
        paths.append(path)
    return paths


def test_compare_says_what_its_ratio_is(tmp):
    # B's repetitions skewed so that the Hodges-Lehmann estimate and
    # the ratio of the medians differ, as they do on a real machine
    a, b = mutex_pair(tmp, [3.93e6, 4.32e6, 2e6], [4.36e6, 3.08e6, 2e6],
                      spread=0.09)
    r = fl("compare", a, b, "--out", os.path.join(tmp, "cmp"),
           check_rc=0)
    check("Hodges-Lehmann" in r.stdout and "not column B over column A"
          in r.stdout, "the table does not say what B/A is:\n" + r.stdout)
    check("mutex, every cell: placement=compact algo=mutex3 critical=100 "
          "think=0 spin=100" in r.stdout,
          "what the cells share is not named:\n" + r.stdout)
    check("mutex3,100" not in r.stdout, "options without their names:\n" +
          r.stdout)
    gp = open(os.path.join(tmp, "cmp", "ratios.gp")).read()
    check("(median, 95% CI)" not in gp and "Hodges-Lehmann" in gp,
          "the ratio plot's axis calls B/A a median")
    golden("newcomer-compare-pair", r.stdout, tmp)


def test_labels_name_what_varies(tmp):
    opts = [M, M.replace("critical=100", "critical=200"), M]
    a, b = mutex_pair(tmp, [1e6] * 3, [1e6] * 3, opts=opts)
    r = fl("compare", a, b, "--out", os.path.join(tmp, "cmp"), "--no-plot",
           check_rc=0)
    check("mutex futex-private t2 critical=200" in r.stdout and
          "mutex futex-private t1 critical=100" in r.stdout,
          "the option the cells differ by is not named:\n" + r.stdout)
    check("every cell: placement=compact algo=mutex3 think=0 spin=100"
          in r.stdout, "shared options:\n" + r.stdout)


def campaign_sides(tmp, n):
    a, b = [], []
    for k in range(n):
        for side, lst, f in (("A", a, 1.0), ("B", b, 0.9)):
            path = os.path.join(tmp, "%s%d" % (side, k))
            day = 1 + ((k * 3) % 5 - 2) / 50
            cells = [("mutex", "futex-private", 1, M, "ok",
                      reps(338e3 * f * day * (1 + side.count("B") * k
                                              / 40), 0.01), "")]
            fake_run(path, cells, meta_extra={
                "matrix": {"fnv1a64": "m1"}, "futexlab_version": "0.1.0",
                "git_commit": "abc", "start_time": "T%s%d" % (side, k)})
            lst.append(path)
    return a, b


def test_runs_summary_says_what_it_is(tmp):
    a, b = campaign_sides(tmp, 5)
    r = fl("compare", "--a", *a, "--b", *b, "--out",
           os.path.join(tmp, "cmp"), check_rc=0)
    check("median of B over A across every pair of their runs' medians"
          in r.stdout, "the runs table does not say what B/A is:\n" +
          r.stdout)
    check("B/A of the sides' geometric means of their runs' medians" in
          r.stdout, "the summary does not say what it is:\n" + r.stdout)
    gp = open(os.path.join(tmp, "cmp", "ratios.gp")).read()
    check("Hodges-Lehmann" in gp, "the runs' ratio plot's axis")
    golden("newcomer-compare-runs", r.stdout, tmp)


def test_no_summary_interval_without_cell_intervals(tmp):
    a, b = mutex_pair(tmp, [1e6, 2e6, 3e6], [1.1e6, 1.5e6, 3.3e6], n=3)
    r = fl("compare", a, b, "--out", os.path.join(tmp, "cmp"), "--no-plot",
           check_rc=0)
    summaries = [x for x in r.stdout.splitlines() if "geometric mean" in x]
    check(len(summaries) == 2 and all("no interval: no cell has one" in x
                                      and "[" not in x for x in summaries),
          "a summary interval over undecided cells:\n" + r.stdout)
    check("(4 a side give one)" in r.stdout, "undecided says not what "
          "would decide it:\n" + r.stdout)
    golden("newcomer-compare-undecided", r.stdout, tmp)


def test_inconclusive_says_what_decides(tmp):
    # 8 repetitions spread +-20%: NOISY, inconclusive; the last a hair
    # beyond the margin, which no number of repetitions would settle
    a, b = mutex_pair(tmp, [1e6, 1e6, 1e6], [1.05e6, 1.0e6, 1.021e6],
                      spread=0.4)
    r = fl("compare", a, b, "--out", os.path.join(tmp, "cmp"), "--no-plot",
           check_rc=0)
    rows = [x for x in r.stdout.splitlines() if "inconclusive:" in x]
    check(len(rows) == 3 and all(re.search(
        r"needs about \d+ repetitions a side|sits too near the margin for "
        r"any number of repetitions", x) for x in rows),
          "an inconclusive cell says not what would decide it:\n" +
          r.stdout)
    golden("newcomer-compare-inconclusive", r.stdout, tmp)


def gp_blocks(path):
    """{block name: [data lines]} of a gnuplot script."""
    blocks, name = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^\$(\w+) << EOD$", line)
        if m:
            name = m.group(1)
            blocks[name] = []
        elif line == "EOD":
            name = None
        elif name:
            blocks[name].append(line)
    return blocks


def ns_of(text):
    """ns from the report's "120 ns" or "1.20 us"."""
    m = re.match(r"([\d.]+) (ns|us|ms|s)\b", text)
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6,
                                "s": 1e9}[m.group(2)]


def test_latency_plot_draws_the_table(tmp):
    # each cell's histogram has 200 samples: p50 printed, p99 and p99.9
    # n/e; the repetitions' own p99 (cells.csv) are what a plot of
    # medians would draw
    run = os.path.join(tmp, "R")
    cells = [("mutex", be, t, M, "ok", reps(1e6 * t, 0.02, 6), "")
             for be in ("futex-private", "spin") for t in (1, 2, 4)]
    fake_run(run, cells)
    fl("plot", run, check_rc=0)
    fl("report", run, check_rc=0)
    report = open(os.path.join(run, "report.md")).read()
    table = {}
    for line in report.splitlines():
        c = [x.strip() for x in line.split("|")]
        if len(c) > 12 and c[2] in ("futex-private", "spin") and \
                c[3].isdigit():
            table[(c[2], int(c[3]))] = (c[9], c[10], c[11])
    check(len(table) == 6, "report rows: %r" % table)
    check(all(v[1].startswith("n/e") and v[2].startswith("n/e")
              for v in table.values()), "the table prints p99: %r" % table)
    blocks = gp_blocks(os.path.join(run, "plots", "mutex-latency.gp"))
    for s, be in enumerate(("futex-private", "spin")):
        p50 = {int(x.split()[0]): float(x.split()[1])
               for x in blocks["p0_s%d" % s] if not x.startswith("#")}
        for t in (1, 2, 4):
            check(abs(p50[t] - ns_of(table[(be, t)][0])) < 0.5,
                  "%s t%d: plot p50 %s, table %s" %
                  (be, t, p50.get(t), table[(be, t)][0]))
        for p in (1, 2):
            data = blocks["p%d_s%d" % (p, s)]
            check(not [x for x in data if not x.startswith("#")],
                  "withheld percentiles drawn: %r" % data)
            check(sum(x.endswith(" n/e") for x in data) == 3,
                  "withheld percentiles not marked: %r" % data)
    gp = open(os.path.join(run, "plots", "mutex-latency.gp")).read()
    check("6 of 6 cells not drawn: n/e" in gp, "the panel does not say so")


def test_locality_plot_draws_the_table(tmp):
    run = os.path.join(tmp, "N")
    cells = [("numa", "futex-private", 2, "mem-node=%s" % n, "ok",
              reps(2e6, 0.02, 6), "") for n in ("local", "remote")]
    fake_run(run, cells, meta_extra={"workloads": {"numa": {
        "primary": "throughput", "plots": {"version": 1, "special": [{
            "option": "mem-node", "name": "numa-locality",
            "caption": "local against remote memory",
            "title": "numa: local against remote futex memory",
            "panels": [{"figure": "ops_per_sec", "title": "throughput"},
                       {"figure": "lat_p99_ns", "title": "p99 latency",
                        "ylabel": "latency"}]}]}}}})
    r = fl("plot", run, check_rc=0)
    check("gnuplot" not in r.stderr, "plot: %r" % r.stderr)
    gp = open(os.path.join(run, "plots", "numa-locality.gp")).read()
    b1 = gp_blocks(os.path.join(run, "plots", "numa-locality.gp"))["b1"]
    check(all(x.startswith("#") or x.split()[1] == "NaN" for x in b1),
          "withheld p99 drawn: %r" % b1)
    check("p99 latency (not drawn: n/e" in gp, "the panel does not say")
    # every panel names its categories under the bars itself
    check(gp.count("set xtics ('local' 0, 'remote' 1)") == 2,
          "categories not named in each panel")


def test_gnuplot_widening_is_quiet(tmp):
    # every repetition of every cell alike: each plot's y range is one
    # value, which gnuplot widens with a warning
    run = os.path.join(tmp, "S")
    fake_run(run, [("mutex", "futex-private", 1, M, "ok", [1e6] * 6, "")])
    r = fl("plot", run, check_rc=0)
    check("gnuplot" not in r.stderr and "range" not in r.stderr,
          "gnuplot's warning reached the terminal: %r" % r.stderr)
    copy = os.path.join(tmp, "S2")
    shutil.copytree(run, copy)
    shutil.rmtree(os.path.join(copy, "plots"))
    r = fl("compare", run, copy, "--out", os.path.join(tmp, "cmp"),
           check_rc=0)
    check("gnuplot" not in r.stderr, "compare: %r" % r.stderr)


def bmargin_fits(gp_path):
    """Does the bottom margin hold the longest rotated label? (a
    character of the tic font ",8" takes about 0.3 of a margin line)"""
    gp = open(gp_path).read()
    labels = [x for x in gp_blocks(gp_path)["labels"]]
    longest = max(len(x.split(" ", 1)[1]) - 2 for x in labels)
    m = re.search(r"set bmargin (\d+)", gp)
    return m and int(m.group(1)) >= 0.3 * longest + 2, longest, m


def test_ratio_plot_labels_fit(tmp):
    long = "algo=mutex3;critical=%d;think=%d;spin=100;sample=%d"
    opts = [long % (100 * k, 10 * k, k) for k in (1, 2, 3)]
    a, b = mutex_pair(tmp, [1e6] * 3, [1e6] * 3, opts=opts)
    fl("compare", a, b, "--out", os.path.join(tmp, "cmp"), check_rc=0)
    ok, longest, m = bmargin_fits(os.path.join(tmp, "cmp", "ratios.gp"))
    check(longest > 40 and ok, "labels of %d characters under %s" %
          (longest, m and m.group(0)))
    os.makedirs(os.path.join(tmp, "c"))
    a, b = campaign_sides(os.path.join(tmp, "c"), 4)
    fl("compare", "--a", *a, "--b", *b, "--out", os.path.join(tmp, "rc"),
       check_rc=0)
    ok, longest, m = bmargin_fits(os.path.join(tmp, "rc", "ratios.gp"))
    check(ok, "runs plot: labels of %d characters under %s" %
          (longest, m and m.group(0)))


TESTS = [test_compare_says_what_its_ratio_is, test_labels_name_what_varies,
         test_runs_summary_says_what_it_is,
         test_no_summary_interval_without_cell_intervals,
         test_inconclusive_says_what_decides,
         test_latency_plot_draws_the_table,
         test_locality_plot_draws_the_table,
         test_gnuplot_widening_is_quiet, test_ratio_plot_labels_fit]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "newcomer-compare"))
