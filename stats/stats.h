/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics of one sample: the median, the distribution-free confidence
 * interval of the median, the noisy rule, and Jain's fairness index.
 *
 * A cell's figure is the median of its repetitions, with the 95%
 * confidence interval from order statistics: [x_(k), x_(n+1-k)] for the
 * largest k whose binomial coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is at
 * least 95% (Hoefler and Belli, SC'15, rule 5; Le Boudec, "Performance
 * Evaluation of Computer and Communication Systems", 2010, chapter 2).
 * It needs at least 6 values (n = 5 covers only 93.75%); with fewer the
 * interval is "n/a", never a width of zero. Threads of one repetition are
 * not independent samples, so only repetitions count. docs/statistics.md
 * defines every figure printed.
 */
#ifndef FUTEXLAB_STATS_H
#define FUTEXLAB_STATS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "base/result.h"

#define FL_CONFIDENCE		0.95
/* the relative half-width above which a cell is NOISY, and which the
 * adaptive repetitions aim at */
#define FL_NOISY_HALFWIDTH	0.05
/* the fewest repetitions whose order statistics give a 95% interval */
#define FL_CI_MIN_N		6
/* the most values a sample statistic takes (larger inputs are cut) */
#define FL_STATS_MAX_N		1000

/* A median with its confidence interval; ok = 0: too few values for the
 * confidence asked (lo = hi = mid then, and no width is claimed). */
struct fl_ci {
	double mid, lo, hi;
	double coverage;	/* the interval's exact binomial coverage */
	unsigned int n;
	int ok;
};

/* qsort()'s comparison of two doubles, ascending */
int fl_cmp_double(const void *a, const void *b);
double fl_median(const double *v, size_t n);
/* The median of v, which it sorts in place, of any length (fl_median
 * copies at most FL_STATS_MAX_N); NaN for none. */
double fl_median_sort(double *v, size_t n);
/* The 10th and 90th percentiles of n > 0 values, which it sorts in
 * place: the nearest ranks n / 10 from either end. The report's spread
 * of the busy loop's speed and compare's busy-host widening are both
 * this. */
void fl_deciles_sort(double *v, size_t n, double *p10, double *p90);
/* The median of v and its order-statistic interval at confidence conf;
 * 0, or -1 (ci->ok = 0) when n is too small for it. */
int fl_median_ci(const double *v, size_t n, double conf, struct fl_ci *ci);
/* (hi - lo) / 2 / mid: the interval's relative half-width; -1 when the
 * interval is n/a; around a median of 0 (figures are never negative),
 * 0 when the interval is the single point 0, else INFINITY: no relative
 * precision, so NOISY. */
static inline double fl_ci_rel_halfwidth(const struct fl_ci *ci)
{
	if (!ci->ok)
		return -1.0;
	if (ci->mid <= 0.0)
		return ci->hi > ci->lo ? INFINITY : 0.0;
	return (ci->hi - ci->lo) / 2.0 / ci->mid;
}
/* NOISY: an interval exists and is wider than target (relative
 * half-width); a cell without an interval is not NOISY but "n/a". */
int fl_ci_noisy(const struct fl_ci *ci, double target);
/* Jain's fairness index: (sum x)^2 / (n * sum x^2), 1 = perfectly fair */
double fl_jain(const uint64_t *x, size_t n);
/* The same, one thread's count at a time (base/result.h), from a
 * zeroed struct; the index of what was added. */
void fl_thread_ops_add(struct fl_thread_ops *t, uint64_t ops);
double fl_thread_ops_jain(const struct fl_thread_ops *t);

#endif
