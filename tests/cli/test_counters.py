#!/usr/bin/env python3
"""The kernel's counts of each repetition's threads: cells.csv's
counter columns as `futexlab run` writes them, and the refused case.

- Counted: every ok row has cpu_ns > 0 with its thread's least and most
  in order, run_delay_ns, ctx_switches, cpu_migrations and page_faults,
  steal_ns, and contaminated 0 or 1; cycles, instructions and ref_cycles
  are there exactly when meta.json does not name them unavailable (this
  PMU-less machine: empty, "not supported"). report reads the run back.
- Refused: futexlab run under a seccomp filter that fails
  perf_event_open with ENOSYS (installed here with prctl, before exec)
  still completes; the perf columns are empty, cpu_ns comes from
  schedstat, and meta.json's counters.unavailable names ENOSYS.
- Old runs: a run without the counter columns still reads.

  tests/cli/test_counters.py --builddir build [-k NAME] [-v]
"""

import ctypes
import json
import os
import platform
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "matrix"))
import runs  # noqa: E402
from runs import Skip, check, rows_of  # noqa: E402

PERF_COLS = ("ctx_switches", "cpu_migrations", "page_faults")
PMU_COLS = ("cycles", "instructions", "ref_cycles")
COUNT_COLS = ("cpu_ns", "cpu_ns_thread_min", "cpu_ns_thread_max",
              "run_delay_ns", "run_delay_ns_thread_max") + PERF_COLS + \
    PMU_COLS + ("steal_ns", "contaminated")
RUN = ["run", "mutex", "--backend", "futex-private", "--threads", "1,2",
       "--critical", "200", "--duration", "0.05", "--reps", "2"]

# perf_event_open's number and the audit architecture, by machine
ARCHES = {"x86_64": (298, 0xC000003E), "aarch64": (241, 0xC00000B7)}


def seccomp_refusing_perf():
    """A preexec_fn installing a filter that fails perf_event_open with
    ENOSYS and allows every other call (linux/seccomp.h, linux/filter.h)."""
    if platform.machine() not in ARCHES:
        raise Skip("no perf_event_open number for %s" % platform.machine())
    nr, arch = ARCHES[platform.machine()]
    ld, jeq, ret = 0x20, 0x15, 0x06       # BPF_LD|W|ABS, JMP|JEQ|K, RET|K
    kill, allow, errno = 0x00000000, 0x7fff0000, 0x00050000 | 38
    insns = [(ld, 0, 0, 4),               # seccomp_data.arch
             (jeq, 1, 0, arch), (ret, 0, 0, kill),
             (ld, 0, 0, 0),               # seccomp_data.nr
             (jeq, 0, 1, nr), (ret, 0, 0, errno), (ret, 0, 0, allow)]
    code = b"".join(struct.pack("HBBI", *i) for i in insns)
    buf = ctypes.create_string_buffer(code, len(code))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    prog = Prog(len(insns), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)

    def install():
        # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        if libc.prctl(38, 1, 0, 0, 0) or \
           libc.prctl(22, 2, ctypes.byref(prog), 0, 0):
            os._exit(99)
    return install, (buf, prog)


def run_dir(tmp, preexec=None, env=None):
    results = os.path.join(tmp, "results")
    r = subprocess.run([runs.FL] + RUN + ["--results", results],
                       capture_output=True, text=True, timeout=300,
                       preexec_fn=preexec, env=env)
    check(r.returncode == 0, "run: exit %d\n%s" % (r.returncode,
                                                   r.stderr[-2000:]))
    (name,) = [n for n in os.listdir(results) if not n.startswith(".")]
    d = os.path.join(results, name)
    with open(os.path.join(d, "meta.json")) as f:
        return d, rows_of(os.path.join(d, "cells.csv")), json.load(f)


def whole(row, col):
    v = row[col]
    check(v.isdigit(), "row %s rep %s: %s %r is not a whole number"
          % (row["cell"], row["rep"], col, v))
    return int(v)


