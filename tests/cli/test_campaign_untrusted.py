#!/usr/bin/env python3
"""Campaign folders as an adversary makes them.

  tests/cli/test_campaign_untrusted.py --builddir build [-k NAME] [-v]

  create_checks  every flag, side and matrix key is checked before anything
                 is made: a bad or missing --matrix, a misspelt or bad
                 set= (named with its side), set= twice, a sysctl key with
                 "." in its path or with no file, a bin= missing, not
                 executable, a FIFO or a folder; a folder that is a run,
                 inside a run, not empty, or writable by others: exit 2,
                 one line, nothing created, the run's matrix.ini as it was
  gate           resuming a campaign whose manifest names a vm/run script
                 (kernel= side), whose side's build is a script, or whose
                 copy of this futexlab is not this futexlab: one line
                 naming it, exit 2, the script never run; --yes runs it;
                 an untouched campaign resumes without --yes
  links          a matrix-SIDE.ini, builds/SIDE/futexlab or builds/SIDE
                 that is a link is refused, --yes or not, nothing run
  foreign        a run of another matrix at runs/NN-SIDE or under work/NN,
                 one of another futexlab build for a side that runs this
                 one, and a copy of a finished run in another slot
                 (recorded or not): refused naming it, nothing deleted
  trust          a campaign folder owned by another user (as root: a copy
                 chowned to 65534), or a folder or manifest or matrix that
                 others may write: refused, saying how to override
  sysctl         (in a network namespace of its own, unshare -n) a side's
                 sysctl=net.ipv4.ip_default_ttl=99: the old value is in the
                 manifest before the change; after a SIGKILL of the
                 campaign a resume while its run goes on says to wait,
                 --restore puts 64 back and runs nothing, and the resume
                 finishes with 64 in place
Each case runs in a fresh temporary folder; a script planted to be run
writes a CANARY file, which must never appear unless --yes was given.
Ends with `campaign_untrusted: N passed, N failed[, N skipped]`.
"""

import fcntl
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import Skip, check, fl  # noqa: E402

# one cell, one thread, two visits of 0.01 s: a run in half a second
TINY = """[defaults]
duration = 0.01
warmup = 0
reps = 2
seed = 1
backend = futex-private
threads = %d

[experiment x]
workload = mutex
"""


def tree(top):
    """Every path under top with its kind and, for files, its bytes."""
    out = {}
    for d, dirs, files in os.walk(top):
        for f in dirs + files:
            p = os.path.join(d, f)
            if os.path.islink(p):
                out[p] = "link " + os.readlink(p)
            elif os.path.isfile(p):
                out[p] = open(p, "rb").read()
            else:
                out[p] = "other"
    return out


def refused(args, what, keep, gone=None):
    """futexlab ARGS exits 2 with one stderr line naming `what`, changes
    nothing under keep, and leaves `gone` (a path) absent."""
    before = tree(keep)
    r = fl(*args)
    lines = r.stderr.strip().splitlines()
    name = " ".join(a.replace(keep, "") for a in args)
    check(r.returncode == 2, "%s: exit %d, want 2 (%s)" %
          (name, r.returncode, r.stderr[-500:]))
    check(len(lines) == 1 and what in lines[0],
          "%s: stderr %r, want one line naming %r" % (name, r.stderr, what))
    check(tree(keep) == before, "%s changed files under %s" % (name, keep))
    if gone:
        check(not os.path.lexists(gone), "%s: %s exists" % (name, gone))
    return lines[0]


def matrix_file(tmp, threads=1, name="tiny.ini"):
    path = os.path.join(tmp, name)
    runs.write(path, TINY % threads)
    return path


def manifest(cdir):
    with open(os.path.join(cdir, "campaign.json")) as f:
        return json.load(f)


def save_manifest(cdir, m):
    runs.write(os.path.join(cdir, "campaign.json"), json.dumps(m, indent=1))


