// SPDX-License-Identifier: GPL-2.0
/*
 * Finalizing a matrix run once every visit ran: the rows put in cell
 * order, each cell's histogram merged over its visits and the visit
 * journal removed (rundir/rewrite.h does the rewriting, and says how a
 * kill at any step is resumed), then the result checked as a resume
 * checks a directory in cell layout: one row for every visit planned,
 * by the readers' rules, and every cell's histogram; the cells counted
 * by status.
 */
#include "sweep/job.h"

#include "rundir/rewrite.h"
#include "sweep/job_internal.h"

int fl_matrix_job_finalize(struct fl_matrix_job *j, char *err, size_t errlen)
{
	struct job_rows jr;
	int rc;

	if (j->run.cells)
		fclose(j->run.cells);
	j->run.cells = NULL;
	if (j->cell_layout)
		rc = fl_rw_swap_hist(&j->run, err, errlen);
	else
		rc = fl_rw_cell_layout(&j->run, err, errlen);
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
