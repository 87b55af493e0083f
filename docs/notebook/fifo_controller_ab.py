#!/usr/bin/env python3
"""The cell's controller at SCHED_FIFO against fair-scheduled, alternated,
on one `futexlab run mutex --algo mutex3 --critical 0 --think 0` cell.

  python3 docs/notebook/fifo_controller_ab.py THREADS ROUNDS [SECONDS]

Needs a futexlab built with an experiment's switch that is not in the
tree: in measure/cell_child.c's controller_raise(), after
pthread_getschedparam(), `if (getenv("FL_NO_FIFO_EXPERIMENT")) return
-1;` (the 2026-12-07 sittings built it in /tmp/fifooff, the path B
below). Prints each round's rate with the FIFO controller over the rate
without it, their median and 95% interval (build/tools/median-ci), and
each side's median futex calls per acquisition. EXTRA in the
environment adds flags (e.g. EXTRA="--bin 1s").
"""
import argparse, sys, os, csv, subprocess, shutil, tempfile, statistics
B=os.environ.get("FIFO_EXPERIMENT_BUILD", "/tmp/fifooff/build")
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("threads", type=int)
ap.add_argument("rounds", type=int)
ap.add_argument("seconds", nargs="?", default="1")
a = ap.parse_args()
T, R, D = a.threads, a.rounds, a.seconds
res=tempfile.mkdtemp()
def fl(off):
    env=dict(os.environ)
    if off: env["FL_NO_FIFO_EXPERIMENT"]="1"
    out=subprocess.run([B+"/futexlab","run","mutex","--backend","futex-private","--threads",str(T),"--duration",D,"--reps","1","--results",res,"--algo","mutex3","--critical","0","--think","0"]+os.environ.get("EXTRA","").split(),check=True,capture_output=True,text=True,env=env)
    d=out.stdout.strip().splitlines()[-1]
    row=next(csv.DictReader(open(d+"/cells.csv"))); shutil.rmtree(d)
    assert row["status"]=="ok",row
    ex=dict(kv.split("=",1) for kv in row["extra"].split(";") if kv)
    ops=float(row["ops"])
    return float(row["ops_per_sec"]), (float(ex["wait_calls"])+float(ex["wake_calls"]))/ops
ratios=[]; on_all=[]; off_all=[]
for r in range(R):
    if r%2==0: a=fl(False); b=fl(True)
    else: b=fl(True); a=fl(False)
    on_all.append(a); off_all.append(b); ratios.append(a[0]/b[0])
    print("round %d on %.3g (calls %.4f) off %.3g (calls %.4f) on/off %.3f"%(r+1,a[0],a[1],b[0],b[1],a[0]/b[0]),flush=True)
out=subprocess.run(["build/tools/median-ci"],input=" ".join(map(repr,ratios)),capture_output=True,text=True).stdout.split()
print("T=%d on/off median %s [%s, %s]; on median %.4g calls %.4f; off median %.4g calls %.4f"%(T,out[0][:6],out[1][:6],out[2][:6],statistics.median(x[0] for x in on_all),statistics.median(x[1] for x in on_all),statistics.median(x[0] for x in off_all),statistics.median(x[1] for x in off_all)))
