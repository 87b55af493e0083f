#!/usr/bin/env python3
"""The engines a lab already runs, for real on this machine
(docs/fleet.md, "Tests"):

- a single-node Slurm cluster (munged, slurmctld, slurmd on 127.0.0.1,
  configured in a temporary directory) runs `sbatch --array=0-2` of
  tools/slurm-shard.sbatch on a small matrix; the three shards merge
  into one run whose cells are `futexlab matrix --list`'s, each
  repetition once, which plot, report and compare read;
- GNU parallel runs the same matrix as two machines of a fleet (two
  labels on this host) over ssh to an sshd started on a loopback port
  with a key generated here; the fleet's report sets them side by side.

Each engine test skips, saying which tool is missing, where its packages
are not installed (./configure.py --install-deps installs them). Every
daemon is stopped by its pid in a finally; every wait has a deadline.

  tests/fleet/test_engines.py --builddir build [-k NAME] [-v]
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
from fleetcheck import SMALL, check, check_fleet_report, check_merged, \
    check_readers, fl, runs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SBATCH_SCRIPT = os.path.join(ROOT, "tools", "slurm-shard.sbatch")


def setup(tmp, engine, folder):
    """The small matrix, the results folder, and the engine (skipped
    where its tools are not installed) configured in tmp/folder."""
    gone = engines.missing(engine.TOOLS)
    if gone:
        raise runs.Skip("not installed: %s (./configure.py --install-deps)"
                        % ", ".join(gone))
    e = engine(os.path.join(tmp, folder))
    os.makedirs(e.d)
    return (runs.write(os.path.join(tmp, "m.ini"), SMALL),
            os.path.join(tmp, "results"), e)


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


def test_parallel_fleet(tmp):
    matrix, results, sshd = setup(tmp, engines.Sshd, "ssh")
    joblog = os.path.join(tmp, "joblog")
    try:
        sshd.start()
        slf = runs.write(os.path.join(tmp, "sshlogins"),
                         "1/ " + " ".join(sshd.ssh_words()) + "\n")
        r = subprocess.run(["parallel", "--will-cite", "--slf", slf,
                            "--joblog", joblog, runs.FL, "matrix", matrix,
                            "--results", results, "--label", "{}",
                            ":::", "alpha", "beta"],
                           capture_output=True, text=True, timeout=150,
                           stdin=subprocess.DEVNULL)
    finally:
        sshd.stop()
    check(r.returncode == 0, "parallel: %d\n%s" % (r.returncode,
                                                   r.stderr[-1500:]))
    with open(joblog) as f:
        jobs = [line.split("\t") for line in f.read().splitlines()[1:]]
    check(len(jobs) == 2 and all(j[6] == "0" for j in jobs),
          "joblog: %s" % jobs)
    dirs = [os.path.join(results, d) for d in sorted(os.listdir(results))]
    check(len(dirs) == 2, "runs: %s" % dirs)
    out = os.path.join(tmp, "fleet")
    fl("report", *dirs, "--out", out, check_rc=0, timeout=180)
    labels = []
    for d in dirs:
        with open(os.path.join(d, "meta.json")) as f:
            labels.append(json.load(f)["machine"]["label"])
    check(sorted(labels) == ["alpha", "beta"], "labels: %s" % labels)
    check_fleet_report(out, labels)


TESTS = [test_sbatch_script_outside_slurm, test_slurm_array,
         test_parallel_fleet]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "fleet_engines"))
