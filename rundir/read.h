/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a run directory back: meta.json and cells.csv, grouped into
 * cells with their figures across repetitions (median, min, max, and
 * the primary figure's interval),
 * and each cell's merged histogram on demand. `plot`, `report` and
 * `compare` read runs only through this, so they need nothing but the
 * directory (not the binary's registry, not the machine that ran it).
 * Columns are found by their header names, so rows from a later futexlab
 * with more columns still read.
 *
 * A run directory is untrusted input (it comes back from guests, lab
 * machines and colleagues): only regular files are read, relative to the
 * directory's descriptor and never through a symbolic link; every field
 * is checked on read (names that may become file names against a strict
 * character set, numbers finite and non-negative), meta.json must parse
 * with each member a reader reads of its type (read_meta.c) and its
 * counts of the cells those of cells.csv (read_times.c), and every
 * histogram must be the writer's (hist_file.h); the first problem is an
 * error naming FILE:LINE:COLUMN (read_cells.c) or the member's path.
 */
#ifndef FUTEXLAB_RUNDIR_READ_H
#define FUTEXLAB_RUNDIR_READ_H

#include <jansson.h>
#include <limits.h>

#include "base/hist.h"
#include "base/machine.h"
#include "base/result.h"
#include "rundir/columns.h"
#include "rundir/hist_file.h"
#include "stats/cost.h"
#include "stats/stats.h"

#define FL_RD_MAX_REPS		100
#define FL_RD_MAX_EXTRA		16

/* A figure across the cell's ok repetitions. */
/*
 * A figure over a cell's repetitions: the median and its distribution-free
 * 95% interval (stats/stats.h); below six repetitions there is none and
 * lo = hi = med (has_ci 0), never a range passed off as an interval.
 */
struct fl_rd_fig {
	double med, lo, hi;
	int has_ci;
};

struct fl_rd_cell {
	unsigned long index;		/* the row's cell column */
	char workload[64];
	char backend[64];
	unsigned int threads;
	char placement[64];
	char options[512];
	char key[800];			/* workload|backend|threads|... */
	char setup_key[900];		/* key|duration_ns|sample_every: the
					 * full setup compare matches on */
	char status[16];		/* worst of the rows: ok < failed <
					 * skipped < aborted, as cell.h */
	char reason[256];
	char note[256];
	char hist[128];			/* relative to the run */
	unsigned int nrows, nok;
	double ops[FL_RD_MAX_REPS];	/* ops/s of the ok repetitions */
	unsigned int ok_rep[FL_RD_MAX_REPS];	/* their rep column */
	/* their busy loop's speed before and after (loops/us); NaN where
	 * the run has no such columns or the value is not a speed (the
	 * numbers, not the note's words, are what is read) */
	double busy[FL_RD_MAX_REPS][2];
	/* the idle-wake probe before each (ns; measure/idle_wake.h): the
	 * short and the long idle; NaN where the run has no such columns,
	 * the probe failed (0) or was not made (empty: a campaign's visit
	 * after its cell's first) */
	double idle_wake[FL_RD_MAX_REPS][2];
	/* when each ok repetition started, seconds since the epoch, from
	 * meta.json's cells_reps (read_times.c); NaN where it does not say */
	double t_start[FL_RD_MAX_REPS];
	double lat_p50[FL_RD_MAX_REPS];	/* their p50 latency (ns) */
	/* every row's operations, by its rep column (UINT64_MAX where the
	 * run has no ops column): what its bins must add up to */
	uint64_t rep_ops[FL_RD_MAX_REPS];
	/* the kernel's counts of each ok repetition, in ops[]'s order
	 * (have 0 where the run has no such columns) */
	struct fl_rep_counts counts[FL_RD_MAX_REPS];
	unsigned int ncontaminated;	/* ok repetitions marked contaminated */
	uint64_t duration_ns;		/* of a repetition */
	struct fl_rd_fig ops_per_sec, p50, p90, p99, p999, jain;
	/* the primary figure (meta.json's workloads.W.primary): ops/s, or
	 * for a round workload the p50 latency, lower being better */
	const double *primary;		/* ops or lat_p50 */
	int lower_is_better;
	struct fl_ci ci;		/* its median and 95% interval */
	int noisy;			/* ci wider than FL_NOISY_HALFWIDTH */
	/* the cost of an operation from counts[] (stats/cost.h): none
	 * counted where the run has no counter columns */
	struct fl_cost cost;
	struct fl_rd_fig cpu_per_op;	/* its CPU ns per operation, as the
					 * plots draw a figure */
	unsigned int nextra;
	char extra_name[FL_RD_MAX_EXTRA][48];
	struct fl_rd_fig extra[FL_RD_MAX_EXTRA];
};

struct fl_rd_run {
	char dir[PATH_MAX];
	int dirfd;			/* the directory, open while r is */
	char name[256];			/* the directory's base name */
	json_t *meta;			/* NULL: meta.json unreadable */
	struct fl_rd_cell *cells;	/* in index order */
	unsigned long ncells;
	char *cells_text;		/* cells.csv as read and checked, */
	size_t cells_len;		/* for a merge to copy its rows */
};

/* 0, or -1 with a message naming the file and line in err. */
int fl_rd_open(const char *dir, struct fl_rd_run *r, char *err,
	       size_t errlen);
void fl_rd_close(struct fl_rd_run *r);

/*
 * The parts of fl_rd_open() that read bytes, for tests and fuzzing: file
 * is the name messages give. cells.csv's text (modified in place) into
 * r->cells; meta.json's into r->meta (a histogram file's into h:
 * fl_rd_parse_hist(), hist_file.h). Each 0, or -1 with err.
 */
int fl_rd_parse_cells(struct fl_rd_run *r, const char *file, char *text,
		      size_t len, char *err, size_t errlen);
int fl_rd_parse_meta(struct fl_rd_run *r, const char *file, const char *text,
		     size_t len, char *err, size_t errlen);

/*
 * The same parse of cells.csv, handing each row on to fn (when not NULL)
 * once it passed every check, so a resume and the finalizing of a matrix
 * read the file with the readers' strictness. fn returns 0 to go on, or
 * -1 with err to stop the parse. flags: FL_RD_TORN_OK drops a torn last
 * line (a partial run killed while it wrote a row) instead of refusing
 * it, its line number in *torn_line (0: none).
 */
#define FL_RD_TORN_OK	1

struct fl_rd_row {
	const char *file;
	int line;
	unsigned long cell;		/* the cell column */
	unsigned int rep;		/* the rep column */
	char *const *field;		/* every field, in the header's order */
	const int *col;			/* field of each enum fl_col, or -1 */
	const char *text;		/* the line as it was, with its '\n' */
	size_t text_len;
};

typedef int (*fl_rd_row_fn)(void *ctx, const struct fl_rd_row *row,
			    char *err, size_t errlen);

int fl_rd_scan_cells(struct fl_rd_run *r, const char *file, char *text,
		     size_t len, int flags, int *torn_line, fl_rd_row_fn fn,
		     void *ctx, char *err, size_t errlen);
/* A field of a row handed on, by its column; "" where the run has none. */
const char *fl_rd_row_field(const struct fl_rd_row *row, enum fl_col c);
/* Is the row's histogram hist/cell-<i>.csv? */
int fl_rd_row_hist_is(const struct fl_rd_row *row, unsigned long i);

/* "YYYY-MM-DDTHH:MM:SS[.mmm]Z" as seconds since the epoch into *t: 0,
 * or -1 for anything else (read_times.c). */
int fl_rd_utc_seconds(const char *s, double *t);
/* Check the members of meta.json the readers read, each against its
 * type (fl_rd_parse_meta does): 0, or -1 with err naming file and the
 * member's path (read_meta.c). */
int fl_rd_check_meta(json_t *meta, const char *file, char *err,
		     size_t errlen);
/* Hold cells.csv's rows to what meta.json counts of them (cells, by
 * status; cells_reps, per cell): 0, or -1 with err naming the member
 * (fl_rd_open does; read_times.c). */
int fl_rd_check_counts(const struct fl_rd_run *r, const char *file,
		       char *err, size_t errlen);

/* Fill every cell's t_start from meta.json (fl_rd_open does). A run
 * without the times, or with one that does not parse, keeps NaN there:
 * the times only serve the drift check, which then says it has none. */
void fl_rd_rep_times(struct fl_rd_run *r);
/* The workload's drift over the time of the run, from its ok cells'
 * primary figures and their times (stats/drift.h), or where vals is not
 * NULL and has an array for the cell (indexed as r->cells), those
 * values instead (compare's adjusted ones); 0, or -1 (d->ok = 0: too few
 * timed repetitions, d->n of them). */
struct fl_drift;
int fl_rd_drift(const struct fl_rd_run *r, const char *workload,
		double *const *vals, struct fl_drift *d);

/* A string from meta.json by a dotted path ("machine.kernel"); "?" when
 * absent. Numbers come back formatted. */
const char *fl_rd_meta(const struct fl_rd_run *r, const char *path,
		       char *buf, size_t len);
/* The node of meta.json at a dotted path, or NULL (borrowed). */
json_t *fl_rd_meta_json(const struct fl_rd_run *r, const char *path);
/* The share of all CPU time that other processes used during the run
 * (matrix runs record it); 0, or -1 when meta.json does not say. */
int fl_rd_foreign_share(const struct fl_rd_run *r, double *share);
/* A busy host: 1 when more than FL_BUSY_WARN of the run's ok repetitions
 * saw the busy loop's speed move by more than FL_BUSY_DRIFT_MAX between
 * the calibrations before and after them (the rule cell.c notes a
 * repetition by), else 0; *drifted of *reps out. */
int fl_rd_busy_host(const struct fl_rd_run *r, unsigned long *drifted,
		    unsigned long *reps);
/* 0 when meta.json says the workload's fairness across threads means
 * nothing (one thread counts its rounds); 1 otherwise, and when unknown. */
int fl_rd_has_fairness(const struct fl_rd_run *r, const char *workload);
/* The workload's unit of work ("acquisitions") from meta.json, or "ops". */
const char *fl_rd_ops_unit(const struct fl_rd_run *r, const char *workload);
/* What its latency histogram holds, or "latency". */
const char *fl_rd_latency_what(const struct fl_rd_run *r,
			       const char *workload);
/* What its cells' thread count is where it is not the threads that
 * contend (app: "the program's own, ..."), or NULL: they are. */
const char *fl_rd_threads_are(const struct fl_rd_run *r,
			      const char *workload);
/* Which figure that latency is, where the cells' options choose (app:
 * wall time, or --metric's seconds), or NULL. */
const char *fl_rd_latency_is(const struct fl_rd_run *r, const char *workload);

/*
 * A workload's own plot beside the generic ones, as the run directory
 * describes it (meta.json's workloads.W.plots, results/README.md;
 * read_plots.c): a bar per series and value of option, at the largest
 * thread count, on one or two panels, and the report's caption for it.
 */
#define FL_RD_MAX_SPECIAL	4

struct fl_rd_panel {
	/* its figure: the column ops_per_sec, lat_p50_ns, lat_p99_ns,
	 * lat_p999_ns or jain, or extra for one of the counters */
	enum fl_col fig;
	char counter[64];		/* extra: the counter's name */
	char title[256];
	char ylabel[256];		/* the quantity without its unit, or
					 * "" for the figure's own */
};

struct fl_rd_special {
	char name[64];			/* the file: plots/<name>.png */
	char option[64];		/* a bar group per value of it */
	char title[256];
	char ylabel[256];		/* its time panels' quantity, or "" */
	char caption[256];		/* the report's words for it */
	unsigned int npanels;
	struct fl_rd_panel panels[2];
};

/* Where a workload's plots were learnt. */
enum fl_rd_plots_from {
	FL_RD_PLOTS_RUN,	/* meta.json describes them */
	FL_RD_PLOTS_REGISTRY,	/* an older run: this binary's description */
	FL_RD_PLOTS_NONE,	/* neither knows the workload: generic only */
	FL_RD_PLOTS_NEWER,	/* a version this futexlab cannot read (in
				 * version), of a run from a later futexlab
				 * (read_plots.c): generic only */
};

struct fl_rd_plots {
	enum fl_rd_plots_from from;
	long long version;
	unsigned int n;
	struct fl_rd_special special[FL_RD_MAX_SPECIAL];
};

/* The workload's own plots into p (none for a workload unknown both to
 * the run and to this futexlab: it is drawn with the generic ones). */
void fl_rd_plots(const struct fl_rd_run *r, const char *workload,
		 struct fl_rd_plots *p);
/* Check meta.json's descriptions of plots (fl_rd_parse_meta does): 0, or
 * -1 with err naming file and the member that is wrong. */
int fl_rd_check_plots(json_t *meta, const char *file, char *err,
		      size_t errlen);
/* Check meta.json's node distance table (fl_rd_parse_meta does): 0 when
 * it is absent or well formed, or -1 with err naming file and what is
 * wrong (read_distances.c). */
int fl_rd_check_distances(json_t *meta, const char *file, char *err,
			  size_t errlen);
/* The run's node distance table into d: 0, or -1 when meta.json has
 * none (a run from before futexlab recorded it: unknown). */
int fl_rd_distances(const struct fl_rd_run *r, struct fl_distances *d);
/* The cell's merged histogram (checked when the run was opened); 0 or -1
 * (its file changed since). */
int fl_rd_hist(const struct fl_rd_run *r, const struct fl_rd_cell *c,
	       struct fl_hist *h);
/* A counter of the extra column by name; NULL if the cell has none. */
const struct fl_rd_fig *fl_rd_extra(const struct fl_rd_cell *c,
				    const char *name);
/*
 * One pair of an options or extra column ("algo=pi;critical=100"). Name
 * and value point into the text and are not NUL-terminated (print them
 * with "%.*s"); value is NULL when the pair has no '='.
 */
struct fl_rd_pair {
	const char *name, *value;
	int name_len, value_len;
};

/* The pair at *p, moving *p past it and its ';'; 0, or -1 at the end. */
int fl_rd_next_pair(const char **p, struct fl_rd_pair *pair);
/* Does the pair have this name? */
int fl_rd_pair_is(const struct fl_rd_pair *pair, const char *name);
/* The value of option `name` in the cell's options; 0 or -1 if absent. */
int fl_rd_option(const struct fl_rd_cell *c, const char *name, char *val,
		 size_t len);
/* The cell with this full setup (setup_key), or NULL. */
const struct fl_rd_cell *fl_rd_find_setup(const struct fl_rd_run *r,
					  const char *setup_key);
/* The cell with this key, or NULL. */
const struct fl_rd_cell *fl_rd_find(const struct fl_rd_run *r,
				    const char *key);
/* The workload's first cell (in index order), or NULL if it has none:
 * loops over cells that do a thing once per workload ask it. */
const struct fl_rd_cell *fl_rd_first_of(const struct fl_rd_run *r,
					const char *workload);

/*
 * A repetition's throughput over time (bins/cell-<i>-rep-<r>.csv, from
 * rundir/read_bins.c): n bins, bin k ending end_ns[k] after the start
 * with ops[k] operations completed in it, adding up to the repetition's
 * ops in cells.csv. 0, -1 with err naming the file (and the line) and
 * what is wrong, or 1 when the run has no such file (an older run, a rep
 * that did not complete).
 */
#define FL_RD_MAX_BINS 2048

struct fl_rd_bins {
	unsigned long long bin_ns;
	unsigned int n;
	unsigned long long end_ns[FL_RD_MAX_BINS];
	unsigned long long ops[FL_RD_MAX_BINS];
};

int fl_rd_bins(const struct fl_rd_run *r, const struct fl_rd_cell *c,
	       unsigned int rep, struct fl_rd_bins *b, char *err,
	       size_t errlen);

#endif
