// SPDX-License-Identifier: GPL-2.0
/* Spearman's rank correlation and the Theil-Sen slope (covary.h). */
#include "stats/covary.h"

#include <math.h>
#include <stdlib.h>

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

/* Sen's slope: the median of (y_j - y_i) / (x_j - x_i) over x_i != x_j */
static int theil_sen(const double *x, const double *y, size_t n,
		     double *slope)
{
	double *s = malloc((n * (n - 1) / 2 + 1) * sizeof(double));
	size_t k = 0;

	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (x[j] != x[i])
				s[k++] = (y[j] - y[i]) / (x[j] - x[i]);
	*slope = 0.0;
	if (k) {
		qsort(s, k, sizeof(double), fl_cmp_double);
		*slope = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2.0;
	}
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
	    theil_sen(fx, fy, m, &c->slope))
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
