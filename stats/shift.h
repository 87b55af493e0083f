/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two samples, A and B (the repetitions of one cell in two runs): how
 * much B differs from A, as a ratio with a confidence interval and a
 * rank-test p-value; the adjustment of many p-values; and the geometric
 * mean of many ratios with its interval.
 *
 * The ratio is the Hodges-Lehmann shift on log values: exp of the median
 * of the n*m differences log b_j - log a_i, its interval the order
 * statistics of those differences at the Mann-Whitney critical value
 * (Hollander, Wolfe and Chicco, "Nonparametric Statistical Methods",
 * 2014, chapter 4).
 * Distribution-free, robust to an outlying repetition, and a ratio, so a
 * 10% shift reads the same at any throughput. The p-value is the
 * two-sided Wilcoxon-Mann-Whitney rank-sum test: exact without ties when
 * n*m <= FL_SHIFT_EXACT_NM, else the normal approximation with tie and
 * continuity corrections.
 */
#ifndef FUTEXLAB_SHIFT_H
#define FUTEXLAB_SHIFT_H

#include <stddef.h>
#include <stdint.h>

#define FL_SHIFT_EXACT_NM	2500

struct fl_shift {
	double ratio, lo, hi;	/* B/A and its interval */
	double p;		/* two-sided rank-sum p-value, 1 if unknown */
	unsigned int na, nb;
	int ok;			/* 0: too few values for the interval */
	int by_reps;		/* lo, hi: repetition against repetition */
};

/* Values must be positive. 0, or -1 (s->ok = 0: no interval at conf,
 * ratio and p still set when both samples have values). */
int fl_shift_ratio(const double *a, size_t na, const double *b, size_t nb,
		   double conf, struct fl_shift *s);

/*
 * fl_shift_ratio(), its interval widened to the central conf range of the
 * n*m ratios b_j / a_i (s->by_reps set): where B's single repetitions fall
 * against A's, not where B's median falls against A's. This is the
 * interval for repetitions that are not one distribution drawn
 * independently: a machine that changes state over seconds (which core a
 * vCPU runs on, a lock convoy forming or not) gives repetitions in
 * regimes, and a run whose median caught more of one regime than another
 * run did says nothing about the code. The shift interval then claims a
 * precision the repetitions do not have; this one asks whether B's
 * repetitions stand apart from A's. The ratio and p are the shift's, and
 * the interval always contains the shift interval. 0, or -1 as
 * fl_shift_ratio() (no interval: nothing widened).
 */
int fl_shift_ratio_by_reps(const double *a, size_t na, const double *b,
			   size_t nb, double conf, struct fl_shift *s);

/*
 * The interval multiplied out by e^-w and e^w (w >= 0, log units): room
 * for a change every cell of a workload shared, which the repetitions of
 * one cell cannot show (stats/drift.h). No interval, or w = 0: unchanged.
 */
void fl_shift_widen(struct fl_shift *s, double w);

/* The Benjamini-Hochberg adjustment of n p-values into adj (the false
 * discovery rate; valid for independent or positively dependent tests,
 * as cells sharing a machine are; Benjamini and Hochberg 1995). When no
 * cell differs it bounds the chance of any false call, as Holm's would,
 * and it keeps its power when many cells do differ. */
void fl_bh_adjust(const double *p, size_t n, double *adj);

struct fl_geomean {
	double mean, lo, hi;	/* exp(mean of log ratios), interval */
	unsigned int n;
	int ok;
};

/* The geometric mean of n ratios and its percentile-bootstrap interval
 * over the ratios (B resamples of the cells with replacement, drawn from
 * seed: deterministic). ok = 0 for n < 2. */
void fl_geomean_ci(const double *ratio, size_t n, double conf,
		   uint64_t seed, struct fl_geomean *g);

/* A deterministic random stream (splitmix64): shuffles and resamples
 * derive from the run's seed, never from the time. */
static inline uint64_t fl_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double fl_uniform(uint64_t *state)
{
	return (double)(fl_splitmix64(state) >> 11) * 0x1.0p-53;
}

#endif
