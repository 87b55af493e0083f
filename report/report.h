/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report of a run directory: RUN/report.md, written from the
 * directory alone. The machine, kernel and settings a rerun needs, a
 * table per workload (each cell's primary figure as a median with its
 * 95% interval and relative half-width, NOISY where that is wider than
 * the target, the repetitions taken and whether the interval converged,
 * percentiles of the merged histogram with their sample count and
 * intervals, withheld where too few samples lie beyond them), the plots
 * found in RUN/plots/, and the cells that were skipped, failed or
 * aborted with their reasons.
 */
#ifndef FUTEXLAB_REPORT_H
#define FUTEXLAB_REPORT_H

#include <stddef.h>

#include "base/say.h"
#include "rundir/read.h"

/* Write the run's report.md into its folder, its path into path. 0, or
 * -EIO when report.md cannot be written; err says why. */
int fl_report_write_run(const struct fl_rd_run *run, char *path,
			size_t pathlen, char *err, size_t errlen);

/*
 * A fleet: the runs in dirs (one matrix on n machines, each named by its
 * label or host name) side by side in OUTDIR/report.md, with their plots
 * in OUTDIR/plots/ (a line per machine), gnuplot's warnings to say.
 * Its path into path. 0; -ENOENT
 * when a directory is not a readable run; -EINVAL for a run given twice
 * or an OUTDIR inside a run; -EIO when writing failed.
 */
int fl_report_fleet(const char *const *dirs, unsigned int n,
		    const char *outdir, const struct fl_say *say, char *path,
		    size_t pathlen, char *err, size_t errlen);

#endif
