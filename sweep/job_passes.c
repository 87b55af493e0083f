// SPDX-License-Identifier: GPL-2.0
/*
 * A matrix job's passes: the per-cell tracks they are planned from, the
 * record of each planned pass in matrix.json (so a resume replays the
 * same visits under the same indexes), and each visit's start time.
 */
#include "sweep/job.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

#include "sweep/cost.h"
#include "sweep/job_internal.h"

int matrix_job_init_tracks(struct fl_matrix_job *j, char *err,
			   size_t errlen)
{
	struct fl_cell cell = { 0 };
	const struct fl_matrix_exp *e;
	double minimum_s = 0.0;

	j->tracks = calloc(j->m.ncells ? j->m.ncells : 1, sizeof(*j->tracks));
	if (!j->tracks) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->budget_s = 0.0;
	for (unsigned long c = 0; c < j->m.ncells; c++) {
		if (fl_matrix_cell(&j->m, c, &cell, &e, err, errlen)) {
			fl_cell_free(&cell);
			return -1;
		}
		fl_track_init(&j->tracks[c], &e->spec);
		minimum_s += j->tracks[c].reps * j->tracks[c].cost_s;
		if (e->spec.budget_s > j->budget_s)
			j->budget_s = e->spec.budget_s;
	}
	fl_cell_free(&cell);
	j->budget_s = fl_budget_seconds(j->budget_s, minimum_s);
	return fl_shard_restrict(j, err, errlen);
}

static int grow_done(struct fl_matrix_job *j, unsigned long old)
{
	unsigned char *d = realloc(j->done, j->m.nvisits + 1);

	if (!d)
		return -1;
	memset(d + old, 0, j->m.nvisits + 1 - old);
	j->done = d;
	return 0;
}

/* The cells of one pass as matrix.json keeps them, appended as visits. */
static int add_pass(struct fl_matrix_job *j, const unsigned long *cells,
		    unsigned long n)
{
	unsigned long old = j->m.nvisits;

	if (fl_matrix_add_visits(&j->m, cells, n) || grow_done(j, old))
		return -1;
	j->npasses++;
	return 0;
}

/* "P/matrix.json: why: only what a matrix run wrote can be resumed" */
static int bad_state(const struct fl_matrix_job *j, const char *why,
		     char *err, size_t errlen)
{
	snprintf(err, errlen, "%s/matrix.json: %s", j->run.tmp, why);
	return -1;
}

/*
 * Cell k of pass i (a JSON value) as the planner could have put it there:
 * a cell of the matrix (of the shard, when sharded), not yet in this
 * pass, and within the visits its repetitions allow (fl_plan_pass never
 * plans more): a pass list from outside cannot make a resume run more
 * than the matrix asks. seen[c]: the last pass (+1) naming c; count[c]:
 * c's visits so far. The cell, or -1 with err.
 */
static long pass_cell(struct fl_matrix_job *j, size_t i, json_t *v,
		      size_t *seen, unsigned int *count, char *err,
		      size_t errlen)
{
	char why[200];
	unsigned long c;

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (unsigned long)json_integer_value(v) >= j->m.ncells) {
		snprintf(why, sizeof(why), "pass %zu names no cell of the %lu "
			 "the matrix has", i, j->m.ncells);
		return bad_state(j, why, err, errlen);
	}
	c = (unsigned long)json_integer_value(v);
	if (j->in_shard && !j->in_shard[c]) {
		snprintf(why, sizeof(why), "pass %zu names cell %lu, which is "
			 "not in the shard", i, c);
		return bad_state(j, why, err, errlen);
	}
	if (seen[c] == i + 1) {
		snprintf(why, sizeof(why), "pass %zu names cell %lu twice",
			 i, c);
		return bad_state(j, why, err, errlen);
	}
	seen[c] = i + 1;
	if (++count[c] > j->tracks[c].reps_max) {
		snprintf(why, sizeof(why), "pass %zu gives cell %lu visit %u, "
			 "more than the %u its repetitions allow", i, c,
			 count[c], j->tracks[c].reps_max);
		return bad_state(j, why, err, errlen);
	}
	return (long)c;
}

/* Every pass recorded checked (pass_cell), before any is replayed. */
static int check_passes(struct fl_matrix_job *j, json_t *passes, char *err,
			size_t errlen)
{
	size_t *seen = calloc(j->m.ncells + 1, sizeof(*seen));
	unsigned int *count = calloc(j->m.ncells + 1, sizeof(*count));
	json_t *pass, *v;
	size_t i, k;
	int rc = -1;

	if (!seen || !count) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	json_array_foreach(passes, i, pass) {
		if (!json_is_array(pass)) {
			char why[64];

			snprintf(why, sizeof(why), "pass %zu is not a list of "
				 "cells", i);
			bad_state(j, why, err, errlen);
			goto out;
		}
		json_array_foreach(pass, k, v)
			if (pass_cell(j, i, v, seen, count, err, errlen) < 0)
				goto out;
	}
	rc = 0;
out:
	free(seen);
	free(count);
	return rc;
}

