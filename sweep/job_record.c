// SPDX-License-Identifier: GPL-2.0
/*
 * What a matrix job knows of its run put into the run's record
 * (rundir/record.h): the plan, the cells, the times; the command fills
 * in the rest, and rundir/ turns it into meta.json.
 */
#include "sweep/job.h"

#include <stdio.h>
#include <stdlib.h>

#include "spec/spec.h"
#include "sweep/job_internal.h"

unsigned long fl_matrix_job_cells(const struct fl_matrix_job *j)
{
	unsigned long n = 0;

	/* a campaign's run holds the cells it visited: one the campaign
	 * stopped before this side's first visit of it has no row */
	if (j->planned_only && j->tracks) {
		for (unsigned long c = 0; c < j->m.ncells; c++)
			n += (!j->in_shard || j->in_shard[c]) &&
			     j->tracks[c].visits;
		return n;
	}
	if (!j->in_shard)
		return j->m.ncells;
	for (unsigned long c = 0; c < j->m.ncells; c++)
		n += j->in_shard[c];
	return n;
}

/* A visit's start as matrix.json holds it: it came from outside, so
 * only a time goes on into meta.json. */
static const char *visit_start(const struct fl_matrix_job *j,
			       unsigned long k)
{
	char key[32];
	json_t *s;

	snprintf(key, sizeof(key), "%lu", k);
	s = json_object_get(json_object_get(j->state, "visit_start"), key);
	return json_is_string(s) && json_string_length(s) < 40 ?
	       json_string_value(s) : NULL;
}

/* Where the record's per-cell parts live until it is written. */
struct job_record {
	struct fl_record_cell *cells;
	const char **starts;		/* per visit, grouped by cell */
	unsigned long *at;		/* per cell: its first in starts */
	const struct fl_workload **workloads;
	struct fl_record_exp *exps;
};

static void job_record_free(struct job_record *r)
{
	free(r->cells);
	free((void *)r->starts);
	free(r->at);
	free((void *)r->workloads);
	free(r->exps);
}

/* cells_reps: per cell in the job, its repetitions, whether its
 * interval converged and each repetition's start, in visit order. */
static int record_cells(const struct fl_matrix_job *j, struct job_record *r,
			struct fl_record *rec)
{
	unsigned long nc = j->m.ncells, n = 0;

	r->cells = calloc(nc + 1, sizeof(*r->cells));
	r->starts = calloc(j->m.nvisits + 1, sizeof(*r->starts));
	r->at = calloc(nc + 1, sizeof(*r->at));
	if (!r->cells || !r->starts || !r->at)
		return -1;
	for (unsigned long k = 0; k < j->m.nvisits; k++)
		r->at[j->m.visits[k].cell + 1]++;
	for (unsigned long c = 0; c < nc; c++)
		r->at[c + 1] += r->at[c];
	for (unsigned long c = 0; c < nc; c++) {
		const struct fl_cell_track *t = &j->tracks[c];

		if ((j->in_shard && !j->in_shard[c]) ||
		    (j->planned_only && !t->visits))
			continue;
		r->cells[n++] = (struct fl_record_cell){
			.cell = c, .reps = t->visits,
			.converged = fl_track_converged(t),
			.rep_start = r->starts + r->at[c],
			.nstarts = (unsigned int)(r->at[c + 1] - r->at[c]),
		};
	}
	/* each visit's start under its cell, in one pass over the visits */
	for (unsigned long k = 0; k < j->m.nvisits; k++)
		r->starts[r->at[j->m.visits[k].cell]++] = visit_start(j, k);
	rec->cells = r->cells;
	rec->ncells_reps = n;
	return 0;
}

/* The workloads described, and a matrix's experiments. */
static int record_plan(const struct fl_matrix_job *j, struct job_record *r,
		       struct fl_record *rec)
{
	unsigned int nx = j->m.nexps;

	r->workloads = calloc(nx + 1, sizeof(*r->workloads));
	r->exps = calloc(nx + 1, sizeof(*r->exps));
	if (!r->workloads || !r->exps)
		return -1;
	for (unsigned int x = 0; x < nx; x++) {
		const struct fl_matrix_exp *e = &j->m.exps[x];

		r->workloads[x] = e->spec.workload;
		r->exps[x] = (struct fl_record_exp){
			.name = e->name, .spec = &e->spec,
			.first_cell = e->first_cell, .ncells = e->ncells,
		};
	}
	rec->workloads = r->workloads;
	rec->nworkloads = nx;
	if (j->kind == FL_JOB_RUN) {
		rec->settings = &j->m.exps[0].spec;
		return 0;
	}
	rec->matrix.source = json_string_value(json_object_get(j->state,
							       "source"));
	rec->matrix.fnv1a64 = json_string_value(json_object_get(j->state,
								"fnv1a64"));
	rec->matrix.exps = r->exps;
	rec->matrix.nexps = nx;
	rec->matrix.time_budget_s = j->budget_s;
	rec->matrix.passes = j->npasses;
	if (j->shard.n)
		rec->shard = fl_shard_record(j);
	return 0;
}

int fl_matrix_job_finish(struct fl_matrix_job *j, struct fl_record *rec,
			 char *err, size_t errlen)
{
	struct job_record r = { 0 };
	int rc = -1;

	rec->seed = j->m.exps[0].spec.seed;
	rec->ncells = (unsigned int)fl_matrix_job_cells(j);
	rec->by_status = j->by_status;
	rec->interrupted = 0;
	rec->start_time = json_string_value(json_object_get(j->state,
							    "start_time"));
	rec->resumed = json_object_get(j->state, "resumed");
	if (record_cells(j, &r, rec) || record_plan(j, &r, rec))
		snprintf(err, errlen, "cannot write %s/meta.json: out of "
			 "memory", j->run.tmp);
	else
		rc = fl_run_finish_record(&j->run, rec, err, errlen);
	job_record_free(&r);
	return rc;
}
