/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run directory: results/<UTC time>-<host>[-<n>]/ holding meta.json,
 * cells.csv (one row per cell and repetition), hist/cell-<i>.csv (each
 * cell's merged latency histogram) and bins/cell-<i>-rep-<r>.csv (each
 * repetition's operations over time). It is written under a hidden
 * temporary name, results/.partial-<name>-<pid>-<n>, and renamed with
 * RENAME_NOREPLACE when complete, so an interrupted or killed run never
 * leaves a half-written directory under a final name, and no run replaces
 * another. Rows are flushed as each cell ends. Every file is written
 * through the directory's descriptor (write_at.h), never through a link.
 */
#ifndef FUTEXLAB_RUNDIR_WRITE_H
#define FUTEXLAB_RUNDIR_WRITE_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "base/result.h"
#include "spec/workload.h"

#define FL_CELLS_COLUMNS \
	"cell,workload,backend,threads,placement,cpus,options,rep,status," \
	"reason,note,duration_ns,elapsed_ns,ops,ops_per_sec," \
	"ops_per_sec_per_thread,lat_count,lat_p50_ns,lat_p90_ns,lat_p99_ns," \
	"lat_p999_ns,lat_max_ns,lat_mean_ns,jain,thread_ops_min," \
	"thread_ops_max,extra,hist,futex_hash_slots,sample_every,bin_ns," \
	"busy_loops_per_us_start,busy_loops_per_us_end," \
	"idle_wake_short_ns,idle_wake_long_ns,busy_loops_per_us_used," \
	"cpu_ns,cpu_ns_thread_min,cpu_ns_thread_max,run_delay_ns," \
	"run_delay_ns_thread_max,ctx_switches,cpu_migrations,page_faults," \
	"cycles,instructions,ref_cycles,steal_ns,contaminated"

struct fl_run {
	char dir[PATH_MAX];		/* the results directory, as given */
	char name[256];			/* <UTC time>-<host>: the final name */
	char tmp[PATH_MAX];		/* the partial directory's path, which
					 * messages and resume hints name */
	char final[PATH_MAX];		/* where it ended up */
	char entry[256];		/* the partial directory's name in dir */
	int dir_fd;			/* dir: the final rename stays in it */
	int fd;				/* the run directory: every file is
					 * written through it (write_at.h) */
	FILE *cells;
	unsigned int ncells;		/* written by fl_run_write_cell */
};

/*
 * Where a result's rows go: the index in cells.csv's cell column and
 * the histogram file (a matrix's partial run files each visit, one
 * repetition of a cell, under its visit's index until the finalizing
 * puts the rows in cell order: rundir/rewrite.h), and the cell and the
 * first repetition its bins are filed under.
 */
struct fl_row_place {
	unsigned long row;
	unsigned long cell;
	unsigned int rep;
};

/* Create the results directory if needed and the temporary run directory.
 * 0, or -1 with a message naming the directory in err. */
int fl_run_open(struct fl_run *run, const char *results_dir,
		const char *hostname, char *err, size_t errlen);
/*
 * Reopen a partial directory an interrupted matrix run left (rundir/
 * partial.c) for its resume: path is results/.partial-NAME-PID-N, never a
 * link; its results folder and it are held by descriptors, NAME (checked
 * like any name from outside) is the name it will be renamed to inside
 * that folder. cells is not opened. 0, or -1 with err.
 */
int fl_run_reopen(struct fl_run *run, const char *path, char *err,
		  size_t errlen);
/* Append the cell's rows and its histogram under the next cell index
 * (run->ncells), flushed to disk. 0, or -1 with err. */
int fl_run_write_cell(struct fl_run *run, const struct fl_cell *cell,
		      const struct fl_cell_result *res, char *err,
		      size_t errlen);
/* The same, placed at at (a matrix's visit). 0, or -1 with err. */
int fl_run_write_visit(struct fl_run *run, const struct fl_row_place *at,
		       const struct fl_cell *cell,
		       const struct fl_cell_result *res, char *err,
		       size_t errlen);
/* Write meta.json and rename into place, inside the results directory
 * it was opened in; 0, or -1 with err. cells may be closed already. */
int fl_run_finish(struct fl_run *run, json_t *meta, char *err, size_t errlen);
/* Close what the run holds open (after a failure; fl_run_finish closes
 * it all once the run is in place). */
void fl_run_close(struct fl_run *run);

#endif
