// SPDX-License-Identifier: GPL-2.0
/*
 * The plots of one run directory (see plot.h). Everything comes from the
 * directory: rows from cells.csv through run_dir_read, units from
 * meta.json, distributions from hist/. A line ("series") is one backend,
 * plus the placement and the workload options that take more than one
 * value among the workload's cells, so a matrix that sweeps algo= gets a
 * line per backend and algorithm, and one that does not stays uncluttered.
 */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gp.h"

#define MAX_SERIES 48
#define MAX_X 64
#define MAX_VARY 8

struct wl {
	const char *name;
	const struct fl_rd_cell **cells;	/* the ok ones */
	unsigned int n;
	unsigned int threads[MAX_X];		/* sorted */
	unsigned int nthreads;
	char vary[MAX_VARY][48];		/* options with >1 value */
	unsigned int nvary;
	int vary_placement;
};

enum fig { F_OPS, F_P50, F_P99, F_P999, F_JAIN, F_EXTRA };

struct panel {
	enum fig fig;
	const char *extra;		/* F_EXTRA: the counter's name */
	const char *title;
	const char *ylabel;
};

/*
 * The specialised plots: a bar per series and option value, at the
 * largest thread count. They appear when the workload's rows carry the
 * option, and are skipped quietly otherwise.
 */
static const struct special {
	const char *workload, *option, *name, *title, *ylabel;
	struct panel panels[2];
} specials[] = {
	{ "condvar", "wake", "condvar-wake",
	  "condvar: time until the last waiter holds the mutex, per wake "
	  "strategy", "time (ns)",
	  { { F_P50, NULL, "median of the rounds (p50)", NULL },
	    { F_P99, NULL, "p99 of the rounds", NULL } } },
	{ "pi", "lock", "pi-blocked",
	  "pi: high-priority thread's blocked time per lock type",
	  "blocked time (ns)",
	  { { F_P50, NULL, "p50", NULL }, { F_P99, NULL, "p99", NULL } } },
	{ "numa", "mem-node", "numa-locality",
	  "numa: local against remote futex memory", NULL,
	  { { F_OPS, NULL, "throughput", NULL },
	    { F_P99, NULL, "p99 latency", "latency (ns)" } } },
};

static const struct fl_rd_fig *fig_of(const struct fl_rd_cell *c,
				      const struct panel *p)
{
	switch (p->fig) {
	case F_OPS:
		return &c->ops_per_sec;
	case F_P50:
		return &c->p50;
	case F_P99:
		return &c->p99;
	case F_P999:
		return &c->p999;
	case F_JAIN:
		return &c->jain;
	case F_EXTRA:
		return fl_rd_extra(c, p->extra);
	}
	return NULL;
}

void fl_plot_subtitle(const struct fl_rd_run *r, char *buf, size_t len)
{
	char host[128], kernel[128], cpu[128], ncpu[32];

	fl_rd_meta(r, "machine.hostname", host, sizeof(host));
	fl_rd_meta(r, "machine.kernel", kernel, sizeof(kernel));
	fl_rd_meta(r, "machine.cpu_model", cpu, sizeof(cpu));
	fl_rd_meta(r, "machine.topology.cpus_online", ncpu, sizeof(ncpu));
	snprintf(buf, len, "run %s on %s: kernel %s, %s CPUs, %s", r->name,
		 host, kernel, ncpu, cpu);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The names of the options in "a=1;b=2", in order. */
static unsigned int option_names(const char *opts, char names[][48],
				 unsigned int max)
{
	struct fl_rd_pair o;
	unsigned int n = 0;

	for (const char *p = opts; n < max && fl_rd_next_pair(&p, &o) == 0;)
		snprintf(names[n++], 48, "%.*s", o.name_len, o.name);
	return n;
}

static void wl_init(struct wl *w, const struct fl_rd_run *r,
		    const char *name)
{
	char names[FL_RD_MAX_EXTRA][48];

	memset(w, 0, sizeof(*w));
	w->name = name;
	w->cells = calloc(r->ncells ? r->ncells : 1, sizeof(*w->cells));
	if (!w->cells)
		return;
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		unsigned int t;

		if (strcmp(c->workload, name) != 0 || !c->nok ||
		    strcmp(c->status, "ok") != 0)
			continue;
		w->cells[w->n++] = c;
		for (t = 0; t < w->nthreads; t++)
			if (w->threads[t] == c->threads)
				break;
		if (t == w->nthreads && w->nthreads < MAX_X)
			w->threads[w->nthreads++] = c->threads;
	}
	qsort(w->threads, w->nthreads, sizeof(w->threads[0]), cmp_uint);
	if (!w->n)
		return;
	unsigned int nn = option_names(w->cells[0]->options, names,
				       FL_RD_MAX_EXTRA);

	for (unsigned int o = 0; o < nn; o++) {
		char first[128], v[128];
		int have = 0, varies = 0;

		for (unsigned int i = 0; i < w->n && !varies; i++) {
			if (fl_rd_option(w->cells[i], names[o], v, sizeof(v)))
				continue;
			if (!have)
				snprintf(first, sizeof(first), "%s", v);
			else if (strcmp(first, v) != 0)
				varies = 1;
			have = 1;
		}
		if (varies && w->nvary < MAX_VARY)
			snprintf(w->vary[w->nvary++], 48, "%s", names[o]);
	}
	for (unsigned int i = 1; i < w->n; i++)
		if (strcmp(w->cells[i]->placement, w->cells[0]->placement))
			w->vary_placement = 1;
}

