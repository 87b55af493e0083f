"""The external programs the project runs, each mapped to the Debian
package that ships it: what tests/, vm/, tools/, .ci/ and the documented
commands (README.md, docs/) call. tests/layout/test_packages.py reads
those files for the programs they run and fails on one not named here, on
a package neither a minbase Debian 12 root has (MINBASE) nor configure.py
installs (PACKAGES, ENGINE_PACKAGES, the module's DEB_PACKAGES), and,
where dpkg knows the program, on a package that does not ship it.

A program a test needs is required, never optional: where it is missing
the test fails, naming it (README.md, "Two commands").
"""

# program -> the Debian package that ships it (or one that depends on the
# package that does: python3 on python3-minimal, gcc on gcc-12)
PROGRAMS = {
    # a minbase Debian 12 root has these
    "apt-cache": "apt", "apt-get": "apt",
    "awk": "mawk",
    "bash": "bash", "sh": "dash",
    "cat": "coreutils", "cp": "coreutils", "cut": "coreutils",
    "head": "coreutils", "ls": "coreutils", "mkdir": "coreutils",
    "mktemp": "coreutils", "mv": "coreutils", "nice": "coreutils",
    "rm": "coreutils", "sleep": "coreutils", "stat": "coreutils",
    "tail": "coreutils", "timeout": "coreutils", "uname": "coreutils",
    "wc": "coreutils",
    "dpkg-deb": "dpkg", "dpkg-query": "dpkg",
    "git": "git",
    "grep": "grep",
    "gzip": "gzip",
    "hostname": "hostname",
    "ldd": "libc-bin",
    "mount": "mount", "umount": "mount",
    "perl": "perl-base",
    "pidof": "sysvinit-utils",
    "python3": "python3",
    "sed": "sed",
    "tar": "tar",
    "dmesg": "util-linux", "nsenter": "util-linux", "taskset": "util-linux",
    "unshare": "util-linux",
    # configure.py's PACKAGES
    "cc": "gcc",
    "ninja": "ninja-build",
    "gnuplot": "gnuplot-nox",
    "perf": "linux-perf",
    "pgrep": "procps",
    "clang": "clang",
    "sysbench": "sysbench",
    "pi_stress": "rt-tests",
    "lstopo-no-graphics": "hwloc-nox", "hwloc-annotate": "hwloc-nox",
    "insmod": "kmod", "rmmod": "kmod", "modprobe": "kmod",
    "dkms": "dkms",
    "rsync": "rsync",
    "time": "time",
    "valgrind": "valgrind", "callgrind_annotate": "valgrind",
    # ENGINE_PACKAGES
    "munged": "munge",
    "slurmctld": "slurmctld",
    "slurmd": "slurmd",
    "sbatch": "slurm-client", "sinfo": "slurm-client",
    "squeue": "slurm-client",
    "sshd": "openssh-server",
    "ssh": "openssh-client", "ssh-keygen": "openssh-client",
    "parallel": "parallel",
    # the module's DEB_PACKAGES (tools/configure_kmod.py)
    "qemu-system-x86_64": "qemu-system-x86",
    "busybox": "busybox-static",
    "make": "make",
    "ar": "binutils", "strip": "binutils",
}

# The real programs the guest suite runs through the pthread interposer:
# configure.py copies each, where installed, beside the library
# (tools/configure_graph.py, pthread_interposer()); tests/guest/
# interpose.sh fails each case whose program is not there.
GUEST_STAGED = ["sysbench", "pi_stress"]

# What a fresh Debian 12 root has before --install-deps: debootstrap
# --variant=minbase bookworm with python3, git and ca-certificates (the
# packages of `dpkg-query -W` in ../shared/tools/fresh-check.sh's root,
# libraries left out)
MINBASE = [
    "adduser", "apt", "base-files", "base-passwd", "bash", "bsdutils",
    "ca-certificates", "coreutils", "dash", "debconf",
    "debian-archive-keyring", "debianutils", "diffutils", "dpkg",
    "e2fsprogs", "findutils", "git", "gpgv", "grep", "gzip", "hostname",
    "init-system-helpers", "libc-bin", "login", "logsave", "mawk",
    "mount", "ncurses-base", "ncurses-bin", "openssl", "passwd", "perl",
    "perl-base", "python3", "python3-minimal", "readline-common", "sed",
    "sysvinit-utils", "tar", "tzdata", "util-linux", "util-linux-extra",
]
