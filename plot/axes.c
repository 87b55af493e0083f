// SPDX-License-Identifier: GPL-2.0
/*
 * What every plot shares: the subtitle naming the run and machine, the
 * thread axis, when the y axis goes logarithmic, its label and number
 * format (a time's by time_axis.c), and closing and rendering the script.
 */
#include "plot/plot.h"

#include <math.h>
#include <string.h>

#include "plot/internal.h"

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

int plot_logx(const struct wl *w)
{
	return w->nthreads >= 3 &&
	       w->threads[w->nthreads - 1] >= 4 * w->threads[0];
}

void plot_set_xaxis(FILE *f, const struct wl *w)
{
	unsigned int lo = w->threads[0], hi = w->threads[w->nthreads - 1];

	if (plot_logx(w))
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
int plot_wants_logy(const double *v, unsigned int n)
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

void plot_ylabel_of(const struct fl_rd_run *r, const struct wl *w,
		    const struct panel *p, char *buf, size_t len)
{
	if (p->ylabel)
		snprintf(buf, len, "%s", p->ylabel);
	else if (p->fig == F_OPS)
		snprintf(buf, len, "throughput (%s/s)",
			 fl_rd_ops_unit(r, w->name));
	else if (p->fig == F_JAIN)
		snprintf(buf, len, "Jain's fairness index (1 = fair)");
	else if (p->fig == F_EXTRA)
		snprintf(buf, len, "%s", p->extra);
	else if (strlen(fl_rd_latency_what(r, w->name)) <= 24)
		snprintf(buf, len, "%s", fl_rd_latency_what(r, w->name));
	else	/* a long description goes in the title: the axis is short */
		snprintf(buf, len, "latency");
}

/*
 * The decimals SI labels ('%.Ns%c') of a linear axis over [lo, hi] need
 * to differ from tick to tick, at least min: gnuplot steps by a tenth of
 * the range or more, and a label must show that step below its prefix's
 * unit (4.02M after 4.00M, not 4.0M twice). At most 4.
 */
static int si_decimals(double lo, double hi, int min)
{
	double unit = pow(1000, floor(log10(hi) / 3));
	int d = (int)ceil(-log10((hi - lo) / 10 / unit));

	return d < min ? min : d > 4 ? 4 : d;
}

/*
 * The number format of a figure that is not a time, for its values in
 * [lo, hi] (0 and INFINITY: none drawn). Values that are all one value
 * (app's runs a second: one run a repetition) get an axis from zero to
 * above them; gnuplot's own would be a sliver around it, labelled "1.0,
 * 1.0, 995.0m".
 */
static void set_yformat(FILE *f, const struct panel *p, double lo,
			double hi, int logscale)
{
	int min = p->fig == F_OPS ? 1 : 0, d = min;

	if (p->fig == F_JAIN) {
		fprintf(f, "set format y '%%.2f'\nset yrange [0:1.05]\n");
		return;
	}
	if (!logscale && hi > 0 && lo <= hi) {
		if (hi - lo <= hi * 1e-3) {
			lo = 0;
			hi *= 1.2;
			fprintf(f, "set yrange [0:%.6g]\n", hi);
		}
		d = si_decimals(lo, hi, min);
	}
	/* ops: 1.5M; a counter: 10k, 1M */
	fprintf(f, "set format y '%%.%ds%%c'\n", d);
}

double plot_set_yaxis(FILE *f, const struct panel *p, const char *label,
		      double lo, double hi, int logscale)
{
	if (plot_is_time(p))
		return plot_time_axis(f, 'y', label, lo, hi, logscale);
	/* the figure's own tics, after a time panel's list of them */
	fprintf(f, "set ytics autofreq\nset ylabel ");
	fl_gp_str(f, label);
	fprintf(f, "\n");
	set_yformat(f, p, lo, hi, logscale);
	return 1;
}

int plot_finish(struct fl_gp *g, const struct fl_plot_opts *o, FILE *log,
		char *err, size_t errlen)
{
	if (fl_gp_close(g, err, errlen))
		return -1;
	if (o->no_render)
		fl_gp_release(g);
	else if (fl_gp_run(g, o->say, err, errlen))
		return -1;
	if (log)
		fprintf(log, "%s/%s.%s\n", g->dir, g->name,
			o->no_render ? "gp" : "png");
	return 1;
}

void plot_empty_panel(FILE *f, const char *quantity)
{
	fprintf(f, "set ylabel ");
	fl_gp_str(f, quantity);
	fprintf(f, "\nset yrange [0:1]\nunset logscale y\nunset ytics\n"
		"set label 1 'nothing to draw' at graph 0.5, 0.5 center\n"
		"plot -1 notitle\nunset label 1\nset ytics\n");
}
