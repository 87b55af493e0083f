/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figures of a repetition (throughput, latency percentiles, fairness)
 * and of a cell (their medians and spread across repetitions). Results
 * rows, the printed summary and --json all come from here.
 */
#ifndef FUTEXLAB_FIGURES_H
#define FUTEXLAB_FIGURES_H

#include <jansson.h>
#include <stdio.h>

#include "measure/cell.h"

struct fl_rep_figures {
	double ops_per_sec;
	double ops_per_sec_per_thread;
	uint64_t lat_count, p50, p90, p99, p999, max, mean;
	double jain;
	uint64_t thread_ops_min, thread_ops_max;
};

struct fl_cell_figures {
	unsigned int nreps;		/* completed, status ok */
	double ops_per_sec, ops_spread;	/* median, relative range */
	double ops_per_sec_per_thread;
	uint64_t p50, p90, p99, p999, max;	/* medians; max is the max */
	double jain;
	uint64_t thread_ops_min, thread_ops_max;
	double counters[FL_NCOUNTERS];	/* medians */
	int noisy;
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

#endif
