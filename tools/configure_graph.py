"""build.ninja's graph, from configure.py's lists: the rules, each
folder's library, the binary, the tests and the optional parts (the preload
shim, the pthread interposer, the fuzz targets, the kernels under test).

Functions that need the lists take them as `lists`: configure.py's module,
whose upper-case names (BACKENDS, WORKLOADS, LIBRARIES, ...) say what is
built; the module's own part (tools/configure_kmod.py) is passed in as
kmod_part and sees the build through Ctx.
"""

import os
import shlex
import shutil

import configure_programs

# configure.py's modules in tools/: a change to any of them reruns it
CONFIGURE_MODULES = ["configure_deps", "configure_gen", "configure_graph",
                     "configure_programs"]


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



def compile_c(n, source, tag="", extra=None, order_only=None, plain=False):
    """One object from one source; tag tells apart the same source
    compiled with different flags (a workload once per backend); plain:
    never under the sanitizers (a library preloaded into any program)."""
    path = source.replace("$root/", "").replace("$builddir/", "")
    variables = {"extra": extra} if extra else {}
    if plain:
        variables["cflags"] = "$plain_cflags"
    return n.build(obj_of(path, tag), "cc", source, order_only=order_only,
                   variables=variables or None)[0]


def library(n, name, sources, objects=(), order_only=None):
    """build/lib/lib<name>.a from its sources and any prebuilt objects."""
    objs = [compile_c(n, s, order_only=order_only) for s in sources]
    return n.build(built("lib/lib%s.a" % name), "ar",
                   objs + list(objects))[0]


def force_include(header, flags):
    """The flags that compile a file against one backend's inline header."""
    return ["-include", "$root/backends/" + header] + flags


def describe_flags(lists, name, header, flags):
    """The flags that compile backends/describe.c into one backend's
    descriptor: its header, and whether the interposer carries it."""
    interposed = (["-DFL_BACKEND_INTERPOSED=1"]
                  if name in lists.INTERPOSE_BACKENDS else [])
    return (force_include(header, flags) + ["-DFL_BACKEND_DESCRIBE"]
            + interposed)


def backend_descriptions(n, lists):
    """Each backend's descriptor: backends/describe.c against its header."""
    return [compile_c(n, src("backends/describe.c"), tag="_" + ident,
                      extra=describe_flags(lists, name, header, flags))
            for name, header, ident, flags in lists.BACKENDS]


def workload_objects(n, lists):
    """Each workload's descriptor, and its loop once per backend; the
    shared code of workloads/lib/ that calls no backend, once."""
    objs = [compile_c(n, src("workloads/lib/" + s))
            for s in lists.WORKLOAD_LIB_SOURCES]
    for w in lists.WORKLOADS:
        path = src("workloads/%s.c" % w)
        objs.append(compile_c(n, path, tag="_describe",
                              extra=["-DFL_DESCRIBE"]))
        objs += [compile_c(n, path, tag="__" + ident,
                           extra=force_include(header, flags))
                 for name, header, ident, flags in lists.BACKENDS]
    return objs


def preload_shim(n, link, lists):
    """The shim, its test, and the guest's copy of both with perf: the
    guest suite copies $builddir/tests into the guest, so the shim and the
    perf binary its benchmarks run (tools/vm_perf_shim.py stage-perf)
    are put there too. Returns the outputs `all` builds."""
    n.rule("stage_perf", "python3 $root/tools/vm_perf_shim.py stage-perf "
           "$out", description="PERF $out")
    objs = [compile_c(n, src("shim/" + s), tag="_pic",
                      extra=["-fPIC", "-fvisibility=hidden"])
            for s in lists.SHIM_SOURCES]
    shim = n.build(built("libfutexlab-shim.so"), "shlib", objs)[0]
    test = link("tests/test_shim",
                [compile_c(n, src("tests/shim/" + s))
                 for s in lists.SHIM_TEST_SOURCES], ["-lcmocka"])
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


