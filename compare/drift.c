// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's drift over time within each run, per workload
 * (stats/drift.h), and what it does to a comparison: a workload whose
 * figures moved together over the time of either run can differ between
 * the runs by as much as they moved, in every cell at once, so its cells'
 * intervals and its summary are widened by that spread, and compare says
 * why. Each run's ok cells of the workload count, whether or not the
 * other run has them: the drift is the run's. A run on a busy host (its
 * busy loop's speed moved under many repetitions, match.c) widens every
 * cell by the spread of the CPU speeds it saw, for the same reason.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "stats/stats.h"

static void warn(const struct cmp_drift *w, const struct fl_rd_run *r,
		 const struct fl_drift *d, const struct fl_say *say, FILE *md)
{
	fl_say(say, "futexlab compare: warning: %s's figures drifted "
	       "together over the time of %s (Kruskal-Wallis p %.2g across "
	       "%d blocks of its repetitions; their medians up to %.0f%% "
	       "apart): a change of the machine that the runs may have "
	       "caught in different shares, so %s's cell intervals and "
	       "summary are widened by %.0f%%", w->workload, r->name, d->p,
	       FL_DRIFT_BLOCKS, (exp(d->spread) - 1) * 100, w->workload,
	       (exp(w->widen) - 1) * 100);
	if (md)
		fprintf(md, "- **warning**: %s drifted over the time of %s "
			"(p %.2g; block medians up to %.0f%% apart): its "
			"intervals are widened by %.0f%%\n", w->workload,
			r->name, d->p, (exp(d->spread) - 1) * 100,
			(exp(w->widen) - 1) * 100);
}

/*
 * A run on a busy host (fl_rd_busy_host): how far apart (log) its CPU
 * speeds were, the 10th to the 90th percentile of every busy-loop
 * calibration of its ok repetitions (before and after each). A cell's
 * figure may have been measured at either end, so it widens every
 * interval as a drift does. 0 for a run not on a busy host.
 */
static double busy_spread(const struct fl_rd_run *r)
{
	unsigned long drifted, reps;
	size_t n = 0;
	double *v, spread = 0.0;

	if (!fl_rd_busy_host(r, &drifted, &reps))
		return 0.0;
	v = calloc(2 * reps + 1, sizeof(double));
	for (unsigned long i = 0; v && i < r->ncells; i++)
		for (unsigned int j = 0; j < r->cells[i].nok; j++)
			for (int k = 0; k < 2; k++)
				if (isfinite(r->cells[i].busy[j][k]))
					v[n++] = r->cells[i].busy[j][k];
	if (n >= 10) {
		double p10, p90;

		fl_deciles_sort(v, n, &p10, &p90);
		spread = log(p90 / p10);
	}
	free(v);
	return spread;
}

static void busy_warn(const struct fl_rd_run *r, double spread,
		      const struct fl_say *say, FILE *md)
{
	fl_say(say, "futexlab compare: warning: the CPU's speed during "
	       "%s ranged over %.0f%% (10th to 90th percentile of its "
	       "busy-loop calibrations): every cell's interval and every "
	       "summary are widened by that much", r->name,
	       (exp(spread) - 1) * 100);
	if (md)
		fprintf(md, "- **warning**: the CPU's speed during %s ranged "
			"over %.0f%%: every interval is widened by that much\n",
			r->name, (exp(spread) - 1) * 100);
}

int cmp_drift(struct cmp_pair *p, FILE *md)
{
	double ba = busy_spread(p->a), bb = busy_spread(p->b);

	if (ba > 0)
		busy_warn(p->a, ba, p->say, md);
	if (bb > 0)
		busy_warn(p->b, bb, p->say, md);
	p->busy_widen = fmax(ba, bb);
	p->ndrift = 0;
	p->drift = calloc(p->n + 1, sizeof(*p->drift));
	if (!p->drift)
		return -1;
	for (unsigned long i = 0; i < p->n; i++) {
		const struct fl_rd_cell *c = p->cells[i].a ? p->cells[i].a :
					     p->cells[i].b;
		struct cmp_drift *w;

		if (cmp_widen_of(p, c->workload) >= 0)
			continue;	/* seen */
		w = &p->drift[p->ndrift++];
		snprintf(w->workload, sizeof(w->workload), "%s", c->workload);
		fl_rd_drift(p->a, c->workload, p->vals_a, &w->a);
		fl_rd_drift(p->b, c->workload, p->vals_b, &w->b);
		w->widen = fl_drift_widen(&w->a, &w->b);
		if (w->a.drifted)
			warn(w, p->a, &w->a, p->say, md);
		if (w->b.drifted)
			warn(w, p->b, &w->b, p->say, md);
	}
	return 0;
}

double cmp_widen_of(const struct cmp_pair *p, const char *workload)
{
	for (unsigned int i = 0; i < p->ndrift; i++)
		if (!strcmp(p->drift[i].workload, workload))
			return p->drift[i].widen;
	return -1.0;
}
