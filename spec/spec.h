/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run specification: one workload and the axes to sweep (backends,
 * thread counts, placements, and every sweep option of the workload). Its
 * cells are the cross product, enumerated in a fixed order (backends
 * outermost, then options, placements, threads) so that a cell's index
 * means the same thing on every run of the same specification. `futexlab
 * run` builds one from its flags; the matrix builds one per experiment.
 */
#ifndef FUTEXLAB_SPEC_H
#define FUTEXLAB_SPEC_H

#include "spec/workload.h"

#define FL_MAX_AXIS 16

struct fl_spec {
	const struct fl_workload *workload;
	const struct fl_backend *backends[FL_MAX_AXIS];
	unsigned int nbackends;
	unsigned int threads[FL_MAX_AXIS];
	unsigned int nthreads;
	char placements[FL_MAX_AXIS][64];
	unsigned int nplacements;
	struct fl_opt_values opts[FL_MAX_OPTS];	/* per workload option */
	uint64_t duration_ns, warmup_ns;
	/* repetitions: exactly `reps`, or with reps_auto at least `reps`
	 * (FL_REPS_MIN) and more while the cell's interval is wider than
	 * FL_NOISY_HALFWIDTH, up to reps_max and the time budget
	 * (sweep/passes.h) */
	unsigned int reps;
	int reps_auto;
	unsigned int reps_max;
	double budget_s;		/* 0: FL_BUDGET_FACTOR x the minimum */
	uint64_t seed;
	long hash_slots;
	unsigned int sample_every;	/* 0: the workload's default */
	uint64_t bin_ns;		/* FL_BIN_NS_DEFAULT unless given */
};

/* Throughput over time is counted in bins of 10 ms unless --bin says
 * otherwise: fine enough to show a stall, coarse enough that the
 * controller's wake-ups cost the threads nothing measurable. */
#define FL_BIN_NS_DEFAULT 10000000ull
#define FL_SAMPLE_EVERY_MAX 1000000u

/* The sampling rate a cell of spec s runs with: --sample, or the
 * workload's default. */
unsigned int fl_spec_sample_every(const struct fl_spec *s);

#define FL_REPS_MIN		6	/* what a 95% interval needs */
#define FL_REPS_MAX_DEFAULT	30
#define FL_REPS_LIMIT		100	/* the most a cell may have */
/* the default time budget: this many times the nominal time of every
 * cell's minimum repetitions */
#define FL_BUDGET_FACTOR	3.0

/* Defaults: every backend unset, 1 thread (or the workload's fixed
 * count), compact, 1 s, --reps auto, the workload's sampling rate,
 * 10 ms bins. */
void fl_spec_init(struct fl_spec *s, const struct fl_workload *w);
unsigned long fl_spec_ncells(const struct fl_spec *s);
/*
 * Fill cell i of the product; 0, or -1 with err (placement failure, out
 * of memory). The cell's CPU table is sized by its threads, so a cell of
 * one thread holds one entry and one of FL_MAX_THREADS all of them: cell
 * starts zeroed ({ 0 } or static) or as an earlier fl_spec_cell() left
 * it, whose table is reused, and fl_cell_free() releases the table.
 */
int fl_spec_cell(const struct fl_spec *s, unsigned long i,
		 struct fl_cell *cell, char *err, size_t errlen);
/* Size the cell's CPU table to n entries (1 to FL_MAX_THREADS), keeping
 * what it held; 0, or -1 out of memory or out of bounds. */
int fl_cell_size_cpus(struct fl_cell *cell, unsigned int n);
/* Release the cell's CPU table; the cell may be filled again. */
void fl_cell_free(struct fl_cell *cell);

/* A workload with a fixed thread count refuses any other: 0, or -1 with
 * err naming the count. */
int fl_spec_check_fixed_threads(const struct fl_spec *s, char *err,
				size_t errlen);

#endif
