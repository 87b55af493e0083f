#!/usr/bin/env python3
"""meta.json has one author: rundir/.

  tests/layout/test_meta_author.py [--builddir build] [--root DIR]

cli/, sweep/, merge/ and the others fill in a run's record
(rundir/record.h); rundir/record.c alone turns it into meta.json. This
fails on any C source outside rundir/ and tests/ that sets meta.json's
keys itself: a call of rundir/meta.h's builders (fl_meta_new,
fl_meta_finish, ...), or a json_object_set/_new/_del/_update on a
variable named meta or on a member got from it. Ends with
`meta_author: N passed, N failed`.
"""

import argparse
import os
import re
import sys

from cases import report

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.dirname(os.path.dirname(HERE))
# the builders of meta.json's parts, rundir/meta.h
BUILDER_RE = re.compile(r"\bfl_meta_(new|finish|set_load|add_workload|"
                        r"settings|set_command)\s*\(")
# a key set on meta.json's object, or on a member of it
EDIT_RE = re.compile(r"\bjson_object_(set|set_new|del|update\w*)\s*\(\s*"
                     r"(meta\b|json_object_get\s*\(\s*meta\b)")
SKIP = ("rundir/", "tests/", "build/", "kmod/")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--root", default=DEFAULT_ROOT)
    args = ap.parse_args()
    root = args.root
    found, files = [], 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(folder, name), root)
            if not name.endswith(".c") or rel.startswith(SKIP):
                continue
            files += 1
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                for line, text in enumerate(f, 1):
                    for rx in (BUILDER_RE, EDIT_RE):
                        m = rx.search(text)
                        if m:
                            found.append("%s:%d: %s" % (rel, line,
                                                        m.group(0)))
    cases = [("C sources outside rundir/ read (%d)" % files,
              [] if files else ["no C source found under %s" % root]),
             ("only rundir/ sets meta.json's keys", found)]
    return report("meta_author", cases)


if __name__ == "__main__":
    sys.exit(main())