static void label_of(const struct wl *w, const struct fl_rd_cell *c,
		     const char *skip, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", c->backend);
	char v[128];

	if (w->vary_placement && used < len)
		used += (size_t)snprintf(buf + used, len - used, " %s",
					 c->placement);
	for (unsigned int o = 0; o < w->nvary && used < len; o++) {
		if (skip && strcmp(skip, w->vary[o]) == 0)
			continue;
		if (fl_rd_option(c, w->vary[o], v, sizeof(v)) == 0)
			used += (size_t)snprintf(buf + used, len - used,
						 " %s=%s", w->vary[o], v);
	}
}

/* The series' labels, in the order their cells come. */
static unsigned int series_of(const struct wl *w, const char *skip,
			      char labels[][256])
{
	unsigned int n = 0;
	char l[256];

	for (unsigned int i = 0; i < w->n; i++) {
		unsigned int s;

		label_of(w, w->cells[i], skip, l, sizeof(l));
		for (s = 0; s < n; s++)
			if (strcmp(labels[s], l) == 0)
				break;
		if (s == n && n < MAX_SERIES)
			snprintf(labels[n++], 256, "%s", l);
	}
	return n;
}

static const struct fl_rd_cell *cell_at(const struct wl *w,
					const char *label, unsigned int threads,
					const char *skip)
{
	char l[256];

	for (unsigned int i = 0; i < w->n; i++) {
		if (w->cells[i]->threads != threads)
			continue;
		label_of(w, w->cells[i], skip, l, sizeof(l));
		if (strcmp(l, label) == 0)
			return w->cells[i];
	}
	return NULL;
}

/* Panel p's figure for the series `label` at `threads`, or NULL. */
static const struct fl_rd_fig *fig_at(const struct wl *w, const char *label,
				      unsigned int threads,
				      const struct panel *p)
{
	const struct fl_rd_cell *c = cell_at(w, label, threads, NULL);

	return c ? fig_of(c, p) : NULL;
}

static int logx(const struct wl *w)
{
	return w->nthreads >= 3 &&
	       w->threads[w->nthreads - 1] >= 4 * w->threads[0];
}

static void set_xaxis(FILE *f, const struct wl *w)
{
	unsigned int lo = w->threads[0], hi = w->threads[w->nthreads - 1];

	if (logx(w))
		fprintf(f, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.3,
			hi * 1.3);
	else
		fprintf(f, "unset logscale x\nset xrange [%g:%g]\n",
			lo - 0.5, hi + 0.5);
	fprintf(f, "set xtics (");
	for (unsigned int t = 0; t < w->nthreads; t++)
		fprintf(f, "%s%u", t ? ", " : "", w->threads[t]);
	fprintf(f, ")\nset xlabel 'threads'\n");
}

/* Log y when the values span more than 30x, which a linear axis would
 * flatten (spin against sleeping backends differs by 100x). */
static int wants_logy(const double *v, unsigned int n)
{
	double lo = INFINITY, hi = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return 0;	/* a zero cannot go on a log axis */
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return n && hi / lo > 30;
}

