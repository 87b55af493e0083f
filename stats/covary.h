/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether one measured quantity moves with another, and by how much:
 * Spearman's rank correlation with its p-value, and a robust slope, the
 * weighted median of the pairwise slopes.
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
	double slope;		/* weighted median of the pairwise slopes */
};

/*
 * y against x over n pairs (finite values only; others are left out).
 * The p-value is the normal tail of rho * sqrt((n - 2) / (1 - rho^2)),
 * the t approximation, sound for the tens of pairs and more it is used
 * with (Zar, "Biostatistical Analysis", 2010, 19.9). The slope is Sen's
 * median of the pairwise slopes (JASA 63, 1968) with each pair weighted
 * by how far apart its x are (Sievers, JASA 73, 1978): a covariate that
 * reads one of two levels gets the slope across them, not the noise
 * within each. 0, or -1 (out of memory, or fewer than 3 pairs: c->p = 1,
 * c->slope = 0).
 */
int fl_covary(const double *x, const double *y, size_t n,
	      struct fl_covary *c);

/* a figure is adjusted for a covariate when it follows it at this p */
#define FL_ADJUST_ALPHA		0.001

/*
 * How the figures of a set of cells follow a covariate measured with each
 * repetition (the idle-wake probe): cell i has n[i] figures v[i][] and
 * covariates x[i][] (positive; a NaN covariate leaves its repetition
 * out). Each cell's log figures and log covariates are centred on their
 * medians, so that only how they move together from one repetition to
 * the next counts, never a cell's level; the centred pairs of all cells
 * are pooled into fl_covary (y: log figure, x: log covariate). Cells
 * with fewer than 3 pairs are left out. 0, or -1 (out of memory, or
 * fewer than 3 pairs in all).
 */
int fl_covary_cells(const double *const *v, const double *const *x,
		    const unsigned int *n, size_t ncells, struct fl_covary *c);

/*
 * One cell's figures as if each repetition's covariate had read e^ref:
 * out[j] = v[j] * exp(-slope * (log x[j] - ref)); a NaN x[j] counts as
 * e^fallback (the run's usual value).
 */
void fl_covary_adjust(const double *v, const double *x, unsigned int n,
		      double slope, double ref, double fallback, double *out);

#endif
