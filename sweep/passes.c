// SPDX-License-Identifier: GPL-2.0
/* Planning passes of visits: who is due, widest first, shuffled. */
#include "sweep/passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/cell.h"
#include "sweep/cost.h"
#include "spec/options.h"
#include "stats/shift.h"
#include "stats/stats.h"

void fl_track_init(struct fl_cell_track *t, const struct fl_spec *s)
{
	memset(t, 0, sizeof(*t));
	t->reps = s->reps;
	t->reps_auto = s->reps_auto;
	t->reps_max = s->reps_auto ? s->reps_max : s->reps;
	if (t->reps_max > FL_REPS_LIMIT)
		t->reps_max = FL_REPS_LIMIT;
	t->cost_s = fl_visit_seconds(s->warmup_ns, s->duration_ns);
	t->latency_primary = s->workload->primary == FL_PRIMARY_LATENCY_P50;
}

void fl_track_add(struct fl_cell_track *t, int status, double primary,
		  double cost, int contaminated)
{
	t->visits++;
	if (status != FL_STATUS_OK) {
		t->stopped = 1;
		return;
	}
	if (t->nvalues < FL_REPS_LIMIT)
		t->values[t->nvalues++] = primary;
	if (!isnan(cost) && t->ncost < FL_REPS_LIMIT)
		t->cost[t->ncost++] = cost;
	t->ncontaminated += contaminated != 0;
}

double fl_track_halfwidth(const struct fl_cell_track *t)
{
	struct fl_ci ci;

	fl_median_ci(t->values, t->nvalues, FL_CONFIDENCE, &ci);
	return fl_ci_rel_halfwidth(&ci);
}

int fl_track_converged(const struct fl_cell_track *t)
{
	double hw = fl_track_halfwidth(t);
	struct fl_ci ci;

	if (hw >= 0 && hw <= FL_NOISY_HALFWIDTH)
		return 1;
	if (!t->ncontaminated || !t->ncost)
		return 0;
	fl_median_ci(t->cost, t->ncost, FL_CONFIDENCE, &ci);
	return ci.ok && !fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH);
}

struct candidate {
	unsigned long cell;
	double width;		/* n/a counts as the widest */
};

static int wider_first(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->width != y->width)
		return x->width < y->width ? 1 : -1;
	return (x->cell > y->cell) - (x->cell < y->cell);
}

static void shuffle(unsigned long *v, unsigned long n, uint64_t seed,
		    unsigned int pass)
{
	uint64_t state = seed * 0x9E3779B97F4A7C15ull + pass;

	for (unsigned long i = n; i > 1; i--) {
		unsigned long j = (unsigned long)(fl_uniform(&state) *
						  (double)i);
		unsigned long t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

unsigned long fl_plan_pass(const struct fl_cell_track *t, unsigned long n,
			   unsigned int pass, double budget_left_s,
			   uint64_t seed, unsigned long *out)
{
	struct candidate *extra = calloc(n ? n : 1, sizeof(*extra));
	unsigned long k = 0, nextra = 0;

	if (!extra)
		return 0;
	for (unsigned long c = 0; c < n; c++) {
		if (t[c].stopped || t[c].visits >= t[c].reps_max)
			continue;
		if (t[c].visits < t[c].reps) {
			out[k++] = c;		/* the minimum: always */
			budget_left_s -= t[c].cost_s;
		} else if (t[c].reps_auto && !fl_track_converged(&t[c])) {
			double hw = fl_track_halfwidth(&t[c]);

			extra[nextra++] = (struct candidate){ c,
				hw < 0 ? 1e300 : hw };
		}
	}
	qsort(extra, nextra, sizeof(*extra), wider_first);
	for (unsigned long i = 0; i < nextra; i++) {
		if (t[extra[i].cell].cost_s > budget_left_s)
			continue;
		budget_left_s -= t[extra[i].cell].cost_s;
		out[k++] = extra[i].cell;
	}
	free(extra);
	shuffle(out, k, seed, pass);
	return k;
}
