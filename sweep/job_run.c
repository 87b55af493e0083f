// SPDX-License-Identifier: GPL-2.0
/*
 * `futexlab run` on the matrix engine (job.h): its one experiment planned
 * from the flags' specification, each visit folded into its cell's one
 * result as if the repetitions had run together, and the cells written
 * in cell order once the passes end.
 */
#include "sweep/job.h"

#include <stdlib.h>
#include <string.h>

#include "measure/cell.h"
#include "rundir/meta.h"
#include "rundir/visits.h"
#include "sweep/job_internal.h"

int fl_matrix_job_plan_run(struct fl_matrix_job *j, const struct fl_spec *s,
			   char *err, size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->kind = FL_JOB_RUN;
	j->cmd = "run";
	j->run.fd = j->run.dir_fd = -1;
	if (fl_matrix_of_spec(&j->m, s)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* every cell placed before anything is written: a bad placement
	 * is a usage error, not a run directory full of failures */
	if (matrix_job_init_tracks(j, err, errlen))
		return -1;
	j->done = calloc(1, 1);
	j->gathered = calloc(j->m.ncells + 1, sizeof(*j->gathered));
	j->state = json_pack("{s:[], s:{}, s:f}", "passes", "visit_start",
			     "seconds_spent", 0.0);
	if (!j->done || !j->gathered || !j->state) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned long c = 0; c < j->m.ncells; c++)
		fl_hist_init(&j->gathered[c].merged);
	return 0;
}

int fl_matrix_job_open_run(struct fl_matrix_job *j, const char *results,
			   const char *hostname, int run_argc,
			   char *const *run_argv, char *err, size_t errlen)
{
	json_t *flags = json_array();
	char now_s[32];

	if (fl_run_open(&j->run, results, hostname, err, errlen) ||
	    fl_visits_start(&j->run, err, errlen))
		return -1;
	for (int i = 0; flags && i < run_argc; i++)
		json_array_append_new(flags, json_string(run_argv[i]));
	fl_utc_now(now_s, sizeof(now_s));
	json_object_set_new(j->state, "kind", json_string("run"));
	json_object_set_new(j->state, "run_argv", flags);
	json_object_set_new(j->state, "start_time", json_string(now_s));
	return matrix_job_lock_dir(j, err, errlen);
}

int matrix_job_gather(struct fl_matrix_job *j, unsigned long c,
		      const struct fl_cell_result *v)
{
	struct fl_cell_result *into = &j->gathered[c];
	struct fl_rep_result *reps = realloc(into->reps, (into->nreps + 1) *
					     sizeof(*reps));

	if (!reps)
		return -1;
	into->reps = reps;
	if (!into->nreps) {
		into->busy_used = v->busy_used;
		into->idle_wake = v->idle_wake;
	}
	/* the busy loop's speeds of the visit they moved most in: the
	 * cell's note is that repetition's, as its row says it */
	if (!into->nreps || fl_busy_moved(v->busy_start, v->busy_end) >
			    fl_busy_moved(into->busy_start, into->busy_end)) {
		into->busy_start = v->busy_start;
		into->busy_end = v->busy_end;
	}
	if (v->cell_maxrss_kb > into->cell_maxrss_kb)
		into->cell_maxrss_kb = v->cell_maxrss_kb;
	into->reps[into->nreps++] = v->reps[0];
	fl_hist_merge(&into->merged, &v->merged);
	if (v->status > into->status) {
		into->status = v->status;
		snprintf(into->reason, sizeof(into->reason), "%s", v->reason);
	}
	/* a skipped cell's note is its first visit's; a cell that ran has
	 * its note made again over every visit (fl_matrix_job_each_cell) */
	if (!into->note[0])
		snprintf(into->note, sizeof(into->note), "%s", v->note);
	return 0;
}

int fl_matrix_job_each_cell(struct fl_matrix_job *j,
			    int (*each)(void *ctx, const struct fl_cell *cell,
					const struct fl_cell_result *res),
			    void *ctx)
{
	struct fl_cell cell = { 0 };
	char err[512];
	int rc = 0;

	for (unsigned long c = 0; c < j->m.ncells && !rc; c++) {
		struct fl_cell_result *res = &j->gathered[c];

		if (!res->nreps)
			continue;	/* no visit in this session */
		if (fl_matrix_cell(&j->m, c, &cell, NULL, err, sizeof(err))) {
			/* placed at the start: the machine changed */
			matrix_job_note(j, "futexlab %s: %s\n", j->cmd,
					err);
			rc = -1;
			break;
		}
		/* the note over every visit's repetitions, its drift the
		 * one that moved most; a skipped cell keeps its visit's */
		if (res->status != FL_STATUS_SKIPPED)
			fl_cell_note(&cell, res);
		rc = each(ctx, &cell, res);
	}
	fl_cell_free(&cell);
	return rc;
}
