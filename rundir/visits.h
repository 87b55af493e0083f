/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A partial run's visit journal. While a matrix (or `futexlab run`)
 * runs, its rows go to cells.csv as a finished run holds them: the cell
 * column is the cell, rep its repetition, hist the cell's histogram
 * the finalizing merges; only their order is the visits'. What is a
 * visit's alone is kept apart: its own histogram,
 * hist/cell-<c>-rep-<r>.csv, and its line in visits.csv,
 *
 *	visit,cell,rep
 *
 * appended once its row and histogram are on disk, in the order the
 * visits ran. The finalizing (rewrite.h) puts the rows in cell order,
 * merges each cell's histograms and removes visits.csv: a partial
 * directory with visits.csv has not been finalized. rundir/ alone
 * writes the journal; a resume rewrites it from the rows it kept.
 */
#ifndef FUTEXLAB_RUNDIR_VISITS_H
#define FUTEXLAB_RUNDIR_VISITS_H

#include "rundir/write.h"

#define FL_VISITS_FILE		"visits.csv"
#define FL_VISITS_COLUMNS	"visit,cell,rep"

/* "hist/cell-<c>-rep-<r>.csv": a visit's own histogram in a partial */
void fl_visit_hist_name(char *buf, size_t len, unsigned long cell,
			unsigned int rep);

/* A fresh partial run's journal, its header only, opened to append:
 * the run's visits are journalled from now on. 0, or -1 with err. */
int fl_visits_start(struct fl_run *run, char *err, size_t errlen);
/* Visit at->visit's line appended and synced (after its row and
 * histogram). 0, or -1 with err. */
int fl_visits_note(struct fl_run *run, const struct fl_row_place *at,
		   char *err, size_t errlen);
/* A resume's journal: replaced whole by the n visits it kept, in the
 * order of their rows (left as it is when it lists them already:
 * fl_write_at_changed), then opened to append. 0, or -1 with err. */
int fl_visits_rewrite(struct fl_run *run, const struct fl_row_place *kept,
		      unsigned long n, char *err, size_t errlen);
/* 1 when the partial directory has a journal (not finalized yet). */
int fl_visits_present(const struct fl_run *run);
/* The journal closed and removed: the finalizing's commit. 0, or -1
 * with err. */
int fl_visits_remove(struct fl_run *run, char *err, size_t errlen);

#endif
