#!/usr/bin/env python3
"""How much of a repetition's work came before its clock started, from
its first bin, with the cell's controller at SCHED_FIFO and fair.

  python3 docs/notebook/first_bin.py THREADS ROUNDS

Runs one `futexlab run mutex --algo mutex3 --critical 0 --think 0` cell
of 1 s, alternating the tree's build (build/, controller at SCHED_FIFO
when threads outnumber CPUs) with an experiment's build whose controller
stays fair-scheduled (FIFO_EXPERIMENT_BUILD, default /tmp/fifooff/build,
made as fifo_controller_ab.py says). The first bin's count holds every
operation from the gate's opening to the first bin's end, and its width
is measured from the clock's start: the excess is the first bin's
operations beyond the run's median rate over that width, as a fraction
of the run's operations (about 0 when the clock started in time, that
fraction of the work uncounted in time when it started late).
"""
import argparse, csv, glob, os, shutil, statistics, subprocess, tempfile

FAIR = os.environ.get("FIFO_EXPERIMENT_BUILD", "/tmp/fifooff/build")


def run_cell(builddir, threads, duration, extra=(), env=None):
    """One 1-repetition mutex cell: (ops/s, the first bin's excess as a
    fraction of the run's operations)."""
    res = tempfile.mkdtemp()
    try:
        out = subprocess.run(
            [builddir + "/futexlab", "run", "mutex", "--backend",
             "futex-private", "--threads", str(threads), "--duration",
             str(duration), "--reps", "1", "--results", res, "--algo",
             "mutex3", "--critical", "0", "--think", "0"] + list(extra),
            check=True, capture_output=True, text=True, env=env)
        d = out.stdout.strip().splitlines()[-1]
        row = next(csv.DictReader(open(d + "/cells.csv")))
        bins = [l.strip().split(",")
                for l in open(glob.glob(d + "/bins/*.csv")[0])
                if l[0].isdigit()]
    finally:
        shutil.rmtree(res, ignore_errors=True)
    ends = [int(e) for e, _ in bins]
    ops = [int(o) for _, o in bins]
    widths = [ends[0]] + [ends[i] - ends[i - 1] for i in range(1, len(ends))]
    median_rate = statistics.median(o / w for o, w in
                                    zip(ops[1:-1], widths[1:-1]))
    excess = ops[0] - median_rate * widths[0]
    return float(row["ops_per_sec"]), excess / float(row["ops"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("threads", type=int)
    ap.add_argument("rounds", type=int)
    a = ap.parse_args()
    fair_env = dict(os.environ, FL_NO_FIFO_EXPERIMENT="1")
    for r in range(a.rounds):
        for fair in ((True, False) if r % 2 else (False, True)):
            rate, excess = run_cell(FAIR if fair else "build", a.threads, 1,
                                    env=fair_env if fair else None)
            print("%-4s rate %.3g  first bin's excess %.3f of the run's ops"
                  % ("fair" if fair else "FIFO", rate, excess), flush=True)


if __name__ == "__main__":
    main()
