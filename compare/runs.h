/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing sides of several runs each (a campaign, or --a RUN... --b
 * RUN...): the run is the unit. A machine changes between runs (a vCPU
 * on another core, a lock convoy that formed in one run and not the
 * next, a slower day), and a run's own repetitions cannot see that: its
 * intervals stay narrow while the next run of the same code lands
 * elsewhere. So each run gives one observation per cell, its median, and
 * a cell's ratio B/A and interval come from how those observations
 * spread between runs: the Hodges-Lehmann shift of the runs' log medians
 * with its Mann-Whitney interval and rank-sum p (stats/shift.h), the
 * same statistics as one run's repetitions get, one level up.
 *
 * Why ranks over runs and not a bootstrap of runs: under no change the
 * runs of both sides are exchangeable whatever the machine does between
 * them (modes, a day effect), so the rank test's false-alarm rate is
 * exact at any number of runs; a percentile bootstrap over 3 to 10 runs
 * has intervals too narrow for its claim. The price: below 4 runs a side
 * (3 against 3 has a smallest two-sided p of 0.1) there is no 95%
 * interval, and the verdict is "needs more runs".
 *
 * The summaries (per workload and overall) take the runs as the unit the
 * same way: each run's observation is the mean over the cells of its log
 * medians (overall, latencies negated, so above 1 means B is faster), so
 * a change common to every cell of one run (a slower day) moves that
 * run's observation and widens the interval, where a bootstrap over the
 * cells of one pair of runs could not see it. The summaries are a family
 * read together (is any workload different?), so their intervals are
 * simultaneous: the permutation max-t intervals of stats/maxt.h, which
 * hold 1 all together in at least 95% of identical campaigns whatever
 * the observations' shape, where 95% intervals each put 1 outside one
 * of eight in about a third of them. Simulated in
 * tests/unit/test_compare_sim.c.
 */
#ifndef FUTEXLAB_COMPARE_RUNS_H
#define FUTEXLAB_COMPARE_RUNS_H

#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"
#include "stats/shift.h"

/* what compare says of a side of one run; its 4 is
 * FL_RUNS_MIN_INTERVAL, the fewest runs an interval has */
#define FL_ONE_RUN_NOTE "note: one run on a side: no interval here can " \
	"see a change of the machine between runs, only the spread of " \
	"repetitions inside a run (give 4 or more runs per side)"

/* the most runs a side may have */
#define FL_RUNS_MAX_SIDE	64
/* the fewest runs a side needs for a rank interval at 95% (4 and 4) */
#define FL_RUNS_MIN_INTERVAL	4
/* the fewest runs a side needs for a summary's interval */
#define FL_RUNS_MIN_SUMMARY	4
/* what runs_needed says beyond any campaign anyone will run */
#define FL_RUNS_NEEDED_CAP	1000

/*
 * The ratio B/A of one cell from each run's median (a: na runs of side
 * A, b: nb of B), its interval and p; 0, or -1 (s->ok = 0) with too few
 * runs for an interval.
 */
int fl_runs_shift(const double *a, size_t na, const double *b, size_t nb,
		  struct fl_shift *s);

/*
 * The summaries of a family of k: obs_a[w * na + i] is run i of side A's
 * observation in summary w (likewise obs_b), out[w] the geometric mean
 * B/A with its simultaneous interval. 0, or -1 (every out[w].ok = 0,
 * ratios still set) below FL_RUNS_MIN_SUMMARY runs a side.
 */
int fl_runs_summaries(const double *obs_a, size_t na, const double *obs_b,
		      size_t nb, size_t k, struct fl_shift *out);

/*
 * About how many runs per side the observed spread says a verdict would
 * take: the pooled standard deviation of the runs' log medians, s, and
 * the distance g of the log ratio from the nearest margin log(1 +- delta)
 * give n = 2 (1.96 s / g)^2 / 0.955 (the normal interval of a difference
 * of means, over the rank test's efficiency 3/pi), at least
 * FL_RUNS_MIN_INTERVAL and more than the runs there are; capped at
 * FL_RUNS_NEEDED_CAP. 0 when the spread cannot be estimated (one run on
 * both sides).
 */
unsigned int fl_runs_needed(const double *a, size_t na, const double *b,
			    size_t nb, double ratio, double delta);

/*
 * The verdict of a cell compared over runs: fl_verdict_of()'s, except
 * that "inconclusive" and "undecided" become FL_V_MORE_RUNS, with the
 * runs per side it would take in *needed (0 otherwise).
 */
enum fl_verdict fl_runs_verdict_of(const struct fl_shift *s,
				   double p_adjusted, double delta,
				   int lower_is_better, const double *a,
				   size_t na, const double *b, size_t nb,
				   unsigned int *needed);

/*
 * Compare the runs of side B against those of side A: the table and
 * summaries on out, warnings to o->say, compare.csv, compare.md and the
 * plot in the output directory (its path into outdir). ignore: an option
 * name cells may differ by and still match (the campaign's declared
 * setting), or NULL. 0; -EINVAL for a side that is not one matrix of one
 * futexlab version, or has no runs, for one run given twice, sides with
 * no cell in common, an output inside a run, or (o->setting_given) an
 * ignore no cell has; -ENOENT when a run cannot be read;
 * -EIO when an output cannot be written; err says why.
 */
int fl_compare_runs(char *const *a, unsigned int na, char *const *b,
		    unsigned int nb, const char *ignore,
		    const struct fl_compare_opts *o, FILE *out, char *outdir,
		    size_t outlen, char *err, size_t errlen);

/*
 * The same judgement without outputs, for a campaign deciding whether to
 * run more: how many cells need more runs, and the most runs per side
 * any of them needs. 0, or as fl_compare_runs().
 */
int fl_runs_undecided(char *const *a, unsigned int na, char *const *b,
		      unsigned int nb, const char *ignore, double delta,
		      unsigned int *undecided, unsigned int *needed,
		      char *err, size_t errlen);

#endif
