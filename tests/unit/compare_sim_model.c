// SPDX-License-Identifier: GPL-2.0
/*
 * The simulation of compare's error rates (test_compare_sim.c): the
 * machines (steady, bimodal, regimes) and one run's repetitions of a
 * cell drawn on one, with --reps auto's stopping rule, judged NOISY as
 * read.c judges them and set against another run as compare does.
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

/* exp(sigma * a standard normal), by Box-Muller */
double lognormal(double sigma, uint64_t *rng)
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


/* r->noisy from its values, as read.c (and compare, for adjusted
 * values) judges a cell */
void judge_noisy(struct run *r)
{
	struct fl_ci ci;

	fl_median_ci(r->v, r->n, FL_CONFIDENCE, &ci);
	r->noisy = fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH);
}

/* One run's repetitions of a cell whose true figure is `level` on machine
 * m: n of them, or with n = 0 as many as --reps auto takes. */
void draw_run(enum machine m, double level, unsigned int n,
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
		fl_track_add(&t, 0, level * machine_one(m, &mode, rng), NAN, 0);
	for (unsigned int i = 0; i < t.nvalues; i++)
		r->v[i] = t.values[i];
	r->n = t.nvalues;
	judge_noisy(r);
}

/* One cell's interval as compare makes it; shift_only: the
 * Hodges-Lehmann interval whatever the noise. */
void cell_shift(const struct run *a, const struct run *b,
		int shift_only, struct fl_shift *s)
{
	if (shift_only)
		fl_shift_ratio(a->v, a->n, b->v, b->n, FL_CONFIDENCE, s);
	else
		fl_cell_shift(a->v, a->n, a->noisy, b->v, b->n, b->noisy, s);
}
