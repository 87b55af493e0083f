// SPDX-License-Identifier: GPL-2.0
/*
 * The cells of a parsed matrix: the visit plan (every cell's repetitions
 * spread over passes) and looking up a cell or a visit by its index.
 */
#include "sweep/matrix.h"

#include <stdio.h>
#include <stdlib.h>

#include "sweep/internal.h"

/* Pass p visits every cell with more than p repetitions, in cell order. */
int matrix_plan_visits(struct fl_matrix *m)
{
	unsigned int maxreps = 0;
	unsigned long n = 0;

	for (unsigned int x = 0; x < m->nexps; x++) {
		n += m->exps[x].ncells * m->exps[x].spec.reps;
		if (m->exps[x].spec.reps > maxreps)
			maxreps = m->exps[x].spec.reps;
	}
	m->visits = calloc(n ? n : 1, sizeof(*m->visits));
	if (!m->visits)
		return -1;
	for (unsigned int p = 0; p < maxreps; p++)
		for (unsigned int x = 0; x < m->nexps; x++) {
			const struct fl_matrix_exp *e = &m->exps[x];

			if (e->spec.reps <= p)
				continue;
			for (unsigned long i = 0; i < e->ncells; i++)
				m->visits[m->nvisits++] = (struct
					fl_matrix_visit){ e->first_cell + i, p };
		}
	return 0;
}

int fl_matrix_cell(const struct fl_matrix *m, unsigned long i,
		   struct fl_cell *cell, const struct fl_matrix_exp **exp,
		   char *err, size_t errlen)
{
	for (unsigned int x = 0; x < m->nexps; x++) {
		const struct fl_matrix_exp *e = &m->exps[x];

		if (i >= e->first_cell && i < e->first_cell + e->ncells) {
			if (exp)
				*exp = e;
			return fl_spec_cell(&e->spec, i - e->first_cell, cell,
					    err, errlen);
		}
	}
	snprintf(err, errlen, "cell %lu: the matrix has %lu cells", i,
		 m->ncells);
	return -1;
}

int fl_matrix_visit_cell(const struct fl_matrix *m, unsigned long k,
			 struct fl_cell *cell,
			 const struct fl_matrix_exp **exp, char *err,
			 size_t errlen)
{
	if (k >= m->nvisits) {
		snprintf(err, errlen, "visit %lu: the matrix has %lu", k,
			 m->nvisits);
		return -1;
	}
	if (fl_matrix_cell(m, m->visits[k].cell, cell, exp, err, errlen))
		return -1;
	cell->reps = 1;
	cell->seed += m->visits[k].rep;
	return 0;
}
