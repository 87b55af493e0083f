/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drift over time within one run, common to the cells of a workload.
 *
 * A cell's interval comes from its repetitions, which assumes the machine
 * under them stayed the same. A run visits every cell once per pass, so
 * a machine-wide change (another tenant of the host, the cost the host
 * puts on waking an idle vCPU, a thermal limit) shows as the residuals of
 * all the cells, log(value / the cell's median), moving together with the
 * time of their repetitions. Sorted by start time and cut into
 * FL_DRIFT_BLOCKS blocks of equal count, the residuals of a stationary
 * run are one distribution: the Kruskal-Wallis test across the blocks
 * (Kruskal and Wallis, JASA 47, 1952; ties averaged and corrected;
 * chi-square with FL_DRIFT_BLOCKS - 1 degrees of freedom) gives the
 * p-value, and the spread of the block medians says by how much the
 * machine moved.
 *
 * What it is for (compare/drift.c): two runs whose machines spent
 * different shares of their time in such states differ by up to that
 * spread in every cell at once, however tight each run's own intervals
 * are. docs/statistics.md has the rule and its rates.
 */
#ifndef FUTEXLAB_STATS_DRIFT_H
#define FUTEXLAB_STATS_DRIFT_H

#include <stddef.h>

/* blocks of the time-sorted repetitions; 9 gives 8 degrees of freedom,
 * whose chi-square tail has a closed form */
#define FL_DRIFT_BLOCKS		9
/* the fewest repetitions judged: 5 a block */
#define FL_DRIFT_MIN_N		(5 * FL_DRIFT_BLOCKS)
/* drift is called at this p: a run is tested once per workload, and a
 * false call only widens intervals */
#define FL_DRIFT_ALPHA		0.001

struct fl_drift {
	int ok;			/* enough repetitions with a time */
	size_t n;
	double p;		/* Kruskal-Wallis across the blocks */
	double spread;		/* largest minus smallest block median (log) */
	int drifted;		/* ok && p < FL_DRIFT_ALPHA */
};

/*
 * t[i]: when repetition i started (any monotonic unit; NaN: unknown,
 * left out); resid[i]: its log(value / its cell's median). 0, or -1
 * (d->ok = 0) with too few timed values.
 */
int fl_drift_over_time(const double *t, const double *resid, size_t n,
		       struct fl_drift *d);

/*
 * The same from the cells of one workload in one run: cell i has n[i]
 * values v[i][] (positive; others left out) started at t[i][]; each
 * residual is log(value / the cell's median). Cells with fewer than two
 * values are left out. 0, or -1 (d->ok = 0).
 */
int fl_drift_of_cells(const double *const *v, const double *const *t,
		      const unsigned int *n, size_t ncells,
		      struct fl_drift *d);

/* How far (log) the intervals of a workload compared between two runs
 * widen: the larger spread of a run that drifted; 0 when neither did. */
double fl_drift_widen(const struct fl_drift *a, const struct fl_drift *b);

#endif
