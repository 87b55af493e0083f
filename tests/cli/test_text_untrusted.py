#!/usr/bin/env python3
"""Control bytes from input never reach a terminal; lists and matrix
lines that meant something else are refused with a true message.

  tests/cli/test_text_untrusted.py --builddir build

ESC, BEL, CR and NUL are fed through a flag, a matrix file (its value
and its name), cells.csv and meta.json; stdout, stderr and report.md
must hold no byte below 0x20 but newline and tab, nor DEL, and the
message must show the input escaped (\\x1b). A NUL cannot be a flag's
(argv is C strings) nor pass cells.csv or meta.json's readers, so those
are refused; the test holds their messages to the same rule. The
progress line's own \\r\\033[K still reaches a terminal (a pty), and
--json stays JSON.

A comma list with a blank inside an item (`--threads "1 2"`, which ran
12 threads), an indented matrix line, text after a section's ']' and a
file with CR-only line ends are each refused, exit 2, with one line
saying what is wrong, and nothing run or written; what stays allowed
(`1, 2`, a space-separated placement list, CR LF files) still reads.

Ends with `text_untrusted: N passed, N failed`.
"""

import argparse
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import test_untrusted as tu  # noqa: E402  check(), which counts
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 60
# what a terminal acts on: OSC (retitle), BEL, SGR (recolour), CR
HOSTILE = "\x1b]0;TITLE\x07\x1b[31m\r"
HOSTILE_ESCAPED = "\\x1b]0;TITLE\\x07\\x1b[31m\\x0d"
check = tu.check


def controls(data):
    """The bytes of data a terminal would act on."""
    return sorted({"0x%02x" % c for c in data
                   if (c < 0x20 and c not in (9, 10)) or c == 0x7f})


