// SPDX-License-Identifier: GPL-2.0
/* Each matched cell's ratio, adjusted p-value and verdict. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "stats/stats.h"

static const char *const verdict_names[FL_NVERDICTS] = {
	[FL_V_FASTER] = "faster", [FL_V_SLOWER] = "slower",
	[FL_V_EQUIVALENT] = "equivalent",
	[FL_V_INCONCLUSIVE] = "inconclusive",
	[FL_V_UNDECIDED] = "undecided", [FL_V_NONE] = "not comparable",
	[FL_V_MORE_RUNS] = "needs more runs",
};

const char *fl_verdict_name(enum fl_verdict v)
{
	return v < FL_NVERDICTS ? verdict_names[v] : "?";
}

enum fl_verdict fl_verdict_of(const struct fl_shift *s, double p_adjusted,
			      double delta, int lower_is_better)
{
	if (!s->ok)
		return FL_V_UNDECIDED;
	if (s->lo >= 1.0 - delta && s->hi <= 1.0 + delta)
		return FL_V_EQUIVALENT;
	if (p_adjusted < FL_ALPHA && s->lo > 1.0 + delta)
		return lower_is_better ? FL_V_SLOWER : FL_V_FASTER;
	if (p_adjusted < FL_ALPHA && s->hi < 1.0 - delta)
		return lower_is_better ? FL_V_FASTER : FL_V_SLOWER;
	return FL_V_INCONCLUSIVE;
}

int fl_cell_shift(const double *a, size_t na, int noisy_a, const double *b,
		  size_t nb, int noisy_b, struct fl_shift *s)
{
	if (noisy_a || noisy_b)
		return fl_shift_ratio_by_reps(a, na, b, nb, FL_CONFIDENCE, s);
	return fl_shift_ratio(a, na, b, nb, FL_CONFIDENCE, s);
}

/* Whether the values a cell is compared by are NOISY: the run's own flag
 * for its figures as measured; for adjusted ones, judged again on them,
 * since what made the repetitions two distributions may be what the
 * adjustment took out. */
static int noisy_of(const struct cmp_pair *p, const struct fl_rd_cell *c)
{
	const double *v = cmp_values(p, c);
	struct fl_ci ci;

	if (v == c->primary)
		return c->noisy;
	fl_median_ci(v, c->nok, FL_CONFIDENCE, &ci);
	return fl_ci_noisy(&ci, FL_NOISY_HALFWIDTH);
}

/* Both sides ran ok, with the same primary figure. */
static int comparable(const struct cmp_cell *c)
{
	return c->a && c->b && !strcmp(c->a->status, "ok") &&
	       !strcmp(c->b->status, "ok") && c->a->nok && c->b->nok &&
	       c->a->lower_is_better == c->b->lower_is_better;
}

void cmp_bh_cells(struct cmp_cell *cells, unsigned long n)
{
	double *pv = calloc(n + 1, sizeof(double));
	double *adj = calloc(n + 1, sizeof(double));
	unsigned long *at = calloc(n + 1, sizeof(unsigned long));
	unsigned long k = 0;

	/* only cells that can get a verdict count as tests */
	for (unsigned long i = 0; pv && at && i < n; i++) {
		if (!cells[i].s.ok)
			continue;
		pv[k] = cells[i].s.p;
		at[k++] = i;
	}
	if (adj && pv && at) {
		fl_bh_adjust(pv, k, adj);
		for (unsigned long j = 0; j < k; j++)
			cells[at[j]].p_adjusted = adj[j];
	}
	free(pv);
	free(adj);
	free(at);
}

void cmp_judge(struct cmp_pair *p)
{
	memset(p->count, 0, sizeof(p->count));
	for (unsigned long i = 0; i < p->n; i++) {
		struct cmp_cell *c = &p->cells[i];

		c->v = FL_V_NONE;
		c->p_adjusted = 1.0;
		if (!comparable(c))
			continue;
		fl_cell_shift(cmp_values(p, c->a), c->a->nok,
			      noisy_of(p, c->a), cmp_values(p, c->b),
			      c->b->nok, noisy_of(p, c->b), &c->s);
		c->widened = fmax(0.0, cmp_widen_of(p, c->a->workload));
		c->widened_busy = p->busy_widen > c->widened;
		if (c->widened_busy)
			c->widened = p->busy_widen;
		fl_shift_widen(&c->s, c->widened);
	}
	cmp_bh_cells(p->cells, p->n);
	for (unsigned long i = 0; i < p->n; i++) {
		struct cmp_cell *c = &p->cells[i];

		if (comparable(c))
			c->v = fl_verdict_of(&c->s, c->p_adjusted, p->delta,
					     c->a->lower_is_better);
		p->count[c->v]++;
	}
}
