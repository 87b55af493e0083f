// SPDX-License-Identifier: GPL-2.0
/*
 * The plots of one run directory (see plot.h). Everything comes from the
 * directory: rows from cells.csv through run_dir_read, units from
 * meta.json, distributions from hist/. A line ("series") is one backend,
 * plus the placement and the workload options that take more than one
 * value among the workload's cells, so a matrix that sweeps algo= gets a
 * line per backend and algorithm, and one that does not stays uncluttered.
 *
 * This file walks the workloads and picks their plots; the plots are in
 * threads.c, cdf.c and special.c (the workload's own plots, as the run
 * describes them: a workload this futexlab lacks is drawn all the same).
 */
#include "plot/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot/internal.h"

/* Did the run count the CPU time of any of the workload's cells? */
static int plot_counted(const struct wl *w)
{
	for (unsigned int i = 0; i < w->n; i++)
		if (w->cells[i]->cost.ncpu)
			return 1;
	return 0;
}

static int plot_workload(const struct fl_rd_run *r, const char *name,
			 const struct fl_gp_dir *dir, const struct fl_plot_opts *o,
			 FILE *log, char *err, size_t errlen)
{
	static const struct panel thr[] = {
		{ F_OPS, NULL, "throughput", NULL },
	};
	static const struct panel lat[] = {
		{ F_P50, NULL, "p50 (median)", NULL },
		{ F_P99, NULL, "p99", NULL },
		{ F_P999, NULL, "p99.9", NULL },
	};
	static const struct panel fair[] = {
		{ F_JAIN, NULL, "fairness", NULL },
	};
	static const struct panel cost[] = {
		{ F_OPS, NULL, "throughput", NULL },
		{ F_COST, NULL, "CPU time per operation", "CPU time per op" },
	};
	struct wl w;
	int n = 0, rc;

	plot_wl_init(&w, r, name);
	if (!w.cells) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!w.n) {
		if (log)
			fprintf(log, "%s: no cell ran ok; no plots\n", name);
		plot_wl_free(&w);
		return 0;
	}
	rc = plot_vs_threads(r, &w, dir, "throughput", "throughput against "
			     "threads (median, bars: its 95% interval; "
			     "none below 6 repetitions)", thr, 1, o, log, err, errlen);
	if (rc >= 0) {
		n += rc;
		char what[256];

		snprintf(what, sizeof(what), "%s, percentiles against threads "
			 "(every repetition's samples, as the tables give "
			 "them; bars: 95%% interval)",
			 fl_rd_latency_what(r, name));
		rc = plot_vs_threads(r, &w, dir, "latency", what, lat, 3, o,
				     log, err, errlen);
	}
	if (rc >= 0) {
		n += rc;
		rc = plot_cdf(r, &w, dir, o, log, err, errlen);
	}
	if (rc >= 0 && !fl_rd_has_fairness(r, name)) {
		n += rc;
		rc = 0;		/* one thread counts the rounds: no fairness */
	} else if (rc >= 0) {
		n += rc;
		rc = plot_vs_threads(r, &w, dir, "fairness", "fairness across "
				     "threads (Jain's index of per-thread ops)",
				     fair, 1, o, log, err, errlen);
	}
	if (rc >= 0 && plot_counted(&w)) {
		n += rc;
		rc = plot_vs_threads(r, &w, dir, "cost", "CPU time per "
				     "operation beside throughput (median, "
				     "bars: its 95% interval; the kernel's "
				     "count of the threads' CPU time)", cost,
				     2, o, log, err, errlen);
	}
	/* plots of the workload's own, as the run describes them */
	static struct fl_rd_plots own;

	fl_rd_plots(r, name, &own);
	if (own.from == FL_RD_PLOTS_NEWER && log)
		fprintf(log, "%s: its own plots are described in a format "
			"this futexlab does not know (plots version %lld): "
			"generic plots only\n", name, own.version);
	for (unsigned int i = 0; rc >= 0 && i < own.n; i++) {
		n += rc;
		rc = plot_special(r, &w, &own.special[i], dir, o, log, err,
				  errlen);
	}
	plot_wl_free(&w);
	return rc < 0 ? -1 : n + rc;
}

/* The timelines of the cells o->timeline_cells lists (fl_plot_check()
 * found each): the number drawn, or -1 with err. */
static int plot_timelines(const struct fl_rd_run *r,
			  const struct fl_gp_dir *outdir,
			  const struct fl_plot_opts *o, FILE *log, char *err,
			  size_t errlen)
{
	int total = 0;

	for (const char *p = o->timeline_cells; p && *p;
	     p += strcspn(p, ","), p += *p == ',') {
		unsigned long idx = strtoul(p, NULL, 10);
		const struct fl_rd_cell *c = NULL;

		for (unsigned long i = 0; i < r->ncells && !c; i++)
			if (r->cells[i].index == idx)
				c = &r->cells[i];
		int n = c ? plot_timeline(r, c, outdir, o, log, err, errlen) :
			0;

		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/*
 * The output directory, opened: RUN/plots through the run's descriptor,
 * never through a symbolic link, or the --out directory given.
 */
int plot_open_out(const struct fl_rd_run *r, const char *outdir,
		  struct fl_gp_dir *d, char *err, size_t errlen)
{
	int at = outdir ? AT_FDCWD : r->dirfd;
	const char *name = outdir ? outdir : "plots";

	if (outdir)
		snprintf(d->path, sizeof(d->path), "%s", outdir);
	else
		snprintf(d->path, sizeof(d->path), "%s/plots", r->dir);
	if (mkdirat(at, name, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", d->path,
			 strerror(errno));
		return -1;
	}
	d->fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		       (outdir ? 0 : O_NOFOLLOW));
	if (d->fd < 0) {
		snprintf(err, errlen, "cannot write in %s: %s", d->path,
			 errno == ELOOP || errno == ENOTDIR ?
			 "not a directory (a symbolic link is refused)" :
			 strerror(errno));
		return -1;
	}
	return 0;
}

int fl_plot_run(const struct fl_rd_run *r, const char *outdir,
		const struct fl_plot_opts *o, FILE *log, char *err,
		size_t errlen)
{
	struct fl_gp_dir out;
	int total = 0;

	if (plot_open_out(r, outdir, &out, err, errlen))
		return -1;
	for (unsigned long i = 0; i < r->ncells; i++) {
		if (fl_rd_first_of(r, r->cells[i].workload) != &r->cells[i])
			continue;	/* plotted with its first cell */
		int n = plot_workload(r, r->cells[i].workload, &out, o, log,
				      err, errlen);

		if (n < 0) {
			total = -1;
			break;
		}
		total += n;
	}
	if (total >= 0) {
		int n = plot_timelines(r, &out, o, log, err, errlen);

		total = n < 0 ? -1 : total + n;
	}
	close(out.fd);
	return total;
}
