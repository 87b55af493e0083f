/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plots of a run directory, per workload (each a .gp script drawn as
 * .png and .svg in RUN/plots/):
 *   <w>-throughput   ops/s against threads, a line per series (backend,
 *                    and the placement and options that vary), error
 *                    bars from the median's 95% interval over the
 *                    repetitions (none below six);
 *   <w>-latency      p50, p99 and p99.9 against threads;
 *   <w>-cdf          the latency distribution of chosen cells from their
 *                    merged histograms: CDF and tail (1 - CDF), log x;
 *   <w>-fairness     Jain's index across threads against threads;
 *   <w>-timeline-cell-<i>  throughput over time of a chosen cell, a line
 *                    per repetition (only when asked: --timeline);
 * and the plot a workload's descriptor declares of its own (spec/
 * workload.h: pi-blocked, condvar-wake, numa-locality).
 */
#ifndef FUTEXLAB_PLOT_PLOT_H
#define FUTEXLAB_PLOT_PLOT_H

#include <stdio.h>

#include "base/say.h"
#include "rundir/read.h"

struct fl_plot_opts {
	unsigned int cdf_threads;	/* CDF cells: this thread count (0:
					 * the largest that ran) */
	const char *cdf_cells;		/* or these cell indices, "3,7" */
	int no_render;			/* write the scripts only */
	const char *timeline_cells;	/* throughput over time of these
					 * cell indices, "3,7"; NULL none */
	const struct fl_say *say;	/* where gnuplot's warnings go, a
					 * line each (NULL: nowhere) */
};

/*
 * Write (and draw, unless no_render) every plot of r into outdir (NULL:
 * RUN/plots, which must not be a symbolic link). Each file written is
 * named on log. Returns the number of plots, or -1 with err (an
 * unwritable directory, gnuplot failing).
 */
int fl_plot_run(const struct fl_rd_run *r, const char *outdir,
		const struct fl_plot_opts *o, FILE *log, char *err,
		size_t errlen);

/*
 * What the plots will read beyond fl_rd_open()'s checks, checked before
 * anything is written: each --timeline cell is a cell of r, has bins
 * files, and each parses and adds up to its repetition's operations.
 * 0, or -1 with err (the run's input is bad: exit 2).
 */
int fl_plot_check(const struct fl_rd_run *r, const struct fl_plot_opts *o,
		  char *err, size_t errlen);

/*
 * A fleet's plots (plot/fleet.c): the runs of one matrix on n machines,
 * named names[i], into outdir as <w>-fleet-throughput and
 * <w>-fleet-latency, a line per machine (per series where a workload
 * has several). The number of plots, or -1 with err.
 */
int fl_plot_fleet(const struct fl_rd_run *runs, const char *const *names,
		  unsigned int n, const char *outdir, const struct
		  fl_plot_opts *o, FILE *log, char *err, size_t errlen);

/* The subtitle every plot carries: run, host, kernel, CPUs. */
void fl_plot_subtitle(const struct fl_rd_run *r, char *buf, size_t len);

#endif
