#!/usr/bin/env python3
"""The cost of a failing wait, module against stock, counted in instructions.

  docs/notebook/failwait_icount.py [--base REV] [--rounds 3] [--passes 3]
                                   [--ops 20000] [--hash] [--trace]
                                   [--append ARGS] [--builddir build]
                                   [--timeout 1200]
  docs/notebook/failwait_icount.py table FILE

Boots one QEMU guest with -icount shift=0,sleep=off (vm/run --icount),
where guest time follows the instructions executed, one a nanosecond, and
runs docs/notebook/failwait_cost.c in it (built here, static, into
BUILDDIR/tools/failwait-cost) through docs/notebook/failwait_guest.sh:
rounds of passes of N calls per case, the cases in an order rotated every pass (see
failwait_cost.c for the cases), with an idle second thread alive (as in
futexlab's cell processes) and single-threaded.

--base REV also builds kmod/ as it was at git revision REV (against the
same kernel headers) and loads the two modules in turn, alternating their
order every round, so that "base" and "new" (the working tree's kmod/)
are compared within one boot.

Prints, per module and case, the median over all passes of the
instructions per call and the median over passes of its ratio to the
stock futex-private wait of the same pass; "own work" subtracts the cost
of entering the code at all (futex-enosys for the stock futex,
ioctl-enotty for the module). With --hash the first round also runs
`futexlab run hash --threads 1 --duration 1 --reps 3` on futex-private
and the three designs under each module (ninja must have built
BUILDDIR/futexlab). With --trace the boot ends with two calls of every
case under ftrace's function_graph, with the working tree's module.
--append adds to the guest kernel's command line (e.g. an lsm= list, to
see what the LSM hooks cost the ioctl entry).

The guest's output is kept in BUILDDIR/vm/failwait/run-<time>.txt (the
trace beside it); `table FILE` prints the tables again from such a file.
docs/kmod.md says what the figures mean and what icount does not model
(cache misses, lock contention, the host's load: an instruction is one
nanosecond whatever it does).
"""

import argparse
import glob
import io
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

# docs/notebook/ is two levels below the repository's top
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror",
          "-pthread", "-static"]
LINE_RE = re.compile(r"^\[(base|new)\] (.*)$")
PASS_RE = re.compile(r"^pass (\d+) (\S+) ([0-9.]+)$")
STOCK, STOCK_ENTRY, KMOD_ENTRY = "futex-private", "futex-enosys", "ioctl-enotty"


def build_tool(builddir):
    out = os.path.join(builddir, "tools", "failwait-cost")
    src = os.path.join(HERE, "failwait_cost.c")
    hdr = os.path.join(ROOT, "kmod", "uapi", "futexlab.h")
    if (os.path.exists(out) and os.path.getmtime(out) >=
            max(os.path.getmtime(src), os.path.getmtime(hdr))):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc] + CFLAGS + ["-I", ROOT, "-o", out, src], check=True)
    return out


