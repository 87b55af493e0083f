#!/usr/bin/env python3
"""Write build.ninja for futexlab.

  ./configure.py                  check dependencies, write build.ninja
  ./configure.py --install-deps   apt-get install what is missing, then the same

The build graph comes from the lists below: adding a backend or a workload
is one file plus one entry here. Each workload is compiled once per backend
(the backend's header force-included) so the measured loop inlines the
backend's operations; the generated build/gen/registry.c lists them all.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "tools"))
import ninja_writer  # noqa: E402

VERSION = "0.1.0"

# (name, header in backends/, identifier, extra compiler flags)
BACKENDS = [
    ("futex-private", "futex_private.h", "futex_private", []),
    ("futex-shared", "futex_shared.h", "futex_shared", []),
    ("futex2", "futex2.h", "futex2", []),
    ("futex2-numa", "futex2.h", "futex2_numa", ["-DFL_FUTEX2_NUMA"]),
    ("spin", "spin.h", "spin", []),
    # the futexlab module, one name per hash design (kmod/, docs/kmod.md)
    ("kmod-global", "kmod.h", "kmod_global",
     ["-DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_GLOBAL"]),
    ("kmod-private", "kmod.h", "kmod_private",
     ["-DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_PRIVATE"]),
    ("kmod-numa", "kmod.h", "kmod_numa",
     ["-DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_NUMA"]),
]

# one file each in workloads/
WORKLOADS = [
    "hash",
    "mutex",
    "condvar",
    "pi",
    "wake",
    "wake_parallel",
    "requeue",
    "lock_pi",
    "numa",
    "waitv",
    "rwlock",
    "semaphore",
    "barrier",
    "app",
]

# The code is libraries, one per folder, each with its own public headers;
# the binary is cli/main.c linked with all of them, and every test links the
# same libraries (docs/architecture.md shows how data flows between them).
# A folder includes only the folders below it (the table in
# docs/architecture.md, which tests/layout/test_includes.py holds every
# #include to), so the libraries link in this order, each before the
# ones it needs, and no library needs one that comes before it.
LIBRARIES = [
    # the subcommands: parse flags, call a library, map to exit statuses
    ("cli", ["cell_output.c", "cmd_campaign.c", "cmd_compare.c", "cmd_list.c", "cmd_matrix.c",
             "cmd_merge.c", "cmd_plot.c", "cmd_report.c", "cmd_run.c",
             "estimate.c", "flags.c", "interrupt.c", "matrix_estimate.c",
             "outputs.c",
             "run_args.c", "shards.c", "topology_file.c"]),
    # campaigns: several runs of a matrix per side, interleaved, resumable
    ("campaign", ["compare.c", "drive.c", "execute.c", "hogs.c",
                  "manifest.c", "order.c", "prepare.c", "runs.c",
                  "settings.c", "side.c", "spawn.c"]),
    # a matrix's shards, run on one machine or many, joined into one run
    ("merge", ["read.c", "write.c"]),
    # the matrix engine: matrix files, cells, visits, resume
    ("sweep", ["cells.c", "cost.c", "diff.c", "ini.c", "job.c",
               "job_finalize.c", "job_passes.c", "job_resume.c", "job_rows.c",
               "job_run.c", "load.c", "parse.c", "passes.c", "run.c",
               "shard.c"]),
    # readers of run directories: comparisons, the report, the plots
    ("compare", ["adjust.c", "compare.c", "drift.c", "match.c", "output.c",
                 "plot.c", "runs.c", "runs_judge.c", "runs_match.c",
                 "runs_output.c", "runs_plot.c", "runs_verdict.c",
                 "verdict.c"]),
    ("report", ["fleet.c", "machine.c", "report.c", "tables.c"]),
    ("plot", ["axes.c", "cdf.c", "fleet.c", "gp.c", "run_plots.c", "series.c",
              "special.c", "threads.c", "time_axis.c", "timeline.c"]),
    # the run directory: its one writer and its one reader
    ("rundir", ["columns.c", "csv.c", "hist_file.c", "join.c", "keep.c",
                "meta.c",
                "partial.c",
                "read.c", "read_bins.c", "read_cells.c", "read_distances.c",
                "read_plots.c",
                "read_times.c", "regular.c", "rewrite.c", "write.c",
                "write_at.c"]),
    # (the workloads' objects come here: workload_objects())
    # running cells: forked children, threads, the busy loop, kernel
    # probing, the harness's own overhead, the host's load, the cost of
    # waking an idle CPU
    ("measure", ["busy_loop.c", "cell.c", "cell_child.c", "facts.c",
                 "host_load.c", "idle_wake.c", "overhead.c", "probe.c",
                 "program.c", "rep_merge.c", "sleeping.c",
                 "start_gate.c"]),
    # figures of repetitions and cells: medians and their intervals,
    # percentiles, ratios between runs, fairness; how a figure is written
    ("stats", ["covary.c", "drift.c", "figures.c", "format.c", "geomean.c",
               "percentile.c", "shift.c", "stats.c", "maxt.c"]),
    # what to run: the workload and backend descriptors, option tables,
    # placement policies, run specifications, the keys every workload
    # takes (run's flags and matrix files alike) and thread lists
    ("spec", ["axis_keys.c", "common_keys.c", "options.c", "placement.c",
              "registry_lookup.c", "spec.c", "threads.c",
              "topology.c"]),
    # (the backends' descriptors come here: backend_descriptions())
    # plain data every folder shares: results, histograms, the clock, the
    # sampler, the machine's facts, the hook a program's output is kept by
    ("base", ["clock.c", "hist.c", "keeper.c", "result.c", "sample.c"]),
]
LIBRARY_SOURCES = dict(LIBRARIES)

# backends/ beside the descriptors (one per backend, backend_descriptions())
BACKEND_SOURCES = ["caps.c", "kernel_probe.c"]

# the binary: main() and every library
MAIN = "cli/main.c"

# the conformance suite: these files of tests/conformance/, compiled once per
# backend with its header force-included
CONFORMANCE = ["conformance.c", "waiters.c", "cases_wait.c", "cases_requeue.c",
               "cases_pi.c", "cases_waitv.c"]

# unit tests: tests/unit/<name>.c, each linked with every library (the
# linker takes only what a test calls)
UNIT_TESTS = ["test_csv", "test_hist", "test_numa_topo", "test_options",
              "test_placement", "test_rundir_write", "test_rounds",
              "test_sample", "test_stats", "test_compare_sim",
              "test_empty_rep", "test_busy_loop", "test_rundir_plots",
              "test_time_axis", "test_topology", "test_meta_distances",
              "test_rep_merge", "test_start_gate"]

# The preload shim, libfutexlab-shim.so (shim/, docs/kmod.md): a shared
# library of its own, compiled position-independent with only syscall()
# exported, never linked into futexlab.
SHIM_SOURCES = ["device.c", "futex2.c", "futex_op.c", "interpose.c",
                "kernel.c", "lacking.c", "timeout.c", "waitv.c"]

# The pthread interposer, libfutexlab-interpose.so (interpose/,
# docs/interpose.md): pthread mutexes and condition variables on a lock
# algorithm and backend the environment names; algos.c once per backend
# below, with the backend's header force-included.
INTERPOSE_SOURCES = ["clock.c", "cond.c", "config.c", "mutex.c", "real.c"]
# its conformance suite (tests/interpose/): glibc's outcomes are the
# expectations
INTERPOSE_TEST_SOURCES = ["conform.c", "cases.c"]
INTERPOSE_BACKENDS = ["futex-private", "futex-shared", "kmod-global",
                      "kmod-private", "kmod-numa"]

# its test (tests/shim/): the same futex(2) cases with and without it
SHIM_TEST_SOURCES = ["test_shim.c", "run_case.c", "cases_checks.c",
                     "cases_waitwake.c", "cases_waitv.c", "cases_pi.c",
                     "cases_signals.c", "cases_process.c", "helpers.c"]

# Fuzz targets: tests/fuzz/<name>.c, each linked with the libraries below
# built again by clang with libFuzzer, AddressSanitizer and UBSan; seed
# inputs in tests/fuzz/<name>/seeds, crashes found in .../regressions.
FUZZ_TARGETS = ["fuzz_rundir", "fuzz_matrix", "fuzz_options", "fuzz_resume"]
# what the targets reach: the readers and parsers, and what they call
FUZZ_LIBRARIES = {
    "base": LIBRARY_SOURCES["base"],
    "backends": BACKEND_SOURCES,
    "spec": LIBRARY_SOURCES["spec"],
    "measure": LIBRARY_SOURCES["measure"],
    "stats": LIBRARY_SOURCES["stats"],
    "rundir": LIBRARY_SOURCES["rundir"],
    "sweep": LIBRARY_SOURCES["sweep"],
    "cli": ["flags.c", "outputs.c", "run_args.c"],
}
# clang also warns of unused static inline functions in a .c file, which
# gcc (the real build, -Werror) lets a workload's describe pass keep
FUZZ_CFLAGS = ["-Wno-unknown-warning-option", "-Wno-unused-function",
               "-fsanitize=fuzzer-no-link,address,undefined",
               "-fno-sanitize-recover=undefined", "-O1", "-g",
               "-fno-omit-frame-pointer"]
# `ninja fuzz`: seconds per target (all run at once); `--fuzz-seconds`
FUZZ_SECONDS = 600

# Debian packages the suite needs: (package, what shows it is there)
PACKAGES = [
    ("gcc", "tool:gcc"),
    ("ninja-build", "tool:ninja"),
    ("python3", "tool:python3"),
    ("libnuma-dev", "header:numa.h"),
    ("libhwloc-dev", "header:hwloc.h"),
    ("libjansson-dev", "header:jansson.h"),
    ("libinih-dev", "header:ini.h"),
    ("libcmocka-dev", "header:cmocka.h"),
    ("gnuplot-nox", "tool:gnuplot"),
    ("linux-perf", "tool:perf"),
    ("git", "tool:git"),
    # libFuzzer, AddressSanitizer and UBSan for `ninja fuzz` (tests/fuzz/)
    ("clang", "tool:clang"),
]

# Packages only the engine tests need (tests/fleet/test_slurm.py starts a
# one-node Slurm cluster, test_parallel.py GNU parallel over an sshd:
# docs/fleet.md):
# --install-deps installs them; without them those tests skip, saying why
ENGINE_PACKAGES = [
    ("munge", "tool:munged"),
    ("slurmctld", "tool:slurmctld"),
    ("slurmd", "tool:slurmd"),
    ("slurm-client", "tool:sbatch"),
    ("openssh-server", "tool:sshd"),
    ("openssh-client", "tool:ssh"),
    ("parallel", "tool:parallel"),
]

CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-g", "-Wall", "-Wextra",
          "-Werror", "-pthread", "-fno-strict-aliasing",
          # snprintf truncating a message is the intended, bounded outcome
          "-Wno-format-truncation"]
LIBS = ["-lhwloc", "-lnuma", "-ljansson", "-linih", "-lpthread", "-lm"]

ROOT = os.path.dirname(os.path.abspath(__file__))


def have_header(header):
    probe = "#include <%s>\n" % header
    r = subprocess.run(["cc", "-E", "-x", "c", "-", "-o", os.devnull],
                       input=probe.encode(), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return r.returncode == 0


def missing_packages(packages):
    missing = []
    for pkg, check in packages:
        kind, what = check.split(":", 1)
        if kind == "tool":
            ok = shutil.which(what) is not None
        else:
            ok = shutil.which("cc") is not None and have_header(what)
        if not ok:
            missing.append((pkg, check))
    return missing


def install_packages(names):
    if not names:
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print("configure: apt-get install %s" % " ".join(names), flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq",
                    "--no-install-recommends"] + names, check=True, env=env)


def load_kmod_part():
    """The module and VM runner's part of the build (tools/configure_kmod)."""
    try:
        import configure_kmod
    except ImportError:
        return None
    return configure_kmod


