#!/usr/bin/env python3
"""Where a cell's repetitions spend their time, from scheduler events
alone (docs/notebook/2026-12-06-hash-many-threads.md).

  perf record -e sched:sched_switch -e sched:sched_wakeup \\
      -e sched:sched_process_fork -e sched:sched_process_exit -a -o P \\
      -- build/futexlab run hash --threads N --duration 0.2 --reps 1
  perf script -i P -F tid,cpu,time,event,trace > P.txt
  docs/notebook/cell_phases.py P.txt [--duration 0.2]

The controller is the task that made the most threads (the cell's child
process; its own pid is its tid). For each repetition (warm-up first),
a burst of thread creations numbered from 0 (the warm-up first, when
there is one), it prints, in milliseconds from the first
creation:
  created  the last thread made;
  open     the controller's first wake-up of a thread after that: the
           start gate opening (the threads sleep at it until then);
  stop     the first thread's exit: the stop flag seen (a running thread
           sees it within one loop);
  late     stop - open - the duration: how late the stop was set;
  exited   the last thread's exit;
and the controller's waits for a CPU from open to stop: after each
wake-up (its sched_wakeup to the sched_switch onto it) and after each
preemption (switched out still runnable, to switched back in): how
many, the median, the longest and their sum (a wait still going on
when the first thread exits is counted to then). A burst of one thread (the
idle-wake probe's) is not a repetition and is left out.
"""

import argparse
import re

LINE = re.compile(r"^\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(\w+): (.*)$")


def field(rest, name):
    m = re.search(r"\b%s=(\S+)" % name, rest)
    return m.group(1) if m else None


def parse(path):
    events = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                events.append((float(m.group(3)), int(m.group(1)),
                               m.group(4), m.group(5)))
    events.sort(key=lambda e: e[0])
    return events


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("perf_script", help="perf script's output, as above")
    ap.add_argument("--duration", type=float, default=0.2,
                    help="the cell's --duration in seconds (0.2)")
    args = ap.parse_args()
    events = parse(args.perf_script)
    duration_ms = args.duration * 1e3
    made, exits = {}, {}
    for t, cur, ev, rest in events:
        if ev == "sched_process_fork":
            made.setdefault(int(field(rest, "pid")), []).append(
                (t, int(field(rest, "child_pid"))))
        elif ev == "sched_process_exit":
            exits.setdefault(int(field(rest, "pid")), t)
    ctl = max(made, key=lambda p: len(made[p]))
    forks = made[ctl]
    # a repetition's threads are all made before any of them ends: a
    # creation after one of them ended begins the next repetition
    reps, cur_rep, first_end = [], [], float("inf")
    for f in forks:
        if f[0] > first_end:
            reps.append(cur_rep)
            cur_rep, first_end = [], float("inf")
        cur_rep.append(f)
        first_end = min(first_end, exits.get(f[1], float("inf")))
    reps.append(cur_rep)
    print("controller tid %d, %d threads made" % (ctl, len(forks)))
    for i, rep in enumerate(r for r in reps if len(r) > 1):
        tids = {c for _, c in rep}
        t_first, t_made = rep[0][0], rep[-1][0]
        t_open = t_stop = t_exit = None
        ready, waits = None, []
        for t, cur, ev, rest in events:
            if t < t_made:
                continue
            if ev == "sched_wakeup" and t_open is None and cur == ctl and \
                    int(field(rest, "pid")) in tids:
                t_open = t
            elif ev == "sched_process_exit" and \
                    int(field(rest, "pid")) in tids:
                t_stop = t if t_stop is None else t_stop
                t_exit = t
            elif t_open is not None and t_stop is None:
                if ev == "sched_wakeup" and int(field(rest, "pid")) == ctl:
                    ready = t
                elif ev == "sched_switch" and \
                        int(field(rest, "prev_pid")) == ctl and \
                        field(rest, "prev_state").startswith("R"):
                    ready = t
                elif ev == "sched_switch" and ready is not None and \
                        int(field(rest, "next_pid")) == ctl:
                    waits.append(t - ready)
                    ready = None
        if ready is not None and t_stop is not None:
            waits.append(t_stop - ready)  # still waiting at the stop
        if None in (t_open, t_stop):
            print("rep %d: %d threads; no gate opening or no exit seen"
                  % (i, len(tids)))
            continue

        def ms(t):
            return (t - t_first) * 1e3
        waits.sort()
        print("rep %d: %d threads; created %.0f, open %.0f, stop %.0f "
              "(late %.0f), exited %.0f ms; controller: %d waits for a "
              "CPU, p50 %.2f max %.1f ms, sum %.0f ms"
              % (i, len(tids), ms(t_made), ms(t_open), ms(t_stop),
                 (t_stop - t_open) * 1e3 - duration_ms, ms(t_exit),
                 len(waits), waits[len(waits) // 2] * 1e3 if waits else 0,
                 waits[-1] * 1e3 if waits else 0, sum(waits) * 1e3))


if __name__ == "__main__":
    main()
