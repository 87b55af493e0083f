// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the matrix file parser (sweep/matrix.h) on any bytes,
 * then the cells and visits of a file it accepted, and the --resume diff
 * of the file against itself (which must find no difference).
 */
#include <stdint.h>
#include <stdlib.h>

#include "sweep/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fl_matrix m, again;
	static struct fl_cell cell;
	char err[1024], what[512];

	if (fl_matrix_parse("fuzz.ini", (const char *)data, size, &m, err,
			    sizeof(err)) == 0) {
		for (unsigned long i = 0; i < m.ncells && i < 64; i++)
			if (fl_matrix_cell(&m, i, &cell, NULL, err,
					   sizeof(err)))
				abort();	/* placed when parsed */
		if (m.nvisits &&
		    fl_matrix_visit_cell(&m, m.nvisits - 1, &cell, NULL, err,
					 sizeof(err)))
			abort();
		if (fl_matrix_parse("fuzz.ini", (const char *)data, size,
				    &again, err, sizeof(err)) ||
		    fl_matrix_diff(&m, &again, what, sizeof(what)))
			abort();	/* the same text, the same matrix */
		fl_matrix_free(&again);
	}
	fl_matrix_free(&m);
	return 0;
}
