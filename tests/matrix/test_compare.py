#!/usr/bin/env python3
"""compare on synthetic run directories.

  tests/matrix/test_compare.py --builddir build [-k NAME] [-v]

  compare_verdicts  synthetic runs: faster, slower, equivalent,
                    inconclusive, undecided, one-run-only and skipped
                    cells; NOISY cells in regimes judged repetition
                    against repetition (a false "faster" by the shift
                    alone); --delta; setup warnings; the summary lines
  compare_busy_host a run whose CPU speed moved under a quarter of its
                    repetitions: warned about, every interval widened by
                    its speeds' spread; a 10% gain not called, a 4x drop
                    still called slower
  compare_drift     a workload whose every cell follows the machine's
                    state over time, caught in opposite shares by two
                    runs: warned about and widened, so not called
                    faster, where a steady workload beside it still is
                    called equivalent
Ends with `compare: N passed, N failed` (tests/run.py reads it).
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, drift_run, fake_run, fl, reps, rows_of  # noqa: E402


# A cell whose repetitions come in two regimes (1 and 2 M/s), run twice
# on the same machine: B caught more of the fast regime than A. The shift
# interval calls that "faster" (1.95 [1.06, 2.00]); repetition against
# repetition ([1.01, 2.05]) it is inconclusive.
REGIMES_A = [1.00e6, 1.01e6, 1.02e6, 1.03e6, 1.04e6, 1.05e6, 1.06e6, 2.00e6]
REGIMES_B = [1.07e6, 2.00e6, 2.01e6, 2.02e6, 2.03e6, 2.04e6, 2.05e6, 2.06e6]


def test_compare_verdicts(tmp):
    m = "algo=mutex3"
    a = [("mutex", "futex-private", 1, m, "ok", reps(100, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(100, 0.02), ""),
         ("mutex", "futex-private", 4, m, "ok", reps(100, 0.005), ""),
         ("mutex", "spin", 1, m, "ok", [100, 101, 99], ""),
         ("mutex", "spin", 2, m, "ok", reps(100, 0.02), ""),
         ("mutex", "spin", 4, "algo=pi", "skipped", [0, 0], ""),
         ("hash", "futex2", 1, "", "ok", reps(50, 0.2), ""),
         ("condvar", "futex2", 1, "wake=all", "ok", reps(50, 0.02), ""),
         # NOISY, in two regimes: the same machine twice, then hogged
         ("mutex", "futex-shared", 1, m, "ok", REGIMES_A, ""),
         ("mutex", "futex-shared", 2, m, "ok", REGIMES_A, "")]
    b = [("mutex", "futex-private", 1, m, "ok", reps(110, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(90, 0.02), ""),
         ("mutex", "futex-private", 4, m, "ok", reps(100.2, 0.005), ""),
         ("mutex", "spin", 1, m, "ok", [200, 201, 199], ""),
         ("mutex", "spin", 4, "algo=pi", "ok", reps(10, 0.02), ""),
         ("hash", "futex2", 1, "", "ok", reps(51, 0.2), ""),
         ("hash", "futex2", 2, "", "ok", reps(70, 0.02), ""),
         ("condvar", "futex2", 1, "wake=all;rt=0", "ok", reps(50, 0.02),
          ""),
         ("mutex", "futex-shared", 1, m, "ok", REGIMES_B, ""),
         ("mutex", "futex-shared", 2, m, "ok", [v / 4 for v in REGIMES_B],
          "")]
    ra, rb = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    fake_run(ra, a, kernel="6.1.0", meta_extra={"settings": {"reps": 6}})
    # the busy loop's speed steady under every repetition (a busy host is
    # test_compare_busy_host's)
    fake_run(rb, b, kernel="6.2.0", meta_extra={"foreign_cpu_share": 0.4,
                                                "settings": {"reps": 8}},
             busy=lambda i, rep: (3700, 3690))
    out = os.path.join(tmp, "cmp")
    r = fl("compare", ra, rb, "--out", out, check_rc=0)
    check("differ in kernel: '6.1.0' against '6.2.0'" in r.stderr,
          "no kernel warning: %r" % r.stderr)
    check("differ in settings" in r.stderr, "no settings warning")
    check("differ in host" not in r.stderr, "a false host warning")
    check("speed moved" not in r.stderr and "ranged over" not in r.stderr,
          "a busy host where the speed held: %r" % r.stderr)
    check("workload condvar has options 'wake' in A but 'wake,rt' in B"
          in r.stderr, "no warning about the option sets: %r" % r.stderr)
    check("other processes used 40% of the CPU time during B" in r.stderr
          and "during A" not in r.stderr, "busy-machine warning: %r" %
          r.stderr)
    rows = rows_of(os.path.join(out, "compare.csv"))
    got = {(x["workload"], x["backend"], x["threads"], x["options"]):
           (x["verdict"], x["reason"]) for x in rows}
    want = {
        ("mutex", "futex-private", "1", m): "faster",
        ("mutex", "futex-private", "2", m): "slower",
        ("mutex", "futex-private", "4", m): "equivalent",
        ("mutex", "spin", "1", m): "undecided",
        ("mutex", "spin", "2", m): "not comparable",
        ("mutex", "spin", "4", "algo=pi"): "not comparable",
        ("hash", "futex2", "1", ""): "inconclusive",
        ("hash", "futex2", "2", ""): "not comparable",
        ("condvar", "futex2", "1", "wake=all"): "not comparable",
        ("condvar", "futex2", "1", "wake=all;rt=0"): "not comparable",
        ("mutex", "futex-shared", "1", m): "inconclusive",
        ("mutex", "futex-shared", "2", m): "slower",
    }
    check(set(got) == set(want), "cells: got %s" % sorted(got))
    for k, v in want.items():
        check(got[k][0] == v, "%s: verdict %r, want %r" % (k, got[k][0], v))
    check(got[("mutex", "futex-shared", "1", m)][1].startswith(
          "NOISY in both: interval of repetition against repetition"),
          "NOISY cell's interval not named: %r" %
          (got[("mutex", "futex-shared", "1", m)],))
    check(got[("mutex", "spin", "2", m)][1] == "only in A",
          "one-run cell not listed as such: %r" % (got[("mutex", "spin",
                                                        "2", m)],))
    check(got[("hash", "futex2", "2", "")][1] == "only in B",
          "one-run cell (B) not listed")
    check("backend lacks pi" in got[("mutex", "spin", "4", "algo=pi")][1],
          "the skip reason is not carried")
    fast = [x for x in rows if x["threads"] == "1" and
            x["backend"] == "futex-private"][0]
    check(abs(float(fast["ratio"]) - 1.1) < 1e-3, "ratio %s" % fast["ratio"])
    check(float(fast["ratio_lo"]) > 1.02 and float(fast["p_adjusted"]) <
          0.05, "interval or p: %r" % fast)
    check(fast["delta"] == "0.02", "delta not recorded: %r" % fast)
    md = open(os.path.join(out, "compare.md")).read()
    check("| faster |" in md and "kernel differs" in md,
          "compare.md lacks the verdicts or the warning")
    png = open(os.path.join(out, "ratios.png"), "rb").read()
    check(png.startswith(b"\x89PNG\r\n\x1a\n"), "ratios.png is not a PNG")
    check("1 faster, 2 slower, 1 equivalent, 2 inconclusive, 1 undecided, "
          "5 not comparable" in r.stdout,
          "summary line: %r" % r.stdout.splitlines()[-4:])
    check("overall: geometric mean of B's speed relative to A over 7 "
          "cells" in r.stdout, "no overall summary: %r" % r.stdout)
    # a wider margin makes the 10% cells... still faster; 15% makes them
    # inconclusive, never equivalent
    r = fl("compare", ra, rb, "--out", out, "--delta", "10", "--no-plot",
           check_rc=0)
    rows = rows_of(os.path.join(out, "compare.csv"))
    check([x["verdict"] for x in rows][:3] == ["inconclusive",
                                                "inconclusive",
                                                "equivalent"],
          "--delta 10: %r" % [x["verdict"] for x in rows][:3])
    r = fl("compare", ra)
    check(r.returncode == 2, "one run: exit %d" % r.returncode)
    r = fl("compare", ra, os.path.join(tmp, "nope"))
    check(r.returncode == 2 and "not a run directory" in r.stderr,
          "missing run: %d %r" % (r.returncode, r.stderr))



def test_compare_busy_host(tmp):
    """A quarter of B's repetitions ran on a CPU 40% slower at their end
    (another guest on the core): warned about, and every interval widened
    by the spread of B's CPU speeds, so a 10% gain is not called, while a
    4x drop still is."""
    m = "algo=mutex3"
    a = [("mutex", "futex-private", 1, m, "ok", reps(100, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(100, 0.02), "")]
    b = [("mutex", "futex-private", 1, m, "ok", reps(110, 0.02), ""),
         ("mutex", "futex-private", 2, m, "ok", reps(25, 0.02), "")]
    ra, rb = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    fake_run(ra, a, busy=lambda i, rep: (3700, 3690))
    fake_run(rb, b, busy=lambda i, rep: (3700, 2200 if rep % 4 == 1
                                         else 3690))
    out = os.path.join(tmp, "cmp")
    r = fl("compare", ra, rb, "--out", out, "--no-plot", check_rc=0)
    check(re.search(r"speed moved by more than 10% during \d+ of \d+ "
                    r"repetitions of B ", r.stderr) and
          "repetitions of A " not in r.stderr,
          "busy-host warning: %r" % r.stderr)
    check(re.search(r"the CPU's speed during B ranged over 68% ", r.stderr)
          and "during A ranged" not in r.stderr,
          "no spread warning for B alone: %r" % r.stderr)
    got = {x["threads"]: x for x in rows_of(os.path.join(out,
                                                          "compare.csv"))}
    check(got["1"]["verdict"] == "inconclusive" and
          "busy host: widened by 68%" in got["1"]["reason"],
          "10%% gain on a busy host: %r %r" % (got["1"]["verdict"],
                                              got["1"]["reason"]))
    check(got["2"]["verdict"] == "slower", "4x drop on a busy host: %r" %
          got["2"]["verdict"])
    check("widened by 68% for a busy host" in r.stdout,
          "summary not widened: %r" % r.stdout)

def test_compare_drift(tmp):
    ra, rb = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    drift_run(ra, {0, 1, 2, 3, 4, 5})      # mostly slow wake-ups
    drift_run(rb, {6, 7})                  # mostly fast
    out = os.path.join(tmp, "cmp")
    r = fl("compare", ra, rb, "--out", out, "--no-plot", check_rc=0)
    for run in ("A", "B"):
        check("condvar's figures drifted together over the time of %s "
              % run in r.stderr, "no drift warning for %s: %r" %
              (run, r.stderr))
    check("hash's figures drifted" not in r.stderr,
          "a steady workload called drifting: %r" % r.stderr)
    rows = rows_of(os.path.join(out, "compare.csv"))
    cv = [x for x in rows if x["workload"] == "condvar"]
    check(len(cv) == 8, "condvar cells: %d" % len(cv))
    for x in cv:
        # B's medians are 7.0 us against A's 10.5: 0.667 within each run
        check(abs(float(x["ratio"]) - 0.667) < 0.01, "ratio %s" % x["ratio"])
        check(x["verdict"] == "inconclusive", "%s t%s: verdict %r" %
              (x["workload"], x["threads"], x["verdict"]))
        check("drift over time: widened by" in x["reason"],
              "reason %r" % x["reason"])
        check(float(x["ratio_hi"]) > 0.98, "interval %s-%s still excludes "
              "1 - delta" % (x["ratio_lo"], x["ratio_hi"]))
    for x in rows:
        if x["workload"] == "hash":
            check(x["verdict"] == "equivalent" and "drift" not in
                  x["reason"], "hash: %r %r" % (x["verdict"], x["reason"]))
    check(re.search(r"condvar: geometric mean of the cells' B/A over 8 "
                    r"cells 0\.66\d+ "
                    r"\[[0-9.]+, [0-9.]+\], widened by \d+% for drift over "
                    r"time", r.stdout), "condvar summary: %r" % r.stdout)

def compare_idle(tmp, name, b_slower=1.0, b_kernel="6.1.0"):
    """A mostly in the slow wake-up state, B mostly in the fast one, both
    probed; B's code slower by b_slower. compare's stderr, stdout and
    condvar's rows."""
    ra, rb = os.path.join(tmp, name + "A"), os.path.join(tmp, name + "B")
    drift_run(ra, {0, 1, 2, 3, 4, 5}, probe=True)
    drift_run(rb, {6, 7}, probe=True, slower=b_slower, kernel=b_kernel)
    out = os.path.join(tmp, name + "cmp")
    r = fl("compare", ra, rb, "--out", out, "--no-plot", check_rc=0)
    rows = rows_of(os.path.join(out, "compare.csv"))
    return r, [x for x in rows if x["workload"] == "condvar"], rows


