/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which folder a run is, whatever path named it: `A`, `A/`, `./A` and a
 * link to A are one run, told by the device and inode of the folder its
 * descriptor holds open. The readers that take several runs (compare, a
 * fleet's report) refuse a run given twice, whose figures would count as
 * two runs' evidence, and an output folder inside a run they read, which
 * would write into a finished run.
 */
#ifndef FUTEXLAB_RUNDIR_SAME_DIR_H
#define FUTEXLAB_RUNDIR_SAME_DIR_H

#include "rundir/read.h"

struct stat;

/* Do a and b, two stat results, describe one file? */
int fl_same_stat(const struct stat *a, const struct stat *b);

/* Are a and b one folder? */
int fl_rd_same(const struct fl_rd_run *a, const struct fl_rd_run *b);

/*
 * The first run of runs[0..n) that is an earlier one again: 1 with its
 * index in *again and the earlier one's in *first; 0 when every run is
 * another folder.
 */
int fl_rd_repeated(const struct fl_rd_run *runs, unsigned int n,
		   unsigned int *first, unsigned int *again);

/*
 * Would an output folder at path (made, when it does not exist yet, in
 * the nearest folder above it that does) be r's folder or lie inside
 * it? 1 or 0; links on the way are followed, as a write through them
 * would be.
 */
int fl_rd_holds(const struct fl_rd_run *r, const char *path);

#endif
