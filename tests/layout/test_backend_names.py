#!/usr/bin/env python3
"""A backend is known by its descriptor's fields, not by its name.

  tests/layout/test_backend_names.py [--builddir build] [--root DIR]

What a workload, the matrix's `host` word or the interposer needs to know
of a backend (the glibc objects it can run, whether it needs the module,
its node word, whether the interposer carries it) is a field of struct
fl_backend (backends/backend.h). One case: no C source outside backends/
(where fl_backend_find() looks a name up) and tests/ compares a string
with a backend's name, or with the start of one ("kmod-"), through
strcmp(), strncmp(), memcmp() or strstr(). The names are those of
configure.py's BACKENDS. kmod/ and shim/ know no backend. Ends with
`backend-names: N passed, N failed`.
"""

import ast
import os
import re
import sys

from cases import c_sources, report, tree

ALLOWED = ("backends/", "tests/", "kmod/", "shim/")
CALL_RE = re.compile(r"\b(?:strn?cmp|strn?casecmp|memcmp|strstr)\s*\(")
STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def backend_names(root):
    """The first field of every entry of configure.py's BACKENDS."""
    with open(os.path.join(root, "configure.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "BACKENDS"):
            return [e.elts[0].value for e in node.value.elts]
    raise SystemExit("backend-names: configure.py has no BACKENDS")


def compared_names(text, names):
    """[(line, literal)] of each comparison whose literal is a backend's
    name or the start of one."""
    found = set()
    for m in CALL_RE.finditer(text):
        end = len(text)
        for stop in (";", "{"):
            i = text.find(stop, m.end())
            if i >= 0:
                end = min(end, i)
        for s in STRING_RE.finditer(text, m.end(), end):
            lit = s.group(1)
            if len(lit) >= 3 and any(n.startswith(lit) for n in names):
                found.add((text.count("\n", 0, s.start()) + 1, lit))
    return sorted(found)


def main():
    root, builddir = tree(__doc__)
    names = backend_names(root)
    problems = []
    for rel in c_sources(root, builddir):
        if rel.startswith(ALLOWED):
            continue
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        for line, lit in compared_names(text, names):
            problems.append('%s:%d: compares a string with "%s", a '
                            "backend's name: read its descriptor "
                            "(backends/backend.h) instead"
                            % (rel, line, lit))
    return report("backend-names", [
        ("no backend name is compared outside backends/ and tests/ "
         "(%d names)" % len(names), problems)])


if __name__ == "__main__":
    sys.exit(main())
