#!/usr/bin/env python3
"""vm/run --kernel refuses a tree it cannot use, before it boots anything,
and boots a debug tree so that its bug reports reach the console.

A user-built kernel tree must hold a bzImage, a .config and its release,
and the .config must have every option the guest suite needs
(tools/kernel_build.py GUEST_NEEDS); otherwise vm/run exits 2 with one
line naming each thing missing. A tree with KASAN or PROVE_LOCKING boots
with panic_on_warn=1 and a console loglevel that shows KERN_WARNING
(lockdep's reports; the guest's `quiet` hides them), a lab tree with
neither. The trees here are made up (no kernel is built or booted), so
this runs in CI in well under a second. $FUTEXLAB_VM_KERNEL stands for
--kernel (so `FUTEXLAB_VM_KERNEL=TREE ninja matrix-vm` boots TREE).
And the guest's initramfs carries libgcc_s.so.1 beside libc, which glibc
loads itself when a thread exits or is cancelled.

  tests/vm/test_kernel_tree.py --builddir build
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from vmtest import (ROOT, Cases, load_vm_module, load_vm_run,
                    refusal_problems)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kernel_build import GUEST_NEEDS  # noqa: E402

cases = Cases()
check = cases.check


def make_tree(top, options):
    tree = os.path.join(top, "tree")
    os.makedirs(os.path.join(tree, "arch", "x86", "boot"))
    os.makedirs(os.path.join(tree, "include", "config"))
    open(os.path.join(tree, "arch", "x86", "boot", "bzImage"), "w").close()
    with open(os.path.join(tree, "include", "config", "kernel.release"),
              "w") as f:
        f.write("7.2.13-test\n")
    with open(os.path.join(tree, ".config"), "w") as f:
        for o, v in options.items():
            f.write("CONFIG_%s=%s\n" % (o, v))
    return tree


def vm_run(tree, builddir, from_env=False):
    """vm/run with the tree as --kernel, or as $FUTEXLAB_VM_KERNEL."""
    env = dict(os.environ)
    env.pop("FUTEXLAB_VM_KERNEL", None)
    if from_env:
        env["FUTEXLAB_VM_KERNEL"] = tree
    cmd = ([sys.executable, os.path.join(ROOT, "vm", "run"), "--builddir",
            builddir] + ([] if from_env else ["--kernel", tree])
           + ["--", "true"])
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=60, env=env)
    except subprocess.TimeoutExpired:
        # it went on to boot something: the refusal never came
        return subprocess.CompletedProcess(cmd, -1, "", "still running "
                                           "after 60 s (booting?)\n")


def case(name, options, want, builddir, tree=None, from_env=False):
    with tempfile.TemporaryDirectory() as top:
        if tree is None:
            tree = make_tree(top, options)
        r = vm_run(tree, builddir, from_env)
        check(name, refusal_problems(r, want))


def command_line_case(name, options, want_debug):
    """The extra kernel command line vm/run gives a tree with options."""
    vm_run_mod = load_vm_run()
    with tempfile.TemporaryDirectory() as top:
        tree = make_tree(top, options)
        append = vm_run_mod.user_kernel(tree)[3].split()
    problems = []
    level = [int(a.split("=")[1]) for a in append
             if re.fullmatch(r"loglevel=\d+", a)]
    if want_debug:
        if "panic_on_warn=1" not in append:
            problems.append("no panic_on_warn=1 in %r" % append)
        # a message prints when its level is below the console's;
        # KERN_WARNING is 4
        if not level or level[-1] <= 4:
            problems.append("console loglevel hides KERN_WARNING: %r"
                            % append)
    elif append:
        problems.append("a lab tree got %r" % append)
    check(name, problems)


def guest_libs_case():
    """The initramfs carries libgcc_s.so.1 for a dynamic program: glibc
    dlopens it when a thread exits or is cancelled, and ldd does not list
    it (tests/guest/pthread_exit_cancel.c runs that in the guest)."""
    libs = load_vm_module("initramfs").guest_libs([sys.executable])
    problems = []
    if not any(os.path.basename(l).startswith("libc.so") for l in libs):
        problems.append("%s links no libc here: %r" % (sys.executable,
                                                        sorted(libs)))
    gcc_s = [l for l in libs if os.path.basename(l) == "libgcc_s.so.1"]
    if not gcc_s or not all(os.path.exists(l) for l in gcc_s):
        problems.append("no libgcc_s.so.1 among %r" % sorted(libs))
    check("the guest gets libgcc_s.so.1 beside libc", problems)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.parse_args()
    full = {o: "y" for o in GUEST_NEEDS}
    with tempfile.TemporaryDirectory() as builddir:
        case("not a kernel tree", {}, ["not a built kernel tree",
                                       "bzImage"], builddir, tree=builddir)
        lacking = dict(full)
        del lacking["NUMA_EMU"]
        del lacking["DEBUG_FS"]
        case("a tree without NUMA emulation and debugfs", lacking,
             ["CONFIG_NUMA_EMU", "CONFIG_DEBUG_FS"], builddir)
        signed = dict(full, MODULE_SIG_FORCE="y")
        case("a tree that loads only signed modules", signed,
             ["MODULE_SIG_FORCE"], builddir)
        case("$FUTEXLAB_VM_KERNEL is --kernel's default", lacking,
             ["CONFIG_NUMA_EMU", "CONFIG_DEBUG_FS"], builddir,
             from_env=True)
    command_line_case("a KASAN tree: panic_on_warn, warnings on the "
                      "console", dict(full, KASAN="y"), True)
    command_line_case("a lockdep tree: panic_on_warn, warnings on the "
                      "console", dict(full, PROVE_LOCKING="y"), True)
    command_line_case("a lab tree: the command line unchanged", full,
                      False)
    guest_libs_case()
    return cases.close("vm-kernel-tree")


if __name__ == "__main__":
    sys.exit(main())
