"""What the layout tests share: their arguments, the C sources of the
tree (the build directories left out), and the closing part: each
case's line, then its problems, then the counts line tests/run.py
reads."""

import argparse
import os

# this clone, the tree checked unless --root names another
DEFAULT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def tree(doc):
    """--builddir and --root, as every layout test takes them (doc: the
    test's docstring, whose first line is its --help): (root, builddir),
    both absolute, builddir below root unless given absolute."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--root", default=DEFAULT_ROOT,
                    help="the tree to check (default: this clone)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    return root, os.path.abspath(os.path.join(root, args.builddir))


def build_dirs(root, builddir):
    """Real paths of the build directories: builddir, and every folder
    of root holding configure.py's build/gen/registry.c (another
    --builddir, build-sanitize/ of --sanitize)."""
    dirs = {os.path.realpath(builddir)}
    for name in os.listdir(root):
        if os.path.isfile(os.path.join(root, name, "gen", "registry.c")):
            dirs.add(os.path.realpath(os.path.join(root, name)))
    return dirs


def c_sources(root, builddir):
    """Every .c and .h file under root, from root, in order, outside the
    build directories and hidden folders."""
    skip = build_dirs(root, builddir)
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".")
                         and os.path.realpath(os.path.join(d, x)) not in skip)
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, name), root)


def report(label, cases):
    """cases: [(name, [problem, ...])], a case passing with none.
    Prints them and `LABEL: N passed, N failed`; returns the exit status."""
    failed = sum(1 for _, problems in cases if problems)
    for name, problems in cases:
        print("%-7s %s" % ("not ok" if problems else "ok", name))
        print("".join("        %s\n" % p for p in problems), end="")
    print("%s: %d passed, %d failed" % (label, len(cases) - failed, failed))
    return 1 if failed else 0
