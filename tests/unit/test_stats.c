// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the statistics (stats/): the median and its
 * order-statistic interval, the NOISY rule, Jain's index, the
 * Hodges-Lehmann ratio with its exact rank-sum p-value, the
 * Benjamini-Hochberg adjustment, the geometric mean's interval,
 * withheld percentiles, and Spearman's correlation with the weighted
 * median slope, each on inputs whose answer is known.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats/covary.h"
#include "stats/drift.h"
#include "stats/maxt.h"
#include "stats/percentile.h"
#include "stats/shift.h"
#include "stats/stats.h"

/* Doubles compared as doubles (cmocka's float check rounds to float). */
#define assert_close(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (a_ - b_ > 1e-9 || b_ - a_ > 1e-9) \
		fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
} while (0)

static void test_median_odd(void **state)
{
	const double v[] = { 9.0, 1.0, 5.0 };
	const double one[] = { 42.0 };

	(void)state;
	assert_close(fl_median(v, 3), 5.0);
	assert_close(fl_median(one, 1), 42.0);
}

static void test_median_even(void **state)
{
	const double v[] = { 4.0, 1.0, 3.0, 10.0 };

	(void)state;
	assert_close(fl_median(v, 4), 3.5);
	assert_close(fl_median(v, 2), 2.5);
	assert_close(fl_median(v, 0), 0.0);
}

/* The input is left as it was: the median sorts a copy. */
static void test_median_keeps_input(void **state)
{
	double v[] = { 3.0, 2.0, 1.0 };

	(void)state;
	fl_median(v, 3);
	assert_close(v[0], 3.0);
	assert_close(v[1], 2.0);
	assert_close(v[2], 1.0);
}

static void test_jain(void **state)
{
	const uint64_t fair[] = { 5, 5, 5, 5 };
	const uint64_t one_hog[] = { 10, 0, 0, 0 };
	const uint64_t half[] = { 1, 1, 0, 0 };
	const uint64_t skew[] = { 1, 2, 3 };
	const uint64_t none[] = { 0, 0 };

	(void)state;
	assert_close(fl_jain(fair, 4), 1.0);
	assert_close(fl_jain(one_hog, 4), 0.25);	/* 1/n */
	assert_close(fl_jain(half, 4), 0.5);
	/* 36 / (3 * 14) */
	assert_close(fl_jain(skew, 3), 36.0 / 42.0);
	assert_close(fl_jain(none, 2), 0.0);
	assert_close(fl_jain(fair, 0), 0.0);
}

/* The order-statistic interval: n/a below 6, [min, max] at 6, the 2nd
 * and 9th of 10 (coverage 1 - 2 * 11/1024). */
static void test_median_ci(void **state)
{
	const double v[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	struct fl_ci ci;

	(void)state;
	assert_int_equal(fl_median_ci(v, 5, 0.95, &ci), -1);
	assert_false(ci.ok);
	assert_close(ci.mid, 8.0);		/* the median still */
	assert_close(fl_ci_rel_halfwidth(&ci), -1.0);
	assert_false(fl_ci_noisy(&ci, 0.05));	/* n/a, not noisy */
	{
		/* about a median of 0: a point is precise, anything else
		 * has no relative width (oversubscribed spinners that woke
		 * nobody in most repetitions) */
		const double z[] = { 0, 0, 0, 0, 0, 0 };
		const double zw[] = { 0, 0, 0, 0, 90, 99 };
		struct fl_ci c0;

		assert_int_equal(fl_median_ci(z, 6, 0.95, &c0), 0);
		assert_close(fl_ci_rel_halfwidth(&c0), 0.0);
		assert_false(fl_ci_noisy(&c0, 0.05));
		assert_int_equal(fl_median_ci(zw, 6, 0.95, &c0), 0);
		assert_true(isinf(fl_ci_rel_halfwidth(&c0)));
		assert_true(fl_ci_noisy(&c0, 0.05));
	}
	assert_int_equal(fl_median_ci(v, 6, 0.95, &ci), 0);
	assert_close(ci.lo, 1.0);
	assert_close(ci.hi, 10.0);
	assert_close(ci.coverage, 1.0 - 2.0 / 64);
	assert_int_equal(fl_median_ci(v, 10, 0.95, &ci), 0);
	assert_close(ci.mid, 5.5);
	assert_close(ci.lo, 2.0);
	assert_close(ci.hi, 9.0);
	assert_close(ci.coverage, 1.0 - 2.0 * 11 / 1024);
	assert_close(fl_ci_rel_halfwidth(&ci), 3.5 / 5.5);
}

static void test_noisy(void **state)
{
	const double quiet[] = { 100, 101, 99, 100, 102, 98 };
	const double loud[] = { 100, 120, 95, 100, 101, 99 };
	struct fl_ci ci;

	(void)state;
	fl_median_ci(quiet, 6, FL_CONFIDENCE, &ci);
	assert_false(fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH));	/* +-2% */
	fl_median_ci(loud, 6, FL_CONFIDENCE, &ci);
	assert_true(fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH));	/* +-12.5% */
}

