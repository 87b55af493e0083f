#!/usr/bin/env python3
"""Resuming a partial directory that says what to run (docs/matrix.md,
"What a resume checks"):

- an `app` run's partial whose matrix.json names another command (its
  rows cut so no row betrays the swap): `run --resume DIR` names the
  command in one line and exits 2, running nothing; with --yes, or with
  --cmd naming that command again, it runs; another --cmd is refused;
- a matrix partial whose matrix.ini was made an `app` matrix (its hash
  in matrix.json to match, its source gone): the same, with --yes or
  the matrix file named on the command line;
- a partial folder, matrix.json or matrix.ini owned by another user or
  writable by others: refused before it is read, saying how to override;
- a pass list that gives a cell more visits than its repetitions allow,
  names a cell twice in one pass or names none of the matrix's: refused
  before any visit, the directory unchanged (300 and 100,000 passes).

A refused resume changes nothing in the partial directory and creates
nothing beside it; no command runs (no CANARY file appears) unless the
user said so.

  tests/cli/test_resume_untrusted.py --builddir build [-k NAME] [-v]
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import partials as pt  # noqa: E402
import runs  # noqa: E402
from runs import check  # noqa: E402

# an app matrix whose one cell runs CMD (written in by the test)
APP_INI = """\
[defaults]
duration = 0.05
warmup = 0
reps = 2
seed = 1

[experiment a]
workload = app
backend = futex-private
threads = 1
cmd = %s
"""


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def snapshot(top):
    """Every path under top: its kind, mode, owner and content."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files + ["."]:
            path = os.path.join(d, n)
            st = os.lstat(path)
            content = None
            if os.path.islink(path):
                content = os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    content = f.read()
            out[os.path.relpath(path, top)] = (st.st_mode, st.st_uid,
                                               content)
    return out


def resume(args, cwd, timeout=60):
    return subprocess.run([runs.FL] + args, capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def refused(r, partial, before, what, canary=None):
    """Exit 2, one line holding what, the partial as it was, no command
    run."""
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and what in lines[0],
          "expected exit 2 and one line with %r, got %d: %r"
          % (what, r.returncode, r.stderr[-1500:]))
    check(snapshot(os.path.dirname(partial)) == before,
          "a refused resume changed %s" % os.path.dirname(partial))
    if canary:
        check(not os.path.exists(canary), "the command ran: %s" % canary)


def ran(r, canary, cmd, how):
    """The confirmed resume ran the command, and said what it ran."""
    check(r.returncode == 0 and os.path.exists(canary),
          "%s did not run it: %d %r" % (how, r.returncode, r.stderr[-1500:]))
    check(cmd in r.stderr, "%s: the resume does not show what it runs: %r"
          % (how, r.stderr[-1500:]))
    os.remove(canary)


def cut_to_header(d):
    head, _ = pt.read_rows(d)
    pt.write_rows(d, head, [])
    for folder in ("hist", "bins"):
        shutil.rmtree(os.path.join(d, folder), ignore_errors=True)


# ------------------------------------------------------------ a run's

def app_run_partial(tmp):
    """A real `run app` partial: a run interrupted after its first pass
    was recorded."""
    res = os.path.join(tmp, "results")
    p = subprocess.Popen([runs.FL, "run", "app", "--cmd", "sleep 0.2",
                          "--reps", "6", "--duration", "0.1", "--warmup",
                          "0", "--results", res], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    partial = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            found = [d for d in os.listdir(res) if d.startswith(".partial")] \
                if os.path.isdir(res) else []
            if found and os.path.exists(os.path.join(res, found[0],
                                                     "matrix.json")):
                partial = os.path.join(res, found[0])
                if pt.state_of(partial).get("passes"):
                    break
            time.sleep(0.05)
        check(p.poll() is None and partial, "run app ended or wrote no "
              "partial in 60 s")
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=30)
    return partial


def swap_command(partial, cmd):
    """A swapped command: run_argv's --cmd swapped, no passes, no rows."""
    state = pt.state_of(partial)
    argv = state["run_argv"]
    argv[argv.index("--cmd") + 1] = cmd
    state["passes"] = []
    state["visit_start"] = {}
    pt.set_state(partial, state)
    cut_to_header(partial)


def test_run_resume_names_the_command(tmp):
    partial = app_run_partial(tmp)
    canary = os.path.join(tmp, "CANARY")
    cmd = "touch %s" % canary
    swap_command(partial, cmd)
    spare = os.path.join(tmp, "spare")
    shutil.copytree(partial, spare)
    before = snapshot(os.path.dirname(partial))
    r = resume(["run", "--resume", partial], tmp)
    refused(r, partial, before, "'%s'" % cmd, canary)
    check("--yes" in r.stderr, "the refusal does not say how to confirm: "
          "%r" % r.stderr)
    r = resume(["run", "--resume", partial, "--cmd", "touch /elsewhere"],
               tmp)
    refused(r, partial, before, "'%s'" % cmd, canary)
    r = resume(["run", "--resume", partial, "--cmd", cmd, "--cmd", cmd], tmp)
    refused(r, partial, before, "--cmd given twice", canary)
    # named again: it runs
    r = resume(["run", "--resume", partial, "--cmd", cmd], tmp)
    ran(r, canary, cmd, "--cmd naming the command")
    # or confirmed by --yes
    shutil.rmtree(os.path.dirname(partial))
    os.makedirs(os.path.dirname(partial))
    shutil.copytree(spare, partial)
    ran(resume(["run", "--resume", partial, "--yes"], tmp), canary, cmd,
        "--yes")