class Ctx:
    """What the sub-configurators see of this build."""

    def __init__(self, args):
        self.args = args
        self.futexlab_binary = built("futexlab")
        self.test_binaries = []
        self.guest_cmd = None   # set by the module's part: the guest tests

    @staticmethod
    def built(path):
        return built(path)

    @staticmethod
    def src(path):
        return src(path)


def src(path):
    return "$root/" + path


def built(path):
    return "$builddir/" + path


def obj_of(path, tag=""):
    base = os.path.splitext(path)[0]
    return built("obj/%s%s.o" % (base, tag))


def write_registry(path, impls=True):
    """build/gen/registry.c: every backend, workload and (workload, backend);
    without impls, the descriptors only (the fuzz targets run no cell)."""
    ids = [b[2] for b in BACKENDS]
    pairs = [(w, i) for w in WORKLOADS for i in ids] if impls else []
    lines = ["/* Generated by configure.py: do not edit. */",
             '#include "spec/workload.h"', ""]
    for i in ids:
        lines.append("extern const struct fl_backend fl_backend_%s;" % i)
    for w in WORKLOADS:
        lines.append("extern const struct fl_workload fl_workload_%s;" % w)
    for p in pairs:
        lines.append("extern const struct fl_workload_impl "
                     "fl_impl_%s__%s;" % p)
    lines.append("")
    lines.append("const struct fl_backend *const fl_backends[] = {")
    lines += ["\t&fl_backend_%s," % i for i in ids]
    lines.append("};")
    lines.append("const unsigned int fl_nbackends = %d;" % len(ids))
    lines.append("const struct fl_workload *const fl_workloads[] = {")
    lines += ["\t&fl_workload_%s," % w for w in WORKLOADS]
    lines.append("};")
    lines.append("const unsigned int fl_nworkloads = %d;" % len(WORKLOADS))
    lines.append("const struct fl_workload_impl *const fl_impls[] = {")
    lines += ["\t&fl_impl_%s__%s," % p for p in pairs] or ["\tNULL,"]
    lines.append("};")
    lines.append("const unsigned int fl_nimpls = %d;" % len(pairs))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w") as f:
            f.write(text)


