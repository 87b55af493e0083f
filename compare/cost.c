// SPDX-License-Identifier: GPL-2.0
/*
 * The cost verdicts: each matched cell's CPU time per operation (as the
 * kernel counted it, stats/cost.h) in B against A, by the machinery of
 * the primary figure (the shift interval, repetition against
 * repetition for a NOISY side, the rank-sum p-value adjusted by
 * Benjamini-Hochberg over the cells that have the cost: a family of
 * tests of its own), lower being better. A busy machine takes CPU time
 * from the threads, so where either run was contaminated the throughput
 * verdicts are about the machine and the cost's lead.
 */
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "stats/cost.h"
#include "stats/stats.h"

/* Both sides ran ok and counted the CPU time of their threads. */
static int costed(const struct cmp_cell *c)
{
	return c->a && c->b && !strcmp(c->a->status, "ok") &&
	       !strcmp(c->b->status, "ok") && c->a->cost.ncpu &&
	       c->b->cost.ncpu;
}

static void contaminated_of(const struct fl_rd_run *r, unsigned int *n,
			    unsigned int *judged)
{
	for (unsigned long i = 0; i < r->ncells; i++) {
		*n += r->cells[i].cost.ncontaminated;
		*judged += r->cells[i].cost.njudged;
	}
}

int cmp_judge_cost(struct cmp_pair *p)
{
	p->cost = calloc(p->n + 1, sizeof(*p->cost));
	if (!p->cost)
		return -1;
	contaminated_of(p->a, &p->contaminated[0], &p->judged[0]);
	contaminated_of(p->b, &p->contaminated[1], &p->judged[1]);
	memset(p->cost_count, 0, sizeof(p->cost_count));
	for (unsigned long i = 0; i < p->n; i++) {
		struct cmp_cell *c = &p->cost[i];
		const struct fl_cost *a, *b;

		*c = (struct cmp_cell){ .a = p->cells[i].a,
					.b = p->cells[i].b, .cost = 1,
					.v = FL_V_NONE, .p_adjusted = 1.0 };
		if (!costed(c))
			continue;
		a = &c->a->cost;
		b = &c->b->cost;
		p->ncost++;
		fl_cell_shift(a->cpu_per_op, a->ncpu,
			      a->fig[FL_COST_CPU].noisy, b->cpu_per_op,
			      b->ncpu, b->fig[FL_COST_CPU].noisy, &c->s);
	}
	cmp_bh_cells(p->cost, p->n);
	for (unsigned long i = 0; i < p->n; i++) {
		struct cmp_cell *c = &p->cost[i];

		if (costed(c))
			c->v = fl_verdict_of(&c->s, c->p_adjusted, p->delta,
					     1);
		if (c->a && c->b)
			p->cost_count[c->v]++;
	}
	return 0;
}
