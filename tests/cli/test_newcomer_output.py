#!/usr/bin/env python3
"""What a newcomer reads in the first hour: the terminal's lines, report.md
and the docs say one thing each, in one way.

  tests/cli/test_newcomer_output.py --builddir build [--futexlab BIN]

Progress: a matrix's counter counts the repetitions it announced ("N
repetitions in all"), a total fixed at the start; a skipped cell's
visits that will not be made count as settled, and adaptive repetitions
are shown as such ("[N/N +k adaptive]"), never as a total that grows.

report.md: the machine table's numbers as a person reads them (no
"23.4826 ns", no "0.050000000000000003"), singular where one ("1
package", "1 thread"); a fleet's figures formatted as a run's ("4.00M",
never "4e+06"); a note several cells share (the busy loop's drift, each
cell with its own figure) said once with its cells.

Flags and docs: options are spelled in full (`--thread` is unknown,
named as such); a yes/no flag given a value says it takes none; the docs'
commands name build/futexlab; the Slurm script needs FUTEXLAB; --estimate
promises adaptive repetitions only where reps = auto; a folder that is
not a run is "not a run directory" for report as for plot; compare's
one-run note asks for the runs an interval needs (4); mutex --help gives
--spin's default once.

Ends with `newcomer_output: N passed, N failed`.
"""

import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import test_untrusted as tu  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 120

check = tu.check  # counts into tu.passed and tu.failed