def test_compare_idle_wake(tmp):
    # the same code: once each repetition is set against the probe, the
    # runs' condvar cells agree, where test_compare_drift's could not
    r, cv, rows = compare_idle(tmp, "same")
    check("condvar on futex2 follows the cost of waking an idle CPU "
          "after 30 us (Spearman" in r.stderr,
          "no adjustment said: %r" % r.stderr)
    check("hash on futex2 follows" not in r.stderr,
          "steady hash adjusted: %r" % r.stderr)
    # what is left is the 1% the synthetic cells creep by over the passes
    widen = re.findall(r"condvar's cell intervals and summary are widened "
                       r"by (\d+)%", r.stderr)
    check(all(int(x) <= 1 for x in widen),
          "the drift the probe explains still widens: %r" % r.stderr)
    check(len(cv) == 8, "condvar cells: %d" % len(cv))
    for x in cv:
        check(abs(float(x["ratio"]) - 1) < 0.01, "ratio %s" % x["ratio"])
        check(x["verdict"] == "equivalent", "t%s: verdict %r" %
              (x["threads"], x["verdict"]))
        check("adjusted for the machine's state" in x["reason"],
              "reason %r" % x["reason"])
    for x in rows:
        if x["workload"] == "hash":
            check("adjusted" not in x["reason"], "hash: %r" % x["reason"])
    check(re.search(r"condvar: geometric mean of the cells' B/A over 8 "
                    r"cells "
                    r"(0\.99|1\.00)\d+ "
                    r"\[[0-9.]+, [0-9.]+\].*, adjusted for the machine's "
                    r"state", r.stdout), "condvar summary: %r" % r.stdout)
    # a change of the code survives the adjustment: B 20% slower in
    # every repetition is slower, by 20%
    r, cv, _ = compare_idle(tmp, "slower", b_slower=1.2)
    for x in cv:
        check(abs(float(x["ratio"]) - 1.2) < 0.012 and
              x["verdict"] == "slower", "t%s: %s %r" %
              (x["threads"], x["ratio"], x["verdict"]))
    # another kernel moves the probe as well as the figures: no
    # adjustment, and the drift rule judges as before
    r, cv, _ = compare_idle(tmp, "kernel", b_kernel="6.12.0")
    check("follows the cost of waking" not in r.stderr,
          "adjusted across kernels: %r" % r.stderr)
    for x in cv:
        check(x["verdict"] == "inconclusive" and
              "adjusted" not in x["reason"], "t%s: %r %r" %
              (x["threads"], x["verdict"], x["reason"]))


