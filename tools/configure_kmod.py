#!/usr/bin/env python3
"""The kernel module's and VM runner's part of the build.

configure.py imports this module and calls, in order:

  add_arguments(parser)   adds --kdir DIR (the kernel build tree for `kmod`)
  DEB_PACKAGES            Debian packages this part needs (list of names)
  install_deps()          under --install-deps: apt-get install them
  emit(n, ctx)            writes the edges below into build.ninja and
                          returns the outputs `ninja test` must run

Edges written by emit():
  kmod       build/kmod/futexlab.ko (Kbuild on a copy of kmod/ in build/kmod/)
  lint       checkpatch.pl --no-tree -f on kmod/ (fetched from the Debian
             package linux-source-6.12 into build/checkpatch/ if needed)
  vm-kernel  fetch the guest kernel and its headers (vm/run --fetch-only)
  vm-test    the guest suites (vm/guest-suites): tests/guest/run-all.sh
             in the default guest and tests/guest/numa-nodes.sh in an
             8-node one, each under vm/run, failing when a guest fails
  vm-fuzz-long  the fuzzer, FUZZ_LONG_OPS operations per design, in a guest
  $builddir/tests/guest/kmodtest, the guest tests' C program (built from
             KMODTEST_SOURCES in tests/guest/)

ctx fields used: args.kdir, built(path), src(path), futexlab_binary,
test_binaries.

build_module(kdir, out) is the module build itself, the one both the
`kmod` edge and vm/run (for the guest's kernel) use.

The same file is the helper the edges run:
  configure_kmod.py build-kmod --kdir DIR --out DIR
  configure_kmod.py lint [--builddir DIR]
  configure_kmod.py ninja [--builddir DIR]   (a standalone build/kmod.ninja,
                                              for working on this part alone)
"""

import argparse
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS_META = "linux-headers-6.12-cloud-amd64"
SOURCE_PKG = "linux-source-6.12"
CHECKPATCH_FILES = ["scripts/checkpatch.pl", "scripts/spelling.txt",
                    "scripts/const_structs.checkpatch"]

# The 6.12 headers meta-package resolves the current ABI at install time
# (and pulls in the matching image package, whose vmlinuz vm/run uses).
DEB_PACKAGES = [
    "qemu-system-x86",
    "busybox-static",
    "make",
    "gcc",
    "libc6-dev",
    "binutils",
    "perl",
    "xz-utils",
    HEADERS_META,
]

GUEST_CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra",
                "-Werror", "-pthread", "-static"]

# The guest tests' C program, one binary: the driver (main, the test
# table), the shared harness, one file per test family.
KMODTEST_SOURCES = ["kmodtest.c", "kmodtest_harness.c", "kmodtest_wait.c",
                    "kmodtest_bad_input.c", "kmodtest_kill9.c",
                    "kmodtest_pi.c", "kmodtest_pi_chain.c",
                    "kmodtest_pi_chain_link.c", "kmodtest_pi_chain_limits.c",
                    "kmodtest_pi_chain_relock.c",
                    "kmodtest_stress.c",
                    "kmodtest_safety.c", "kmodtest_safety_pi.c",
                    "kmodtest_fuzz.c", "kmodtest_fuzz_ops.c",
                    "kmodtest_fuzz_self.c",
                    "kmodtest_owner_death.c",
                    "kmodtest_waitv.c", "kmodtest_adaptive.c",
                    "kmodtest_unmount.c", "kmodtest_boost_end.c",
                    "kmodtest_tid_rights.c", "kmodtest_pi_not_owner.c",
                    "kmodtest_intr_thread.c", "kmodtest_intr.c",
                    "kmodtest_intr_hostile.c"]

# The signal-to-return measurement: its own file and the helpers it shares
# with kmodtest (the harness, the blocked thread of the interruptible tests)
SIGNAL_RETURN_SOURCES = ["signal_return.c", "kmodtest_harness.c",
                         "kmodtest_intr_thread.c"]

