#!/usr/bin/env python3
"""matrix/run.sh, what `ninja matrix` and `ninja matrix-vm` run.

  tests/matrix/test_run_sh.py --builddir build [-k NAME] [-v]

  vm_run_dir_named  with --vm, the run directory drawn is the one the
                    guest's matrix named (--run-dir-file), not whatever
                    else appeared in results/ while the guest ran: a
                    stand-in for vm/run runs the matrix on this machine
                    in a folder of its own, as the guest's /fl, while
                    another run directory appears in results/, then
                    brings the guest's results/ back as vm/run does
Ends with `run.sh: N passed, N failed` (tests/run.py reads it).
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, write  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# vm/run's command line and its bringing back (vm/run: bring_results),
# with the guest a folder on this machine and no QEMU
FAKE_VM_RUN = r'''
import argparse, os, shutil, subprocess, sys
ap = argparse.ArgumentParser()
ap.add_argument("--builddir")
ap.add_argument("--timeout", type=int)
ap.add_argument("--results-out", default="results")
ap.add_argument("--include", action="append")
ap.add_argument("command", nargs=argparse.REMAINDER)
a = ap.parse_args()
command = a.command[1:] if a.command[:1] == ["--"] else a.command
guest = os.path.abspath("guest-fl")
os.makedirs(os.path.join(guest, "results"))
rc = subprocess.run(command, cwd=guest).returncode
# another run finished on the host meanwhile, sorting after the guest's
os.makedirs(os.path.join("results", "zzzz-another-run"))
os.makedirs(a.results_out, exist_ok=True)
for name in sorted(os.listdir(os.path.join(guest, "results"))):
    target = os.path.join(a.results_out, name)
    n = 1
    while os.path.exists(target):
        target = os.path.join(a.results_out, "%s-vm%d" % (name, n))
        n += 1
    shutil.move(os.path.join(guest, "results", name), target)
sys.exit(rc)
'''

MATRIX = """\
[defaults]
duration = 0.05
reps = 1
threads = 1

[experiment quick]
workload = hash
backend = futex-private
"""


def test_vm_run_dir_named(tmp):
    vmrun = write(os.path.join(tmp, "fake-vm-run"), FAKE_VM_RUN)
    matrix = write(os.path.join(tmp, "quick.ini"), MATRIX)
    r = subprocess.run(["sh", os.path.join(ROOT, "matrix", "run.sh"),
                        runs.FL, matrix, "--vm", vmrun, "build"],
                       cwd=tmp, capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "matrix/run.sh --vm: exit %d\nstdout: %s\n"
          "stderr: %s" % (r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    run = r.stdout.splitlines()[-1]
    check(run.startswith("results/") and run != "results/zzzz-another-run",
          "matrix/run.sh --vm named %r, not the guest's run" % run)
    check(os.path.isfile(os.path.join(tmp, run, "cells.csv")) and
          os.path.isfile(os.path.join(tmp, run, "report.md")),
          "%s: no cells.csv and report.md" % run)
    check(os.listdir(os.path.join(tmp, "results", "zzzz-another-run")) == [],
          "the other run directory was written into")
    left = sorted(os.listdir(os.path.join(tmp, "results")))
    check(left == sorted([os.path.basename(run), "zzzz-another-run"]),
          "results/ holds %s, not only the two runs" % left)


TESTS = [test_vm_run_dir_named]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "run.sh"))
