#!/usr/bin/env python3
"""A fleet through GNU parallel over ssh (docs/fleet.md, "Tests"): an
sshd started on a loopback port with a key generated here
(tests/fleet/engines.py), and `parallel --slf` through it running a small
matrix as two machines, alpha and beta (two labels on this host); the
fleet's report sets them side by side, a line per machine in each plot.
The fleet test fails, naming what is missing, where openssh or parallel
is not installed (`configure.py --install-deps` installs them); the
shard command lines parallel would run are checked either way. sshd is
stopped by its pid in a finally; every wait has a deadline.

  tests/fleet/test_parallel.py --builddir build [-k NAME] [-v]
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
from fleetcheck import check, check_fleet_report, fl, listed, runs, \
    setup, SMALL  # noqa: E402


def test_shard_command_lines(tmp):
    """--shard-commands' lines, read by a shell, are the shards: each
    with --list prints its shard's cells."""
    matrix = runs.write(os.path.join(tmp, "m q'x.ini"), SMALL)
    r = fl("matrix", matrix, "--shard-commands", "2", "--results",
           os.path.join(tmp, "a b"), check_rc=0)
    lines = r.stdout.splitlines()
    check(len(lines) == 2, "lines: %r" % r.stdout)
    for k, line in enumerate(lines):
        p = subprocess.run(["sh", "-c", line + " --list"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "%s --list: %s" % (line, p.stderr))
        got = {int(x.split(" ")[0]) for x in p.stdout.splitlines()
               if not x.startswith("#")}
        check(got == set(listed(matrix, "--shard", "%d/2" % k)),
              "line %d runs other cells: %s" % (k, got))


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


TESTS = [test_shard_command_lines, test_parallel_fleet]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "fleet_parallel"))
