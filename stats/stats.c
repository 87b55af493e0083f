// SPDX-License-Identifier: GPL-2.0
/* Median, spread and fairness. */
#include "stats/stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fl_median(const double *v, size_t n)
{
	double tmp[256];

	if (n == 0)
		return 0.0;
	if (n > sizeof(tmp) / sizeof(tmp[0]))
		n = sizeof(tmp) / sizeof(tmp[0]);
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2.0;
}

double fl_spread(const double *v, size_t n)
{
	double lo, hi, med;

	if (n < 2)
		return 0.0;
	lo = hi = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	med = fl_median(v, n);
	return med > 0.0 ? (hi - lo) / med : 0.0;
}

double fl_jain(const uint64_t *x, size_t n)
{
	double sum = 0.0, sq = 0.0;

	for (size_t i = 0; i < n; i++) {
		sum += (double)x[i];
		sq += (double)x[i] * (double)x[i];
	}
	if (n == 0 || sq == 0.0)
		return 0.0;
	return sum * sum / ((double)n * sq);
}

int fl_is_noisy(double spread)
{
	return spread > FL_NOISY_SPREAD;
}
