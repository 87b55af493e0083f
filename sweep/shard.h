/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A share of a matrix: `futexlab matrix FILE --shard K/N` runs shard K
 * of N (K from 0, as a Slurm array index). Every cell belongs to exactly
 * one shard; the split depends only on the cells and their nominal cost
 * (the minimum visits of each, warm-up and repetition), so every machine
 * that expands the file to the same cells computes the same split, and
 * the shards' nominal times differ by at most one cell's (longest cells
 * first, each to the shard with the least so far; ties to the lower
 * cell and the lower shard). Each shard writes its own run directory;
 * `futexlab merge` (merge/merge.h) puts them back together.
 */
#ifndef FUTEXLAB_SWEEP_SHARD_H
#define FUTEXLAB_SWEEP_SHARD_H

#include <jansson.h>
#include <stddef.h>

#include "rundir/record.h"

struct fl_matrix;
struct fl_matrix_job;
struct fl_cell_track;

#define FL_SHARD_MAX 100000

struct fl_shard {
	unsigned int k, n;	/* n == 0: the whole matrix */
};

/* "K/N" with 0 <= K < N <= FL_SHARD_MAX, decimal digits only; 0, or -1
 * with err naming what is wrong. */
int fl_shard_parse(const char *text, struct fl_shard *s, char *err,
		   size_t errlen);

/* owner[c] for each of the n cells: the shard of cell c among nshards,
 * from each cell's nominal cost (tracks); 0, or -1 out of memory. */
int fl_shard_split(const struct fl_cell_track *t, unsigned long ncells,
		   unsigned int nshards, unsigned int *owner);

/*
 * in[c] = 1 for each cell of m in shard sh (room for m->ncells), and
 * *share its part of the matrix's nominal time. 0, or -1 with err (more
 * shards than cells).
 */
int fl_shard_cells(const struct fl_matrix *m, const struct fl_shard *sh,
		   unsigned char *in, double *share, char *err,
		   size_t errlen);

/*
 * Restrict a job to its shard (j->shard; nothing when n is 0): the
 * other cells' tracks are stopped with no visit, so no pass plans them,
 * and the time budget is the shard's share of the matrix's by nominal
 * cost. j->in_shard marks the shard's cells. 0, or -1 with err (more
 * shards than cells).
 */
int fl_shard_restrict(struct fl_matrix_job *j, char *err, size_t errlen);

/* The shard as a run's record has it (rundir/record.h), and as
 * matrix.json's "shard" (rundir/ writes its keys). */
struct fl_record_shard fl_shard_record(const struct fl_matrix_job *j);
json_t *fl_shard_json(const struct fl_matrix_job *j);
/* A resumed job's shard from its matrix.json ("shard", absent for a
 * whole matrix); 0, or -1 with err naming what is wrong. */
int fl_shard_from_state(struct fl_matrix_job *j, char *err, size_t errlen);

#endif