def untrusted_spoils(files):
    """(spoil, what the refusal says): the folder or a file of it
    writable by others or its group, or (as root) another user's."""
    out = [(lambda d: os.chmod(d, 0o757), "writable by others")]
    for f in files:
        out += [(lambda d, f=f: os.chmod(os.path.join(d, f), 0o646),
                 "writable by others"),
                (lambda d, f=f: os.chmod(os.path.join(d, f), 0o664),
                 "writable by its group")]
    if os.geteuid() == 0:
        out.append((lambda d: os.chown(d, 65534, 65534),
                    "owned by uid 65534"))
        for f in files:
            out.append((lambda d, f=f: os.chown(os.path.join(d, f), 65534,
                                                65534), "owned by uid 65534"))
    return out


def refuses_untrusted(tmp, template, command, files):
    """Each spoil of untrusted_spoils() on a fresh copy of template:
    refused, even with --yes, saying how to override."""
    for spoil, what in untrusted_spoils(files):
        partial = fresh_copy(template, tmp)
        spoil(partial)
        before = snapshot(os.path.dirname(partial))
        r = resume([command, "--resume", partial, "--yes"], tmp)
        refused(r, partial, before, what)
        check("chown" in r.stderr or "chmod" in r.stderr,
              "the refusal does not say how to override: %r" % r.stderr)


def test_run_resume_untrusted_owner(tmp):
    refuses_untrusted(tmp, app_run_partial(tmp), "run", ["matrix.json"])


# ------------------------------------------------------------ a matrix's

def matrix_template(tmp):
    t = pt.template(runs.FL, tmp, tmp)
    check(t, "futexlab matrix failed on partials.TINY")
    return t[0]


def fresh_copy(template, tmp, name="lab"):
    results = os.path.join(tmp, name, "results")
    if os.path.exists(os.path.dirname(results)):
        shutil.rmtree(os.path.dirname(results))
    os.makedirs(results)
    partial = os.path.join(results, os.path.basename(template))
    shutil.copytree(template, partial, symlinks=True)
    return partial


def make_app_matrix(partial, cmd, source):
    """An app matrix.ini running cmd, its hash in
    matrix.json, its source elsewhere; no passes, no rows."""
    text = (APP_INI % cmd).encode()
    with open(os.path.join(partial, "matrix.ini"), "wb") as f:
        f.write(text)
    state = pt.state_of(partial)
    state.update(fnv1a64=fnv1a64(text), source=source, passes=[],
                 visit_start={})
    pt.set_state(partial, state)
    cut_to_header(partial)
    return text


def test_matrix_resume_names_the_command(tmp):
    template = matrix_template(tmp)
    canary = os.path.join(tmp, "CANARY")
    cmd = "touch %s" % canary
    partial = fresh_copy(template, tmp)
    text = make_app_matrix(partial, cmd, os.path.join(tmp, "gone.ini"))
    before = snapshot(os.path.dirname(partial))
    r = resume(["matrix", "--resume", partial], tmp)
    refused(r, partial, before, "'%s'" % cmd, canary)
    # the user names the matrix file: it runs
    named = runs.write(os.path.join(tmp, "app.ini"), text.decode())
    ran(resume(["matrix", "--resume", partial, named], tmp), canary, cmd,
        "naming the matrix file")
    partial = fresh_copy(template, tmp)
    make_app_matrix(partial, cmd, os.path.join(tmp, "gone.ini"))
    ran(resume(["matrix", "--resume", partial, "--yes"], tmp), canary, cmd,
        "--yes")


def test_matrix_resume_untrusted_owner(tmp):
    refuses_untrusted(tmp, matrix_template(tmp), "matrix",
                      ["matrix.json", "matrix.ini"])


def add_passes(passes):
    def spoil(partial):
        state = pt.state_of(partial)
        state["passes"] += passes
        pt.set_state(partial, state)
    return spoil


def set_passes(passes):
    def spoil(partial):
        state = pt.state_of(partial)
        state["passes"] = passes
        pt.set_state(partial, state)
    return spoil


def test_matrix_resume_bad_passes(tmp):
    """TINY: 4 cells of reps = 2, planned in 2 passes."""
    template = matrix_template(tmp)
    for name, spoil, what in (
            ("300 passes", add_passes([[0, 1, 2, 3]] * 300),
             "gives cell"),
            ("100,000 passes", add_passes([[0, 1, 2, 3]] * 100000),
             "gives cell"),
            ("a third visit", add_passes([[2]]), "gives cell 2"),
            ("a cell twice", set_passes([[3, 3]]), "names cell 3 twice"),
            ("no such cell", add_passes([[4]]), "names no cell")):
        partial = fresh_copy(template, tmp)
        spoil(partial)
        before = snapshot(os.path.dirname(partial))
        r = resume(["matrix", "--resume", partial], tmp)
        check(not any(line.startswith("[") for line in
                      r.stdout.splitlines()),
              "%s: a visit ran: %r" % (name, r.stdout[:500]))
        refused(r, partial, before, what)


TESTS = [test_run_resume_names_the_command, test_run_resume_untrusted_owner,
         test_matrix_resume_names_the_command,
         test_matrix_resume_untrusted_owner, test_matrix_resume_bad_passes]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "resume_untrusted"))
