#!/usr/bin/env python3
"""The interposer's own cost (docs/interpose.md): acquisitions per second
of a pthread mutex with glibc's functions and through the interposer with
each stock-backend algorithm, beside the bare loop (tools/fidelity-mutex3:
mutex 3 inline), on one CPU (uncontended lock and unlock) and on two
(contended, with handoffs). Runs alternate in a shuffled order; each
figure is a median with its 95% interval (tools/median-ci) and the
nanoseconds per acquisition it means.

  tools/interpose_cost.py --builddir build [--reps 7] [--seconds 0.5]
"""

import argparse
import os
import random
import subprocess

VARIANTS = ["bare", "glibc", "mutex3", "spin-then-wait", "pi"]
CPUS = {"1 thread": "0", "2 threads": "0,1"}


def once(b, variant, cpus, seconds):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if variant == "bare":
        cmd = [os.path.join(b, "tools", "fidelity-mutex3"), cpus, seconds]
    else:
        cmd = [os.path.join(b, "tools", "interpose-cost"), cpus, seconds]
        if variant != "glibc":
            env.update(LD_PRELOAD=os.path.join(
                b, "libfutexlab-interpose.so"), FUTEXLAB_ALGO=variant,
                FUTEXLAB_BACKEND="futex-private")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return float(out.split("acquisitions_per_sec ")[1].split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--seconds", default="0.5")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    runs = [(v, c) for v in VARIANTS for c in CPUS] * a.reps
    random.Random(a.seed).shuffle(runs)
    got = {}
    for v, c in runs:
        got.setdefault((v, c), []).append(once(a.builddir, v, CPUS[c],
                                               a.seconds))
    median_ci = os.path.join(a.builddir, "tools", "median-ci")
    print("| lock | threads | acquisitions/s, median [95% interval] "
          "| ns per acquisition |")
    print("|---|---|---|---|")
    for v in VARIANTS:
        for c in CPUS:
            m, lo, hi = subprocess.run(
                [median_ci], input=" ".join(map(str, got[(v, c)])),
                capture_output=True, text=True, check=True).stdout.split()[:3]
            print("| %s | %s | %.3g M [%s, %s] | %.1f |" % (
                v, c, float(m) / 1e6, "%.3g" % (float(lo) / 1e6)
                if lo != "n/a" else lo, "%.3g" % (float(hi) / 1e6)
                if hi != "n/a" else hi, 1e9 / float(m)))
    print("load average: %s" % open("/proc/loadavg").read().split()[0:3])


if __name__ == "__main__":
    main()
