// SPDX-License-Identifier: GPL-2.0
/* A run specification's visits, pass after pass. */
#include "sweep/spec_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/clock.h"
#include "rundir/meta.h"
#include "stats/figures.h"
#include "sweep/cost.h"

int fl_spec_run_init(struct fl_spec_run *r, const struct fl_spec *s,
		     char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->spec = s;
	r->ncells = fl_spec_ncells(s);
	r->cells = calloc(r->ncells + 1, sizeof(*r->cells));
	r->res = calloc(r->ncells + 1, sizeof(*r->res));
	r->tracks = calloc(r->ncells + 1, sizeof(*r->tracks));
	r->starts = json_array();
	if (!r->cells || !r->res || !r->tracks || !r->starts) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned long i = 0; i < r->ncells; i++) {
		if (fl_spec_cell(s, i, &r->cells[i], err, errlen))
			return -1;
		fl_track_init(&r->tracks[i], s);
		fl_hist_init(&r->res[i].merged);
		json_array_append_new(r->starts, json_array());
	}
	r->budget_s = fl_budget_seconds(s->budget_s,
					fl_spec_minimum_seconds(s));
	return 0;
}

/* Fold one visit's repetition into its cell's result. */
static int gather(struct fl_cell_result *into, struct fl_cell_result *v)
{
	struct fl_rep_result *reps = realloc(into->reps, (into->nreps + 1) *
					     sizeof(*reps));

	if (!reps)
		return -1;
	into->reps = reps;
	/* the busy loop's speed before the first visit and after the last */
	if (!into->nreps) {
		into->busy_start = v->busy_start;
		into->busy_used = v->busy_used;
		into->idle_wake = v->idle_wake;
	}
	into->busy_end = v->busy_end;
	into->reps[into->nreps++] = v->reps[0];
	fl_hist_merge(&into->merged, &v->merged);
	if (v->status > into->status) {
		into->status = v->status;
		snprintf(into->reason, sizeof(into->reason), "%s", v->reason);
	}
	if (!into->note[0])
		snprintf(into->note, sizeof(into->note), "%s", v->note);
	return 0;
}

/* One visit of cell c; 0, -1 out of memory, -EINTR interrupted. */
static int visit(struct fl_spec_run *r, unsigned long c)
{
	struct fl_cell cell = r->cells[c];
	struct fl_cell_result v;
	struct fl_cell_figures fig;
	char start[40];
	int rc = 0;

	cell.reps = 1;
	cell.seed += r->tracks[c].visits;	/* no replayed sequence */
	fl_utc_now_ms(start, sizeof(start));
	fl_cell_run(&cell, &v);
	if (fl_interrupted) {
		fl_cell_result_free(&v);
		return -EINTR;
	}
	if (gather(&r->res[c], &v))
		rc = -1;
	json_array_append_new(json_array_get(r->starts, c),
			      json_string(start));
	fl_cell_figures(&cell, &v, &fig);
	fl_track_add(&r->tracks[c], v.status, fig.primary.mid);
	fl_cell_result_free(&v);
	return rc;
}

int fl_spec_run_passes(struct fl_spec_run *r, FILE *progress)
{
	unsigned long *order = calloc(r->ncells + 1, sizeof(*order));
	uint64_t t0 = fl_now_ns();
	int rc = 0;

	if (!order)
		return -1;
	for (;;) {
		double spent = (double)(fl_now_ns() - t0) / 1e9;
		unsigned long n = fl_plan_pass(r->tracks, r->ncells,
					       r->npasses, r->budget_s - spent,
					       r->spec->seed, order);

		if (!n)
			break;
		r->npasses++;
		fprintf(progress, "futexlab run: pass %u: %lu visit%s\n",
			r->npasses, n, n == 1 ? "" : "s");
		for (unsigned long k = 0; k < n && !rc; k++)
			rc = visit(r, order[k]);
		if (rc)
			break;
	}
	free(order);
	return rc;
}

json_t *fl_spec_run_cells_reps(const struct fl_spec_run *r)
{
	json_t *all = json_array();

	for (unsigned long c = 0; c < r->ncells; c++)
		json_array_append_new(all, json_pack("{s:I, s:i, s:b, s:O}",
			"cell", (json_int_t)c, "reps",
			(int)r->tracks[c].visits, "converged",
			fl_track_converged(&r->tracks[c]), "rep_start",
			json_array_get(r->starts, c)));
	return all;
}

void fl_spec_run_free(struct fl_spec_run *r)
{
	for (unsigned long c = 0; r->res && c < r->ncells; c++)
		fl_cell_result_free(&r->res[c]);
	free(r->res);
	free(r->cells);
	free(r->tracks);
	json_decref(r->starts);
	memset(r, 0, sizeof(*r));
}
