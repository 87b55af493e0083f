#!/usr/bin/env python3
"""A run's partial whose recorded flags (matrix.json's run_argv) do not
parse: `run --resume DIR` says so in one line naming the file and what
the parser said (caught from the parser, not printed by it), exits 2 and
changes nothing; nothing the parser says reaches stdout or stderr apart
from that line. Cases: an unknown flag, --help, a flag given twice, a
bad --results.

  tests/cli/test_resume_flags.py --builddir build [-k NAME] [-v]
"""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import partials as pt  # noqa: E402
import runs  # noqa: E402
from runs import check  # noqa: E402
from test_resume_untrusted import (app_run_partial, refused,  # noqa: E402
                                   resume, snapshot)

CASES = [
    ("an unknown flag", ["--bogus"],
     "unknown option '--bogus' for workload app"),
    ("--help", ["--help"], "(usage: futexlab run app [options])"),
    ("a flag twice", ["--duration", "1", "--duration", "2"],
     "--duration is given twice"),
    ("a bad --results", ["--results", "/proc/self/x/y"], "--results"),
]


def test_recorded_flags_that_do_not_parse(tmp):
    template = app_run_partial(tmp)
    for name, extra, what in CASES:
        top = os.path.join(tmp, "case")
        shutil.rmtree(top, ignore_errors=True)
        os.mkdir(top)
        partial = os.path.join(top, os.path.basename(template))
        shutil.copytree(template, partial, symlinks=True)
        state = pt.state_of(partial)
        state["run_argv"] = state["run_argv"] + extra
        pt.set_state(partial, state)
        before = snapshot(top)
        r = resume(["run", "--resume", partial, "--yes"], tmp)
        check(r.stdout == "", "%s: the parser printed on stdout: %r"
              % (name, r.stdout[:300]))
        refused(r, partial, before, "matrix.json: its recorded flags do "
                "not parse")
        check(what in r.stderr, "%s: expected %r in %r"
              % (name, what, r.stderr))


TESTS = [test_recorded_flags_that_do_not_parse]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "resume_flags"))
