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
 *
 * `futexlab run` is a one-experiment matrix on the same engine: the same
 * plan, passes, visits, budget, per-cell record, partial directory and
 * resume (FL_JOB_RUN). What differs is what is said on the way and where
 * the plan comes from: a run says one line per pass on stderr instead of
 * one per visit, also keeps each cell's visits of this session in
 * memory, folded into one result, for the summary it prints per cell at
 * the end, and records its flags in matrix.json ("kind": "run",
 * "run_argv") where a matrix keeps a copy of its file, so `futexlab run
 * --resume DIR` plans the same cells from them again.
 */
#ifndef FUTEXLAB_SWEEP_JOB_H
#define FUTEXLAB_SWEEP_JOB_H

#include <jansson.h>
#include <stdio.h>

#include "base/say.h"
#include "sweep/matrix.h"
#include "sweep/passes.h"
#include "sweep/shard.h"
#include "rundir/record.h"
#include "rundir/write.h"

/* What the engine runs: a matrix file, or the flags of `futexlab run`. */
enum fl_job_kind { FL_JOB_MATRIX, FL_JOB_RUN };

struct fl_matrix_job {
	enum fl_job_kind kind;
	const char *cmd;		/* "matrix" or "run", in messages */
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
	json_t *state;			/* matrix.json (a run's: in memory) */
	struct fl_cell_result *gathered;	/* a run's: per cell, its
						 * visits folded into one */
	int argc;			/* the command line, for matrix.json */
	char **argv;
	int resumed;			/* a resume kept visits of an earlier
					 * session */
	char notes[2048];		/* what a resume has to say beside
					 * its result (lines), for the
					 * command to print */
	/* what a running job has to say (an error beside the progress),
	 * handed to the command's say line by line once it set one;
	 * without it, kept in notes */
	const struct fl_say *say;
	int planned_only;		/* run the visits planned, plan no
					 * pass (--visit, --finish) */
	int one_visit;			/* matrix --visit: a campaign's visit,
					 * one repetition in a process of its
					 * own; it probes the idle wake only
					 * on its cell's first visit, and its
					 * resume reads no earlier visit's
					 * histogram but the last one's */
	struct fl_rep_counts last_counts;	/* the last visit made's
						 * kernel counts (have 0:
						 * none made) */
	uint64_t last_ops;			/* and its operations */
};

/* Parse file and create a partial directory under results; argv is the
 * command line recorded in matrix.json. 0, or -1 with a message in err (a
 * bad matrix file, an unwritable directory). */
int fl_matrix_job_start(struct fl_matrix_job *j, int argc, char **argv,
			const char *file, const char *results, char *err,
			size_t errlen);
/*
 * A run of one specification (`futexlab run`), planned: every cell placed
 * and tracked, nothing written. 0, or -1 with err (a placement this
 * machine cannot give: usage). Then open its partial directory under
 * results, locked, with matrix.json recording run_argv (the workload and
 * its flags, what a resume parses again); 0, or -1 with err.
 */
int fl_matrix_job_plan_run(struct fl_matrix_job *j, const struct fl_spec *s,
			   char *err, size_t errlen);
int fl_matrix_job_open_run(struct fl_matrix_job *j, const char *results,
			   const char *hostname, int run_argc,
			   char *const *run_argv, char *err, size_t errlen);
/*
 * Each of a run's cells that had a visit in this session handed to
 * each() with its visits folded into one result (0 goes on; anything
 * else stops there: its output failed). 0, or each()'s value.
 */
int fl_matrix_job_each_cell(struct fl_matrix_job *j,
			    int (*each)(void *ctx, const struct fl_cell *cell,
					const struct fl_cell_result *res),
			    void *ctx);
/*
 * Reopen a run's partial directory for `futexlab run --resume`: the
 * folder and its matrix.json trusted (rundir/regular.h: fl_fd_trusted),
 * locked, its matrix.json read (it must be a run's) and the flags it recorded
 * returned in *argv_out (*argc_out of them; they live in j->state until
 * fl_matrix_job_free). The caller parses them into a specification and
 * hands it to fl_matrix_job_resume_run(). 0, or -1 with err (bad input:
 * exit 2).
 */
int fl_matrix_job_reopen_run(struct fl_matrix_job *j, const char *dir,
			     int *argc_out, const char ***argv_out,
			     char *err, size_t errlen);
/* The reopened run planned from s again, its passes replayed and the
 * rows of its finished visits kept. 0, or -1 with err. */
