// SPDX-License-Identifier: GPL-2.0
/* The family of paired cells: adjusted p-values and the geometric mean
 * ratio (stats/paired.h). */
#include "stats/paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Widen g to the interval of the mean of the cells' log estimates from
 * their own half-widths, as independent errors at one confidence. */
static void widen_by_cells(const struct fl_paired_ci *cell, size_t n,
			   struct fl_geomean *g)
{
	double sum = 0.0, squares = 0.0, mean, half;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double hw = (cell[i].hi - cell[i].lo) / 2.0;

		if (!cell[i].has_ci)
			continue;
		sum += cell[i].est;
		squares += hw * hw;
		k++;
	}
	if (!k)
		return;
	mean = sum / (double)k;
	half = sqrt(squares) / (double)k;
	if (exp(mean - half) < g->lo)
		g->lo = exp(mean - half);
	if (exp(mean + half) > g->hi)
		g->hi = exp(mean + half);
}

void fl_paired_family(const struct fl_paired_ci *cell, size_t n,
		      double conf, uint64_t seed, double *p_adj,
		      struct fl_geomean *g)
{
	double *p, *ratio;
	size_t k = 0;

	memset(g, 0, sizeof(*g));
	g->mean = g->lo = g->hi = 1.0;
	if (!n)
		return;
	p = malloc(n * sizeof(double));
	ratio = malloc(n * sizeof(double));
	if (!p || !ratio) {
		/* no claim without the adjustment */
		for (size_t i = 0; i < n; i++)
			p_adj[i] = 1.0;
		free(p);
		free(ratio);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		p[i] = cell[i].n ? cell[i].p : 1.0;
		if (cell[i].has_ci)
			ratio[k++] = exp(cell[i].est);
	}
	fl_bh_adjust(p, n, p_adj);
	fl_geomean_ci(ratio, k, conf, seed, g);
	if (k == 1) {
		/* the one cell's own interval */
		for (size_t i = 0; i < n; i++)
			if (cell[i].has_ci) {
				g->lo = exp(cell[i].lo);
				g->hi = exp(cell[i].hi);
				g->ok = 1;
			}
	} else {
		widen_by_cells(cell, n, g);
	}
	free(p);
	free(ratio);
}
