/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Joining finished runs into a new one (futexlab merge): the files of a
 * run read and copied as they are, so that no folder above rundir/
 * names or parses cells.csv, hist/ or bins/. The runs read were opened
 * by fl_rd_open (every file regular, below the run, no link followed).
 */
#ifndef FUTEXLAB_RUNDIR_JOIN_H
#define FUTEXLAB_RUNDIR_JOIN_H

#include <stddef.h>

#include "rundir/read.h"
#include "rundir/write.h"

/*
 * r's cells.csv (as fl_rd_open read and checked it, r->cells_text) has
 * this futexlab's header. 0, or -1 with err naming the file.
 */
int fl_join_check_header(const struct fl_rd_run *r, char *err, size_t errlen);

/*
 * The rows of n cells.csv texts (each a run's cells_text) into
 * run's cells.csv in cell order, rows of one cell in the order given.
 * 0, or -1 with errno.
 */
int fl_join_rows(struct fl_run *run, const char *const *texts, const size_t *lens,
		 unsigned int n);

/*
 * Each cell's histogram and its repetitions' bins files of r, copied
 * under the same names into run. 0, or -1 with err.
 */
int fl_join_cell_files(struct fl_run *run, const struct fl_rd_run *r,
		       char *err, size_t errlen);

/*
 * The same files of r read and checked as fl_join_cell_files() reads
 * them (regular, below r, no link followed, not too large), nothing
 * written: a merge checks every shard so before it creates anything.
 * 0, or -1 with err naming the file.
 */
int fl_join_check_cell_files(const struct fl_rd_run *r, char *err,
			     size_t errlen);

#endif