def write_buildinfo(path, cc):
    """build/gen/buildinfo.h: the flags every object is compiled with,
    for meta.json (the compiler names itself through __VERSION__)."""
    flags = " ".join(CFLAGS).replace("\\", "\\\\").replace('"', '\\"')
    text = ("/* Generated by configure.py: do not edit. */\n"
            '#define FL_BUILD_CFLAGS "%s %s"\n' % (cc, flags))
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w") as f:
            f.write(text)


def git_commit():
    try:
        r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12",
                            "HEAD"], capture_output=True, text=True)
        return r.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--install-deps", action="store_true",
                        help="apt-get install every Debian package needed")
    parser.add_argument("--builddir", default="build",
                        help="where outputs go (default: build)")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--fuzz-seconds", type=int, default=FUZZ_SECONDS,
                        help="how long `ninja fuzz` runs each target "
                        "(default %d)" % FUZZ_SECONDS)
    kmod_part = load_kmod_part()
    if kmod_part:
        kmod_part.add_arguments(parser)
    args = parser.parse_args()
    configure_args = [a for a in sys.argv[1:] if a != "--install-deps"]

    packages = list(PACKAGES)
    if kmod_part:
        packages += [(p, "deb:" + p) for p in kmod_part.DEB_PACKAGES]
    host_missing = missing_packages([p for p in packages
                                     if not p[1].startswith("deb:")])
    if args.install_deps:
        install_packages([p for p, _ in host_missing])
        if kmod_part:
            kmod_part.install_deps()
        host_missing = missing_packages([p for p in packages
                                         if not p[1].startswith("deb:")])
    engines_missing = missing_packages(ENGINE_PACKAGES)
    if args.install_deps and engines_missing and not host_missing:
        try:
            install_packages([p for p, _ in engines_missing])
        except (OSError, subprocess.CalledProcessError) as e:
            print("configure: cannot install the engines' packages (%s)"
                  % e, file=sys.stderr)
        engines_missing = missing_packages(ENGINE_PACKAGES)
    for pkg, check in engines_missing:
        print("configure: note: no %s (Debian package %s): the engine "
              "tests that need it will skip" % (check.split(":", 1)[1], pkg),
              file=sys.stderr)
    if host_missing:
        for pkg, check in host_missing:
            kind, what = check.split(":", 1)
            print("configure: missing %s %s: install the Debian package %s"
                  % (kind, what, pkg), file=sys.stderr)
        print("configure: or run ./configure.py --install-deps (as root)",
              file=sys.stderr)
        return 1

    os.makedirs(args.builddir, exist_ok=True)
    write_registry(os.path.join(args.builddir, "gen", "registry.c"))
    write_registry(os.path.join(args.builddir, "gen", "registry_describe.c"),
                   impls=False)
    write_buildinfo(os.path.join(args.builddir, "gen", "buildinfo.h"),
                    args.cc)
    with open("build.ninja.tmp", "w") as out:
        write_ninja(ninja_writer.Writer(out), args, configure_args, kmod_part)
    os.replace("build.ninja.tmp", "build.ninja")
    print("configure: wrote build.ninja; now run ninja (or ninja test)")
    return 0


