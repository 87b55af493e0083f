// SPDX-License-Identifier: GPL-2.0
/*
 * The simulation of compare's error rates (test_compare_sim.c):
 * campaigns, the run as the unit (compare/runs.h): identical sides
 * between runs in modes and days, and a 10% drop.
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

#define CAMPAIGN_CELLS	8
#define CAMPAIGN_TRIALS	600
/* the day effect: sigma of a run's log factor common to all its cells */
#define DAY_SIGMA	0.03

struct campaign_rates {
	double called;		/* share of cells faster or slower */
	double wanted;		/* share of cells with the wanted verdict */
	double more_runs;	/* share of cells told to run more */
	double summary_off;	/* share of families with a summary off 1 */
	double summary_off_cells;	/* the same by a bootstrap over cells */
};

/*
 * One side's runs of every cell: each run a day factor for all cells
 * and, with modes, each cell in a mode of its own for the whole run, its
 * repetitions then drawn as --reps auto takes them (5% noise); med[c][r]
 * is run r's median of cell c.
 */
static void draw_side(int modes, double level, unsigned int nruns,
		      uint64_t *rng, double med[][FL_RUNS_MAX_SIDE])
{
	static struct run one;

	for (unsigned int r = 0; r < nruns; r++) {
		double day = lognormal(DAY_SIGMA, rng);

		for (int c = 0; c < CAMPAIGN_CELLS; c++) {
			double mode = modes && fl_uniform(rng) < 0.5 ?
				      1.0 / 1.5 : 1.0;

			draw_run(STEADY, level * day * mode, 0, rng, &one);
			med[c][r] = fl_median(one.v, one.n);
		}
	}
}

/*
 * The campaign's workloads, as ranges of its cells: one of a single cell,
 * one of two, one of the rest. With the overall summary, a family of
 * four read together (compare/runs.h).
 */
#define CAMPAIGN_WORKLOADS	3
static const int workload_first[CAMPAIGN_WORKLOADS + 1] = { 0, 1, 3,
							    CAMPAIGN_CELLS };

/* the mean log of cells [from, to) of each run: a summary's observation */
static void run_means(double med[][FL_RUNS_MAX_SIDE], unsigned int nruns,
		      int from, int to, double *out)
{
	for (unsigned int r = 0; r < nruns; r++) {
		double s = 0.0;

		for (int c = from; c < to; c++)
			s += log(med[c][r]);
		out[r] = exp(s / (to - from));
	}
}

/* Does any summary of the family (each workload, then overall) put 1
 * outside its interval? */
static int any_summary_off(double a[][FL_RUNS_MAX_SIDE],
			   double b[][FL_RUNS_MAX_SIDE], unsigned int nruns)
{
	static double ma[(CAMPAIGN_WORKLOADS + 1) * FL_RUNS_MAX_SIDE],
		mb[(CAMPAIGN_WORKLOADS + 1) * FL_RUNS_MAX_SIDE];
	struct fl_shift s[CAMPAIGN_WORKLOADS + 1];
	int off = 0;

	for (int w = 0; w <= CAMPAIGN_WORKLOADS; w++) {
		int from = w < CAMPAIGN_WORKLOADS ? workload_first[w] : 0;
		int to = w < CAMPAIGN_WORKLOADS ? workload_first[w + 1] :
			 CAMPAIGN_CELLS;

		run_means(a, nruns, from, to, ma + w * nruns);
		run_means(b, nruns, from, to, mb + w * nruns);
	}
	fl_runs_summaries(ma, nruns, mb, nruns, CAMPAIGN_WORKLOADS + 1, s);
	for (int w = 0; w <= CAMPAIGN_WORKLOADS; w++)
		off |= s[w].ok && (s[w].lo > 1.0 || s[w].hi < 1.0);
	return off;
}

static void campaign_rates(int modes, double shift, unsigned int nruns,
			   enum fl_verdict want, uint64_t seed,
			   struct campaign_rates *out)
{
	static double a[CAMPAIGN_CELLS][FL_RUNS_MAX_SIDE],
		b[CAMPAIGN_CELLS][FL_RUNS_MAX_SIDE];
	unsigned int called = 0, wanted = 0, more = 0, off = 0, off_cells = 0;
	uint64_t rng = seed;

