#!/usr/bin/env python3
"""`futexlab run --resume`: a run is a one-experiment matrix, and resumes
as one.

  tests/matrix/test_run_resume.py --builddir build [-k NAME] [-v]

  resume_after_interrupt  a real run interrupted after its first pass,
                          resumed from the flags its directory recorded:
                          every cell's repetitions exactly once, the rows
                          of the visits before the interruption unchanged,
                          the resume listed in meta.json
  hostile_resumes         a matrix's partial directory, a matrix.json
                          edited to hold no flags, a non-flag or an
                          unknown flag, extra arguments, a link, a
                          finished run: one line naming what was wrong,
                          exit 2, nothing written
Ends with `run-resume: N passed, N failed` (tests/run.py reads it).
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check, fl, rows_of, write  # noqa: E402

REPS = 4
FLAGS = ["mutex", "--threads", "1,2", "--reps", str(REPS), "--duration",
         "0.2", "--warmup", "0"]


def interrupted_run(tmp):
    """A run stopped by SIGINT once its first pass is written: its
    partial directory and the rows it held."""
    results = os.path.join(tmp, "results")
    p = subprocess.Popen([runs.FL, "run"] + FLAGS + ["--results", results],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + 60
    partial = None
    while time.monotonic() < deadline:
        found = glob.glob(os.path.join(results, ".partial-*"))
        if found and os.path.exists(os.path.join(found[0], "cells.csv")):
            if len(rows_of(os.path.join(found[0], "cells.csv"))) >= 2:
                partial = found[0]
                break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    check(partial is not None, "no first pass within 60 s: %s" % err)
    check(p.returncode == 130, "interrupted run: exit %d" % p.returncode)
    check("futexlab run --resume %s" % partial in err,
          "the interruption does not say how to resume: %r" % err)
    return partial, rows_of(os.path.join(partial, "cells.csv"))


def test_resume_after_interrupt(tmp):
    partial, before = interrupted_run(tmp)
    check(len(before) < 2 * REPS, "the run finished before the signal")
    r = fl("run", "--resume", partial, timeout=120, check_rc=0)
    final = r.stdout.strip().splitlines()[-1]
    check(os.path.isdir(final) and not os.path.exists(partial),
          "resumed run not renamed into place: %r" % r.stdout)
    check("resumed:" in r.stdout, "a resumed run's summaries do not say "
          "they count this session only: %r" % r.stdout[:300])
    rows = rows_of(os.path.join(final, "cells.csv"))
    got = sorted((int(x["cell"]), int(x["rep"])) for x in rows)
    want = sorted((c, k) for c in range(2) for k in range(REPS))
    check(got == want, "cells and repetitions %s, not %s" % (got, want))
    for x in rows:
        check(x["threads"] == ("1" if x["cell"] == "0" else "2"),
              "cell %s has %s threads" % (x["cell"], x["threads"]))
        check(os.path.isfile(os.path.join(final, x["hist"])),
              "no histogram %s" % x["hist"])
    # the visits written before the signal are kept, not run again
    kept = {(x["ops"], x["elapsed_ns"]) for x in rows}
    for old in before:
        check((old["ops"], old["elapsed_ns"]) in kept,
              "visit %s's row was lost or changed" % old["cell"])
    meta = json.load(open(os.path.join(final, "meta.json")))
    check(len(meta.get("resumed", [])) == 1, "meta.json lists %r resumes"
          % meta.get("resumed"))
    check(meta["cells"]["total"] == 2, "meta cells %r" % meta["cells"])
    check("settings" in meta, "a resumed run's meta has no settings")
    # a finished run is never modified
    r = fl("run", "--resume", final)
    check(r.returncode == 2 and len(r.stderr.splitlines()) == 1,
          "resuming a finished run: exit %d %r" % (r.returncode, r.stderr))


def listing(path):
    out = []
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            p = os.path.join(root, n)
            out.append((p, os.lstat(p).st_mtime_ns))
    return sorted(out)


def refused(args, why, tree):
    """futexlab run ARGS: exit 2, one line containing why, tree
    unchanged."""
    before = listing(tree)
    r = fl("run", *args)
    check(r.returncode == 2, "run %s: exit %d (%r)" % (args, r.returncode,
                                                       r.stderr))
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and why in lines[0],
          "run %s: said %r, wanted one line with %r" % (args, r.stderr, why))
    check(listing(tree) == before, "run %s changed %s" % (args, tree))


def test_hostile_resumes(tmp):
    partial, _ = interrupted_run(tmp)
    state = os.path.join(partial, "matrix.json")
    good = open(state).read()

    def edited(change):
        doc = json.loads(good)
        change(doc)
        write(state, json.dumps(doc))

    refused(["--resume", partial, "extra"], "one run directory", tmp)
    edited(lambda d: d.pop("run_argv"))
    refused(["--resume", partial], "'run_argv'", tmp)
    edited(lambda d: d.update(run_argv=["mutex", "--threads", 7]))
    refused(["--resume", partial], "'run_argv'", tmp)
    edited(lambda d: d.update(run_argv=["mutex", "--bogus", "1"]))
    refused(["--resume", partial], "do not parse", tmp)
    edited(lambda d: d.update(kind="matrix"))
    refused(["--resume", partial], "not a run's", tmp)
    write(state, good)
    # a matrix resume of a run's directory is pointed to run --resume
    r = fl("matrix", "--resume", partial)
    check(r.returncode == 2 and "run --resume" in r.stderr,
          "matrix --resume of a run: exit %d %r" % (r.returncode, r.stderr))
    # a link to the partial directory is not followed
    link = os.path.join(tmp, "link")
    os.symlink(partial, link)
    r = fl("run", "--resume", link)
    check(r.returncode == 2, "a link was resumed: %r" % r.stderr)
    shutil.rmtree(os.path.dirname(partial))


TESTS = [test_resume_after_interrupt, test_hostile_resumes]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "run-resume"))
