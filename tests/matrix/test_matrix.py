#!/usr/bin/env python3
"""Tests of matrix files and resume (compare in test_compare.py,
plot and report in test_plot_report.py).

  tests/matrix/test_matrix.py --builddir build [-k NAME] [-v]

Each test drives build/futexlab as a user would and checks what it wrote:
  parse_good        cell expansion of a good file: order, values, counts
  threads_syntax    1..2*cpus, cpus, K*cpus, cpus/K and de-duplication
  golden_errors     bad files fail with FILE:LINE: message, exit 2, and
                    create no run directory
  resume_after_kill a real matrix run killed with SIGKILL mid-way (plus a
                    torn last line), refused while the file differs,
                    resumed: every cell exactly once, earlier rows kept
Ends with `matrix: N passed, N failed` (tests/run.py reads it).
"""

import csv
import glob
import io
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import COLUMNS, check, fl, rows_of, write  # noqa: E402

NCPUS = os.cpu_count() or 1


def listed(path):
    """futexlab matrix --list: [(cell, exp, workload, backend, threads,
    placement, options)]"""
    r = fl("matrix", "--list", path, check_rc=0)
    rows = []
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            continue
        f = line.split(" ")
        rows.append((int(f[0]), f[1], f[2], f[3], int(f[4]), f[5], f[6]))
    return rows


# ---------------------------------------------------------------- parsing

def test_parse_good(tmp):
    path = write(os.path.join(tmp, "good.ini"), """\
; comments and blank lines are fine
[defaults]
duration = 0.05
reps = 2
threads = 1, 2

[experiment a]
workload = mutex
backend = futex-private,spin
algo = mutex3,mutex2
critical = 200

[experiment b.second]
workload = hash
backend = futex2
threads = 3
futexes = 16
placement = compact scatter
""")
    rows = listed(path)
    expect = []
    # fl_spec order: backends outermost, then options, placements, threads
    for b in ("futex-private", "spin"):
        for algo in ("mutex3", "mutex2"):
            for t in (1, 2):
                expect.append(("a", "mutex", b, t, "compact",
                               "algo=%s;critical=200;think=0;spin=100" % algo))
    for p in ("compact", "scatter"):
        expect.append(("b.second", "hash", "futex2", 3, p,
                       "futexes=16;shared=no"))
    check([r[1:] for r in rows] == expect,
          "expansion differs:\n got %s\nwant %s" % ([r[1:] for r in rows],
                                                   expect))
    check([r[0] for r in rows] == list(range(len(expect))),
          "cell indices are not 0..N-1")