def run(futexlab, args, cwd):
    try:
        return subprocess.run([futexlab] + args, capture_output=True,
                              timeout=TIMEOUT, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None


def clean(r, status, says=(), one_line=True):
    """r exited with status, wrote no control byte, and its stderr (its
    first line, for an error) holds each of says."""
    if r is None:
        return ["hangs: no end within %d s" % TIMEOUT]
    problems = []
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode != status:
        problems.append("exit %d, not %d: %r" % (r.returncode, status,
                                                 err[:300]))
    for name, data in (("stdout", r.stdout), ("stderr", r.stderr)):
        if controls(data):
            problems.append("%s holds %s: %r" % (name, controls(data),
                                                 data[:300]))
    if status and one_line and len(err.splitlines()) != 1:
        problems.append("not one line on stderr: %r" % err[:300])
    first = (err.splitlines() or [""])[0]
    for s in says:
        if s not in first:
            problems.append("stderr does not say %r: %r" % (s, first))
    return problems


def matrix_case(futexlab, tmp, text, status, says, name="m.ini"):
    """matrix --estimate on a file of text (bytes); nothing written."""
    path = os.path.join(tmp, name)
    shutil.rmtree(os.path.join(tmp, "res"), ignore_errors=True)
    with open(path, "wb") as f:
        f.write(text)
    r = run(futexlab, ["matrix", "--estimate", name, "--results", "res"],
            tmp)
    problems = clean(r, status, says)
    if os.path.exists(os.path.join(tmp, "res")):
        problems.append("a results directory was made")
    return problems


def flag_cases(futexlab, tmp):
    r = run(futexlab, ["run", "mutex", "--algo", "a" + HOSTILE + "b",
                       "--results", "res"], tmp)
    check("flag --algo with ESC, BEL, CR", clean(
        r, 2, ["--algo: unknown value 'a%sb'" % HOSTILE_ESCAPED]))
    r = run(futexlab, ["run", "mutex", "--threads", "\x1b[2J\x07"], tmp)
    check("flag --threads with ESC, BEL", clean(r, 2, ["\\x1b[2J\\x07"]))
    r = run(futexlab, ["\x1b]52;c;AAAA\x07"], tmp)
    check("a command named with OSC 52", clean(
        r, 2, ["unknown command '\\x1b]52;c;AAAA\\x07'"]))


def matrix_text_cases(futexlab, tmp):
    head = b"[experiment a]\nworkload = mutex\n"
    check("matrix value with ESC, BEL (a CR LF line end)", matrix_case(
        futexlab, tmp, head + b"algo = \x1b]0;TITLE\x07\x1b[31m\r\n", 2,
        ["m.ini:3: algo: unknown value '\\x1b]0;TITLE\\x07\\x1b[31m'"]))
    check("matrix value with a CR inside", matrix_case(
        futexlab, tmp, head + b"algo = \x1b[2J\rmutex3\n", 2,
        ["m.ini:3: a carriage return (CR) with no line feed"]))
    check("matrix value with a NUL", matrix_case(
        futexlab, tmp, head + b"algo = a\x00\x1b\n", 2,
        ["m.ini:3: NUL byte in the file"]))
    check("matrix file named with ESC", matrix_case(
        futexlab, tmp, head + b"nokey = 1\n", 2,
        ["m\\x1b[31m.ini:3: unknown key 'nokey'"], name="m\x1b[31m.ini"))


def shard_commands_case(futexlab, tmp):
    """--shard-commands' lines, for a shell, name a path with ESC and
    BEL: no control byte on stdout, and a shell reads the path back."""
    name = "s\x1b[31m\x07i'n.ini"
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("[experiment a]\nworkload = mutex\nthreads = 1,2\n")
    r = run(futexlab, ["matrix", "--shard-commands", "2", name], tmp)
    problems = clean(r, 0)
    line = r.stdout.decode("utf-8", "replace").splitlines()[0] if \
        r and r.stdout else ""
    back = subprocess.run(["sh", "-c", 'set -- %s; printf %%s "$3"' % line],
                          capture_output=True)
    if back.stdout != path.encode():
        problems.append("a shell reads %r from %r" % (back.stdout, line))
    check("matrix --shard-commands for a path with ESC, BEL", problems)


def make_run(futexlab, top):
    r = subprocess.run([futexlab, "run", "mutex", "--threads", "1",
                        "--duration", "0.02", "--reps", "2", "--warmup",
                        "0", "--results", top], capture_output=True,
                       text=True, timeout=TIMEOUT, cwd=ROOT)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 else None


def set_note(run_dir, note):
    """cells.csv's first row's note set to note (bytes), as it is."""
    path = os.path.join(run_dir, "cells.csv")
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    head, row = lines[0].split(b","), lines[1].split(b",")
    row[head.index(b"note")] = note
    lines[1] = b",".join(row)
    with open(path, "wb") as f:
        f.write(b"\n".join(lines))


def run_dir_cases(futexlab, base, tmp):
    hostile = ["report", "RUN"], ["compare", "RUN", "RUN"], \
        ["plot", "RUN", "--scripts-only"]
    for what, note, says, cmds in (
            ("ESC, BEL", b"n\x1b]0;T\x07x",
             "note 'n\\x1b]0;T\\x07x' holds a control character", hostile),
            ("a NUL", b"n\x00\x1b", "NUL", hostile[:1])):
        for cmd in cmds:
            spoilt = os.path.join(tmp, "note")
            shutil.rmtree(spoilt, ignore_errors=True)
            shutil.copytree(base, spoilt)
            set_note(spoilt, note)
            r = run(futexlab, [a.replace("RUN", spoilt) for a in cmd], tmp)
            check("cells.csv note with %s: %s" % (what, cmd[0]),
                  clean(r, 2, [says]))

    spoilt = os.path.join(tmp, "meta")
    shutil.copytree(base, spoilt)
    path = os.path.join(spoilt, "meta.json")
    with open(path) as f:
        meta = json.load(f)
    w = meta["workloads"]["mutex"]
    w["ops_unit"] = "acq\n| x " + HOSTILE + "\x07"
    w["latency"] = "lat\x1b[2J"
    w["summary"] = "sum" + HOSTILE + "\n\n## not a heading"
    meta["machine"]["hostname"] = "h\x1b]52;c;AAAA\x07\r\n"
    meta["machine"]["kernel"] = "k\x1b[31m\r"
    with open(path, "w") as f:
        json.dump(meta, f)
    r = run(futexlab, ["report", spoilt], tmp)
    problems = clean(r, 0)
    with open(os.path.join(spoilt, "report.md"), "rb") as f:
        md = f.read()
    if controls(md):
        problems.append("report.md holds %s" % controls(md))
    header = [l for l in md.split(b"\n") if b"(median [95% CI])" in l]
    if len(header) != 1 or not header[0].startswith(b"| cell |") or \
            not header[0].endswith(b"| Jain |"):
        problems.append("the table's header is not one line: %r" % header)
    if b"\n## not a heading" in md:
        problems.append("meta.json's summary made a heading")
    check("meta.json text with ESC, BEL, CR, newlines: report.md", problems)
    # the sides' hosts and kernels differ: compare warns, quoting both,
    # on stderr and in compare.md
    out = os.path.join(tmp, "cmp")
    problems = clean(run(futexlab, ["compare", base, spoilt, "--out", out],
                         tmp), 0, ["differ in host",
                                   "'h\\x1b]52;c;AAAA\\x07\\x0d"],
                     one_line=False)
    with open(os.path.join(out, "compare.md"), "rb") as f:
        md = f.read()
    if controls(md) or b"`k\\x1b[31m\\x0d`" not in md:
        problems.append("compare.md holds %s: %r" % (
            controls(md), [l for l in md.split(b"\n") if b"kernel" in l]))
    check("meta.json text with ESC, BEL, CR: compare, compare.md",
          problems)
    with open(path, "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text.replace(b'"hostname": "', b'"hostname": "\\u0000'))
    check("meta.json with a NUL: report", clean(
        run(futexlab, ["report", spoilt], tmp), 2, ["meta.json"]))


def json_case(futexlab, tmp):
    """run_dir in --json holds --results as it is: jansson escapes ESC,
    the sink DEL and U+009B (CSI), each as JSON spells it."""
    results = "j\x1b\x7f\u009bx"
    r = run(futexlab, ["run", "mutex", "--threads", "1", "--duration",
                       "0.02", "--reps", "1", "--warmup", "0", "--json",
                       "--results", results], tmp)
    problems = clean(r, 0)
    try:
        run_dir = json.loads(r.stdout)["run_dir"]
        if not run_dir.startswith(results + "/"):
            problems.append("run_dir is %r" % run_dir)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        problems.append("--json output is no JSON: %s" % e)
    check("run --json with ESC, DEL, CSI in run_dir stays JSON", problems)


def pty_case(futexlab, tmp):
    """The progress line on a terminal keeps its own \\r\\033[K."""
    with open(os.path.join(tmp, "p.ini"), "w") as f:
        f.write("[defaults]\nduration = 0.02\nwarmup = 0\nreps = 2\n"
                "[experiment a]\nworkload = mutex\nthreads = 1,2\n")
    master, slave = pty.openpty()
    p = subprocess.Popen([futexlab, "matrix", "p.ini", "--results",
                          "pty-res"], stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=slave, cwd=tmp)
    os.close(slave)
    out, end = b"", time.monotonic() + TIMEOUT
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    try:
        status = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        status = None
    problems = [] if status == 0 else ["exit %r: %r" % (status, out[-300:])]
    if b"\r\x1b[K[1/" not in out:
        problems.append("no progress line's \\r\\033[K: %r" % out[:300])
    # the terminal's own \r\n, and the progress line's sequence
    rest = out.replace(b"\r\x1b[K", b"").replace(b"\r\n", b"\n")
    if controls(rest):
        problems.append("other control bytes %s: %r" % (controls(rest),
                                                        out[:300]))
    check("the progress line's own sequence reaches a pty", problems)


def list_cases(futexlab, tmp):
    commas = "separate items with commas"
    for flag, value in (("--threads", "1 2"), ("--threads", "1 .. 4"),
                        ("--backend", "futex-private spin"),
                        ("--algo", "mutex3 pi")):
        r = run(futexlab, ["run", "mutex", flag, value, "--results",
                           "res"], tmp)
        problems = clean(r, 2, ["%s: '%s' holds a blank" % (flag, value),
                                commas])
        if os.path.exists(os.path.join(tmp, "res")):
            problems.append("a results directory was made")
        check("run %s %r" % (flag, value), problems)
    head = b"[experiment a]\nworkload = mutex\n"
    check("matrix threads = 1 2", matrix_case(
        futexlab, tmp, head + b"threads = 1 2\n", 2,
        ["m.ini:3: threads: '1 2' holds a blank", commas]))
    check("matrix backend = futex-private spin", matrix_case(
        futexlab, tmp, head + b"backend = futex-private spin\n", 2,
        ["m.ini:3: backend: 'futex-private spin' holds a blank", commas]))
    path = os.path.join(tmp, "ok.ini")
    with open(path, "w") as f:
        f.write("[experiment a]\nworkload = mutex\nthreads = 1 , 2\n"
                "backend = futex-private, spin\n"
                "placement = compact scatter\nalgo = mutex3, pi\n")
    r = run(futexlab, ["matrix", "--estimate", "ok.ini"], tmp)
    problems = clean(r, 0)
    if r and b"16 cells" not in r.stdout:
        problems.append("not 2 backends x 2 algos x 2 placements x 2 "
                        "counts: %r" % r.stdout[-300:])
    check("blanks around items, placement's space-separated list", problems)


def matrix_line_cases(futexlab, tmp):
    check("matrix line indented", matrix_case(
        futexlab, tmp, b"[experiment a]\nworkload = mutex\n  algo = pi\n",
        2, ["m.ini:3: 'algo = pi' is indented"]))
    check("matrix section with text after its ']'", matrix_case(
        futexlab, tmp, b"[experiment a] trailing\nworkload = mutex\n", 2,
        ["m.ini:1: text after the ']' of [experiment a]"]))
    check("matrix file with CR-only line ends", matrix_case(
        futexlab, tmp, b"[defaults]\rduration = 0.1\r[experiment a]\r"
        b"workload = mutex\r", 2,
        ["m.ini:1: a carriage return (CR) with no line feed"]))
    check("matrix file with CR LF line ends, indented comments", matrix_case(
        futexlab, tmp, b"[experiment a] ; the one\r\n  ; a comment\r\n"
        b"workload = mutex\r\n\t\r\nthreads = 1\r\n", 0, []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    tmp = tempfile.mkdtemp(prefix="fl-text-")
    try:
        flag_cases(futexlab, tmp)
        matrix_text_cases(futexlab, tmp)
        shard_commands_case(futexlab, tmp)
        base = make_run(futexlab, os.path.join(tmp, "base"))
        if base:
            run_dir_cases(futexlab, base, tmp)
        else:
            check("a tiny run to spoil", ["futexlab run failed"])
        json_case(futexlab, tmp)
        pty_case(futexlab, tmp)
        list_cases(futexlab, tmp)
        matrix_line_cases(futexlab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("text_untrusted: %d passed, %d failed" % (tu.passed, tu.failed))
    return 1 if tu.failed else 0


if __name__ == "__main__":
    sys.exit(main())
