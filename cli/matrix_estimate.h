/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `futexlab matrix FILE --estimate [--topology XML]`: the plan of a
 * matrix and its cost, for this machine or a synthetic one, printed
 * without running anything (matrix_estimate.c).
 */
#ifndef FUTEXLAB_CLI_MATRIX_ESTIMATE_H
#define FUTEXLAB_CLI_MATRIX_ESTIMATE_H

/* The plan on stdout: 0, or 2 after one line on stderr (a bad matrix
 * file, a bad topology file). topology is NULL for this machine. */
int fl_matrix_estimate(const char *file, const char *topology);

#endif
