/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Before a run or a matrix starts it says how much it will do: cells,
 * repetitions and the estimated wall time (the cost model of
 * sweep/cost.h: warm-ups plus repetitions plus a start-up cost per
 * visit, from the durations asked for). Beyond
 * FL_UNASKED_SECONDS (a day) it refuses unless told to go ahead (--yes):
 * a sweep of 40,960 cells x 100 repetitions x 1 day is a typo, not a plan.
 */
#ifndef FUTEXLAB_CLI_ESTIMATE_H
#define FUTEXLAB_CLI_ESTIMATE_H

#include "spec/spec.h"

#define FL_UNASKED_SECONDS	86400.0

/* s seconds as "H:MM:SS", or "N days" from three days on. */
void fl_format_duration(double s, char *buf, size_t len);

/*
 * "futexlab CMD: N cells x R repetitions (V runs), about H:MM:SS" on
 * stderr; 0, or -1 after saying why when the estimate passes the bound
 * and yes is 0.
 */
int fl_announce(const char *cmd, unsigned long ncells, unsigned long nreps,
		double seconds, int yes);

#endif
