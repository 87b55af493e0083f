/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one time-cost model of a run, for the estimate a run or a matrix
 * announces, the budget --reps auto may spend, the planner's choice of
 * which extra visits fit, and the matrix's time left. Every figure is
 * nominal: what the durations asked for add up to, plus a per-visit
 * allowance for what is not a repetition.
 */
#ifndef FUTEXLAB_SWEEP_COST_H
#define FUTEXLAB_SWEEP_COST_H

#include <stdint.h>

#include "spec/spec.h"

/*
 * What a visit costs beside its warm-up and repetition: the fork, the
 * child's set-up and the shared mapping, measured at about 20 ms a visit
 * on the 2-CPU development machine.
 */
#define FL_VISIT_OVERHEAD_S	0.02

/* Nominal seconds of one visit: one repetition in a fresh process with
 * its own warm-up. */
double fl_visit_seconds(uint64_t warmup_ns, uint64_t duration_ns);

/* Nominal seconds of every cell of s with its minimum repetitions, each
 * repetition a visit. */
double fl_spec_minimum_seconds(const struct fl_spec *s);

/* What --reps auto may spend: the budget asked for (time-budget), or
 * FL_BUDGET_FACTOR times the minimum repetitions' nominal time when none
 * was (asked_s 0). */
double fl_budget_seconds(double asked_s, double minimum_s);

#endif
