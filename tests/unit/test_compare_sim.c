// SPDX-License-Identifier: GPL-2.0
/*
 * The error rates of compare's verdicts, by simulation (deterministic:
 * fixed seeds). Each trial draws the repetitions of one cell in two runs
 * from a model of the machine, runs the production statistics on them
 * (fl_cell_shift with the NOISY flag read.c computes, fl_verdict_of with
 * the default margin, and the adaptive repetitions' stopping rule of
 * sweep/passes.h), and counts the verdicts. The machines:
 *   - steady: log-normal noise of 5% (sigma of log values 0.05);
 *   - bimodal: each repetition independently in one of two modes, 1 and
 *     0.5, then 10% noise (a lock that stays on one CPU or bounces);
 *   - regimes: the same two modes, but the machine switches between them
 *     with probability 0.2 from one repetition to the next (a vCPU moved
 *     to another core for seconds), the first drawn at random.
 * Asserted:
 *   - identical runs: faster or slower at most 5% of the time, on each
 *     machine;
 *   - steady, B 10% slower: "slower" at least 80% of the time at the
 *     default repetitions (--reps auto), never "faster";
 *   - regimes, B 4 times slower (two CPU hogs): "slower" at least 80% of
 *     the time;
 *   - steady: power does not fall as fixed repetitions grow (6, 10, 20,
 *     30);
 *   - over a whole matrix of 90 identical steady cells, adjusted by
 *     Benjamini-Hochberg, a comparison calls any cell faster or slower
 *     at most 5% of the time.
 * The rates it prints are the ones docs/statistics.md quotes, with the
 * rate the shift interval alone would give on regimes (the reason NOISY
 * cells are judged repetition against repetition).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "compare/compare.h"
#include "stats/shift.h"
#include "stats/stats.h"
#include "sweep/passes.h"

#define TRIALS	2000

enum machine { STEADY, BIMODAL, REGIMES };

static const char *const machine_names[] = {
	[STEADY] = "steady", [BIMODAL] = "bimodal", [REGIMES] = "regimes",
};

/* exp(sigma * a standard normal), by Box-Muller */
static double lognormal(double sigma, uint64_t *rng)
{
	double u1 = fl_uniform(rng), u2 = fl_uniform(rng);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return exp(sigma * sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2));
}

/* The next repetition's factor on machine m; *mode carries the regime
 * from one repetition to the next (-1: none drawn yet). */
static double machine_one(enum machine m, int *mode, uint64_t *rng)
{
	if (m == STEADY)
		return lognormal(0.05, rng);
	if (m == BIMODAL || *mode < 0)
		*mode = fl_uniform(rng) < 0.5;
	else if (fl_uniform(rng) < 0.2)
		*mode = !*mode;
	return (*mode ? 1.0 : 0.5) * lognormal(0.10, rng);
}

struct run {
	double v[FL_REPS_LIMIT];
	unsigned int n;
	int noisy;	/* as read.c judges the cell */
};

/* One run's repetitions of a cell whose true figure is `level` on machine
 * m: n of them, or with n = 0 as many as --reps auto takes. */
static void draw_run(enum machine m, double level, unsigned int n,
		     uint64_t *rng, struct run *r)
{
	static struct fl_spec spec;
	struct fl_cell_track t;
	struct fl_ci ci;
	int mode = -1;

	fl_spec_init(&spec, fl_workload_find("mutex"));
	if (n) {
		spec.reps_auto = 0;
		spec.reps = n;
	}
	fl_track_init(&t, &spec);
	while (t.visits < t.reps ||
	       (t.reps_auto && !fl_track_converged(&t) &&
		t.visits < t.reps_max))
		fl_track_add(&t, 0, level * machine_one(m, &mode, rng));
	for (unsigned int i = 0; i < t.nvalues; i++)
		r->v[i] = t.values[i];
	r->n = t.nvalues;
	fl_median_ci(r->v, r->n, FL_CONFIDENCE, &ci);
	r->noisy = fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH);
}

/* One cell's interval as compare makes it; shift_only: the
 * Hodges-Lehmann interval whatever the noise. */
static void cell_shift(const struct run *a, const struct run *b,
		       int shift_only, struct fl_shift *s)
{
	if (shift_only)
		fl_shift_ratio(a->v, a->n, b->v, b->n, FL_CONFIDENCE, s);
	else
		fl_cell_shift(a->v, a->n, a->noisy, b->v, b->n, b->noisy, s);
}

/* The share of trials on machine m whose verdict is `want` (or any of
 * faster and slower when want is FL_NVERDICTS). */
static double rate_on(enum machine m, double shift, unsigned int n,
		      enum fl_verdict want, int shift_only, uint64_t seed)
{
	static struct run a, b;
	uint64_t rng = seed;
	unsigned int hits = 0;

	for (int i = 0; i < TRIALS; i++) {
		struct fl_shift s;
		enum fl_verdict v;

		draw_run(m, 1.0, n, &rng, &a);
		draw_run(m, shift, n, &rng, &b);
		cell_shift(&a, &b, shift_only, &s);
		/* one cell: its adjusted p is its p */
		v = fl_verdict_of(&s, s.p, FL_DELTA_DEFAULT, 0);
		hits += want == FL_NVERDICTS ?
			(v == FL_V_FASTER || v == FL_V_SLOWER) : v == want;
	}
	return (double)hits / TRIALS;
}

