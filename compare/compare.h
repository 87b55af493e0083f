/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing runs: each later run (B) against the first (A), cell by cell.
 *
 * Cells match on their full setup: workload, backend, threads, placement,
 * options, the repetition's duration and the futex hash slots; cells in
 * one run only are listed, never dropped. A run with two cells of one
 * setup is refused (match.c): they could not be told apart. For each matched cell: the
 * ratio B/A of its primary figure (throughput, or a round workload's p50
 * latency) as the Hodges-Lehmann estimate on log values with its 95%
 * interval (for a cell NOISY in either run, the central 95% of the
 * ratios of single repetitions instead: fl_cell_shift), the rank-sum
 * p-value, and that p-value adjusted by the
 * Benjamini-Hochberg method over every cell of the comparison. The verdict, with δ the
 * equivalence margin (default 2%):
 *   faster / slower  the whole interval lies beyond 1 +- δ and the
 *                    adjusted p-value is below 5% (for a latency,
 *                    lower is faster);
 *   equivalent       the whole interval lies within 1 +- δ;
 *   inconclusive     neither: the interval straddles a margin;
 *   undecided        too few repetitions on a side for an interval;
 *   not comparable   in one run only, or not ok in one.
 * One summary line per workload and one overall: the geometric mean of
 * the cells' ratios with a bootstrap interval over the cells (overall,
 * latencies enter as A/B, so above 1 always means B is faster). Setups
 * that differ (duration, warm-up, repetitions, hash slots, kernel, CPU,
 * governor, futexlab version, ...) are warned about. Refused before
 * anything is written (refuse.c): a run given twice, by any path to it;
 * runs with no cell in common; an output folder inside a run.
 * docs/statistics.md gives the false-alarm rate and the power. Sides of
 * several runs each, the run as the unit: compare/runs.h.
 */
#ifndef FUTEXLAB_COMPARE_H
#define FUTEXLAB_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "base/say.h"
#include "stats/shift.h"

#define FL_DELTA_DEFAULT	0.02
#define FL_ALPHA		0.05
#define FL_COMPARE_MAX_RUNS	8

enum fl_verdict {
	FL_V_FASTER, FL_V_SLOWER, FL_V_EQUIVALENT, FL_V_INCONCLUSIVE,
	FL_V_UNDECIDED, FL_V_NONE,
	FL_V_MORE_RUNS,		/* between runs only (compare/runs.h) */
	FL_NVERDICTS
};

const char *fl_verdict_name(enum fl_verdict v);
/*
 * One cell's ratio B/A and its interval, from the repetitions of its
 * primary figure in each run: the Hodges-Lehmann shift interval when both
 * runs settled their medians; when either run's cell is NOISY (its own
 * interval wider than FL_NOISY_HALFWIDTH), the interval of repetition
 * against repetition (fl_shift_ratio_by_reps), since NOISY repetitions on
 * these machines come in regimes that a shift does not describe. 0, or -1
 * (s->ok = 0) when there are too few repetitions for an interval.
 */
int fl_cell_shift(const double *a, size_t na, int noisy_a, const double *b,
		  size_t nb, int noisy_b, struct fl_shift *s);
/* The verdict of one cell from its ratio, interval and adjusted p. */
enum fl_verdict fl_verdict_of(const struct fl_shift *s, double p_adjusted,
			      double delta, int lower_is_better);

struct fl_compare_opts {
	double delta;		/* equivalence margin, e.g. 0.02 */
	const char *outdir;	/* NULL: next to A, compare-<A>-vs-<B> */
	int plot;		/* draw ratios.png */
	int adjust;		/* for the idle-wake cost (compare/adjust.c) */
	const char *note;	/* said on out before the table, once the
				 * runs are accepted; or NULL */
	int setting_given;	/* fl_compare_runs' ignore is a user's
				 * --setting: refused when no cell has it
				 * (a campaign's may set another key) */
	const struct fl_say *say;	/* where the warnings and notes go,
					 * a line each: the command's (NULL:
					 * nowhere) */
};

/*
 * The folder compare writes into without --out: beside run a,
 * compare-<a>-vs-<b>, with "-and-more" after when more runs follow b
 * (more), or "-runs" when the sides have several runs (runs).
 */
void fl_compare_default_out(const char *a, const char *b, int more,
			    int runs, char *buf, size_t len);

/*
 * Compare dirs[1..] against dirs[0]: the table and summaries on out,
 * warnings to o->say, compare.csv, compare.md and the plot in the output
 * directory (its path into outdir). 0; -ENOENT when a run cannot be read;
 * -EINVAL for runs whose comparison could not mean anything (one run
 * given twice, no cell in common) or an output inside a run; -EIO when
 * an output cannot be written; err says why.
 */
int fl_compare(char *const *dirs, unsigned int nruns,
	       const struct fl_compare_opts *o, FILE *out, char *outdir,
	       size_t outlen, char *err, size_t errlen);

#endif
