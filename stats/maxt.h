/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simultaneous intervals for a family of k ratios of geometric means,
 * each from the same units on two sides (the runs of a campaign: a run
 * gives one observation to each of the k summaries), by the permutation
 * max-t method (Westfall and Young, "Resampling-Based Multiple Testing",
 * 1993).
 *
 * For summary w, d_w = mean log b - mean log a and se_w its Welch
 * standard error; t_w = d_w / se_w. Under no change the units of both
 * sides are exchangeable (same code, sides interleaved in time), so
 * every reassignment of the units to the sides is as likely as the one
 * observed. The critical value c is the conf quantile of max_w |t_w|
 * over those reassignments (all of them when there are at most
 * FL_MAXT_ENUMERATE, else FL_MAXT_DRAWS drawn from a fixed seed plus the
 * observed one), and interval w is exp(d_w +- c se_w).
 *
 * Why this and not one interval each: the family is read together (is
 * any workload different?), and k intervals at 95% each put 1 outside
 * one of them far more often than 5% of the time. The max over the
 * family makes the miss rate of all of them together at most 1 - conf,
 * exactly under exchangeability, whatever the shape of the observations
 * (a cell in one of two modes per run, a day effect shared by every
 * summary), which a t table or a Bonferroni rank interval cannot do at 5
 * units a side.
 */
#ifndef FUTEXLAB_STATS_MAXT_H
#define FUTEXLAB_STATS_MAXT_H

#include <stddef.h>

#include "stats/shift.h"

/* reassignments enumerated up to this count, else drawn */
#define FL_MAXT_ENUMERATE	5000
#define FL_MAXT_DRAWS		2000
/* the most summaries in one family */
#define FL_MAXT_MAX_FAMILY	64
/* the most units on both sides together */
#define FL_MAXT_MAX_UNITS	128

/*
 * a[w * na + i]: unit i of side A in summary w (positive), likewise b;
 * k summaries, out[w] their ratios B/A and intervals (p: the adjusted
 * p-value of summary w, the share of reassignments whose max |t| reaches
 * its |t|). 0, or -1 when the units cannot give an interval at conf
 * (too few reassignments, fewer than 2 units a side, or sizes past the
 * limits above): every out[w].ok is then 0, ratios still set.
 */
int fl_maxt_intervals(const double *a, size_t na, const double *b, size_t nb,
		      size_t k, double conf, struct fl_shift *out);

#endif
