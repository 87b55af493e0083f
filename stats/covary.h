/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether one measured quantity moves with another, and by how much:
 * Spearman's rank correlation with its p-value, and the Theil-Sen slope.
 * Both are distribution-free and shrug off an outlying repetition, as
 * the rest of futexlab's statistics do. compare/adjust.c uses them to
 * tell how a workload's figure follows the cost of waking an idle CPU.
 */
#ifndef FUTEXLAB_STATS_COVARY_H
#define FUTEXLAB_STATS_COVARY_H

#include <stddef.h>

struct fl_covary {
	size_t n;
	double rho;		/* Spearman's, ties given their mean rank */
	double p;		/* two-sided; 1 when n < 3 or a side is flat */
	double slope;		/* Theil-Sen: median of the pairwise slopes */
};

/*
 * y against x over n pairs (finite values only; others are left out).
 * The p-value is the normal tail of rho * sqrt((n - 2) / (1 - rho^2)),
 * the t approximation, sound for the tens of pairs and more it is used
 * with (Zar, "Biostatistical Analysis", 2010, 19.9). The slope is Sen's
 * (JASA 63, 1968), over the pairs whose x differ. 0, or -1 (out of
 * memory, or fewer than 3 pairs: c->p = 1, c->slope = 0).
 */
int fl_covary(const double *x, const double *y, size_t n,
	      struct fl_covary *c);

#endif
