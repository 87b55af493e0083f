/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost of an operation, from what the kernel counted of each ok
 * repetition's threads (base/result.h's struct fl_rep_counts): CPU time
 * per operation, context switches per operation, the CPU share the
 * threads received (their CPU time over the time they were runnable:
 * cpu / (cpu + run-queue wait)), and cycles and instructions per
 * operation where the PMU counted them. Each is a median across the
 * repetitions that have it, with its order-statistic 95% interval and
 * the NOISY rule of the primary figure (stats/stats.h). A busy machine
 * takes CPU time from the threads, so it widens the throughput's
 * interval, but the CPU time an operation costs is what the threads
 * were given while they ran: the figure a verdict on a shared machine
 * holds to. The contaminated repetitions (marked by the harness) are
 * counted, never dropped. docs/statistics.md defines each.
 */
#ifndef FUTEXLAB_COST_H
#define FUTEXLAB_COST_H

#include <stdint.h>

#include "base/result.h"
#include "stats/stats.h"

enum fl_cost_id {
	FL_COST_CPU,		/* CPU ns per operation */
	FL_COST_CTX,		/* context switches per operation */
	FL_COST_SHARE,		/* cpu / (cpu + run_delay), 0..1 */
	FL_COST_CYCLES,		/* cycles per operation */
	FL_COST_INSNS,		/* instructions per operation */
	FL_NCOST
};

/* the most repetitions a cost figure takes (more are left out) */
#define FL_COST_MAX_REPS	256

struct fl_cost_fig {
	struct fl_ci ci;	/* n 0: no repetition counted it */
	int noisy;		/* ci wider than FL_NOISY_HALFWIDTH */
};

struct fl_cost {
	struct fl_cost_fig fig[FL_NCOST];
	/* each counted repetition's CPU ns per operation, in the order of
	 * the repetitions given: what compare judges the cost by */
	double cpu_per_op[FL_COST_MAX_REPS];
	unsigned int ncpu;
	unsigned int nhave_cpu;	/* repetitions that counted CPU time, with
				 * operations or not */
	/* repetitions the harness judged, and marked contaminated; the
	 * largest share of their runnable time a contaminated one's
	 * threads were denied (run-queue wait over cpu + wait; -1 unknown)
	 * and its steal (ns, 0 unknown) */
	unsigned int njudged, ncontaminated;
	double denied_max;
	uint64_t steal_max_ns;
};

/* The names a verdict and a table give each figure. */
extern const char *const fl_cost_name[FL_NCOST];

/*
 * The cost figures of n ok repetitions: counts[i] and ops[i] are the
 * i-th's (a repetition without operations has no cost). c is zeroed
 * first; a figure no repetition counted has ci.n 0.
 */
void fl_cost_of(const struct fl_rep_counts *counts, const uint64_t *ops,
		unsigned int n, struct fl_cost *c);
/* The cost figure holds where the throughput does not: the primary
 * figure's interval is NOISY, some repetition was contaminated, and the
 * CPU time per operation has an interval within FL_NOISY_HALFWIDTH (the
 * rule the adaptive repetitions and compare's lead follow). */
int fl_cost_holds(const struct fl_cost *c, int primary_noisy);

#endif
