/* SPDX-License-Identifier: GPL-2.0 */
/* What the compare files share and nothing else needs. */
#ifndef FUTEXLAB_COMPARE_INTERNAL_H
#define FUTEXLAB_COMPARE_INTERNAL_H

#include <stdio.h>

#include "compare/compare.h"
#include "rundir/read.h"
#include "stats/covary.h"
#include "stats/drift.h"

/* a group of cells is adjusted for the machine's state when its figures
 * follow what the repetitions measured of it (FL_ADJUST_ALPHA,
 * stats/covary.h) and both runs measured it for at least this share of
 * its repetitions (adjust.c) */
#define FL_ADJUST_PROBED	0.9
/* the idle-wake probe's two idle lengths and the busy loop's speed */
#define FL_ADJUST_COVARIATES	3

struct cmp_cell {
	const struct fl_rd_cell *a, *b;	/* NULL: absent from that run */
	struct fl_shift s;		/* B/A of the primary figure */
	double p_adjusted;		/* Benjamini-Hochberg, over the cells */
	enum fl_verdict v;
	double widened;			/* log: interval widened for drift */
	int widened_busy;		/* ... for a busy host (p->busy_widen) */
	int cost;			/* of the CPU time per operation
					 * (cost.c), not the primary figure */
};

/* A workload's drift over the time of each run (drift.c). */
struct cmp_drift {
	char workload[64];
	struct fl_drift a, b;
	double widen;			/* log: 0, or the larger drifted
					 * spread */
};

/* The figures of a workload's cells on one backend against what each
 * repetition measured of the machine (adjust.c). */
struct cmp_adjust {
	char workload[64], backend[64];
	int probe;			/* the covariate (adjust.c): 0, 1 the
					 * idle-wake probe after a short, a
					 * long idle; 2 the busy loop's speed;
					 * -1: the group is not adjusted */
	struct fl_covary cv;		/* figure against that covariate */
	double ref;			/* log: the runs' common median */
	double med[2];			/* A's median covariate, B's */
};

struct cmp_pair {
	const struct fl_rd_run *a, *b;
	struct cmp_cell *cells;
	unsigned long n;
	unsigned int count[FL_NVERDICTS];
	double delta;
	int use_adjust;			/* fl_compare_opts' adjust */
	struct cmp_drift *drift;
	unsigned int ndrift;
	double busy_widen;		/* log: for a busy host, every cell */
	struct cmp_adjust *adjust;
	unsigned int nadjust;
	double **vals_a, **vals_b;	/* per cell of run A (B): its primary
					 * values adjusted, or NULL */
	const struct fl_say *say;	/* fl_compare_opts' say */
	/* the cost verdicts (cost.c): a cell each, as cells */
	struct cmp_cell *cost;
	unsigned long ncost;		/* cells both runs counted */
	unsigned int cost_count[FL_NVERDICTS];
	/* contaminated repetitions of A and of B, of those judged */
	unsigned int contaminated[2], judged[2];
};

struct cmp_outputs {
	FILE *csv, *md;
};

/* compare.c: dir created if missing, compare.csv and compare.md opened
 * in it to write; 0, or -1 with err (a file that opened stays in o, for
 * the caller to close). */
int cmp_open_outputs(const char *dir, struct cmp_outputs *o, char *err,
		     size_t errlen);
/* match.c: 0 when no two cells of r have the same full setup; -1 with
 * err naming both otherwise (cells match on their setup, so two alike
 * could not be told apart: refused, as docs/matrix.md says). */
int cmp_unique_setups(const struct fl_rd_run *r, char *err, size_t errlen);
/* match.c: the pair's cells, A's in order, then B's own; 0 or -1. */
int cmp_match(struct cmp_pair *p);
/* match.c: warn (to say, and md when not NULL) where the setups differ;
 * the count of warnings. */
int cmp_setup_warnings(const struct fl_rd_run *a, const struct fl_rd_run *b,
		       const struct fl_say *say, FILE *md);
/* match.c: where the settings of a and b differ, "sample_every 512
 * against 64, ...", or "" */
void cmp_settings_diff(const struct fl_rd_run *a, const struct fl_rd_run *b,
		       char *buf, size_t len);
/* adjust.c: each workload's figures, a backend at a time, set against
 * the idle-wake probe and the busy loop's speed, and adjusted where they
 * follow one, said to p->say (and md when not NULL); 0 or -1 (no
 * memory). Before cmp_drift, which sees the adjusted values. */
int cmp_adjust(struct cmp_pair *p, FILE *md);
/* adjust.c: the values a cell of either run is compared by: its primary
 * figure's, adjusted or not */
const double *cmp_values(const struct cmp_pair *p,
			 const struct fl_rd_cell *c);
/* adjust.c: the adjustment of the workload's cells on the backend (NULL:
 * on any backend), or NULL when they have none */
const struct cmp_adjust *cmp_adjust_of(const struct cmp_pair *p,
				       const char *workload,
				       const char *backend);
