#!/usr/bin/env python3
"""The first bin's excess (work before the clock started) of a short
mutex cell, futexlab before and after the clock moved ahead of the
gate's opening, alternated.

  T=THREADS [D=SECONDS] python3 docs/notebook/first_bin_old_new.py ROUNDS

Runs `futexlab run mutex --algo mutex3 --critical 0 --think 0 --threads T
--duration D (default 0.2) --warmup 0 --reps 1` with /tmp/old/build (futexlab at
f621995, unpacked by `git archive f621995 | tar -x -C /tmp/old` and
built there as the README says, `ninja build/futexlab` for the binary
alone) and build/ in turn,
and prints each run's rate and its first bin's operations beyond the
run's median rate over the bin's width, as a fraction of the run's
operations (see first_bin.py).
"""
import csv,sys,glob,statistics,subprocess,os,shutil,tempfile
if len(sys.argv) != 2 or not sys.argv[1].isdigit():
    sys.exit(__doc__)
res=tempfile.mkdtemp()
def cell(b, dur):
    out=subprocess.run([b+"/futexlab","run","mutex","--backend","futex-private","--threads",os.environ.get("T","1"),"--duration",dur,"--reps","1","--results",res,"--algo","mutex3","--critical","0","--think","0","--warmup","0","--json"],check=True,capture_output=True,text=True)
    dirs=sorted(glob.glob(res+"/*/"))
    d=dirs[-1]
    row=next(csv.DictReader(open(d+"/cells.csv")))
    lines=[l.strip().split(",") for l in open(glob.glob(d+"/bins/*.csv")[0]) if l[0].isdigit()]
    shutil.rmtree(d)
    ends=[int(a) for a,b in lines]; ops=[int(b) for a,b in lines]
    widths=[ends[0]]+[ends[i]-ends[i-1] for i in range(1,len(ends))]
    med=statistics.median(o/w for o,w in zip(ops[1:-1],widths[1:-1]))
    return float(row["ops_per_sec"]), (ops[0]-med*widths[0])/float(row["ops"])
for r in range(int(sys.argv[1])):
    for name,b in (("old","/tmp/old/build"),("new","build")):
        rate,exc=cell(b,os.environ.get("D","0.2"))
        print(name, "rate %.4g"%rate, "first-bin excess %.4f"%exc, flush=True)