int fl_matrix_job_resume_run(struct fl_matrix_job *j, const struct fl_spec *s,
			     int argc, char **argv, char *err, size_t errlen);

/* The same for one shard of the matrix (sweep/shard.h). */
int fl_matrix_job_start_shard(struct fl_matrix_job *j, int argc, char **argv,
			      const char *file, const char *results,
			      const struct fl_shard *shard, char *err,
			      size_t errlen);
/*
 * Reopen a partial directory; file (NULL: the path recorded there) must
 * define the same matrix. A matrix whose cells run a program
 * (fl_spec_program) is resumed only when the user said so: yes
 * (--yes), or file given (the user named the matrix that names it);
 * otherwise -1 with err naming the program. 0, or -1 with err (bad
 * input: exit 2).
 */
int fl_matrix_job_resume(struct fl_matrix_job *j, int argc, char **argv,
			 const char *dir, const char *file, int yes,
			 char *err, size_t errlen);
/* The same for `matrix --resume --visit CELL[:N]`: cell (>= 0) checked
 * to be one of the matrix's, and nth (0: none) not past the visit after
 * those planned, before anything is written. */
int fl_matrix_job_resume_cell(struct fl_matrix_job *j, int argc, char **argv,
			      const char *dir, const char *file, int yes,
			      long cell, unsigned int nth, char *err,
			      size_t errlen);

/*
 * The program a cell of s runs, when its workload runs one (its text
 * option "cmd": app's --cmd), or NULL. A partial directory may name any
 * program there, so a resume shows it and runs it only with the user's
 * say (docs/matrix.md, "What a resume checks").
 */
const char *fl_spec_program(const struct fl_spec *s);
/* Once every visit ran: rewrite cells.csv in cell order (cell = the
 * matrix's cell index, rep = the visit's repetition) and merge each
 * cell's histograms, as `futexlab run` lays them out (rundir/rewrite.h);
 * check the result holds every visit planned, by the readers' rules;
 * count the cells by status. Safe to redo after a kill. 0, or -1 with
 * err. */
int fl_matrix_job_finalize(struct fl_matrix_job *j, char *err,
			   size_t errlen);
/*
 * Fill in what the job knows of the finished run's record (its plan,
 * cells and times: rundir/record.h; the command filled in the command,
 * the machine and the load), write it as meta.json and rename the run
 * into place. 0, or -1 with err.
 */
int fl_matrix_job_finish(struct fl_matrix_job *j, struct fl_record *rec,
			 char *err, size_t errlen);
/* The cells the job runs: its shard's, or the matrix's. */
unsigned long fl_matrix_job_cells(const struct fl_matrix_job *j);
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
/*
 * One more visit of cell (a campaign's visit by visit: `matrix --visit
 * CELL[:N]`), planned as a pass of its own and recorded in matrix.json
 * as any pass, so a resume replays it. With nth (1-based; 0: none) it is
 * the cell's nth visit: a cell that has nth visits done gets none (a
 * killed campaign asks again), and one whose planned nth visit was cut
 * short by a kill gets that one again; matrix.json is saved with it,
 * and with the resume's record. 0: a visit is planned to run; 1: none
 * is needed; -1 with err (a cell the matrix lacks, an nth beyond the
 * next, past the cell's reps-max: usage).
 */
int fl_matrix_job_add_visit(struct fl_matrix_job *j, unsigned long cell,
			    unsigned int nth, char *err, size_t errlen);
/* The visits of cell done (rows written), and the primary figure of the
 * last of them when it was ok (its status in *status). */
unsigned int fl_matrix_job_cell_done(const struct fl_matrix_job *j,
				     unsigned long cell, int *status,
				     double *primary);

/* After visit k ran: its status and primary figure, its CPU ns per
 * operation (NaN: not counted) and whether the machine contaminated it
 * (sweep/passes.h), and its start time ("2026-...Z") for meta.json. */
void fl_matrix_job_visited(struct fl_matrix_job *j, unsigned long k,
			   int status, double primary, double cost,
			   int contaminated, const char *start);

/*
 * sweep/run.c: run every visit that is not done, pass after pass, with a
 * progress line on out: a matrix's per visit (updated in place when tty,
 * one line per visit otherwise), a run's per pass.
 */
enum fl_job_outcome fl_matrix_job_run(struct fl_matrix_job *j, FILE *out,
				      int tty);

#endif