/* B = 1.1 A exactly: the ratio is 1.1, the interval holds it, and the
 * exact rank-sum p of complete separation at 6 + 6 is 2 / C(12, 6). */
static void test_shift_ratio(void **state)
{
	const double a[] = { 100, 101, 99, 102, 98, 100.5 };
	double b[6];
	struct fl_shift s;

	(void)state;
	for (int i = 0; i < 6; i++)
		b[i] = a[i] * 1.1 * (1 + 0.03 * (i % 2));
	assert_int_equal(fl_shift_ratio(a, 6, b, 6, 0.95, &s), 0);
	assert_true(s.ok);
	assert_true(s.lo <= s.ratio && s.ratio <= s.hi);
	assert_true(s.lo > 1.05 && s.hi < 1.2);
	assert_close(s.p, 2.0 / 924);
	/* identical samples: ratio 1, p 1 */
	assert_int_equal(fl_shift_ratio(a, 6, a, 6, 0.95, &s), 0);
	assert_close(s.ratio, 1.0);
	assert_true(s.p > 0.9);
	/* 3 against 3: no 95% interval (P(U = 0) = 1/20) */
	assert_int_equal(fl_shift_ratio(a, 3, b, 3, 0.95, &s), -1);
	assert_false(s.ok);
	/* a non-positive value has no logarithm */
	b[0] = 0;
	assert_int_equal(fl_shift_ratio(a, 6, b, 6, 0.95, &s), -1);
}

/* Repetition against repetition: with 6 and 6 values (36 ratios,
 * k = 0) the interval is min b / max a to max b / min a; the estimate
 * and p stay the shift's, and the interval only ever widens. */
static void test_shift_widen_to_reps(void **state)
{
	const double a[] = { 100, 101, 99, 102, 98, 100.5 };
	const double b[] = { 120, 200, 110, 190, 115, 205 };
	struct fl_shift s, shift;

	(void)state;
	assert_int_equal(fl_shift_ratio(a, 6, b, 6, 0.95, &shift), 0);
	assert_false(shift.by_reps);
	assert_int_equal(fl_shift_ratio_by_reps(a, 6, b, 6, 0.95, &s), 0);
	assert_true(s.by_reps);
	assert_close(s.lo, 110.0 / 102);
	assert_close(s.hi, 205.0 / 98);
	assert_close(s.ratio, shift.ratio);
	assert_close(s.p, shift.p);
	assert_true(s.lo <= shift.lo && s.hi >= shift.hi);
	/* no interval to widen */
	assert_int_equal(fl_shift_ratio_by_reps(a, 3, b, 3, 0.95, &s), -1);
	assert_false(s.ok);
	assert_false(s.by_reps);
}

/* Benjamini-Hochberg: the k-th smallest of n p-values times n / k,
 * made monotone from the largest down. */
static void test_bh_adjust(void **state)
{
	const double p[] = { 0.03, 0.01, 0.04, 0.02, 0.5 };
	double adj[5];

	(void)state;
	fl_bh_adjust(p, 5, adj);
	assert_close(adj[4], 0.5);
	assert_close(adj[2], 0.05);		/* .04 * 5 / 4 */
	assert_close(adj[0], 0.05);		/* .03 * 5/3, capped */
	assert_close(adj[3], 0.05);		/* .02 * 5/2, capped */
	assert_close(adj[1], 0.05);		/* .01 * 5 */
	fl_bh_adjust(p, 1, adj);
	assert_close(adj[0], 0.03);		/* one test: p itself */
}

static void test_geomean(void **state)
{
	const double same[] = { 1.1, 1.1, 1.1 };
	const double mixed[] = { 2.0, 0.5, 1.0, 1.0 };
	struct fl_geomean g;

	(void)state;
	fl_geomean_ci(same, 3, 0.95, 1, &g);
	assert_close(g.mean, 1.1);
	assert_close(g.lo, 1.1);
	assert_close(g.hi, 1.1);
	fl_geomean_ci(mixed, 4, 0.95, 1, &g);
	assert_close(g.mean, 1.0);
	assert_true(g.ok && g.lo < 1.0 && g.hi > 1.0);
	fl_geomean_ci(mixed, 1, 0.95, 1, &g);
	assert_false(g.ok);
}

