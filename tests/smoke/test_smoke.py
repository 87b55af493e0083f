#!/usr/bin/env python3
"""Every workload on every available backend, at a tiny size.

  tests/smoke/test_smoke.py --builddir build [--workload NAME ...]

For each workload that `futexlab list --json` lists, one run over every
backend it lists as available (`--threads 2 --duration 0.1 --reps 1
--warmup 0`, a fresh temporary --results), sweeping every variant the
workload offers: each sweepable enum option over its named (non-numeric)
choices and each sweepable yes/no option over both, so the requeue, PI
and other paths behind options run in CI too. New workloads and backends are
picked up from the listing, with nothing to edit here. Each row of the
run's cells.csv is one case:
  ok       passes if it measured something (ops > 0);
  skipped  passes as skipped, and its reason is printed;
  failed or aborted fails (a broken invariant: mutual exclusion, a wake
           count, a stuck cell), with its reason.
The run itself must exit 0, or 1 when a row failed; anything else (a
usage error, a crash, a timeout, no run directory, or 3: no cell ran)
fails the workload, and so does a workload that ran ok on no backend at
all: a workload runnable nowhere must not pass as all skipped.
Ends with `smoke: N passed, N failed, N skipped`.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SIZE = ["--threads", "2", "--duration", "0.1", "--reps", "1",
        "--warmup", "0"]
# per workload, over all its backends: tiny cells, a slow shared machine
TIMEOUT = 120

passed = failed = skipped = 0


def fail(what, why):
    global failed
    failed += 1
    print("FAIL %s: %s" % (what, why))


def variant_flags(options):
    """Sweep flags covering the workload's variants (see the docstring)."""
    flags = []
    for o in options:
        if not o.get("sweep"):
            continue
        if o["type"] == "enum":
            named = [c for c in o["choices"] if not c.isdigit()]
            if len(named) > 1:
                flags += ["--" + o["name"], ",".join(named)]
        elif o["type"] == "bool":
            flags += ["--" + o["name"], "no,yes"]
    return flags


def smoke_workload(futexlab, workload, backends, options, fixed_threads):
    global passed, skipped
    results = tempfile.mkdtemp(prefix="fl-smoke-")
    size = list(SIZE)
    if fixed_threads:   # pi runs its three roles and takes no other count
        size[1] = str(fixed_threads)
    cmd = [futexlab, "run", workload, "--backend", ",".join(backends)] + \
        size + variant_flags(options) + ["--results", results]
    start = time.monotonic()
    try:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=TIMEOUT, cwd=ROOT)
        except subprocess.TimeoutExpired:
            fail(workload, "no result within %d s: %s"
                 % (TIMEOUT, " ".join(cmd)))
            return
        took = time.monotonic() - start
        if r.returncode == 3:
            fail(workload, "no cell ran on any available backend (%s): "
                 "every one was skipped" % ", ".join(backends))
            return
        if r.returncode not in (0, 1):
            fail(workload, "exit status %d: %s" % (r.returncode,
                                                   r.stderr.strip()[-500:]))
            return
        lines = r.stdout.strip().splitlines()
        run_dir = lines[-1] if lines else ""
        cells = os.path.join(run_dir, "cells.csv")
        if not run_dir.startswith(results) or not os.path.exists(cells):
            fail(workload, "no run directory (last stdout line %r); "
                 "stderr: %s" % (run_dir, r.stderr.strip()[-300:]))
            return
        with open(cells) as f:
            rows = list(csv.DictReader(f))
        seen = set()
        bad_rows = 0
        for row in rows:
            what = "%s on %s (%s threads, %s)" % (
                workload, row["backend"], row["threads"], row["options"])
            seen.add(row["backend"])
            status = row["status"]
            if status == "ok":
                if int(row["ops"] or 0) > 0:
                    passed += 1
                    print("ok   %s: %s ops" % (what, row["ops"]))
                else:
                    fail(what, "status ok but it measured nothing "
                         "(ops 0)")
                    bad_rows += 1
            elif status == "skipped":
                skipped += 1
                print("skip %s: %s" % (what, row["reason"]))
            else:
                fail(what, "%s: %s" % (status, row["reason"]))
                bad_rows += 1
        if not any(row["status"] == "ok" for row in rows):
            fail(workload, "ran on none of the available backends")
        for b in backends:
            if b not in seen:
                fail("%s on %s" % (workload, b), "no row in cells.csv")
        if r.returncode == 1 and not bad_rows:
            fail(workload, "exit status 1 but no row failed: %s"
                 % r.stderr.strip()[-300:])
        print("     (%s: %d rows in %.1f s)" % (workload, len(rows), took))
    finally:
        shutil.rmtree(results, ignore_errors=True)


def main():
    global skipped
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--workload", action="append", default=[],
                    help="only this workload (repeatable)")
    args = ap.parse_args()
    futexlab = os.path.abspath(os.path.join(ROOT, args.builddir,
                                            "futexlab"))
    try:
        r = subprocess.run([futexlab, "list", "--json"], capture_output=True,
                           text=True, timeout=60, cwd=ROOT)
        doc = json.loads(r.stdout) if r.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        doc = None
        print("futexlab list --json: %s" % e)
    if not doc or not doc.get("workloads") or not doc.get("backends"):
        fail("futexlab list --json", "no workloads and backends listed")
    else:
        backends = [b["name"] for b in doc["backends"] if b.get("available")]
        missing = [b for b in doc["backends"] if not b.get("available")]
        for w in doc["workloads"]:
            if args.workload and w["name"] not in args.workload:
                continue
            smoke_workload(futexlab, w["name"], backends,
                           w.get("options", []), w.get("fixed_threads"))
            for b in missing:
                skipped += 1
                print("skip %s on %s: backend unavailable: %s"
                      % (w["name"], b["name"], b.get("reason")))
    print("smoke: %d passed, %d failed, %d skipped"
          % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
