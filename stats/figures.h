/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figures of a repetition (throughput, latency percentiles, fairness)
 * and of a cell: its primary figure (throughput, or a round workload's
 * p50 latency) as a median with its 95% interval, the other figures as
 * medians across repetitions, and latency percentiles from the histogram
 * merged over the repetitions, with their sample count and intervals.
 * Results rows, the printed summary and --json all come from here.
 */
#ifndef FUTEXLAB_FIGURES_H
#define FUTEXLAB_FIGURES_H

#include "base/result.h"
#include "spec/workload.h"
#include "stats/cost.h"
#include "stats/percentile.h"
#include "stats/stats.h"

struct fl_rep_figures {
	double ops_per_sec;
	double ops_per_sec_per_thread;
	uint64_t lat_count, p50, p90, p99, p999, max, mean;
	double jain;
	uint64_t thread_ops_min, thread_ops_max;
};

/* the percentiles every summary shows, from the merged histogram */
#define FL_NPCT 4
extern const double fl_pct_q[FL_NPCT];		/* .5 .9 .99 .999 */
extern const char *const fl_pct_name[FL_NPCT];	/* "p50" ... */

struct fl_cell_figures {
	unsigned int nreps;		/* completed, status ok */
	double ops_per_sec;		/* median */
	double ops_per_sec_per_thread;
	struct fl_ci primary;		/* ops/s, or p50 ns (latency_primary) */
	int latency_primary;		/* lower is better */
	struct fl_pct pct[FL_NPCT];	/* merged histogram's */
	uint64_t lat_count, max;
	double jain;
	uint64_t thread_ops_min, thread_ops_max;
	double counters[FL_NCOUNTERS];	/* medians */
	int noisy;			/* interval wider than the target */
	struct fl_cost cost;		/* from the kernel's counts */
};

void fl_rep_figures(const struct fl_rep_result *r, struct fl_rep_figures *f);
void fl_cell_figures(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     struct fl_cell_figures *f);

#endif
