#!/usr/bin/env python3
"""What a newcomer reads in the first hour: the terminal's lines, report.md
and the docs say one thing each, in one way.

  tests/cli/test_newcomer_output.py --builddir build [--futexlab BIN]

Progress: a matrix's counter counts the repetitions it announced ("N
repetitions in all"), a total fixed at the start; a skipped cell's
visits that will not be made count as settled, and adaptive repetitions
are shown as such ("[N/N +k adaptive]"), never as a total that grows.

report.md: the machine table's numbers as a person reads them (no
"23.4826 ns", no "0.050000000000000003"), singular where one ("1
package", "1 thread"); a fleet's figures formatted as a run's ("4.00M",
never "4e+06"); a note several cells share (the busy loop's drift, each
cell with its own figure) said once with its cells.

Flags and docs: options are spelled in full (`--thread` is unknown,
named as such); a yes/no flag given a value says it takes none; the docs'
commands name build/futexlab; the Slurm script needs FUTEXLAB; --estimate
promises adaptive repetitions only where reps = auto; a folder that is
not a run is "not a run directory" for report as for plot; compare's
one-run note asks for the runs an interval needs (4); mutex --help gives
--spin's default once.

Ends with `newcomer_output: N passed, N failed`.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 120

passed = 0
failed = 0


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


def run(fl, args, cwd, env=None):
    """futexlab args: (status, stdout, stderr); status None on a hang."""
    try:
        r = subprocess.run([fl] + args, capture_output=True, text=True,
                           timeout=TIMEOUT, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return None, "", "hangs"
    return r.returncode, r.stdout, r.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def run_dir(stdout):
    """The run directory a run or matrix printed last."""
    lines = stdout.strip().splitlines()
    return lines[-1] if lines else ""


# two cells of fixed reps, one of them skipped (no PI on spin)
SKIPPING = """[defaults]
duration = 0.02
warmup = 0.01
reps = 3
seed = 1
backend = futex-private,spin
threads = 1

[experiment pi]
workload = pi
"""

# reps = auto with a budget: adaptive visits where an interval is wide
ADAPTIVE = """[defaults]
duration = 0.01
warmup = 0.005
reps = auto
reps-max = 9
time-budget = 4
seed = 1
backend = futex-private
threads = 1,2

[experiment mutex]
workload = mutex
critical = 0,2000
"""


def progress_problems(err):
    """Each [k/N] of a matrix's progress against the total announced."""
    problems = []
    m = re.search(r"(\d+) repetitions in all", err)
    if not m:
        return ["no 'N repetitions in all' announced: %r" % err[:300]]
    total = int(m.group(1))
    counters = re.findall(r"^\[(\d+)/(\d+)( \+(\d+) adaptive)?\]", err,
                          re.M)
    if not counters:
        return ["no progress line: %r" % err[:300]]
    last = 0
    for k, n, extra, _ in counters:
        if int(n) != total:
            problems.append("[%s/%s]: a total other than the %d "
                            "announced" % (k, n, total))
        if extra and int(k) != total:
            problems.append("adaptive visits before the %d announced "
                            "settled: [%s/%s%s]" % (total, k, n, extra))
        if int(k) < last:
            problems.append("the count went back: %s after %d" % (k, last))
        last = int(k)
    if last != total:
        problems.append("ends at %d of %d announced" % (last, total))
    return problems


def test_progress(fl, tmp):
    for name, text in (("skipped", SKIPPING), ("adaptive", ADAPTIVE)):
        results = os.path.join(tmp, "progress-" + name)
        os.makedirs(results)
        ini = write(os.path.join(tmp, name + ".ini"), text)
        st, out, err = run(fl, ["matrix", ini, "--results", results], tmp)
        problems = [] if st == 0 else ["exit %s: %r" % (st, err[-300:])]
        check("progress: a matrix with %s cells counts to the total it "
              "announced" % name, problems + progress_problems(err + out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--futexlab", help="the binary (default BUILDDIR's)")
    a = ap.parse_args()
    fl = os.path.abspath(a.futexlab or os.path.join(a.builddir,
                                                    "futexlab"))
    tmp = tempfile.mkdtemp(prefix="fl-newcomer-")
    try:
        test_progress(fl, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("newcomer_output: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
