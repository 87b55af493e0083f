/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running one specification (`futexlab run`) the way a matrix runs:
 * every repetition a visit in a fresh process, the visits interleaved
 * across the cells in passes shuffled from the seed, with adaptive
 * repetitions (sweep/passes.h). Each cell's repetitions are gathered into
 * one fl_cell_result, as if they had run together, to be written and
 * printed once every pass is done.
 */
#ifndef FUTEXLAB_SPEC_RUN_H
#define FUTEXLAB_SPEC_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "measure/cell.h"
#include "sweep/passes.h"

struct fl_spec_run {
	const struct fl_spec *spec;
	unsigned long ncells;
	struct fl_cell *cells;		/* placed once, before any pass */
	struct fl_cell_result *res;	/* every visit's repetition */
	struct fl_cell_track *tracks;
	json_t *starts;			/* per cell: its reps' start times */
	double budget_s;
	unsigned int npasses;
};

/* Place every cell; 0, or -1 with err (a bad placement: usage). */
int fl_spec_run_init(struct fl_spec_run *r, const struct fl_spec *s,
		     char *err, size_t errlen);
/* Run every pass, a line per pass on progress; 0, or -EINTR when
 * interrupted (the results so far stay in r). */
int fl_spec_run_passes(struct fl_spec_run *r, FILE *progress);
/* meta.json's "cells_reps": reps, converged, each rep's start time. */
json_t *fl_spec_run_cells_reps(const struct fl_spec_run *r);
void fl_spec_run_free(struct fl_spec_run *r);

#endif
