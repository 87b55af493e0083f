#!/usr/bin/env python3
"""Inputs to compare, plot and report that could not mean anything.

  tests/cli/test_compare_inputs.py --builddir build [-k NAME] [-v]

A few tiny real runs are made once (A and B alike, C with another
--critical, H of another workload, R with more repetitions), and each
test runs the built futexlab on them as a user would:

- a run given twice, on one side or on both, by any path to it (A, A/,
  ./A, a symbolic link to A), and a fleet's run given twice: exit 2, one
  line naming both paths, nothing written;
- runs with no cell in common: exit 2, one line, naming --setting when
  the cells differ by one option alone; a --setting no cell has; the
  settings warning names the key that differs, not the JSON;
- a flag with a value given twice, in every subcommand, and --cdf-threads
  with --cdf-cells: exit 2, naming both values (campaign's --side, a
  list, still repeats);
- the folders plot, report and compare write without --out on a
  read-only file system (a read-only bind mount in a mount namespace of
  its own: skipped, with the reason, where one cannot be made): exit 2
  before any work (nothing on stdout); an --out inside a run read:
  exit 2, the run unchanged; report.md written through links planted
  in the run (it must replace them, never write through them).

Ends with `compare-inputs: N passed, N failed`.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True
import runs  # noqa: E402
from runs import Skip, check  # noqa: E402

RUN = ["--backend", "futex-private", "--threads", "1,2", "--duration",
       "0.02", "--warmup", "0.01"]
# each made once: its name, then run's arguments
MADE = {
    "A": ["mutex", "--reps", "6"] + RUN,
    "B": ["mutex", "--reps", "6"] + RUN,
    "C": ["mutex", "--reps", "6", "--critical", "200"] + RUN,
    "H": ["hash", "--reps", "6"] + RUN,
    "R": ["mutex", "--reps", "7"] + RUN,
}
_shared = {}


def made(name):
    """The path of run `name`, made on first use in a folder of its own
    that every test reads (none writes in it)."""
    if "dir" not in _shared:
        _shared["dir"] = tempfile.mkdtemp(prefix="fl-cmp-inputs-")
        atexit.register(shutil.rmtree, _shared["dir"], True)
    path = os.path.join(_shared["dir"], name)
    if not os.path.isdir(path):
        res = os.path.join(_shared["dir"], "results-" + name)
        runs.fl("run", *MADE[name], "--results", res, check_rc=0)
        (only,) = os.listdir(res)
        os.rename(os.path.join(res, only), path)
        os.rmdir(res)
    return path


def tree(path):
    """Every file under path with its contents: what must not change."""
    out = {}
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, path)] = fh.read()
    return out


def refused(args, *words, cwd=None):
    """futexlab ARGS exits 2 with one line on stderr holding every word,
    and prints nothing on stdout (no work was done)."""
    r = subprocess.run([runs.FL] + args, capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    lines = r.stderr.splitlines()
    check(r.returncode == 2, "futexlab %s: exit %d, not 2: %s" %
          (" ".join(args), r.returncode, r.stderr[-1500:]))
    check(len(lines) == 1, "futexlab %s: not one line on stderr: %r" %
          (" ".join(args), r.stderr[-1500:]))
    for w in words:
        check(w in lines[0], "futexlab %s: %r does not say %r" %
              (" ".join(args), lines[0], w))
    check(r.stdout == "", "futexlab %s: work was done before the refusal: "
          "%s" % (" ".join(args), r.stdout[-800:]))
    return lines[0]


def side_copy(tmp):
    """A folder beside A and B holding links and paths to them; cwd."""
    a, b = made("A"), made("B")
    os.symlink(a, os.path.join(tmp, "linkA"))
    return a, b


# a run named twice on a side made up evidence
def test_side_repeats_a_run(tmp):
    a, b = side_copy(tmp)
    out = os.path.join(tmp, "out")
    refused(["compare", "--a", a, a, a, a, "--b", b, b, b, b, "--out", out,
             "--no-plot"], "side A gives one run twice", "'%s'" % a)
    for again in (a + "/", os.path.join(tmp, "linkA"),
                  os.path.join(a, "..", os.path.basename(a))):
        refused(["compare", "--a", a, again, "--b", b, made("C"),
                 "--out", out, "--setting", "critical"],
                "side A gives one run twice", "'%s'" % again)
    refused(["compare", "--a", a, "--b", b, b + "/", "--out", out],
            "side B gives one run twice")
    refused(["compare", "--a", a, b, "--b", b, made("R"), "--out", out],
            "of side A and", "of side B are one run")
    check(not os.path.exists(out), "a refused compare made %s" % out)


# a run against itself, and a run twice among several
def test_run_against_itself(tmp):
    a, b = side_copy(tmp)
    out = os.path.join(tmp, "out")
    for again in (a, a + "/", os.path.join(tmp, "linkA")):
        refused(["compare", a, again, "--out", out], "are one run",
                "compared with itself")
    refused(["compare", "./A", "A/", "--no-plot"], "'./A' and 'A/'",
            cwd=os.path.dirname(a))
    refused(["compare", b, a, a + "/", "--out", out], "given twice")
    # one run a side is the comparison of two runs, its note unsaid
    refused(["compare", "--a", a, "--b", a + "/", "--out", out],
            "are one run", "compared with itself")
    check(not os.path.exists(out), "a refused compare made %s" % out)


# nothing in common, and the one option the cells differ by
def test_no_cell_in_common(tmp):
    a, c, h = made("A"), made("C"), made("H")
    out = os.path.join(tmp, "out")
    refused(["compare", a, h, "--out", out], "no cell in common",
            "mutex", "hash")
    refused(["compare", "--a", a, "--b", h, "--setting", "critical",
             "--out", out], "no cell in common")
    line = refused(["compare", a, c, "--out", out], "no cell in common",
                   "--setting critical")
    check("hash" not in line, "names a workload neither has: %s" % line)
    check(not os.path.exists(out), "a refused compare made %s" % out)
    r = runs.fl("compare", "--a", a, "--b", c, "--setting", "critical",
                "--out", out, "--no-plot", check_rc=0)
    check("2 cells" in r.stdout or "mutex" in r.stdout,
          "--setting critical compared nothing: %s" % r.stdout[-800:])


# --setting that no workload has
def test_setting_no_cell_has(tmp):
    a, c = made("A"), made("C")
    refused(["compare", "--a", a, "--b", c, "--setting", "nosuch", "--out",
             os.path.join(tmp, "out")], "--setting 'nosuch'",
            "no cell", "critical")


# the settings warning names what differs
def test_settings_warning_names_the_key(tmp):
    r = runs.fl("compare", made("A"), made("R"), "--out",
                os.path.join(tmp, "out"), "--no-plot", check_rc=0)
    warn = [ln for ln in r.stderr.splitlines() if "settings" in ln]
    check(len(warn) == 1 and "reps 6 against 7" in warn[0],
          "no warning naming reps: %s" % r.stderr[-1500:])
    check("hash slots" not in warn[0] and "{" not in warn[0],
          "the warning names what does not differ: %s" % warn[0])


# a flag with a value said twice, in every subcommand: each
# subcommand's cases, as (args, flag) with A, B, TMP in args replaced
TWICE = {
    "run": [(["run", "mutex", "--results", "TMP/res", "--results",
              "TMP/res2"], "--results"),
            (["run", "mutex", "--threads", "1", "--threads", "2",
              "--results", "TMP/res"], "--threads"),
            (["run", "mutex", "--critical", "10", "--critical", "20",
              "--results", "TMP/res"], "--critical")],
    "matrix": [(["matrix", "--resume", "TMP/p1", "--resume", "TMP/p2"],
                "--resume"),
               (["matrix", "--results", "TMP/r", "--results", "TMP/r2",
                 "m.ini"], "--results")],
    "compare": [(["compare", "A", "B", "--delta", "3", "--delta", "4",
                  "--out", "TMP/o"], "--delta"),
                (["compare", "A", "B", "--out", "TMP/o1", "--out",
                  "TMP/o2"], "--out"),
                (["compare", "--a", "A", "--b", "B", "--setting",
                  "critical", "--setting", "think", "--out", "TMP/o"],
                 "--setting")],
    "plot": [(["plot", "A", "--out", "TMP/p1", "--out", "TMP/p2"],
              "--out"),
             (["plot", "A", "--cdf-threads", "1", "--cdf-threads", "2",
               "--out", "TMP/p"], "--cdf-threads")],
    "report": [(["report", "A", "B", "--out", "TMP/f1", "--out",
                 "TMP/f2"], "--out")],
    "merge": [(["merge", "--results", "TMP/r", "--results", "TMP/r2",
                "A"], "--results")],
    "list": [(["list", "--topology", "x.xml", "--topology", "y.xml"],
              "--topology")],
    "campaign": [(["campaign", "--seed", "1", "--seed", "2", "TMP/c"],
                  "--seed")],
}


def flags_twice_test(command):
    def test(tmp):
        where = {"A": made("A"), "B": made("B")}
        for args, flag in TWICE[command]:
            args = [where.get(x, x.replace("TMP", tmp)) for x in args]
            refused(args, "%s is given twice" % flag)
        check(os.listdir(tmp) == [], "futexlab %s refused, yet wrote %s" %
              (command, os.listdir(tmp)))
    test.__name__ = "test_flags_twice_" + command
    return test


# a list built by repeating its flag still takes each value
def test_campaign_sides_repeat(tmp):
    r = runs.fl("campaign", "--side", "A", "--side", "B",
                os.path.join(tmp, "c"))
    # both sides parsed: what is missing is the matrix
    check("given twice" not in r.stderr and "--matrix" in r.stderr,
          "campaign's --side list refused: %s" % r.stderr[-800:])


# two flags that each pick the CDF's cells
def test_cdf_threads_with_cdf_cells(tmp):
    refused(["plot", made("A"), "--cdf-threads", "1", "--cdf-cells", "0",
             "--out", os.path.join(tmp, "p")], "--cdf-threads",
            "--cdf-cells")
    check(not os.path.exists(os.path.join(tmp, "p")), "plot wrote")


def read_only(tmp, args):
    """futexlab ARGS run in tmp, with tmp a read-only bind mount of
    itself in a mount namespace of this command's own."""
    r = subprocess.run(["unshare", "-m", "--", "sh", "-c",
                        'mount --bind "$1" "$1" && '
                        'mount -o remount,bind,ro "$1" && '
                        'touch "$1/.w" 2>/dev/null && exit 99; '
                        'cd "$1" && shift && exec "$@"', "sh", tmp,
                        runs.FL] + args, capture_output=True, text=True,
                       timeout=120)
    if r.returncode in (99,) or "mount" in r.stderr.split(":")[0] or \
            r.stderr.startswith("unshare"):
        raise Skip("no read-only bind mount here: %s" %
                   (r.stderr.strip() or "it was writable"))
    return r


