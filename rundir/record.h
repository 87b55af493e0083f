/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record of a run: what its meta.json holds, as plain fields that
 * the folders knowing each part fill in, turned into meta.json here
 * alone (rundir/record.c), so the schema has one author; the keys leave
 * sorted (fl_run_finish), so their order is one too.
 *
 *   command	cli/: argc, argv, the command line as typed
 *   machine	cli/: the machine, the harness's overhead, the seed
 *   load	cli/: this session's share of other processes, the load
 *		average at its start (the end's is read when written)
 *   plan	sweep/: the workloads described; a run's settings, or a
 *		matrix's file, experiments, budget and passes; its shard
 *   cells	sweep/: the cells counted by status, and per cell its
 *		repetitions and each one's start (cells_reps)
 *   times	sweep/: the first session's start and the resumes (from
 *		matrix.json); the end is when the record is written
 *   merged	merge/: the shards read back (struct fl_record_merge):
 *		the first shard's meta.json with the command, the cells,
 *		the span and the shards a merge sets over it
 *
 * A visit journal, apart from the cells, is the record's other half,
 * not built yet: while a matrix runs, cells.csv still holds a visit's index
 * in its cell column until the finalizing rewrites it in cell order
 * (sweep/job_finalize.c, rundir/rewrite.h). Its sketch:
 *
 *   visits.csv	one row per visit as it ends: visit, cell, rep, then
 *		the row cells.csv will hold; fsynced per visit, so a kill
 *		loses only the visit in progress (what cells.csv does now)
 *   cells.csv	written by rundir/ alone from the journal, in cell
 *		order: after each pass for a partial, once at the end;
 *		its cell column is a cell index at every moment
 *   hist	a visit's histogram under its visit in the journal's
 *		folder, merged per cell when cells.csv is written; bins
 *		are filed by cell and repetition already (fl_row_place)
 */
#ifndef FUTEXLAB_RUNDIR_RECORD_H
#define FUTEXLAB_RUNDIR_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/machine.h"
#include "rundir/read.h"
#include "rundir/write.h"

struct fl_spec;
struct fl_workload;

/* A matrix's experiment: meta.json's matrix.experiments[]. */
struct fl_record_exp {
	const char *name;
	const struct fl_spec *spec;	/* its workload and settings */
	unsigned long first_cell, ncells;
};

/* A cell's repetitions: meta.json's cells_reps[]. */
struct fl_record_cell {
	unsigned long cell;
	unsigned int reps;
	int converged;
	const char *const *rep_start;	/* nstarts times, NULL: unknown */
	unsigned int nstarts;
};

/* The shard a run is of (sweep/shard.h): meta.json's "shard". */
struct fl_record_shard {
	unsigned int k, n;		/* n == 0: the whole matrix */
	unsigned long matrix_cells;
	const unsigned char *in_shard;	/* per cell of the matrix */
};

/* One shard of a merge, read back and checked by merge/read.c. */
struct fl_record_merge_run {
	unsigned int k, n;
	const char *host;		/* machine.label, else hostname */
	const struct fl_rd_run *r;
};

struct fl_record {
	/* command */
	int argc;
	char **argv;
	/* machine (NULL in a merge: the first shard's is kept) */
	const struct fl_machine *machine;
	struct fl_overhead overhead;
	uint64_t seed;
	/* load: foreign_share < 0 is unknown */
	double foreign_share, loadavg_start;
	/* plan */
	const struct fl_workload *const *workloads;
	unsigned int nworkloads;
	const struct fl_spec *settings;	/* a run's; NULL for a matrix */
	struct {
		const char *source, *fnv1a64;	/* NULL: not a matrix */
		const struct fl_record_exp *exps;
		unsigned int nexps;
		double time_budget_s;
		unsigned int passes;
	} matrix;
	struct fl_record_shard shard;
	/* cells */
	unsigned int ncells;
	const unsigned int *by_status;	/* FL_STATUS_* */
	int interrupted;
	const struct fl_record_cell *cells;
	unsigned long ncells_reps;
	/* times */
	const char *start_time;		/* NULL: now */
	json_t *resumed;		/* matrix.json's list of
					 * fl_record_resume_json, or NULL */
	/* merged: ncells is then the matrix's cells */
	const struct fl_record_merge_run *merged;
	unsigned int nmerged;
};

/* The record as meta.json; NULL when out of memory. */
json_t *fl_record_json(const struct fl_record *rec);
/* A resume as matrix.json lists it, and meta.json's "resumed" after it:
 * when, its command, the visits an earlier session had done. */
json_t *fl_record_resume_json(const char *time, int argc, char **argv,
			      unsigned long cells_done);
/* A shard as meta.json's (and matrix.json's) "shard". */
json_t *fl_record_shard_json(const struct fl_record_shard *s);
/* A merge's shards as meta.json's merged.runs (and matrix.json's
 * merged_from): where each ran and when, and its cells. */
json_t *fl_record_merge_runs(const struct fl_record_merge_run *m,
			     unsigned int n);
/* A merge's meta.json (rundir/record_merge.c): fl_record_json's when
 * nmerged. */
json_t *fl_record_merged_json(const struct fl_record *rec);
/* The run has rows of cell i (a run's cells are in index order). */
int fl_record_has_cell(const struct fl_rd_run *r, unsigned long i);
/* Write rec as the run's meta.json and rename the run into place
 * (fl_run_finish); 0, or -1 with err. */
int fl_run_finish_record(struct fl_run *run, const struct fl_record *rec,
			 char *err, size_t errlen);

#endif
