/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rewriting a partial matrix run's rows and histograms, for its resume
 * and its finalizing (sweep/job_resume.c, sweep/job_finalize.c). While a
 * matrix runs, its visits are journalled (visits.h): cells.csv holds
 * each visit's row as the finished run will (the cell column the cell,
 * rep the visit's repetition) in the order the visits ran, each visit
 * has its own histogram hist/cell-<c>-rep-<r>.csv, and visits.csv lists
 * the visits. Finished, it is in cell layout, as `futexlab run` writes
 * it: the rows in cell order, each cell's histogram merged over its
 * visits, no journal.
 *
 * cells.csv is read only through the readers' parse (read.h), with
 * their strictness, and only with this futexlab's header; every file is
 * written through the run's descriptor and replaced whole (write_at.h).
 * The finalizing stages the merged histograms in hist.final/, then
 * replaces cells.csv by the rows in cell order, removes visits.csv (the
 * commit), then swaps hist.final/ in for hist/ (by way of hist.visits/).
 * A kill at any point leaves a state the disk alone tells apart: before
 * the commit, the journal is there and any hist.final/ is a leftover
 * (the rows, in whatever order, are put in order again); after it, the
 * rows are in cell layout and fl_rw_swap_hist() finishes the swap.
 */
#ifndef FUTEXLAB_RUNDIR_REWRITE_H
#define FUTEXLAB_RUNDIR_REWRITE_H

#include "rundir/read.h"
#include "rundir/write.h"

/*
 * fn sees every row of the run's cells.csv once it passed the readers'
 * checks (flags: FL_RD_TORN_OK drops a torn last line, its line number
 * in *torn_line). Nothing is written. 0, or -1 with err: the first bad
 * field, or fn's own error.
 */
int fl_rw_scan(struct fl_run *run, int flags, int *torn_line,
	       fl_rd_row_fn fn, void *ctx, char *err, size_t errlen);

/* keep(): 1 keeps the row, 0 drops it, -1 stops with err */
typedef int (*fl_rw_keep_fn)(void *ctx, const struct fl_rd_row *row,
			     char *err, size_t errlen);

/* The same scan, then cells.csv replaced by its header and the rows
 * keep() kept, byte for byte; nothing is written unless every row
 * passed, nor when that is what the file holds (write_at.h:
 * fl_write_at_changed). 0, or -1 with err. */
int fl_rw_keep_rows(struct fl_run *run, int flags, int *torn_line,
		    fl_rw_keep_fn keep, void *ctx, char *err, size_t errlen);

/*
 * A journalled run into the cell layout: the rows sorted by cell and
 * repetition, each cell's visit histograms merged; staged, committed
 * and swapped as above. 0, or -1 with err.
 */
int fl_rw_cell_layout(struct fl_run *run, char *err, size_t errlen);

/* After the commit: hist.final/ (if any) in place of hist/, hist.visits/
 * gone. Redone safely after a kill. 0, or -1 with err. */
int fl_rw_swap_hist(struct fl_run *run, char *err, size_t errlen);

/* Before the commit: a finalizing's leftovers (hist.final/,
 * hist.visits/, an older futexlab's cells.csv.final) removed. 0, or -1
 * with err. */
int fl_rw_drop_staged(struct fl_run *run, char *err, size_t errlen);

/* hist/ and bins/ are the run's own folders, never links out of it:
 * one that is not is refused (-1 with err); a missing one is fine here
 * and made by fl_rw_make_folders() once the rows have been read. */
int fl_rw_check_folders(struct fl_run *run, char *err, size_t errlen);
int fl_rw_make_folders(struct fl_run *run, char *err, size_t errlen);

/* The histogram of the visit that is repetition rep of cell, in a
 * journalled run (visits.h): 0 when it reads, 1 when there is none, -1
 * with err when it does not read. */
int fl_rw_visit_hist(struct fl_run *run, unsigned long cell, unsigned int rep,
		     char *err, size_t errlen);
/* Cell c's merged histogram in cell layout, from hist.final/ while the
 * swap is not made, else hist/: 0 when it reads, -1 with err. */
int fl_rw_cell_hist(struct fl_run *run, unsigned long c, char *err,
		    size_t errlen);

/* run->cells: cells.csv, which this resume has just rewritten (or found
 * holding the rows it kept), opened to append the rows of the visits it
 * runs. 0, or -1 with err. */
int fl_rw_append_rows(struct fl_run *run, char *err, size_t errlen);

#endif