static double rate(double shift, unsigned int n, enum fl_verdict want,
		   uint64_t seed)
{
	return rate_on(STEADY, shift, n, want, 0, seed);
}

static void test_false_alarms(void **state)
{
	double fixed6 = rate(1.0, 6, FL_NVERDICTS, 11);
	double adaptive = rate(1.0, 0, FL_NVERDICTS, 12);

	(void)state;
	print_message("false alarms, identical runs, 5%% noise: %.2f%% at 6 "
		      "reps, %.2f%% at --reps auto\n", fixed6 * 100,
		      adaptive * 100);
	assert_true(fixed6 <= 0.05);
	assert_true(adaptive <= 0.05);
}

/* Machines whose repetitions are NOISY mixtures: no false calls either,
 * where the shift interval alone makes them. */
static void test_false_alarms_mixtures(void **state)
{
	(void)state;
	for (enum machine m = BIMODAL; m <= REGIMES; m++) {
		double r = rate_on(m, 1.0, 0, FL_NVERDICTS, 0, 40 + m);
		double shift = rate_on(m, 1.0, 0, FL_NVERDICTS, 1, 40 + m);

		print_message("false alarms, identical runs, %s: %.2f%% at "
			      "--reps auto (%.2f%% by the shift interval "
			      "alone)\n", machine_names[m], r * 100,
			      shift * 100);
		assert_true(r <= 0.05);
	}
}

/* The hogged run: a 4x drop on a machine in regimes is still called. */
static void test_power_regimes(void **state)
{
	double r = rate_on(REGIMES, 0.25, 0, FL_V_SLOWER, 0, 50);

	(void)state;
	print_message("power, 4x slower on regimes: %.1f%% at --reps auto\n",
		      r * 100);
	assert_true(r >= 0.80);
	assert_true(rate_on(REGIMES, 0.25, 0, FL_V_FASTER, 0, 51) == 0.0);
}

static void test_power_default_reps(void **state)
{
	double adaptive = rate(0.9, 0, FL_V_SLOWER, 13);
	double fixed6 = rate(0.9, 6, FL_V_SLOWER, 14);

	(void)state;
	print_message("power, 10%% slower at 5%% noise: %.1f%% at --reps "
		      "auto, %.1f%% at 6 reps\n", adaptive * 100,
		      fixed6 * 100);
	assert_true(adaptive >= 0.80);
	/* and never the wrong direction */
	assert_true(rate(0.9, 0, FL_V_FASTER, 15) == 0.0);
}

static void test_power_grows_with_reps(void **state)
{
	static const unsigned int reps[] = { 6, 10, 20, 30 };
	double last = 0.0;

	(void)state;
	for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
		double p = rate(0.9, reps[i], FL_V_SLOWER, 20 + i);

		print_message("power at %u reps: %.1f%%\n", reps[i], p * 100);
		assert_true(p >= last);
		last = p;
	}
}

#define MATRIX_CELLS	90
#define MATRIX_TRIALS	200

/* Two runs of a 90-cell matrix of identical cells at --reps auto: the
 * share of comparisons with any faster or slower among the cells. */
static void test_matrix_false_alarms(void **state)
{
	static struct run a[MATRIX_CELLS], b[MATRIX_CELLS];
	struct fl_shift s[MATRIX_CELLS];
	double p[MATRIX_CELLS], adj[MATRIX_CELLS];
	uint64_t rng = 31;
	unsigned int any = 0;

	(void)state;
	for (int t = 0; t < MATRIX_TRIALS; t++) {
		int called = 0;

		for (int c = 0; c < MATRIX_CELLS; c++) {
			draw_run(STEADY, 1.0, 0, &rng, &a[c]);
			draw_run(STEADY, 1.0, 0, &rng, &b[c]);
			cell_shift(&a[c], &b[c], 0, &s[c]);
			p[c] = s[c].p;
		}
		fl_bh_adjust(p, MATRIX_CELLS, adj);
		for (int c = 0; c < MATRIX_CELLS; c++) {
			enum fl_verdict v = fl_verdict_of(&s[c], adj[c],
							  FL_DELTA_DEFAULT, 0);

			called |= v == FL_V_FASTER || v == FL_V_SLOWER;
		}
		any += (unsigned int)called;
	}
	print_message("comparisons of two identical %d-cell matrices with "
		      "any faster or slower: %.1f%%\n", MATRIX_CELLS,
		      100.0 * any / MATRIX_TRIALS);
	assert_true(any <= MATRIX_TRIALS / 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_alarms),
		cmocka_unit_test(test_false_alarms_mixtures),
		cmocka_unit_test(test_power_regimes),
		cmocka_unit_test(test_power_default_reps),
		cmocka_unit_test(test_power_grows_with_reps),
		cmocka_unit_test(test_matrix_false_alarms),
	};

	return cmocka_run_group_tests_name("compare_sim", tests, NULL, NULL);
}
