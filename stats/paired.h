/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paired blocks: each block holds one visit of side A and one of side B
 * for a cell, back to back, and gives one difference x = log(B/A). The
 * cell's shift is the location of those differences: the Hodges-Lehmann
 * estimate (the median of the n(n+1)/2 Walsh averages (x_i + x_j) / 2,
 * i <= j) with the distribution-free interval of the Wilcoxon
 * signed-rank test, and that test's p-value for location 0 (Hollander,
 * Wolfe and Chicco, "Nonparametric Statistical Methods", 3rd ed., 2014,
 * sections 3.1 to 3.3). It assumes only that the differences are
 * independent and symmetric about their location: a machine whose state
 * changes between blocks moves both visits of a block together, and the
 * difference cancels it.
 *
 * The interval is the C-th smallest to the C-th largest Walsh average,
 * C = 1 + the largest t with P0(T+ <= t) <= (1 - conf) / 2: exact from
 * the null distribution of T+ for n <= FL_PAIRED_EXACT_N, from the normal
 * approximation with the tie-free variance n(n+1)(2n+1)/24 beyond. The
 * Walsh averages are never all formed: their order statistics are found
 * by counting those below a value, O(n log n) each, so a few thousand
 * blocks cost milliseconds.
 */
#ifndef FUTEXLAB_PAIRED_H
#define FUTEXLAB_PAIRED_H

#include <stddef.h>
#include <stdint.h>

#include "stats/shift.h"

#define FL_PAIRED_EXACT_N	100

/* The location of paired differences x[0..n) (each block's log(B/A))
 * and its interval. */
struct fl_paired_ci {
	unsigned int n;	/* blocks used */
	double est;	/* Hodges-Lehmann: median of the Walsh averages */
	double lo, hi;	/* distribution-free interval at conf, from the
			 * signed-rank distribution (exact for small n,
			 * normal approximation beyond); NAN when n too
			 * small */
	int has_ci;
	double p;	/* two-sided signed-rank p-value for location 0 */
};

/* 0; -1 with has_ci = 0 when n is too small for an interval at conf (5
 * or fewer blocks at 95%) or memory ran out (est NAN and p 1 when n is
 * 0). x may hold any finite values, in any order; it is not changed. */
int fl_paired_hl(const double *x, unsigned int n, double conf,
		 struct fl_paired_ci *out);

/* The interval's C for n blocks at conf: the interval is the C-th
 * smallest to the C-th largest Walsh average (0: none at conf). */
unsigned long fl_paired_c(unsigned int n, double conf);

/*
 * The family over n cells, each cell's paired estimate and interval at
 * conf: the Benjamini-Hochberg adjustment of their p-values into p_adj
 * (a cell without blocks counts as p = 1), so per-cell calls made at
 * p_adj keep the false discovery rate over the matrix; and the
 * geometric mean of their ratios exp(est) into g. One cell: its ratio
 * and interval. More: fl_geomean_ci()'s bootstrap over cells (how far
 * the cells' ratios spread; seed makes it repeatable), widened to hold
 * the cells' own uncertainty, exp(mean log ratio -+ sqrt(sum of squared
 * half-widths) / cells): the interval of a mean of independent
 * estimates at the cells' conf, which the bootstrap alone misses when
 * the cells are few or agree. g->ok = 0 when no cell has an interval.
 */
void fl_paired_family(const struct fl_paired_ci *cell, size_t n,
		      double conf, uint64_t seed, double *p_adj,
		      struct fl_geomean *g);

#endif
