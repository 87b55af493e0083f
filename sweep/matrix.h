/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A matrix file: INI, parsed with libinih. A [defaults] section and one
 * [experiment NAME] section per experiment; every key of an experiment
 * that is not one of the common keys is an option of its workload:
 *
 *   [defaults]
 *   duration = 0.3          ; seconds per repetition
 *   warmup = 0.1
 *   reps = auto             ; or a fixed count (sweep/passes.h)
 *   time-budget = 140       ; seconds for the whole matrix
 *   placement = compact     ; a space-separated list sweeps
 *   seed = 1
 *
 *   [experiment mutex-algos]
 *   workload = mutex
 *   backend = host          ; a list, or all / host
 *   threads = 1..2*cpus     ; 1,2,4 on 2 CPUs; also "cpus", "3*cpus"
 *   algo = mutex3,pi        ; the workload's own options, as on `run`
 *
 * Each experiment becomes one fl_spec; the matrix's cells are the
 * experiments' cells in file order, each experiment's in fl_spec order,
 * so a cell's global index names the same cell on every expansion of the
 * same file on the same machine (what --resume relies on). Every problem
 * is reported as "FILE:LINE: what is wrong" before any cell runs.
 *
 * A matrix runs a cell's repetitions as separate visits, interleaved:
 * pass p visits every cell that is due, in an order shuffled from the
 * seed (sweep/passes.h: the minimum repetitions first, then more for the
 * cells whose interval is still wide, within the time budget), and each
 * visit is one repetition in a fresh process with its own warm-up. A
 * cell's interval then covers the whole run, so load that comes and goes
 * on the machine (another user's job) widens the intervals that
 * `futexlab compare` judges by, instead of shifting one run against the
 * next; and per-process effects (memory layout) are sampled too.
 */
#ifndef FUTEXLAB_MATRIX_H
#define FUTEXLAB_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

#define FL_MATRIX_MAX_EXPS 64
/* The longest line a matrix file may have (a comment after a long list
 * included), and the longest value of a key; both named in their
 * errors. */
#define FL_MATRIX_MAX_LINE 4096
#define FL_MATRIX_MAX_VALUE 255

struct fl_matrix_entry {		/* one key = value line, as written */
	char section[80];
	char key[64];
	char value[FL_MATRIX_MAX_VALUE + 1];
	int line;
};

struct fl_matrix_exp {
	char name[64];
	int line;			/* its [experiment NAME] line */
	struct fl_spec spec;
	unsigned long first_cell;	/* global index of its first cell */
	unsigned long ncells;
	struct fl_matrix_visit *visits;	/* in run order */
	unsigned long nvisits;
};

struct fl_matrix_visit {
	unsigned long cell;		/* global cell index */
	unsigned int rep;		/* which repetition of it */
};

struct fl_matrix {
	char name[256];			/* the file name in messages */
	char *text;			/* the file's bytes, for the copy */
	size_t len;
	uint64_t hash;			/* FNV-1a 64 of text */
	struct fl_matrix_entry *entries;
	unsigned int nentries;
	struct fl_matrix_exp exps[FL_MATRIX_MAX_EXPS];
	unsigned int nexps;
	unsigned long ncells;
	struct fl_matrix_visit *visits;	/* in run order */
	unsigned long nvisits;
	unsigned int *planned;		/* per cell: its visits so far */
};

/*
 * Parse text (len bytes) under the file name `name`. Returns 0, or -1 with
 * "NAME:LINE: what is wrong" in err. m is filled either way and must be
 * freed with fl_matrix_free().
 */
int fl_matrix_parse(const char *name, const char *text, size_t len,
		    struct fl_matrix *m, char *err, size_t errlen);
/* The same for the machine t describes (its CPUs, nodes and packages
 * are what the thread lists stand for), or this one when t is NULL: a
 * plan for another machine (`matrix --estimate --topology`). */
struct fl_topology;
int fl_matrix_parse_for(const char *name, const char *text, size_t len,
			const struct fl_topology *t, struct fl_matrix *m,
			char *err, size_t errlen);
/* The one-experiment matrix of a specification (`futexlab run`'s flags):
 * its cells are s's; 0, or -1 when out of memory. */
int fl_matrix_of_spec(struct fl_matrix *m, const struct fl_spec *s);
/* Read and parse a file; as above, and "FILE: cannot read" on I/O errors. */
int fl_matrix_load(const char *path, struct fl_matrix *m, char *err,
		   size_t errlen);
/* The same for dirfd/name (a run directory's matrix.ini: a regular file,
 * no link followed), shown as `shown` in messages. */
int fl_matrix_load_at(int dirfd, const char *name, const char *shown,
		      struct fl_matrix *m, char *err, size_t errlen);
/* fl_matrix_load() for the machine t describes (fl_matrix_parse_for). */
int fl_matrix_load_for(const char *path, const struct fl_topology *t,
		       struct fl_matrix *m, char *err, size_t errlen);
void fl_matrix_free(struct fl_matrix *m);

/* Cell i (global index) of the matrix, and its experiment; 0 or -1. */
int fl_matrix_cell(const struct fl_matrix *m, unsigned long i,
		   struct fl_cell *cell, const struct fl_matrix_exp **exp,
		   char *err, size_t errlen);

/* Append n visits, one per listed cell, each the next repetition of its
 * cell; 0, or -1 when out of memory or a cell is not the matrix's. */
int fl_matrix_add_visits(struct fl_matrix *m, const unsigned long *cells,
			 unsigned long n);

/* Visit k: its cell with reps = 1 and the seed moved on by the rep, so
 * repetitions do not replay one random sequence. 0, or -1 with err. */
int fl_matrix_visit_cell(const struct fl_matrix *m, unsigned long k,
			 struct fl_cell *cell,
			 const struct fl_matrix_exp **exp, char *err,
			 size_t errlen);

/*
 * What differs between the matrix a partial run started with and the one
 * given now, in words ("[experiment x] threads: '1,2' is now '1,2,4'");
 * 0 when they define the same experiments (comments and layout may
 * differ), 1 with the first few differences in what.
 */
int fl_matrix_diff(const struct fl_matrix *before,
		   const struct fl_matrix *now, char *what, size_t len);

#endif
