#!/usr/bin/env python3
"""Shards, merge and a fleet's report without an engine (docs/fleet.md):

- `matrix --shard K/N`: every cell in exactly one shard for every N, the
  shards' nominal times close, and a bad K/N refused;
- three shards run and merged: one run equal in its cells to the matrix,
  each repetition once, each cell's host recorded, read by plot, report
  and compare;
- merge's bad input: a missing, a repeated shard, a shard of another
  matrix or another futexlab, a link, a path leading out, a run that is
  no shard, a shard named twice by any path, a bins folder linked out
  or a FIFO among its files: one line naming it, exit 2, nothing
  written (every shard read before anything is created);
- `run` under `taskset -c 0` places every thread on CPU 0 and meta.json
  says CPU 0 was the allowed set;
- two labelled runs: one report with both machines side by side.

  tests/fleet/test_merge.py --builddir build [-k NAME] [-v]
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleetcheck import SMALL, check, check_fleet_report, check_merged, \
    check_readers, fl, listed, runs  # noqa: E402


def run_dir(tmp, name):
    with open(os.path.join(tmp, name)) as f:
        return f.read().strip()


def shards(tmp, matrix, n, results, prefix="s"):
    """Run the n shards of matrix; their run directories."""
    dirs = []
    for k in range(n):
        f = os.path.join(tmp, "%s%d.dir" % (prefix, k))
        fl("matrix", matrix, "--shard", "%d/%d" % (k, n), "--results",
           results, "--label", "node%d" % k, "--run-dir-file", f,
           check_rc=0, timeout=120)
        dirs.append(run_dir(tmp, os.path.basename(f)))
    return dirs


def test_shard_split(tmp):
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    everything = listed(matrix)
    for n in range(1, len(everything) + 1):
        owner = {}
        for k in range(n):
            for c, setup in listed(matrix, "--shard", "%d/%d" %
                                   (k, n)).items():
                check(c not in owner, "cell %d in shards %d and %d of %d"
                      % (c, owner.get(c, -1), k, n))
                check(setup == everything[c], "cell %d differs" % c)
                owner[c] = k
        check(sorted(owner) == sorted(everything),
              "%d shards miss cells: %s" % (n, sorted(owner)))
        sizes = [list(owner.values()).count(k) for k in range(n)]
        # the cells cost alike here: balanced means one apart at most
        check(max(sizes) - min(sizes) <= 1, "unbalanced: %s" % sizes)


def test_bad_shard_flags(tmp):
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    res = os.path.join(tmp, "results")
    for bad, what in (("3/2", "'3/2'"), ("0/0", "'0/0'"), ("x", "'x'"),
                      ("1/", "'1/'"), ("-1/2", "'-1/2'"),
                      ("1/2/3", "'1/2/3'"), ("7/7", "'7/7'"),
                      ("0/7", "fewer than 7 shards"),
                      ("0/9999999", "'0/9999999'")):
        r = fl("matrix", matrix, "--shard", bad, "--results", res,
               check_rc=2)
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and what in lines[0],
              "--shard %s: %r" % (bad, r.stderr))
        check(not os.path.exists(res), "--shard %s wrote %s" % (bad, res))
    for bad in ("", "a b", "../x", "x" * 64):
        r = fl("matrix", matrix, "--label", bad, "--results", res,
               check_rc=2)
        check(len(r.stderr.strip().splitlines()) == 1 and
              "--label" in r.stderr, "--label %r: %r" % (bad, r.stderr))
    r = fl("matrix", matrix, "--shard-commands", "3", check_rc=0)
    lines = r.stdout.splitlines()
    check(len(lines) == 3 and all(("--shard %d/3" % k) in lines[k]
                                  for k in range(3)),
          "--shard-commands 3: %r" % r.stdout)


def test_merge(tmp):
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    res = os.path.join(tmp, "results")
    dirs = shards(tmp, matrix, 3, res)
    for k, d in enumerate(dirs):
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        check(meta["shard"]["k"] == k and meta["shard"]["n"] == 3,
              "shard %d's meta.json: %s" % (k, meta.get("shard")))
        check(meta["machine"]["label"] == "node%d" % k, "no label")
    out = os.path.join(tmp, "merged")
    r = fl("merge", *reversed(dirs), "--results", out, check_rc=0)
    merged = r.stdout.strip().splitlines()[-1]
    meta = check_merged(merged, matrix)
    check({e["host"] for e in meta["cells_reps"]} ==
          {"node0", "node1", "node2"}, "hosts: %s" % meta["cells_reps"])
    check([s["k"] for s in meta["merged"]["runs"]] == [0, 1, 2],
          "merged.runs: %s" % meta["merged"])
    check_readers(merged, tmp)
    r = fl("compare", merged, dirs[0], "--out", os.path.join(tmp, "c2"),
           check_rc=0, timeout=180)
    check("different hosts (node0, node1, node2)" in r.stderr,
          "compare does not warn of a merged run's hosts: %s" % r.stderr)


def bad_merge(tmp, args, what):
    out = os.path.join(tmp, "never")
    r = fl("merge", *args, "--results", out, check_rc=2)
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and what in lines[0],
          "merge %s: expected one line with %r, got %r" % (args, what,
                                                          r.stderr))
    check(not os.path.exists(out), "merge %s wrote %s" % (args, out))


def test_merge_bad_input(tmp):
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    res = os.path.join(tmp, "results")
    a, b, c = shards(tmp, matrix, 3, res)
    bad_merge(tmp, [a, c], "shard 1/3 is missing")
    twin = os.path.join(tmp, "twin")
    shutil.copytree(b, twin)
    bad_merge(tmp, [a, b, twin, c], "shard 1/3 given twice")
    bad_merge(tmp, [a, b, b, c], "the same run directory as")
    # another matrix: one more experiment, its shard 1 of 3
    other = runs.write(os.path.join(tmp, "o.ini"), SMALL.replace(
        "threads = 1,2", "threads = 1,2,3"))
    o = shards(tmp, other, 3, os.path.join(tmp, "other"), "o")[1]
    bad_merge(tmp, [a, o, c], "another matrix (its hash)")
    # another futexlab: a copy whose meta.json says so
    v = os.path.join(tmp, "results", "v")
    shutil.copytree(b, v)
    with open(os.path.join(v, "meta.json")) as f:
        meta = json.load(f)
    meta["futexlab_version"] = "0.0.9"
    runs.write(os.path.join(v, "meta.json"), json.dumps(meta))
    bad_merge(tmp, [a, v, c], "another futexlab version")
    link = os.path.join(tmp, "link")
    os.symlink(b, link)
    bad_merge(tmp, [a, link, c], "is a symbolic link")
    bad_merge(tmp, [a, link + "/", c], "is a symbolic link")
    up = os.path.join(res, "..", "results", os.path.basename(b))
    bad_merge(tmp, [a, up, c], "lies outside the paths given")
    # a whole run is no shard
    whole = os.path.join(tmp, "whole.dir")
    fl("matrix", matrix, "--results", os.path.join(tmp, "w"),
       "--run-dir-file", whole, check_rc=0, timeout=120)
    bad_merge(tmp, [a, run_dir(tmp, "whole.dir"), c], "not a shard run")
    # a shard whose cells.csv holds a cell of another shard
    x = os.path.join(tmp, "results", "x")
    shutil.copytree(a, x)
    with open(os.path.join(b, "cells.csv")) as f:
        extra = f.read().splitlines()[1]
    with open(os.path.join(x, "cells.csv"), "a") as f:
        f.write(extra + "\n")
    cell = int(extra.split(",")[0])
    shutil.copy(os.path.join(b, "hist", "cell-%04d.csv" % cell),
                os.path.join(x, "hist"))
    # meta.json counting that row's cell, as the readers hold it to
    with open(os.path.join(x, "meta.json")) as f:
        meta = json.load(f)
    head = open(os.path.join(b, "cells.csv")).readline().strip()
    status = dict(zip(head.split(","), next(csv.reader([extra]))))["status"]
    meta["cells"]["total"] += 1
    meta["cells"][status] += 1
    meta["cells_reps"].append({"cell": cell, "reps": 1,
                               "rep_start": [None]})
    runs.write(os.path.join(x, "meta.json"), json.dumps(meta))
    bad_merge(tmp, [x, b, c], "is not one of shard 0/3's cells")
    bad_merge(tmp, [os.path.join(tmp, "nothing"), b, c], "no such")
    # nothing written anywhere by the refusals above
    check(sorted(os.listdir(res)) == sorted(
        [os.path.basename(p) for p in (a, b, c)] + ["v", "x"]),
        "results changed: %s" % os.listdir(res))


def spoiled_copy(tmp, shard, name, how):
    """A copy of shard under TMP/spoiled/NAME, spoiled by how(copy)."""
    d = os.path.join(tmp, "spoiled", name)
    shutil.copytree(shard, d, symlinks=True)
    how(d)
    return d


def bins_link_to_etc(d):
    shutil.rmtree(os.path.join(d, "bins"))
    os.symlink("/etc", os.path.join(d, "bins"))


def fifo_for_first(folder):
    def how(d):
        name = sorted(os.listdir(os.path.join(d, folder)))[0]
        os.remove(os.path.join(d, folder, name))
        os.mkfifo(os.path.join(d, folder, name))
    return how


def test_merge_reads_all_first(tmp):
    """A shard's bins a link to /etc, a bins or histogram file a FIFO: one
    line naming it, exit 2, and nothing created under --results (every
    file is read before anything is written)."""
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    a, b = shards(tmp, matrix, 2, os.path.join(tmp, "results"))
    for name, how, what in (
            ("bins-etc", bins_link_to_etc, "/bins/"),
            ("bins-fifo", fifo_for_first("bins"), "/bins/cell-"),
            ("hist-fifo", fifo_for_first("hist"), "/hist/cell-")):
        d = spoiled_copy(tmp, b, name, how)
        bad_merge(tmp, [a, d], d + what)


def test_merge_same_run_twice(tmp):
    """One shard named twice by any path (A, A/, ./A, through a link to
    its folder) is refused naming it: the same directory by device and
    inode, however it was reached."""
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    res = os.path.join(tmp, "results")
    a, b = shards(tmp, matrix, 2, res)
    os.symlink(res, os.path.join(tmp, "lab"))
    via_link = os.path.join(tmp, "lab", os.path.basename(a))
    for twice in ([a, a + "/", b], [a, b, via_link],
                  [a, os.path.join(res, ".", os.path.basename(a)), b]):
        bad_merge(tmp, twice, "the same run directory as")
    out = os.path.join(tmp, "never")
    r = subprocess.run([runs.FL, "merge", os.path.basename(a), "./" +
                        os.path.basename(a), os.path.basename(b),
                        "--results", out], capture_output=True, text=True,
                       cwd=res, timeout=60)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and
          "./%s: the same run directory as %s" %
          (os.path.basename(a), os.path.basename(a)) in lines[0],
          "merge A ./A B: %d %r" % (r.returncode, r.stderr))
    check(not os.path.exists(out), "merge A ./A B wrote %s" % out)


def test_shard_resumed(tmp):
    """A shard killed with SIGKILL and resumed stays its shard."""
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL.replace(
        "duration = 0.02", "duration = 0.3"))
    res = os.path.join(tmp, "results")
    p = subprocess.Popen([runs.FL, "matrix", matrix, "--shard", "1/2",
                          "--label", "one", "--results", res],
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        partial = None
        while time.monotonic() < deadline and p.poll() is None:
            found = [d for d in os.listdir(res) if d.startswith(".partial")] \
                if os.path.isdir(res) else []
            if found:
                partial = os.path.join(res, found[0])
                with open(os.path.join(partial, "cells.csv")) as f:
                    if len(f.read().splitlines()) >= 3:
                        break
            time.sleep(0.05)
        check(p.poll() is None and partial, "the shard ended before the "
              "kill, or wrote no row in 60 s")
        p.kill()
    finally:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=30)
    f = os.path.join(tmp, "resumed.dir")
    fl("matrix", "--resume", partial, "--run-dir-file", f, check_rc=0,
       timeout=120)
    d = run_dir(tmp, "resumed.dir")
    with open(os.path.join(d, "meta.json")) as fh:
        meta = json.load(fh)
    want = sorted(listed(matrix, "--shard", "1/2"))
    check((meta["shard"]["k"], meta["shard"]["n"]) == (1, 2) and
          meta["shard"]["cells"] == want and
          meta["machine"].get("label") == "one",
          "resumed shard: %s, label %s" % (meta["shard"],
                                          meta["machine"].get("label")))
    rows = runs.rows_of(os.path.join(d, "cells.csv"))
    check(sorted({int(r["cell"]) for r in rows}) == want,
          "resumed shard's cells: %s" % sorted({r["cell"] for r in rows}))


def test_taskset_one_cpu(tmp):
    check(shutil.which("taskset") is not None, "no taskset (util-linux)")
    res = os.path.join(tmp, "results")
    r = subprocess.run(["taskset", "-c", "0", runs.FL, "run", "mutex",
                        "--threads", "2", "--duration", "0.05", "--warmup",
                        "0.01", "--reps", "2", "--results", res],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "run under taskset: %s" % r.stderr)
    d = os.path.join(res, os.listdir(res)[0])
    rows = runs.rows_of(os.path.join(d, "cells.csv"))
    check(rows and all(row["cpus"] == "0,0" for row in rows),
          "threads not on CPU 0: %s" % [row["cpus"] for row in rows])
    with open(os.path.join(d, "meta.json")) as fh:
        meta = json.load(fh)
    check(meta["machine"]["topology"].get("cpus_allowed") == "0",
          "meta.json's allowed set: %s" % meta["machine"]["topology"])


def test_fleet_report(tmp):
    matrix = runs.write(os.path.join(tmp, "m.ini"), SMALL)
    dirs = []
    for label in ("alpha", "beta"):
        f = os.path.join(tmp, label + ".dir")
        fl("matrix", matrix, "--label", label, "--results",
           os.path.join(tmp, "results"), "--run-dir-file", f, check_rc=0,
           timeout=120)
        dirs.append(run_dir(tmp, label + ".dir"))
    out = os.path.join(tmp, "fleet")
    fl("report", *dirs, "--out", out, check_rc=0, timeout=180)
    check_fleet_report(out, ["alpha", "beta"])
    r = fl("compare", *dirs, "--out", os.path.join(tmp, "cmp"), check_rc=0,
           timeout=180)
    check("machine label: 'alpha' against 'beta'" in r.stderr,
          "compare does not say the machines differ: %s" % r.stderr)
    r = fl("report", dirs[0], os.path.join(tmp, "nothing"), "--out",
           os.path.join(tmp, "f2"), check_rc=2)
    check(len(r.stderr.strip().splitlines()) == 1, r.stderr)


TESTS = [test_shard_split, test_bad_shard_flags, test_merge,
         test_merge_bad_input, test_merge_reads_all_first,
         test_merge_same_run_twice, test_shard_resumed, test_taskset_one_cpu,
         test_fleet_report]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "fleet_merge"))
