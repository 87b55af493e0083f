// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of a partial matrix run as its plan sees them. rundir/ reads
 * and rewrites cells.csv with the readers' strictness (rewrite.h); here
 * each row is held against the matrix: in visit layout the row of visit
 * k must be the cell the plan put at visit k, repetition 0, with its own
 * histogram; in cell layout each row must be a cell and repetition the
 * plan made, every visit's exactly once, and every cell's histogram must
 * read. A row that is a visit's but whose histogram is missing is the
 * only thing dropped (a kill between the two writes): it runs again.
 */
#include "sweep/job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/rewrite.h"
#include "sweep/job_internal.h"

int matrix_job_rows_init(struct job_rows *jr, unsigned long nvisits)
{
	memset(jr, 0, sizeof(*jr));
	jr->status = malloc(nvisits + 1);
	jr->primary = calloc(nvisits + 1, sizeof(*jr->primary));
	jr->cost = calloc(nvisits + 1, sizeof(*jr->cost));
	jr->contaminated = calloc(nvisits + 1, 1);
	if (!jr->status || !jr->primary || !jr->cost || !jr->contaminated) {
		matrix_job_rows_free(jr);
		return -1;
	}
	memset(jr->status, -1, nvisits + 1);
	for (unsigned long k = 0; k <= nvisits; k++)
		jr->cost[k] = NAN;
	return 0;
}

void matrix_job_rows_free(struct job_rows *jr)
{
	free(jr->status);
	free(jr->primary);
	free(jr->cost);
	free(jr->contaminated);
	jr->status = NULL;
	jr->primary = NULL;
	jr->cost = NULL;
	jr->contaminated = NULL;
}

/* Is the row the cell c? "" with 0, or what it is instead in why. */
static int row_is_cell(const struct fl_rd_row *row, const struct fl_cell *c,
		       char *why, size_t len)
{
	char th[16], dur[24];

	snprintf(th, sizeof(th), "%u", c->threads);
	snprintf(dur, sizeof(dur), "%llu", (unsigned long long)c->duration_ns);
	if (!strcmp(fl_rd_row_field(row, FL_COL_WORKLOAD), c->workload->name) &&
	    !strcmp(fl_rd_row_field(row, FL_COL_BACKEND), c->backend->name) &&
	    !strcmp(fl_rd_row_field(row, FL_COL_THREADS), th) &&
	    !strcmp(fl_rd_row_field(row, FL_COL_PLACEMENT), c->placement) &&
	    !strcmp(fl_rd_row_field(row, FL_COL_OPTIONS), c->options) &&
	    (row->col[FL_COL_DURATION] < 0 ||
	     !strcmp(fl_rd_row_field(row, FL_COL_DURATION), dur)))
		return 0;
	snprintf(why, len, "%s %s threads=%s %s %s, but the matrix gives %s "
		 "%s threads=%u %s %s",
		 fl_rd_row_field(row, FL_COL_WORKLOAD),
		 fl_rd_row_field(row, FL_COL_BACKEND),
		 fl_rd_row_field(row, FL_COL_THREADS),
		 fl_rd_row_field(row, FL_COL_PLACEMENT),
		 fl_rd_row_field(row, FL_COL_OPTIONS), c->workload->name,
		 c->backend->name, c->threads, c->placement, c->options);
	return -1;
}

/* The row's status and primary figure, its cost and contamination
 * (where counted: columns empty or absent in an older run), under
 * visit k. */
static void note_row(struct fl_matrix_job *j, struct job_rows *jr,
		     unsigned long k, const struct fl_rd_row *row)
{
	int latency = j->tracks[j->m.visits[k].cell].latency_primary;
	const char *cpu = fl_rd_row_field(row, FL_COL_CPU_NS);
	double ops = strtod(fl_rd_row_field(row, FL_COL_OPS), NULL);

	/* checked by the reader: whole numbers, or empty */
	if (*cpu && ops > 0)
		jr->cost[k] = strtod(cpu, NULL) / ops;
	jr->contaminated[k] = !strcmp(fl_rd_row_field(row,
					FL_COL_CONTAMINATED), "1");

	/* checked by the reader: a rank, which is the enum fl_status */
	jr->status[k] = (signed char)fl_col_status_rank(
		fl_rd_row_field(row, FL_COL_STATUS));
	jr->primary[k] = strtod(fl_rd_row_field(row, latency ? FL_COL_P50 :
						FL_COL_OPS_PER_SEC), NULL);
	jr->nrows++;
}

/* ------------------------------------------------------- visit layout */

/* A scan's cell description is planned again for each row and freed
 * when the scan ends. */
struct visit_scan {
	struct fl_matrix_job *j;
	struct job_rows *jr;
	struct fl_cell cell;
};

/* keep(): the row of visit k, kept when its histogram reads */
static int keep_visit(void *ctx, const struct fl_rd_row *row, char *err,
		      size_t errlen)
{
	struct visit_scan *vs = ctx;
	struct fl_matrix_job *j = vs->j;
	struct fl_cell *cell = &vs->cell;
	unsigned long k = row->cell;
	char why[1024];
	int rc;

	if (k >= j->m.nvisits) {
		snprintf(err, errlen, "%s:%d: a row of visit %lu, but the run "
			 "planned %lu visits", row->file, row->line, k,
			 j->m.nvisits);
		return -1;
	}
	if (fl_matrix_visit_cell(&j->m, k, cell, NULL, err, errlen))
		return -1;
	if (row->rep != 0 || !fl_rd_row_hist_is(row, k)) {
		vs->jr->not_visits = 1;
		snprintf(err, errlen, "%s:%d: a row of cell %lu repetition %u "
			 "(%s): not a visit's row", row->file, row->line, k,
			 row->rep, fl_rd_row_field(row, FL_COL_HIST));
		return -1;
	}
	if (row_is_cell(row, cell, why, sizeof(why))) {
		vs->jr->not_visits = 1;
		snprintf(err, errlen, "%s:%d: visit %lu is %s here: start a "
			 "new run", row->file, row->line, k, why);
		return -1;
	}
	rc = fl_rw_visit_hist(&j->run, k, err, errlen);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		vs->jr->dropped++;	/* killed before its histogram */
		return 0;
	}
	note_row(j, vs->jr, k, row);
	return 1;
}