def test_counted(tmp):
    d, rows, meta = run_dir(tmp)
    off = meta["counters"]["unavailable"]
    check(rows and all(r["status"] == "ok" for r in rows),
          "not every repetition ok: %r" % [r["status"] for r in rows])
    for r in rows:
        cpu = whole(r, "cpu_ns")
        check(cpu > 0, "cpu_ns 0 in %r" % r)
        check(whole(r, "cpu_ns_thread_min") <= whole(r, "cpu_ns_thread_max")
              <= cpu, "cpu_ns's least, most and sum out of order: %r" % r)
        check(whole(r, "run_delay_ns_thread_max") <=
              whole(r, "run_delay_ns"), "run delay's most above its sum")
        for c in PERF_COLS + ("steal_ns",):
            whole(r, c)
        check(r["contaminated"] in ("0", "1"), "contaminated %r"
              % r["contaminated"])
        for c in PMU_COLS:
            if c in off:
                check(r[c] == "", "%s %r though meta.json says %r"
                      % (c, r[c], off[c]))
            else:
                check(whole(r, c) > 0, "%s counted as 0" % c)
    for c in COUNT_COLS:
        check(c in meta["counters"]["columns"] and
              meta["counters"]["columns"][c]["unit"],
              "meta.json has no unit for %s" % c)
    for c in PERF_COLS:
        check(c not in off, "%s unavailable where perf works: %r"
              % (c, off.get(c)))
    runs.fl("report", d, check_rc=0)


def test_refused(tmp):
    install, keep = seccomp_refusing_perf()
    d, rows, meta = run_dir(tmp, install)
    off = meta["counters"]["unavailable"]
    for c in PERF_COLS + PMU_COLS + ("task_clock",):
        check("ENOSYS" in off.get(c, ""), "meta.json's counters.unavailable"
              " does not name ENOSYS for %s: %r" % (c, off))
    check("schedstat" in off["task_clock"], "cpu_ns's other source not "
          "named: %r" % off["task_clock"])
    for r in rows:
        check(r["status"] == "ok", "a refused counter failed the run: %r"
              % r["reason"])
        for c in PERF_COLS + PMU_COLS:
            check(r[c] == "", "%s %r under a filter refusing perf"
                  % (c, r[c]))
        check(whole(r, "cpu_ns") > 0, "cpu_ns not from schedstat")
        whole(r, "run_delay_ns")
        check(r["contaminated"] in ("0", "1"), "not judged from schedstat")
    runs.fl("report", d, check_rc=0)
    del keep


def test_old_run_reads(tmp):
    d, rows, meta = run_dir(tmp)
    path = os.path.join(d, "cells.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    keep = [i for i, c in enumerate(header) if c not in COUNT_COLS]
    check(len(keep) == len(header) - len(COUNT_COLS), "columns missing")
    # no field of these runs holds a comma except options, quoted
    import csv
    import io
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for fields in csv.reader(lines):
        w.writerow([fields[i] for i in keep])
    with open(path, "w") as f:
        f.write(out.getvalue())
    runs.fl("report", d, check_rc=0)


def test_perf_off(tmp):
    """FUTEXLAB_PERF=off (what the QEMU guest sets): no perf event, the
    reason in meta.json, cpu_ns from schedstat; another value is refused
    in one line, exit 2, before anything runs."""
    d, rows, meta = run_dir(tmp, env=dict(os.environ, FUTEXLAB_PERF="off"))
    off = meta["counters"]["unavailable"]
    for c in PERF_COLS + PMU_COLS + ("task_clock",):
        check("FUTEXLAB_PERF=off" in off.get(c, ""), "meta.json does not "
              "say %s was turned off: %r" % (c, off))
    for r in rows:
        for c in PERF_COLS + PMU_COLS:
            check(r[c] == "", "%s %r with perf turned off" % (c, r[c]))
        check(whole(r, "cpu_ns") > 0, "cpu_ns not from schedstat")
    results = os.path.join(tmp, "bad")
    r = subprocess.run([runs.FL] + RUN + ["--results", results],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, FUTEXLAB_PERF="yes"))
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and
          "FUTEXLAB_PERF: 'yes' is not on or off" in r.stderr,
          "FUTEXLAB_PERF=yes: exit %d, %r" % (r.returncode, r.stderr))
    check(not os.path.exists(results), "FUTEXLAB_PERF=yes made %s" %
          results)


TESTS = [test_counted, test_refused, test_perf_off, test_old_run_reads]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "counters"))
