#!/usr/bin/env python3
"""Run the fuzz targets (`ninja fuzz`, and briefly in `ninja test`).

  tests/fuzz/run.py --builddir build [--seconds N] [--only NAME]

Each target in configure.py's FUZZ_TARGETS (build/fuzz/NAME, libFuzzer
with AddressSanitizer and UBSan) first runs every input under
tests/fuzz/NAME/seeds and tests/fuzz/NAME/regressions once (a crash
found earlier stays fixed), then fuzzes for --seconds from those inputs
and its corpus in build/fuzz/corpus/NAME. The targets run at the same
time, one process each. A crash leaves its input in build/fuzz/artifacts/
(copy it into regressions/ with the fix). Prints per target the
executions, executions per second and coverage libFuzzer reports, and
ends with `fuzz: N passed, N failed` (a target passes when both steps
ran clean).
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# one input may not take longer than this (s), nor use more memory (MB)
INPUT_TIMEOUT = 10
RSS_LIMIT_MB = 2048

DONE_RE = re.compile(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)")
STAT_RE = re.compile(r"stat::(\w+):\s+(\d+)")


def targets():
    sys.path.insert(0, ROOT)
    try:
        import configure
        return list(configure.FUZZ_TARGETS)
    finally:
        sys.path.pop(0)


def inputs_of(name):
    return [d for d in (os.path.join(HERE, name, "seeds"),
                        os.path.join(HERE, name, "regressions"))
            if os.path.isdir(d)]


def common_flags(builddir, name):
    artifacts = os.path.join(builddir, "fuzz", "artifacts")
    os.makedirs(artifacts, exist_ok=True)
    return ["-timeout=%d" % INPUT_TIMEOUT,
            "-rss_limit_mb=%d" % RSS_LIMIT_MB,
            # the parsers print their usage errors: not worth a pipe
            "-close_fd_mask=3",
            "-artifact_prefix=%s/%s-" % (artifacts, name)]


def replay(binary, builddir, name):
    """Every seed and regression once; (ok, output)."""
    r = subprocess.run([binary, "-runs=0"] + common_flags(builddir, name) +
                       inputs_of(name), capture_output=True, text=True,
                       errors="replace", cwd=ROOT)
    return r.returncode == 0, r.stdout + r.stderr


def start_fuzzing(binary, builddir, name, seconds, log):
    corpus = os.path.join(builddir, "fuzz", "corpus", name)
    os.makedirs(corpus, exist_ok=True)
    return subprocess.Popen([binary, "-max_total_time=%d" % seconds,
                             "-print_final_stats=1"] +
                            common_flags(builddir, name) +
                            [corpus] + inputs_of(name),
                            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)


def summary(text):
    """executions, per second, cov, ft, corpus from libFuzzer's output."""
    stats = dict(STAT_RE.findall(text))
    done = DONE_RE.findall(text)
    cov = done[-1] if done else ("?", "?", "?", "?")
    return ("%s executions, %s/s, coverage %s edges, %s features, "
            "corpus %s" % (stats.get("number_of_executed_units", "?"),
                           stats.get("average_exec_per_sec", "?"),
                           cov[1], cov[2], cov[3]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()
    builddir = os.path.abspath(os.path.join(ROOT, args.builddir))
    passed = failed = 0
    running = []
    for name in targets():
        if args.only and name not in args.only:
            continue
        binary = os.path.join(builddir, "fuzz", name)
        if not os.access(binary, os.X_OK):
            print("FAIL %s: %s is not built (ninja fuzz builds it)"
                  % (name, binary))
            failed += 1
            continue
        ok, out = replay(binary, builddir, name)
        if not ok:
            print("FAIL %s: a seed or regression input crashes it:\n%s"
                  % (name, out[-3000:]))
            failed += 1
            continue
        log_path = os.path.join(builddir, "fuzz", name + ".log")
        log = open(log_path, "w")
        running.append((name, start_fuzzing(binary, builddir, name,
                                            args.seconds, log), log,
                        log_path))
    print("fuzz: %d target(s) for %d s each, at once" % (len(running),
                                                         args.seconds))
    sys.stdout.flush()
    for name, proc, log, log_path in running:
        try:
            proc.wait(timeout=args.seconds * 3 + 120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        with open(log_path, errors="replace") as f:
            text = f.read()
        if proc.returncode == 0:
            passed += 1
            print("ok   %s: %s" % (name, summary(text)))
        else:
            failed += 1
            print("FAIL %s: exit status %d; %s; the end of %s:\n%s"
                  % (name, proc.returncode, summary(text), log_path,
                     text[-3000:]))
        sys.stdout.flush()
    print("fuzz: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
