#!/usr/bin/env python3
"""Every program the project runs comes from a package it installs.

  tests/layout/test_packages.py [--builddir build] [--root DIR]

Reads tests/, vm/, tools/, .ci/, configure.py and the documented commands
(README.md, docs/) for the programs they run (programs_scan.py says how)
and checks, against tools/configure_programs.py:
  - every program found is the project's own (a file of the tree, an
    output of build.ninja, a shell function) or mapped to its package in
    PROGRAMS;
  - every package PROGRAMS names is in a minbase Debian 12 root (MINBASE)
    or installed by configure.py --install-deps (its PACKAGES
    and ENGINE_PACKAGES, the module's DEB_PACKAGES);
  - where dpkg knows the program on this machine, its package (or one
    that package depends on) ships it;
  - what configure.py stages for the guest (GUEST_STAGED) is mapped too.
A program missing makes the test that needs it fail, never skip (README.md,
"Two commands"): this test is what keeps `--install-deps` installing them.
Ends with `packages: N passed, N failed`.
"""

import os
import re
import shutil
import subprocess
import sys

from cases import build_dirs, report, tree
import programs_scan

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDERS = ["tests", "vm", "tools", ".ci", "docs"]
FILES = ["configure.py", "README.md"]


def load_lists(root):
    """configure.py's module, configure_programs and configure_kmod."""
    sys.path[:0] = [root, os.path.join(root, "tools")]
    import configure  # noqa: E402
    import configure_kmod  # noqa: E402
    import configure_programs  # noqa: E402
    return configure, configure_kmod, configure_programs


def own_programs(root, builddir):
    """Names of the tree's files, build.ninja's outputs and the shell
    functions of the tree's scripts: programs the project makes."""
    names = set()
    skip = build_dirs(root, builddir)
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")
                   and os.path.realpath(os.path.join(d, x)) not in skip]
        for f in files:
            names.add(f)
            if f.endswith(".sh"):
                with open(os.path.join(d, f), errors="replace") as fh:
                    names.update(re.findall(r"^\s*([\w-]+)\s*\(\)",
                                            fh.read(), re.M))
    ninja = os.path.join(root, "build.ninja")
    if os.path.exists(ninja):
        with open(ninja) as f:
            for m in re.finditer(r"^build \$builddir/(\S+?)(?::| )",
                                 f.read(), re.M):
                names.add(os.path.basename(m.group(1)))
    return names


def candidate_paths(program):
    """Where the program is on this machine, each path in both its /bin
    and /usr/bin forms (merged /usr: dpkg knows one of them)."""
    found = [p for p in (shutil.which(program),
                         "/usr/sbin/" + program, "/sbin/" + program,
                         "/usr/bin/" + program, "/bin/" + program)
             if p and os.path.exists(p)]
    paths = set()
    for p in found:
        for q in (p, os.path.realpath(p)):
            paths.add(q)
            paths.add(q[4:] if q.startswith("/usr/") else "/usr" + q)
    return paths


def owners(programs):
    """{program: the packages dpkg says ship it}, for the programs found
    on this machine; one dpkg-query call for all (each reads the whole
    database)."""
    if not shutil.which("dpkg-query"):
        return {}
    paths = {p: candidate_paths(p) for p in programs}
    every = sorted(set().union(*paths.values()))
    r = subprocess.run(["dpkg-query", "-S"] + every, capture_output=True,
                       text=True)
    by_path = {}
    for line in r.stdout.splitlines():
        if ": " not in line or line.startswith("diversion"):
            continue
        pkgs, path = line.split(": ", 1)
        by_path[path] = {x.strip().split(":")[0] for x in pkgs.split(",")}
    return {p: set().union(*(by_path.get(q, set()) for q in qs))
            for p, qs in paths.items() if qs}


def depends(pkgs):
    """{package: the packages it depends on}, from dpkg's status."""
    r = subprocess.run(["dpkg-query", "-W", "-f",
                        "${Package}\t${Depends},${Pre-Depends}\n"]
                       + sorted(pkgs), capture_output=True, text=True)
    deps = {}
    for line in r.stdout.splitlines():
        name, _, rest = line.partition("\t")
        deps[name] = set(re.findall(r"(?:^|[,|]\s*)([a-z0-9][\w.+-]*)",
                                    rest))
    return deps


def main():
    root, builddir = tree(__doc__)
    configure, kmod, programs = load_lists(root)
    mapped = programs.PROGRAMS
    installed = {p for p, _ in configure.PACKAGES + configure.ENGINE_PACKAGES}
    installed |= set(kmod.DEB_PACKAGES)
    minbase = set(programs.MINBASE)

    own = own_programs(root, builddir)
    unmapped = []
    seen = set()
    for prog, where in programs_scan.scan(root, FOLDERS, FILES):
        if prog in own or prog in mapped or (prog, where) in seen:
            continue
        seen.add((prog, where))
        unmapped.append("%s: runs %s, which tools/configure_programs.py "
                        "maps to no package" % (where, prog))
    staged = ["GUEST_STAGED: %s is in no PROGRAMS entry" % p
              for p in programs.GUEST_STAGED if p not in mapped]

    uninstalled = ["%s: its package %s is neither in a minbase root nor "
                   "in configure.py's lists: --install-deps would not "
                   "install it" % (prog, pkg)
                   for prog, pkg in sorted(mapped.items())
                   if pkg not in installed and pkg not in minbase]

    wrong = []
    shipped = owners(mapped)
    deps = depends(set(mapped.values()))
    for prog, pkg in sorted(mapped.items()):
        have = shipped.get(prog)
        if have and pkg not in have and not have & deps.get(pkg, set()):
            wrong.append("%s: mapped to %s, but dpkg says %s ships it"
                         % (prog, pkg, ", ".join(sorted(have))))

    return report("packages", [
        ("every program run is the project's or mapped to a package",
         unmapped + staged),
        ("every mapped package is in a minbase root or installed by "
         "--install-deps", uninstalled),
        ("every mapped program this machine has comes from its package",
         wrong),
    ])


if __name__ == "__main__":
    sys.exit(main())
