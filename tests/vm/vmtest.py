"""What tests/vm/test_*.py share: vm/run loaded as a module (it has no .py
suffix), and the ok/FAIL lines of their cases with the counts for the
closing line."""

import argparse
import importlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class Cases:
    """One `ok NAME` or `FAIL NAME: problems` line per case, counted."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, problems):
        if problems:
            self.failed += 1
            print("FAIL %s: %s" % (name, "; ".join(problems)))
        else:
            self.passed += 1
            print("ok   %s" % name)

    def close(self, suite):
        """Print the closing line; the exit status."""
        print("%s: %d passed, %d failed" % (suite, self.passed, self.failed))
        return 1 if self.failed else 0


def load_vm_run():
    """vm/run as a module, for its functions."""
    path = os.path.join(ROOT, "vm", "run")
    loader = importlib.machinery.SourceFileLoader("vm_run", path)
    spec = importlib.util.spec_from_loader("vm_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def load_vm_module(name):
    """One of the Python files vm/run is made of (vm/initramfs.py, say),
    by its name, as a module."""
    sys.path.insert(0, os.path.join(ROOT, "vm"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def refusal_case(args, builddir, wants, env=None):
    """The problems of `vm/run ARGS -- true` as a refusal (see
    refusal_problems), or that it still ran after 60 s (booting?)."""
    cmd = ([sys.executable, os.path.join(ROOT, "vm", "run"), "--builddir",
            builddir] + args + ["--", "true"])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                           env=env)
    except subprocess.TimeoutExpired:
        return ["still running after 60 s (booting?)"]
    return refusal_problems(r, wants)


def refusal_problems(r, wants):
    """What is wrong with a refusal: vm/run (a CompletedProcess) must exit
    2 with one line on stderr that says each of wants."""
    problems = []
    if r.returncode != 2:
        problems.append("exit status %d, want 2" % r.returncode)
    lines = r.stderr.strip().splitlines()
    if len(lines) != 1:
        problems.append("%d lines on stderr, want 1: %r"
                        % (len(lines), r.stderr[-300:]))
    for w in wants:
        if w not in r.stderr:
            problems.append("stderr does not say %s: %r"
                            % (w, r.stderr[-300:]))
    return problems


def run_cases(cases, suite, with_vm, refusals):
    """A test script's main: with_vm(vm/run as a module), then
    refusals(an empty build directory); the closing line's exit status."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.parse_args()
    with_vm(load_vm_run())
    with tempfile.TemporaryDirectory() as builddir:
        refusals(builddir)
    return cases.close(suite)
