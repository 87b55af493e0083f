// SPDX-License-Identifier: GPL-2.0
/*
 * The error rates of compare's verdicts, by simulation (deterministic:
 * fixed seeds). Each trial draws the repetitions of one cell in two runs
 * from log-normal noise of 5% (sigma of log values 0.05), runs the
 * production statistics on them (fl_shift_ratio, fl_verdict_of with the
 * default margin, and the adaptive repetitions' stopping rule of
 * sweep/passes.h), and counts the verdicts:
 *   - identical distributions: faster or slower at most 5% of the time;
 *   - B 10% slower: "slower" at least 80% of the time at the default
 *     repetitions (--reps auto);
 *   - power does not fall as fixed repetitions grow (6, 10, 20, 30);
 *   - over a whole matrix of 90 identical cells, adjusted by
 *     Benjamini-Hochberg, a comparison calls any cell faster or slower
 *     at most 5% of the time.
 * The rates it prints are the ones docs/statistics.md quotes.
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
#define NOISE	0.05

/* exp(NOISE * a standard normal), by Box-Muller */
static double noisy_one(uint64_t *rng)
{
	double u1 = fl_uniform(rng), u2 = fl_uniform(rng);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return exp(NOISE * sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2));
}

/* One run's repetitions of a cell whose true figure is `level`: n of
 * them, or with n = 0 as many as --reps auto takes. */
static unsigned int draw_run(double level, unsigned int n, uint64_t *rng,
			     double *v)
{
	static struct fl_spec spec;
	struct fl_cell_track t;

	fl_spec_init(&spec, fl_workload_find("mutex"));
	if (n) {
		spec.reps_auto = 0;
		spec.reps = n;
	}
	fl_track_init(&t, &spec);
	while (t.visits < t.reps ||
	       (t.reps_auto && !fl_track_converged(&t) &&
		t.visits < t.reps_max))
		fl_track_add(&t, 0, level * noisy_one(rng));
	for (unsigned int i = 0; i < t.nvalues; i++)
		v[i] = t.values[i];
	return t.nvalues;
}

/* The share of trials whose verdict is `want` (or any of faster and
 * slower when want is FL_NVERDICTS). */
static double rate(double shift, unsigned int n, enum fl_verdict want,
		   uint64_t seed)
{
	double a[FL_REPS_LIMIT], b[FL_REPS_LIMIT];
	uint64_t rng = seed;
	unsigned int hits = 0;

	for (int i = 0; i < TRIALS; i++) {
		unsigned int na = draw_run(1.0, n, &rng, a);
		unsigned int nb = draw_run(shift, n, &rng, b);
		struct fl_shift s;
		enum fl_verdict v;

		fl_shift_ratio(a, na, b, nb, FL_CONFIDENCE, &s);
		/* one cell: its adjusted p is its p */
		v = fl_verdict_of(&s, s.p, FL_DELTA_DEFAULT, 0);
		hits += want == FL_NVERDICTS ?
			(v == FL_V_FASTER || v == FL_V_SLOWER) : v == want;
	}
	return (double)hits / TRIALS;
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
	static double a[MATRIX_CELLS][FL_REPS_LIMIT], b[MATRIX_CELLS][
		FL_REPS_LIMIT];
	struct fl_shift s[MATRIX_CELLS];
	double p[MATRIX_CELLS], adj[MATRIX_CELLS];
	uint64_t rng = 31;
	unsigned int any = 0;

	(void)state;
	for (int t = 0; t < MATRIX_TRIALS; t++) {
		int called = 0;

		for (int c = 0; c < MATRIX_CELLS; c++) {
			unsigned int na = draw_run(1.0, 0, &rng, a[c]);
			unsigned int nb = draw_run(1.0, 0, &rng, b[c]);

			fl_shift_ratio(a[c], na, b[c], nb, FL_CONFIDENCE,
				       &s[c]);
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
		cmocka_unit_test(test_power_default_reps),
		cmocka_unit_test(test_power_grows_with_reps),
		cmocka_unit_test(test_matrix_false_alarms),
	};

	return cmocka_run_group_tests_name("compare_sim", tests, NULL, NULL);
}
