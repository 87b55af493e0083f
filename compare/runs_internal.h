/* SPDX-License-Identifier: GPL-2.0 */
/* What the files of the comparison over runs share (compare/runs.h). */
#ifndef FUTEXLAB_COMPARE_RUNS_INTERNAL_H
#define FUTEXLAB_COMPARE_RUNS_INTERNAL_H

#include <stdio.h>

#include "compare/runs.h"
#include "rundir/read.h"

struct runs_side {
	const char *name;		/* "A", "B" */
	struct fl_rd_run *run;		/* its runs, open */
	unsigned int n;
};

/* One cell of the matrix, as every run of either side has it. */
struct runs_cell {
	const struct fl_rd_cell *first;	/* the first run's that has it */
	char key[1024];			/* its setup, the ignored option out */
	/* each run's cell, or NULL where it is absent; the median of each
	 * run where it ran ok (NaN otherwise) */
	const struct fl_rd_cell *at[2][FL_RUNS_MAX_SIDE];
	double med[2][FL_RUNS_MAX_SIDE];
	double ok[2][FL_RUNS_MAX_SIDE];	/* the ok medians, packed */
	unsigned int nok[2];
	int lower_is_better;
	struct fl_shift s;
	double p_adjusted;
	enum fl_verdict v;
	unsigned int needed;		/* runs per side it would take */
};

struct runs_cmp {
	struct runs_side side[2];
	const char *ignore;		/* the declared setting, or NULL */
	struct runs_cell *cells;
	unsigned long n;
	unsigned int count[FL_NVERDICTS];
	double delta;
	int cost;			/* of each run's CPU ns per operation
					 * (stats/cost.h), not its primary
					 * figure */
};

/* runs_match.c: every cell of every run, matched on its setup (the
 * ignored option left out); 0, or -1 with err (no memory, or two cells
 * of one run that only the ignored option told apart). */
int runs_match(struct runs_cmp *c, char *err, size_t errlen);
/* runs_match.c: the setup a cell matches on (rundir's setup_key, the
 * option ignore left out when not NULL) */
void runs_match_key(const struct fl_rd_cell *c, const char *ignore,
		    char *buf, size_t len);
/* runs_judge.c: every cell's ratio, adjusted p and verdict. */
void runs_judge(struct runs_cmp *c);
/* runs_output.c: each cell's first, to label them by (cmp_label); NULL
 * when out of memory (free() it) */
const struct fl_rd_cell **runs_firsts(const struct runs_cmp *c);
/* runs_output.c: compare.csv's header */
void runs_csv_header(FILE *f);
/* runs_output.c: the table, compare.csv's rows, compare.md and the
 * summaries (a cost comparison: its table and count alone) */
void runs_write(const struct runs_cmp *c, FILE *out, FILE *csv, FILE *md);
/* runs_plot.c: ratios.{gp,png,svg} with each run's ratio as a point,
 * gnuplot's warnings to say; 1 drawn, 0 nothing to draw, -1 err */
int runs_plot(const char *dir, const struct runs_cmp *c,
	      const struct fl_say *say, char *err, size_t errlen);

#endif