def pthread_interposer(n, link, lists, sanitize=False):
    """libfutexlab-interpose.so, and its copy for the guest suite (which
    copies $builddir/tests into the guest). Uses preload_shim()'s rules.
    Returns the outputs `all` builds. The library is never sanitized: an
    app cell preloads it into any program (one without the sanitizers'
    runtime), so a sanitized build has it plain, and nothing else of it
    (its suite preloads it into a test program of this build)."""
    pic = ["-fPIC", "-fvisibility=hidden"]
    objs = [compile_c(n, src("interpose/" + s), tag="_pic", extra=pic,
                      plain=True)
            for s in lists.INTERPOSE_SOURCES]
    objs += [compile_c(n, src("interpose/algos.c"), tag="_pic_" + ident,
                       extra=pic + force_include(header, flags), plain=True)
             for name, header, ident, flags in lists.BACKENDS
             if name in lists.INTERPOSE_BACKENDS]
    objs.append(compile_c(n, built("gen/interpose_backends.c"), tag="_pic",
                          extra=pic, plain=True))
    lib = n.build(built("libfutexlab-interpose.so"), "shlib", objs)[0]
    if sanitize:
        return [lib]
    guest = n.build(built("tests/interpose/libfutexlab-interpose.so"),
                    "copy", [lib])[0]
    # the real programs the guest suite runs through it, where installed
    # (configure.py requires their packages; tests/guest/interpose.sh
    # fails a case whose program is missing)
    staged = [n.build(built("tests/interpose/" + os.path.basename(p)),
                      "copy", [p])[0]
              for p in map(shutil.which, configure_programs.GUEST_STAGED)
              if p]
    conform = link("tests/interpose/conform",
                   [compile_c(n, src("tests/interpose/" + s))
                    for s in lists.INTERPOSE_TEST_SOURCES])
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


def fuzz_targets(n, version_h, lists):
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
            for lib, files in sorted(lists.FUZZ_LIBRARIES.items())
            for f in files]
    objs += [fuzz_obj(src("backends/describe.c"), "_" + ident,
                      describe_flags(lists, name, header, flags))
             for name, header, ident, flags in lists.BACKENDS]
    objs += [fuzz_obj(src("workloads/%s.c" % w), "_describe",
                      ["-DFL_DESCRIBE"]) for w in lists.WORKLOADS]
    objs += [fuzz_obj(src("workloads/lib/" + s))
             for s in lists.WORKLOAD_LIB_SOURCES]
    objs.append(fuzz_obj(built("gen/registry_describe.c")))
    lib = n.build(built("fuzz/libfuzzed.a"), "ar", objs)[0]
    # a file beside a target may serve several (one object each)
    beside = {f: fuzz_obj(src("tests/fuzz/%s" % f))
              for f in sorted({f for t in lists.FUZZ_TARGETS
                               for f in lists.FUZZ_TARGET_SOURCES.get(t, [])})}
    return [n.build(built("fuzz/" + t), "fuzz_link",
                    [fuzz_obj(src("tests/fuzz/%s.c" % t))]
                    + [beside[f] for f in lists.FUZZ_TARGET_SOURCES.get(t, [])]
                    + [lib])[0]
            for t in lists.FUZZ_TARGETS]


