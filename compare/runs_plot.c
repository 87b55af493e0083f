// SPDX-License-Identifier: GPL-2.0
/*
 * ratios.{gp,png,svg} of a comparison over runs: per cell the ratio B/A
 * with its 95% interval, and beside it each run's own ratio as a point
 * (B's runs and A's, each over A's median of its runs), so a reader sees
 * whether one run carried a verdict. Cells go in groups by workload,
 * each group named above it, so a hundred cells stay readable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs_internal.h"
#include "plot/gp.h"
#include "stats/stats.h"

static const char *const colour[FL_NVERDICTS] = {
	[FL_V_FASTER] = "#009e73", [FL_V_SLOWER] = "#d55e00",
	[FL_V_EQUIVALENT] = "#0072b2", [FL_V_MORE_RUNS] = "#7f7f7f",
};

static const enum fl_verdict shown[] = {
	FL_V_FASTER, FL_V_SLOWER, FL_V_EQUIVALENT, FL_V_MORE_RUNS,
};

static void label_of(const struct runs_cell *x,
		     const struct fl_rd_cell *const *all, unsigned long n,
		     char *lab, size_t len)
{
	cmp_label(x->first, all, n, lab, len);
	/* data files quote with double quotes */
	for (char *q = lab; *q; q++)
		if (*q == '"')
			*q = '\'';
}

/* the intervals by verdict, each run's point, the labels, the groups;
 * the longest label's length */
static size_t data_blocks(struct fl_gp *g, const struct runs_cmp *c,
			  unsigned int *have)
{
	size_t longest = 0;
	char lab[256];

	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
		unsigned long x = 0;

		fprintf(g->f, "$v%zu << EOD\n# x ratio lo hi\n", k);
		for (unsigned long i = 0; i < c->n; i++) {
			const struct runs_cell *y = &c->cells[i];

			if (y->v == FL_V_NONE)
				continue;
			x++;
			if (y->v != shown[k])
				continue;
			fprintf(g->f, "%lu %.6g %.6g %.6g\n", x, y->s.ratio,
				y->s.ok ? y->s.lo : y->s.ratio,
				y->s.ok ? y->s.hi : y->s.ratio);
			have[k]++;
		}
		fl_gp_end_block(g);
	}
	for (int s = 0; s < 2; s++) {
		unsigned long x = 0;

		fprintf(g->f, "$runs%d << EOD\n# x ratio\n", s);
		for (unsigned long i = 0; i < c->n; i++) {
			const struct runs_cell *y = &c->cells[i];
			double centre;

			if (y->v == FL_V_NONE)
				continue;
			x++;
			centre = fl_median(y->ok[0], y->nok[0]);
			for (unsigned int r = 0; r < y->nok[s]; r++)
				fprintf(g->f, "%.2f %.6g\n",
					(double)x + (s ? 0.25 : -0.25),
					y->ok[s][r] / centre);
		}
		fl_gp_end_block(g);
	}
	const struct fl_rd_cell **all = runs_firsts(c);

	fprintf(g->f, "$labels << EOD\n");
	for (unsigned long i = 0, x = 0; all && i < c->n; i++) {
		if (c->cells[i].v == FL_V_NONE)
			continue;
		label_of(&c->cells[i], all, c->n, lab, sizeof(lab));
		fprintf(g->f, "%lu \"%s\"\n", ++x, lab);
		if (strlen(lab) > longest)
			longest = strlen(lab);
	}
	fl_gp_end_block(g);
	free(all);
	return longest;
}

/* a dashed line before each workload's first cell, its name above */
static void groups(FILE *f, const struct runs_cmp *c)
{
	const char *last = NULL;
	unsigned long x = 0;
	int n = 0;

	for (unsigned long i = 0; i < c->n; i++) {
		const char *w = c->cells[i].first->workload;

		if (c->cells[i].v == FL_V_NONE)
			continue;
		x++;
		if (last && !strcmp(last, w))
			continue;
		last = w;
		fprintf(f, "set arrow %d from first %.1f, graph 0 to first "
			"%.1f, graph 1 nohead lc rgb '#bbbbbb' dt 3\n",
			n + 10, x - 0.5, x - 0.5);
		fprintf(f, "set label %d ", n + 10);
		fl_gp_str(f, w);
		fprintf(f, " at first %.1f, graph 1.02 left font ',9'\n",
			x - 0.4);
		n++;
	}
}

int runs_plot(const char *dir, const struct runs_cmp *c,
	      const struct fl_say *say, char *err, size_t errlen)
{
	unsigned int have[sizeof(shown) / sizeof(shown[0])] = { 0 };
	unsigned long per = 0;
	size_t longest;
	struct fl_gp g;
	char title[512];

	for (unsigned long i = 0; i < c->n; i++)
		per += c->cells[i].v != FL_V_NONE;
	if (!per)
		return 0;
	snprintf(title, sizeof(title), "B/A of each cell's primary figure "
		 "over %u runs of A and %u of B, with 95%% intervals;\n"
		 "points: each run over A's median of its runs (A's left, "
		 "B's right); faster or slower only beyond 1 +- %.0f%%",
		 c->side[0].n, c->side[1].n, c->delta * 100);
	if (fl_gp_open(&g, dir, "ratios", title, err, errlen))
		return -1;
	longest = data_blocks(&g, c, have);
	cmp_plot_frame(&g, title, "B / A (Hodges-Lehmann estimate, 95% CI; "
		       "points: runs)", NULL, per, 18, 760, longest);
	fprintf(g.f, "set tmargin 6\n");
	groups(g.f, c);
	fprintf(g.f, "plot $labels using 1:(1):xtic(2) with dots "
		"lc rgb '#555555' notitle, \\\n\t$runs0 using 1:2 with points "
		"pt 6 ps 0.6 lc rgb '#999999' title 'runs of A', \\\n\t$runs1 "
		"using 1:2 with points pt 7 ps 0.6 lc rgb '#000000' title "
		"'runs of B'");
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
		if (!have[k])
			continue;
		fprintf(g.f, ", \\\n\t$v%zu using 1:2:3:4 with yerrorbars pt 5 "
			"lc rgb '%s' title ", k, colour[shown[k]]);
		fl_gp_str(g.f, fl_verdict_name(shown[k]));
	}
	fprintf(g.f, "\n");
	if (fl_gp_close(&g, err, errlen) || fl_gp_run(&g, say, err, errlen))
		return -1;
	return 1;
}
