/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the matrix job files (job.c, job_passes.c, job_rows.c,
 * job_resume.c, job_finalize.c) share and nothing else needs.
 */
#ifndef FUTEXLAB_SWEEP_JOB_INTERNAL_H
#define FUTEXLAB_SWEEP_JOB_INTERNAL_H

#include <jansson.h>

#include "sweep/job.h"

/* Write matrix.json into the partial directory, synced; 0 or -1. */
int matrix_job_save_state(struct fl_matrix_job *j);
/* This process's argv, for matrix.json. */
/* A line for the command to print: to j->say, else into j->notes. */
void matrix_job_note(struct fl_matrix_job *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
json_t *matrix_job_argv_json(const struct fl_matrix_job *j);
/* flock the run directory j->run.fd, and keep each visit's child from
 * holding the lock; -1 with err when another process holds it. */
int matrix_job_lock_dir(struct fl_matrix_job *j, char *err, size_t errlen);

/* A run's visit of cell c folded into its cell's result (job_run.c);
 * 0, or -1 when out of memory. */
int matrix_job_gather(struct fl_matrix_job *j, unsigned long c,
		      const struct fl_cell_result *v);

/* Per-cell tracks for j->m (job_passes.c), and the budget;
 * 0, or -1 with err. */
int matrix_job_init_tracks(struct fl_matrix_job *j, char *err,
			   size_t errlen);
/* Rebuild j->m.visits from the passes matrix.json recorded, each cell
 * index checked; 0, or -1 with err. */
int matrix_job_replay_passes(struct fl_matrix_job *j, char *err,
			     size_t errlen);

/*
 * The rows of a partial directory as its plan sees them (job_rows.c):
 * per visit, the status and primary figure of its row, -1 where it has
 * none (yet). Filled by a scan; given to the tracks only once the scan
 * passed, so a failed one leaves the job as it was.
 */
struct job_rows {
	signed char *status;		/* enum fl_status, -1: no row */
	double *primary;
	double *cost;			/* CPU ns per operation, NaN: not
					 * counted (sweep/passes.h) */
	signed char *contaminated;	/* 1: the machine contaminated it */
	unsigned long nrows;
	unsigned long dropped;		/* rows of visits without their
					 * histogram: they run again */
	struct fl_row_place *kept;	/* the visits kept, in row order */
	unsigned long nkept;
};

int matrix_job_rows_init(struct job_rows *jr, unsigned long nvisits);
void matrix_job_rows_free(struct job_rows *jr);
/* A journalled run: cells.csv rewritten with the row of every visit
 * that has its histogram (each row checked against its cell), those
 * visits in jr->kept; a torn last line dropped (*torn_line). With
 * last_only, no histogram is read: the caller read the last row's
 * (matrix_job_last_hist). 0, or -1 with err. */
int matrix_job_keep_visits(struct fl_matrix_job *j, struct job_rows *jr,
			   int last_only, int *torn_line, char *err,
			   size_t errlen);
/*
 * A journalled run whose rows a campaign's visit may keep reading no
 * histogram but the last row's: 0 when that one reads and no line is
 * torn; 1 when a kill's leftovers are there (the full check then drops
 * what they left); -1 with err (a row the readers refuse, a histogram
 * that is not a regular file or does not read).
 */
int matrix_job_last_hist(struct fl_matrix_job *j, char *err, size_t errlen);
/* Cell layout: one row for every visit planned, each its cell's, and
 * every cell's merged histogram; j->by_status counted. 0, or -1 with
 * err. */
int matrix_job_check_cells(struct fl_matrix_job *j, struct job_rows *jr,
			   char *err, size_t errlen);
/* The rows found into the tracks and j->done, visit by visit. */
void matrix_job_take_rows(struct fl_matrix_job *j,
			  const struct job_rows *jr);

#endif
