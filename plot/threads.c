// SPDX-License-Identifier: GPL-2.0
/*
 * The plots against thread count (throughput, latency percentiles,
 * fairness): a line per series, median with its 95% interval as error bars,
 * one panel per figure.
 */
#include "plot/plot.h"

#include <math.h>
#include <string.h>

#include "plot/internal.h"

int plot_vs_threads(const struct fl_rd_run *r, const struct wl *w,
		    const struct fl_gp_dir *dir, const char *kind,
		    const char *what, const struct panel *pn,
		    unsigned int np, const struct fl_plot_opts *o,
		    FILE *log, char *err, size_t errlen)
{
	static char labels[MAX_SERIES][256];
	char name[128], title[512], sub[512], yl[256];
	double vals[MAX_SERIES * MAX_X], lo[4], hi[4];
	unsigned int withheld[4] = { 0 }, cells[4] = { 0 }, drawn[4] = { 0 };
	static unsigned int pts[4][MAX_SERIES];
	unsigned int ns = plot_series_of(w, NULL, labels);
	struct fl_gp g;
	int logy[4];

	snprintf(name, sizeof(name), "%s-%s", w->name, kind);
	fl_plot_subtitle(r, sub, sizeof(sub));
	snprintf(title, sizeof(title), "%s: %s\n%s", w->name, what, sub);
	if (fl_gp_open_at(&g, dir, name, title, err, errlen))
		return -1;
	for (unsigned int p = 0; p < np; p++) {
		unsigned int nv = 0;

		memset(pts[p], 0, sizeof(pts[p]));
		lo[p] = INFINITY;
		hi[p] = 0;
		for (unsigned int s = 0; s < ns; s++)
			for (unsigned int t = 0; t < w->nthreads; t++) {
				const struct fl_rd_fig *f = plot_fig_at(w,
					labels[s], w->threads[t], &pn[p]);

				if (!f)
					continue;
				pts[p][s]++;
				vals[nv++] = f->med;
				plot_widen(lo + p, hi + p, f);
			}
		logy[p] = pn[p].fig != F_JAIN && plot_wants_logy(vals, nv);
		drawn[p] = nv;
		for (unsigned int s = 0; s < ns; s++) {
			char block[32];

			snprintf(block, sizeof(block), "p%u_s%u", p, s);
			fl_gp_block(&g, block);
			fl_gp_comment(g.f, "threads median ci_lo ci_hi:");
			fl_gp_comment(g.f, labels[s]);
			for (unsigned int t = 0; t < w->nthreads; t++) {
				const struct fl_rd_fig *f = plot_fig_at(w,
					labels[s], w->threads[t], &pn[p]);

				if (f)
					fprintf(g.f, "%u %.6g %.6g %.6g\n",
						w->threads[t], f->med, f->lo,
						f->hi);
				if (!plot_has_cell(w, labels[s],
						   w->threads[t]))
					continue;
				cells[p]++;
				/* the tables' n/e: said, not drawn */
				if (!f && pn[p].fig != F_EXTRA &&
				    pn[p].fig != F_COST) {
					fprintf(g.f, "# %u n/e\n",
						w->threads[t]);
					withheld[p]++;
				}
			}
			fl_gp_end_block(&g);
		}
	}
	fl_gp_begin_draw(&g, 1100, np > 1 ? 360 * np + 80 : 560);
	plot_set_xaxis(g.f, w);
	if (fl_rd_threads_are(r, w->name)) {
		/* app: the axis's 1 is not the program's threads */
		char xl[300];

		snprintf(xl, sizeof(xl), "threads: %s",
			 fl_rd_threads_are(r, w->name));
		fprintf(g.f, "set xlabel ");
		fl_gp_str(g.f, xl);
		fprintf(g.f, "\n");
	}
	if (np > 1) {
		fprintf(g.f, "set multiplot layout %u,1 title ", np);
		fl_gp_dstr(g.f, title);
		fprintf(g.f, "\n");
	}
	for (unsigned int p = 0; p < np; p++) {
		char y[3][32];
		double div;

		plot_ylabel_of(r, w, &pn[p], yl, sizeof(yl));
		char ptitle[160];

		snprintf(ptitle, sizeof(ptitle), "%s", pn[p].title);
		if (withheld[p])
			snprintf(ptitle + strlen(ptitle), sizeof(ptitle) -
				 strlen(ptitle), " (%u of %u cells not drawn: "
				 "n/e, too few samples beyond)", withheld[p],
				 cells[p]);
		fprintf(g.f, "set title ");
		fl_gp_dstr(g.f, np > 1 ? ptitle : title);
		fprintf(g.f, "\n%s\nset yrange [*:*]\n", logy[p] ?
			"set logscale y 10" : "unset logscale y");
		if (!drawn[p]) {
			plot_empty_panel(g.f, yl);
			continue;
		}
		div = plot_set_yaxis(g.f, &pn[p], yl, lo[p], hi[p], logy[p]);
		for (unsigned int k = 0; k < 3; k++)
			plot_scaled(y[k], sizeof(y[k]), 2 + k, div);
		fprintf(g.f, "plot ");
		for (unsigned int s = 0, first = 1; s < ns; s++) {
			/* nudge each series sideways so error bars at one
			 * thread count do not hide each other */
			double d = ns > 1 ? ((double)s - (ns - 1) / 2.0) /
				   (ns - 1) : 0;
			char x[64];

			if (plot_logx(w))
				snprintf(x, sizeof(x), "($1*2**(%.4f))",
					 0.12 * d);
			else
				snprintf(x, sizeof(x), "($1+%.4f)", 0.12 * d);
			if (!pts[p][s])
				continue;	/* withheld throughout */
			fprintf(g.f, "%s$p%u_s%u using %s:%s:%s:%s with "
				"yerrorlines lt %u title ", first ? "" :
				", \\\n\t", p, s, x, y[0], y[1], y[2], s + 1);
			first = 0;
			fl_gp_str(g.f, labels[s]);
		}
		fprintf(g.f, "\n");
	}
	if (np > 1)
		fprintf(g.f, "unset multiplot\n");
	return plot_finish(&g, o, log, err, errlen);
}
