#!/usr/bin/env python3
"""Run directories, matrix files and pipes as an adversary makes them.

  tests/cli/test_untrusted.py --builddir build [--update]

One tiny real run is made, then each case copies it into a fresh
temporary tree, spoils it (a backquoted command in meta.json or in the
directory's name, a workload named ../../X, a symbolic link under a
plot's name, a FIFO under a file's name, NaN or wrapped numbers in any
column, a torn last line, bad bins files, two cells of one setup, a
closed pipe, SIGHUP, a full file system: a 64 KiB tmpfs, when it can be
mounted) and runs one command under a 10 s timeout. Each must end
with the status and the first stderr line in tests/cli/untrusted.golden
(`NAME: STATUS: LINE`, the tree's path written @TMP@), run no command (no
CANARY file appears anywhere in the tree), and create nothing outside
RUN/plots/. A tiny matrix run is turned back into a partial directory
(partials.py) and each RESUME_CASES case spoils a copy and resumes it:
nothing outside the directory may change, nothing but it be renamed, to
its own name, and a resume that succeeds must leave a whole run
(@PARTIAL@ in the golden line). A matrix killed while a visit runs is
resumed at once (orphan-resume). --update rewrites the golden file from
what the binary does now (review the diff). Ends with `untrusted: N
passed, N failed`.

The cases are tables in untrusted_cases.py (the ways to spoil a run in
spoil_run.py); the live ones (pipes, SIGHUP, a full disk, the orphan)
are untrusted_live.py; here they are run and held to the golden file.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # partials.py leaves no __pycache__
import partials as pt  # noqa: E402
import untrusted_live as live  # noqa: E402
from untrusted_cases import CANARY, CASES, RESUME_CASES  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "untrusted.golden")
TIMEOUT = 10

passed = failed = 0


def check(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print("FAIL %s" % name)
        for p in problems:
            print("     %s" % p)
    else:
        passed += 1
        print("ok   %s" % name)
    sys.stdout.flush()


def tree(top):
    """Every path under top, plots/ folders aside."""
    out = set()
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x != "plots"]
        for f in files + dirs:
            out.add(os.path.relpath(os.path.join(d, f), top))
    return out


def snapshot(top, skip):
    """Every path under top but skip's subtree: its kind and content."""
    out = {}
    for d, dirs, files in os.walk(top):
        if os.path.abspath(d).startswith(skip):
            dirs[:] = []
            continue
        for n in dirs + files:
            path = os.path.join(d, n)
            if os.path.abspath(path) == skip:
                continue
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[path] = ("file", f.read())
            else:
                out[path] = ("other", None)
    return out


