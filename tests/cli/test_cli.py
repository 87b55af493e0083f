#!/usr/bin/env python3
"""Golden tests of futexlab's command line.

  tests/cli/test_cli.py --builddir build [--update]

Bad input: each tests/cli/golden/NAME.cmd holds the arguments of one bad
command (shell words; @RESULTS@ is a fresh empty temporary directory) and
a line `# names: VALUE`, the bad value its error must name; NAME.stderr
holds the exact error line expected (@BACKENDS@ stands for the backend
list, which grows as backends are added). The command must exit 2, print
that one line on stderr and nothing on stdout, and leave the results
directory empty: no run directory, no .partial-* either. --update rewrites
the .stderr files from what the binary prints now (review the diff).

Then: --help and --version exit 0 everywhere; `list --json` parses and
names every backend and workload configure.py builds, every option with
the forms of value it takes (numa's node, node set and distance, each
with an example, which the text `list` shows too); a tiny good run
writes a complete run directory and prints its path last, and a copy of
it whose cpus column lists more CPUs than a cell may have threads, or
fewer than its threads, is refused by report with one line; and a run
interrupted by SIGINT (exit 130) or killed by SIGKILL leaves nothing under
a final name; the machines of topology.py (the distance table, list
--topology, matrix --estimate). Ends with `cli: N passed, N failed`.
"""

import argparse
import csv
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # topology.py leaves no __pycache__
from topology import topology_cases  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "golden")
TIMEOUT = 60

passed = 0
failed = 0


_last = [time.monotonic()]


def check(name, problems):
    """Record one case: problems is a list of what went wrong."""
    global passed, failed
    took = time.monotonic() - _last[0]
    _last[0] = time.monotonic()
    if problems:
        failed += 1
        print("FAIL %s (%.1f s)" % (name, took))
        for p in problems:
            print("     %s" % p)
    else:
        passed += 1
        print("ok   %s (%.1f s)" % (name, took))
    sys.stdout.flush()


def run(cmd, timeout=TIMEOUT):
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None


