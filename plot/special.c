// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's own plot, declared in its descriptor (condvar's wake
 * strategies, pi's lock types, numa's memory locality): a bar per series
 * and option value at the largest thread count, median with min and max
 * as error bars.
 */
#include "plot/plot.h"

#include <string.h>

#include "plot/internal.h"

/* A descriptor's panel as the plot files' own. */
static struct panel panel_of(const struct fl_plot_panel *p)
{
	return (struct panel){ .fig = (enum fig)p->fig, .extra = p->extra,
			       .title = p->title, .ylabel = p->ylabel };
}

int plot_special(const struct fl_rd_run *r, const struct wl *w,
		 const struct fl_special_plot *sp, const struct fl_gp_dir *dir,
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
	ns = plot_series_of(w, sp->option, labels);
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
	if (fl_gp_open_at(&g, dir, name, title, err, errlen))
		return -1;
	int logy[2];

	for (unsigned int p = 0; p < 2; p++) {
		const struct panel pn = panel_of(&sp->panels[p]);
		double vals[MAX_SERIES * MAX_X];
		unsigned int nv = 0;

		fprintf(g.f, "$b%u << EOD\n# %s, then median min max of:\n",
			p, sp->option);
		for (unsigned int s = 0; s < ns; s++)
			fl_gp_comment(g.f, labels[s]);
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
					plot_label_of(w, w->cells[i],
						      sp->option, l, sizeof(l));
					if (strcmp(l, labels[s]) == 0)
						f = plot_fig_of(w->cells[i],
								&pn);
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
		logy[p] = pn.fig != F_JAIN &&
			  plot_wants_logy(vals, nv);
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
		const struct panel pn = panel_of(&sp->panels[p]);

		plot_ylabel_of(r, w, &pn, yl, sizeof(yl));
		if (!pn.ylabel && sp->ylabel && pn.fig != F_OPS)
			snprintf(yl, sizeof(yl), "%s", sp->ylabel);
		fprintf(g.f, "set title ");
		fl_gp_str(g.f, pn.title);
		fprintf(g.f, "\nset ylabel ");
		fl_gp_str(g.f, yl);
		fprintf(g.f, "\n");
		plot_set_yformat(g.f, &pn);
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
	return plot_finish(&g, o, log, err, errlen);
}
