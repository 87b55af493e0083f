/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The columns of cells.csv, each once: its name, whether a run must have
 * it, and what a value must be. The writer (write.c) prints them in this
 * order (FL_CELLS_COLUMNS, checked against this table by
 * tests/unit/test_rundir_write.c); every reader of the file
 * (read_cells.c, and through it plot, report, compare, a resume and the
 * finalizing of a matrix) checks a field with fl_col_check() and nothing
 * else, so one strictness holds for all.
 */
#ifndef FUTEXLAB_RUNDIR_COLUMNS_H
#define FUTEXLAB_RUNDIR_COLUMNS_H

#include <stddef.h>

enum fl_col {
	FL_COL_CELL, FL_COL_WORKLOAD, FL_COL_BACKEND, FL_COL_THREADS,
	FL_COL_PLACEMENT, FL_COL_CPUS, FL_COL_OPTIONS, FL_COL_REP,
	FL_COL_STATUS, FL_COL_REASON, FL_COL_NOTE, FL_COL_DURATION,
	FL_COL_ELAPSED, FL_COL_OPS, FL_COL_OPS_PER_SEC,
	FL_COL_OPS_PER_THREAD, FL_COL_LAT_COUNT, FL_COL_P50, FL_COL_P90,
	FL_COL_P99, FL_COL_P999, FL_COL_LAT_MAX, FL_COL_LAT_MEAN,
	FL_COL_JAIN, FL_COL_THREAD_OPS_MIN, FL_COL_THREAD_OPS_MAX,
	FL_COL_EXTRA, FL_COL_HIST, FL_COL_HASH_SLOTS, FL_COL_SAMPLE_EVERY,
	FL_COL_BIN_NS, FL_COL_BUSY_START, FL_COL_BUSY_END,
	FL_COL_WAKE_SHORT, FL_COL_WAKE_LONG, FL_COL_BUSY_USED,
	/* the kernel's counts (fl_count_cols), empty where not counted */
	FL_COL_CPU_NS, FL_COL_CPU_NS_MIN, FL_COL_CPU_NS_MAX,
	FL_COL_RUN_DELAY, FL_COL_RUN_DELAY_MAX, FL_COL_CTX,
	FL_COL_MIGRATIONS, FL_COL_FAULTS, FL_COL_CYCLES,
	FL_COL_INSTRUCTIONS, FL_COL_REF_CYCLES, FL_COL_STEAL,
	FL_COL_CONTAMINATED,
	FL_NCOLS
};

/*
 * The columns of struct fl_rep_counts, in the file's order: the bit of
 * its have that says the value was counted, where the value is (a
 * uint64_t; the contaminated column, an int, is last and apart), and
 * what meta.json says of it.
 */
struct fl_count_col {
	enum fl_col col;
	unsigned int have;
	size_t offset;			/* in struct fl_rep_counts */
	const char *unit, *source;
};

#define FL_NCOUNT_COLS 12
extern const struct fl_count_col fl_count_cols[FL_NCOUNT_COLS];

/* the largest cell index a run directory may name */
#define FL_MAX_CELL_INDEX 1000000ul

/* Column c's name in the header. */
const char *fl_col_name(enum fl_col c);
/* 1 when a run directory without the column is refused; the others came
 * later, so runs written before them still read. */
int fl_col_required(enum fl_col c);
/* The column with this name, or -1. */
int fl_col_find(const char *name);

/*
 * Is value a valid field of column c? 0, or -1 with what is wrong with it
 * in why ("is not a finite number >= 0"), for a message that names the
 * column and quotes the value before it. ok: the row's status is ok (a
 * repetition that ran has a bin width; one that did not, 0).
 */
int fl_col_check(enum fl_col c, const char *value, int ok, char *why,
		 size_t len);

/* The CPUs a cpus field lists, one a thread (0 for an empty field):
 * the row's threads at least, a workload's own threads (a waker) more,
 * FL_MAX_THREADS at most. */
unsigned long fl_col_cpus_count(const char *s);

/* A status's rank, in order of how bad: ok 0, failed 1, skipped 2,
 * aborted 3 (measure/cell.h's enum fl_status); -1 for no status. */
int fl_col_status_rank(const char *s);

/* A finite decimal number >= 0 of the text's first len characters:
 * digits, an optional fraction and exponent; no sign, hex, inf or nan.
 * 0 with *v, or -1. */
int fl_col_number(const char *s, size_t len, double *v);

#endif