def compile_c(n, source, tag="", extra=None, order_only=None):
    """One object from one source; tag tells apart the same source
    compiled with different flags (a workload once per backend)."""
    path = source.replace("$root/", "").replace("$builddir/", "")
    return n.build(obj_of(path, tag), "cc", source, order_only=order_only,
                   variables={"extra": extra} if extra else None)[0]


def library(n, name, sources, objects=(), order_only=None):
    """build/lib/lib<name>.a from its sources and any prebuilt objects."""
    objs = [compile_c(n, s, order_only=order_only) for s in sources]
    return n.build(built("lib/lib%s.a" % name), "ar",
                   objs + list(objects))[0]


def force_include(header, flags):
    """The flags that compile a file against one backend's inline header."""
    return ["-include", "$root/backends/" + header] + flags


def backend_descriptions(n):
    """Each backend's descriptor: backends/describe.c against its header."""
    return [compile_c(n, src("backends/describe.c"), tag="_" + ident,
                      extra=force_include(header, flags)
                      + ["-DFL_BACKEND_DESCRIBE"])
            for name, header, ident, flags in BACKENDS]


def workload_objects(n):
    """Each workload's descriptor, and its loop once per backend."""
    objs = []
    for w in WORKLOADS:
        path = src("workloads/%s.c" % w)
        objs.append(compile_c(n, path, tag="_describe",
                              extra=["-DFL_DESCRIBE"]))
        objs += [compile_c(n, path, tag="__" + ident,
                           extra=force_include(header, flags))
                 for name, header, ident, flags in BACKENDS]
    return objs


