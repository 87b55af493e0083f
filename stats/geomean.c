// SPDX-License-Identifier: GPL-2.0
/* The geometric mean of ratios, with a bootstrap interval over cells. */
#include "stats/shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

#define RESAMPLES 2000

void fl_geomean_ci(const double *ratio, size_t n, double conf,
		   uint64_t seed, struct fl_geomean *g)
{
	double *mean = malloc(RESAMPLES * sizeof(double)), sum = 0.0;
	uint64_t state = seed;

	memset(g, 0, sizeof(*g));
	g->n = (unsigned int)n;
	for (size_t i = 0; i < n; i++)
		sum += log(ratio[i]);
	g->mean = g->lo = g->hi = n ? exp(sum / (double)n) : 1.0;
	if (n < 2 || !mean) {
		free(mean);
		return;
	}
	for (int r = 0; r < RESAMPLES; r++) {
		double s = 0.0;

		for (size_t i = 0; i < n; i++)
			s += log(ratio[(size_t)(fl_uniform(&state) *
						(double)n)]);
		mean[r] = s / (double)n;
	}
	qsort(mean, RESAMPLES, sizeof(double), fl_cmp_double);
	g->lo = exp(mean[(size_t)((1.0 - conf) / 2.0 * RESAMPLES)]);
	g->hi = exp(mean[(size_t)((1.0 + conf) / 2.0 * RESAMPLES) - 1]);
	g->ok = 1;
	free(mean);
}
