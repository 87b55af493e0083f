#!/usr/bin/env python3
"""vm/run --tcg: which TCG threading the guest gets, and the values it
refuses.

Multi-threaded TCG (a host thread a vCPU) starves a guest whose vCPUs
far outnumber the host's CPUs (docs/numa.md), so --tcg auto, the
default, runs every vCPU on one host thread once there are more than
TCG_VCPUS_A_CPU vCPUs a host CPU, and keeps a thread a vCPU below that
(the default 4-vCPU guest and the 8-vCPU guest of the numa test on a
2-CPU machine). --tcg single and --tcg multi choose outright, and
$FUTEXLAB_VM_TCG stands for --tcg. The QEMU command line is read, never
run. A mode that is none of auto, single, multi, from the flag or the
environment, and --icount with --tcg multi (-icount needs one thread),
are refused before anything is fetched or booted: exit 2 and one line
on stderr.

  tests/vm/test_tcg_mode.py --builddir build
"""

import os
import sys

from vmtest import Cases, refusal_case, run_cases

cases = Cases()
check = cases.check


def accel(cmd):
    return [cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "-accel"]


def choice_cases(vm):
    per = vm.TCG_VCPUS_A_CPU
    for mode, cpus, host, want in (
            ("auto", 32, 2, "single"),      # the 8-node, 32-vCPU guest
            ("auto", 8, 2, "multi"),        # the numa test's guest
            ("auto", 4, 2, "multi"),        # the default guest
            ("auto", per * 2 + 1, 2, "single"),
            ("auto", per * 2, 2, "multi"),
            ("auto", 32, 8, "multi"),
            ("single", 4, 2, "single"),
            ("multi", 32, 2, "multi")):
        got, why = vm.tcg_threading(mode, cpus, host)
        problems = [] if got == want else ["got %s" % got]
        if mode == "auto" and not ("%d vCPUs on %d host CPUs"
                                   % (cpus, host)) in why:
            problems.append("the reason does not give the counts: %r"
                            % why)
        check("--tcg %s, %d vCPUs on %d host CPUs: %s" % (mode, cpus, host,
                                                          want), problems)


def command_cases(vm):
    os.environ["FUTEXLAB_VM_ACCEL"] = "tcg"     # whatever /dev/kvm says
    for tcg in ("single", "multi"):
        cmd = vm.qemu_command("vmlinuz", "initrd", "serial2", 2048, 8, 32,
                              "", tcg=tcg)
        got = accel(cmd)
        check("tcg=%s reaches QEMU" % tcg,
              [] if got == ["tcg,thread=%s" % tcg] else ["-accel %r" % got])
    cmd = vm.qemu_command("vmlinuz", "initrd", "serial2", 1024, 2, 4, "",
                          icount=True, tcg="multi")
    check("--icount runs single-threaded",
          [] if accel(cmd) == ["tcg,thread=single"] else
          ["-accel %r" % accel(cmd)])


def refused(name, args, want, builddir, env_tcg=None):
    """vm/run with args exits 2 with one stderr line containing want."""
    env = dict(os.environ)
    env.pop("FUTEXLAB_VM_TCG", None)
    if env_tcg is not None:
        env["FUTEXLAB_VM_TCG"] = env_tcg
    check(name, refusal_case(args, builddir, [want], env=env))


def refusal_cases(builddir):
    want = "want auto, single, multi"
    refused("--tcg bogus", ["--tcg", "bogus"], "--tcg bogus", builddir)
    refused("--tcg bogus says what it takes", ["--tcg", "bogus"], want,
            builddir)
    refused("an empty --tcg", ["--tcg", ""], want, builddir)
    refused("--tcg in another case", ["--tcg", "SINGLE"], want, builddir)
    refused("$FUTEXLAB_VM_TCG bogus", [], "FUTEXLAB_VM_TCG", builddir,
            env_tcg="thread=multi")
    refused("--icount --tcg multi", ["--icount", "--tcg", "multi"],
            "needs single-threaded TCG", builddir)


def host_cases(vm):
    choice_cases(vm)
    command_cases(vm)


def main():
    return run_cases(cases, "vm-tcg-mode", host_cases, refusal_cases)


if __name__ == "__main__":
    sys.exit(main())
