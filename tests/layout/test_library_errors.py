#!/usr/bin/env python3
"""Hold the libraries to returning their errors: no print to stderr, no exit.

  tests/layout/test_library_errors.py [--builddir build] [--root DIR]

docs/architecture.md: "Only cli/ knows exit statuses; libraries return 0
or -1 with a message naming what was wrong." A library that must say
something more (a warning, a note) hands it to a callback its caller
supplies (base/say.h), and cli/ prints it. This reads every .c and .h
file of the library folders below, with comments and string literals
blanked, and fails on:
  - a print to stderr: fprintf, vfprintf, fputs, fputc or putc on
    stderr, perror, or dprintf or write on descriptor 2;
  - an exit: exit, _exit, _Exit, quick_exit or abort;
outside the named exceptions (EXCEPTIONS: a function that must exit, with
why) and the files still owed (OWED). Every folder of the include table
in docs/architecture.md is either checked (CHECKED) or exempt with why
(EXEMPT), so a new folder cannot slip by; an exception or owed file that
no longer has anything to excuse fails too, so the lists stay true. Ends
with `library errors: N passed, N failed`, one case per folder checked
and one for the lists.
"""

import os
import re
import sys

from cases import report, tree
from test_includes import read_table

# the folders whose code is a library (or a preloaded one): checked
CHECKED = ["base/", "kmod/uapi/", "kmod/", "backends/", "spec/", "stats/",
           "measure/", "workloads/", "rundir/", "plot/", "report/",
           "compare/", "sweep/", "campaign/", "merge/", "shim/",
           "interpose/"]

# the folders of programs, which print and exit: each has main()
EXEMPT = {
    "cli/": "the futexlab binary: only it knows exit statuses and prints",
    "tools/": "build helpers and the fidelity benchmark, programs of "
              "their own",
    "docs/notebook/": "the scripts of dated experiments, programs of "
                      "their own",
    "tests/": "every suite: programs that report and exit",
}

# (file, function, call) -> why it must: a process with no caller to
# return to. The call is the name as matched: "exit" stands for the
# exit family, "stderr" for any print to stderr.
EXCEPTIONS = {
    ("measure/cell_child.c", "give_up", "exit"):
        "the forked cell child: its exit status tells the parent "
        "(measure/cell.c) that a repetition could not start",
    ("measure/cell_child.c", "stop_threads", "exit"):
        "the forked cell child: a thread that outlived the stop leaves "
        "the child nothing to return to but its exit status",
    ("measure/cell_child.c", "fl_cell_child", "exit"):
        "the forked cell child's entry point, noreturn: its exit status "
        "is its result",
    ("measure/program.c", "metric", "exit"):
        "the forked child that runs a program's regex: its exit status "
        "tells whether it wrote the match",
    ("plot/gp.c", "run_gnuplot", "exit"):
        "the forked child between fork and exec of gnuplot: its exit "
        "status says it could not run it",
    ("plot/gp.c", "run_gnuplot", "stderr"):
        "the same child: its stderr is the pipe the parent reads into "
        "the plot's error message, not the user's",
    ("campaign/spawn.c", "child", "exit"):
        "the forked child between fork and exec of a campaign's run: "
        "its exit status (127) says it could not run it",
    ("campaign/hogs.c", "hog", "exit"):
        "a forked hog process's entry point: it ends when its parent "
        "does",
    ("shim/kernel.c", "libc_syscall", "exit"):
        "the preload shim inside an unmodified program, with no libc "
        "syscall() to carry any call on: no caller could go on",
    ("shim/lacking.c", "shim_say", "stderr"):
        "the preload shim inside an unmodified program: its only way to "
        "say a call it cannot carry",
    ("interpose/config.c", "ip_say", "stderr"):
        "the interposer inside an unmodified program: its only way to "
        "say why it aborts",
    ("interpose/config.c", "ip_backend_or_die", "exit"):
        "the interposer with no usable lock: a pthread call that cannot "
        "be carried out aborts, as glibc's does",
    ("interpose/mutex.c", "refused_as_glibc", "exit"):
        "the interposer: a PI lock owned by another process aborts, as "
        "glibc's does",
    ("interpose/real.c", "find", "exit"):
        "the interposer without glibc's own function to call: no "
        "pthread call could go on",
}

