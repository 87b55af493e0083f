#!/usr/bin/env python3
"""`perf bench futex` through libfutexlab-shim.so in the QEMU guest.

  tools/vm_perf_shim.py run [--rounds 3] [--builddir build] [--timeout S]
  tools/vm_perf_shim.py stage-perf OUT
  tools/vm_perf_shim.py table DIR

run (`ninja vm-perf-shim`): boots one guest (vm/run) in which
tools/perf_shim_guest.sh runs the five `perf bench futex` benchmarks
(hash, wake, wake-parallel, requeue, lock-pi), unmodified, on the stock
futex and through the shim on each module design (global, private, numa),
alternated: every round runs each benchmark on the four in an order that
rotates from round to round. perf's own outputs come back to the host in
build/vm/perf-shim/<run>/ and the table below is printed and written there
as table.md: the median of the rounds per benchmark and implementation,
and each design's cost relative to stock (time per operation: stock's
ops/s over the design's, or the design's ms over stock's), so > 1 means
slower than stock. Guest figures are functional (TCG): compare them only
as ratios within one boot.

stage-perf OUT: copies the perf binary the guest runs to OUT. Debian 12's
linux-perf ships the real ELF as /usr/bin/perf; older Debian releases
shipped a shell wrapper there that executes perf_<kernel version> for the
running kernel, which a guest with another kernel would not find, so the
newest /usr/bin/perf_* ELF is taken when /usr/bin/perf is not one.
vm/run adds the shared libraries ldd lists for it.

table DIR: the table again from a results directory brought back before.
"""

import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "vm"))
from perf_bench_compare import COMPARISONS, spread  # noqa: E402
from initramfs import is_elf  # noqa: E402  (vm/initramfs.py)

BENCHMARKS = ["hash", "wake", "wake-parallel", "requeue", "lock-pi"]
IMPLEMENTATIONS = ["stock", "global", "private", "numa"]
FILE_RE = re.compile(r"^r(\d+)-([a-z-]+)-(stock|global|private|numa)\.txt$")


def perf_figures():
    """benchmark -> (regex of perf's summary line, "ops" or "ms"), the
    ones tools/perf_bench_compare.py reads."""
    figures = {}
    for _, _, perf_cmd, regex, kind in COMPARISONS:
        bench = perf_cmd[perf_cmd.index("futex") + 1]
        figures.setdefault(bench, (regex, kind))
    return figures


def cmd_stage_perf(args):
    perf = shutil.which("perf") or "/usr/bin/perf"
    if not is_elf(perf):
        versioned = sorted((p for p in glob.glob("/usr/bin/perf_*")
                            if is_elf(p)),
                           key=lambda p: [int(x) for x in
                                          re.findall(r"\d+", p)])
        if not versioned:
            print("stage-perf: %s is not an ELF binary and no "
                  "/usr/bin/perf_* is: install linux-perf" % perf,
                  file=sys.stderr)
            return 1
        perf = versioned[-1]
    tmp = args.out + ".tmp"
    shutil.copyfile(perf, tmp)
    os.chmod(tmp, 0o755)
    os.replace(tmp, args.out)
    return 0


def read_runs(directory):
    """{(benchmark, implementation): [figure per round]}, and problems."""
    figures = perf_figures()
    runs, problems = {}, []
    for name in sorted(os.listdir(directory)):
        m = FILE_RE.match(name)
        if not m:
            continue
        bench, impl = m.group(2), m.group(3)
        with open(os.path.join(directory, name), errors="replace") as f:
            text = f.read()
        found = re.search(figures[bench][0], text)
        if not found:
            problems.append("%s: no figure in perf's output" % name)
            continue
        runs.setdefault((bench, impl), []).append(float(found.group(1)))
    return runs, problems


