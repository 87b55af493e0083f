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
 *     at most 5% of the time;
 *   - a workload of 24 cells on a machine whose state all of them share,
 *     switching between passes (compare's drift rule, stats/drift.h):
 *     identical runs get faster or slower for at most 5% of the cells;
 *     on a steady machine the rule fires in at most 1% of runs and a 10%
 *     drop at 5% noise is still called for at least 80% of the cells;
 *   - the same workload with every repetition's idle-wake probe
 *     (compare/adjust.c): on the shared machine the adjustment is made in
 *     at least 80% of comparisons, identical runs get at most 5% of
 *     cells called, and a 10% drop is called more often than under the
 *     drift rule alone (at least 80% of cells with a faithful probe); on
 *     the steady machine it is made in at most 1% of comparisons and the
 *     steady rates hold.
 *   - campaigns, the run as the unit (compare/runs.h): a workload of
 *     CAMPAIGN_CELLS cells, each run drawing one of two modes per cell
 *     (1 or 1/1.5, as pair 6's condvar cells) and a day effect common to
 *     all its cells; identical sides get faster or slower for at most 5%
 *     of the cells at 3, 5 and 10 runs per side, and no summary of
 *     the family (three workloads of 1, 2 and 5 cells, and overall)
 *     excludes 1 in more than 5% of campaigns (within two standard
 *     errors of the trials: the method's level is 5% exactly); with 5 runs per side
 *     on a steady machine (5% noise, the day effect) a 10% drop is
 *     called slower for at least 80% of the cells.
 * The rates it prints are the ones docs/statistics.md quotes, with the
 * rate the shift interval alone would give on regimes (the reason NOISY
 * cells are judged repetition against repetition).
 *
 * Here: the cells' rates and the table of tests; the model is
 * compare_sim_model.c, the workload's rates compare_sim_workload.c, the
 * campaign's compare_sim_campaign.c (compare_sim.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "compare/compare.h"
#include "compare/runs.h"
#include "stats/covary.h"
#include "stats/drift.h"
#include "stats/shift.h"
#include "stats/stats.h"
#include "sweep/passes.h"
#include "tests/unit/compare_sim.h"

#define TRIALS	2000

static const char *const machine_names[] = {
	[STEADY] = "steady", [BIMODAL] = "bimodal", [REGIMES] = "regimes",
};

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
		cmocka_unit_test(test_workload_shared_regimes),
		cmocka_unit_test(test_workload_steady),
		cmocka_unit_test(test_workload_probe_regimes),
		cmocka_unit_test(test_campaign_false_alarms),
		cmocka_unit_test(test_campaign_power),
	};

	return cmocka_run_group_tests_name("compare_sim", tests, NULL, NULL);
}
