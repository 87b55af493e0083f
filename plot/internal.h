/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the plot files share and nothing else needs: a workload's ok cells
 * and their series (series.c), the axis and finishing helpers (axes.c,
 * time_axis.c), and the plots themselves (threads.c, cdf.c, special.c,
 * timeline.c) that run_plots.c calls.
 */
#ifndef FUTEXLAB_PLOT_INTERNAL_H
#define FUTEXLAB_PLOT_INTERNAL_H

#include <stdio.h>

#include "plot/gp.h"
#include "plot/plot.h"
#include "stats/figures.h"

#define MAX_SERIES 48
#define MAX_X 64
#define MAX_VARY 8

/* A cell's latency percentiles as the tables print them: of the
 * histogram merged over its repetitions (stats/percentile.h), withheld
 * (enough 0) where too few samples lie beyond. */
struct plot_pcts {
	struct fl_rd_fig fig[FL_NPCT];
	int enough[FL_NPCT];
	int read;			/* 0: no histogram could be read */
};

struct wl {
	const char *name;
	const struct fl_rd_cell **cells;	/* the ok ones */
	struct plot_pcts *pcts;			/* each one's percentiles */
	unsigned int n;
	unsigned int threads[MAX_X];		/* sorted */
	unsigned int nthreads;
	char vary[MAX_VARY][48];		/* options with >1 value */
	unsigned int nvary;
	int vary_placement;
};

/* the figures a panel draws: the columns of cells.csv they are, shorter */
enum fig {
	F_OPS = FL_COL_OPS_PER_SEC, F_P50 = FL_COL_P50, F_P99 = FL_COL_P99,
	F_P999 = FL_COL_P999, F_JAIN = FL_COL_JAIN, F_EXTRA = FL_COL_EXTRA,
	F_COST = FL_NCOLS,	/* CPU ns per operation (stats/cost.h) */
};

struct panel {
	enum fig fig;
	const char *extra;		/* F_EXTRA: the counter's name */
	const char *title;
	const char *ylabel;
};

/* series.c: the workload's ok cells, their percentiles, thread counts
 * and the options that vary; w->cells is NULL when out of memory (free
 * with plot_wl_free) */
void plot_wl_init(struct wl *w, const struct fl_rd_run *r, const char *name);
void plot_wl_free(struct wl *w);
/* A cell's series label (backend, then what varies), without skip. */
void plot_label_of(const struct wl *w, const struct fl_rd_cell *c,
		   const char *skip, char *buf, size_t len);
unsigned int plot_series_of(const struct wl *w, const char *skip,
			    char labels[][256]);
/* Panel p's figure of cell c (one of w's): a latency percentile the
 * tables' way (p50 of a round workload is its primary figure, the
 * median of its repetitions); NULL where there is none or the tables
 * withhold it. */
const struct fl_rd_fig *plot_fig_of(const struct wl *w,
				    const struct fl_rd_cell *c,
				    const struct panel *p);
/* Is there a cell of the series `label` at `threads`? */
int plot_has_cell(const struct wl *w, const char *label,
		  unsigned int threads);
const struct fl_rd_fig *plot_fig_at(const struct wl *w, const char *label,
				    unsigned int threads,
				    const struct panel *p);

/* axes.c: the settings every plot shares; a time figure's label is its
 * quantity alone (plot_time_axis adds the unit) */
int plot_logx(const struct wl *w);
void plot_set_xaxis(FILE *f, const struct wl *w);
int plot_wants_logy(const double *v, unsigned int n);
void plot_ylabel_of(const struct fl_rd_run *r, const struct wl *w,
		    const struct panel *p, char *buf, size_t len);
/* A panel's y axis: label, tics and number format; a time's in the unit
 * its range [lo, hi] reads in. What the plot divides its values by. */
double plot_set_yaxis(FILE *f, const struct panel *p, const char *label,
		      double lo, double hi, int logscale);
/* A panel with nothing to draw (every figure withheld), as an empty
 * frame labelled quantity that says so: gnuplot cannot plot a series
 * without points. */
void plot_empty_panel(FILE *f, const char *quantity);
/* time_axis.c: time axes in ns, us, ms or s by their range */
struct plot_unit {
	const char *name;
	double ns;			/* how many ns one is */
};

/* The largest unit that ns is at least one of (ns below 1 us). */
const struct plot_unit *plot_time_unit(double ns);
/* Is the panel's figure a time in ns (a latency percentile, a counter
 * whose name ends in _ns)? */
int plot_is_time(const struct panel *p);
/* Widen [*lo, *hi] to take in a figure's positive values (its median and
 * interval), from *lo INFINITY and *hi 0. */
void plot_widen(double *lo, double *hi, const struct fl_rd_fig *f);
/* Column col of a data block divided by div, as a term of `using`:
 * "2", or "($2/1e+06)". */
void plot_scaled(char *buf, size_t len, unsigned int col, double div);
/* An axis ('x' or 'y') of times from lo to hi ns, labelled quantity: its
 * tics, number format and label. What the plot divides its ns by: the
 * unit of a linear axis, 1 on a logarithmic one (its tics carry theirs). */
double plot_time_axis(FILE *f, char axis, const char *quantity, double lo,
		      double hi, int logscale);
/* The directory plots go to: outdir, or RUN/plots (never a link);
 * 0, or -1 with err. */
int plot_open_out(const struct fl_rd_run *r, const char *outdir,
		  struct fl_gp_dir *d, char *err, size_t errlen);
/* Close the script and render it; 1 (one plot), or -1 with err. */
int plot_finish(struct fl_gp *g, const struct fl_plot_opts *o, FILE *log,
		char *err, size_t errlen);

/* The plots: 1 when written, 0 when there was nothing to plot, -1. */
int plot_vs_threads(const struct fl_rd_run *r, const struct wl *w,
		    const struct fl_gp_dir *dir, const char *kind, const char *what,
		    const struct panel *pn, unsigned int np,
		    const struct fl_plot_opts *o, FILE *log, char *err,
		    size_t errlen);
int plot_cdf(const struct fl_rd_run *r, const struct wl *w, const struct fl_gp_dir *dir,
	     const struct fl_plot_opts *o, FILE *log, char *err,
	     size_t errlen);
/* one cell's throughput over time, from its bins (plot --timeline) */
int plot_timeline(const struct fl_rd_run *r, const struct fl_rd_cell *c,
		  const struct fl_gp_dir *dir, const struct fl_plot_opts *o,
		  FILE *log, char *err, size_t errlen);
/* a workload's own plot, as the run describes it (rundir/read.h) */
int plot_special(const struct fl_rd_run *r, const struct wl *w,
		 const struct fl_rd_special *sp, const struct fl_gp_dir *dir,
		 const struct fl_plot_opts *o, FILE *log, char *err,
		 size_t errlen);

#endif
