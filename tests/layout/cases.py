"""What the layout tests share: the build directories to leave out of
the tree, and the closing part: each case's line, then its problems,
then the counts line tests/run.py reads."""

import argparse
import os


def parse_args(doc, default_root):
    """(root, builddir) from --root and --builddir, both absolute; the
    builddir relative to the root."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--root", default=default_root,
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


def report(label, cases):
    """cases: [(name, [problem, ...])], a case passing with none.
    Prints them and `LABEL: N passed, N failed`; returns the exit status."""
    failed = sum(1 for _, problems in cases if problems)
    for name, problems in cases:
        print("%-7s %s" % ("not ok" if problems else "ok", name))
        print("".join("        %s\n" % p for p in problems), end="")
    print("%s: %d passed, %d failed" % (label, len(cases) - failed, failed))
    return 1 if failed else 0
