#!/usr/bin/env python3
"""The bare mutex loop against itself: how far apart two runs of the very
same loop land, round by round, at a thread count (the noise floor of
tools/fidelity.py's plain ratio there).

  python3 docs/notebook/fidelity_aa.py [--builddir build] [--threads 1024]
                                       [--rounds 12] [--duration 3]

Each round runs build/tools/fidelity-mutex3 twice with the threads pinned
alternately to CPUs 0 and 1 (as futexlab's compact placement puts them on
a 2-CPU machine) and prints the first run's rate over the second's; at
the end the median ratio and its 95% interval (build/tools/median-ci).
"""
import argparse
import os
import re
import subprocess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--threads", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--duration", default="3")
    args = ap.parse_args()
    cpus = ",".join(str(i % 2) for i in range(args.threads))
    bare = os.path.join(args.builddir, "tools", "fidelity-mutex3")

    def rate():
        out = subprocess.run([bare, cpus, args.duration], check=True,
                             capture_output=True, text=True).stdout
        return float(re.search(r"^acquisitions_per_sec ([\d.]+)", out,
                               re.M).group(1))

    ratios = []
    for r in range(args.rounds):
        a, b = rate(), rate()
        ratios.append(a / b)
        print("round %d: %.3g / %.3g = %.3f" % (r + 1, a, b, a / b),
              flush=True)
    out = subprocess.run([os.path.join(args.builddir, "tools",
                                       "median-ci")],
                         input=" ".join(repr(x) for x in ratios),
                         check=True, capture_output=True, text=True)
    f = out.stdout.split()
    print("median %s, 95%% interval [%s, %s] over %d rounds" %
          (f[0], f[1], f[2], args.rounds))


if __name__ == "__main__":
    main()
