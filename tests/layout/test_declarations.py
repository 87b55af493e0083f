#!/usr/bin/env python3
"""Every function and variable lives in the folder that declares it.

  tests/layout/test_declarations.py [--builddir build] [--root DIR]

The include table (docs/architecture.md, tests/layout/test_includes.py)
holds a folder to the headers it may include; a header that declares
what another folder defines, or a global function pointer that one
folder sets and another calls, would let a call go around it. Two cases:
  - a function or variable a header declares, if the tree defines it,
    is defined in a file of the header's own folder;
  - no header declares a global function pointer (a hook): a call goes
    to a function the table lets the caller include.
What configure.py generates (the registry) is not in the tree and not
checked; tests/, kmod/, shim/, tools/ and docs/notebook/ keep their own.
Ends with `declarations: N passed, N failed`.
"""

import os
import re
import sys

from cases import c_sources, report, tree

SKIP = ("tests/", "kmod/", "shim/", "tools/", "docs/notebook/")
# a prototype at the start of a line: no storage class, a name, its
# parameters, an optional attribute, the semicolon
PROTOTYPE = re.compile(r"^(?!static|typedef|extern|return)[a-z][^;{}()=#]*?"
                       r"\b(\w+)\([^;{}]*?\)\s*(?:__attribute__\(\(.*?\)\))?"
                       r"\s*;", re.M | re.S)
# a function's definition: the same, then its body on the next line
DEFINITION = re.compile(r"^(?!static|typedef|extern)[a-z][^;{}()=#]*?"
                        r"\b(\w+)\([^;{}]*?\)\s*\n\{", re.M | re.S)
# a variable a header declares, and one defined at file scope
EXTERN_VAR = re.compile(r"^extern\s+[^;(]*?\b(\w+)\s*(?:\[\w*\])?\s*;", re.M)
GLOBAL_VAR = re.compile(r"^(?!static|typedef|extern|struct \w+ \{|enum|union"
                        r"|return)[a-z][^;(){}#]*?\b(\w+)\s*(?:\[\w*\])?"
                        r"\s*(?:=[^;]*)?;", re.M)
HOOK = re.compile(r"^extern[^;]*\(\s*\*\s*(\w+)\s*\)\s*\(", re.M)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def main():
    root, builddir = tree(__doc__)
    texts = {}
    for rel in c_sources(root, builddir):
        if rel.startswith(SKIP):
            continue
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            texts[rel] = f.read()

    defined = {}
    for rel, text in texts.items():
        pats = (DEFINITION, GLOBAL_VAR) if rel.endswith(".c") else ()
        for pat in pats:
            for m in pat.finditer(text):
                defined.setdefault(m.group(1), set()).add(
                    os.path.dirname(rel))
    # a header's definitions under a macro (backends/kmod.h's descriptor
    # part defines fl_kmod_fd) count for its own folder
    for rel, text in texts.items():
        if rel.endswith(".h"):
            for m in GLOBAL_VAR.finditer(text):
                if "=" in m.group(0):
                    defined.setdefault(m.group(1), set()).add(
                        os.path.dirname(rel))

    elsewhere, hooks = [], []
    for rel, text in sorted(texts.items()):
        if not rel.endswith(".h"):
            continue
        folder = os.path.dirname(rel)
        for pat in (PROTOTYPE, EXTERN_VAR):
            for m in pat.finditer(text):
                where = defined.get(m.group(1))
                if where and folder not in where:
                    elsewhere.append("%s:%d: declares %s, defined in %s/"
                                     % (rel, line_of(text, m.start()),
                                        m.group(1),
                                        "/, ".join(sorted(where))))
        for m in HOOK.finditer(text):
            hooks.append("%s:%d: %s is a global function pointer"
                         % (rel, line_of(text, m.start()), m.group(1)))
    return report("declarations", [
        ("what a header declares is defined in its folder", elsewhere),
        ("no header declares a global function pointer", hooks)])


if __name__ == "__main__":
    sys.exit(main())