static void ylabel_of(const struct fl_rd_run *r, const struct wl *w,
		      const struct panel *p, char *buf, size_t len)
{
	if (p->ylabel)
		snprintf(buf, len, "%s", p->ylabel);
	else if (p->fig == F_OPS)
		snprintf(buf, len, "throughput (%s/s)",
			 fl_rd_ops_unit(r, w->name));
	else if (p->fig == F_JAIN)
		snprintf(buf, len, "Jain's fairness index (1 = fair)");
	else if (strlen(fl_rd_latency_what(r, w->name)) <= 24)
		snprintf(buf, len, "%s (ns)", fl_rd_latency_what(r, w->name));
	else	/* a long description goes in the title: the axis is short */
		snprintf(buf, len, "latency (ns)");
}

static void set_yformat(FILE *f, const struct panel *p)
{
	if (p->fig == F_OPS)
		fprintf(f, "set format y '%%.1s%%c'\n");
	else if (p->fig == F_JAIN)
		fprintf(f, "set format y '%%.2f'\nset yrange [0:1.05]\n");
	else	/* SI prefixes: 10k, 1M (ns on the label) */
		fprintf(f, "set format y '%%.0s%%c'\n");
}

static int finish(struct fl_gp *g, const struct fl_plot_opts *o, FILE *log,
		  char *err, size_t errlen)
{
	if (fl_gp_close(g, err, errlen))
		return -1;
	if (!o->no_render && fl_gp_run(g, err, errlen))
		return -1;
	if (log)
		fprintf(log, "%s/%s.%s\n", g->dir, g->name,
			o->no_render ? "gp" : "png");
	return 1;
}

static int plot_vs_threads(const struct fl_rd_run *r, const struct wl *w,
			   const char *dir, const char *kind,
			   const char *what, const struct panel *pn,
			   unsigned int np, const struct fl_plot_opts *o,
			   FILE *log, char *err, size_t errlen)
{
	static char labels[MAX_SERIES][256];
	char name[128], title[512], sub[512], yl[256];
	double vals[MAX_SERIES * MAX_X];
	unsigned int ns = series_of(w, NULL, labels);
	struct fl_gp g;
	int logy[4];

	snprintf(name, sizeof(name), "%s-%s", w->name, kind);
	fl_plot_subtitle(r, sub, sizeof(sub));
	snprintf(title, sizeof(title), "%s: %s\n%s", w->name, what, sub);
	if (fl_gp_open(&g, dir, name, title, err, errlen))
		return -1;
	for (unsigned int p = 0; p < np; p++) {
		unsigned int nv = 0;

		for (unsigned int s = 0; s < ns; s++)
			for (unsigned int t = 0; t < w->nthreads; t++) {
				const struct fl_rd_fig *f = fig_at(w,
					labels[s], w->threads[t], &pn[p]);

				if (f)
					vals[nv++] = f->med;
			}
		logy[p] = pn[p].fig != F_JAIN && wants_logy(vals, nv);
		for (unsigned int s = 0; s < ns; s++) {
			char block[32];

			snprintf(block, sizeof(block), "p%u_s%u", p, s);
			fl_gp_block(&g, block);
			fprintf(g.f, "# threads median min max: %s\n",
				labels[s]);
			for (unsigned int t = 0; t < w->nthreads; t++) {
				const struct fl_rd_fig *f = fig_at(w,
					labels[s], w->threads[t], &pn[p]);

				if (f)
					fprintf(g.f, "%u %.6g %.6g %.6g\n",
						w->threads[t], f->med, f->min,
						f->max);
			}
			fl_gp_end_block(&g);
		}
	}
	fl_gp_begin_draw(&g, 1100, np > 1 ? 360 * np + 80 : 560);
	set_xaxis(g.f, w);
	if (np > 1) {
		fprintf(g.f, "set multiplot layout %u,1 title ", np);
		fl_gp_dstr(g.f, title);
		fprintf(g.f, "\n");
	}
	for (unsigned int p = 0; p < np; p++) {
		ylabel_of(r, w, &pn[p], yl, sizeof(yl));
		fprintf(g.f, "set title ");
		fl_gp_dstr(g.f, np > 1 ? pn[p].title : title);
		fprintf(g.f, "\nset ylabel ");
		fl_gp_str(g.f, yl);
		fprintf(g.f, "\n%s\nset yrange [*:*]\n", logy[p] ?
			"set logscale y 10" : "unset logscale y");
		set_yformat(g.f, &pn[p]);
		fprintf(g.f, "plot ");
		for (unsigned int s = 0; s < ns; s++) {
			/* nudge each series sideways so error bars at one
			 * thread count do not hide each other */
			double d = ns > 1 ? ((double)s - (ns - 1) / 2.0) /
				   (ns - 1) : 0;
			char x[64];

			if (logx(w))
				snprintf(x, sizeof(x), "($1*2**(%.4f))",
					 0.12 * d);
			else
				snprintf(x, sizeof(x), "($1+%.4f)", 0.12 * d);
			fprintf(g.f, "%s$p%u_s%u using %s:2:3:4 with "
				"yerrorlines lt %u title ", s ? ", \\\n\t" : "", p, s,
				x, s + 1);
			fl_gp_str(g.f, labels[s]);
		}
		fprintf(g.f, "\n");
	}
	if (np > 1)
		fprintf(g.f, "unset multiplot\n");
	return finish(&g, o, log, err, errlen);
}