# what plot, report and compare write by default, read-only
def test_read_only_defaults(tmp):
    for n in ("A", "B"):
        shutil.copytree(made(n), os.path.join(tmp, n), symlinks=True)
    before = tree(tmp)
    cases = [
        (["plot", "A", "--scripts-only"], "'A/plots' cannot be written",
         "--out DIR"),
        (["report", "A"], "'A/report.md' cannot be written"),
        (["report", "A", "B"], "fleet-A' cannot be created", "--out DIR"),
        (["compare", "A", "B", "--no-plot"], "compare-A-vs-B' cannot be "
         "created", "--out DIR"),
        (["compare", "--a", "A", "--b", "B", "--setting", "critical",
          "--no-plot"], "compare-A-vs-B-runs' cannot be created"),
    ]
    for args, *words in cases:
        r = read_only(tmp, args)
        lines = r.stderr.splitlines()
        check(r.returncode == 2 and len(lines) == 1 and
              all(w in lines[0] for w in words + ["Read-only"]),
              "futexlab %s on a read-only run: exit %d: %s" %
              (" ".join(args), r.returncode, r.stderr[-1500:]))
        check(r.stdout == "", "futexlab %s worked before it refused: %s" %
              (" ".join(args), r.stdout[-800:]))
    check(tree(tmp) == before, "a read-only run changed")


