/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulation of compare's error rates (test_compare_sim.c): the
 * model of a machine and of one run's repetitions of a cell
 * (compare_sim_model.c), shared by its files: the cells' rates
 * (test_compare_sim.c), a workload's under drift and the idle-wake probe
 * (compare_sim_workload.c), and a campaign's (compare_sim_campaign.c).
 */
#ifndef FUTEXLAB_UNIT_COMPARE_SIM_H
#define FUTEXLAB_UNIT_COMPARE_SIM_H

#include <stdint.h>

#include "stats/shift.h"
#include "sweep/passes.h"

enum machine { STEADY, BIMODAL, REGIMES };

struct run {
	double v[FL_REPS_LIMIT];
	unsigned int n;
	int noisy;	/* as read.c judges the cell */
};

/* compare_sim_model.c */
double lognormal(double sigma, uint64_t *rng);
void judge_noisy(struct run *r);
void draw_run(enum machine m, double level, unsigned int n,
	      uint64_t *rng, struct run *r);
void cell_shift(const struct run *a, const struct run *b,
		int shift_only, struct fl_shift *s);

/* compare_sim_workload.c */
void test_workload_shared_regimes(void **state);
void test_workload_steady(void **state);
void test_workload_probe_regimes(void **state);

/* compare_sim_campaign.c */
void test_campaign_false_alarms(void **state);
void test_campaign_power(void **state);

#endif /* FUTEXLAB_UNIT_COMPARE_SIM_H */
