// SPDX-License-Identifier: GPL-2.0
/* ratios.{gp,png,svg}: each cell's B/A with its 95% interval. */
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "plot/gp.h"

static const char *const colour[FL_NVERDICTS] = {
	[FL_V_FASTER] = "#009e73", [FL_V_SLOWER] = "#d55e00",
	[FL_V_EQUIVALENT] = "#0072b2", [FL_V_INCONCLUSIVE] = "#7f7f7f",
	[FL_V_UNDECIDED] = "#cccccc",
};

/* One data block per pair and verdict, x = the cell's position among
 * the comparable cells; have[k][v] counts the block's rows. The longest
 * label's length. */
static size_t data_blocks(struct fl_gp *g, const struct cmp_pair *pairs,
			  unsigned int npairs,
			  unsigned int have[][FL_NVERDICTS])
{
	size_t longest = 0;
	const struct fl_rd_cell **all = cmp_pair_cells(&pairs[0]);
	char lab[256];

	for (unsigned int k = 0; k < npairs; k++)
		for (int v = FL_V_FASTER; v <= FL_V_UNDECIDED; v++) {
			unsigned long x = 0;

			fprintf(g->f, "$r%u_%d << EOD\n# x ratio lo hi\n", k, v);
			for (unsigned long i = 0; i < pairs[k].n; i++) {
				const struct cmp_cell *c = &pairs[k].cells[i];

				if (c->v == FL_V_NONE)
					continue;
				x++;
				if ((int)c->v != v)
					continue;
				fprintf(g->f, "%lu %.6g %.6g %.6g\n", x,
					c->s.ratio, c->s.ok ? c->s.lo :
					c->s.ratio, c->s.ok ? c->s.hi :
					c->s.ratio);
				have[k][v]++;
			}
			fl_gp_end_block(g);
		}
	/* the first pair's cells name the x axis */
	fprintf(g->f, "$labels << EOD\n");
	for (unsigned long i = 0, x = 0; i < pairs[0].n; i++) {
		if (pairs[0].cells[i].v == FL_V_NONE)
			continue;
		if (!all)
			break;
		cmp_label(all[i], all, pairs[0].n, lab, sizeof(lab));
		/* data files quote with double quotes */
		for (char *q = lab; *q; q++)
			if (*q == '"')
				*q = '\'';
		fprintf(g->f, "%lu \"%s\"\n", ++x, lab);
		if (strlen(lab) > longest)
			longest = strlen(lab);
	}
	fl_gp_end_block(g);
	free(all);
	return longest;
}

void cmp_plot_frame(struct fl_gp *g, const char *title, const char *ylabel,
		    const char *xlabel, unsigned long per, int px, int height,
		    size_t longest)
{
	int width = per * px + 400 > 1100 ? (int)(per * px + 400) : 1100;
	/* the rotated labels' room, in lines of the axis font: a character
	 * at ',8' takes about a third of a line, plus the axis label's
	 * line; the picture grows by what the margin grows so the graph
	 * keeps its height */
	int bmargin = (int)(longest / 3) + (xlabel ? 4 : 2);

	if (bmargin < 14)
		bmargin = 14;
	height += (bmargin - 14) * CMP_PX_PER_LINE;
	fl_gp_begin_draw(g, width > 4000 ? 4000 : width, height);
	fprintf(g->f, "set title ");
	fl_gp_dstr(g->f, title);
	fprintf(g->f, "\nset logscale y 2\nset ylabel '%s'\n", ylabel);
	if (xlabel)
		fprintf(g->f, "set xlabel '%s'\n", xlabel);
	fprintf(g->f, "set xrange [0:%lu]\n"
		"set xtics rotate by 90 right font ',8'\nset bmargin %d\n"
		"set arrow 1 from graph 0, first 1 to graph 1, first 1 "
		"nohead lc rgb '#555555' dt 2\nset format y '%%g'\n",
		per + 1, bmargin);
}

int cmp_ratio_plot(const char *dir, const struct cmp_pair *pairs,
		   unsigned int npairs, const struct fl_say *say, char *err,
		   size_t errlen)
{
	unsigned int have[FL_COMPARE_MAX_RUNS][FL_NVERDICTS];
	char title[1024];
	unsigned long per = 0;
	size_t longest;
	struct fl_gp g;

	memset(have, 0, sizeof(have));
	for (unsigned long i = 0; i < pairs[0].n; i++)
		per += pairs[0].cells[i].v != FL_V_NONE;
	if (!per)
		return 0;
	snprintf(title, sizeof(title), "B/A of each cell's primary figure "
		 "against %s, with 95%% intervals\nfaster or slower only where "
		 "the interval lies beyond 1 +- %.0f%%", pairs[0].a->name,
		 pairs[0].delta * 100);
	if (fl_gp_open(&g, dir, "ratios", title, err, errlen))
		return -1;
	longest = data_blocks(&g, pairs, npairs, have);
	cmp_plot_frame(&g, title, "B / A (Hodges-Lehmann estimate, 95% CI)",
		       "cell", per, 16, 700, longest);
	fprintf(g.f, "plot $labels using 1:(1):xtic(2) with dots "
		"lc rgb '#555555' notitle");
	for (unsigned int k = 0; k < npairs; k++)
		for (int v = FL_V_FASTER; v <= FL_V_UNDECIDED; v++) {
			char t[400];

			if (!have[k][v])
				continue;
			snprintf(t, sizeof(t), "%s: %s", pairs[k].b->name,
				 fl_verdict_name((enum fl_verdict)v));
			fprintf(g.f, ", \\\n\t$r%u_%d using 1:2:3:4 with "
				"yerrorbars pt %u lc rgb '%s' title ", k, v,
				k * 2 + 7, colour[v]);
			fl_gp_str(g.f, t);
		}
	fprintf(g.f, "\n");
	if (fl_gp_close(&g, err, errlen) || fl_gp_run(&g, say, err, errlen))
		return -1;
	return 1;
}
