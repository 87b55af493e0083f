#!/usr/bin/env python3
"""Hold every #include "..." in the C sources to the folders' table.

  tests/layout/test_includes.py [--builddir build] [--root DIR]

docs/architecture.md, section "Boundaries the folders keep", has a table
with one row per folder, lowest first: the folder and the folders it may
include. This reads that table (so the page and the test cannot
disagree) and every .c and .h file under the tree, resolves each quoted
include the way the compiler does (the including file's own directory,
then the tree's root, then the generated headers of --builddir/gen) and
fails on:
  - an include of a folder that its row does not name, or that names no
    file at all;
  - a file in a folder that has no row;
  - a row that allows a folder not above it in the table: folders then
    include only those below them, so no two include each other.
A header of a file's own folder is always allowed. Ends with
`includes: N passed, N failed`, one case for the table, one for the
folders' coverage and one per row.
"""

import os
import re
import sys

from cases import build_dirs, parse_args, report

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.dirname(os.path.dirname(HERE))
PAGE = os.path.join("docs", "architecture.md")
SECTION = "## Boundaries the folders keep"
# the generated headers (configure.py writes them into BUILDDIR/gen)
GENERATED = "gen/"
ANY = "any folder"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
FOLDER_RE = re.compile(r"`([\w./-]+/)`")


def read_table(root):
    """[(folder, [allowed folders] or None for any)] in the page's order."""
    path = os.path.join(root, PAGE)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        start = lines.index(SECTION)
    except ValueError:
        raise SystemExit("includes: %s has no section %r" % (PAGE, SECTION))
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        folder = FOLDER_RE.fullmatch(cells[0])
        if not folder:
            continue            # the header row
        allowed = cells[-1]
        rows.append((folder.group(1),
                     None if allowed == ANY else FOLDER_RE.findall(allowed)))
    return rows


def folder_of(rel, folders):
    """The longest row folder that rel lies in, or None."""
    best = None
    for f in folders:
        if rel.startswith(f) and (best is None or len(f) > len(best)):
            best = f
    return best


def sources(root, builddir):
    skip = build_dirs(root, builddir)
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".")
                         and os.path.realpath(os.path.join(d, x)) not in skip)
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, name), root)


def resolve(root, builddir, rel, target):
    """The included file's path from the root, GENERATED + name for a
    generated header, or None when the compiler would find nothing."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    if not here.startswith("..") and os.path.isfile(os.path.join(root,
                                                                 here)):
        return here
    if os.path.isfile(os.path.join(root, target)):
        return os.path.normpath(target)
    if os.path.isfile(os.path.join(builddir, "gen", target)):
        return GENERATED + target
    return None


def main():
    root, builddir = parse_args(__doc__, DEFAULT_ROOT)
    cases = []
    rows = read_table(root)
    folders = [f for f, _ in rows]
    problems = [] if rows else ["%s: the table has no rows" % PAGE]
    for i, (folder, allowed) in enumerate(rows):
        if folder in folders[:i]:
            problems.append("%s: %s has two rows" % (PAGE, folder))
        below = folders[:i] + [GENERATED]
        for a in allowed or []:
            if a not in below:
                problems.append("%s: %s may include %s, which is not "
                                "below it in the table" % (PAGE, folder, a))
    cases.append(("the table is layered, lowest folder first", problems))

    by_folder = {f: [] for f in folders}
    problems = []
    for rel in sources(root, builddir):
        f = folder_of(rel, folders)
        if f is None:
            problems.append("%s: its folder has no row in %s"
                            % (rel, PAGE))
        else:
            by_folder[f].append(rel)
    cases.append(("every C source lies in a folder of the table",
                  problems))

    for folder, allowed in rows:
        problems = []
        for rel in by_folder[folder]:
            with open(os.path.join(root, rel), encoding="utf-8",
                      errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    path = resolve(root, builddir, rel, m.group(1))
                    if path is None:
                        problems.append('%s:%d: #include "%s" names no '
                                        'file' % (rel, n, m.group(1)))
                        continue
                    to = (GENERATED if path.startswith(GENERATED)
                          else folder_of(path, folders))
                    if to == folder or allowed is None or to in allowed:
                        continue
                    problems.append('%s:%d: #include "%s": %s may not '
                                    'include %s (%s, "%s")'
                                    % (rel, n, m.group(1), folder, to,
                                       PAGE, SECTION[3:]))
        cases.append(("%s includes only what its row allows (%d files)"
                      % (folder, len(by_folder[folder])), problems))
    return report("includes", cases)


if __name__ == "__main__":
    sys.exit(main())
