/* SPDX-License-Identifier: GPL-2.0 */
/* A cell's figures as `futexlab run` prints them: text or JSON. */
#ifndef FUTEXLAB_CELL_OUTPUT_H
#define FUTEXLAB_CELL_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "stats/figures.h"

/* The printed summary of a cell: a few lines to f. */
void fl_cell_print(FILE *f, const struct fl_cell *cell,
		   const struct fl_cell_result *res,
		   const struct fl_cell_figures *fig);
json_t *fl_cell_json(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     const struct fl_cell_figures *f);

#endif