static int chosen(const struct fl_plot_opts *o, const struct fl_rd_cell *c,
		  unsigned int threads)
{
	if (o->cdf_cells) {
		const char *p = o->cdf_cells;

		while (*p) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				return 0;
			if (v == c->index)
				return 1;
			p = *end == ',' ? end + 1 : end;
		}
		return 0;
	}
	return c->threads == threads;
}

static int plot_cdf(const struct fl_rd_run *r, const struct wl *w,
		    const char *dir, const struct fl_plot_opts *o, FILE *log,
		    char *err, size_t errlen)
{
	static char labels[MAX_SERIES][256];
	static struct fl_hist h;
	char name[128], title[512], sub[512], lab[300];
	unsigned int threads = o->cdf_threads ? o->cdf_threads :
			       w->threads[w->nthreads - 1];
	unsigned int nb = 0;
	uint64_t maxcount = 1, lo = UINT64_MAX, hi = 1;
	struct fl_gp g;

	snprintf(name, sizeof(name), "%s-cdf", w->name);
	fl_plot_subtitle(r, sub, sizeof(sub));
	if (o->cdf_cells)
		snprintf(title, sizeof(title), "%s: %s distribution, cells "
			 "%s\n%s", w->name, fl_rd_latency_what(r, w->name),
			 o->cdf_cells, sub);
	else
		snprintf(title, sizeof(title), "%s: %s distribution at %u "
			 "threads\n%s", w->name,
			 fl_rd_latency_what(r, w->name), threads, sub);
	for (unsigned int i = 0; i < w->n; i++) {
		const struct fl_rd_cell *c = w->cells[i];

		if (!chosen(o, c, threads) || fl_rd_hist(r, c, &h) ||
		    !h.count)
			continue;
		if (!nb && fl_gp_open(&g, dir, name, title, err, errlen))
			return -1;
		label_of(w, c, NULL, lab, sizeof(lab));
		if (o->cdf_cells)
			snprintf(labels[nb], 256, "%s threads=%u", lab,
				 c->threads);
		else
			snprintf(labels[nb], 256, "%s", lab);
		fprintf(g.f, "$h%u << EOD\n# ns cdf tail: cell %lu, %s\n", nb,
			c->index, labels[nb]);
		uint64_t cum = 0;

		for (unsigned int b = 0; b < FL_HIST_BUCKETS; b++) {
			if (!h.buckets[b])
				continue;
			uint64_t hi = fl_hist_bucket_low(b) +
				      fl_hist_bucket_width(b);

			cum += h.buckets[b];
			fprintf(g.f, "%llu %.9g %.9g\n", (unsigned long long)hi,
				(double)cum / (double)h.count,
				cum < h.count ? 1.0 - (double)cum /
				(double)h.count : NAN);
		}
		fl_gp_end_block(&g);
		if (h.count > maxcount)
			maxcount = h.count;
		if (h.min < lo)
			lo = h.min;
		if (h.max > hi)
			hi = h.max;
		if (++nb == MAX_SERIES)
			break;
	}
	if (!nb)
		return 0;	/* no histogram among the chosen cells */
	fl_gp_begin_draw(&g, 1100, 760);
	fprintf(g.f, "set multiplot layout 2,1 title ");
	fl_gp_dstr(g.f, title);
	fprintf(g.f, "\nset logscale x 10\nset format x '%%.0s%%c'\n"
		"set xrange [%g:%g]\nset xlabel 'latency (ns)'\n"
		"set format y '%%g'\n", lo > 1 ? (double)lo / 1.5 : 1.0,
		(double)hi * 1.5);
	for (int panel = 0; panel < 2; panel++) {
		if (panel == 0)
			fprintf(g.f, "set title 'CDF'\nunset logscale y\n"
				"set yrange [0:1]\n"
				"set ylabel 'fraction of samples <= x'\n");
		else
			fprintf(g.f, "set title 'tail (1 - CDF)'\n"
				"set logscale y 10\nset yrange [%g:1]\n"
				"set ylabel 'fraction of samples > x'\n",
				0.5 / (double)maxcount);
		fprintf(g.f, "plot ");
		for (unsigned int s = 0; s < nb; s++) {
			fprintf(g.f, "%s$h%u using 1:%d with steps lt %u "
				"title ", s ? ", \\\n\t" : "", s, panel + 2,
				s + 1);
			fl_gp_str(g.f, labels[s]);
		}
		fprintf(g.f, "\n");
	}
	fprintf(g.f, "unset multiplot\n");
	return finish(&g, o, log, err, errlen);
}

