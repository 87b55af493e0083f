#!/usr/bin/env python3
"""Run every futexlab test suite and add up the results (`ninja test`).

  tests/run.py --builddir build [--guest-cmd "COMMAND"] [--only PATTERN] [-v]

Suites, in this order:
  unit         every build/tests/test_* (cmocka, read through its TAP output)
  conformance  every build/tests/conformance-<backend> (cmocka, TAP)
  scripts      every tests/cli/test_*.py, tests/smoke/test_smoke.py and every
               tests/{harness,interpose,layout,matrix,fleet,vm,workloads}/test_*.py, each
               run as `python3 SCRIPT --builddir B` and ending with a line
               `NAME: N passed, N failed[, N skipped]`
  fuzz         tests/fuzz/run.py: every fuzz target replays its seeds and
               regressions, then fuzzes for FUZZ_SECONDS (all at once)
  guest        --guest-cmd COMMAND, if given: its output is streamed and
               must contain a line `guest: N passed, N failed`

Each suite prints one result line as it ends (with its output when it
failed, or always with -v). A suite that crashes, times out, exits non-zero
or does not report its counts adds one failure of its own, and so does a
suite that executed no case (every case skipped, or none at all): a suite
cannot pass on nothing. The one exception is the conformance suite of a
backend that `futexlab list` reports unavailable here (the module's
designs on a host without /dev/futexlab): its cases skip with the reason.
The conformance suite of every available backend runs with --require, so
a backend that claims to work but cannot be used fails every case. The last line
is always `tests: N passed, N failed, N skipped`, counting test cases over
all suites; the exit status is 0 only if nothing failed.
"""

import argparse
import fnmatch
import glob
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# per-suite time limits (s): generous for a loaded 2-CPU machine
UNIT_TIMEOUT = 60
# the simulations are CPU-bound (about 25 s of one CPU's time): a
# neighbour's load stretches them past a hang guard sized for the others
UNIT_TIMEOUTS = {"test_compare_sim": 300}
CONFORMANCE_TIMEOUT = 120
SCRIPT_TIMEOUT = 180
# the campaign suites run real matrices several times a side: about 50 s
# each alone, and 165 s seen beside a guest boot and six builds
SCRIPT_TIMEOUTS = {"matrix/test_campaign.py": 480,
                   "cli/test_campaign_untrusted.py": 480,
                   # two campaigns of 20 s and 12 s of blocks, and their
                   # sides' copies of futexlab
                   "cli/test_campaign_visits.py": 480}
GUEST_TIMEOUT = 1800
# each fuzz target's time in CI (they run at the same time): about a
# minute, as `ninja fuzz` gives them ten
FUZZ_SECONDS = 60

# a script's closing line; the guest command prints the same form
# (anywhere in a line: a guest's serial console may prefix it)
COUNTS_RE = re.compile(r"(?:^|[\s\]|])([\w./-]+): (\d+) passed, (\d+) "
                       r"failed(?:, (\d+) skipped)?\s*$")
TAP_PLAN_RE = re.compile(r"^1\.\.(\d+)\s*$")
TAP_RESULT_RE = re.compile(r"^(not ok|ok) \d+")


class Result:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.problems = []      # why the suite itself failed
        self.output = ""
        self.seconds = 0.0

    def suite_failed(self, why):
        self.problems.append(why)
        self.failed += 1