/* p99.9 needs 10 samples beyond it: withheld at 9,000, shown at 10,000
 * with an interval around it. */
static void test_percentile_withheld(void **state)
{
	static struct fl_hist h;
	struct fl_pct p;

	(void)state;
	fl_hist_init(&h);
	for (uint64_t i = 1; i <= 9000; i++)
		fl_hist_record(&h, i);
	fl_hist_percentile(&h, 0.999, &p);
	assert_false(p.enough);
	assert_int_equal(p.count, 9000);
	for (uint64_t i = 9001; i <= 10000; i++)
		fl_hist_record(&h, i);
	fl_hist_percentile(&h, 0.999, &p);
	assert_true(p.enough);
	assert_true(p.lo <= p.value && p.value <= p.hi);
	assert_true(p.value > 9900 && p.value < 10050);
	fl_hist_percentile(&h, 0.5, &p);
	assert_true(p.enough && p.lo < p.value && p.hi > p.value);
}

/*
 * Drift over time: 90 residuals in time order. Without a trend, in an
 * order no block shares, nothing is found; a step of 0.4 (log) after
 * the first 30 is found, with the spread of the block medians that step;
 * every value alike is no drift; too few values, no judgement.
 */
/* Known answers: a monotone relation has rho 1 whatever its shape, a
 * line's slope survives an outlier, and noise alone is not called. */
static void test_covary(void **state)
{
	double x[60], y[60];
	struct fl_covary c;
	uint64_t rng = 11;

	(void)state;
	for (int i = 0; i < 60; i++) {
		x[i] = i;
		y[i] = exp(0.1 * i);		/* monotone, not a line */
	}
	assert_int_equal(fl_covary(x, y, 60, &c), 0);
	assert_int_equal(c.n, 60);
	assert_close(c.rho, 1.0);
	assert_true(c.p < 1e-12);
	for (int i = 0; i < 60; i++)
		y[i] = 3.0 - 0.5 * x[i];
	y[7] = 1e6;				/* one wild repetition */
	x[9] = NAN;				/* and one unknown: left out */
	assert_int_equal(fl_covary(x, y, 60, &c), 0);
	assert_int_equal(c.n, 59);
	assert_close(c.slope, -0.5);
	assert_true(c.rho < -0.9);
	/* ties: an exact two-level x, a third at the upper level (its own
	 * stream, so that the draws below stay the ones they were) */
	{
		uint64_t ties = 3;

		for (int i = 0; i < 60; i++) {
			x[i] = i % 3 ? 0.0 : 1.0;
			y[i] = 2.0 * x[i] + 0.01 * (fl_uniform(&ties) - 0.5);
		}
		assert_int_equal(fl_covary(x, y, 60, &c), 0);
		assert_true(fabs(c.slope - 2.0) < 0.01);
		assert_true(c.p < 1e-9);
	}
	/* a two-level x with a little noise, one in ten at the upper level,
	 * as a probe of a machine mostly in one state reads: Sen's median
	 * of the pairwise slopes, unweighted, is about 0.3 here (the pairs
	 * within the lower level, noise over noise, outnumber the others);
	 * weighted by their distance in x, the slope is the levels' 2 */
	for (int i = 0; i < 60; i++) {
		double level = i % 10 ? 0.0 : 1.0;

		x[i] = level + 0.03 * (fl_uniform(&rng) - 0.5);
		y[i] = 2.0 * level + 0.02 * (fl_uniform(&rng) - 0.5);
	}
	assert_int_equal(fl_covary(x, y, 60, &c), 0);
	assert_true(fabs(c.slope - 2.0) < 0.05);
	assert_true(c.p < 1e-3);
	/* two exact levels, for what follows */
	for (int i = 0; i < 60; i++)
		x[i] = i % 10 ? 0.0 : 1.0;
	for (int i = 0; i < 60; i++)
		y[i] = fl_uniform(&rng);	/* nothing to follow */
	assert_int_equal(fl_covary(x, y, 60, &c), 0);
	assert_true(c.p > 0.001);
	for (int i = 0; i < 60; i++)
		y[i] = 5.0;			/* flat: no correlation */
	assert_int_equal(fl_covary(x, y, 60, &c), 0);
	assert_close(c.p, 1.0);
	assert_close(c.rho, 0.0);
	assert_int_equal(fl_covary(x, y, 2, &c), -1);
	assert_close(c.p, 1.0);
}

