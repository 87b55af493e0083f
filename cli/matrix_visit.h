/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `futexlab matrix ... --visit CELL[:N]`: one visit of one cell of a
 * partial run (a campaign's visit by visit, docs/statistics.md), the run
 * left partial; the visit's figure on stdout for the campaign.
 */
#ifndef FUTEXLAB_CLI_MATRIX_VISIT_H
#define FUTEXLAB_CLI_MATRIX_VISIT_H

#include "sweep/job.h"

struct fl_visit_arg {
	long cell;		/* -1: no --visit */
	unsigned int nth;	/* 0: the next */
};

/* "CELL" or "CELL:N" into v; 0, or -1 said on stderr (usage) */
int fl_visit_parse(const char *s, struct fl_visit_arg *v);
/* file's matrix has v's cell; 0, or -1 said on stderr (usage): checked
 * before a new run's partial directory is made */
int fl_visit_check_file(const char *file, const struct fl_visit_arg *v);
/*
 * The visit run in the job (started or resumed, nothing run yet), then
 * "visit CELL N STATUS NAME FIGURE" and the partial directory on stdout.
 * The exit status: 0, 1 when the visit failed, 2 on a bad --visit, 130
 * when interrupted.
 */
int fl_visit_run(struct fl_matrix_job *job, const struct fl_visit_arg *v);

#endif
