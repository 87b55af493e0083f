/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repetitions as passes over the cells, for `run` and `matrix` alike.
 *
 * A visit is one repetition of one cell in a fresh process with its own
 * warm-up. Pass p visits every cell that is due, in an order shuffled
 * from the seed and p (Hoefler and Belli's rule: interleave and randomise
 * so that drift on the machine spreads over every cell instead of
 * shifting one against another). With --reps N a cell is due until it
 * has N visits. With --reps auto (the default) it is due until it has
 * FL_REPS_MIN; after that, a cell whose 95% interval is still wider than
 * FL_NOISY_HALFWIDTH gets another visit per pass, the widest first, as
 * long as the time budget allows and it has fewer than reps_max. A cell
 * that was skipped, failed or aborted gets no more visits: it would say
 * the same again.
 */
#ifndef FUTEXLAB_PASSES_H
#define FUTEXLAB_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

/* What the planner knows of one cell. */
struct fl_cell_track {
	unsigned int visits;		/* made so far */
	unsigned int nvalues;		/* the ok visits' primary figures */
	double values[FL_REPS_LIMIT];
	int stopped;			/* skipped, failed or aborted */
	double cost_s;			/* nominal seconds of one visit
					 * (sweep/cost.h) */
	/* the cell's policy, from its spec */
	unsigned int reps, reps_max;
	int reps_auto;
	int latency_primary;		/* values are p50 latencies */
	/* the ok visits' CPU ns per operation, where counted
	 * (stats/cost.h), and how many visits the machine contaminated */
	unsigned int ncost, ncontaminated;
	double cost[FL_REPS_LIMIT];
};

void fl_track_init(struct fl_cell_track *t, const struct fl_spec *s);
/* After a visit: its status (enum fl_status), its primary figure, its
 * CPU ns per operation (NaN: not counted) and whether the machine
 * contaminated it. */
void fl_track_add(struct fl_cell_track *t, int status, double primary,
		  double cost, int contaminated);
/*
 * The cell's interval is narrow enough (or its reps are fixed and
 * done): its primary figure's, or on a machine that contaminated one of
 * its visits, its cost's (stats/cost.h's fl_cost_holds: the throughput's
 * interval is then the machine's, and more visits would measure the
 * machine, not the lock).
 */
int fl_track_converged(const struct fl_cell_track *t);
/* The relative half-width of its interval; -1 while n/a. */
double fl_track_halfwidth(const struct fl_cell_track *t);

/*
 * The cells of pass `pass` into out (room for n): every cell still short
 * of its minimum, then the unconverged ones, widest first, whose visits
 * fit in budget_left_s; shuffled from seed and pass. Returns how many (0:
 * the run is complete).
 */
unsigned long fl_plan_pass(const struct fl_cell_track *t, unsigned long n,
			   unsigned int pass, double budget_left_s,
			   uint64_t seed, unsigned long *out);

#endif
