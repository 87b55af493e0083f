// SPDX-License-Identifier: GPL-2.0
/* The cost of an operation from the kernel's counts of each repetition. */
#include "stats/cost.h"

#include <string.h>

const char *const fl_cost_name[FL_NCOST] = {
	[FL_COST_CPU] = "CPU ns/op", [FL_COST_CTX] = "cs/op",
	[FL_COST_SHARE] = "CPU share", [FL_COST_CYCLES] = "cycles/op",
	[FL_COST_INSNS] = "instructions/op",
};

/* One repetition's value of figure id into *v: 0, or -1 when it lacks
 * what the figure needs. */
static int value_of(const struct fl_rep_counts *k, uint64_t ops,
		    enum fl_cost_id id, double *v)
{
	double d = (double)ops;

	switch (id) {
	case FL_COST_CPU:
		*v = (double)k->cpu_ns / d;
		return (k->have & FL_HAVE_CPU) && ops ? 0 : -1;
	case FL_COST_CTX:
		*v = (double)k->ctx_switches / d;
		return (k->have & FL_HAVE_CTX) && ops ? 0 : -1;
	case FL_COST_SHARE:
		d = (double)k->cpu_ns + (double)k->run_delay_ns;
		*v = d > 0 ? (double)k->cpu_ns / d : 0;
		return (k->have & FL_HAVE_CPU) &&
		       (k->have & FL_HAVE_RUN_DELAY) && d > 0 ? 0 : -1;
	case FL_COST_CYCLES:
		*v = (double)k->cycles / d;
		return (k->have & FL_HAVE_CYCLES) && ops ? 0 : -1;
	case FL_COST_INSNS:
		*v = (double)k->instructions / d;
		return (k->have & FL_HAVE_INSTRUCTIONS) && ops ? 0 : -1;
	default:
		return -1;
	}
}

/* How much a contaminated repetition's threads were denied. */
static void contamination(const struct fl_rep_counts *k, struct fl_cost *c)
{
	double run = (double)k->cpu_ns + (double)k->run_delay_ns;

	if (!(k->have & FL_HAVE_CONTAMINATION))
		return;
	c->njudged++;
	if (!k->contaminated)
		return;
	c->ncontaminated++;
	if ((k->have & FL_HAVE_CPU) && (k->have & FL_HAVE_RUN_DELAY) &&
	    run > 0 && (double)k->run_delay_ns / run > c->denied_max)
		c->denied_max = (double)k->run_delay_ns / run;
	if ((k->have & FL_HAVE_STEAL) && k->steal_ns > c->steal_max_ns)
		c->steal_max_ns = k->steal_ns;
}

void fl_cost_of(const struct fl_rep_counts *counts, const uint64_t *ops,
		unsigned int n, struct fl_cost *c)
{
	static double v[FL_COST_MAX_REPS];

	memset(c, 0, sizeof(*c));
	c->denied_max = -1;
	if (n > FL_COST_MAX_REPS)
		n = FL_COST_MAX_REPS;
	for (unsigned int i = 0; i < n; i++) {
		contamination(&counts[i], c);
		c->nhave_cpu += !!(counts[i].have & FL_HAVE_CPU);
	}
	for (int id = 0; id < FL_NCOST; id++) {
		unsigned int m = 0;

		for (unsigned int i = 0; i < n; i++)
			m += !value_of(&counts[i], ops[i],
				       (enum fl_cost_id)id, &v[m]);
		if (id == FL_COST_CPU) {
			memcpy(c->cpu_per_op, v, m * sizeof(v[0]));
			c->ncpu = m;
		}
		if (!m)
			continue;
		fl_median_ci(v, m, FL_CONFIDENCE, &c->fig[id].ci);
		c->fig[id].noisy = fl_ci_noisy(&c->fig[id].ci,
					       FL_NOISY_HALFWIDTH);
	}
}

int fl_cost_holds(const struct fl_cost *c, int primary_noisy)
{
	const struct fl_cost_fig *f = &c->fig[FL_COST_CPU];

	return primary_noisy && c->ncontaminated && f->ci.ok && !f->noisy;
}