def test_threads_syntax(tmp):
    cases = [
        ("1..8", [1, 2, 4, 8]),
        ("3..12", [3, 6, 12]),
        ("1..5", [1, 2, 4, 5]),
        ("cpus", [NCPUS]),
        ("2*cpus", [2 * NCPUS]),
        # values that only meet on this machine merge; an item written
        # twice is an error (GOLDEN below)
        ("1, cpus", [1] + ([NCPUS] if NCPUS != 1 else [])),
        ("cpus/2", [max(1, NCPUS // 2)]),
    ]
    for text, want in cases:
        path = write(os.path.join(tmp, "t.ini"), "[experiment t]\n"
                     "workload = hash\nthreads = %s\n" % text)
        got = [r[4] for r in listed(path)]
        check(got == want, "threads = %s gave %s, want %s" % (text, got,
                                                              want))


# Each case: file text, the expected message after "FILE:" (exact, or a
# prefix when it ends with "..."), for a file named bad.ini.
GOLDEN = [
    ("[experiment x]\nworkload = mutex\nthreads = 1, 2, 1\n",
     "3: threads: '1' is given twice in '1,2,1'"),
    ("[defaults]\nreps = 2\n[experiments x]\nworkload = mutex\n",
     "3: unknown section [experiments x]: expected [defaults] or "
     "[experiment NAME]"),
    ("[defaults]\nrepetitions = 2\n[experiment x]\nworkload = mutex\n",
     "2: unknown key 'repetitions' in [defaults] (known: backend, threads, "
     "placement, duration, warmup, reps, reps-max, time-budget, seed, "
     "hash-slots, sample, bin)"),
    ("[experiment x]\nworkload = mutex\nalgorithm = pi\n",
     "3: unknown key 'algorithm' in [experiment x] (known for workload "
     "mutex: backend, threads, placement, duration, warmup, reps, "
     "reps-max, time-budget, seed, hash-slots, sample, bin, algo, "
     "critical, think, spin)"),
    ("[experiment x]\nworkload = mutexx\n",
     "2: workload: unknown workload 'mutexx' (known: ..."),
    ("[experiment x]\nworkload = mutex\nbackend = futex-private,futex3\n",
     "3: backend: unknown backend 'futex3' (known: ..."),
    ("[defaults]\nreps = many\n[experiment x]\nworkload = mutex\n",
     "2: reps: 'many' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nreps = -3\n",
     "3: reps: '-3' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nduration = -1\n",
     "3: duration: '-1' is not a number of seconds (e.g. 1 or 0.5, above "
     "0, at most one day)"),
    ("[experiment x]\nworkload = mutex\nthreads = 1,-2\n",
     "3: threads: '-2' is not a thread count from 1 to 4096 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
    ("[experiment x]\nworkload = mutex\nthreads = two\n",
     "3: threads: 'two' is not a thread count from 1 to 4096 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
    ("[experiment x]\nworkload = mutex\nthink = -5\n",
     "3: think: '-5' is not a duration (e.g. 100, 100ns, 5us, 2ms)"),
    ("[experiment x]\nworkload = mutex\nalgo = mutex3,mutex9\n",
     "3: algo: unknown value 'mutex9' (choose from mutex3, mutex2, pi, "
     "spin-then-wait, adaptive, pthread, pthread-adaptive, pthread-pi)"),
    ("[experiment x]\nworkload = mutex\nthreads =\n",
     "3: threads: empty list: the experiment would have no cells"),
    ("[experiment x]\nworkload = mutex\nbackend = \n",
     "3: backend: empty list: the experiment would have no cells"),
    ("[experiment x]\nworkload = mutex\nalgo =\n",
     "3: algo: empty value: the experiment would have no cells"),
    ("[defaults]\nreps = 2\n\n[experiment x]\nbackend = spin\n",
     "4: [experiment x] has no 'workload =' key"),
    ("[experiment x]\nworkload = mutex\nreps = 2\nreps = 3\n",
     "4: duplicate key 'reps' in [experiment x] (first at line 3)"),
    ("[experiment x]\nworkload = mutex\n[experiment x]\nworkload = hash\n",
     "3: duplicate section [experiment x] (first at line 1)"),
    ("reps = 2\n[experiment x]\nworkload = mutex\n",
     "1: 'reps' is outside any section: put it under [defaults] or an "
     "[experiment NAME]"),
    ("[experiment x]\nworkload = mutex\njust some words\n",
     "3: 'just some words' is not a 'key = value' line, a [section] or "
     "a comment"),
    ("[defaults]\nreps = 2\n",
     "2: no [experiment NAME] section: nothing to run"),
    ("[experiment a/b]\nworkload = mutex\n",
     "1: [experiment a/b]: name the experiment with letters, digits, '-', "
     "'_' or '.'"),
    ("[experiment x]\nworkload = mutex\nplacement = 4096\n",
     "3: placement: ..."),
    # two problems: the earliest line is the one reported
    ("[experiment x]\nworkload = mutex\nreps = 0\nthreads = 0\n",
     "3: reps: '0' is not auto or a whole number from 1 to 100"),
    ("[experiment x]\nworkload = mutex\nthreads = 0\nreps = 0\n",
     "3: threads: '0' is not a thread count from 1 to 4096 (N, cpus, "
     "K*cpus, cpus/K, or A..B for powers of two)"),
]


def test_golden_errors(tmp):
    results = os.path.join(tmp, "results")
    path = os.path.join(tmp, "bad.ini")
    for text, want in GOLDEN:
        write(path, text)
        r = fl("matrix", path, "--results", results)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2, "%r: exit %d, expected 2" % (text,
                                                             r.returncode))
        check(len(lines) == 1, "%r: %d lines on stderr: %r" % (
            text, len(lines), r.stderr))
        got = lines[0]
        prefix = path + ":"
        if want.endswith("..."):
            ok = got.startswith(prefix + want[:-3])
        else:
            ok = got == prefix + want
        check(ok, "%r:\n got  %s\n want %s%s" % (text, got, prefix, want))
        check(not os.path.exists(results) or not os.listdir(results),
              "%r: a run directory was created for a bad file" % text)
    r = fl("matrix", os.path.join(tmp, "missing.ini"))
    check(r.returncode == 2 and "missing.ini: cannot read" in r.stderr,
          "a missing file: exit %d, %r" % (r.returncode, r.stderr))


# ----------------------------------------------------------------- resume

def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def test_resume_after_kill(tmp):
    results = os.path.join(tmp, "results")
    ini = os.path.join(tmp, "m.ini")
    text = """\
[defaults]
duration = 0.05
warmup = 0
reps = 2

[experiment m]
workload = mutex
backend = futex-private,spin
threads = 1,2
algo = mutex3,pi

[experiment h]
workload = hash
backend = futex-private,futex-shared
threads = 1,2
"""
    write(ini, text)
    plan = listed(ini)
    ncells = len(plan)
    # every cell that runs has 2 repetitions, one per pass, each a visit
    proc = subprocess.Popen([runs.FL, "matrix", ini, "--results", results],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    partial = None
    deadline = time.monotonic() + 60
    killed_after = 0
    while time.monotonic() < deadline and proc.poll() is None:
        dirs = glob.glob(os.path.join(results, ".partial-*"))
        if dirs:
            partial = dirs[0]
            try:
                with open(os.path.join(partial, "cells.csv")) as f:
                    nlines = f.read().count("\n") - 1
            except OSError:
                nlines = 0
            if nlines >= 6:    # six visits, one row each
                kids = children(proc.pid)
                os.kill(proc.pid, signal.SIGKILL)
                for k in kids:  # the cell in progress: do not leave it
                    try:
                        os.kill(k, signal.SIGKILL)
                    except OSError:
                        pass
                killed_after = nlines
                break
        time.sleep(0.005)
    proc.wait()
    check(killed_after, "the matrix run ended before it could be killed")
    check(partial and os.path.isdir(partial), "no partial directory")
    finals = [d for d in os.listdir(results) if not d.startswith(".")]
    check(not finals, "a killed run has a final directory: %s" % finals)
    cells_csv = os.path.join(partial, "cells.csv")
    before = open(cells_csv).read()
    kept_before = [ln for ln in before.splitlines(True)[1:]
                   if ln.endswith("\n")]
    # the passes planned so far say which cell and repetition each visit
    # is (matrix.json keeps them for the resume)
    import json
    state = json.load(open(os.path.join(partial, "matrix.json")))
    visit_of = []
    for cell in [c for pas in state["passes"] for c in pas]:
        visit_of.append((cell, sum(1 for v in visit_of if v[0] == cell)))
    # a kill in the middle of a write leaves a torn line
    with open(cells_csv, "a") as f:
        f.write("%d,mutex,futex-pri" % (ncells - 1))

    # a changed matrix file is refused, naming what changed
    write(ini, text.replace("threads = 1,2\nalgo", "threads = 1,2,3\nalgo"))
    r = fl("matrix", "--resume", partial)
    check(r.returncode == 2, "resume with a changed file: exit %d" %
          r.returncode)
    check("changed since the run started" in r.stderr and
          "[experiment m] threads: '1,2' is now '1,2,3'" in r.stderr,
          "the refusal does not say what changed: %r" % r.stderr)
    check(os.path.isdir(partial), "a refused resume touched the directory")
    write(ini, text.replace("; nothing", "") + "; a comment changes "
          "nothing\n")

    r = fl("matrix", "--resume", partial, timeout=120)
    check(r.returncode == 0, "resume: exit %d: %s" % (r.returncode,
                                                       r.stderr))
    final = r.stdout.strip().splitlines()[-1]
    check(os.path.isdir(final) and not os.path.exists(partial),
          "not renamed into place: %s" % final)
    check(os.path.basename(final) in os.path.basename(partial),
          "the final name %s is not the partial run's" % final)
    rows = rows_of(os.path.join(final, "cells.csv"))
    seen = {}
    for row in rows:
        seen.setdefault(int(row["cell"]), []).append(int(row["rep"]))
    check(sorted(seen) == list(range(ncells)),
          "cells missing: %s" % sorted(set(range(ncells)) - set(seen)))
    skipped = {int(x["cell"]) for x in rows if x["status"] == "skipped"}
    for c, reps in seen.items():
        # a skipped cell would say the same again: one visit
        want = [0] if c in skipped else [0, 1]
        check(sorted(reps) == want, "cell %d has repetitions %s" % (c,
                                                                   reps))
    nvisits = 2 * ncells - len(skipped)
    progress = [ln for ln in r.stdout.splitlines() if ln.startswith("[")]
    # N is the repetitions announced, every cell's minimum (a skipped
    # cell's visits not made count as settled): the last line says N/N
    check(progress and progress[-1].startswith("[%d/%d]" % (2 * ncells,
                                                            2 * ncells)),
          "progress lines do not end at 'N/N': %r" % progress)
    check(len(progress) == nvisits - killed_after,
          "the resume ran %d visits; %d were missing" % (
              len(progress), nvisits - killed_after))


    for row in rows:
        p = plan[int(row["cell"])]
        check((row["workload"], row["backend"], int(row["threads"]),
               row["placement"], row["options"]) ==
              (p[2], p[3], p[4], p[5], p[6]),
              "cell %s is not the matrix's: %s" % (row["cell"], row))
        check(os.path.isfile(os.path.join(final, row["hist"])),
              "no histogram %s" % row["hist"])
    # the visits finished before the kill were kept, not run again: each
    # is its cell's row for that repetition, measurement unchanged
    after = open(os.path.join(final, "cells.csv")).read()
    final_rows = {(int(x["cell"]), int(x["rep"])): x for x in rows}
    # a first run writes its visits in order: row k is visit k's, its
    # cell and repetition the plan's
    for k, old in enumerate(csv.DictReader(io.StringIO(
            ",".join(COLUMNS) + "\n" + "".join(kept_before)))):
        check((int(old["cell"]), int(old["rep"])) == visit_of[k],
              "row %d is cell %s rep %s, but visit %d is %s" % (
                  k, old["cell"], old["rep"], k, visit_of[k]))
        new = final_rows[visit_of[k]]
        for col in ("workload", "backend", "options", "status",
                    "elapsed_ns", "ops", "lat_p99_ns"):
            check(old[col] == new[col], "visit %d's %s changed: %r -> %r"
                  % (k, col, old[col], new[col]))
    check("mutex,futex-pri\n" not in after and after.endswith("\n"),
          "the torn line survived")
    for name in ("meta.json", "matrix.ini", "matrix.json"):
        check(os.path.isfile(os.path.join(final, name)), "no %s" % name)
    import json
    meta = json.load(open(os.path.join(final, "meta.json")))
    check(len(meta.get("resumed", [])) == 1, "meta.json lists %r resumes"
          % meta.get("resumed"))
    check(meta["cells"]["total"] == ncells, "meta cells.total %r" %
          meta["cells"])
    # a finished run is never modified
    r = fl("matrix", "--resume", final)
    check(r.returncode == 2 and "finished run" in r.stderr,
          "resuming a finished run: exit %d %r" % (r.returncode, r.stderr))


TESTS = [test_parse_good, test_threads_syntax, test_golden_errors,
         test_resume_after_kill]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "matrix"))
