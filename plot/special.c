// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's own plot, as its run directory describes it (condvar's
 * wake strategies, pi's lock types, numa's memory locality: meta.json's
 * workloads.W.plots, rundir/read_plots.c): a bar per series
 * and option value at the largest thread count, the median with its 95%
 * interval as error bars (none below six repetitions).
 */
#include "plot/plot.h"

#include <math.h>
#include <string.h>

#include "plot/internal.h"

/* A described panel as the plot files' own. */
static struct panel panel_of(const struct fl_rd_panel *p)
{
	return (struct panel){ .fig = (enum fig)p->fig, .extra = p->counter,
			       .title = p->title,
			       .ylabel = *p->ylabel ? p->ylabel : NULL };
}

/* What the steps of one special plot share. */
struct special {
	const struct wl *w;
	const struct fl_rd_special *sp;
	unsigned int threads;		/* the largest where the option is */
	unsigned int ncat, ns;
	char cats[MAX_X][128];		/* the option's values, the x axis */
	char labels[MAX_SERIES][256];	/* the series */
	char title[512];
	double lo[2], hi[2];		/* each panel's positive values */
	unsigned int drawn[2];		/* each panel's values to draw */
};

static unsigned int cat_index(const struct special *s, const char *v)
{
	unsigned int k;

	for (k = 0; k < s->ncat; k++)
		if (strcmp(s->cats[k], v) == 0)
			break;
	return k;
}

/* The option's values among the cells, at the largest thread count where
 * it appears; 0 when no cell has the option. */
static int collect_categories(struct special *s)
{
	const struct wl *w = s->w;
	char v[128];

	for (unsigned int i = 0; i < w->n; i++)
		if (fl_rd_option(w->cells[i], s->sp->option, v, sizeof(v)) ==
		    0 && w->cells[i]->threads > s->threads)
			s->threads = w->cells[i]->threads;
	for (unsigned int i = 0; s->threads && i < w->n; i++) {
		if (w->cells[i]->threads != s->threads ||
		    fl_rd_option(w->cells[i], s->sp->option, v, sizeof(v)))
			continue;
		if (cat_index(s, v) == s->ncat && s->ncat < MAX_X)
			snprintf(s->cats[s->ncat++], sizeof(s->cats[0]), "%s",
				 v);
	}
	return s->threads != 0;
}

/* Values that never ran ok (remote memory on one node): the title says
 * why they have no bars rather than leave them out silently. */
static void note_not_run(struct special *s, const struct fl_rd_run *r)
{
	char v[128];

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		size_t used = strlen(s->title);

		if (strcmp(c->workload, s->w->name) ||
		    !strcmp(c->status, "ok") ||
		    fl_rd_option(c, s->sp->option, v, sizeof(v)))
			continue;
		if (cat_index(s, v) < s->ncat ||
		    strstr(s->title, "\nnot run: "))
			continue;
		snprintf(s->title + used, sizeof(s->title) - used,
			 "\nnot run: %s=%s (%s: %s)", s->sp->option, v,
			 c->status, c->reason);
	}
}

/* The figure of series @label at category @cat, or NULL. */
static const struct fl_rd_fig *special_fig(const struct special *s,
					   const char *label, const char *cat,
					   const struct panel *pn)
{
	const struct wl *w = s->w;
	char v[128], l[256];

	for (unsigned int i = 0; i < w->n; i++) {
		if (w->cells[i]->threads != s->threads ||
		    fl_rd_option(w->cells[i], s->sp->option, v, sizeof(v)) ||
		    strcmp(v, cat))
			continue;
		plot_label_of(w, w->cells[i], s->sp->option, l, sizeof(l));
		if (strcmp(l, label) == 0)
			return plot_fig_of(w, w->cells[i], pn);
	}
	return NULL;
}

/* Panel @p's data block; whether its values want a log y axis. */
static int write_block(struct special *s, struct fl_gp *g,
		       unsigned int p)
{
	const struct panel pn = panel_of(&s->sp->panels[p]);
	double vals[MAX_SERIES * MAX_X];
	unsigned int nv = 0;

	s->lo[p] = INFINITY;
	s->hi[p] = 0;

	fprintf(g->f, "$b%u << EOD\n# %s, then median and its 95%% interval "
		"of:\n", p, s->sp->option);
	for (unsigned int k = 0; k < s->ns; k++)
		fl_gp_comment(g->f, s->labels[k]);
	for (unsigned int k = 0; k < s->ncat; k++) {
		fprintf(g->f, "%s", s->cats[k]);
		for (unsigned int j = 0; j < s->ns; j++) {
			const struct fl_rd_fig *f =
				special_fig(s, s->labels[j], s->cats[k], &pn);

			if (f && nv < MAX_SERIES * MAX_X)
				vals[nv++] = f->med;
			if (f) {
				fprintf(g->f, " %.6g %.6g %.6g", f->med, f->lo,
					f->hi);
				plot_widen(&s->lo[p], &s->hi[p], f);
			}
			else
				fprintf(g->f, " NaN NaN NaN");
		}
		fprintf(g->f, "\n");
	}
	fl_gp_end_block(g);
	s->drawn[p] = nv;
	return pn.fig != F_JAIN && plot_wants_logy(vals, nv);
}

