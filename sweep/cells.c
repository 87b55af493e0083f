// SPDX-License-Identifier: GPL-2.0
/*
 * The cells of a matrix (parsed, or a run's one experiment): the visit
 * plan (every cell's repetitions spread over passes) and looking up a
 * cell or a visit by its index.
 */
#include "sweep/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/internal.h"

/* The visits are planned pass by pass while the matrix runs
 * (sweep/passes.h): none before the first. */
int matrix_plan_visits(struct fl_matrix *m)
{
	m->nvisits = 0;
	free(m->planned);
	m->planned = NULL;
	m->visits = calloc(1, sizeof(*m->visits));
	return m->visits ? 0 : -1;
}

int fl_matrix_of_spec(struct fl_matrix *m, const struct fl_spec *s)
{
	struct fl_matrix_exp *e = &m->exps[0];

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "run");
	snprintf(e->name, sizeof(e->name), "%s", s->workload->name);
	e->spec = *s;
	e->ncells = fl_spec_ncells(s);
	m->nexps = 1;
	m->ncells = e->ncells;
	return matrix_plan_visits(m);
}

int fl_matrix_add_visits(struct fl_matrix *m, const unsigned long *cells,
			 unsigned long n)
{
	struct fl_matrix_visit *v = realloc(m->visits, (m->nvisits + n + 1) *
					    sizeof(*v));

	if (!v)
		return -1;
	m->visits = v;
	/* each cell's visits so far, counted once, so that a plan of many
	 * passes costs its length, not its square */
	if (!m->planned)
		m->planned = calloc(m->ncells + 1, sizeof(*m->planned));
	if (!m->planned)
		return -1;
	for (unsigned long i = 0; i < n; i++) {
		if (cells[i] >= m->ncells)
			return -1;
		m->visits[m->nvisits++] = (struct fl_matrix_visit){
			cells[i], m->planned[cells[i]]++ };
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
