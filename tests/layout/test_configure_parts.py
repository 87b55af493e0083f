#!/usr/bin/env python3
"""configure.py fails, saying why, when its module part cannot load.

  tests/layout/test_configure_parts.py [--builddir build] [--root DIR]

configure.py builds the kernel module, its lint and the guest's targets
through tools/configure_kmod.py. A copy of configure.py and tools/ is
made with a configure_kmod.py whose import fails; configure must exit
non-zero with one line naming it, where it once wrote a build.ninja
without those targets and said nothing. Ends with `configure parts: N
passed, N failed`.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

from cases import report, tree


def main():
    root, _ = tree(__doc__)
    problems = []
    with tempfile.TemporaryDirectory(prefix="fl-configure-") as tmp:
        shutil.copy(os.path.join(root, "configure.py"), tmp)
        os.mkdir(os.path.join(tmp, "tools"))
        for f in glob.glob(os.path.join(root, "tools", "*.py")):
            shutil.copy(f, os.path.join(tmp, "tools"))
        with open(os.path.join(tmp, "tools", "configure_kmod.py"),
                  "w") as f:
            f.write("import futexlab_no_such_module\n")
        r = subprocess.run([sys.executable, "configure.py", "--builddir",
                            "b"], cwd=tmp, capture_output=True, text=True,
                           timeout=120)
        lines = r.stderr.splitlines()
        if r.returncode == 0:
            problems.append("configure.py exited 0 (stdout: %r)"
                            % r.stdout.strip())
        if len(lines) != 1 or "configure_kmod" not in r.stderr:
            problems.append("stderr is not one line naming "
                            "configure_kmod.py: %r" % r.stderr)
        if os.path.exists(os.path.join(tmp, "build.ninja")):
            problems.append("a build.ninja was written")
    return report("configure parts", [
        ("configure.py fails when tools/configure_kmod.py cannot load",
         problems)])


if __name__ == "__main__":
    sys.exit(main())