static void draw_panel(const struct special *s, const struct fl_rd_run *r,
		       struct fl_gp *g, unsigned int p, int logy)
{
	const struct panel pn = panel_of(&s->sp->panels[p]);
	char yl[256], y[3][32];
	double div;

	plot_ylabel_of(r, s->w, &pn, yl, sizeof(yl));
	if (!pn.ylabel && *s->sp->ylabel && plot_is_time(&pn))
		snprintf(yl, sizeof(yl), "%s", s->sp->ylabel);
	fprintf(g->f, "set title ");
	if (s->drawn[p]) {
		fl_gp_str(g->f, pn.title);
	} else {
		char t[256];

		snprintf(t, sizeof(t), "%s (not drawn: n/e, too few samples "
			 "beyond)", pn.title);
		fl_gp_str(g->f, t);
	}
	fprintf(g->f, "\n");
	/* the categories' names under their bars, whether or not the first
	 * series has a bar there (a withheld percentile has none) */
	fprintf(g->f, "set xtics (");
	for (unsigned int k = 0; k < s->ncat; k++) {
		fprintf(g->f, "%s", k ? ", " : "");
		fl_gp_str(g->f, s->cats[k]);
		fprintf(g->f, " %u", k);
	}
	fprintf(g->f, ")\n");
	if (!s->drawn[p]) {
		plot_empty_panel(g->f, yl);
		return;
	}
	/* bars stand on zero: a linear axis's labels are for [0, hi] */
	div = plot_set_yaxis(g->f, &pn, yl, logy ? s->lo[p] : 0, s->hi[p],
			     logy);
	/* a spinning outlier 100x above would flatten the rest */
	fprintf(g->f, "%s\n", logy ? "set logscale y 10\nset yrange [*:*]" :
		"unset logscale y\nset yrange [0:*]");
	fprintf(g->f, "plot ");
	for (unsigned int j = 0; j < s->ns; j++) {
		for (unsigned int k = 0; k < 3; k++)
			plot_scaled(y[k], sizeof(y[k]), 2 + 3 * j + k, div);
		fprintf(g->f, "%s$b%u using %s:%s:%s lt %u title ",
			j ? ", \\\n\t" : "", p, y[0], y[1], y[2], j + 1);
		fl_gp_str(g->f, s->labels[j]);
	}
	fprintf(g->f, "\n");
}

int plot_special(const struct fl_rd_run *r, const struct wl *w,
		 const struct fl_rd_special *sp, const struct fl_gp_dir *dir,
		 const struct fl_plot_opts *o, FILE *log, char *err,
		 size_t errlen)
{
	static struct special s;
	char sub[512];
	struct fl_gp g;
	int logy[2];

	memset(&s, 0, sizeof(s));
	s.w = w;
	s.sp = sp;
	if (!collect_categories(&s))
		return 0;
	s.ns = plot_series_of(w, sp->option, s.labels);
	fl_plot_subtitle(r, sub, sizeof(sub));
	snprintf(s.title, sizeof(s.title), "%s (cells with threads=%u)\n%s",
		 sp->title, s.threads, sub);
	note_not_run(&s, r);
	if (fl_gp_open_at(&g, dir, sp->name, s.title, err, errlen))
		return -1;
	for (unsigned int p = 0; p < sp->npanels; p++)
		logy[p] = write_block(&s, &g, p);
	fl_gp_begin_draw(&g, 1100, sp->npanels > 1 ? 800 : 480);
	fprintf(g.f, "set multiplot layout %u,1 title ", sp->npanels);
	fl_gp_dstr(g.f, s.title);
	fprintf(g.f, "\nset style data histograms\n"
		"set style histogram errorbars gap 1 lw 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
		"set xlabel ");
	fl_gp_str(g.f, sp->option);
	fprintf(g.f, "\n");
	for (unsigned int p = 0; p < sp->npanels; p++)
		draw_panel(&s, r, &g, p, logy[p]);
	fprintf(g.f, "unset multiplot\n");
	return plot_finish(&g, o, log, err, errlen);
}
