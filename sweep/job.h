/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A matrix run in progress: its parsed matrix, its partial run directory
 * and which cells already have their rows there.
 *
 * The partial directory (results/.partial-<name>-<pid>) is an ordinary
 * run directory being written, plus what a resume needs: matrix.ini, a
 * byte copy of the matrix file, and matrix.json (the source path, the
 * file's hash, the run's name and start time, every resume, the cells of
 * every pass planned so far, each visit's start time and the seconds
 * spent). Rows are
 * flushed and fsynced per visit, so after SIGINT or SIGKILL only the
 * visit in progress is lost. A resume reads the directory as untrusted
 * input, through rundir/ (partial.c, rewrite.h): it keeps the row of
 * every visit that has its histogram, checked by the readers' rules,
 * drops a torn last line and the rows of visits without a histogram,
 * and runs what is missing; whether the rows were already put in cell
 * order is read from the disk, never from a flag. The directory is
 * locked (flock) while a process writes it, so two resumes cannot race;
 * a visit's child never holds the lock. Both matrix.ini and matrix.json
 * stay in the finished run directory.
 */
#ifndef FUTEXLAB_MATRIX_JOB_H
#define FUTEXLAB_MATRIX_JOB_H

#include <jansson.h>
#include <stdio.h>

#include "sweep/matrix.h"
#include "sweep/passes.h"
#include "sweep/shard.h"
#include "rundir/write.h"

struct fl_matrix_job {
	struct fl_matrix m;
	struct fl_run run;
	unsigned char *done;		/* per visit: its row is written */
	unsigned long ndone;
	struct fl_cell_track *tracks;	/* per cell: what passes plan by */
	unsigned int npasses;
	double budget_s;		/* for the whole matrix */
	double spent_s;			/* by earlier sessions of a resume */
	unsigned int by_status[4];	/* cells by status, once finalized */
	int cell_layout;		/* a resume found the rows already in
					 * cell order: only the finalizing's
					 * last step is left */
	struct fl_shard shard;		/* n == 0: the whole matrix */
	unsigned char *in_shard;	/* per cell, when sharded */
	json_t *state;			/* matrix.json */
	int argc;			/* the command line, for matrix.json */
	char **argv;
};

/* Parse file and create a partial directory under results; argv is the
 * command line recorded in matrix.json. 0, or -1 with a message in err (a
 * bad matrix file, an unwritable directory). */
int fl_matrix_job_start(struct fl_matrix_job *j, int argc, char **argv,
			const char *file, const char *results, char *err,
			size_t errlen);
/* The same for one shard of the matrix (sweep/shard.h). */
int fl_matrix_job_start_shard(struct fl_matrix_job *j, int argc, char **argv,
			      const char *file, const char *results,
			      const struct fl_shard *shard, char *err,
			      size_t errlen);
/* Reopen a partial directory; file (NULL: the path recorded there) must
 * define the same matrix. 0, or -1 with err (bad input: exit 2). */
int fl_matrix_job_resume(struct fl_matrix_job *j, int argc, char **argv,
			 const char *dir, const char *file, char *err,
			 size_t errlen);
/* Once every visit ran: rewrite cells.csv in cell order (cell = the
 * matrix's cell index, rep = the visit's repetition) and merge each
 * cell's histograms, as `futexlab run` lays them out (rundir/rewrite.h);
 * check the result holds every visit planned, by the readers' rules;
 * count the cells by status. Safe to redo after a kill. 0, or -1 with
 * err. */
int fl_matrix_job_finalize(struct fl_matrix_job *j, char *err,
			   size_t errlen);
/* Record the finished run's meta.json and rename it into place. */
int fl_matrix_job_finish(struct fl_matrix_job *j, json_t *meta, char *err,
			 size_t errlen);
void fl_matrix_job_free(struct fl_matrix_job *j);

/* How a job's run ended. */
enum fl_job_outcome {
	FL_JOB_DONE,		/* every visit ran or was skipped */
	FL_JOB_FAILED,		/* a visit failed or was aborted */
	FL_JOB_INTERRUPTED,	/* SIGINT/SIGTERM/SIGHUP: the partial
				 * directory holds every finished visit */
	FL_JOB_WRITE_FAILED,	/* a write failed, to the partial directory
				 * (said on stderr) or to out (left in
				 * ferror); it holds every finished visit */
};

/*
 * Plan the next pass (sweep/passes.h), record it in matrix.json and
 * append its visits; the count of visits (0: the run is complete), or -1
 * with err. elapsed_s: this session's seconds so far.
 */
long fl_matrix_job_next_pass(struct fl_matrix_job *j, double elapsed_s,
			     char *err, size_t errlen);
/* After visit k ran: its status and primary figure, and its start time
 * ("2026-...Z") for meta.json. */
void fl_matrix_job_visited(struct fl_matrix_job *j, unsigned long k,
			   int status, double primary, const char *start);

/*
 * sweep/run.c: run every visit that is not done, pass after pass, with a
 * progress line on out (updated in place when tty, one line per visit
 * otherwise).
 */
enum fl_job_outcome fl_matrix_job_run(struct fl_matrix_job *j, FILE *out,
				      int tty);

#endif
