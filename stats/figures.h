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

#include <jansson.h>
#include <stdio.h>

#include "measure/cell.h"
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
};

void fl_rep_figures(const struct fl_rep_result *r, struct fl_rep_figures *f);
void fl_cell_figures(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     struct fl_cell_figures *f);
/* The printed summary of a cell: a few lines to f. */
void fl_cell_print(FILE *f, const struct fl_cell *cell,
		   const struct fl_cell_result *res,
		   const struct fl_cell_figures *fig);
json_t *fl_cell_json(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     const struct fl_cell_figures *f);
/* "1.23M", "456k" for ops/s; "120 ns", "4.1 us" for latencies */
void fl_fmt_rate(double v, char *buf, size_t len);
void fl_fmt_ns(uint64_t ns, char *buf, size_t len);
/* "1.23M [1.2M, 1.25M] +-2.0%" or "1.23M (interval n/a: 3 reps)": the
 * primary figure of a cell, for text and tables */
void fl_fmt_ci(const struct fl_ci *ci, int latency, char *buf, size_t len);

#endif
