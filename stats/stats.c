// SPDX-License-Identifier: GPL-2.0
/* The median, its order-statistic interval, and fairness. */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fl_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* v sorted into tmp (at most FL_STATS_MAX_N values); the count kept */
static size_t sorted_copy(const double *v, size_t n, double *tmp)
{
	if (n > FL_STATS_MAX_N)
		n = FL_STATS_MAX_N;
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), fl_cmp_double);
	return n;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double fl_median(const double *v, size_t n)
{
	double tmp[FL_STATS_MAX_N];

	if (n == 0)
		return 0.0;
	n = sorted_copy(v, n, tmp);
	return median_sorted(tmp, n);
}

double fl_median_sort(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), fl_cmp_double);
	return median_sorted(v, n);
}

void fl_deciles_sort(double *v, size_t n, double *p10, double *p90)
{
	qsort(v, n, sizeof(*v), fl_cmp_double);
	*p10 = v[n / 10];
	*p90 = v[n - 1 - n / 10];
}

/* P(Bin(n, 1/2) <= k), summed in logs so large n neither over- nor
 * underflows */
static double binom_half_cdf(size_t n, size_t k)
{
	double sum = 0.0;

	for (size_t i = 0; i <= k && i <= n; i++)
		sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) - (double)n * M_LN2);
	return sum < 1.0 ? sum : 1.0;
}

int fl_median_ci(const double *v, size_t n, double conf, struct fl_ci *ci)
{
	double s[FL_STATS_MAX_N];
	size_t k = 0;

	memset(ci, 0, sizeof(*ci));
	if (n == 0)
		return -1;
	n = sorted_copy(v, n, s);
	ci->n = (unsigned int)n;
	ci->mid = ci->lo = ci->hi = median_sorted(s, n);
	/* the coverage of [x_(k), x_(n+1-k)] falls as k grows: take the
	 * largest k that still covers conf */
	while (k + 1 <= n / 2 && 1.0 - 2.0 * binom_half_cdf(n, k) >= conf)
		k++;
	if (k == 0)
		return -1;
	ci->lo = s[k - 1];
	ci->hi = s[n - k];
	ci->coverage = 1.0 - 2.0 * binom_half_cdf(n, k - 1);
	ci->ok = 1;
	return 0;
}

int fl_ci_noisy(const struct fl_ci *ci, double target)
{
	return ci->ok && fl_ci_rel_halfwidth(ci) > target;
}

void fl_thread_ops_add(struct fl_thread_ops *t, uint64_t ops)
{
	if (!t->n || ops < t->min)
		t->min = ops;
	if (ops > t->max)
		t->max = ops;
	t->n++;
	t->sum += (double)ops;
	t->sumsq += (double)ops * (double)ops;
}

double fl_thread_ops_jain(const struct fl_thread_ops *t)
{
	if (t->n == 0 || t->sumsq == 0.0)
		return 0.0;
	return t->sum * t->sum / ((double)t->n * t->sumsq);
}

double fl_jain(const uint64_t *x, size_t n)
{
	struct fl_thread_ops t = { 0 };

	for (size_t i = 0; i < n; i++)
		fl_thread_ops_add(&t, x[i]);
	return fl_thread_ops_jain(&t);
}
