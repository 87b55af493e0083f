#!/usr/bin/env python3
"""Write build.ninja for futexlab.

  ./configure.py                  check dependencies, write build.ninja
  ./configure.py --install-deps   apt-get install what is missing, then the same
  ./configure.py --sanitize       the same under ASan and UBSan, in build-sanitize/

The build graph comes from the lists below: adding a backend or a workload
is one file plus one entry here. Each workload is compiled once per backend
(the backend's header force-included) so the measured loop inlines the
backend's operations; the generated build/gen/registry.c lists them all.
The work is done in tools/: configure_deps.py checks (and installs) the
packages (configure_programs.py maps each program run to its package),
configure_gen.py writes build/gen/, configure_graph.py turns the lists
into build.ninja, and configure_kmod.py adds the module's part.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "tools"))
import configure_deps  # noqa: E402
import configure_gen  # noqa: E402
import configure_graph  # noqa: E402
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

# workloads/lib/'s code that calls no backend: compiled once, into the
# workloads' library, not once per backend
WORKLOAD_LIB_SOURCES = ["numa_choice.c", "numa_topo.c", "regex_bound.c"]

# The code is libraries, one per folder, each with its own public headers;
# the binary is cli/main.c linked with all of them, and every test links the
# same libraries (docs/architecture.md shows how data flows between them).
# A folder includes only the folders below it (the table in
# docs/architecture.md, which tests/layout/test_includes.py holds every
# #include to), so the libraries link in this order, each before the
# ones it needs, and no library needs one that comes before it: the
# table's order, read from its end (the test fails where they differ).
LIBRARIES = [
    # the subcommands: parse flags, call a library, map to exit statuses
    ("cli", ["cell_output.c", "cmd_campaign.c", "cmd_compare.c", "cmd_list.c", "cmd_matrix.c",
             "cmd_merge.c", "cmd_plot.c", "cmd_report.c", "cmd_run.c",
             "estimate.c", "flags.c", "interrupt.c", "matrix_estimate.c", "matrix_visit.c",
             "outputs.c",
             "run_args.c", "shards.c", "topology_file.c"]),
    # campaigns: several runs of a matrix per side, interleaved, resumable
    ("campaign", ["blocks.c", "compare.c", "compare_visits.c", "drive.c", "execute.c", "fresh_binary.c", "hogs.c",
                  "manifest.c", "manifest_blocks.c", "order.c",
                  "prepare.c", "runs.c", "settings.c", "side.c",
                  "spawn.c", "trust.c", "visit.c"]),
    # a matrix's shards, run on one machine or many, joined into one run
    ("merge", ["read.c", "write.c"]),
    # the matrix engine: matrix files, cells, visits, resume
    ("sweep", ["cells.c", "cost.c", "diff.c", "ini.c", "job.c",
               "job_finalize.c", "job_passes.c", "job_record.c",
               "job_resume.c", "job_rows.c",
               "job_run.c", "load.c", "parse.c", "passes.c", "run.c",
               "shard.c"]),
    # readers of run directories: comparisons, the report, the plots
    ("compare", ["adjust.c", "compare.c", "cost.c", "decide.c", "drift.c", "label.c",
                 "match.c",
                 "output.c",
                 "plot.c", "refuse.c", "runs.c", "runs_judge.c", "runs_match.c",
                 "runs_output.c", "runs_plot.c", "runs_verdict.c",
                 "verdict.c"]),
    ("report", ["cost.c", "fleet.c", "machine.c", "report.c", "tables.c"]),
    ("plot", ["axes.c", "cdf.c", "fleet.c", "gp.c", "run_plots.c", "series.c",
              "special.c", "threads.c", "time_axis.c", "timeline.c"]),
    # the run directory: its one writer and its one reader
    ("rundir", ["columns.c", "csv.c", "hist_file.c", "join.c", "keep.c",
                "meta.c",
                "partial.c",
                "read.c", "read_bins.c", "read_cells.c", "read_distances.c",
                "read_meta.c",
                "read_plots.c",
                "read_times.c", "record.c", "record_merge.c", "regular.c",
                "rewrite.c", "same_dir.c",
                "visits.c",
                "write.c",
                "write_at.c"]),
    # (the workloads' objects come here: workload_objects())
    # running cells: forked children, threads, the busy loop, kernel
    # probing, the harness's own overhead, the host's load, the cost of
    # waking an idle CPU, the kernel's counts of the measured threads
    ("measure", ["busy_loop.c", "cell.c", "cell_child.c", "counters.c",
                 "facts.c", "host_load.c", "idle_wake.c", "overhead.c",
                 "probe.c",
                 "program.c", "rep_merge.c", "sleeping.c",
                 "start_gate.c"]),
    # figures of repetitions and cells: medians and their intervals,
    # percentiles, ratios between runs, fairness; how a figure is written
    ("stats", ["cost.c", "covary.c", "drift.c", "figures.c", "format.c",
               "geomean.c", "normal.c", "paired.c", "paired_family.c",
               "sequential.c",
               "percentile.c", "shift.c", "stats.c", "maxt.c"]),
    # what to run: the workload and backend descriptors, option tables,
    # placement policies, run specifications, the keys every workload
    # takes (run's flags and matrix files alike) and thread lists
    ("spec", ["axis_keys.c", "common_keys.c", "options.c", "placement.c",
              "registry_lookup.c", "spec.c", "threads.c",
              "topology.c"]),
    # (the backends' descriptors come here: backend_descriptions())
    # plain data every folder shares: results, histograms, the clock, the
    # sampler, the machine's facts, the escape of text a terminal would
    # act on, the callback a library says its lines through, the hash a
    # matrix file is known by
    ("base", ["clock.c", "hash.c", "hist.c", "result.c", "sample.c",
              "say.c", "text.c"]),
]
LIBRARY_SOURCES = dict(LIBRARIES)

# backends/ beside the descriptors (one per backend, backend_descriptions())
BACKEND_SOURCES = ["caps.c", "kernel_probe.c", "wait_bounds.c"]

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
              "test_rep_merge", "test_start_gate", "test_text",
              "test_paired", "test_rundir_counts", "test_sequential",
              "test_sequential_sim", "test_cost"]
# a unit test's files beside tests/unit/<name>.c, linked into its binary
UNIT_TEST_SOURCES = {
    "test_compare_sim": ["compare_sim_model.c", "compare_sim_workload.c",
                         "compare_sim_campaign.c"],
    "test_sequential_sim": ["seq_sim_noise.c"],
}

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
INTERPOSE_TEST_SOURCES = ["conform.c", "cases.c", "cases_fork.c"]
# the backends it carries (names of BACKENDS; the first is the default):
# its table (build/gen/interpose_backends.c) and their descriptors'
# `interposed` come from this list alone
INTERPOSE_BACKENDS = ["futex-private", "futex-shared", "kmod-global",
                      "kmod-private", "kmod-numa"]

# its test (tests/shim/): the same futex(2) cases with and without it
SHIM_TEST_SOURCES = ["test_shim.c", "run_case.c", "cases_checks.c",
                     "cases_waitwake.c", "cases_waitv.c", "cases_pi.c",
                     "cases_signals.c", "cases_process.c", "helpers.c"]

# Fuzz targets: tests/fuzz/<name>.c, each linked with the libraries below
# built again by clang with libFuzzer, AddressSanitizer and UBSan; seed
# inputs in tests/fuzz/<name>/seeds, crashes found in .../regressions.
FUZZ_TARGETS = ["fuzz_rundir", "fuzz_matrix", "fuzz_options", "fuzz_resume",
                "fuzz_campaign"]
# a target's files beside tests/fuzz/<name>.c
FUZZ_TARGET_SOURCES = {
    "fuzz_resume": ["resume_build.c", "resume_spoils.c", "resume_checks.c"],
    # a campaign folder, built with fuzz_resume's scaffolding
    "fuzz_campaign": ["resume_build.c", "resume_checks.c"],
}
# what the targets reach: the readers and parsers, and what they call
FUZZ_LIBRARIES = {
    "base": LIBRARY_SOURCES["base"],
    "backends": BACKEND_SOURCES,
    "spec": LIBRARY_SOURCES["spec"],
    "measure": LIBRARY_SOURCES["measure"],
    "stats": LIBRARY_SOURCES["stats"],
    "rundir": LIBRARY_SOURCES["rundir"],
    "sweep": LIBRARY_SOURCES["sweep"],
    "campaign": LIBRARY_SOURCES["campaign"],
    "compare": LIBRARY_SOURCES["compare"],
    "plot": LIBRARY_SOURCES["plot"],
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

# Debian packages the suite needs: (package, what shows it is there).
# Every one is required: --install-deps installs them all, and a test that
# needs a program fails where it is missing, never skips (README.md,
# "Two commands"). tools/configure_programs.py maps each program the
# tests, vm/, tools/ and the documented commands run to its package, and
# tests/layout/test_packages.py holds these lists to it.
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
    # pgrep (tests/workloads/test_app.py); not in a minbase Debian
    ("procps", "tool:pgrep"),
    # libFuzzer, AddressSanitizer and UBSan for `ninja fuzz` (tests/fuzz/)
    # and --sanitize: clang only recommends its runtime libraries
    ("clang", "tool:clang"),
    ("libclang-rt-14-dev", "dpkg:libclang-rt-14-dev"),
    # the real programs the guest suite runs through the pthread
    # interposer, staged beside it (tests/guest/interpose.sh)
    ("sysbench", "tool:sysbench"),
    ("rt-tests", "tool:pi_stress"),
    # what the documented commands run: tests/topologies/make.sh, insmod,
    # rmmod and dkms (docs/kmod.md), rsync (docs/fleet.md), time
    # (docs/notebook/)
    ("hwloc-nox", "tool:hwloc-annotate"),
    ("kmod", "tool:insmod"),
    ("rsync", "tool:rsync"),
    ("time", "tool:time"),
    # the interposer's instruction counts (docs/interpose.md)
    ("valgrind", "tool:valgrind"),
    ("dkms", "tool:dkms"),
]

# Packages the engine tests need (tests/fleet/test_slurm.py starts a
# one-node Slurm cluster, test_parallel.py GNU parallel over an sshd:
# docs/fleet.md); required like PACKAGES, listed apart to say what for
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

# `./configure.py --sanitize`: every object and link also under
# AddressSanitizer and UBSan, in its own build directory (build-sanitize),
# where `ninja test` runs SANITIZE_SUITES with a report fatal
# (SANITIZE_ENV). The shim, the module's guest and the fuzz targets
# (sanitized already) are left out of such a build, and the interposer
# an app cell preloads into its program is built plain: a sanitized
# library preloaded into a program without the sanitizers' runtime
# cannot load.
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                  "-fno-omit-frame-pointer"]
SANITIZE_BUILDDIR = "build-sanitize"
# the suites that read untrusted input: matrix files, run directories,
# partials, campaigns, merge, and the unit tests of the readers (not the
# comparison's simulation, which reads nothing: 4 minutes sanitized)
SANITIZE_SUITES = (["unit/" + t for t in UNIT_TESTS + ["test_matrix_parse"]
                    if t not in ("test_compare_sim", "test_sequential_sim")]
                   + ["cli/*", "matrix/*", "fleet/test_merge.py"])
# a report aborts the process, so the suite that ran it fails; leaks are
# not looked for (a command's exit frees what it held)
SANITIZE_ENV = {
    "ASAN_OPTIONS": "halt_on_error=1:abort_on_error=1:detect_leaks=0",
    "UBSAN_OPTIONS": "halt_on_error=1:abort_on_error=1:print_stacktrace=1",
}

ROOT = os.path.dirname(os.path.abspath(__file__))


def load_kmod_part():
    """The module and VM runner's part of the build (tools/configure_kmod).
    Its failing to load fails configure, in one line: a build.ninja
    without the module, lint and the guest's targets would look whole."""
    try:
        import configure_kmod
    except ImportError as e:
        sys.exit("configure: cannot load tools/configure_kmod.py, the "
                 "module's and VM runner's part of the build: %s" % e)
    return configure_kmod


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--install-deps", action="store_true",
                        help="apt-get install every Debian package needed")
    parser.add_argument("--builddir", default=None,
                        help="where outputs go (default: build, or %s with "
                        "--sanitize)" % SANITIZE_BUILDDIR)
    parser.add_argument("--sanitize", action="store_true",
                        help="build with AddressSanitizer and UBSan; "
                        "`ninja test` then runs the suites that read "
                        "untrusted input")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--fuzz-seconds", type=int, default=FUZZ_SECONDS,
                        help="how long `ninja fuzz` runs each target "
                        "(default %d)" % FUZZ_SECONDS)
    kmod_part = load_kmod_part()
    if kmod_part:
        kmod_part.add_arguments(parser)
    args = parser.parse_args()
    if args.builddir is None:
        args.builddir = SANITIZE_BUILDDIR if args.sanitize else "build"
    configure_args = [a for a in sys.argv[1:] if a != "--install-deps"]

    if not configure_deps.check_packages(PACKAGES, ENGINE_PACKAGES,
                                         args.install_deps, kmod_part):
        return 1

    os.makedirs(args.builddir, exist_ok=True)
    gen = os.path.join(args.builddir, "gen")
    configure_gen.write_registry(os.path.join(gen, "registry.c"), BACKENDS,
                                 WORKLOADS)
    configure_gen.write_registry(os.path.join(gen, "registry_describe.c"),
                                 BACKENDS, WORKLOADS, impls=False)
    configure_gen.write_interposer_backends(
        os.path.join(gen, "interpose_backends.c"), BACKENDS,
        INTERPOSE_BACKENDS)
    configure_gen.write_buildinfo(os.path.join(gen, "buildinfo.h"), args.cc,
                                  CFLAGS + (SANITIZE_FLAGS if args.sanitize
                                            else []))
    with open("build.ninja.tmp", "w") as out:
        configure_graph.write_ninja(ninja_writer.Writer(out),
                                    sys.modules[__name__], args,
                                    configure_args, kmod_part)
    os.replace("build.ninja.tmp", "build.ninja")
    print("configure: wrote build.ninja; now run ninja (or ninja test)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