def preload_shim(n, link):
    """The shim, its test, and the guest's copy of both with perf: the
    guest suite copies $builddir/tests into the guest, so the shim and the
    perf binary its benchmarks run (tools/vm_perf_shim.py stage-perf)
    are put there too. Returns the outputs `all` builds."""
    n.rule("shlib", "$cc -shared -o $out $in -Wl,-z,defs -pthread -ldl",
           description="LINK $out")
    n.rule("copy", "cp $in $out", description="COPY $out")
    n.rule("stage_perf", "python3 $root/tools/vm_perf_shim.py stage-perf "
           "$out", description="PERF $out")
    objs = [compile_c(n, src("shim/" + s), tag="_pic",
                      extra=["-fPIC", "-fvisibility=hidden"])
            for s in SHIM_SOURCES]
    shim = n.build(built("libfutexlab-shim.so"), "shlib", objs)[0]
    test = link("tests/test_shim",
                [compile_c(n, src("tests/shim/" + s))
                 for s in SHIM_TEST_SOURCES], ["-lcmocka"])
    guest_shim = n.build(built("tests/shim/libfutexlab-shim.so"), "copy",
                         [shim])[0]
    guest_perf = n.build(built("tests/shim/perf"), "stage_perf",
                         implicit=["$root/tools/vm_perf_shim.py"])[0]
    n.build("vm-perf-shim", "run", [shim, guest_shim, guest_perf, test],
            implicit=["$root/tools/vm_perf_shim.py",
                      "$root/tools/perf_shim_guest.sh", built("gen/always")],
            variables={"command": "python3 $root/tools/vm_perf_shim.py run "
                       "--builddir $builddir",
                       "desc": "VM-PERF-SHIM perf bench futex: stock and "
                       "each design (QEMU guest)"})
    return [shim, test, guest_shim, guest_perf]


