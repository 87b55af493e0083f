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

/* r->noisy from its values, as read.c (and compare, for adjusted
 * values) judges a cell */
static void judge_noisy(struct run *r)
{
	struct fl_ci ci;

	fl_median_ci(r->v, r->n, FL_CONFIDENCE, &ci);
	r->noisy = fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH);
}

/* One run's repetitions of a cell whose true figure is `level` on machine
 * m: n of them, or with n = 0 as many as --reps auto takes. */
static void draw_run(enum machine m, double level, unsigned int n,
		     uint64_t *rng, struct run *r)
{
	static struct fl_spec spec;
	struct fl_cell_track t;
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
	judge_noisy(r);
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

#define WL_CELLS	24
#define WL_TRIALS	200

/*
 * One run of a workload of WL_CELLS cells as a matrix makes it: a pass
 * visits every cell that --reps auto has not stopped, and a repetition's
 * time is its pass (and its place in it). On the shared machine every
 * pass runs in one of two states, one 1.5 times the other (this VM's
 * host waking an idle vCPU at once or late), switching with probability
 * 0.25 between passes, with 2% noise within a state; on the steady one
 * every repetition has 5% noise.
 */
struct wl_run {
	struct run cell[WL_CELLS];
	double t[WL_CELLS][FL_REPS_LIMIT];
	double x[WL_CELLS][FL_REPS_LIMIT];	/* the idle-wake probe */
	struct fl_drift drift;
};

/*
 * The idle-wake probe the repetition records (measure/idle_wake.h): on
 * the shared machine it reads the pass's state, 38 us or 10.5 us with 3%
 * noise, but misreads it with probability probe_misread (the host
 * changed between the probe and the repetition); on the steady one it is
 * 10.5 us with 3% noise that nothing else follows. Its own random
 * stream, so that the figures are the ones the tests without it draw.
 */
static double probe_misread;

static double probe_of(int shared, int state, uint64_t *prng)
{
	int seen = state ^ (fl_uniform(prng) < probe_misread);

	return (shared && seen ? 38000.0 : 10500.0) * lognormal(0.03, prng);
}

/* The drift of the workload's cells over the run's time */
static void drift_of(struct wl_run *w)
{
	const double *v[WL_CELLS], *t[WL_CELLS];
	unsigned int n[WL_CELLS];

	for (int c = 0; c < WL_CELLS; c++) {
		v[c] = w->cell[c].v;
		t[c] = w->t[c];
		n[c] = w->cell[c].n;
	}
	fl_drift_of_cells(v, t, n, WL_CELLS, &w->drift);
}

static void draw_workload(int shared, double level, uint64_t *rng,
			  struct wl_run *w)
{
	static struct fl_spec spec;
	static struct fl_cell_track t[WL_CELLS];
	int state = fl_uniform(rng) < 0.5, more = 1;
	uint64_t prng = *rng ^ 0x5851F42D4C957F2Dull;

	fl_spec_init(&spec, fl_workload_find("mutex"));
	for (int c = 0; c < WL_CELLS; c++)
		fl_track_init(&t[c], &spec);
	for (unsigned int pass = 0; more; pass++) {
		if (shared && pass && fl_uniform(rng) < 0.25)
			state = !state;
		more = 0;
		for (int c = 0; c < WL_CELLS; c++) {
			struct fl_cell_track *k = &t[c];
			double f = shared ? (state ? 1.5 : 1.0) *
				   lognormal(0.02, rng) : lognormal(0.05, rng);

			if (k->visits >= k->reps &&
			    (!k->reps_auto || fl_track_converged(k) ||
			     k->visits >= k->reps_max))
				continue;
			w->t[c][k->nvalues] = pass + (double)c / WL_CELLS;
			w->x[c][k->nvalues] = probe_of(shared, state, &prng);
			fl_track_add(k, 0, level * f);
			more = 1;
		}
	}
	for (int c = 0; c < WL_CELLS; c++) {
		struct run *r = &w->cell[c];

		for (unsigned int i = 0; i < t[c].nvalues; i++)
			r->v[i] = t[c].values[i];
		r->n = t[c].nvalues;
		judge_noisy(r);
	}
	drift_of(w);
}

struct wl_rates {
	double called;		/* share of cells called faster or slower */
	double wanted;		/* share of cells with verdict `want` */
	double drifted;		/* share of runs the drift rule fired on */
	double adjusted;	/* share of comparisons adjusted */
};

/*
 * compare/adjust.c on the two runs: fit the figures against the probe
 * over both runs' cells, and where they follow it, set every repetition
 * at the runs' common median probe, then judge the drift again on what
 * is left. 1 when adjusted.
 */
static int adjust_pair(struct wl_run *a, struct wl_run *b)
{
	static double logs[2 * WL_CELLS * FL_REPS_LIMIT];
	const double *v[2 * WL_CELLS], *x[2 * WL_CELLS];
	unsigned int n[2 * WL_CELLS];
	struct fl_covary cv;
	size_t m = 0;

	for (int k = 0; k < 2; k++)
		for (int c = 0; c < WL_CELLS; c++) {
			struct wl_run *w = k ? b : a;

			v[k * WL_CELLS + c] = w->cell[c].v;
			x[k * WL_CELLS + c] = w->x[c];
			n[k * WL_CELLS + c] = w->cell[c].n;
			for (unsigned int j = 0; j < w->cell[c].n; j++)
				logs[m++] = log(w->x[c][j]);
		}
	if (fl_covary_cells(v, x, n, 2 * WL_CELLS, &cv) ||
	    cv.p >= FL_ADJUST_ALPHA || cv.n < FL_DRIFT_MIN_N)
		return 0;
	double ref = fl_median_sort(logs, m);

	for (int k = 0; k < 2; k++)
		for (int c = 0; c < WL_CELLS; c++) {
			struct wl_run *w = k ? b : a;
			struct run *r = &w->cell[c];

			fl_covary_adjust(r->v, w->x[c], r->n, cv.slope, ref,
					 ref, r->v);
			judge_noisy(r);	/* again, as compare does */
		}
	drift_of(a);
	drift_of(b);
	return 1;
}

/* Two runs of the workload, B's level `shift`, compared as compare does
 * (with the drift rule, or without it; with the idle-wake adjustment, or
 * without it), WL_TRIALS times. */
static void workload_rates(int shared, double shift, int rule, int adjust,
			   enum fl_verdict want, uint64_t seed,
			   struct wl_rates *out)
{
	static struct wl_run a, b;
	struct fl_shift s[WL_CELLS];
	double p[WL_CELLS], adj[WL_CELLS];
	unsigned long called = 0, wanted = 0, drifted = 0, adjusted = 0;
	uint64_t rng = seed;

	for (int i = 0; i < WL_TRIALS; i++) {
		draw_workload(shared, 1.0, &rng, &a);
		draw_workload(shared, shift, &rng, &b);
		if (adjust)
			adjusted += (unsigned long)adjust_pair(&a, &b);
		drifted += (unsigned long)a.drift.drifted + b.drift.drifted;
		for (int c = 0; c < WL_CELLS; c++) {
			cell_shift(&a.cell[c], &b.cell[c], 0, &s[c]);
			if (rule)
				fl_shift_widen(&s[c], fl_drift_widen(&a.drift,
								     &b.drift));
			p[c] = s[c].p;
		}
		fl_bh_adjust(p, WL_CELLS, adj);
		for (int c = 0; c < WL_CELLS; c++) {
			enum fl_verdict v = fl_verdict_of(&s[c], adj[c],
							  FL_DELTA_DEFAULT, 0);

			called += v == FL_V_FASTER || v == FL_V_SLOWER;
			wanted += v == want;
		}
	}
	out->called = (double)called / (WL_TRIALS * WL_CELLS);
	out->wanted = (double)wanted / (WL_TRIALS * WL_CELLS);
	out->drifted = (double)drifted / (2 * WL_TRIALS);
	out->adjusted = (double)adjusted / WL_TRIALS;
}

/* The machine's state, shared by the cells, differs between the runs:
 * without the drift rule most cells are called; with it, few. */
static void test_workload_shared_regimes(void **state)
{
	struct wl_rates with, without;

	(void)state;
	workload_rates(1, 1.0, 1, 0, FL_NVERDICTS, 61, &with);
	workload_rates(1, 1.0, 0, 0, FL_NVERDICTS, 61, &without);
	print_message("workload on a shared machine in regimes, identical "
		      "runs: %.2f%% of cells called (%.2f%% without the "
		      "drift rule); drift found in %.1f%% of runs\n",
		      with.called * 100, without.called * 100,
		      with.drifted * 100);
	assert_true(with.called <= 0.05);
	assert_true(without.called > with.called);
}

/* A steady machine: the rule seldom fires, and costs little power; and
 * with every repetition probed (a probe that nothing follows), the
 * adjustment is seldom made and the rates stay. */
static void test_workload_steady(void **state)
{
	struct wl_rates same, drop;

	(void)state;
	for (int adjust = 0; adjust < 2; adjust++) {
		workload_rates(0, 1.0, 1, adjust, FL_NVERDICTS, 62, &same);
		workload_rates(0, 0.9, 1, adjust, FL_V_SLOWER, 63, &drop);
		print_message("workload on a steady machine%s: drift found "
			      "in %.2f%% of runs, adjusted in %.2f%% of "
			      "comparisons; identical runs %.2f%% of cells "
			      "called; 10%% slower called slower for %.1f%% "
			      "of cells\n", adjust ? ", probed" : "",
			      same.drifted * 100, same.adjusted * 100,
			      same.called * 100, drop.wanted * 100);
		assert_true(same.drifted <= 0.01);
		assert_true(same.adjusted <= 0.01);
		assert_true(same.called <= 0.05);
		assert_true(drop.wanted >= 0.80);
	}
}

/* The shared machine again, every repetition probed: adjusted, identical
 * runs agree, and a 10% drop, which the drift rule alone must widen
 * away, is called again; how much of it depends on how faithfully the
 * probe reads the machine, so both a faithful probe and one that
 * misreads one repetition in ten are run. */
static void test_workload_probe_regimes(void **state)
{
	static const double misread[] = { 0.0, 0.1 };
	struct wl_rates same, drop, drop_rule;

	(void)state;
	workload_rates(1, 0.9, 1, 0, FL_V_SLOWER, 64, &drop_rule);
	for (size_t i = 0; i < sizeof(misread) / sizeof(misread[0]); i++) {
		probe_misread = misread[i];
		workload_rates(1, 1.0, 1, 1, FL_NVERDICTS, 61, &same);
		workload_rates(1, 0.9, 1, 1, FL_V_SLOWER, 64, &drop);
		print_message("workload on a shared machine in regimes, "
			      "probe misreading %.0f%%: adjusted in %.1f%% of "
			      "comparisons, drift found after it in %.1f%% of "
			      "runs; identical runs %.2f%% of cells called; "
			      "10%% slower called slower for %.1f%% of cells "
			      "(%.1f%% with the drift rule alone)\n",
			      misread[i] * 100, same.adjusted * 100,
			      same.drifted * 100, same.called * 100,
			      drop.wanted * 100, drop_rule.wanted * 100);
		/* a run that never changed state has nothing to fit */
		assert_true(same.adjusted >= 0.8);
		assert_true(same.called <= 0.05);
		assert_true(drop.wanted > drop_rule.wanted);
		if (misread[i] == 0.0)
			assert_true(drop.wanted >= 0.80);
	}
	probe_misread = 0.0;
}

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
static void test_campaign_false_alarms(void **state)
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
static void test_campaign_power(void **state)
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