int matrix_job_keep_visits(struct fl_matrix_job *j, struct job_rows *jr,
			   int *torn_line, char *err, size_t errlen)
{
	struct visit_scan vs = { .j = j, .jr = jr };
	int rc = fl_rw_keep_rows(&j->run, FL_RD_TORN_OK, torn_line,
				 keep_visit, &vs, err, errlen);

	fl_cell_free(&vs.cell);
	return rc;
}

/* -------------------------------------------------------- cell layout */

struct cell_scan {
	struct fl_matrix_job *j;
	struct job_rows *jr;
	unsigned long *first;		/* per cell: its visits' slots */
	unsigned long *slot_visit;	/* slot -> visit index */
	unsigned int *nvis;		/* per cell: visits planned */
	signed char *worst;		/* per cell: its worst status */
	struct fl_cell cell;		/* as a visit_scan's */
};

static int cell_row(void *ctx, const struct fl_rd_row *row, char *err,
		    size_t errlen)
{
	struct cell_scan *cs = ctx;
	struct fl_matrix_job *j = cs->j;
	struct fl_cell *cell = &cs->cell;
	unsigned long c = row->cell, k;
	char why[1024];

	if (c >= j->m.ncells || row->rep >= cs->nvis[c]) {
		snprintf(err, errlen, "%s:%d: cell %lu repetition %u is not one "
			 "the run planned", row->file, row->line, c, row->rep);
		return -1;
	}
	if (fl_matrix_cell(&j->m, c, cell, NULL, err, errlen))
		return -1;
	if (!fl_rd_row_hist_is(row, c)) {
		snprintf(err, errlen, "%s:%d: cell %lu's histogram is not its "
			 "own", row->file, row->line, c);
		return -1;
	}
	if (row_is_cell(row, cell, why, sizeof(why))) {
		snprintf(err, errlen, "%s:%d: cell %lu is %s", row->file,
			 row->line, c, why);
		return -1;
	}
	/* the reader refuses a (cell, rep) twice: each slot fills once */
	k = cs->slot_visit[cs->first[c] + row->rep];
	note_row(j, cs->jr, k, row);
	if (cs->jr->status[k] > cs->worst[c])
		cs->worst[c] = cs->jr->status[k];
	return 0;
}

int matrix_job_check_cells(struct fl_matrix_job *j, struct job_rows *jr,
			   char *err, size_t errlen)
{
	unsigned long nc = j->m.ncells, nv = j->m.nvisits;
	struct cell_scan cs = {
		j, jr, calloc(nc + 1, sizeof(unsigned long)),
		calloc(nv + 1, sizeof(unsigned long)),
		calloc(nc + 1, sizeof(unsigned int)), malloc(nc + 1), { 0 },
	};
	int rc = -1;

	if (!cs.first || !cs.slot_visit || !cs.nvis || !cs.worst) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(cs.worst, -1, nc + 1);
	/* visit k is repetition visits[k].rep of its cell: slots by cell */
	for (unsigned long k = 0; k < nv; k++)
		cs.nvis[j->m.visits[k].cell]++;
	for (unsigned long c = 1; c < nc; c++)
		cs.first[c] = cs.first[c - 1] + cs.nvis[c - 1];
	for (unsigned long k = 0; k < nv; k++)
		cs.slot_visit[cs.first[j->m.visits[k].cell] +
			      j->m.visits[k].rep] = k;
	if (fl_rw_scan(&j->run, 0, NULL, cell_row, &cs, err, errlen))
		goto out;
	if (jr->nrows != nv) {
		snprintf(err, errlen, "%s/cells.csv holds the rows of %lu of "
			 "the %lu visits the run planned", j->run.tmp,
			 jr->nrows, nv);
		goto out;
	}
	for (unsigned long c = 0; c < nc; c++)
		if (cs.nvis[c] && fl_rw_cell_hist(&j->run, c, err, errlen))
			goto out;
	memset(j->by_status, 0, sizeof(j->by_status));
	for (unsigned long c = 0; c < nc; c++)
		if (cs.worst[c] >= 0)
			j->by_status[cs.worst[c]]++;
	rc = 0;
out:
	fl_cell_free(&cs.cell);
	free(cs.first);
	free(cs.slot_visit);
	free(cs.nvis);
	free(cs.worst);
	return rc;
}

void matrix_job_take_rows(struct fl_matrix_job *j, const struct job_rows *jr)
{
	for (unsigned long k = 0; k < j->m.nvisits; k++) {
		if (jr->status[k] < 0 || j->done[k])
			continue;
		j->done[k] = 1;
		j->ndone++;
		fl_matrix_job_visited(j, k, jr->status[k], jr->primary[k],
				      jr->cost[k], jr->contaminated[k], NULL);
	}
}
