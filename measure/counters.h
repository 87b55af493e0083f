/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel counts for each measured thread over a repetition:
 * through perf_event_open on the thread itself (task-clock, context
 * switches, migrations, page faults; cycles, instructions and
 * ref-cycles where a PMU counts them), its run-queue wait from
 * /proc/thread-self/schedstat, and the machine's steal time from
 * /proc/stat, read by the controller.
 *
 * A thread opens its counters before the start gate and reads them after
 * its loop returned: nothing here runs inside a measured loop. A counter
 * that cannot be opened (refused, absent, no descriptor left) is not
 * counted, and nothing fails.
 */
#ifndef FUTEXLAB_MEASURE_COUNTERS_H
#define FUTEXLAB_MEASURE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/machine.h"
#include "base/result.h"

#define FL_NPERF	(FL_SRC_REF_CYCLES + 1)	/* perf events */

/* One measured thread's counting: its own slot, written by it alone. */
struct fl_thread_count {
	int fd[FL_NPERF];		/* -1: not open */
	int sched_fd;
	uint64_t v0[FL_NPERF];		/* the values before the gate */
	unsigned int read0;		/* the events read there, as bits */
	uint64_t sched0[2];		/* schedstat's cpu and run delay */
	struct fl_rep_counts got;	/* the thread's differences */
};

/*
 * In the cell's process, before its repetitions: raise the descriptor
 * limit's soft value to the hard one (a thread opens up to 8), and note
 * which events open here, so no thread tries one that cannot.
 */
void fl_counters_prepare(void);
/*
 * No perf event opened from now on, by this process and its cells, with
 * why for meta.json; schedstat and steal are still read. For a kernel
 * where perf's per-task events are unsafe to switch on and off: under
 * QEMU's TCG, the static key they flip (perf_sched_events) is patched
 * with int3 while other vCPUs run the code, and a guest oopsed in
 * finish_task_switch (docs/measurement.md).
 */
void fl_counters_perf_off(const char *why);

/* What each of a repetition's nthreads threads may open: the bits of
 * the perf events (by enum fl_count_source) and FL_COUNT_SCHED, as the
 * descriptor limit allows with room kept for the harness and the
 * workload: everything, schedstat alone (4096 threads under a hard
 * limit of 20000), or nothing. */
#define FL_COUNT_SCHED	(1u << FL_SRC_SCHEDSTAT)
unsigned int fl_counters_plan(unsigned int nthreads);

/* In the thread, before the gate: open what plan allows and take the
 * starting values. */
void fl_counters_open(struct fl_thread_count *c, unsigned int plan);
/* In the thread, after its loop: the differences into c->got, closed. */
void fl_counters_read(struct fl_thread_count *c);

/* Thread i's counts added into out, which thread 0's starts afresh:
 * sums, the least and most, and have's bits that every thread had. */
void fl_counters_add(struct fl_rep_counts *out,
		     const struct fl_thread_count *c, unsigned int i);

/* The machine's steal time so far, summed over its CPUs (ns); 0, or -1
 * where /proc/stat does not say. */
int fl_steal_ns(uint64_t *ns);

/*
 * Mark c contaminated or not (docs/measurement.md): its threads were
 * denied more of their runnable time than threads on cpus distinct CPUs
 * explain, by FL_DENIED_MARGIN, or steal took more than FL_STEAL_MAX of
 * the machine's online CPUs' time over the repetition's elapsed_ns
 * (steal's ticks are whole: one a CPU is given the benefit of the
 * doubt). Not judged without CPU time and run delay.
 */
void fl_counters_judge(struct fl_rep_counts *c, unsigned int threads,
		       unsigned int cpus, uint64_t elapsed_ns,
		       unsigned int online);

/* Which sources open on this process's thread, why the others do not,
 * and what opening and reading cost (for meta.json). */
void fl_counters_probe(struct fl_count_probe *p);

#endif