def pthread_interposer(n, link):
    """libfutexlab-interpose.so, and its copy for the guest suite (which
    copies $builddir/tests into the guest). Uses preload_shim()'s rules.
    Returns the outputs `all` builds."""
    pic = ["-fPIC", "-fvisibility=hidden"]
    objs = [compile_c(n, src("interpose/" + s), tag="_pic", extra=pic)
            for s in INTERPOSE_SOURCES]
    objs += [compile_c(n, src("interpose/algos.c"), tag="_pic_" + ident,
                       extra=pic + force_include(header, flags))
             for name, header, ident, flags in BACKENDS
             if name in INTERPOSE_BACKENDS]
    lib = n.build(built("libfutexlab-interpose.so"), "shlib", objs)[0]
    guest = n.build(built("tests/interpose/libfutexlab-interpose.so"),
                    "copy", [lib])[0]
    # the real programs the guest suite runs through it, where installed
    # (sysbench, rt-tests' pi_stress: tests/guest/interpose.sh)
    staged = [n.build(built("tests/interpose/" + os.path.basename(p)),
                      "copy", [p])[0]
              for p in map(shutil.which, ("sysbench", "pi_stress")) if p]
    conform = link("tests/interpose/conform",
                   [compile_c(n, src("tests/interpose/" + s))
                    for s in INTERPOSE_TEST_SOURCES])
    return [lib, guest, conform] + staged


def kernels_under_test(n, guest_inputs):
    """Kernels built from Debian's linux-source (tools/kernel_build.py,
    docs/kernels.md): not part of `ninja test`, a kernel build is too long
    for every run; each build is cached outside the clone."""
    for profile in ("lab", "debug"):
        n.build("kernel-" + profile, "run", variables={
            "command": "python3 $root/tools/kernel_build.py --version "
            "newest --profile " + profile,
            "desc": "KERNEL newest, %s profile" % profile})
    # vm-test-newest takes the lab tree if built, else the debug tree
    # (--profile built): the stock backends need only a 6.16+ kernel
    for target, profile, suite in (("vm-test-debug", "debug", "guest"),
                                   ("vm-test-newest", "built", "stock")):
        n.build(target, "run", ["all"], implicit=guest_inputs + [
            "$root/tests/vm/stock-newest.sh"], variables={
            "command": "python3 $root/vm/kernel-test --profile %s --suite "
            "%s --builddir $builddir" % (profile, suite),
            "desc": "%s (newest kernel, %s tree, QEMU)"
            % (target.upper(), profile)})


def fuzz_targets(n, version_h):
    """The fuzz targets: the parsers' libraries again, built by clang with
    libFuzzer and the sanitizers, under build/fuzz/."""
    def fuzz_obj(source, tag="", extra=()):
        path = source.replace("$root/", "").replace("$builddir/", "")
        return n.build(built("fuzz/obj/%s%s.o" % (os.path.splitext(path)[0],
                                                  tag)),
                       "fuzz_cc", source, order_only=[version_h],
                       variables={"extra": list(extra)} if extra else None
                       )[0]

    objs = [fuzz_obj(src("%s/%s" % (lib, f)))
            for lib, files in sorted(FUZZ_LIBRARIES.items()) for f in files]
    objs += [fuzz_obj(src("backends/describe.c"), "_" + ident,
                      force_include(header, flags) + ["-DFL_BACKEND_DESCRIBE"])
             for name, header, ident, flags in BACKENDS]
    objs += [fuzz_obj(src("workloads/%s.c" % w), "_describe",
                      ["-DFL_DESCRIBE"]) for w in WORKLOADS]
    objs.append(fuzz_obj(built("gen/registry_describe.c")))
    lib = n.build(built("fuzz/libfuzzed.a"), "ar", objs)[0]
    return [n.build(built("fuzz/" + t), "fuzz_link",
                    [fuzz_obj(src("tests/fuzz/%s.c" % t)), lib])[0]
            for t in FUZZ_TARGETS]


