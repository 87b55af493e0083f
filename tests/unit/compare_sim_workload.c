// SPDX-License-Identifier: GPL-2.0
/*
 * The simulation of compare's error rates (test_compare_sim.c): a
 * workload of WL_CELLS cells on a machine whose state all of them share,
 * switching between passes: compare's drift rule (stats/drift.h), and
 * the adjustment by every repetition's idle-wake probe
 * (compare/adjust.c).
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
			fl_track_add(k, 0, level * f, NAN, 0);
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
void test_workload_shared_regimes(void **state)
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
void test_workload_steady(void **state)
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
void test_workload_probe_regimes(void **state)
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