int matrix_job_replay_passes(struct fl_matrix_job *j, char *err,
			     size_t errlen)
{
	json_t *passes = json_object_get(j->state, "passes"), *pass;
	json_t *spent = json_object_get(j->state, "seconds_spent");
	size_t i;

	if (!json_is_array(passes))
		return bad_state(j, "'passes' is not a list of passes", err,
				 errlen);
	if (spent && (!json_is_number(spent) ||
		      !(json_number_value(spent) >= 0) ||
		      json_number_value(spent) > 1e12))
		return bad_state(j, "'seconds_spent' is not a number of "
				 "seconds", err, errlen);
	j->spent_s = spent ? json_number_value(spent) : 0.0;
	if (check_passes(j, passes, err, errlen))
		return -1;
	json_array_foreach(passes, i, pass) {
		size_t n = json_array_size(pass);
		unsigned long *cells = calloc(n + 1, sizeof(*cells));

		for (size_t k = 0; cells && k < n; k++)
			cells[k] = (unsigned long)json_integer_value(
				json_array_get(pass, k));
		if (!cells || add_pass(j, cells, n)) {
			free(cells);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		free(cells);
	}
	return 0;
}

long fl_matrix_job_next_pass(struct fl_matrix_job *j, double elapsed_s,
			     char *err, size_t errlen)
{
	unsigned long *cells = calloc(j->m.ncells + 1, sizeof(*cells));
	double spent = j->spent_s + elapsed_s;
	unsigned long n;
	json_t *pass;

	if (!cells) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = fl_plan_pass(j->tracks, j->m.ncells, j->npasses,
			 j->budget_s - spent, j->m.exps[0].spec.seed, cells);
	pass = json_array();
	for (unsigned long k = 0; k < n; k++)
		json_array_append_new(pass, json_integer((json_int_t)cells[k]));
	json_array_append_new(json_object_get(j->state, "passes"), pass);
	json_object_set_new(j->state, "seconds_spent", json_real(spent));
	if (n && add_pass(j, cells, n)) {
		free(cells);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(cells);
	if (matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json: %s",
			 j->run.tmp, strerror(errno));
		return -1;
	}
	return (long)n;
}

void fl_matrix_job_visited(struct fl_matrix_job *j, unsigned long k,
			   int status, double primary, double cost,
			   int contaminated, const char *start)
{
	json_t *starts = json_object_get(j->state, "visit_start");

	fl_track_add(&j->tracks[j->m.visits[k].cell], status, primary, cost,
		     contaminated);
	if (!starts) {
		starts = json_object();
		json_object_set_new(j->state, "visit_start", starts);
	}
	if (start) {
		char key[32];

		snprintf(key, sizeof(key), "%lu", k);
		json_object_set_new(starts, key, json_string(start));
	}
}

unsigned int fl_matrix_job_cell_done(const struct fl_matrix_job *j,
				     unsigned long cell, int *status,
				     double *primary)
{
	const struct fl_cell_track *t = &j->tracks[cell];
	unsigned int n = 0;

	for (unsigned long k = 0; k < j->m.nvisits; k++)
		n += j->done[k] && j->m.visits[k].cell == cell;
	/* a visit that was not ok stopped the cell: it is the last */
	*status = t->stopped ? -1 : FL_STATUS_OK;
	*primary = t->nvalues ? t->values[t->nvalues - 1] : 0.0;
	return n;
}

/* A visit of cell planned and not done (one a kill cut short) */
static int undone_visit(const struct fl_matrix_job *j, unsigned long cell)
{
	for (unsigned long k = 0; k < j->m.nvisits; k++)
		if (!j->done[k] && j->m.visits[k].cell == cell)
			return 1;
	return 0;
}

int fl_matrix_job_add_visit(struct fl_matrix_job *j, unsigned long cell,
			    unsigned int nth, char *err, size_t errlen)
{
	unsigned long one[1] = { cell };
	unsigned int done;
	json_t *pass;
	double primary;
	int status;

	if (cell >= j->m.ncells || (j->in_shard && !j->in_shard[cell])) {
		snprintf(err, errlen, "--visit: the matrix has no cell %lu "
			 "(its cells are 0 to %lu: matrix FILE --list)", cell,
			 j->m.ncells ? j->m.ncells - 1 : 0);
		return -1;
	}
	done = fl_matrix_job_cell_done(j, cell, &status, &primary);
	if (nth && nth <= done)
		return 1;
	if (nth && nth > done + 1) {
		snprintf(err, errlen, "--visit %lu:%u: cell %lu has %u "
			 "visit%s, so its next is %u", cell, nth, cell, done,
			 done == 1 ? "" : "s", done + 1);
		return -1;
	}
	/* not ok once: it would say the same again (passes.h) */
	if (j->tracks[cell].stopped)
		return 1;
	if (!undone_visit(j, cell)) {
		if (j->m.planned &&
		    j->m.planned[cell] >= j->tracks[cell].reps_max) {
			snprintf(err, errlen, "--visit: cell %lu has its %u "
				 "visits, the most its reps-max allows", cell,
				 j->tracks[cell].reps_max);
			return -1;
		}
		pass = json_array();
		json_array_append_new(pass, json_integer((json_int_t)cell));
		json_array_append_new(json_object_get(j->state, "passes"),
				      pass);
		if (add_pass(j, one, 1)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	/* the pass, and the resume's record (sweep/job_resume.c) */
	if (matrix_job_save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json: %s",
			 j->run.tmp, strerror(errno));
		return -1;
	}
	return 0;
}