static int plot_special(const struct fl_rd_run *r, const struct wl *w,
			const struct special *sp, const char *dir,
			const struct fl_plot_opts *o, FILE *log, char *err,
			size_t errlen)
{
	static char labels[MAX_SERIES][256], cats[MAX_X][128];
	char name[128], title[512], sub[512], v[128], yl[256];
	unsigned int ncat = 0, ns, threads = 0;
	struct fl_gp g;

	/* the option's values among the cells, at the largest thread count
	 * where it appears */
	for (unsigned int i = 0; i < w->n; i++)
		if (fl_rd_option(w->cells[i], sp->option, v, sizeof(v)) == 0 &&
		    w->cells[i]->threads > threads)
			threads = w->cells[i]->threads;
	if (!threads)
		return 0;
	for (unsigned int i = 0; i < w->n; i++) {
		unsigned int k;

		if (w->cells[i]->threads != threads ||
		    fl_rd_option(w->cells[i], sp->option, v, sizeof(v)))
			continue;
		for (k = 0; k < ncat; k++)
			if (strcmp(cats[k], v) == 0)
				break;
		if (k == ncat && ncat < MAX_X)
			snprintf(cats[ncat++], sizeof(cats[0]), "%s", v);
	}
	ns = series_of(w, sp->option, labels);
	snprintf(name, sizeof(name), "%s", sp->name);
	fl_plot_subtitle(r, sub, sizeof(sub));
	snprintf(title, sizeof(title), "%s (cells with threads=%u)\n%s",
		 sp->title, threads, sub);
	/* values that never ran ok (remote memory on one node): say why
	 * they have no bars rather than leave them out silently */
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		unsigned int k;

		if (strcmp(c->workload, w->name) || !strcmp(c->status, "ok") ||
		    fl_rd_option(c, sp->option, v, sizeof(v)))
			continue;
		for (k = 0; k < ncat; k++)
			if (strcmp(cats[k], v) == 0)
				break;
		if (k < ncat || strstr(title, "\nnot run: "))
			continue;
		size_t used = strlen(title);

		snprintf(title + used, sizeof(title) - used, "\nnot run: "
			 "%s=%s (%s: %s)", sp->option, v, c->status, c->reason);
	}
	if (fl_gp_open(&g, dir, name, title, err, errlen))
		return -1;
	int logy[2];

	for (unsigned int p = 0; p < 2; p++) {
		double vals[MAX_SERIES * MAX_X];
		unsigned int nv = 0;

		fprintf(g.f, "$b%u << EOD\n# %s", p, sp->option);
		for (unsigned int s = 0; s < ns; s++)
			fprintf(g.f, " | %s: median min max", labels[s]);
		fprintf(g.f, "\n");
		for (unsigned int k = 0; k < ncat; k++) {
			fprintf(g.f, "%s", cats[k]);
			for (unsigned int s = 0; s < ns; s++) {
				const struct fl_rd_fig *f = NULL;

				for (unsigned int i = 0; i < w->n && !f; i++) {
					char l[256];

					if (w->cells[i]->threads != threads ||
					    fl_rd_option(w->cells[i],
							 sp->option, v,
							 sizeof(v)) ||
					    strcmp(v, cats[k]))
						continue;
					label_of(w, w->cells[i], sp->option,
						 l, sizeof(l));
					if (strcmp(l, labels[s]) == 0)
						f = fig_of(w->cells[i],
							   &sp->panels[p]);
				}
				if (f && nv < MAX_SERIES * MAX_X)
					vals[nv++] = f->med;
				if (f)
					fprintf(g.f, " %.6g %.6g %.6g", f->med,
						f->min, f->max);
				else
					fprintf(g.f, " NaN NaN NaN");
			}
			fprintf(g.f, "\n");
		}
		fl_gp_end_block(&g);
		logy[p] = sp->panels[p].fig != F_JAIN && wants_logy(vals, nv);
	}
	fl_gp_begin_draw(&g, 1100, 800);
	fprintf(g.f, "set multiplot layout 2,1 title ");
	fl_gp_dstr(g.f, title);
	fprintf(g.f, "\nset style data histograms\n"
		"set style histogram errorbars gap 1 lw 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
		"set xlabel ");
	fl_gp_str(g.f, sp->option);
	fprintf(g.f, "\n");
	for (unsigned int p = 0; p < 2; p++) {
		ylabel_of(r, w, &sp->panels[p], yl, sizeof(yl));
		if (!sp->panels[p].ylabel && sp->ylabel &&
		    sp->panels[p].fig != F_OPS)
			snprintf(yl, sizeof(yl), "%s", sp->ylabel);
		fprintf(g.f, "set title ");
		fl_gp_str(g.f, sp->panels[p].title);
		fprintf(g.f, "\nset ylabel ");
		fl_gp_str(g.f, yl);
		fprintf(g.f, "\n");
		set_yformat(g.f, &sp->panels[p]);
		/* a spinning outlier 100x above would flatten the rest */
		fprintf(g.f, "%s\n", logy[p] ? "set logscale y 10\n"
			"set yrange [*:*]" : "unset logscale y\n"
			"set yrange [0:*]");
		fprintf(g.f, "plot ");
		for (unsigned int s = 0; s < ns; s++) {
			fprintf(g.f, "%s$b%u using %u:%u:%u%s lt %u title ",
				s ? ", \\\n\t" : "", p, 2 + 3 * s, 3 + 3 * s,
				4 + 3 * s, s ? "" : ":xtic(1)", s + 1);
			fl_gp_str(g.f, labels[s]);
		}
		fprintf(g.f, "\n");
	}
	fprintf(g.f, "unset multiplot\n");
	return finish(&g, o, log, err, errlen);
}

