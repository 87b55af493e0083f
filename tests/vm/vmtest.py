"""What tests/vm/test_*.py share: vm/run loaded as a module (it has no .py
suffix), and the ok/FAIL lines of their cases with the counts for the
closing line."""

import importlib.machinery
import importlib.util
import os

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