def write_ninja(n, args, configure_args, kmod_part):
    n.comment("Generated by configure.py %s: edit that, not this."
              % " ".join(configure_args))
    n.variable("ninja_required_version", "1.10")
    n.variable("root", ".")
    n.variable("builddir", args.builddir)
    n.variable("cc", args.cc)
    n.variable("cflags", CFLAGS + ["-I$root", "-I$builddir/gen"])
    n.variable("libs", LIBS)
    n.variable("configure_args", " ".join(shlex.quote(a)
                                          for a in configure_args))
    n.newline()

    n.rule("configure", "python3 $root/configure.py $configure_args",
           description="CONFIGURE", generator=True)
    n.rule("cc", "$cc -MMD -MF $out.d $cflags $extra -c $in -o $out",
           description="CC $out", depfile="$out.d", deps="gcc")
    n.rule("version", "sh $root/tools/version.sh $root $out "
           + VERSION, description="VERSION $out", restat=True)
    n.rule("run", "$command", description="$desc", pool="console")
    n.variable("fuzz_cflags", FUZZ_CFLAGS)
    n.rule("fuzz_cc", "clang -MMD -MF $out.d $cflags $fuzz_cflags $extra "
           "-c $in -o $out", description="FUZZ-CC $out", depfile="$out.d",
           deps="gcc")
    n.rule("fuzz_link", "clang -fsanitize=fuzzer,address,undefined -o $out "
           "$in $libs", description="FUZZ-LINK $out")
    n.newline()

    n.build("build.ninja", "configure",
            implicit=["$root/configure.py", "$root/tools/ninja_writer.py"]
            + (["$root/tools/configure_kmod.py"] if kmod_part else []))
    n.newline()

    # the version header changes with the git commit; restat keeps it quiet
    version_h = built("gen/version.h")
    n.build(version_h, "version",
            implicit=["$root/tools/version.sh", built("gen/always")])
    n.build(built("gen/always"), "phony")
    n.newline()

    n.rule("ar", "rm -f $out && ar crs $out $in", description="AR $out")
    # the libraries in dependency order (LIBRARIES); the registry is an
    # object of every link, so any library may look a workload up
    n.rule("link", "$cc -o $out $in $libs_of $ldflags $libs",
           description="LINK $out")
    n.newline()

    libs = []
    for name, srcs in LIBRARIES:
        if name == "measure":
            libs.append(n.build(built("lib/libworkloads.a"), "ar",
                                workload_objects(n))[0])
        if name == "base":
            libs.append(library(n, "backends", [src("backends/" + s)
                                                for s in BACKEND_SOURCES],
                                objects=backend_descriptions(n)))
        libs.append(library(n, name, [src("%s/%s" % (name, s))
                                      for s in srcs],
                            order_only=[version_h]))
    registry = compile_c(n, built("gen/registry.c"))

    def link(out, objs, extra_libs=()):
        return n.build(built(out), "link", objs + [registry], implicit=libs,
                       variables={"libs_of": libs,
                                  "libs": list(extra_libs) + LIBS})[0]

    futexlab = link("futexlab", [compile_c(n, src(MAIN),
                                           order_only=[version_h])])
    n.newline()

    # unit tests (cmocka), the matrix parser against the real registry,
    # and the conformance suite once per backend
    tests = [link("tests/" + t, [compile_c(n, src("tests/unit/%s.c" % t))],
                  ["-lcmocka"]) for t in UNIT_TESTS]
    tests.append(link("tests/test_matrix_parse",
                      [compile_c(n, src("tests/matrix/test_matrix_parse.c"))],
                      ["-lcmocka"]))
    for name, header, ident, flags in BACKENDS:
        objs = [compile_c(n, src("tests/conformance/" + f), tag="__" + ident,
                          extra=force_include(header, flags))
                for f in CONFORMANCE]
        tests.append(link("tests/conformance-" + name, objs, ["-lcmocka"]))
    n.newline()
    tests += preload_shim(n, link)
    tests += pthread_interposer(n, link)
    n.newline()

    # the fidelity benchmark: futexlab's loops against bare ones
    # (tools/fidelity.py, docs/measurement.md); run only when asked, but
    # built by default with the other tools, so that a script run by hand
    # after `ninja` never times a stale bare loop
    bare = n.build(built("tools/fidelity-mutex3"), "link",
                   [compile_c(n, src("tools/fidelity_mutex3.c"))],
                   variables={"libs_of": [], "libs": ["-lpthread"]})[0]
    # a pthread mutex's cost through whichever pthread_mutex_lock binds,
    # glibc's or the interposer's (docs/interpose.md); run only when asked
    interpose_cost = n.build(built("tools/interpose-cost"), "link",
                             [compile_c(n, src("tools/interpose_cost.c"))],
                             variables={"libs_of": [],
                                        "libs": ["-lpthread"]})[0]
    # the interval of a cell's figure, for scripts (tools/median_ci.c)
    median_ci = link("tools/median-ci",
                     [compile_c(n, src("tools/median_ci.c"))])
    n.build("fidelity", "run", [futexlab, bare, median_ci],
            implicit=["$root/tools/fidelity.py", built("gen/always")],
            variables={"command": "python3 $root/tools/fidelity.py "
                       "--builddir $builddir", "desc": "FIDELITY"})
    n.newline()

    ctx = Ctx(args)
    ctx.test_binaries = tests
    guest_test = []
    if kmod_part:
        guest_test = kmod_part.emit(n, ctx) or []

    fuzzers = fuzz_targets(n, version_h)
    n.build("fuzz", "run", fuzzers, variables={
        "command": "python3 $root/tests/fuzz/run.py --builddir $builddir "
                   "--seconds %d" % args.fuzz_seconds,
        "desc": "FUZZ %d s per target" % args.fuzz_seconds})
    n.newline()

    tools = [bare, interpose_cost, median_ci]
    n.build("all", "phony", [futexlab] + tools + tests)
    if kmod_part:
        kernels_under_test(n, guest_test)
    test_cmd = "python3 $root/tests/run.py --builddir $builddir"
    if getattr(ctx, "guest_cmd", None):
        test_cmd += " --guest-cmd " + shlex.quote(ctx.guest_cmd)
    # checkpatch on the module is part of the tests: CI keeps kmod/ clean
    lint = ["lint"] if kmod_part else []
    n.build("test", "run", ["all"], implicit=guest_test + lint + fuzzers,
            variables={"command": test_cmd, "desc": "TEST"})
    # the main job: the default matrix, then its plots and report; the
    # always-dirty input makes it run every time it is asked for
    matrix_inputs = ["$root/matrix/run.sh", built("gen/always")]
    n.build("matrix", "run", [built("futexlab")],
            implicit=matrix_inputs + ["$root/matrix/default.ini"],
            variables={"command": "sh $root/matrix/run.sh "
                       "$builddir/futexlab $root/matrix/default.ini",
                       "desc": "MATRIX matrix/default.ini"})
    if os.path.exists(os.path.join(ROOT, "vm", "run")):
        n.build("matrix-vm", "run", [built("futexlab")],
                implicit=matrix_inputs + ["$root/matrix/vm.ini"],
                variables={"command": "sh $root/matrix/run.sh "
                           "$builddir/futexlab matrix/vm.ini --vm "
                           "$root/vm/run $builddir",
                           "desc": "MATRIX-VM matrix/vm.ini (QEMU guest)"})
    n.default("all")


if __name__ == "__main__":
    sys.exit(main())
