#!/usr/bin/env python3
"""The pthread interposer (docs/interpose.md) on this host's stock backends.

- Conformance: build/tests/interpose/conform runs every case with glibc's
  own functions and through the interposer and compares the outcomes, on
  futex-private and futex-shared with each algorithm that has them
  (mutex3, spin-then-wait, pi; adaptive is the module's, tested in the
  guest: tests/guest/interpose.sh). One check per case and combination.
- Bad input: an unknown algorithm or backend, one set but empty, a
  FUTEXLAB_INTERPOSE_VERBOSE other than 0 or 1, the adaptive lock on a
  stock backend, a module backend without /dev/futexlab: the program says
  why in one line naming the variable and aborts at its first lock, never
  running on another lock.

  tests/interpose/test_interpose.py --builddir build
"""

import argparse
import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "workloads"))
from test_locks import Checks  # noqa: E402
BACKENDS = ["futex-private", "futex-shared"]
ALGOS = ["mutex3", "spin-then-wait", "pi"]
TAP_RE = re.compile(r"^(ok|not ok) \d+ - (\S+)")


def env_with(**kv):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FUTEXLAB_") and k != "LD_PRELOAD"}
    env.update(kv)
    return env


def conformance(conform, lib, checks):
    for backend in BACKENDS:
        for algo in ALGOS:
            r = subprocess.run([conform, "--preload", lib],
                               capture_output=True, text=True, timeout=600,
                               env=env_with(FUTEXLAB_BACKEND=backend,
                                            FUTEXLAB_ALGO=algo))
            ran = 0
            for line in r.stdout.splitlines():
                m = TAP_RE.match(line)
                if m:
                    ran += 1
                    checks.check(m.group(1) == "ok", "%s on %s: %s\n%s" % (
                        algo, backend, m.group(2), r.stdout))
            checks.check(ran > 0, "%s on %s: no case ran (exit %d)\n%s" % (
                algo, backend, r.returncode, r.stderr))


def refused(conform, lib, checks, expect, **env):
    """A bad environment: aborted at the first lock, one line saying why."""
    r = subprocess.run([conform, "--case", "exclusion"], capture_output=True,
                       text=True, timeout=60,
                       env=env_with(LD_PRELOAD=lib, **env))
    what = " ".join("%s=%s" % kv for kv in env.items())
    checks.check(r.returncode == -signal.SIGABRT,
                 "%s: exit %d, not aborted" % (what, r.returncode))
    checks.check(expect in r.stderr and "aborting" in r.stderr,
                 "%s: stderr does not say %r:\n%s" % (what, expect, r.stderr))
    checks.check(r.stdout == "", "%s: the case ran: %r" % (what, r.stdout))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    b = os.path.join(ROOT, args.builddir) \
        if not os.path.isabs(args.builddir) else args.builddir
    conform = os.path.join(b, "tests", "interpose", "conform")
    lib = os.path.join(b, "libfutexlab-interpose.so")
    checks = Checks()
    conformance(conform, lib, checks)
    refused(conform, lib, checks, "FUTEXLAB_ALGO=bogus", FUTEXLAB_ALGO="bogus")
    refused(conform, lib, checks, "FUTEXLAB_BACKEND=spin",
            FUTEXLAB_BACKEND="spin")
    refused(conform, lib, checks, "futex-private has no adaptive lock",
            FUTEXLAB_ALGO="adaptive")
    # set but empty is a bad value, never the default said nowhere
    refused(conform, lib, checks, "FUTEXLAB_ALGO=: empty", FUTEXLAB_ALGO="")
    refused(conform, lib, checks, "FUTEXLAB_BACKEND=: empty",
            FUTEXLAB_BACKEND="")
    refused(conform, lib, checks, "FUTEXLAB_INTERPOSE_VERBOSE=: empty",
            FUTEXLAB_INTERPOSE_VERBOSE="")
    refused(conform, lib, checks, "FUTEXLAB_INTERPOSE_VERBOSE=yes: not 0 "
            "or 1", FUTEXLAB_INTERPOSE_VERBOSE="yes")
    if os.path.exists("/dev/futexlab"):
        checks.skipped += 1
        print("SKIP: kmod-global without /dev/futexlab: the module is "
              "loaded here")
    else:
        refused(conform, lib, checks, "cannot open /dev/futexlab",
                FUTEXLAB_BACKEND="kmod-global")
    print("interpose: %d passed, %d failed, %d skipped"
          % (checks.passed, checks.failed, checks.skipped))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
