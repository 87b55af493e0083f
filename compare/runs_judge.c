// SPDX-License-Identifier: GPL-2.0
/* Each cell's ratio over runs, its adjusted p and its verdict. */
#include <stdlib.h>

#include "compare/runs_internal.h"

/* ok on at least one run of each side, with one primary figure */
static int comparable(const struct runs_cell *x)
{
	return x->nok[0] && x->nok[1];
}

void runs_judge(struct runs_cmp *c)
{
	double *pv = calloc(c->n + 1, sizeof(double));
	double *adj = calloc(c->n + 1, sizeof(double));
	unsigned long *at = calloc(c->n + 1, sizeof(unsigned long));
	unsigned long k = 0;

	for (unsigned long i = 0; i < c->n; i++) {
		struct runs_cell *x = &c->cells[i];

		x->v = FL_V_NONE;
		x->p_adjusted = 1.0;
		if (!comparable(x))
			continue;
		fl_runs_shift(x->ok[0], x->nok[0], x->ok[1], x->nok[1], &x->s);
		if (x->s.ok && pv && adj && at) {
			pv[k] = x->s.p;
			at[k++] = i;
		}
	}
	if (pv && adj && at) {
		fl_bh_adjust(pv, k, adj);
		for (unsigned long j = 0; j < k; j++)
			c->cells[at[j]].p_adjusted = adj[j];
	}
	for (unsigned long i = 0; i < c->n; i++) {
		struct runs_cell *x = &c->cells[i];

		if (comparable(x))
			x->v = fl_runs_verdict_of(&x->s, x->p_adjusted,
						  c->delta,
						  x->lower_is_better,
						  x->ok[0], x->nok[0],
						  x->ok[1], x->nok[1],
						  &x->needed);
		c->count[x->v]++;
	}
	free(pv);
	free(adj);
	free(at);
}