# an --out inside a run that is read
def test_out_inside_a_run(tmp):
    for n in ("A", "B"):
        shutil.copytree(made(n), os.path.join(tmp, n), symlinks=True)
    a, b = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    before = tree(tmp)
    for out in (a, a + "/", os.path.join(a, "hist")):
        refused(["compare", a, b, "--out", out, "--no-plot"],
                "is inside the run", "finished run")
    refused(["compare", "--a", a, "--b", b, "--setting", "critical",
             "--out", b], "is inside the run '%s'" % b)
    refused(["report", a, b, "--out", os.path.join(b, "fleet")],
            "is inside the run")
    refused(["report", a, a + "/", "--out", os.path.join(tmp, "f")],
            "are one run")
    check(tree(tmp) == before, "a refused command changed a run")


# report.md is written through the run's folder: links planted under it
# and its temporary name are replaced, never written through
def test_report_through_planted_links(tmp):
    run = os.path.join(tmp, "A")
    shutil.copytree(made("A"), run, symlinks=True)
    victim = runs.write(os.path.join(tmp, "victim"), "not the report\n")
    for name in ("report.md", ".report.md.tmp"):
        if os.path.lexists(os.path.join(run, name)):
            os.unlink(os.path.join(run, name))
        os.symlink(victim, os.path.join(run, name))
    runs.fl("report", run, check_rc=0)
    with open(victim) as f:
        check(f.read() == "not the report\n", "report wrote through a "
              "link planted in the run")
    report = os.path.join(run, "report.md")
    check(not os.path.islink(report) and os.path.isfile(report),
          "report.md is not a file of its own")


TESTS = [test_side_repeats_a_run, test_run_against_itself,
         test_no_cell_in_common, test_setting_no_cell_has,
         test_settings_warning_names_the_key, test_campaign_sides_repeat,
         test_cdf_threads_with_cdf_cells, test_read_only_defaults,
         test_out_inside_a_run, test_report_through_planted_links] + [flags_twice_test(c) for c in TWICE]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "compare-inputs"))
