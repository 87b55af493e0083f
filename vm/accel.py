"""Which accelerator runs the guest: KVM where it really works, else
TCG, with one host thread for every vCPU or one for all of them."""

import os
import re


def kvm_works():
    """KVM where it really works: $FUTEXLAB_VM_ACCEL (tcg or kvm) decides;
    else a readable /dev/kvm that is not kvm_pvm, on a CPU with vmx or
    svm (under kvm_pvm, -cpu host aborts and other models hang in
    SeaBIOS)."""
    accel = os.environ.get("FUTEXLAB_VM_ACCEL")
    if accel:
        return accel == "kvm"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    if os.path.exists("/sys/module/kvm_pvm"):
        return False
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    return re.search(r"\b(vmx|svm)\b", flags) is not None


TCG_MODES = ("auto", "single", "multi")
# vCPUs a host CPU may carry under multi-threaded TCG before --tcg auto
# runs them all on one thread instead: 8 to 1 ran every cell, its timed
# phases nearer their length than single-threaded; 16 to 1 did not
# (docs/numa.md)
TCG_VCPUS_A_CPU = 8


def host_cpus():
    """The CPUs QEMU's threads may run on: this process's affinity."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def tcg_threading(mode, cpus, host):
    """(thread=, why) for TCG: single-threaded (one host thread runs the
    vCPUs in turn) or multi-threaded (a host thread each). Multi-threaded
    TCG with many more vCPUs than host CPUs starves the guest: a vCPU
    that waits for another (a spinlock, an IPI's answer) spins through
    its host time slice while the one it waits for is not running; one
    thread moves on to the next vCPU at each PAUSE, so the one waited
    for runs soon."""
    if mode != "auto":
        return mode, "--tcg %s" % mode
    if cpus > TCG_VCPUS_A_CPU * host:
        return "single", ("%d vCPUs on %d host CPUs, more than %d a CPU"
                          % (cpus, host, TCG_VCPUS_A_CPU))
    return "multi", ("%d vCPUs on %d host CPUs, at most %d a CPU"
                     % (cpus, host, TCG_VCPUS_A_CPU))


def accel_args(icount, tcg):
    """-accel and -cpu (and -icount) for QEMU; tcg is tcg_threading's
    choice, used when KVM is not."""
    if icount:
        # guest time follows executed instructions (one per nanosecond):
        # a deterministic cost comparison of two code paths in one guest,
        # never a benchmark figure; icount needs single-threaded TCG
        return ["-accel", "tcg,thread=single", "-cpu", "max",
                "-icount", "shift=0,sleep=off"]
    if kvm_works():
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=%s" % tcg, "-cpu", "max"]
