// SPDX-License-Identifier: GPL-2.0
/*
 * Finalizing a matrix run once every visit ran: the rows renumbered to
 * cell and repetition in cell order and each cell's histogram merged
 * over its visits (rundir/rewrite.h does the rewriting, and says how a
 * kill at any step is resumed), then the result checked as a resume
 * checks a directory in cell layout: one row for every visit planned,
 * by the readers' rules, and every cell's histogram; the cells counted
 * by status.
 */
#include "sweep/job.h"

#include <stdlib.h>

#include "rundir/rewrite.h"
#include "sweep/job_internal.h"

/* visit k's cell and repetition, as rundir/ takes them */
static struct fl_rw_visit *visit_map(const struct fl_matrix_job *j)
{
	struct fl_rw_visit *v = calloc(j->m.nvisits + 1, sizeof(*v));

	for (unsigned long k = 0; v && k < j->m.nvisits; k++)
		v[k] = (struct fl_rw_visit){ j->m.visits[k].cell,
					     j->m.visits[k].rep };
	return v;
}

int fl_matrix_job_finalize(struct fl_matrix_job *j, char *err, size_t errlen)
{
	struct fl_rw_visit *v = NULL;
	struct job_rows jr;
	int rc;

	if (j->run.cells)
		fclose(j->run.cells);
	j->run.cells = NULL;
	if (j->cell_layout) {
		rc = fl_rw_swap_hist(&j->run, err, errlen);
	} else if (!(v = visit_map(j))) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		rc = fl_rw_cell_layout(&j->run, v, j->m.nvisits, err, errlen);
	}
	free(v);
	if (rc)
		return -1;
	j->cell_layout = 1;
	if (matrix_job_rows_init(&jr, j->m.nvisits)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = matrix_job_check_cells(j, &jr, err, errlen);
	matrix_job_rows_free(&jr);
	return rc;
}
