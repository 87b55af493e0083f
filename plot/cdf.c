// SPDX-License-Identifier: GPL-2.0
/*
 * The latency distribution plot: the CDF and its tail (1 - CDF) from the
 * histograms of the chosen cells (one thread count, or --cells).
 */
#include "plot/plot.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "plot/internal.h"

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

/* One cell's histogram as a data block: ns, CDF, tail. */
static void write_cdf_block(struct fl_gp *g, unsigned int nb,
			    const struct fl_rd_cell *c, const char *label,
			    const struct fl_hist *h)
{
	uint64_t cum = 0;

	fprintf(g->f, "$h%u << EOD\n# ns cdf tail: cell %lu\n", nb,
		c->index);
	fl_gp_comment(g->f, label);
	for (unsigned int b = 0; b < FL_HIST_BUCKETS; b++) {
		if (!h->buckets[b])
			continue;
		uint64_t top = fl_hist_bucket_low(b) + fl_hist_bucket_width(b);

		cum += h->buckets[b];
		fprintf(g->f, "%llu %.9g %.9g\n", (unsigned long long)top,
			(double)cum / (double)h->count,
			cum < h->count ? 1.0 - (double)cum / (double)h->count :
			NAN);
	}
	fl_gp_end_block(g);
}

/* The CDF and tail panels over the blocks written. */
static void draw_cdf(struct fl_gp *g, const char *title,
		     char labels[][256], unsigned int nb, uint64_t lo,
		     uint64_t hi, uint64_t maxcount)
{
	fl_gp_begin_draw(g, 1100, 760);
	fprintf(g->f, "set multiplot layout 2,1 title ");
	fl_gp_dstr(g->f, title);
	double xlo = lo > 1 ? (double)lo / 1.5 : 1.0, xhi = (double)hi * 1.5;

	fprintf(g->f, "\nset logscale x 10\nset xrange [%g:%g]\n", xlo, xhi);
	plot_time_axis(g->f, 'x', "latency", xlo, xhi, 1);
	fprintf(g->f, "set format y '%%g'\n");
	for (int panel = 0; panel < 2; panel++) {
		if (panel == 0)
			fprintf(g->f, "set title 'CDF'\nunset logscale y\n"
				"set yrange [0:1]\n"
				"set ylabel 'fraction of samples <= x'\n");
		else
			fprintf(g->f, "set title 'tail (1 - CDF)'\n"
				"set logscale y 10\nset yrange [%g:1]\n"
				"set ylabel 'fraction of samples > x'\n",
				0.5 / (double)maxcount);
		fprintf(g->f, "plot ");
		for (unsigned int s = 0; s < nb; s++) {
			fprintf(g->f, "%s$h%u using 1:%d with steps lt %u "
				"title ", s ? ", \\\n\t" : "", s, panel + 2,
				s + 1);
			fl_gp_str(g->f, labels[s]);
		}
		fprintf(g->f, "\n");
	}
	fprintf(g->f, "unset multiplot\n");
}

int plot_cdf(const struct fl_rd_run *r, const struct wl *w,
	     const struct fl_gp_dir *dir, const struct fl_plot_opts *o, FILE *log,
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
	for (unsigned int i = 0; i < w->n && nb < MAX_SERIES; i++) {
		const struct fl_rd_cell *c = w->cells[i];

		if (!chosen(o, c, threads) || fl_rd_hist(r, c, &h) ||
		    !h.count)
			continue;
		if (!nb && fl_gp_open_at(&g, dir, name, title, err, errlen))
			return -1;
		plot_label_of(w, c, NULL, lab, sizeof(lab));
		if (o->cdf_cells)
			snprintf(labels[nb], 256, "%s threads=%u", lab,
				 c->threads);
		else
			snprintf(labels[nb], 256, "%s", lab);
		write_cdf_block(&g, nb, c, labels[nb], &h);
		maxcount = h.count > maxcount ? h.count : maxcount;
		lo = h.min < lo ? h.min : lo;
		hi = h.max > hi ? h.max : hi;
		nb++;
	}
	if (!nb)
		return 0;	/* no histogram among the chosen cells */
	draw_cdf(&g, title, labels, nb, lo, hi, maxcount);
	return plot_finish(&g, o, log, err, errlen);
}
