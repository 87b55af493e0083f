// SPDX-License-Identifier: GPL-2.0
/* Spearman's rank correlation and a weighted median slope (covary.h). */
#include "stats/covary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/shift.h"
#include "stats/stats.h"

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* v's ranks into rank, ties given their mean rank; -1 out of memory */
static int ranks(const double *v, size_t n, double *rank)
{
	struct ranked *r = malloc(n * sizeof(*r));

	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ v[i], i };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			rank[r[k].i] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
	free(r);
	return 0;
}

/* Pearson's correlation of two rank vectors; NaN when one is flat */
static double correlation(const double *a, const double *b, size_t n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

	for (size_t i = 0; i < n; i++) {
		ma += a[i];
		mb += b[i];
	}
	ma /= (double)n;
	mb /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

static double spearman_p(double rho, size_t n)
{
	double t;

	if (!isfinite(rho))
		return 1.0;
	if (fabs(rho) >= 1.0)
		return 0.0;
	t = rho * sqrt((double)(n - 2) / (1.0 - rho * rho));
	return erfc(fabs(t) / sqrt(2.0));
}

struct slope {
	double s, w;
};

/*
 * The weighted median of s[0..n) (total weight `total`): the smallest
 * slope at which the weight at or below it reaches half. Quickselect on
 * the slopes, keeping the weight below the part still searched: expected
 * linear time, where sorting the n^2/2 pairs of a large comparison
 * costs more than everything else compare does.
 */
static double weighted_median(struct slope *s, size_t n, double total)
{
	size_t lo = 0, hi = n;	/* the answer is in s[lo..hi) */
	double below = 0.0;	/* the weight of everything left of lo */
	uint64_t rng = 1;

	while (hi - lo > 1) {
		double pivot = s[lo + fl_splitmix64(&rng) % (hi - lo)].s;
		size_t i = lo, j = lo, k = hi;
		double wl = 0.0, we = 0.0;

		/* three ways: [lo, i) < pivot, [i, j) == pivot, [k, hi) > */
		while (j < k) {
			if (s[j].s < pivot) {
				struct slope t = s[i];

				s[i++] = s[j];
				s[j++] = t;
			} else if (s[j].s > pivot) {
				struct slope t = s[--k];

				s[k] = s[j];
				s[j] = t;
			} else {
				j++;
			}
		}
		for (size_t m = lo; m < i; m++)
			wl += s[m].w;
		for (size_t m = i; m < j; m++)
			we += s[m].w;
		if (below + wl >= total / 2) {
			hi = i;
		} else if (below + wl + we >= total / 2) {
			return pivot;
		} else {
			below += wl + we;
			lo = j;
		}
	}
	return s[lo].s;
}

/*
 * The median of the pairwise slopes (y_j - y_i) / (x_j - x_i), each
 * weighted by x_j - x_i (> 0): Sievers' weighting of Sen's estimator.
 * Unweighted, the many pairs within one cluster of x (a probe that reads
 * one of two levels, plus a little noise) would outvote the pairs across
 * the clusters, which are the ones that carry the slope, and pull it to
 * the noise's zero.
 */
static int weighted_slope(const double *x, const double *y, size_t n,
			  double *slope)
{
	struct slope *s = malloc((n * (n - 1) / 2 + 1) * sizeof(*s));
	double total = 0.0;
	size_t k = 0;

	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (x[j] > x[i]) {
				s[k].s = (y[j] - y[i]) / (x[j] - x[i]);
				s[k].w = x[j] - x[i];
				total += s[k++].w;
			}
	*slope = k ? weighted_median(s, k, total) : 0.0;
	free(s);
	return 0;
}

int fl_covary(const double *x, const double *y, size_t n,
	      struct fl_covary *c)
{
	double *fx = malloc((n + 1) * sizeof(double));
	double *fy = malloc((n + 1) * sizeof(double));
	double *rx = malloc((n + 1) * sizeof(double));
	double *ry = malloc((n + 1) * sizeof(double));
	size_t m = 0;
	int rc = -1;

	*c = (struct fl_covary){ .p = 1.0 };
	if (!fx || !fy || !rx || !ry)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i])) {
			fx[m] = x[i];
			fy[m++] = y[i];
		}
	c->n = m;
	if (m < 3 || ranks(fx, m, rx) || ranks(fy, m, ry) ||
	    weighted_slope(fx, fy, m, &c->slope))
		goto out;
	c->rho = correlation(rx, ry, m);
	c->p = spearman_p(c->rho, m);
	if (!isfinite(c->rho))
		c->rho = 0.0;
	rc = 0;
out:
	free(fx);
	free(fy);
	free(rx);
	free(ry);
	return rc;
}

int fl_covary_cells(const double *const *v, const double *const *x,
		    const unsigned int *n, size_t ncells, struct fl_covary *c)
{
	size_t total = 0, m = 0;
	double *px, *py, *tmp;
	int rc = -1;

	for (size_t i = 0; i < ncells; i++)
		total += n[i];
	px = malloc((total + 1) * sizeof(double));
	py = malloc((total + 1) * sizeof(double));
	tmp = malloc((total + 1) * sizeof(double));
	*c = (struct fl_covary){ .p = 1.0 };
	if (!px || !py || !tmp)
		goto out;
	for (size_t i = 0; i < ncells; i++) {
		size_t k = 0;

		for (unsigned int j = 0; j < n[i]; j++)
			if (isfinite(x[i][j]) && x[i][j] > 0 && v[i][j] > 0) {
				px[m + k] = log(x[i][j]);
				py[m + k++] = log(v[i][j]);
			}
		if (k < 3)
			continue;
		/* the medians of copies: px and py stay paired */
		memcpy(tmp, px + m, k * sizeof(double));
		double mx = fl_median_sort(tmp, k);

		memcpy(tmp, py + m, k * sizeof(double));
		double my = fl_median_sort(tmp, k);

		for (size_t j = 0; j < k; j++) {
			px[m + j] -= mx;
			py[m + j] -= my;
		}
		m += k;
	}
	rc = fl_covary(px, py, m, c);
out:
	free(px);
	free(py);
	free(tmp);
	return rc;
}

void fl_covary_adjust(const double *v, const double *x, unsigned int n,
		      double slope, double ref, double fallback, double *out)
{
	for (unsigned int j = 0; j < n; j++) {
		double lx = isfinite(x[j]) && x[j] > 0 ? log(x[j]) : fallback;

		out[j] = v[j] * exp(-slope * (lx - ref));
	}
}
