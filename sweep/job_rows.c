// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of a partial matrix run as its plan sees them. rundir/ reads
 * and rewrites cells.csv with the readers' strictness (rewrite.h); here
 * each row is held against the matrix: each must be a cell and
 * repetition the plan made (so a visit's, at most once), the cell's own;
 * in a journalled run (rundir/visits.h) each visit's own histogram must
 * read, in cell layout every visit's row must be there and every cell's
 * histogram must read. A row whose visit's histogram is missing is the
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
	jr->kept = calloc(nvisits + 1, sizeof(*jr->kept));
	jr->cost = calloc(nvisits + 1, sizeof(*jr->cost));
	jr->contaminated = calloc(nvisits + 1, 1);
	if (!jr->status || !jr->primary || !jr->kept || !jr->cost ||
	    !jr->contaminated) {
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
	free(jr->kept);
	free(jr->cost);
	free(jr->contaminated);
	jr->status = NULL;
	jr->primary = NULL;
	jr->kept = NULL;
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

/* Where the plan put each cell's repetitions: visit k is repetition
 * visits[k].rep of its cell, one slot per cell and repetition. */
struct slots {
	unsigned long *first;		/* per cell: its visits' slots */
	unsigned long *visit;		/* slot -> visit index */
	unsigned int *nvis;		/* per cell: visits planned */
};

static void slots_free(struct slots *s)
{
	free(s->first);
	free(s->visit);
	free(s->nvis);
}

static int slots_init(struct slots *s, const struct fl_matrix *m)
{
	unsigned long nc = m->ncells, nv = m->nvisits;

	s->first = calloc(nc + 1, sizeof(*s->first));
	s->visit = calloc(nv + 1, sizeof(*s->visit));
	s->nvis = calloc(nc + 1, sizeof(*s->nvis));
	if (!s->first || !s->visit || !s->nvis) {
		slots_free(s);
		return -1;
	}
	for (unsigned long k = 0; k < nv; k++)
		s->nvis[m->visits[k].cell]++;
	for (unsigned long c = 1; c < nc; c++)
		s->first[c] = s->first[c - 1] + s->nvis[c - 1];
	for (unsigned long k = 0; k < nv; k++)
		s->visit[s->first[m->visits[k].cell] + m->visits[k].rep] = k;
	return 0;
}

/* The visit the row is, or -1 with err when the plan has none such. */
static long row_visit(const struct slots *s, const struct fl_matrix *m,
		      const struct fl_rd_row *row, char *err, size_t errlen)
{
	unsigned long c = row->cell;

	if (c >= m->ncells || row->rep >= s->nvis[c]) {
		snprintf(err, errlen, "%s:%d: cell %lu repetition %u is not one "
			 "the run planned", row->file, row->line, c, row->rep);
		return -1;
	}
	return (long)s->visit[s->first[c] + row->rep];
}

/* Is the row cell c's, and its histogram column the cell's? 0, or -1
 * with err. */
static int row_is_its_cell(const struct fl_rd_row *row, unsigned long c,
			   const struct fl_cell *cell, char *err,
			   size_t errlen)
{
	char why[1024];

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
	return 0;
}

/* ---------------------------------------------------- a journalled run */

/* A scan's cell description is planned again for each row and freed
 * when the scan ends. */
struct visit_scan {
	struct fl_matrix_job *j;
	struct job_rows *jr;
	struct slots s;
	struct fl_cell cell;
	int last_only;		/* no histogram read: the last row's was */
};

/* keep(): the row of a visit, kept when its histogram reads (or when
 * the scan reads none) */
static int keep_visit(void *ctx, const struct fl_rd_row *row, char *err,
		      size_t errlen)
{
	struct visit_scan *vs = ctx;
	struct fl_matrix_job *j = vs->j;
	long k = row_visit(&vs->s, &j->m, row, err, errlen);
	int rc;

	if (k < 0 ||
	    fl_matrix_cell(&j->m, row->cell, &vs->cell, NULL, err, errlen) ||
	    row_is_its_cell(row, row->cell, &vs->cell, err, errlen))
		return -1;
	rc = vs->last_only ? 0 : fl_rw_visit_hist(&j->run, row->cell,
						  row->rep, err, errlen);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		vs->jr->dropped++;	/* killed before its histogram */
		return 0;
	}
	note_row(j, vs->jr, (unsigned long)k, row);
	vs->jr->kept[vs->jr->nkept++] = (struct fl_row_place){
		(unsigned long)k, row->cell, row->rep };
	return 1;
}

int matrix_job_keep_visits(struct fl_matrix_job *j, struct job_rows *jr,
			   int last_only, int *torn_line, char *err,
			   size_t errlen)
{
	struct visit_scan vs = { .j = j, .jr = jr, .last_only = last_only };
	int rc;

	if (slots_init(&vs.s, &j->m)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = fl_rw_keep_rows(&j->run, FL_RD_TORN_OK, torn_line, keep_visit,
			     &vs, err, errlen);
	fl_cell_free(&vs.cell);
	slots_free(&vs.s);
	return rc;
}

/*
 * A visit's resume reads the last row's histogram alone. The writer
 * (rundir/write.c) syncs a visit's histogram before its row, and its
 * row before its journal line, and a visit is a process of its own, so
 * a kill leaves at most the last row without its histogram, or torn;
 * every earlier row had its histogram on disk before the next visit
 * began. What a folder from elsewhere holds beyond that is read by the
 * resume that finishes the run (--finish, or any resume without
 * --visit), which reads every histogram before it writes anything and
 * refuses the one that does not read; a visit before it never opens
 * one, so a FIFO or a link there holds nothing up and is written
 * through by nothing, and the visit writes its own histogram under its
 * own name (a file created afresh and renamed, write_at.h).
 */
struct last_row {
	int any;
	unsigned long cell;
	unsigned int rep;
};

static int note_last(void *ctx, const struct fl_rd_row *row, char *err,
		     size_t errlen)
{
	struct last_row *l = ctx;

	(void)err;
	(void)errlen;
	*l = (struct last_row){ 1, row->cell, row->rep };
	return 0;
}

int matrix_job_last_hist(struct fl_matrix_job *j, char *err, size_t errlen)
{
	struct last_row l = { 0 };
	int torn = 0;

	if (fl_rw_scan(&j->run, FL_RD_TORN_OK, &torn, note_last, &l, err,
		       errlen))
		return -1;
	if (torn)
		return 1;
	return l.any ? fl_rw_visit_hist(&j->run, l.cell, l.rep, err,
					errlen) : 0;
}

/* -------------------------------------------------------- cell layout */

struct cell_scan {
	struct fl_matrix_job *j;
	struct job_rows *jr;
	struct slots s;
	signed char *worst;		/* per cell: its worst status */
	struct fl_cell cell;		/* as a visit_scan's */
};

static int cell_row(void *ctx, const struct fl_rd_row *row, char *err,
		    size_t errlen)
{
	struct cell_scan *cs = ctx;
	struct fl_matrix_job *j = cs->j;
	unsigned long c = row->cell;
	long k = row_visit(&cs->s, &j->m, row, err, errlen);

	if (k < 0 || fl_matrix_cell(&j->m, c, &cs->cell, NULL, err, errlen) ||
	    row_is_its_cell(row, c, &cs->cell, err, errlen))
		return -1;
	/* the reader refuses a (cell, rep) twice: each slot fills once */
	note_row(j, cs->jr, (unsigned long)k, row);
	if (cs->jr->status[k] > cs->worst[c])
		cs->worst[c] = cs->jr->status[k];
	return 0;
}

int matrix_job_check_cells(struct fl_matrix_job *j, struct job_rows *jr,
			   char *err, size_t errlen)
{
	unsigned long nc = j->m.ncells, nv = j->m.nvisits;
	struct cell_scan cs = { .j = j, .jr = jr, .worst = malloc(nc + 1) };
	int rc = -1;

	if (!cs.worst || slots_init(&cs.s, &j->m)) {
		free(cs.worst);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(cs.worst, -1, nc + 1);
	if (fl_rw_scan(&j->run, 0, NULL, cell_row, &cs, err, errlen))
		goto out;
	if (jr->nrows != nv) {
		snprintf(err, errlen, "%s/cells.csv holds the rows of %lu of "
			 "the %lu visits the run planned", j->run.tmp,
			 jr->nrows, nv);
		goto out;
	}
	for (unsigned long c = 0; c < nc; c++)
		if (cs.s.nvis[c] && fl_rw_cell_hist(&j->run, c, err, errlen))
			goto out;
	memset(j->by_status, 0, sizeof(j->by_status));
	for (unsigned long c = 0; c < nc; c++)
		if (cs.worst[c] >= 0)
			j->by_status[cs.worst[c]]++;
	rc = 0;
out:
	fl_cell_free(&cs.cell);
	slots_free(&cs.s);
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
