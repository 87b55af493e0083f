#!/usr/bin/env python3
"""Shards on a real Slurm cluster (docs/fleet.md, "Tests"): a single-node
cluster (munged, slurmctld, slurmd on 127.0.0.1, configured in a
temporary directory: tests/fleet/engines.py) runs `sbatch --array=0-2`
of tools/slurm-shard.sbatch on a small matrix; the three shards merge
into one run whose cells are `futexlab matrix --list`'s, each repetition
once, which plot, report and compare read. The cluster test fails,
naming what is missing, where Slurm or munge is not installed
(`configure.py --install-deps` installs them); the batch script's own
refusals are checked either way. Every daemon is stopped by its pid in a
finally; every wait has a deadline.

  tests/fleet/test_slurm.py --builddir build [-k NAME] [-v]
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
from fleetcheck import check, check_merged, check_readers, fl, runs, \
    setup  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SBATCH_SCRIPT = os.path.join(ROOT, "tools", "slurm-shard.sbatch")


def test_sbatch_script_outside_slurm(tmp):
    """The batch script refuses to run as anything but an array task."""
    env = dict(os.environ, FUTEXLAB=runs.FL)
    env.pop("SLURM_ARRAY_TASK_ID", None)
    r = subprocess.run(["bash", SBATCH_SCRIPT, "3", "m.ini", tmp],
                       capture_output=True, text=True, timeout=30, env=env)
    check(r.returncode == 2 and "not an array task" in r.stderr,
          "outside an array: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run(["bash", SBATCH_SCRIPT], capture_output=True,
                       text=True, timeout=30, env=env)
    check(r.returncode == 2 and "usage" in r.stderr, r.stderr)


def test_slurm_array(tmp):
    matrix, results, cluster = setup(tmp, engines.SlurmCluster, "slurm")
    try:
        cluster.start()
        job = cluster.sbatch(["--array=0-2", "--exclusive",
                              "--output=" + os.path.join(tmp, "out-%a.txt"),
                              "--export=ALL,FUTEXLAB=" + runs.FL,
                              SBATCH_SCRIPT, "3", matrix, results])
        cluster.wait_job(job, 150)
    finally:
        cluster.stop()
    dirs = []
    for k in range(3):
        f = os.path.join(results, "shard-%d.dir" % k)
        out = os.path.join(tmp, "out-%d.txt" % k)
        log = open(out).read()[-1500:] if os.path.exists(out) else ""
        check(os.path.exists(f), "array task %d left no run: %s" % (k, log))
        with open(f) as fh:
            dirs.append(fh.read().strip())
    r = fl("merge", *dirs, "--results", os.path.join(tmp, "merged"),
           check_rc=0)
    merged = r.stdout.strip().splitlines()[-1]
    meta = check_merged(merged, matrix)
    check(all(s.get("cpus_allowed") for s in meta["merged"]["runs"]),
          "a shard does not record its CPU set: %s" % meta["merged"])
    check_readers(merged, tmp)


TESTS = [test_sbatch_script_outside_slurm, test_slurm_array]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "fleet_slurm"))
