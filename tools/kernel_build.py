#!/usr/bin/env python3
"""Build a guest kernel from Debian's linux-source, for vm/run --kernel.

  tools/kernel_build.py [--version 6.12|newest|X.Y] [--profile lab|debug]
                        [--cache DIR] [--jobs N] [--print-tree]

Kernel engineers test futex changes in kernels they build; this makes such
a kernel from Debian's own source packages, so the suite can run on the
newest kernel Debian has and under the kernel's bug detectors:

  1. fetch linux-source-<version> with `apt-get download`. `6.12` (or any
     X.Y this system's suites carry) comes from the system's sources;
     `newest` reads Debian's unstable suite through a private sources
     list, lists and cache under the cache directory, so the system's
     apt configuration is never changed;
  2. extract the tarball into <cache>/<version>-<profile>/ and configure:
     x86-64 defconfig plus kvm_guest.config, then the profile's options
     (PROFILES below), trimmed of drivers a QEMU guest never has;
  3. check that every option the profile needs survived olddefconfig
     (naming each one that did not), then `make bzImage modules` (the
     modules for Module.symvers, which out-of-tree builds need).

Builds are cached outside the clone (default /var/cache/futexlab/kernels,
or $FUTEXLAB_KERNEL_CACHE), keyed by version and profile: a finished tree
holds a `futexlab-kernel.done` stamp and is never rebuilt. The tree is
what `vm/run --kernel TREE` boots and builds the module against.
docs/kernels.md has the build times measured.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

DEFAULT_CACHE = os.environ.get("FUTEXLAB_KERNEL_CACHE",
                               "/var/cache/futexlab/kernels")
UNSTABLE = ("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
            " http://deb.debian.org/debian unstable main\n")
STAMP = "futexlab-kernel.done"

# What the guest suite needs of any kernel (vm/run --kernel checks these
# too, before it boots): modules that load unsigned, the futex options,
# NUMA with emulation, debugfs for the module's statistics, an initramfs
# and a serial console; tmpfs and user namespaces, which Debian's kernels
# have and through which an unprivileged user mounts and unmounts a
# filesystem under the module's waiters (shared-unmount-userns).
GUEST_NEEDS = ["MODULES", "MODULE_UNLOAD", "FUTEX", "FUTEX_PI", "NUMA",
               "NUMA_EMU", "DEBUG_FS", "BLK_DEV_INITRD", "RD_GZIP",
               "DEVTMPFS", "SERIAL_8250", "SERIAL_8250_CONSOLE", "PRINTK",
               "TMPFS", "USER_NS"]
# Options of newer kernels only: set when the source has them.
FUTEX_NEWER = ["FUTEX_PRIVATE_HASH", "FUTEX_MPOL"]
# Drivers and subsystems a QEMU guest booted from an initramfs never
# uses: off, to shorten the build.
TRIM = ["DRM", "SOUND", "USB_SUPPORT", "WLAN", "WIRELESS", "CFG80211",
        "MEDIA_SUPPORT", "HID", "INPUT_JOYSTICK", "INPUT_TABLET",
        "INPUT_TOUCHSCREEN", "NFS_FS", "NETWORK_FILESYSTEMS", "AGP",
        "ETHERNET", "HAMRADIO", "BT", "NFC", "INFINIBAND", "MD",
        "ATA", "SCSI", "FB", "DEBUG_INFO", "DEBUG_INFO_BTF",
        "MODULE_SIG", "MODULE_SIG_FORCE", "SECURITY_LOCKDOWN_LSM",
        # an out-of-tree module built against the tree must load as is
        "MODVERSIONS"]
# Debian packages a kernel build needs beyond gcc and make
BUILD_DEPS = ["bc", "bison", "flex", "libelf-dev", "libssl-dev", "cpio",
              "xz-utils", "dwarves"]
PROFILES = {
    # what the guest needs plus the futex options
    "lab": {"enable": GUEST_NEEDS, "disable": TRIM,
            "other": ["-e", "DEBUG_INFO_NONE"]},
    # plus the kernel's own bug detectors; vm/run adds panic_on_warn=1 to
    # the command line when it boots a tree built with this profile
    "debug": {"enable": GUEST_NEEDS + [
        "KASAN", "KASAN_GENERIC", "KASAN_INLINE", "PROVE_LOCKING",
        "DEBUG_ATOMIC_SLEEP", "SOFTLOCKUP_DETECTOR", "HARDLOCKUP_DETECTOR",
        "DETECT_HUNG_TASK", "DEBUG_LIST", "DEBUG_KERNEL", "LOCKDEP",
        "DEBUG_SPINLOCK", "DEBUG_MUTEXES", "DEBUG_RT_MUTEXES"],
        "disable": TRIM, "other": ["-e", "DEBUG_INFO_NONE"]},
}


def log(msg):
    print("kernel_build: " + msg, file=sys.stderr, flush=True)


def die(msg):
    log(msg)
    sys.exit(1)


def apt_private(cache):
    """apt options reading only Debian unstable, from files under cache."""
    base = os.path.join(cache, "apt")
    lists = os.path.join(base, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    os.makedirs(os.path.join(base, "cache", "archives", "partial"),
                exist_ok=True)
    src = os.path.join(base, "sources.list")
    with open(src, "w") as f:
        f.write(UNSTABLE)
    return ["-o", "Dir::Etc::sourcelist=" + src,
            "-o", "Dir::Etc::sourceparts=-",
            "-o", "Dir::State::Lists=" + lists,
            "-o", "Dir::Cache=" + os.path.join(base, "cache"),
            "-o", "APT::Sandbox::User=root"]


def newest_source(opts):
    """The highest X.Y of linux-source-X.Y the private lists name."""
    subprocess.run(["apt-get", "update", "-qq"] + opts, check=True)
    out = subprocess.run(["apt-cache"] + opts + ["pkgnames",
                                                 "linux-source-"],
                         capture_output=True, text=True, check=True).stdout
    versions = [tuple(int(x) for x in m.groups()) for m in
                re.finditer(r"^linux-source-(\d+)\.(\d+)$", out, re.M)]
    if not versions:
        die("Debian unstable lists no linux-source-X.Y package")
    return "%d.%d" % max(versions)


def install_build_deps():
    missing = [p for p in BUILD_DEPS if subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
        text=True).stdout.strip() != "install ok installed"]
    if not missing:
        return
    if os.geteuid() != 0:
        die("missing build packages: apt-get install %s (as root)"
            % " ".join(missing))
    log("apt-get install %s" % " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "install", "-y", "-qq",
                    "--no-install-recommends"] + missing, check=True,
                   env=env, stdout=subprocess.DEVNULL)


def fetch_tarball(cache, version):
    """Download linux-source-<version> and return its .tar.xz path."""
    opts = []
    if version == "newest":
        opts = apt_private(cache)
        version = newest_source(opts)
    pkg = "linux-source-" + version
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    have = glob.glob(os.path.join(debs, pkg + "_*.deb"))
    if not have:
        log("fetching %s (apt-get download)" % pkg)
        subprocess.run(["apt-get", "download", "-q"] + opts + [pkg],
                       cwd=debs, check=True, stdout=subprocess.DEVNULL)
        have = glob.glob(os.path.join(debs, pkg + "_*.deb"))
    if not have:
        die("apt-get download %s produced no .deb" % pkg)
    deb = sorted(have)[-1]
    unpacked = os.path.join(cache, "debs", pkg)
    tarball = os.path.join(unpacked, "usr", "src", pkg + ".tar.xz")
    if not os.path.exists(tarball):
        subprocess.run(["dpkg-deb", "-x", deb, unpacked], check=True)
    if not os.path.exists(tarball):
        die("%s holds no usr/src/%s.tar.xz" % (deb, pkg))
    return version, tarball


def extract(tarball, tree):
    tmp = tree + ".extract"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log("extracting %s" % os.path.basename(tarball))
    subprocess.run(["tar", "-xf", tarball, "-C", tmp, "--strip-components",
                    "1"], check=True)
    shutil.rmtree(tree, ignore_errors=True)
    os.rename(tmp, tree)


def config_value(tree, option):
    """'y', 'm', a value, or None when .config does not set option."""
    try:
        with open(os.path.join(tree, ".config")) as f:
            for line in f:
                if line.startswith("CONFIG_%s=" % option):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def missing_options(tree, options):
    return [o for o in options if config_value(tree, o) not in ("y", "m")]


def configure(tree, profile, jobs):
    prof = PROFILES[profile]
    make = ["make", "-s", "-C", tree, "-j%d" % jobs]
    subprocess.run(make + ["defconfig", "kvm_guest.config"], check=True)
    args = []
    for o in prof["enable"]:
        args += ["-e", o]
    for o in FUTEX_NEWER:
        if subprocess.run(["grep", "-rqs", "config %s$" % o,
                           os.path.join(tree, "init", "Kconfig")]
                          ).returncode == 0:
            args += ["-e", o]
    for o in prof["disable"]:
        args += ["-d", o]
    args += prof["other"]
    subprocess.run([os.path.join(tree, "scripts", "config"), "--file",
                    os.path.join(tree, ".config")] + args, check=True)
    subprocess.run(make + ["olddefconfig"], check=True)
    lost = missing_options(tree, prof["enable"])
    if lost:
        die("olddefconfig dropped options the %s profile needs: %s"
            % (profile, ", ".join("CONFIG_" + o for o in lost)))


def build(tree, jobs, logpath):
    log("make bzImage modules -j%d (log: %s)" % (jobs, logpath))
    start = time.monotonic()
    with open(logpath, "w") as out:
        # modules too: it writes Module.symvers, which an out-of-tree
        # module's build needs to resolve the kernel's exports
        r = subprocess.run(["nice", "-n", "10", "make", "-C", tree,
                            "-j%d" % jobs, "bzImage", "modules"],
                           stdout=out, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    if r.returncode:
        die("kernel build failed after %.0f s: see %s" % (took, logpath))
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", default="newest",
                    help="6.12 (Debian 12's), newest (Debian unstable's) "
                    "or another X.Y the system's suites carry")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="lab")
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--print-tree", action="store_true",
                    help="print the cached tree's path and exit (status 1 "
                    "when it is not built)")
    args = ap.parse_args()
    if not re.fullmatch(r"newest|\d+\.\d+", args.version):
        print("kernel_build: --version: '%s' is not newest or X.Y"
              % args.version, file=sys.stderr)
        return 2
    os.makedirs(args.cache, exist_ok=True)
    version, tarball = fetch_tarball(args.cache, args.version)
    tree = os.path.join(args.cache, "%s-%s" % (version, args.profile))
    if args.print_tree:
        print(tree)
        return 0 if os.path.exists(os.path.join(tree, STAMP)) else 1
    if os.path.exists(os.path.join(tree, STAMP)):
        # a tree built before the profile gained an option is built
        # again (incrementally), not used as it is
        stale = missing_options(tree, PROFILES[args.profile]["enable"])
        if not stale:
            log("cached: %s" % tree)
            print(tree)
            return 0
        log("cached %s lacks %s: configuring and building it again"
            % (tree, ", ".join("CONFIG_" + o for o in stale)))
        os.unlink(os.path.join(tree, STAMP))
    install_build_deps()
    if not os.path.exists(os.path.join(tree, "Makefile")):
        extract(tarball, tree)
    configure(tree, args.profile, args.jobs)
    took = build(tree, args.jobs, os.path.join(args.cache, "%s-%s.log"
                                               % (version, args.profile)))
    with open(os.path.join(tree, STAMP), "w") as f:
        f.write("version %s\nprofile %s\nbuild_seconds %.0f\njobs %d\n"
                % (version, args.profile, took, args.jobs))
    log("built %s in %.0f s" % (tree, took))
    print(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
