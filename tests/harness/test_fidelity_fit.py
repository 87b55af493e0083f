#!/usr/bin/env python3
"""tools/fidelity.py's comparison at the same futex calls per acquisition
(docs/measurement.md, "Fidelity"), on made-up rounds whose answer is
known: no benchmark runs, nothing is timed.

- The line: bare runs on t = 10 ns + 1000 ns x calls give that line back,
  with one run far off it or not; runs that all made the same calls give
  a flat line through their median time.
- The ratios: futexlab runs on the bare line read 1 whatever their calls,
  also where futexlab's runs sat in another state than the bare ones'
  (the line read away from most of its points); runs 10% slower per
  acquisition read 0.9; a round's own bare run does not draw its line.
- No ratio without calls to compare (one thread) or without counts.

  tests/harness/test_fidelity_fit.py [--builddir build]
"""

import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_measure import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def load_fidelity():
    spec = importlib.util.spec_from_file_location(
        "fidelity", os.path.join(ROOT, "tools", "fidelity.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rate(calls, slower=1.0):
    """Acquisitions/s of a run on t = 10 ns + 1000 ns x calls."""
    return 1.0 / ((10e-9 + 1000e-9 * calls) * slower)


def rounds_of(fl_calls, bare_calls, slower=1.0):
    return [(rate(f, slower), rate(b), {"timed_calls": f},
             {"timed_calls": b}) for f, b in zip(fl_calls, bare_calls)]


def near(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-12)


def check_line(c, fid):
    xs = [0.001, 0.005, 0.01, 0.02, 0.03, 0.031]
    ys = [10e-9 + 1000e-9 * x for x in xs]
    a, b = fid.theil_sen(xs, ys)
    c.check(near(a, 10e-9) and near(b, 1000e-9),
            "the line through points on it: %g + %g x" % (a, b))
    ys[2] *= 3
    a, b = fid.theil_sen(xs, ys)
    c.check(near(a, 10e-9, 1e-3) and near(b, 1000e-9, 1e-3),
            "one run far off the line leaves it: %g + %g x" % (a, b))
    a, b = fid.theil_sen([0.02] * 5, [4e-8, 3e-8, 5e-8, 3.5e-8, 4.5e-8])
    c.check(b == 0 and near(a, 4e-8),
            "runs with the same calls: a flat line at their median time "
            "(%g + %g x)" % (a, b))


def check_ratios(c, fid):
    bare = [0.03, 0.028, 0.029, 0.002, 0.031, 0.027, 0.03, 0.026]
    fl = [0.029, 0.001, 0.0005, 0.03, 0.002, 0.028, 0.0015, 0.027]
    got = fid.adjusted_ratios(rounds_of(fl, bare))
    c.check(got is not None and len(got) == len(fl) and
            all(near(r, 1.0) for r in got),
            "runs on the bare line read 1, in the fast state too: %s" % got)
    got = fid.adjusted_ratios(rounds_of(fl, bare, slower=1 / 0.9))
    c.check(got is not None and all(near(r, 0.9) for r in got),
            "runs 10%% slower an acquisition read 0.9: %s" % got)
    # round 0's bare run is the only one in the fast state, and off the
    # line: were it in the fit, its weight (the farthest pairs) would
    # swing the line at its own calls, where round 0's futexlab run is
    # read; left out, round 0 reads the others' line, so it stays 1
    rounds = rounds_of([0.002] + fl[1:], [0.002] + bare[:3] + bare[4:])
    f, b, fc, bc = rounds[0]
    rounds[0] = (f, b / 2, fc, bc)
    got = fid.adjusted_ratios(rounds)
    c.check(got is not None and near(got[0], 1.0, 1e-3),
            "a round's own bare run does not draw its line: %s" % got[:1])
    one_thread = rounds_of([0.0] * 6, [0.0] * 6)
    c.check(fid.adjusted_ratios(one_thread) is None,
            "no futex calls on the bare side (one thread): no ratio")
    uncounted = [(1.0, 1.0, {}, {}) for _ in range(6)]
    c.check(fid.adjusted_ratios(uncounted) is None,
            "no counts (hash against perf): no ratio")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.parse_args()
    fid = load_fidelity()
    c = Checks()
    check_line(c, fid)
    check_ratios(c, fid)
    print("fidelity-fit: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
