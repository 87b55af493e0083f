// SPDX-License-Identifier: GPL-2.0
/* The time-cost model of visits, estimates and budgets: see cost.h. */
#include "sweep/cost.h"

double fl_visit_seconds(uint64_t warmup_ns, uint64_t duration_ns)
{
	return (double)(warmup_ns + duration_ns) / 1e9 + FL_VISIT_OVERHEAD_S;
}

double fl_spec_minimum_seconds(const struct fl_spec *s)
{
	return (double)fl_spec_ncells(s) * s->reps *
	       fl_visit_seconds(s->warmup_ns, s->duration_ns);
}

double fl_budget_seconds(double asked_s, double minimum_s)
{
	return asked_s > 0 ? asked_s : FL_BUDGET_FACTOR * minimum_s;
}