def write_ninja(n, lists, args, configure_args, kmod_part):
    sanitize = getattr(args, "sanitize", False)
    kmod_file = ["$root/tools/configure_kmod.py"] if kmod_part else []
    if sanitize:
        kmod_part = None    # no guest: see configure.py's SANITIZE_FLAGS
    n.comment("Generated by configure.py %s: edit that, not this."
              % " ".join(configure_args))
    n.variable("ninja_required_version", "1.10")
    n.variable("root", ".")
    n.variable("builddir", args.builddir)
    n.variable("cc", args.cc)
    n.variable("plain_cflags", lists.CFLAGS + ["-I$root", "-I$builddir/gen"])
    n.variable("cflags", ["$plain_cflags"]
               + (lists.SANITIZE_FLAGS if sanitize else []))
    n.variable("ldflags", lists.SANITIZE_FLAGS if sanitize else [])
    n.variable("libs", lists.LIBS)
    n.variable("configure_args", " ".join(shlex.quote(a)
                                          for a in configure_args))
    n.newline()

    n.rule("configure", "python3 $root/configure.py $configure_args",
           description="CONFIGURE", generator=True)
    n.rule("cc", "$cc -MMD -MF $out.d $cflags $extra -c $in -o $out",
           description="CC $out", depfile="$out.d", deps="gcc")
    n.rule("version", "sh $root/tools/version.sh $root $out "
           + lists.VERSION, description="VERSION $out", restat=True)
    n.rule("run", "$command", description="$desc", pool="console")
    # the preloaded libraries (the shim, the interposer) and their copies
    n.rule("shlib", "$cc -shared -o $out $in -Wl,-z,defs -pthread -ldl",
           description="LINK $out")
    n.rule("copy", "cp $in $out", description="COPY $out")
    n.variable("fuzz_cflags", lists.FUZZ_CFLAGS)
    n.rule("fuzz_cc", "clang -MMD -MF $out.d $cflags $fuzz_cflags $extra "
           "-c $in -o $out", description="FUZZ-CC $out", depfile="$out.d",
           deps="gcc")
    n.rule("fuzz_link", "clang -fsanitize=fuzzer,address,undefined -o $out "
           "$in $libs", description="FUZZ-LINK $out")
    n.newline()

    n.build("build.ninja", "configure",
            implicit=["$root/configure.py", "$root/tools/ninja_writer.py"]
            + ["$root/tools/%s.py" % m for m in CONFIGURE_MODULES]
            + kmod_file)
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
    for name, srcs in lists.LIBRARIES:
        if name == "measure":
            libs.append(n.build(built("lib/libworkloads.a"), "ar",
                                workload_objects(n, lists))[0])
        if name == "base":
            backend_sources = [src("backends/" + s)
                               for s in lists.BACKEND_SOURCES]
            libs.append(library(n, "backends", backend_sources,
                                objects=backend_descriptions(n, lists)))
        libs.append(library(n, name, [src("%s/%s" % (name, s))
                                      for s in srcs],
                            order_only=[version_h]))
    registry = compile_c(n, built("gen/registry.c"))

    def link(out, objs, extra_libs=()):
        return n.build(built(out), "link", objs + [registry], implicit=libs,
                       variables={"libs_of": libs,
                                  "libs": list(extra_libs) + lists.LIBS})[0]

    futexlab = link("futexlab", [compile_c(n, src(lists.MAIN),
                                           order_only=[version_h])])
    n.newline()

    # unit tests (cmocka), the matrix parser against the real registry,
    # and the conformance suite once per backend
    tests = [link("tests/" + t, [compile_c(n, src("tests/unit/" + f))
                                 for f in [t + ".c"]
                                 + lists.UNIT_TEST_SOURCES.get(t, [])],
                  ["-lcmocka"]) for t in lists.UNIT_TESTS]
    tests.append(link("tests/test_matrix_parse",
                      [compile_c(n, src("tests/matrix/test_matrix_parse.c"))],
                      ["-lcmocka"]))
    for name, header, ident, flags in lists.BACKENDS:
        objs = [compile_c(n, src("tests/conformance/" + f), tag="__" + ident,
                          extra=force_include(header, flags))
                for f in lists.CONFORMANCE]
        tests.append(link("tests/conformance-" + name, objs, ["-lcmocka"]))
    n.newline()
    if not sanitize:
        tests += preload_shim(n, link, lists)
    tests += pthread_interposer(n, link, lists, sanitize)
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

    fuzzers = [] if sanitize else fuzz_targets(n, version_h, lists)
    if fuzzers:
        n.build("fuzz", "run", fuzzers, variables={
            "command": "python3 $root/tests/fuzz/run.py --builddir "
                       "$builddir --seconds %d" % args.fuzz_seconds,
            "desc": "FUZZ %d s per target" % args.fuzz_seconds})
    n.newline()

    tools = [bare, interpose_cost, median_ci]
    n.build("all", "phony", [futexlab] + tools + tests)
    if kmod_part:
        kernels_under_test(n, guest_test)
    test_cmd = "python3 $root/tests/run.py --builddir $builddir"
    if sanitize:
        env = sorted(lists.SANITIZE_ENV.items())
        test_cmd = "env %s %s %s" % (
            " ".join("%s=%s" % kv for kv in env), test_cmd,
            " ".join("--only " + shlex.quote(g)
                     for g in lists.SANITIZE_SUITES))
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
    if os.path.exists(os.path.join(lists.ROOT, "vm", "run")):
        n.build("matrix-vm", "run", [built("futexlab")],
                implicit=matrix_inputs + ["$root/matrix/vm.ini"],
                variables={"command": "sh $root/matrix/run.sh "
                           "$builddir/futexlab matrix/vm.ini --vm "
                           "$root/vm/run $builddir",
                           "desc": "MATRIX-VM matrix/vm.ini (QEMU guest)"})
    n.default("all")
