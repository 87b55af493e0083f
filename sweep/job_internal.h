/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the matrix job files (matrix_job.c, matrix_job_resume.c,
 * matrix_job_finalize.c) share and nothing else needs.
 */
#ifndef FUTEXLAB_MATRIX_JOB_INTERNAL_H
#define FUTEXLAB_MATRIX_JOB_INTERNAL_H

#include <jansson.h>
#include <string.h>

#include "sweep/job.h"

#define MAX_COLUMNS 64

/* Write matrix.json into the partial directory, synced; 0 or -1. */
int matrix_job_save_state(struct fl_matrix_job *j);
/* This process's argv, for matrix.json. */
json_t *matrix_job_argv_json(const struct fl_matrix_job *j);
/* Open and flock dir into j->dirfd; -1 with err when another process
 * holds it. */
int matrix_job_lock_dir(struct fl_matrix_job *j, const char *dir, char *err,
			size_t errlen);

/* Per-cell tracks for j->m (matrix_job_passes.c), and the budget;
 * 0, or -1 with err. */
int matrix_job_init_tracks(struct fl_matrix_job *j, char *err,
			   size_t errlen);
/* Rebuild j->m.visits from the passes matrix.json recorded; 0 or -1. */
int matrix_job_replay_passes(struct fl_matrix_job *j, char *err,
			     size_t errlen);
/* meta.json's "cells_reps": per cell its repetitions, whether its
 * interval converged, and each repetition's start time. */
json_t *matrix_job_cells_reps(const struct fl_matrix_job *j);

/* The index of column want among a CSV header's n names, or -1. */
static inline int column(char **names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], want) == 0)
			return i;
	return -1;
}

#endif