def speed_run(path, slow_passes):
    """8 hash cells of 8 repetitions whose throughput follows the busy
    loop's speed: 2400 loops/us in the passes listed, 3600 in the others
    (a core shared with another guest), steady within each repetition."""
    def speed(i, k):
        v = 2400 if k in slow_passes else 3600
        return (v, v)

    cells = []
    for i in range(8):
        ops = [5e5 * speed(i, k)[0] / 3600 *
               (1 + ((k * 3 + i * 5) % 8 - 3.5) / 1000) for k in range(8)]
        cells.append(("hash", "futex2", 1 + i, "", "ok", ops, ""))
    fake_run(path, cells, busy=speed, meta_extra={
        "workloads": {"hash": {"primary": "throughput"}}})


def test_compare_busy_covariate(tmp):
    # A mostly on the slowed core, B mostly not: compared at the runs'
    # common speed, the same code is equivalent
    ra, rb = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    speed_run(ra, {0, 1, 2, 3, 4, 5})
    speed_run(rb, {6, 7})
    out = os.path.join(tmp, "cmp")
    r = fl("compare", ra, rb, "--out", out, "--no-plot", check_rc=0)
    check("hash on futex2 follows the busy loop's speed" in r.stderr,
          "no adjustment said: %r" % r.stderr)
    for x in rows_of(os.path.join(out, "compare.csv")):
        check(abs(float(x["ratio"]) - 1) < 0.01 and
              x["verdict"] == "equivalent", "t%s: %s %r %r" %
              (x["threads"], x["ratio"], x["verdict"], x["reason"]))
    r = fl("compare", ra, rb, "--out", out, "--no-plot", "--no-adjust",
           check_rc=0)
    check("follows" not in r.stderr, "--no-adjust adjusted: %r" % r.stderr)
    for x in rows_of(os.path.join(out, "compare.csv")):
        check(float(x["ratio"]) > 1.4, "as measured, B is 1.5x: %s"
              % x["ratio"])


TESTS = [test_compare_verdicts, test_compare_busy_host, test_compare_drift,
         test_compare_idle_wake, test_compare_busy_covariate]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "compare"))