def table(runs, rounds_cmd):
    figures = perf_figures()
    lines = ["| benchmark | figure | " + " | ".join(IMPLEMENTATIONS)
             + " | global/stock | private/stock | numa/stock | spread |",
             "|---|---|" + "---|" * (len(IMPLEMENTATIONS) + 4)]
    for bench in BENCHMARKS:
        kind = figures[bench][1]
        med = {i: statistics.median(runs[(bench, i)])
               for i in IMPLEMENTATIONS if runs.get((bench, i))}
        cells = [("%.0f" if kind == "ops" else "%.3f") % med[i]
                 if i in med else "-" for i in IMPLEMENTATIONS]
        ratios = []
        for i in IMPLEMENTATIONS[1:]:
            if i in med and med.get("stock"):
                cost = (med["stock"] / med[i] if kind == "ops"
                        else med[i] / med["stock"])
                ratios.append("%.2f" % cost)
            else:
                ratios.append("-")
        noise = max((spread(v) for (b, _), v in runs.items()
                     if b == bench and len(v) > 1), default=0.0)
        lines.append("| %s | %s | %s | %s | %.0f%% |" % (
            bench, "ops/s" if kind == "ops" else "ms",
            " | ".join(cells), " | ".join(ratios), noise))
    lines.append("")
    lines.append("Medians of %s; the ratios are each design's time per "
                 "operation over stock's (> 1: slower); spread is the "
                 "largest (max - min) / median of one cell's rounds." %
                 rounds_cmd)
    return "\n".join(lines) + "\n"


def cmd_table(args):
    runs, problems = read_runs(args.dir)
    for p in problems:
        print("vm-perf-shim: " + p, file=sys.stderr)
    rounds = max((len(v) for v in runs.values()), default=0)
    text = table(runs, "%d rounds" % rounds)
    sys.stdout.write(text)
    return 1 if problems or not runs else 0


def cmd_run(args):
    builddir = os.path.relpath(os.path.abspath(args.builddir), ROOT)
    stage = os.path.join(builddir, "tests", "shim")
    for need in ("libfutexlab-shim.so", "perf"):
        if not os.path.exists(os.path.join(ROOT, stage, need)):
            print("vm-perf-shim: %s/%s is not built (ninja vm-perf-shim)"
                  % (stage, need), file=sys.stderr)
            return 1
    name = "perf-shim-" + time.strftime("%Y%m%dT%H%M%S")
    out = os.path.join(ROOT, builddir, "vm", "perf-shim")
    cmd = [sys.executable, os.path.join(ROOT, "vm", "run"),
           "--builddir", builddir, "--timeout", str(args.timeout),
           "--results-out", out, "--include", stage,
           "--include", "tools/perf_shim_guest.sh", "--",
           "sh", "tools/perf_shim_guest.sh", stage, str(args.rounds),
           "results/" + name]
    print("vm-perf-shim: " + " ".join(cmd[1:]), flush=True)
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    brought = sorted(glob.glob(os.path.join(out, name + "*")))
    if not brought:
        print("vm-perf-shim: the guest brought no results back (vm/run "
              "exit %d)" % rc, file=sys.stderr)
        return rc or 1
    runs, problems = read_runs(brought[-1])
    text = table(runs, "%d alternated rounds in one guest boot "
                 "(`ninja vm-perf-shim`, tools/perf_shim_guest.sh)"
                 % args.rounds)
    with open(os.path.join(brought[-1], "table.md"), "w") as f:
        f.write(text)
    sys.stdout.write("\n" + text)
    print("vm-perf-shim: perf's outputs and table.md in %s"
          % os.path.relpath(brought[-1], os.getcwd()))
    for p in problems:
        print("vm-perf-shim: " + p, file=sys.stderr)
    return rc or (1 if problems else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--builddir", default="build")
    r.add_argument("--timeout", type=int, default=1500)
    s = sub.add_parser("stage-perf")
    s.add_argument("out")
    t = sub.add_parser("table")
    t.add_argument("dir")
    args = ap.parse_args()
    return {"run": cmd_run, "stage-perf": cmd_stage_perf,
            "table": cmd_table}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
