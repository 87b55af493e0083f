#!/usr/bin/env python3
"""Names in the code that must stay true as files move.

  tests/layout/test_names.py [--builddir build] [--root DIR]

Three cases, each listing every place that breaks it:
  - every file a comment names (a word ending in .c, .h or .py, in the
    comments of C sources and of Python and shell scripts, or a Python
    docstring) exists: as written from the root or from the file's own
    folder, or, for a bare name, anywhere in the tree. Files of other
    projects are named by their own paths (EXTERNAL below), and what
    configure.py generates by its place under build/gen/;
  - every header's include guard is FUTEXLAB_, then any trailing part of
    its folder's path, then its own name, then _H;
  - no comment cites an issue by its number (the word "issue" or a "#"
    before it): the code says why, the history says when.
kmod/ is left out: the module is checked by checkpatch (`ninja lint`).
Ends with `names: N passed, N failed`.
"""

import ast
import os
import re
import sys

from cases import build_dirs, report, tree

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = ("kmod/",)
# other projects' files, cited by their path in that project
EXTERNAL = ("kernel/", "linux/", "tools/perf/", "misc/ninja_syntax.py",
            "ini.h")
# what configure.py writes under the build directory
GENERATED = ("build/gen/registry.c", "build/gen/registry_describe.c",
             "build/gen/interpose_backends.c", "build/gen/buildinfo.h",
             "build/gen/version.h")
SCRIPTS = ("vm/run", "vm/kernel-test")
NAME_RE = re.compile(r"(?<![\w/.<>-])([\w./-]*\w\.(?:c|h|py))(?![\w/<>-])")
ISSUE_RE = re.compile(r"\bissues? \d+|(?<![\w&'\"])#\d+\b", re.I)
GUARD_RE = re.compile(r"^#ifndef\s+(\w+)", re.M)


def named_files(root, builddir):
    skip = build_dirs(root, builddir)
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".")
                         and os.path.realpath(os.path.join(d, x)) not in skip)
        for name in sorted(files):
            yield os.path.relpath(os.path.join(d, name), root)


def c_comments(text):
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def script_comments(text, python):
    for n, line in enumerate(text.split("\n"), 1):
        i = line.find("#")
        if i >= 0 and not line.lstrip().startswith("#!"):
            yield n, line[i:]
    if not python:
        return
    try:
        nodes = ast.walk(ast.parse(text))
    except SyntaxError:
        return
    for node in nodes:
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc


def comments(root, rel):
    if rel.endswith((".c", ".h")):
        kind = "c"
    elif rel.endswith(".py") or rel in SCRIPTS or rel == "configure.py":
        kind = "py"
    elif rel.endswith(".sh"):
        kind = "sh"
    else:
        return []
    with open(os.path.join(root, rel), encoding="utf-8",
              errors="replace") as f:
        text = f.read()
    if kind == "c":
        return list(c_comments(text))
    return list(script_comments(text, kind == "py"))


def main():
    root, builddir = tree(__doc__)
    files = [f for f in named_files(root, builddir) if not f.startswith(SKIP)]
    present = set(named_files(root, builddir))
    names = {os.path.basename(f) for f in present}
    stale, issues, guards = [], [], []

    for rel in files:
        for line, text in comments(root, rel):
            for word in NAME_RE.findall(text):
                here = os.path.normpath(os.path.join(os.path.dirname(rel),
                                                     word))
                if (word in present or here in present
                        or ("/" not in word and word in names)
                        or word.startswith(EXTERNAL) or word in GENERATED):
                    continue
                stale.append("%s:%d: names %s, which does not exist"
                             % (rel, line, word))
            for m in ISSUE_RE.finditer(text):
                issues.append("%s:%d: cites %r" % (rel, line, m.group(0)))
        if rel.endswith(".h"):
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                m = GUARD_RE.search(f.read())
            parts = rel[:-2].upper().replace("-", "_").split("/")
            ok = {"FUTEXLAB_%s_H" % "_".join(parts[i:])
                  for i in range(len(parts))}
            if not m or m.group(1) not in ok:
                guards.append("%s: guard %s, not one of %s"
                              % (rel, m.group(1) if m else "(none)",
                                 ", ".join(sorted(ok))))

    return report("names", [("comments name files that exist", stale),
                            ("header guards match their files", guards),
                            ("no comment cites an issue number", issues)])


if __name__ == "__main__":
    sys.exit(main())