# Files that still print to stderr: owed, each with what is left to do
# (the test fails on an entry with nothing left to excuse, so the list
# only shrinks). None is owed now: a file that prints fails.
OWED = {
}

STDERR_RE = re.compile(
    r"\b(?:v?fprintf\s*\(\s*stderr\b"
    r"|(?:fputs|fputc|putc|putc_unlocked)\s*\([^;]*,\s*stderr\s*\)"
    r"|perror\s*\("
    r"|(?:dprintf|write)\s*\(\s*(?:2|STDERR_FILENO)\s*,)")
EXIT_RE = re.compile(r"(?<![\w.>])(?:exit|_exit|_Exit|quick_exit|abort)"
                     r"\s*\(")
# a definition's first line, at column 0: the name before its "("
DEF_RE = re.compile(r"^[A-Za-z_][^;]*?\b([A-Za-z_]\w*)\s*\(")
LITERALS_RE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                         r"|'(?:\\.|[^'\\\n])*'", re.S)


def blank(text):
    """text with comments and literals replaced by spaces, newlines kept,
    so a message quoting "exit(" is no call and line numbers hold."""
    return LITERALS_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                           text)


def calls(text):
    """[(line, function or None, "stderr" or "exit", what)] in text."""
    found, candidate, function = [], None, None
    for n, line in enumerate(blank(text).split("\n"), 1):
        m = DEF_RE.match(line)
        if m and not line.rstrip().endswith(";"):
            candidate = m.group(1)
        if line.startswith("{"):
            function = candidate
        elif line.startswith("}"):
            function = candidate = None
        for kind, rx in (("stderr", STDERR_RE), ("exit", EXIT_RE)):
            for hit in rx.finditer(line):
                found.append((n, function, kind, hit.group(0).strip()))
    return found


def sources(root, folder, checked):
    """The .c and .h files of folder, not those of a checked folder
    inside it (kmod/uapi/ in kmod/)."""
    top = os.path.join(root, folder)
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, root) + "/"
        dirs[:] = sorted(x for x in dirs
                         if rel + x + "/" not in checked)
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, name), root)


def main():
    root, _ = tree(__doc__)
    cases = []

    table = [f for f, _ in read_table(root)]
    problems = ["%s: a folder of the include table neither checked nor "
                "exempt (CHECKED or EXEMPT)" % f
                for f in table if f not in CHECKED and f not in EXEMPT]
    problems += ["%s: checked or exempt, but not in the include table"
                 % f for f in CHECKED + list(EXEMPT) if f not in table]
    used_exceptions, used_owed = set(), set()
    per_folder = []
    for folder in CHECKED:
        bad = []
        for rel in sources(root, folder, CHECKED):
            with open(os.path.join(root, rel), encoding="utf-8",
                      errors="replace") as f:
                found = calls(f.read())
            for n, function, kind, what in found:
                key = (rel, function, kind)
                if key in EXCEPTIONS:
                    used_exceptions.add(key)
                elif rel in OWED:
                    used_owed.add(rel)
                else:
                    bad.append("%s:%d: %s in %s(): a library returns "
                               "its error (0 or -1 with a message) or "
                               "hands it to its caller's fl_say "
                               "(base/say.h)"
                               % (rel, n, what, function or "?"))
        per_folder.append(("%s neither prints to stderr nor exits"
                           % folder, bad))
    problems += ["EXCEPTIONS: %s %s() %s excuses nothing: remove it"
                 % k for k in sorted(set(EXCEPTIONS) - used_exceptions)]
    problems += ["OWED: %s prints to stderr no more: remove it" % k
                 for k in sorted(set(OWED) - used_owed)]
    cases.append(("every folder is checked or exempt, every exception "
                  "excuses a call", problems))
    return report("library errors", cases + per_folder)


if __name__ == "__main__":
    sys.exit(main())