def guest_kdir(builddir):
    """The headers vm/run builds the module against (it resolves them)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "vm", "run"),
                        "--builddir", builddir, "--fetch-only"],
                       capture_output=True, text=True)
    m = re.search(r"vm: kernel (\S+), module", r.stderr)
    if r.returncode or not m:
        sys.stderr.write(r.stderr)
        sys.exit("failwait: vm/run --fetch-only failed")
    return "/usr/src/linux-headers-" + m.group(1).rstrip(",")


def build_base(builddir, rev):
    """kmod/ at git revision REV, built against the guest's headers."""
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev],
                         check=True, capture_output=True,
                         text=True).stdout.strip()
    bdir = os.path.join(builddir, "vm", "failwait", "base-" + sha)
    ko = os.path.join(bdir, "futexlab.base.ko")
    if os.path.exists(ko):
        return ko, sha
    if os.path.isdir(bdir):
        shutil.rmtree(bdir)
    os.makedirs(bdir)
    tar = subprocess.run(["git", "-C", ROOT, "archive", sha, "kmod"],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(bdir)
    src = os.path.join(bdir, "kmod")
    subprocess.run(["make", "-s", "-C", guest_kdir(builddir), "M=" + src,
                    "modules"], check=True)
    subprocess.run(["strip", "--strip-debug", "-o", ko,
                    os.path.join(src, "futexlab.ko")], check=True)
    return ko, sha


def parse(text):
    """{(module, section): {pass: {case: ns per call}}}; pass numbers are
    made unique across rounds."""
    out, seen = {}, {}
    cur = None
    for line in text.splitlines():
        m = LINE_RE.match(line.strip())
        if not m:
            continue
        label, rest = m.group(1), m.group(2).strip()
        if rest.startswith("failwait-cost:") and "passes" in rest:
            sect = "single" if "single thread" in rest else "threaded"
            cur = (label, sect)
            seen[cur] = seen.get(cur, 0) + 1
            continue
        pm = PASS_RE.match(rest)
        if pm and cur and cur[0] == label:
            key = (seen[cur], int(pm.group(1)))
            out.setdefault(cur, {}).setdefault(key, {})[pm.group(2)] = \
                float(pm.group(3))
    return out


def table(passes):
    """Markdown rows: case, median insns/call, ratio to stock, own work."""
    cases = []
    for per in passes.values():
        for c in per:
            if c not in cases:
                cases.append(c)
    full = [p for p in passes.values() if STOCK in p]
    rows = ["| case | instructions per call | / futex-private | "
            "own work | own / stock's own |",
            "|---|---|---|---|---|"]
    for c in cases:
        vals = [p[c] for p in full if c in p]
        if not vals:
            continue
        ratio = statistics.median(p[c] / p[STOCK] for p in full if c in p)
        entry = (STOCK_ENTRY if c == STOCK else
                 KMOD_ENTRY if c.startswith("kmod") else None)
        own = own_ratio = ""
        if entry and all(entry in p for p in full):
            own = "%.0f" % statistics.median(p[c] - p[entry] for p in full)
            if c != STOCK and all(STOCK_ENTRY in p for p in full):
                own_ratio = "%.2f" % statistics.median(
                    (p[c] - p[entry]) / (p[STOCK] - p[STOCK_ENTRY])
                    for p in full)
        rows.append("| %s | %.0f | %.3f | %s | %s |"
                    % (c, statistics.median(vals), ratio, own, own_ratio))
    return "\n".join(rows)


def print_tables(text, out=sys.stdout):
    data = parse(text)
    if not data:
        print("failwait: no pass lines in the guest's output", file=out)
        return 1
    for label in ("base", "new"):
        for sect in ("threaded", "single"):
            passes = data.get((label, sect))
            if not passes:
                continue
            print("\nmodule %s, %s, %d passes (medians over passes):\n"
                  % (label, "an idle second thread alive"
                     if sect == "threaded" else "single-threaded",
                     len(passes)), file=out)
            print(table(passes), file=out)
    other = [l for l in text.splitlines()
             if re.search(r"\] (hash |.*waits/s|failwait-cost: .* returned)",
                          l)]
    if other:
        print("\nother lines:\n", file=out)
        for l in other:
            print("    " + l, file=out)
    return 1 if any("returned" in l for l in other) else 0


def cmd_run(args):
    builddir = os.path.abspath(args.builddir)
    tool = build_tool(builddir)
    outdir = os.path.join(builddir, "vm", "failwait")
    os.makedirs(outdir, exist_ok=True)
    includes = [tool, os.path.join(HERE, "failwait_guest.sh")]
    base_ko = "-"
    if args.base:
        ko, sha = build_base(builddir, args.base)
        includes.append(ko)
        base_ko = os.path.relpath(ko, ROOT)
        print("failwait: base module: kmod/ at %s" % sha, file=sys.stderr)
    futexlab = "-"
    if args.hash:
        path = os.path.join(builddir, "futexlab")
        if not os.path.exists(path):
            print("failwait: %s missing: run ninja first" % path,
                  file=sys.stderr)
            return 2
        includes.append(path)
        futexlab = os.path.relpath(path, ROOT)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    cmd = [sys.executable, os.path.join(ROOT, "vm", "run"), "--icount",
           "--builddir", builddir, "--timeout", str(args.timeout),
           "--results-out", os.path.join(outdir, "results-" + stamp)]
    if args.append:
        cmd += ["--append", args.append]
    for inc in includes:
        cmd += ["--include", os.path.relpath(inc, ROOT)]
    cmd += ["--", "sh", os.path.relpath(os.path.join(HERE,
                                                     "failwait_guest.sh"),
                                        ROOT),
            os.path.relpath(tool, ROOT), str(args.rounds), str(args.passes),
            str(args.ops), futexlab, base_ko, "1" if args.trace else "0"]
    print("failwait: " + shlex.join(cmd), file=sys.stderr, flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    log = os.path.join(outdir, "run-%s.txt" % stamp)
    with open(log, "w") as f:
        f.write(r.stdout)
    print("failwait: guest output in %s" % os.path.relpath(log),
          file=sys.stderr)
    for t in glob.glob(os.path.join(outdir, "results-" + stamp, "*",
                                    "trace.txt")):
        print("failwait: trace in %s" % os.path.relpath(t), file=sys.stderr)
    rc = print_tables(r.stdout)
    return r.returncode or rc


def cmd_table(args):
    with open(args.file) as f:
        return print_tables(f.read())


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "table":
        ap = argparse.ArgumentParser(prog="failwait_icount.py table")
        ap.add_argument("file")
        return cmd_table(ap.parse_args(sys.argv[2:]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", metavar="REV",
                    help="also the module of git revision REV, alternated")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--passes", type=int, default=3,
                    help="passes per round and module")
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--hash", action="store_true",
                    help="also futexlab run hash in the first round")
    ap.add_argument("--trace", action="store_true",
                    help="also a function_graph trace of two calls a case")
    ap.add_argument("--append", default="",
                    help="extra guest kernel command line (vm/run --append),"
                    " e.g. an lsm= list")
    ap.add_argument("--builddir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--timeout", type=int, default=1200)
    args = ap.parse_args()
    if args.passes < 1 or args.ops < 1 or args.rounds < 1:
        ap.error("--rounds, --passes and --ops must be positive")
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