def run(fl, args, cwd, env=None):
    """futexlab args: (status, stdout, stderr); status None on a hang."""
    try:
        r = subprocess.run([fl] + args, capture_output=True, text=True,
                           timeout=TIMEOUT, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return None, "", "hangs"
    return r.returncode, r.stdout, r.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def run_dir(stdout):
    """The run directory a run or matrix printed last."""
    lines = stdout.strip().splitlines()
    return lines[-1] if lines else ""


# two cells of fixed reps, one of them skipped (no PI on spin)
SKIPPING = """[defaults]
duration = 0.02
warmup = 0.01
reps = 3
seed = 1
backend = futex-private,spin
threads = 1

[experiment pi]
workload = pi
"""

# reps = auto with a budget: adaptive visits where an interval is wide
ADAPTIVE = """[defaults]
duration = 0.01
warmup = 0.005
reps = auto
reps-max = 9
time-budget = 4
seed = 1
backend = futex-private
threads = 1,2

[experiment mutex]
workload = mutex
critical = 0,2000
"""


def progress_problems(err):
    """Each [k/N] of a matrix's progress against the total announced."""
    problems = []
    m = re.search(r"(\d+) repetitions in all", err)
    if not m:
        return ["no 'N repetitions in all' announced: %r" % err[:300]]
    total = int(m.group(1))
    counters = re.findall(r"^\[(\d+)/(\d+)( \+(\d+) adaptive)?\]", err,
                          re.M)
    if not counters:
        return ["no progress line: %r" % err[:300]]
    last = 0
    for k, n, extra, _ in counters:
        if int(n) != total:
            problems.append("[%s/%s]: a total other than the %d "
                            "announced" % (k, n, total))
        if extra and int(k) != total:
            problems.append("adaptive visits before the %d announced "
                            "settled: [%s/%s%s]" % (total, k, n, extra))
        if int(k) < last:
            problems.append("the count went back: %s after %d" % (k, last))
        last = int(k)
    if last != total:
        problems.append("ends at %d of %d announced" % (last, total))
    return problems


def test_progress(fl, tmp):
    for name, text in (("skipped", SKIPPING), ("adaptive", ADAPTIVE)):
        results = os.path.join(tmp, "progress-" + name)
        os.makedirs(results)
        ini = write(os.path.join(tmp, name + ".ini"), text)
        st, out, err = run(fl, ["matrix", ini, "--results", results], tmp)
        problems = [] if st == 0 else ["exit %s: %r" % (st, err[-300:])]
        check("progress: a matrix with %s cells counts to the total it "
              "announced" % name, problems + progress_problems(err + out))


def tiny_run(fl, tmp, name, extra=()):
    results = os.path.join(tmp, name)
    os.makedirs(results)
    st, out, err = run(fl, ["run", "mutex", "--backend", "futex-private",
                            "--threads", "1", "--duration", "0.01",
                            "--warmup", "0.005", "--reps", "3",
                            "--results", results] + list(extra), tmp)
    return st, run_dir(out), err


def report_text(fl, tmp, rundir):
    st, out, err = run(fl, ["report", rundir], tmp)
    if st != 0:
        return None, "report exit %s: %r" % (st, err[-300:])
    with open(os.path.join(rundir, "report.md")) as f:
        return f.read(), None


def table_row(report, name):
    m = re.search(r"^\| %s \| (.*) \|$" % re.escape(name), report, re.M)
    return m.group(1) if m else None


def test_report_numbers(fl, tmp):
    st, rundir, err = tiny_run(fl, tmp, "numbers")
    if st != 0:
        check("report: numbers as a person reads them",
              ["run exit %s: %r" % (st, err[-300:])])
        return
    text, why = report_text(fl, tmp, rundir)
    if text is None:
        check("report: numbers as a person reads them", [why])
        return
    problems = []
    cpus = table_row(text, "CPUs") or ""
    for noun in ("core", "package", "NUMA node"):
        m = re.search(r"\b(\d+) %ss?\b" % noun, cpus)
        if not m:
            problems.append("CPUs row has no count of %ss: %r"
                            % (noun, cpus))
        elif (m.group(0).endswith("s")) != (m.group(1) != "1"):
            problems.append("CPUs row says %r" % m.group(0))
    over = table_row(text, "harness overhead") or ""
    if not re.search(r"clock read \d+(\.\d)? ns", over):
        problems.append("harness overhead: %r" % over)
    load = table_row(text, "load average") or ""
    if not re.fullmatch(r"\d+\.\d\d at the start, \d+\.\d\d at the end",
                        load):
        problems.append("load average: %r" % load)
    settings = table_row(text, "settings") or ""
    if re.search(r"\d\.\d{9,}", settings) or "noisy_halfwidth\":0.05" \
            not in settings:
        problems.append("settings: %r" % settings)
    check("report: machine table's numbers rounded, singular where one",
          problems)

    # a fleet of the run and a copy of it: its figures are the run's
    copy = rundir + "-copy"
    shutil.copytree(rundir, copy, symlinks=True)
    out_dir = os.path.join(tmp, "fleet")
    st, out, err = run(fl, ["report", rundir, copy, "--out", out_dir], tmp)
    problems = [] if st == 0 else ["fleet exit %s: %r" % (st, err[-300:])]
    fleet = ""
    if st == 0:
        with open(os.path.join(out_dir, "report.md")) as f:
            fleet = f.read()
    rows = [line for line in fleet.splitlines()
            if line.startswith("| futex-private |")]
    if not rows:
        problems.append("no cell row in the fleet's report")
    for row in rows:
        if re.search(r"\de[+-]\d", row):
            problems.append("a figure in e-notation: %r" % row)
        if not re.search(r"\| [\d.]+[kMG]? (\[|\(interval n/a)", row):
            problems.append("not the run's rate format: %r" % row)
    check("report: a fleet's figures as the run's report writes them",
          problems)


DRIFT = ("busy-loop speed drifted %+d%% (100 to %d loops/us): "
         "--critical/--think were not the lengths asked")


def test_report_notes(fl, tmp):
    """Cells whose notes differ only in the drift's figure: one line."""
    results = os.path.join(tmp, "notes")
    os.makedirs(results)
    st, out, err = run(fl, ["run", "mutex", "--backend", "futex-private",
                            "--threads", "1,2", "--critical", "0,100",
                            "--duration", "0.01", "--warmup", "0.005",
                            "--reps", "1", "--results", results], tmp)
    rundir = run_dir(out)
    if st != 0:
        check("report: a note many cells share is said once",
              ["run exit %s: %r" % (st, err[-300:])])
        return
    path = os.path.join(rundir, "cells.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    note = rows[0].index("note")
    drifts = [-20, 15, 30, -12]
    for i, row in enumerate(rows[1:]):
        row[note] = DRIFT % (drifts[i], 100 + drifts[i])
    # one cell has a second note beside its drift
    rows[1][note] += "; oversubscribed: 2 threads on 1 CPU"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    write(path, buf.getvalue())
    text, why = report_text(fl, tmp, rundir)
    problems = [why] if why else []
    notes = re.findall(r"^- .*$", (text or "").split("## Notes")[-1], re.M)
    want = ["- busy-loop speed drifted -20% to +30%: --critical/--think "
            "were not the lengths asked (cells 0-3)",
            "- oversubscribed: 2 threads on 1 CPU (cell 0: mutex "
            "futex-private, 1 thread)"]
    if notes != want:
        problems.append("notes %r, not %r" % (notes, want))
    check("report: a note many cells share is said once with its cells",
          problems)


def one_line_error(st, err, says):
    """Exit 2 with one line on stderr that holds each of says."""
    problems = []
    if st != 2:
        problems.append("exit %s, not 2" % st)
    if len(err.splitlines()) != 1:
        problems.append("not one line on stderr: %r" % err[:300])
    for s in says:
        if s not in err:
            problems.append("stderr does not say %r: %r" % (s, err[:300]))
    return problems


def test_flags(fl, tmp):
    results = os.path.join(tmp, "flags")
    cases = (
        (["run", "mutex", "--thread", "2", "--results", results],
         ["unknown option '--thread'", "--threads"]),
        (["run", "hash", "--b", "futex-private", "--results", results],
         ["unknown option '--b'"]),
        (["report", "--ou", results, results],
         ["unknown option '--ou'", "--out"]),
        (["run", "hash", "--shared", "yes", "--results", results],
         ["--shared takes no value", "'yes'"]),
    )
    for args, says in cases:
        os.makedirs(results)
        st, out, err = run(fl, args, tmp)
        problems = one_line_error(st, err, says)
        if os.listdir(results):
            problems.append("wrote %s" % os.listdir(results))
        shutil.rmtree(results)
        check("flags: `%s` is refused, saying so" % " ".join(args[:3]),
              problems)


def fenced_lines(path):
    """The commands of path's ``` blocks (a line ending in a backslash
    joined to the next), with their first line's number."""
    inside, joined, first = False, "", 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                inside = not inside
                continue
            if not inside:
                continue
            line = line.rstrip("\n")
            if not joined:
                first = n
            if line.endswith("\\"):
                joined += line[:-1]
                continue
            yield first, joined + line
            joined = ""


# the docs whose commands run on the host, where nothing puts futexlab
# on the PATH (a guest's, docs/numa.md, and the notebook's records of
# past commands aside)
HOST_DOCS = ("README.md", "docs/statistics.md", "docs/fleet.md",
             "docs/kernels.md", "docs/matrix.md", "docs/measurement.md",
             "docs/workloads-primitives.md")


def test_docs(fl, tmp):
    problems = []
    for doc in HOST_DOCS:
        for n, line in fenced_lines(os.path.join(ROOT, doc)):
            if re.match(r"\s*futexlab (run|matrix|campaign|compare|report|"
                        r"plot|merge|list) ", line):
                problems.append("%s:%d: %s" % (doc, n, line[:80]))
        for n, line in fenced_lines(os.path.join(ROOT, doc)):
            if line.startswith("sbatch ") and "slurm-shard" in line and \
                    "FUTEXLAB=" not in line:
                problems.append("%s:%d: sbatch without FUTEXLAB" % (doc, n))
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    if "spelled in full" not in readme:
        problems.append("README's flags paragraph does not say that flags "
                        "are spelled in full")
    check("docs: host commands name build/futexlab, sbatch exports "
          "FUTEXLAB", problems)

    # the script without FUTEXLAB: refused before it makes anything
    script = os.path.join(ROOT, "tools", "slurm-shard.sbatch")
    out_dir = os.path.join(tmp, "slurm-results")
    env = {k: v for k, v in os.environ.items() if k != "FUTEXLAB"}
    env["SLURM_ARRAY_TASK_ID"] = "0"
    env["PATH"] = os.path.dirname(fl) + ":" + env.get("PATH", "")
    r = subprocess.run(["bash", script, "1", "none.ini", out_dir],
                       capture_output=True, text=True, env=env,
                       timeout=TIMEOUT)
    problems = one_line_error(r.returncode, r.stderr,
                              ["FUTEXLAB is not set", "--export="])
    if os.path.exists(out_dir):
        problems.append("made %s" % out_dir)
    check("slurm-shard.sbatch: without FUTEXLAB, refused (no futexlab "
          "from the PATH)", problems)


FIXED = """[defaults]
duration = 0.1
reps = 3
backend = futex-private
threads = 1

[experiment mutex]
workload = mutex
"""


def test_estimate(fl, tmp):
    for reps, promise in (("3", False), ("auto", True)):
        ini = write(os.path.join(tmp, "estimate-%s.ini" % reps),
                    FIXED.replace("reps = 3", "reps = " + reps))
        st, out, err = run(fl, ["matrix", ini, "--estimate"], tmp)
        problems = [] if st == 0 else ["exit %s: %r" % (st, err[:300])]
        if ("s more for the cells" in out) != promise:
            problems.append("%s adaptive repetitions: %r"
                            % ("does not promise" if promise else
                               "promises", out[-300:]))
        check("matrix --estimate with reps = %s: %s" % (
              reps, "what the budget adds" if promise else
              "no adaptive repetitions promised"), problems)


def test_not_a_run(fl, tmp):
    folder = os.path.join(tmp, "not-a-run")
    os.makedirs(folder)
    write(os.path.join(folder, "notes.txt"), "hello\n")
    for cmd in ("report", "plot"):
        st, out, err = run(fl, [cmd, folder], tmp)
        problems = one_line_error(st, err, ["not a run directory"])
        if sorted(os.listdir(folder)) != ["notes.txt"]:
            problems.append("wrote %s" % os.listdir(folder))
        check("%s on a folder that is not a run: 'not a run directory'"
              % cmd, problems)


def test_help_and_notes(fl, tmp):
    st, out, err = run(fl, ["run", "mutex", "--help"], tmp)
    spin = [line for line in out.splitlines() if "--spin" in line]
    problems = [] if spin else ["no --spin in mutex --help: %r" % out]
    for line in spin:
        if line.count("default") != 1:
            problems.append("--spin's default said %d times: %r"
                            % (line.count("default"), line))
    check("mutex --help: --spin's default said once", problems)

    st, a, err = tiny_run(fl, tmp, "one-run-a")
    st2, b, err2 = tiny_run(fl, tmp, "one-run-b")
    out_dir = os.path.join(tmp, "one-run-compare")
    st3, out, err3 = run(fl, ["compare", "--a", a, "--b", b, "--out",
                              out_dir], tmp)
    m = re.search(r"give (\d+) or more runs per side", out + err3)
    problems = []
    if st or st2:
        problems.append("runs exit %s, %s" % (st, st2))
    if not m:
        problems.append("no one-run note: %r" % (out + err3)[-400:])
    elif m.group(1) != "4":
        problems.append("asks for %s runs per side; an interval needs 4 "
                        "(docs/statistics.md)" % m.group(1))
    check("compare of one run a side: asks for the 4 runs an interval "
          "needs", problems)


def test_app_output(fl, tmp):
    """What run prints of an app cell says what was measured."""
    prog = ("sysbench mutex --threads=2 --mutex-loops=1000 run"
            if shutil.which("sysbench") else "true")
    for metric in ("", "total time: +([0-9.]+)s"):
        if metric and not prog.startswith("sysbench"):
            continue
        results = os.path.join(tmp, "app" + ("-metric" if metric else ""))
        os.makedirs(results)
        args = ["run", "app", "--cmd", prog, "--backend", "futex-private",
                "--algo", "mutex3", "--reps", "3", "--duration", "0.5",
                "--results", results]
        if metric:
            args += ["--metric", metric]
        st, out, err = run(fl, args, tmp)
        problems = [] if st == 0 else ["exit %s: %r" % (st, err[-300:])]
        header = [line for line in out.splitlines()
                  if line.startswith("app ")]
        if not header:
            problems.append("no cell printed: %r" % out[-300:])
        for line in header:
            if "threads=" in line:
                problems.append("a thread count the program does not "
                                "have: %r" % line)
            if not metric and "metric=none" not in line:
                problems.append("no --metric, but %r" % line)
        want = "(--metric '%s')" % metric if metric else "(wall time)"
        if want not in out:
            problems.append("the figure does not say %r: %r"
                            % (want, out[-400:]))
        for noise in ("runs/s", "n/e"):
            if noise in out:
                problems.append("prints %r: %r" % (noise, out[-400:]))
        check("run app%s: the figure says which, no thread count, rate "
              "or withheld percentiles" % (" --metric" if metric else ""),
              problems)


def suite_main(name, tests):
    """Parse --builddir/--futexlab, run each test(fl, tmp) in one
    temporary folder, print `NAME: N passed, N failed`: the status."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--futexlab", help="the binary (default BUILDDIR's)")
    a = ap.parse_args()
    fl = os.path.abspath(a.futexlab or os.path.join(a.builddir,
                                                    "futexlab"))
    tmp = tempfile.mkdtemp(prefix="fl-%s-" % name)
    try:
        for test in tests:
            test(fl, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %d passed, %d failed" % (name, tu.passed, tu.failed))
    return 1 if tu.failed else 0


def main():
    return suite_main("newcomer_output", (
        test_progress, test_report_numbers, test_report_notes, test_flags,
        test_docs, test_estimate, test_not_a_run, test_help_and_notes,
        test_app_output))


if __name__ == "__main__":
    sys.exit(main())