def resume_case(futexlab, template, name, spoil):
    tmp = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        results = os.path.join(tmp, "lab", "results")
        os.makedirs(results)
        partial = os.path.join(results, os.path.basename(template[0]))
        shutil.copytree(template[0], partial, symlinks=True)
        if spoil:
            spoil(partial, tmp)
        outside = snapshot(tmp, results)
        partial_before = snapshot(partial, "-")
        try:
            r = subprocess.run([futexlab, "matrix", "--resume", partial],
                               capture_output=True, text=True,
                               timeout=TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, ["hangs: no end within %d s" % TIMEOUT]
        problems = []
        now = snapshot(tmp, results)
        changed = sorted(k for k in set(now) | set(outside)
                         if now.get(k) != outside.get(k))
        if changed:
            problems.append("changed outside the partial directory: %s"
                            % [os.path.relpath(k, tmp) for k in changed])
        final = os.path.join(results, template[1])
        left = sorted(os.listdir(results))
        if not set(left) <= {os.path.basename(partial), template[1]}:
            problems.append("results/ holds %s" % left)
        if r.returncode == 0:
            problems += pt.complete_problems(final)
        if r.returncode == 0 and not problems:
            rr = subprocess.run([futexlab, "report", final],
                                capture_output=True, text=True,
                                timeout=TIMEOUT, cwd=tmp)
            if rr.returncode:
                problems.append("report refuses the finished run: %s"
                                % rr.stderr.strip())
        elif r.returncode == 2 and os.path.isdir(partial) and \
                snapshot(partial, "-") != partial_before:
            problems.append("a refused resume changed the directory")
        first = (r.stderr.splitlines() or [""])[0]
        first = first.replace(partial, "@PARTIAL@").replace(tmp, "@TMP@")
        first = re.sub(r"(cells\.csv:\d+):\d+:", r"\1:COL:", first)
        return "%s: %d: %s" % (name, r.returncode, first), problems
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def column_problems(message, run):
    """FILE:LINE:COLUMN must point at the value the message quotes."""
    m = re.search(r"cells\.csv:(\d+):(\d+): \w+ '([^']*)'", message)
    if not m:
        return []
    with open(os.path.join(run, "cells.csv")) as f:
        lines = f.read().split("\n")
    line, col, value = int(m.group(1)), int(m.group(2)), m.group(3)
    if line > len(lines) or not lines[line - 1][col - 1:].startswith(value):
        return ["%s:%d:%d does not point at %r" % ("cells.csv", line, col,
                                                  value)]
    return []


def run_case(futexlab, base, name, spoil, args, after=None):
    tmp = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        run = os.path.join(tmp, "run")
        shutil.copytree(base, run)
        if "run" + CANARY in " ".join(args):
            os.rename(run, run + CANARY)
            run = run + CANARY
        if spoil:
            spoil(run, tmp)
        before = tree(tmp)
        argv = [futexlab] + [a.replace("RUN", run).replace("TMP", tmp)
                             for a in args]
        try:
            r = subprocess.run(argv, capture_output=True, text=True,
                               timeout=TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, ["hangs: no end within %d s" % TIMEOUT]
        problems = []
        canaries = glob.glob(os.path.join(tmp, "**", "CANARY"),
                             recursive=True)
        if canaries:
            problems.append("a command ran: %s" % canaries)
        new = tree(tmp) - before
        new = {p for p in new if not p.startswith("results")}
        if new:
            problems.append("created outside RUN/plots: %s" % sorted(new))
        if after:
            problems += after(run, tmp)
        if r.returncode == 0:   # gnuplot's warnings vary: status only
            return "%s: 0" % name, problems
        first = (r.stderr.splitlines() or [""])[0]
        problems += column_problems(first, run)
        first = first.replace(tmp, "@TMP@")
        # the column depends on the digits of this run's timings: it is
        # checked against the file above, and the golden line says COL
        first = re.sub(r"(cells\.csv:\d+):\d+:", r"\1:COL:", first)
        # and a repetition's operation count is this run's
        first = re.sub(r"add up to \d+ operations, (.*) did \d+",
                       r"add up to N operations, \1 did M", first)
        return "%s: %d: %s" % (name, r.returncode, first), problems
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

def make_base(futexlab, top):
    r = subprocess.run([futexlab, "run", "mutex", "--backend",
                        "futex-private", "--threads", "1", "--duration",
                        "0.05", "--reps", "2", "--warmup", "0", "--results",
                        top], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    top = tempfile.mkdtemp(prefix="fl-untrusted-base-")
    got = []
    try:
        base = make_base(futexlab, top)
        if not base:
            check("a tiny run to spoil", ["futexlab run failed"])
            print("untrusted: %d passed, %d failed" % (passed, failed))
            return 1
        results = []
        for case in CASES:
            results.append((case[0], run_case(futexlab, base, *case)))
        template = pt.template(futexlab, top, ROOT)
        if not template:
            results.append(("a partial matrix run to spoil", (None, [
                "futexlab matrix failed on partials.TINY"])))
        for name, spoil in RESUME_CASES if template else []:
            results.append((name, resume_case(futexlab, template, name,
                                              spoil)))
        results.append(("run-head", live.run_head_case(futexlab)))
        results.append(("matrix-head", live.pipe_case(
            futexlab, "matrix-head", ["matrix", "matrix/vm.ini"], 1)))
        results.append(("sighup-run", live.sighup_case(futexlab)))
        results.append(("orphan-resume", live.orphan_case(futexlab)))
        results.append(("disk-full-run", live.disk_full_case(futexlab)))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    golden = {}
    if os.path.exists(GOLDEN) and not args.update:
        with open(GOLDEN) as f:
            for line in f:
                golden[line.split(":", 1)[0]] = line.rstrip("\n")
    for name, (line, problems) in results:
        if line is not None:
            got.append(line)
            if not args.update and golden.get(name) != line:
                problems.append("got    %r" % line)
                problems.append("golden %r" % golden.get(name))
        check(name, problems)
    if args.update:
        with open(GOLDEN, "w") as f:
            f.write("\n".join(got) + "\n")
    print("untrusted: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