def run_captured(cmd, timeout, env=None, stream=False):
    """Run cmd in its own process group; (returncode, output, timed_out).

    Output is stdout and stderr together. On timeout the whole group is
    killed, so a suite's helpers cannot outlive it.
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                            start_new_session=True)
    chunks = []

    def reader():
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            chunks.append(line)
            if stream:
                sys.stdout.write("  | " + line)
                sys.stdout.flush()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    # nothing a suite started may outlive it (nor hold its output open)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    t.join(timeout=5)
    return proc.returncode, "".join(chunks), timed_out


def describe_exit(rc, timed_out, timeout):
    if timed_out:
        return "timed out after %d s" % timeout
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return "crashed (%s)" % name
    return "exited with status %d" % rc


def expected_binaries(builddir):
    """Unit test and backend names configure.py and the tool know of,
    and which backends the tool calls available on this machine."""
    units, backends, available = set(), set(), set()
    sys.path.insert(0, ROOT)
    try:
        import configure
        units |= set(configure.UNIT_TESTS)
        backends |= {b[0] for b in configure.BACKENDS}
    except Exception as e:  # noqa: BLE001 - say why, go on with globs
        print("note: cannot read configure.py's lists: %s" % e)
    finally:
        sys.path.pop(0)
    try:
        r = subprocess.run([os.path.join(builddir, "futexlab"), "list",
                            "--json"], capture_output=True, text=True,
                           timeout=60)
        listed = json.loads(r.stdout)["backends"]
        backends |= {b["name"] for b in listed}
        available |= {b["name"] for b in listed if b.get("available")}
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        pass        # the CLI suite reports a broken list --json
    return units, backends, available


def run_cmocka(name, path, timeout, args=(), may_skip_all=False):
    """A cmocka binary, read through TAP: ok, not ok, not ok # SKIP."""
    res = Result(name)
    if not os.access(path, os.X_OK):
        res.suite_failed("%s is not built" % os.path.relpath(path, ROOT))
        return res
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
    start = time.monotonic()
    rc, out, timed_out = run_captured([path] + list(args), timeout, env=env)
    res.seconds = time.monotonic() - start
    res.output = out
    plan = None
    seen = 0
    for line in out.splitlines():
        m = TAP_PLAN_RE.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = TAP_RESULT_RE.match(line)
        if not m:
            continue
        seen += 1
        if m.group(1) == "ok":
            res.passed += 1
        elif "# SKIP" in line:
            res.skipped += 1
        else:
            res.failed += 1
    if timed_out or rc < 0:
        res.suite_failed(describe_exit(rc, timed_out, timeout))
    elif rc != 0 and res.failed == 0:
        res.suite_failed(describe_exit(rc, timed_out, timeout) +
                         " with no failed case")
    if plan is None:
        res.suite_failed("no TAP plan in its output")
    elif seen < plan:
        # the cases that never reported count as failed
        res.failed += plan - seen
        res.problems.append("%d of %d cases never reported"
                            % (plan - seen, plan))
    elif plan == 0:
        res.suite_failed("ran no cases")
    elif res.passed + res.failed == 0 and not may_skip_all:
        res.suite_failed("executed none of its %d cases (all skipped)"
                         % plan)
    return res


def parse_counts(res, out, label):
    """Add the last `label: N passed, N failed[, N skipped]` line."""
    found = None
    for line in out.splitlines():
        m = COUNTS_RE.search(line.rstrip("\r"))
        if m and (label is None or m.group(1) == label):
            found = m
    if not found:
        return False
    res.passed += int(found.group(2))
    res.failed += int(found.group(3))
    res.skipped += int(found.group(4) or 0)
    return True


def run_counted(name, cmd, timeout, label=None, stream=False):
    """A script or command that reports its own counts."""
    res = Result(name)
    start = time.monotonic()
    rc, out, timed_out = run_captured(cmd, timeout, stream=stream)
    res.seconds = time.monotonic() - start
    res.output = out
    counted = parse_counts(res, out, label)
    if timed_out or rc < 0:
        res.suite_failed(describe_exit(rc, timed_out, timeout))
    elif rc != 0 and (res.failed == 0 or not counted):
        res.suite_failed(describe_exit(rc, timed_out, timeout) +
                         ("" if counted else " without reporting counts"))
    elif not counted:
        res.suite_failed("printed no '%s: N passed, N failed' line"
                         % (label or "NAME"))
    elif res.passed + res.failed == 0:
        res.suite_failed("executed no case")
    return res


