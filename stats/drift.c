// SPDX-License-Identifier: GPL-2.0
/* Drift over time within one run: see drift.h. */
#include "stats/drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

struct timed {
	double t, r;
	unsigned int block;
};

static int by_time(const void *x, const void *y)
{
	const struct timed *a = x, *b = y;

	return (a->t > b->t) - (a->t < b->t);
}

static int by_value(const void *x, const void *y)
{
	const struct timed *a = x, *b = y;

	return (a->r > b->r) - (a->r < b->r);
}

/* P(chi-square with 8 degrees of freedom > x): e^(-x/2) sum_{i<4}
 * (x/2)^i / i!, the closed form for an even count */
static double chi2_8_tail(double x)
{
	double h = x / 2.0, term = 1.0, sum = 1.0;

	if (!(x > 0.0))
		return 1.0;
	for (int i = 1; i < FL_DRIFT_BLOCKS / 2; i++) {
		term *= h / i;
		sum += term;
	}
	return fmin(1.0, exp(-h) * sum);
}

/* Kruskal-Wallis H over v (sorted by value, each with its block), ties
 * given their average rank and corrected for; its p-value */
static double kruskal_wallis(struct timed *v, size_t n)
{
	double rank_sum[FL_DRIFT_BLOCKS] = { 0 };
	size_t count[FL_DRIFT_BLOCKS] = { 0 };
	double ties = 0.0, h = 0.0, nn = (double)n;

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[j + 1].r == v[i].r)
			j++;
		double rank = (double)(i + j) / 2.0 + 1.0;
		double t = (double)(j - i + 1);

		ties += t * t * t - t;
		for (size_t k = i; k <= j; k++) {
			rank_sum[v[k].block] += rank;
			count[v[k].block]++;
		}
		i = j + 1;
	}
	for (int b = 0; b < FL_DRIFT_BLOCKS; b++)
		if (count[b])
			h += rank_sum[b] * rank_sum[b] / (double)count[b];
	h = 12.0 / (nn * (nn + 1.0)) * h - 3.0 * (nn + 1.0);
	if (ties >= nn * nn * nn - nn)
		return 1.0;		/* every value the same: no drift */
	h /= 1.0 - ties / (nn * nn * nn - nn);
	return chi2_8_tail(h);
}

int fl_drift_over_time(const double *t, const double *resid, size_t n,
		       struct fl_drift *d)
{
	struct timed *v = calloc(n + 1, sizeof(*v));
	double med[FL_DRIFT_BLOCKS];
	size_t m = 0;

	memset(d, 0, sizeof(*d));
	d->p = 1.0;
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (isfinite(t[i]) && isfinite(resid[i]))
			v[m++] = (struct timed){ .t = t[i], .r = resid[i] };
	d->n = m;
	if (m < FL_DRIFT_MIN_N) {
		free(v);
		return -1;
	}
	qsort(v, m, sizeof(*v), by_time);
	for (int b = 0; b < FL_DRIFT_BLOCKS; b++) {
		size_t lo = m * (size_t)b / FL_DRIFT_BLOCKS;
		size_t hi = m * (size_t)(b + 1) / FL_DRIFT_BLOCKS;
		double r[FL_STATS_MAX_N];
		size_t k = 0;

		for (size_t i = lo; i < hi; i++) {
			v[i].block = (unsigned int)b;
			if (k < FL_STATS_MAX_N)
				r[k++] = v[i].r;
		}
		med[b] = fl_median(r, k);
	}
	double lo = med[0], hi = med[0];

	for (int b = 1; b < FL_DRIFT_BLOCKS; b++) {
		lo = fmin(lo, med[b]);
		hi = fmax(hi, med[b]);
	}
	d->spread = hi - lo;
	qsort(v, m, sizeof(*v), by_value);
	d->p = kruskal_wallis(v, m);
	d->ok = 1;
	d->drifted = d->p < FL_DRIFT_ALPHA;
	free(v);
	return 0;
}

int fl_drift_of_cells(const double *const *v, const double *const *t,
		      const unsigned int *n, size_t ncells,
		      struct fl_drift *d)
{
	size_t cap = 0, m = 0;
	double *tt, *res;
	int rc = -1;

	for (size_t c = 0; c < ncells; c++)
		cap += n[c];
	tt = calloc(cap + 1, sizeof(double));
	res = calloc(cap + 1, sizeof(double));
	for (size_t c = 0; tt && res && c < ncells; c++) {
		double med = fl_median(v[c], n[c]);

		if (n[c] < 2 || !(med > 0))
			continue;
		for (unsigned int j = 0; j < n[c]; j++) {
			if (!(v[c][j] > 0))
				continue;
			tt[m] = t[c][j];
			res[m++] = log(v[c][j] / med);
		}
	}
	if (tt && res)
		rc = fl_drift_over_time(tt, res, m, d);
	else
		memset(d, 0, sizeof(*d));
	free(tt);
	free(res);
	return rc;
}

double fl_drift_widen(const struct fl_drift *a, const struct fl_drift *b)
{
	return fmax(a->drifted ? a->spread : 0.0,
		    b->drifted ? b->spread : 0.0);
}