static void test_drift_over_time(void **state)
{
	double t[90], r[90];
	struct fl_drift d;

	(void)state;
	uint64_t rng = 7;

	for (int i = 0; i < 90; i++) {
		t[i] = 1000.0 - i;	/* handed over out of order */
		r[i] = 0.02 * (fl_uniform(&rng) - 0.5);
	}
	assert_int_equal(fl_drift_over_time(t, r, 90, &d), 0);
	assert_true(d.ok);
	assert_int_equal(d.n, 90);
	assert_false(d.drifted);
	assert_true(d.p > 0.05);
	for (int i = 0; i < 90; i++)
		r[i] += 1000.0 - t[i] >= 30 ? 0.0 : -0.4;	/* the first 30 */
	assert_int_equal(fl_drift_over_time(t, r, 90, &d), 0);
	assert_true(d.drifted);
	assert_true(d.p < 1e-6);
	assert_true(d.spread > 0.35 && d.spread < 0.5);
	for (int i = 0; i < 90; i++)
		r[i] = 0.0;
	assert_int_equal(fl_drift_over_time(t, r, 90, &d), 0);
	assert_false(d.drifted);
	assert_close(d.p, 1.0);
	t[3] = NAN;		/* an unknown time is left out */
	assert_int_equal(fl_drift_over_time(t, r, FL_DRIFT_MIN_N, &d), -1);
	assert_false(d.ok);
	assert_int_equal(d.n, FL_DRIFT_MIN_N - 1);
	/* the widening is the larger spread of a run that drifted */
	{
		struct fl_drift a = { .ok = 1, .spread = 0.3, .drifted = 1 };
		struct fl_drift b = { .ok = 1, .spread = 0.5, .drifted = 0 };

		assert_close(fl_drift_widen(&a, &b), 0.3);
		b.drifted = 1;
		assert_close(fl_drift_widen(&a, &b), 0.5);
		a.drifted = b.drifted = 0;
		assert_close(fl_drift_widen(&a, &b), 0.0);
	}
}

/*
 * Simultaneous intervals by permutation max-t: one summary far apart is
 * outside 1, one that did not move holds it, and the critical value is
 * the family's (worked by hand: 5 against 5 runs enumerate 252
 * reassignments).
 */
static void test_maxt_intervals(void **state)
{
	/* summary 0: B 10% above A; summary 1: the same on both sides */
	double a[2 * 5] = { 1.00, 1.01, 0.99, 1.02, 0.98,
			    1.00, 1.01, 0.99, 1.02, 0.98 };
	double b[2 * 5] = { 1.10, 1.11, 1.09, 1.12, 1.08,
			    1.01, 0.99, 1.00, 0.98, 1.02 };
	struct fl_shift s[2], one;

	(void)state;
	assert_int_equal(fl_maxt_intervals(a, 5, b, 5, 2, 0.95, s), 0);
	assert_true(s[0].ok && s[1].ok);
	assert_true(s[0].lo > 1.0 && s[0].hi > s[0].ratio);
	assert_true(fabs(s[0].ratio - 1.1) < 0.005);
	assert_true(s[1].lo < 1.0 && s[1].hi > 1.0);
	/* only the one split of 252 (and its mirror) reaches summary 0's
	 * |t|: adjusted p 2/252 */
	assert_true(fabs(s[0].p - 2.0 / 252) < 1e-12);
	/* alone, summary 1 gets a narrower interval than in the family:
	 * the family's critical value is the larger */
	assert_int_equal(fl_maxt_intervals(a + 5, 5, b + 5, 5, 1, 0.95,
					   &one), 0);
	assert_true(one.lo >= s[1].lo && one.hi <= s[1].hi);
	assert_true(one.hi - one.lo < s[1].hi - s[1].lo);
	/* 2 against 2 runs: 6 reassignments cannot give 95% */
	assert_int_equal(fl_maxt_intervals(a, 2, b, 2, 1, 0.95, &one), -1);
	assert_false(one.ok);
	assert_true(one.ratio > 1.05);
	/* one run a side: a ratio, no interval */
	assert_int_equal(fl_maxt_intervals(a, 1, b, 1, 1, 0.95, &one), -1);
	assert_false(one.ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd),
		cmocka_unit_test(test_median_even),
		cmocka_unit_test(test_median_keeps_input),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_noisy),
		cmocka_unit_test(test_shift_ratio),
		cmocka_unit_test(test_shift_widen_to_reps),
		cmocka_unit_test(test_bh_adjust),
		cmocka_unit_test(test_geomean),
		cmocka_unit_test(test_percentile_withheld),
		cmocka_unit_test(test_drift_over_time),
		cmocka_unit_test(test_covary),
		cmocka_unit_test(test_maxt_intervals),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
