/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Merging the shards of one matrix (`futexlab matrix FILE --shard K/N`,
 * sweep/shard.h) into one run directory, equal in its cells to a run of
 * the whole matrix on one machine: cells.csv's rows in cell order, each
 * cell's histogram and bins, the matrix's copy, and a meta.json whose
 * cells_reps say which host ran each cell and whose "merged" lists the
 * shards (docs/fleet.md).
 *
 * Shard directories come back from other machines: each is read as
 * untrusted input by rundir/'s readers (regular files only, no link
 * followed, every field checked), the directory given must be itself
 * (not a symbolic link, no ".." on its path), and every shard must be of
 * the same matrix (its hash), the same futexlab (version and commit) and
 * the same N, with each K from 0 to N-1 exactly once and each cell in
 * exactly one shard, and no run given twice (by any path: a run is its
 * folder's device and inode). Every file a merge copies is read and
 * checked before anything is created.
 */
#ifndef FUTEXLAB_MERGE_H
#define FUTEXLAB_MERGE_H

#include <limits.h>
#include <stddef.h>

#include "rundir/read.h"

struct fl_merge_shard {
	const char *path;		/* as given */
	struct fl_rd_run r;
	unsigned int k, n;
	unsigned long matrix_cells;
	const char *host;		/* machine.label, else hostname */
};

struct fl_merged {
	struct fl_merge_shard *shards;	/* by K once checked */
	unsigned int n;
	unsigned long ncells;		/* the matrix's */
	char *ini;			/* the matrix's copy, checked against
					 * its hash */
	size_t ini_len;
};

/* Read and check the n shard directories; 0, or -1 with one line in
 * err naming what was wrong (bad input). fl_merge_free() either way. */
int fl_merge_read(struct fl_merged *m, const char *const *paths,
		  unsigned int n, char *err, size_t errlen);

/*
 * Write the merged run under results (a new directory, renamed into
 * place when whole; its path into final). argc/argv: the command line
 * for meta.json. 0, or -1 with err (a write failed).
 */
int fl_merge_write(const struct fl_merged *m, const char *results, int argc,
		   char **argv, char *final, size_t finallen, char *err,
		   size_t errlen);

void fl_merge_free(struct fl_merged *m);

#endif