def entries(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def final_entries(path):
    """What an interrupted run must never leave: names not hidden."""
    return [e for e in entries(path) if not e.startswith(".")]


def list_json(futexlab):
    r = run([futexlab, "list", "--json"])
    if r is None or r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def bad_input_cases(futexlab, backends, update):
    names = sorted(os.path.basename(p)[:-4]
                   for p in glob.glob(os.path.join(GOLDEN, "*.cmd")))
    if not names:
        check("golden files", ["no tests/cli/golden/*.cmd found"])
    backend_list = ", ".join(backends)
    for name in names:
        problems = []
        results = tempfile.mkdtemp(prefix="fl-cli-")
        try:
            names = []
            text = ""
            with open(os.path.join(GOLDEN, name + ".cmd")) as f:
                for line in f:
                    if line.startswith("# names:"):
                        names.append(line.split(":", 1)[1].strip())
                    elif not line.startswith("#"):
                        text += line
            words = shlex.split(text)
            argv = [futexlab] + [w.replace("@RESULTS@", results)
                                 for w in words]
            golden_path = os.path.join(GOLDEN, name + ".stderr")
            r = run(argv)
            if r is None:
                check("bad input " + name, ["timed out: %s"
                                             % shlex.join(argv)])
                continue
            got = r.stderr.replace(results, "@RESULTS@")
            if backend_list:
                got = got.replace(backend_list, "@BACKENDS@")
            if update:
                with open(golden_path, "w") as f:
                    f.write(got)
            with open(golden_path) as f:
                want = f.read()
            if r.returncode != 2:
                problems.append("exit status %d, expected 2"
                                % r.returncode)
            if got.count("\n") != 1 or not got.endswith("\n"):
                problems.append("stderr is not exactly one line: %r"
                                % r.stderr)
            if got != want:
                problems.append("stderr %r, golden %r" % (got, want))
            for bad in names:
                if bad not in r.stderr:
                    problems.append("the error does not name %r" % bad)
            if not names:
                problems.append("%s.cmd has no '# names: VALUE' line"
                                % name)
            if r.stdout:
                problems.append("stdout not empty: %r" % r.stdout[:200])
            left = entries(results)
            if left:
                problems.append("left in the results directory: %s"
                                % ", ".join(left))
            if problems:
                problems.insert(0, "command: %s" % shlex.join(argv))
            check("bad input " + name, problems)
        finally:
            shutil.rmtree(results, ignore_errors=True)


def help_and_version(futexlab):
    for args, want in [(["--help"], "usage"),
                       (["--version"], None),
                       (["run", "--help"], "usage"),
                       (["run", "--version"], None),
                       (["run", "mutex", "--help"], "--critical"),
                       (["list", "--help"], None),
                       (["list", "--version"], None)]:
        problems = []
        r = run([futexlab] + args)
        if r is None:
            problems.append("timed out")
        else:
            if r.returncode != 0:
                problems.append("exit status %d: %s"
                                % (r.returncode, r.stderr.strip()))
            if not r.stdout.strip():
                problems.append("printed nothing on stdout")
            if "--version" in args and not re.match(
                    r"futexlab \d+\.\d+\.\d+", r.stdout):
                problems.append("version line %r" % r.stdout.strip())
            if want and want not in r.stdout:
                problems.append("stdout lacks %r" % want)
        check("futexlab " + " ".join(args), problems)


def configured_names():
    """What configure.py builds: the lists list --json must show."""
    sys.path.insert(0, ROOT)
    try:
        import configure
    except Exception as e:  # noqa: BLE001 - report any import failure
        return None, None, str(e)
    return ([b[0] for b in configure.BACKENDS], list(configure.WORKLOADS),
            None)


def list_case(doc):
    problems = []
    if doc is None:
        check("list --json", ["does not exit 0 with valid JSON"])
        return
    backends, workloads, err = configured_names()
    if err:
        problems.append("cannot read configure.py: %s" % err)
    listed_b = [b.get("name") for b in doc.get("backends", [])]
    # a workload's file name spells with '_' what its name spells with '-'
    listed_w = [w.get("name", "").replace("-", "_")
                for w in doc.get("workloads", [])]
    for b in backends or []:
        if b not in listed_b:
            problems.append("backend %s is built but not listed" % b)
    for w in workloads or []:
        if w not in listed_w:
            problems.append("workload %s is built but not listed" % w)
    for b in doc.get("backends", []):
        if not isinstance(b.get("available"), bool):
            problems.append("backend %s: no true/false 'available'"
                            % b.get("name"))
        elif not b["available"] and not b.get("reason"):
            problems.append("backend %s unavailable without a reason"
                            % b.get("name"))
    check("list --json", problems)


FORM_KEYS = ("name", "syntax", "example", "help")
# what numa's coded options take besides their named values
NUMA_FORMS = {"cpu-nodes": ["node", "node set"],
              "mem-node": ["node", "distance"]}


def option_forms(doc):
    """{(workload, option): forms} of list --json, and its problems."""
    got, problems = {}, []
    for w in doc.get("workloads", []):
        for o in w.get("options", []):
            forms = o.get("forms")
            where = "%s --%s" % (w.get("name"), o.get("name"))
            if not isinstance(forms, list):
                problems.append("%s: forms %r is not a list" % (where, forms))
                continue
            for f in forms:
                if not isinstance(f, dict) or not all(
                        isinstance(f.get(k), str) and f[k]
                        for k in FORM_KEYS):
                    problems.append("%s: form %r lacks one of %s"
                                    % (where, f, ", ".join(FORM_KEYS)))
            got[(w.get("name"), o.get("name"))] = forms
    return got, problems


def list_forms_case(futexlab, doc):
    """The grammar of numa's --cpu-nodes and --mem-node, in the JSON and
    in the text: each form with its example."""
    if doc is None:
        check("list: option forms", ["no list --json"])
        return
    got, problems = option_forms(doc)
    r = run([futexlab, "list"])
    text = r.stdout if r is not None and r.returncode == 0 else ""
    if not text:
        problems.append("list does not exit 0")
    for opt, names in sorted(NUMA_FORMS.items()):
        forms = got.get(("numa", opt)) or []
        if [f.get("name") for f in forms] != names:
            problems.append("numa --%s: forms %r, want %r"
                            % (opt, [f.get("name") for f in forms], names))
        line = [x for x in text.splitlines()
                if x.strip().startswith("--%s " % opt)]
        for f in forms:
            if not line or "e.g. %s" % f.get("example") not in line[0]:
                problems.append("list's text for --%s does not show %s's "
                                "example %r: %r" % (opt, f.get("name"),
                                                    f.get("example"), line))
    check("list: option forms", problems)


def set_cpus(run_dir, cpus):
    """Every row's cpus field set to cpus."""
    path = os.path.join(run_dir, "cells.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    at = rows[0].index("cpus")
    for row in rows[1:]:
        row[at] = cpus
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def hostile_cpus(futexlab):
    """A run's cpus column with a CPU for more threads than a cell may
    have, or for fewer than its threads: report refuses it, one line."""
    results = tempfile.mkdtemp(prefix="fl-cli-")
    try:
        r = run([futexlab, "run", "mutex", "--backend", "futex-private",
                 "--threads", "2", "--duration", "0.1", "--reps", "1",
                 "--warmup", "0", "--results", results])
        lines = r.stdout.strip().splitlines() if r is not None else []
        if r is None or r.returncode != 0 or not lines:
            check("hostile cpus column", ["the run to spoil failed: %s"
                                          % (r and r.stderr.strip())])
            return
        for name, cpus, want in (
                ("4097 CPUs", ",".join(["0"] * 4097),
                 "lists 4097 CPUs: a cell has at most 4096 threads"),
                ("1 CPU for 2 threads", "0",
                 "lists 1 CPU for 2 threads")):
            problems = []
            spoiled = os.path.join(results, "spoiled")
            shutil.rmtree(spoiled, ignore_errors=True)
            shutil.copytree(lines[-1], spoiled)
            set_cpus(spoiled, cpus)
            r = run([futexlab, "report", spoiled])
            if r is None:
                problems.append("timed out")
            else:
                err = r.stderr.splitlines()
                if r.returncode != 2:
                    problems.append("exit status %d, want 2"
                                    % r.returncode)
                if len(err) != 1 or want not in err[0] or \
                        "cpus" not in err[0]:
                    problems.append("stderr %r, want one line naming "
                                    "cpus with %r" % (err, want))
                if os.path.exists(os.path.join(spoiled, "report.md")):
                    problems.append("report.md written")
            check("hostile cpus column: " + name, problems)
    finally:
        shutil.rmtree(results, ignore_errors=True)


def nothing_ran(futexlab):
    """A run whose every cell is skipped exits 3, not 0: lock-pi needs PI,
    which spin has on no machine."""
    problems = []
    results = tempfile.mkdtemp(prefix="fl-cli-")
    try:
        r = run([futexlab, "run", "lock-pi", "--backend", "spin",
                 "--duration", "0.1", "--reps", "1", "--warmup", "0",
                 "--results", results])
        if r is None:
            problems.append("timed out")
        else:
            if r.returncode != 3:
                problems.append("exit status %d, want 3 (no cell ran)"
                                % r.returncode)
            if "no cell ran" not in r.stderr:
                problems.append("stderr does not say no cell ran: %r"
                                % r.stderr.strip()[-200:])
    finally:
        shutil.rmtree(results, ignore_errors=True)
    check("a run where no cell ran exits 3", problems)


def good_run(futexlab):
    problems = []
    results = tempfile.mkdtemp(prefix="fl-cli-")
    try:
        r = run([futexlab, "run", "mutex", "--backend", "futex-private",
                 "--threads", "2", "--duration", "0.1", "--reps", "2",
                 "--warmup", "0", "--results", results])
        if r is None:
            check("good run", ["timed out"])
            return
        if r.returncode != 0:
            problems.append("exit status %d: %s" % (r.returncode,
                                                    r.stderr.strip()))
        lines = r.stdout.strip().splitlines()
        run_dir = lines[-1] if lines else ""
        if os.path.dirname(os.path.abspath(run_dir)) != \
                os.path.abspath(results):
            problems.append("last stdout line %r is not a directory in %s"
                            % (run_dir, results))
        elif not os.path.isdir(run_dir):
            problems.append("%s does not exist" % run_dir)
        else:
            with open(os.path.join(run_dir, "cells.csv")) as f:
                rows = list(csv.DictReader(f))
            if len(rows) != 2:
                problems.append("cells.csv has %d rows, expected 2"
                                % len(rows))
            for row in rows:
                if row.get("status") != "ok":
                    problems.append("row status %r: %r"
                                    % (row.get("status"), row.get("reason")))
                elif int(row.get("ops") or 0) <= 0:
                    problems.append("an ok row with ops %r" % row["ops"])
            try:
                with open(os.path.join(run_dir, "meta.json")) as f:
                    meta = json.load(f)
                # what plot and report will know of mutex: it has no plot
                # of its own (tests/unit/test_rundir_plots.c: one that has)
                plots = meta["workloads"]["mutex"].get("plots")
                if plots != {"version": 1, "special": []}:
                    problems.append("meta.json: mutex's plots %r" % plots)
            except (OSError, ValueError, KeyError) as e:
                problems.append("meta.json: %s" % e)
            hidden = [e for e in entries(results) if e.startswith(".")]
            if hidden:
                problems.append("left behind: %s" % ", ".join(hidden))
    finally:
        shutil.rmtree(results, ignore_errors=True)
    check("good run", problems)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def processes_using(path):
    """Pids whose command line mentions path (a run and its cells)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if path.encode() in f.read():
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def interrupted_run(futexlab, sig):
    name = "%s leaves no run directory" % signal.Signals(sig).name
    problems = []
    orphans = []
    results = tempfile.mkdtemp(prefix="fl-cli-")
    # files, not pipes: a surviving child holding a pipe open would make
    # reading it wait for the child, hiding that it survived
    errfile = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([futexlab, "run", "mutex", "--backend",
                             "futex-private", "--threads", "2",
                             "--duration", "5", "--reps", "3",
                             "--warmup", "0", "--results", results],
                            stdout=subprocess.DEVNULL, stderr=errfile,
                            cwd=ROOT)
    try:
        # interrupt it mid-cell: its run directory is open and a cell's
        # child process is running
        deadline = time.monotonic() + 20
        while not (any(e.startswith(".partial-") for e in entries(results))
                   and children(proc.pid)):
            if proc.poll() is not None or time.monotonic() > deadline:
                problems.append("no .partial-* directory and cell process "
                                "appeared")
                break
            time.sleep(0.01)
        else:
            os.kill(proc.pid, sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            problems.append("still running 30 s after the signal")
        errfile.seek(0)
        err = errfile.read()
        if sig == signal.SIGINT and proc.returncode != 130:
            problems.append("exit status %d, expected 130"
                            % proc.returncode)
        if sig == signal.SIGKILL and proc.returncode != -signal.SIGKILL:
            problems.append("exit status %d, expected death by SIGKILL"
                            % proc.returncode)
        left = final_entries(results)
        if left:
            problems.append("a directory under a final name: %s"
                            % ", ".join(left))
        # the cell's child process must die with the run, not go on
        # measuring for nobody (a killed parent cannot kill it: the
        # child must ask for that itself, e.g. PR_SET_PDEATHSIG)
        deadline = time.monotonic() + 3
        while processes_using(results) and time.monotonic() < deadline:
            time.sleep(0.05)
        stray = processes_using(results)
        if stray:
            orphans.append("cell processes %s still running 3 s after "
                           "the run ended" % stray)
            for pid in stray:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        left = final_entries(results)
        if left:
            problems.append("a directory under a final name appeared "
                            "later: %s" % ", ".join(left))
        if problems and err:
            problems.append("stderr: %s" % err.strip()[-300:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errfile.close()
        shutil.rmtree(results, ignore_errors=True)
    check(name, problems)
    check("%s ends the cell processes too" % signal.Signals(sig).name,
          orphans)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the golden .stderr files")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    if not os.access(futexlab, os.X_OK):
        print("FAIL %s is not built" % futexlab)
        print("cli: 0 passed, 1 failed")
        return 1
    doc = list_json(futexlab)
    backends = [b["name"] for b in (doc or {}).get("backends", [])]
    bad_input_cases(futexlab, backends, args.update)
    help_and_version(futexlab)
    list_case(doc)
    list_forms_case(futexlab, doc)
    good_run(futexlab)
    hostile_cpus(futexlab)
    topology_cases(futexlab, run, check)
    nothing_ran(futexlab)
    interrupted_run(futexlab, signal.SIGINT)
    interrupted_run(futexlab, signal.SIGKILL)
    print("cli: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