def unfinished(tmp, name="c", sides=("A", "B:set=critical=1050")):
    """A campaign of two rounds (A B B A with seed 1) made whole, then its
    second round taken out, as a kill before it leaves it."""
    cdir = os.path.join(tmp, name)
    args = [cdir, "--matrix", matrix_file(tmp), "--rounds", "2"]
    for s in sides:
        args += ["--side", s]
    fl("campaign", *args, check_rc=0)
    m = manifest(cdir)
    check([s["side"] for s in m["slots"]] == ["A", "B", "B", "A"],
          "the order of seed 1 changed: %r" % m["slots"])
    for s in m["slots"][2:]:
        shutil.rmtree(os.path.join(cdir, s["run"]))
        for k in ("run", "start_time", "matrix_fnv1a64", "host", "kernel",
                  "build"):
            s[k] = ""
    save_manifest(cdir, m)
    return cdir


def script(path, canary):
    runs.write(path, "#!/bin/sh\ntouch '%s'\nexit 0\n" % canary)
    os.chmod(path, 0o755)


def test_create_checks(tmp):
    mfile = matrix_file(tmp)
    new = os.path.join(tmp, "new")
    bad = os.path.join(tmp, "bad.ini")
    runs.write(bad, (TINY % 1) + "critcal = 5\n")
    noexec = os.path.join(tmp, "noexec")
    runs.write(noexec, "x")
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)

    def new_campaign(*sides, matrix=mfile):
        args = ["campaign", new, "--matrix", matrix, "--rounds", "2"]
        for s in sides:
            args += ["--side", s]
        return args

    for args, what in [
            (new_campaign("A", "B", matrix=bad), "bad.ini:11: unknown key "
             "'critcal'"),
            (new_campaign("A", "B", matrix=os.path.join(tmp, "none.ini")),
             "none.ini"),
            (new_campaign("A:set=critcal=1000", "B:set=critcal=1050"),
             "--side A: set=critcal=1000: unknown key 'critcal'"),
            (new_campaign("A", "B:set=nosuchoption=1"),
             "--side B: set=nosuchoption=1: unknown key"),
            (new_campaign("A", "B:set=critical=abc"),
             "--side B: set=critical=abc: critical: 'abc'"),
            (new_campaign("A:set=critical=1,set=think=2", "B"),
             "set= given twice"),
            (new_campaign("A", "B:sysctl=kernel/./x=1"), "not one of"),
            (new_campaign("A", "B:sysctl=kernel.no_such_sysctl=1"),
             "/proc/sys/kernel/no_such_sysctl"),
            (new_campaign("A", "B:bin=" + os.path.join(tmp, "missing")),
             "side B: bin="),
            (new_campaign("A", "B:bin=" + noexec), "not executable"),
            (new_campaign("A", "B:bin=" + fifo), "side B: bin="),
            (new_campaign("A", "B:bin=" + tmp), "side B: bin=")]:
        refused(args, what, tmp, gone=new)

    # an existing run: neither overwritten nor a home for a campaign
    fl("matrix", mfile, "--results", os.path.join(tmp, "results"),
       check_rc=0)
    run = glob.glob(os.path.join(tmp, "results", "*"))[0]
    other = matrix_file(tmp, 2, "other.ini")
    refused(["campaign", run, "--matrix", other, "--side", "A", "--side",
             "B"], "not empty and not a campaign", tmp)
    refused(["campaign", os.path.join(run, "sub"), "--matrix", other,
             "--side", "A", "--side", "B"], "is inside the run", tmp,
            gone=os.path.join(run, "sub"))
    full = os.path.join(tmp, "full")
    os.mkdir(full)
    runs.write(os.path.join(full, "notes.txt"), "mine")
    refused(["campaign", full, "--matrix", mfile, "--side", "A", "--side",
             "B"], "not empty and not a campaign", tmp)
    # an empty folder others may write: refused before anything is made
    shared = os.path.join(tmp, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    refused(["campaign", shared, "--matrix", mfile, "--side", "A", "--side",
             "B"], "writable by others", tmp)
    # an empty folder is fine
    os.mkdir(new)
    r = fl("campaign", new, "--matrix", mfile, "--rounds", "1", "--side",
           "A", "--side", "B")
    check(r.returncode == 0, "an empty folder refused: %s" % r.stderr)
    # each run is named where it ends up, never under work/
    check(not [x for x in (r.stdout + r.stderr).splitlines()
               if x.startswith(os.path.join(new, "work"))] and
          os.path.join(new, "runs", "01-") in r.stderr,
          "the runs' paths: stdout %r, stderr %r" % (r.stdout,
                                                      r.stderr[-500:]))


def test_gate(tmp):
    canary = os.path.join(tmp, "CANARY")
    evil = os.path.join(tmp, "evil.sh")
    script(evil, canary)
    # untouched: its sides run this futexlab, no --yes needed
    cdir = unfinished(tmp, "plain")
    r = fl("campaign", cdir)
    check(r.returncode == 0 and all(s["run"] for s in
                                    manifest(cdir)["slots"]),
          "an untouched campaign did not resume: %s" % r.stderr[-500:])

    # the manifest names a vm/run script for a kernel= side
    cdir = unfinished(tmp, "vm")
    m = manifest(cdir)
    m["vm"] = evil
    m["sides"][1]["kernel"] = "debian"
    save_manifest(cdir, m)
    line = refused(["campaign", cdir], evil, tmp)
    check("--yes" in line, "the refusal does not say --yes: %s" % line)
    check(not os.path.exists(canary), "the vm script ran")

    # a side's own build replaced by a script
    cdir = unfinished(tmp, "bin")
    m = manifest(cdir)
    m["sides"][1]["bin"] = os.path.join(tmp, "old", "futexlab")
    save_manifest(cdir, m)
    target = os.path.join(cdir, "builds", "B", "futexlab")
    os.unlink(target)
    script(target, canary)
    refused(["campaign", cdir], "builds/B/futexlab (side B's build)", tmp)
    check(not os.path.exists(canary), "the side's build ran")

    # a side with no build of its own whose copy is not this futexlab
    cdir = unfinished(tmp, "self")
    target = os.path.join(cdir, "builds", "A", "futexlab")
    os.unlink(target)
    script(target, canary)
    refused(["campaign", cdir], "not this futexlab", tmp)
    check(not os.path.exists(canary), "the copy that is not this futexlab "
          "ran")
    # --yes is the user's say: it runs (and, a script, leaves no run)
    r = fl("campaign", cdir, "--yes")
    check(os.path.exists(canary) and r.returncode == 2,
          "--yes did not run the side's copy: %d %s" % (r.returncode,
                                                         r.stderr))


def test_links(tmp):
    canary = os.path.join(tmp, "CANARY")
    evil = os.path.join(tmp, "evil.sh")
    script(evil, canary)
    other = matrix_file(tmp, 2, "other.ini")
    cdir = unfinished(tmp)
    mb = os.path.join(cdir, "matrix-B.ini")
    saved = open(mb).read()
    os.unlink(mb)
    os.symlink(other, mb)
    refused(["campaign", cdir, "--yes"], "matrix-B.ini", tmp)
    check(len(glob.glob(os.path.join(cdir, "runs", "*"))) == 2,
          "a run ran on the linked matrix")
    os.unlink(mb)
    runs.write(mb, saved)

    def planted(path, target, what):
        """path set aside for a link to target, refused with --yes and
        nothing run, then put back"""
        os.rename(path, path + ".real")
        os.symlink(target, path)
        refused(["campaign", cdir, "--yes"], what, tmp)
        check(not os.path.exists(canary), "ran through the link %s" % path)
        os.unlink(path)
        os.rename(path + ".real", path)

    planted(os.path.join(cdir, "builds", "B", "futexlab"), evil,
            "builds/B/futexlab")
    folder = os.path.join(tmp, "elsewhere")
    os.mkdir(folder)
    shutil.copy(evil, os.path.join(folder, "futexlab"))
    planted(os.path.join(cdir, "builds", "B"), folder, "builds/B")
    r = fl("campaign", cdir)
    check(r.returncode == 0, "mended, it does not resume: %s" %
          r.stderr[-500:])


def test_foreign(tmp):
    other = matrix_file(tmp, 2, "other.ini")
    fl("matrix", other, "--results", os.path.join(tmp, "results"),
       check_rc=0)
    foreign = glob.glob(os.path.join(tmp, "results", "*"))[0]
    cdir = unfinished(tmp)

    # slot 3 is side B's: a run of another matrix put where it goes
    at = os.path.join(cdir, "runs", "03-B")
    shutil.copytree(foreign, at)
    refused(["campaign", cdir], "runs/03-B is not a run of side B's "
            "matrix", tmp)
    shutil.rmtree(at)
    at = os.path.join(cdir, "work", "03", "somerun")
    shutil.copytree(foreign, at)
    refused(["campaign", cdir], "work/03/somerun is not a run of side B's "
            "matrix", tmp)
    shutil.rmtree(os.path.join(cdir, "work", "03"))

    # side B's own run, but as another futexlab build made it
    second = os.path.join(cdir, manifest(cdir)["slots"][1]["run"])
    at = os.path.join(cdir, "work", "03", "older")
    shutil.copytree(second, at)
    meta = json.load(open(os.path.join(at, "meta.json")))
    meta["futexlab_version"] = "0.0.9"
    runs.write(os.path.join(at, "meta.json"), json.dumps(meta))
    refused(["campaign", cdir], "its futexlab build 0.0.9", tmp)
    shutil.rmtree(os.path.join(cdir, "work", "03"))

    # slot 4 is side A's: side A's run of slot 1 copied into it
    m = manifest(cdir)
    first = os.path.join(cdir, m["slots"][0]["run"])
    at = os.path.join(cdir, "work", "04", "copy")
    shutil.copytree(first, at)
    r = fl("campaign", cdir)
    check(r.returncode == 2 and "runs/04-A is " in r.stderr and
          "runs/01-A again" in r.stderr and "counted twice" in r.stderr,
          "a copy of a run taken in as another: %d %s" %
          (r.returncode, r.stderr[-600:]))
    # ... and as the manifest records it, again at every resume
    shutil.rmtree(os.path.join(cdir, "runs", "04-A"), ignore_errors=True)
    shutil.rmtree(os.path.join(cdir, "work", "04"), ignore_errors=True)
    m = manifest(cdir)
    m["slots"][3].update({k: m["slots"][0][k] for k in (
        "start_time", "matrix_fnv1a64", "host", "kernel", "build")},
        run="runs/04-A")
    save_manifest(cdir, m)
    shutil.copytree(first, os.path.join(cdir, "runs", "04-A"))
    for args in (["campaign", cdir], ["compare", cdir, "--no-plot"]):
        refused(args, "runs/01-A again", tmp)
    # ... or reached again through a link
    shutil.rmtree(os.path.join(cdir, "runs", "04-A"))
    os.symlink(first, os.path.join(cdir, "runs", "04-A"))
    for args in (["campaign", cdir], ["compare", cdir, "--no-plot"]):
        refused(args, "runs/04-A", tmp)


def test_trust(tmp):
    cdir = unfinished(tmp)
    if os.geteuid() == 0:
        theirs = os.path.join(tmp, "theirs")
        shutil.copytree(cdir, theirs, symlinks=True)
        for d, dirs, files in os.walk(theirs):
            for f in dirs + files + ["."]:
                os.lchown(os.path.join(d, f), 65534, 65534)
        refused(["campaign", theirs], "owned by uid 65534", tmp)
        os.chown(theirs, 0, 0)
        refused(["campaign", theirs], "campaign.json: owned by uid 65534",
                tmp)
    for path in (cdir, os.path.join(cdir, "campaign.json"),
                 os.path.join(cdir, "matrix-B.ini")):
        mode = os.stat(path).st_mode & 0o7777
        os.chmod(path, mode | 0o002)
        line = refused(["campaign", cdir], "writable by others", tmp)
        check("chmod go-w" in line, "how to override not said: %s" % line)
        os.chmod(path, mode)
    fl("campaign", cdir, check_rc=0)


def netns():
    """A process holding a network namespace of its own, or Skip."""
    if not shutil.which("unshare") or not shutil.which("nsenter"):
        raise Skip("no unshare or nsenter")
    p = subprocess.Popen(["unshare", "-n", "sleep", "600"],
                         stderr=subprocess.PIPE)
    time.sleep(0.2)
    if p.poll() is not None:
        raise Skip("unshare -n: %s" % p.stderr.read().decode()[-200:])
    return p



def partial_locked(cdir):
    """Whether a partial run under cdir/work is locked by its writer."""
    for d in glob.glob(os.path.join(cdir, "work", "*", ".partial-*")):
        try:
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
    return False

def test_sysctl(tmp):
    ns = netns()
    enter = ["nsenter", "-t", str(ns.pid), "-n"]
    ttl_file = "/proc/sys/net/ipv4/ip_default_ttl"
    host_ttl = open(ttl_file).read()

    def ttl():
        return subprocess.run(enter + ["cat", ttl_file], capture_output=True,
                              text=True).stdout.strip()

    def campaign(*args):
        return subprocess.run(enter + [runs.FL, "campaign"] + list(args),
                              capture_output=True, text=True, timeout=120)
    try:
        check(ttl() == "64", "a fresh namespace's ttl is %r" % ttl())
        mfile = os.path.join(tmp, "slow.ini")
        runs.write(mfile, (TINY % 1).replace("duration = 0.01",
                                             "duration = 0.3")
                   .replace("reps = 2", "reps = 8"))
        cdir = os.path.join(tmp, "c")
        p = subprocess.Popen(enter + [runs.FL, "campaign", cdir, "--matrix",
                                      mfile, "--rounds", "1", "--seed", "2",
                                      "--side", "A", "--side",
                                      "B:sysctl=net.ipv4.ip_default_ttl=99"],
                             start_new_session=True,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and ttl() != "99":
            time.sleep(0.05)
        check(ttl() == "99", "side B's sysctl never set")
        # the sysctl is set before side B's run starts: kill the campaign
        # once that run holds its partial's lock, so that the resume
        # meets a run still going, not one yet to begin
        deadline = time.time() + 60
        while time.time() < deadline and not partial_locked(cdir):
            time.sleep(0.02)
        # nsenter execs the campaign: p.pid is the campaign itself
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        saved = manifest(cdir).get("saved")
        check(saved == [{"side": "B", "kind": "sysctl", "value": "64"}],
              "the old value is not in the manifest: %r" % saved)
        r = campaign(cdir, "--yes")
        check(r.returncode == 2 and "wait until it ends" in r.stderr and
              len(r.stderr.strip().splitlines()) == 1,
              "a resume while the killed campaign's run goes on: %d %s" %
              (r.returncode, r.stderr))
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                os.killpg(p.pid, 0)
                time.sleep(0.1)
            except ProcessLookupError:
                break
        check(ttl() == "99", "the kill put the value back itself?")
        before = sorted(glob.glob(os.path.join(cdir, "runs", "*")))
        r = campaign(cdir, "--restore")
        check(r.returncode == 0 and ttl() == "64" and
              "back to 64" in r.stderr,
              "--restore: %d %s, ttl %s" % (r.returncode, r.stderr, ttl()))
        check(sorted(glob.glob(os.path.join(cdir, "runs", "*"))) == before
              and "saved" not in manifest(cdir), "--restore did more")
        r = campaign(cdir, "--yes")
        check(r.returncode == 0 and all(s["run"] for s in
                                        manifest(cdir)["slots"]),
              "the resume: %d %s" % (r.returncode, r.stderr[-500:]))
        check(ttl() == "64" and "saved" not in manifest(cdir),
              "after the resume the ttl is %s" % ttl())
        check(open(ttl_file).read() == host_ttl, "the host's ttl changed")
    finally:
        ns.kill()
        ns.wait()


TESTS = [test_create_checks, test_gate, test_links, test_foreign, test_trust,
         test_sysctl]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_untrusted"))
