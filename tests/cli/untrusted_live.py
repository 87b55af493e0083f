"""test_untrusted.py's cases against a live futexlab: its stdout closed
under it (| head), SIGHUP, a full file system, and a matrix killed while
a visit runs and resumed at once. Each returns (golden line or None,
problems)."""

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from test_cli import children

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def closed_after(futexlab, args, lines):
    """futexlab ARGS with its stdout closed after `lines` lines (| head):
    (exit status, stderr), or None when it still ran 60 s later."""
    p = subprocess.Popen([futexlab] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    for _ in range(lines):
        p.stdout.readline()
    p.stdout.close()
    try:
        err = p.communicate(timeout=60)[1]
        return p.returncode, err
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def pipe_case(futexlab, name, args, lines):
    """The command's stdout closed after `lines` lines (| head)."""
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        got = closed_after(futexlab, args + ["--results", results], lines)
        if got is None:
            return None, ["still running 60 s after its reader left"]
        rc, err = got
        first = (err.splitlines() or [""])[-1].replace(results, "@RESULTS@")
        first = first.split(".partial-")[0] + ".partial-..."
        # how far it got before the write failed varies
        first = re.sub(r"after \d+ of \d+", "after N of M", first)
        return "%s: %d: %s" % (name, rc, first), []
    finally:
        shutil.rmtree(results, ignore_errors=True)


def run_head_case(futexlab):
    """A run whose stdout closes after one line (| head -1): it prints
    its summaries once the run directory is finished, so whether the
    write fails depends on how fast the reader leaves; either way the
    run directory is complete, and a failed write says so."""
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    problems = []
    try:
        got = closed_after(futexlab, [
            "run", "mutex", "--threads", "1,2", "--duration", "0.1",
            "--reps", "1", "--warmup", "0", "--results", results], 1)
        if got is None:
            return None, ["still running 60 s after its reader left"]
        rc, err = got
        last = (err.splitlines() or [""])[-1]
        runs = os.listdir(results)
        if rc not in (0, 1):
            problems.append("exit %d: %s" % (rc, last))
        if rc == 1 and not re.search(
                r"cannot write the summary: Broken pipe; the run is "
                r"complete in \S+/\d{8}T\d{6}Z-", last):
            problems.append("the failed write not said: %r" % last)
        if len(runs) != 1 or runs[0].startswith(".") or not \
                os.path.exists(os.path.join(results, runs[0], "meta.json")):
            problems.append("no complete run directory: %s" % runs)
        return "run-head: the run directory complete, a failed summary " \
            "said", problems
    finally:
        shutil.rmtree(results, ignore_errors=True)


def sighup_case(futexlab):
    results = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        p = subprocess.Popen([futexlab, "run", "mutex", "--duration", "5",
                              "--reps", "3", "--warmup", "0", "--results",
                              results], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
        deadline = time.monotonic() + 20
        while not any(e.startswith(".partial-") for e in os.listdir(results)):
            if time.monotonic() > deadline:
                p.kill()
                return None, ["no .partial-* directory appeared"]
            time.sleep(0.02)
        time.sleep(0.3)
        p.send_signal(signal.SIGHUP)
        err = p.communicate(timeout=30)[1]
        last = (err.splitlines() or [""])[-1].split(" in ")[0]
        return "sighup-run: %d: %s" % (p.returncode, last), []
    finally:
        shutil.rmtree(results, ignore_errors=True)


def disk_full_case(futexlab):
    """A run on a full file system: stopped at the first failed write."""
    mnt = tempfile.mkdtemp(prefix="fl-untrusted-full-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                       mnt], capture_output=True).returncode:
        os.rmdir(mnt)
        print("note disk-full: cannot mount a small tmpfs (not root?): "
              "not tried")
        return "disk-full-run: not tried", []
    try:
        # one page left: cells.csv's header fits, the first histogram not
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\0" * (60 * 1024))
        r = subprocess.run([futexlab, "run", "mutex", "--threads", "1,2",
                            "--duration", "0.05", "--reps", "1", "--warmup",
                            "0", "--results", os.path.join(mnt, "res")],
                           capture_output=True, text=True, timeout=60,
                           cwd=ROOT)
        lines = [re.sub(r"\.partial-[^/ ]*", ".partial-X",
                        l.replace(mnt, "@MNT@"))
                 for l in r.stderr.splitlines()[1:]]
        return "disk-full-run: %d: %s" % (r.returncode,
                                          " / ".join(lines)), []
    finally:
        subprocess.run(["umount", mnt])
        os.rmdir(mnt)


def alive(pid):
    """pid runs (a zombie that no one reaps is dead)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def orphan_case(futexlab):
    """A matrix killed by SIGKILL while a visit runs, resumed at once
    (item 9): the visit's child holds no descriptor of the run directory,
    whose flock would otherwise outlive its parent until the child had
    died too, so the resume is not refused as 'being written'; and the
    child dies with its parent (PR_SET_PDEATHSIG), long before its 5 s
    visit would have ended. The resume is interrupted once it started."""
    top = tempfile.mkdtemp(prefix="fl-untrusted-")
    try:
        ini = os.path.join(top, "m.ini")
        with open(ini, "w") as f:
            f.write("[defaults]\nduration = 5\nwarmup = 0\nreps = 1\n"
                    "[experiment m]\nworkload = mutex\nthreads = 1,2\n")
        results = os.path.join(top, "results")
        p = subprocess.Popen([futexlab, "matrix", ini, "--results",
                              results], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=top)
        deadline = time.monotonic() + 30
        kids, partial = [], None
        while not kids and time.monotonic() < deadline:
            time.sleep(0.01)
            kids = children(p.pid)
            partial = (glob.glob(os.path.join(results, ".partial-*")) or
                       [None])[0]
        if not kids or not partial:
            p.kill()
            p.wait()
            return None, ["no visit started within 30 s"]
        # once the visit measures (its threads started), the child is
        # past everything it does before the measurement
        while time.monotonic() < deadline and any(
                len(os.listdir("/proc/%d/task" % k)) < 2
                for k in kids if alive(k)):
            time.sleep(0.01)
        problems = []
        for kid in kids:
            try:
                fds = os.listdir("/proc/%d/fd" % kid)
            except OSError:
                continue
            for fd in fds:
                try:
                    target = os.readlink("/proc/%d/fd/%s" % (kid, fd))
                except OSError:
                    continue
                if target != os.path.realpath(partial):
                    continue
                # an open of the directory is fine (a program's output is
                # kept through it); the parent's, which holds the lock,
                # is not: the kernel lists a file's flock in its fdinfo
                try:
                    with open("/proc/%d/fdinfo/%s" % (kid, fd)) as f:
                        locked = "FLOCK" in f.read()
                except OSError:
                    continue
                if locked:
                    problems.append("the visit's child %d holds the run "
                                    "directory's lock (fd %s)" % (kid, fd))
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        gone = time.monotonic() + 3
        while any(alive(k) for k in kids) and time.monotonic() < gone:
            time.sleep(0.01)
        problems += ["the visit's child %d outlived its killed parent" % k
                     for k in kids if alive(k)]
        r = subprocess.Popen([futexlab, "matrix", "--resume", partial],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=top)
        first = r.stderr.readline().strip()
        if r.poll() is None:
            r.send_signal(signal.SIGINT)
        r.communicate(timeout=60)
        first = re.sub(r"\d+ of \d+", "N of M", first.replace(partial,
                                                           "@PARTIAL@"))
        return "orphan-resume: %d: %s" % (r.returncode, first), problems
    finally:
        shutil.rmtree(top, ignore_errors=True)