	for (int t = 0; t < CAMPAIGN_TRIALS; t++) {
		double ratio[CAMPAIGN_CELLS];
		struct fl_geomean g;
		struct fl_shift s;

		draw_side(modes, 1.0, nruns, &rng, a);
		draw_side(modes, shift, nruns, &rng, b);
		for (int c = 0; c < CAMPAIGN_CELLS; c++) {
			unsigned int needed;
			enum fl_verdict v;

			fl_runs_shift(a[c], nruns, b[c], nruns, &s);
			/* a cell alone: its adjusted p is its p */
			v = fl_runs_verdict_of(&s, s.p, FL_DELTA_DEFAULT, 0,
					       a[c], nruns, b[c], nruns,
					       &needed);
			called += v == FL_V_FASTER || v == FL_V_SLOWER;
			wanted += v == want;
			more += v == FL_V_MORE_RUNS;
			ratio[c] = s.ratio;
		}
		off += any_summary_off(a, b, nruns);
		/* what one pair of runs' summary does: resample the cells */
		fl_geomean_ci(ratio, CAMPAIGN_CELLS, FL_CONFIDENCE, seed + t,
			      &g);
		off_cells += g.ok && (g.lo > 1.0 || g.hi < 1.0);
	}
	out->called = (double)called / (CAMPAIGN_TRIALS * CAMPAIGN_CELLS);
	out->wanted = (double)wanted / (CAMPAIGN_TRIALS * CAMPAIGN_CELLS);
	out->more_runs = (double)more / (CAMPAIGN_TRIALS * CAMPAIGN_CELLS);
	out->summary_off = (double)off / CAMPAIGN_TRIALS;
	out->summary_off_cells = (double)off_cells / CAMPAIGN_TRIALS;
}

/* Identical sides between runs in modes and days: no false calls. */
void test_campaign_false_alarms(void **state)
{
	static const unsigned int runs[] = { 3, 5, 10 };

	(void)state;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct campaign_rates r;

		campaign_rates(1, 1.0, runs[i], FL_NVERDICTS, 70 + i, &r);
		print_message("campaign, identical sides, two modes per cell "
			      "and a day effect, %u runs per side: %.2f%% of "
			      "cells faster or slower, %.1f%% needing more "
			      "runs; a summary of the family of %d excludes 1 "
			      "in %.1f%% (one summary by a bootstrap over "
			      "cells: %.1f%%)\n", runs[i],
			      r.called * 100, r.more_runs * 100,
			      CAMPAIGN_WORKLOADS + 1, r.summary_off * 100, r.summary_off_cells * 100);
		assert_true(r.called <= 0.05);
		/* the max-t family's level is 5% exactly (stats/maxt.h), so
		 * its estimate here may sit above 5% by sampling alone: two
		 * standard errors of CAMPAIGN_TRIALS campaigns */
		assert_true(r.summary_off <=
			    0.05 + 2 * sqrt(0.05 * 0.95 / CAMPAIGN_TRIALS));
	}
}

/* A 10% drop at 5% noise, a day effect, 5 runs per side. */
void test_campaign_power(void **state)
{
	struct campaign_rates drop, wrong;

	(void)state;
	campaign_rates(0, 0.9, 5, FL_V_SLOWER, 80, &drop);
	campaign_rates(0, 0.9, 5, FL_V_FASTER, 81, &wrong);
	print_message("campaign, 10%% slower at 5%% noise and a day effect, "
		      "5 runs per side: slower for %.1f%% of cells, %.1f%% "
		      "needing more runs; a summary of the family "
		      "excludes 1 in %.1f%%\n", drop.wanted * 100, drop.more_runs * 100,
		      drop.summary_off * 100);
	assert_true(drop.wanted >= 0.80);
	assert_true(wrong.wanted == 0.0);
}