void cmp_adjust_free(struct cmp_pair *p);
/* drift.c: each workload's drift in either run, and a busy host's spread
 * of CPU speeds, warned about (p->say, and md when not NULL); 0 or -1
 * (no memory). */
int cmp_drift(struct cmp_pair *p, FILE *md);
/* drift.c: how much (log) the workload's intervals widen; -1: unknown
 * workload. */
double cmp_widen_of(const struct cmp_pair *p, const char *workload);
/* decide.c: for an inconclusive cell, what would decide it ("needs
 * about 12 repetitions a side", or that no number of them can); "" for
 * any other */
void cmp_what_decides(const struct cmp_pair *p, const struct cmp_cell *c,
		      char *buf, size_t len);
/* cost.c: every cell's cost shift, adjusted p and verdict into
 * p->cost, and each run's contaminated repetitions; 0 or -1 (no
 * memory). */
int cmp_judge_cost(struct cmp_pair *p);
/* output.c: what a verdict is about: "CPU ns/op", "p50 latency" or
 * "throughput" */
const char *cmp_figure_name(const struct cmp_cell *c);
/* verdict.c: the p-value of each of the n cells that has a shift
 * interval (s.ok) adjusted by Benjamini-Hochberg over them; the others'
 * stay as they are */
void cmp_bh_cells(struct cmp_cell *cells, unsigned long n);
/* verdict.c: every cell's shift, adjusted p and verdict. */
void cmp_judge(struct cmp_pair *p);
/*
 * refuse.c: what compare refuses before it writes, each 0 or -1 with err:
 * a run given twice among runs (dirs as given; side: "A", "B" or NULL
 * for runs compared one against another), or on both sides; an output
 * folder inside a run (given: named by --out); a setting no cell of
 * runs has; and runs a and b (named na, nb) with no cell in common,
 * naming the option their cells differ by alone, if one is, unless
 * ignore (the setting already left out) is set.
 */
int cmp_refuse_twice(const struct fl_rd_run *runs, char *const *dirs,
		     unsigned int n, const char *side, char *err,
		     size_t errlen);
int cmp_refuse_both_sides(const struct fl_rd_run *a, char *const *da,
			  unsigned int na, const struct fl_rd_run *b,
			  char *const *db, unsigned int nb, char *err,
			  size_t errlen);
int cmp_refuse_out_inside(const struct fl_rd_run *runs, char *const *dirs,
			  unsigned int n, const char *outdir, int given,
			  char *err, size_t errlen);
int cmp_refuse_setting(const struct fl_rd_run *runs, unsigned int n,
		       const char *setting, char *err, size_t errlen);
int cmp_refuse_apart(const struct fl_rd_run *a, const char *na,
		     const struct fl_rd_run *b, const char *nb,
		     const char *ignore, char *err, size_t errlen);
/* output.c */
void cmp_csv_header(FILE *f);
void cmp_write_pair(const struct cmp_pair *p, FILE *out, FILE *csv,
		    FILE *md);
/* what the table's B/A is, said above it: not B's column over A's */
#define CMP_LEGEND_REPS "B/A: the Hodges-Lehmann estimate, the median " \
	"of B over A across every pair of their repetitions (so not column " \
	"B over column A, each run's median), with its 95% interval"
#define CMP_LEGEND_RUNS "B/A: the Hodges-Lehmann estimate, the median " \
	"of B over A across every pair of their runs' medians (so not " \
	"column B over column A, the median of each side's runs), with its " \
	"95% interval"

/* output.c: each cell of the pair as a run has it (A's, else B's), to
 * label them by; NULL when out of memory (free() it) */
const struct fl_rd_cell **cmp_pair_cells(const struct cmp_pair *p);
/* label.c: cell c's label among the n cells all: workload, backend,
 * threads, then the placement and the options (name=value) that the
 * cells of its workload differ in */
void cmp_label(const struct fl_rd_cell *c,
	       const struct fl_rd_cell *const *all, unsigned long n,
	       char *buf, size_t len);
/* label.c: what goes above a table: per workload, what every one of its
 * cells shares (placement, options), then the legend, one line each on
 * out ("  ") and md ("- ") */
void cmp_preamble(const struct fl_rd_cell *const *all, unsigned long n,
		  const char *legend, FILE *out, FILE *md);
/* plot.c: a ratio plot's size (px per cell, at least 1100, at most
 * 4000 wide; height, grown with the room the longest x tic label, of
 * `longest` characters, needs), title and axes: log y about 1, one x tic
 * per cell */
#define CMP_PX_PER_LINE	16
struct fl_gp;
void cmp_plot_frame(struct fl_gp *g, const char *title, const char *ylabel,
		    const char *xlabel, unsigned long per, int px, int height,
		    size_t longest);
/* plot.c: ratios.{gp,png,svg}, gnuplot's warnings to say; 1 drawn, 0
 * nothing to draw, -1 err */
int cmp_ratio_plot(const char *dir, const struct cmp_pair *pairs,
		   unsigned int npairs, const struct fl_say *say, char *err,
		   size_t errlen);

#endif