def report(res, verbose, streamed=False):
    ok = res.failed == 0
    counts = "%d passed, %d failed, %d skipped" % (res.passed, res.failed,
                                                   res.skipped)
    print("%s %-32s %s (%.1f s)%s" % ("PASS" if ok else "FAIL", res.name,
                                       counts, res.seconds,
                                       "; " + "; ".join(res.problems)
                                       if res.problems else ""))
    if streamed:
        pass
    elif verbose or not ok:
        for line in res.output.rstrip("\n").splitlines():
            print("  | " + line)
    else:
        # skip reasons are worth seeing even when everything passed: once
        # each, with how many cases gave it
        reasons = {}
        for line in res.output.splitlines():
            if line.lstrip().lower().startswith(("# skip", "skip")):
                reasons[line.strip()] = reasons.get(line.strip(), 0) + 1
        for line, n in reasons.items():
            print("  | %s%s" % (line, " (%d cases)" % n if n > 1 else ""))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--guest-cmd", default=None,
                    help="also run COMMAND (e.g. the QEMU guest's tests) and "
                    "count its 'guest: N passed, N failed' line")
    ap.add_argument("--guest-timeout", type=int, default=GUEST_TIMEOUT)
    ap.add_argument("--only", action="append", default=[],
                    help="run only suites whose name matches this glob "
                    "(repeatable), e.g. 'unit/*' or 'conformance-spin'")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every suite's output")
    args = ap.parse_args()
    builddir = os.path.abspath(os.path.join(ROOT, args.builddir)) \
        if not os.path.isabs(args.builddir) else args.builddir
    tests_dir = os.path.join(builddir, "tests")

    def wanted(name):
        return not args.only or any(fnmatch.fnmatch(name, p)
                                    for p in args.only)

    def executable(path):
        return os.path.isfile(path) and os.access(path, os.X_OK)

    # the binaries that must exist: what configure.py builds and every
    # backend the tool lists, plus whatever else was built
    unit_names, backend_names, available = expected_binaries(builddir)
    unit_names |= {os.path.basename(p) for p in
                   glob.glob(os.path.join(tests_dir, "test_*"))
                   if executable(p)}
    backend_names |= {os.path.basename(p)[len("conformance-"):] for p in
                      glob.glob(os.path.join(tests_dir, "conformance-*"))
                      if executable(p)}
    suites = []
    for base in sorted(unit_names):
        path = os.path.join(tests_dir, base)
        name = "unit/" + base
        suites.append((name, lambda p=path, n=name:
                       run_cmocka(n, p, UNIT_TIMEOUTS.get(
                           os.path.basename(p), UNIT_TIMEOUT))))
    for backend in sorted(backend_names):
        path = os.path.join(tests_dir, "conformance-" + backend)
        name = "conformance-" + backend
        usable = backend in available
        suites.append((name, lambda p=path, n=name, u=usable: run_cmocka(
            n, p, CONFORMANCE_TIMEOUT, args=["--require"] if u else [],
            may_skip_all=not u)))
    scripts = sorted(glob.glob(os.path.join(ROOT, "tests", "cli",
                                            "test_*.py")))
    scripts.append(os.path.join(ROOT, "tests", "smoke", "test_smoke.py"))
    for folder in ("harness", "interpose", "layout", "matrix", "fleet", "vm", "workloads"):
        scripts += sorted(glob.glob(os.path.join(ROOT, "tests", folder,
                                                 "test_*.py")))
    for path in scripts:
        if not os.path.exists(path):
            continue
        rel = os.path.relpath(path, os.path.join(ROOT, "tests"))
        suites.append((rel, lambda p=path, n=rel: run_counted(
            n, [sys.executable, p, "--builddir", builddir],
            SCRIPT_TIMEOUTS.get(n, SCRIPT_TIMEOUT))))

    fuzz = os.path.join(ROOT, "tests", "fuzz", "run.py")
    if os.path.exists(fuzz):
        suites.append(("fuzz", lambda: run_counted(
            "fuzz", [sys.executable, fuzz, "--builddir", builddir,
                     "--seconds", str(FUZZ_SECONDS)],
            FUZZ_SECONDS * 3 + 120, label="fuzz")))

    total = Result("tests")
    if not suites:
        total.suite_failed("no test suites found under %s: build them "
                           "first (ninja)" % tests_dir)
        print("FAIL " + total.problems[0])
    for name, fn in suites:
        if not wanted(name):
            continue
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001 - a driver bug fails a suite
            res = Result(name)
            res.suite_failed("the driver failed running it: %r" % e)
        report(res, args.verbose)
        total.passed += res.passed
        total.failed += res.failed
        total.skipped += res.skipped
    if args.guest_cmd and wanted("guest"):
        print("guest: running %s" % args.guest_cmd)
        sys.stdout.flush()
        res = run_counted("guest", ["sh", "-c", args.guest_cmd],
                          args.guest_timeout, label="guest", stream=True)
        report(res, args.verbose, streamed=True)
        total.passed += res.passed
        total.failed += res.failed
        total.skipped += res.skipped
    if total.passed + total.failed == 0 and not total.problems:
        total.suite_failed("no test case executed")
        print("FAIL " + total.problems[0])
    print("tests: %d passed, %d failed, %d skipped"
          % (total.passed, total.failed, total.skipped))
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