static int plot_workload(const struct fl_rd_run *r, const char *name,
			 const char *dir, const struct fl_plot_opts *o,
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
	struct wl w;
	int n = 0, rc;

	wl_init(&w, r, name);
	if (!w.cells) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!w.n) {
		if (log)
			fprintf(log, "%s: no cell ran ok; no plots\n", name);
		free(w.cells);
		return 0;
	}
	rc = plot_vs_threads(r, &w, dir, "throughput", "throughput against "
			     "threads (median, bars: min and max across "
			     "repetitions)", thr, 1, o, log, err, errlen);
	if (rc >= 0) {
		n += rc;
		char what[256];

		snprintf(what, sizeof(what), "%s, percentiles against threads "
			 "(median of repetitions, bars: min and max)",
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
	for (size_t s = 0; rc >= 0 && s < sizeof(specials) /
	     sizeof(specials[0]); s++) {
		n += rc;
		rc = strcmp(specials[s].workload, name) ? 0 :
		     plot_special(r, &w, &specials[s], dir, o, log, err,
				  errlen);
	}
	free(w.cells);
	return rc < 0 ? -1 : n + rc;
}

int fl_plot_run(const struct fl_rd_run *r, const char *outdir,
		const struct fl_plot_opts *o, FILE *log, char *err,
		size_t errlen)
{
	int total = 0;

	if (mkdir(outdir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", outdir,
			 strerror(errno));
		return -1;
	}
	for (unsigned long i = 0; i < r->ncells; i++) {
		if (fl_rd_first_of(r, r->cells[i].workload) != &r->cells[i])
			continue;	/* plotted with its first cell */
		int n = plot_workload(r, r->cells[i].workload, outdir, o, log,
				      err, errlen);

		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}
