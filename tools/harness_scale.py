#!/usr/bin/env python3
"""The harness's own cost at many threads: memory, the threads' start,
the merge and the run directory, measured rather than guessed.

  tools/harness_scale.py [--builddir build] [--threads 1,1024,4096]
                         [--duration 0.2] [--workload mutex]

For each thread count, one `futexlab run WORKLOAD --backend futex-private
--threads N --duration D --warmup 0 --reps 1 --json`, and from it:
  peak RSS     the cell's process's peak resident set (its threads,
               their histograms and stacks, and what it shares with
               futexlab from the fork), which futexlab reads from wait4
               when the cell ends;
  per thread   (peak RSS - the 1-thread run's) / (N - 1);
  start        creating the threads until the start gate opened, and
  merge        merging their counts and histograms after the join (the
               cell's "harness" in run's JSON: the largest over its
               repetitions, measured by the harness itself);
  run dir      the run directory's bytes (cells.csv, hist/, bins/,
               meta.json);
  wall         the whole command, calibration and probes included.
Printed as a Markdown table, with the load average before and after (the
figures are the machine's at the time; say which machine and its load
beside them). No bound is checked: this describes, it does not judge.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.lstat(os.path.join(root, f)).st_size
    return total


def one(args, threads):
    cmd = [os.path.join(args.builddir, "futexlab"), "run", args.workload,
           "--backend", "futex-private", "--threads", str(threads),
           "--duration", str(args.duration), "--warmup", "0", "--reps", "1",
           "--json", "--results", args.results]
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    wall = time.monotonic() - t0
    if out.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), out.returncode,
                                       out.stderr))
    doc = json.loads(out.stdout)
    cell = doc["cells"][0]
    size = du(doc["run_dir"])
    shutil.rmtree(doc["run_dir"])
    return {"start_s": cell["harness"]["start_ns_max"] / 1e9,
            "merge_s": cell["harness"]["merge_ns_max"] / 1e9,
            "status": cell["status"], "run_dir": size, "wall": wall,
            "maxrss_kb": cell["harness"]["cell_maxrss_kb"]}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--threads", default="1,1024,4096")
    ap.add_argument("--duration", type=float, default=0.2)
    ap.add_argument("--workload", default="mutex")
    args = ap.parse_args()
    args.results = tempfile.mkdtemp(prefix="harness-scale-")
    try:
        counts = [int(t) for t in args.threads.split(",")]
        before = loadavg()
        rows = [(n, one(args, n)) for n in counts]
        after = loadavg()
    finally:
        shutil.rmtree(args.results, ignore_errors=True)
    base = rows[0]
    print("| threads | status | peak RSS (MiB) | bytes per added thread "
          "| start (s) | merge (s) | run dir (bytes) | wall (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for n, r in rows:
        per = ("%.0f" % ((r["maxrss_kb"] - base[1]["maxrss_kb"]) * 1024 /
                         (n - base[0])) if n > base[0] else "")
        print("| %d | %s | %.1f | %s | %.4f | %.4f | %d | %.1f |" % (
            n, r["status"], r["maxrss_kb"] / 1024, per, r["start_s"],
            r["merge_s"], r["run_dir"], r["wall"]))
    print()
    print("- `futexlab run %s --backend futex-private --threads N "
          "--duration %g --warmup 0 --reps 1 --json`"
          % (args.workload, args.duration))
    print("- load average before %s, after %s" % (before, after))


if __name__ == "__main__":
    main()