# Guest programs linked dynamically, each from one file of tests/guest/:
# what a static binary cannot show (shared libraries glibc loads itself)
GUEST_DYNAMIC_PROGRAMS = ["pthread_exit_cancel"]

# The long fuzzer run (ninja vm-fuzz-long): operations issued per design
# (a killed worker loses the one it was in: above 10^5 completed).
FUZZ_LONG_OPS = 120000


def add_arguments(parser):
    parser.add_argument(
        "--kdir", default=None,
        help="kernel build tree for the module (default: the running "
        "kernel's /lib/modules/$(uname -r)/build if present, else the "
        "Debian 6.12 cloud headers the guest uses)")


def install_deps():
    """apt-get install DEB_PACKAGES (the headers' ABI resolved by apt)."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    missing = [p for p in DEB_PACKAGES if not _installed(p)]
    if not missing:
        return
    print("configure_kmod: apt-get install %s" % " ".join(missing),
          flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq",
                    "--no-install-recommends"] + missing,
                   check=True, env=env)


def _installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg],
                       capture_output=True, text=True)
    return r.returncode == 0 and "install ok installed" in r.stdout


def guest_kver():
    """The 6.12 cloud kernel release the mirror offers now, or None."""
    try:
        out = subprocess.run(["apt-cache", "depends", HEADERS_META],
                             capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"Depends:\s*linux-headers-(\S+)", out)
    return m.group(1) if m else None


def default_kdir():
    running = "/lib/modules/%s/build" % os.uname().release
    if os.path.exists(os.path.join(running, "Makefile")):
        return running
    kver = guest_kver()
    if kver and os.path.isdir("/usr/src/linux-headers-" + kver):
        return "/usr/src/linux-headers-" + kver
    found = sorted(glob.glob("/usr/src/linux-headers-6.12*-cloud-amd64"))
    if found:
        return found[-1]
    if kver:
        return "/usr/src/linux-headers-" + kver
    return running


def _kmod_sources():
    """kmod/'s sources, relative to the repository: what the module build
    copies and its edge depends on, and what lint checks."""
    out = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "kmod")):
        for f in files:
            if f.endswith((".c", ".h")) or f == "Kbuild":
                out.append(os.path.relpath(os.path.join(dirpath, f), ROOT))
    return sorted(out)


def emit(n, ctx):
    """Write the module, lint and guest-test edges; return test deps."""
    kdir = (ctx.args.kdir if ctx.args is not None
            and getattr(ctx.args, "kdir", None) else default_kdir())
    helper = ctx.src("tools/configure_kmod.py")
    runner = ctx.src("vm/run")
    n.comment("The futexlab module, its lint and the QEMU guest "
              "(tools/configure_kmod.py).")
    n.variable("kdir", kdir)
    n.rule("kmod_build",
           "python3 %s build-kmod --kdir $kdir --out $outdir" % helper,
           description="KBUILD $out")
    n.rule("kmod_lint", "python3 %s lint --builddir $builddir" % helper,
           description="CHECKPATCH kmod/", pool="console")
    n.rule("kmod_vm", "$command", description="$desc", pool="console")
    n.rule("kmod_guest_cc", "${cc} %s -o $out $in" % " ".join(GUEST_CFLAGS),
           description="CC $out")
    n.rule("guest_cc_dynamic", "${cc} %s -o $out $in" % " ".join(
        f for f in GUEST_CFLAGS if f != "-static"), description="CC $out")

    ko = ctx.built("kmod/futexlab.ko")
    n.build(ko, "kmod_build", [ctx.src(s) for s in _kmod_sources()],
            variables={"outdir": ctx.built("kmod")})
    n.build("kmod", "phony", [ko])
    n.build("lint", "kmod_lint", implicit=[ctx.src(s)
                                           for s in _kmod_sources()])

    kmodtest = ctx.built("tests/guest/kmodtest")
    n.build(kmodtest, "kmod_guest_cc",
            [ctx.src("tests/guest/" + s) for s in KMODTEST_SOURCES],
            implicit=[ctx.src("tests/guest/kmodtest.h"),
                      ctx.src("tests/guest/kmodtest_intr.h"),
                      ctx.src("tests/guest/kmodtest_fuzz.h"),
                      ctx.src("tests/guest/kmodtest_pi_chain.h"),
                      ctx.src("kmod/uapi/futexlab.h")])

    # the signal-to-return figure of docs/kmod.md (run by hand in a guest)
    signal_return = ctx.built("tests/guest/signal_return")
    n.build(signal_return, "kmod_guest_cc",
            [ctx.src("tests/guest/" + s) for s in SIGNAL_RETURN_SOURCES],
            implicit=[ctx.src("tests/guest/kmodtest.h"),
                      ctx.src("tests/guest/kmodtest_intr.h"),
                      ctx.src("kmod/uapi/futexlab.h")])

    n.build("vm-kernel", "kmod_vm", variables={
        "command": "python3 %s --builddir $builddir --fetch-only" % runner,
        "desc": "VM-KERNEL"})

    dynamic = [n.build(ctx.built("tests/guest/" + p), "guest_cc_dynamic",
                       [ctx.src("tests/guest/%s.c" % p)])[0]
               for p in GUEST_DYNAMIC_PROGRAMS]

    guest_inputs = [kmodtest, signal_return,
                    ctx.src("tests/guest/run-all.sh"),
                    ctx.src("tests/guest/numa-nodes.sh")] + dynamic
    guest_inputs += list(ctx.test_binaries or [])
    if ctx.futexlab_binary:
        guest_inputs.append(ctx.futexlab_binary)
    includes = ["$builddir/tests", "tests/guest"]
    if ctx.futexlab_binary:
        includes.append(ctx.futexlab_binary)
    command = ("python3 %s --builddir $builddir --timeout 1200 "
               "--results-out $builddir/vm/results %s"
               % (ctx.src("vm/guest-suites"),
                  " ".join("--include " + i for i in includes)))
    n.build("vm-test", "kmod_vm",
            implicit=guest_inputs + [ctx.src("vm/guest-suites")],
            variables={"command": command, "desc": "VM-TEST (QEMU guest)"})
    # the long fuzzer run, not part of `ninja test`
    fuzz = ("python3 %s --builddir $builddir --timeout 5400 "
            "--include $builddir/tests/guest -- "
            "$builddir/tests/guest/kmodtest --seed 1 --fuzz-ops %d "
            "--fuzz-seconds 1700 fuzz" % (runner, FUZZ_LONG_OPS))
    n.build("vm-fuzz-long", "kmod_vm", implicit=[kmodtest],
            variables={"command": fuzz,
                       "desc": "VM-FUZZ-LONG (QEMU guest)"})
    n.newline()
    # `ninja test` runs the guest itself (tests/run.py --guest-cmd), so
    # the guest's counts join the one closing line
    ctx.guest_cmd = command
    return guest_inputs


# ------------------------------------------------------------------ helpers
def build_module(kdir, out):
    """Build kmod/ against the kernel build tree kdir in the folder out,
    which gets a copy of kmod/'s sources (the source tree stays clean);
    a file is copied only when it changed, so Kbuild rebuilds only what
    did. Returns (ok, what Kbuild and make printed, or why it could not
    start); out/futexlab.ko is the module."""
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    for rel in _kmod_sources():
        dst = os.path.join(out, os.path.relpath(rel, "kmod"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        src = os.path.join(ROOT, rel)
        if (not os.path.exists(dst)
                or open(dst, "rb").read() != open(src, "rb").read()):
            shutil.copyfile(src, dst)
    if not os.path.exists(os.path.join(kdir, "Makefile")):
        return False, ("kmod: no kernel build tree at %s: install the "
                       "headers (./configure.py --install-deps, or apt-get "
                       "install %s) or pass --kdir\n" % (kdir, HEADERS_META))
    r = subprocess.run(["make", "-s", "-C", kdir, "M=" + out, "modules"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return r.returncode == 0, r.stdout


def cmd_build_kmod(args):
    """The `kmod` edge: the module in --out, Kbuild's words shown (its
    warnings too when it builds)."""
    ok, output = build_module(args.kdir, args.out)
    sys.stderr.write(output)
    return 0 if ok else 1


def fetch_checkpatch(dest):
    """Extract checkpatch.pl and its data files from linux-source-6.12."""
    script = os.path.join(dest, "scripts", "checkpatch.pl")
    if os.path.exists(script):
        return script
    os.makedirs(dest, exist_ok=True)
    debs = [d for d in os.listdir(dest) if d.startswith(SOURCE_PKG + "_")]
    if not debs:
        print("lint: fetching %s (apt-get download) for checkpatch.pl"
              % SOURCE_PKG, flush=True)
        r = subprocess.run(["apt-get", "download", "-q", "-o",
                            "APT::Sandbox::User=root", SOURCE_PKG],
                           cwd=dest, stdout=subprocess.DEVNULL)
        debs = [d for d in os.listdir(dest)
                if d.startswith(SOURCE_PKG + "_")]
        if r.returncode or not debs:
            return None
    fsys = subprocess.Popen(["dpkg-deb", "--fsys-tarfile",
                             os.path.join(dest, debs[0])],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    with tarfile.open(fileobj=fsys.stdout, mode="r|") as outer:
        for m in outer:
            if m.name.endswith("linux-source-6.12.tar.xz"):
                inner = outer.extractfile(m)
                _extract_checkpatch(inner, dest)
                break
    fsys.stdout.close()
    fsys.wait()
    return script if os.path.exists(script) else None


def _extract_checkpatch(fileobj, dest):
    wanted = set(CHECKPATCH_FILES)
    with tarfile.open(fileobj=fileobj, mode="r|xz") as tf:
        for m in tf:
            rel = m.name.split("/", 1)[-1]
            if rel in wanted and m.isfile():
                path = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(tf.extractfile(m).read())
                wanted.discard(rel)
                if not wanted:
                    break


def cmd_lint(args):
    dest = os.path.join(args.builddir, "checkpatch")
    script = fetch_checkpatch(dest)
    if not script:
        print("lint: checkpatch.pl is absent: the Debian package %s could "
              "not be fetched (apt-get download %s); kmod/ NOT checked"
              % (SOURCE_PKG, SOURCE_PKG), file=sys.stderr)
        return 1
    files = [os.path.join(ROOT, s) for s in _kmod_sources()
             if s.endswith((".c", ".h"))]
    r = subprocess.run(["perl", script, "--no-tree", "-f", "--no-summary",
                        "--terse"] + [os.path.relpath(f) for f in files],
                       capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode or r.stdout.strip():
        print("lint: checkpatch found problems in kmod/", file=sys.stderr)
        return 1
    print("lint: checkpatch --no-tree -f: %d files in kmod/ clean"
          % len(files))
    return 0


class _StandaloneCtx:
    def __init__(self, args):
        self.args = args
        self.futexlab_binary = None
        self.test_binaries = []

    @staticmethod
    def built(path):
        return "$builddir/" + path

    @staticmethod
    def src(path):
        return "$root/" + path


def cmd_ninja(args):
    """build/kmod.ninja: this part alone (ninja -f build/kmod.ninja ...)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ninja_writer
    os.makedirs(args.builddir, exist_ok=True)
    path = os.path.join(args.builddir, "kmod.ninja")
    with open(path, "w") as out:
        n = ninja_writer.Writer(out)
        n.variable("root", ".")
        n.variable("builddir", args.builddir)
        n.variable("cc", os.environ.get("CC", "cc"))
        emit(n, _StandaloneCtx(args))
    print("wrote %s: ninja -f %s kmod|lint|vm-kernel|vm-test" % (path, path))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build-kmod")
    b.add_argument("--kdir", required=True)
    b.add_argument("--out", required=True)
    lint = sub.add_parser("lint")
    lint.add_argument("--builddir", default="build")
    nj = sub.add_parser("ninja")
    nj.add_argument("--builddir", default="build")
    add_arguments(nj)
    args = ap.parse_args(argv)
    return {"build-kmod": cmd_build_kmod, "lint": cmd_lint,
            "ninja": cmd_ninja}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
