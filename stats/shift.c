// SPDX-License-Identifier: GPL-2.0
/* The Hodges-Lehmann ratio and the rank-sum test. */
#include "stats/shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/normal.h"
#include "stats/stats.h"

/*
 * The null distribution of U (pairs with b > a) for n and m values
 * without ties, as P(U <= u) for u = 0..n*m into cdf: the number of
 * arrangements with U = u obeys N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u)
 * (the last value is an a, with j b's below it, or a b). Counts are
 * doubles: C(100, 50) is far beyond 64 bits, and only additions occur.
 */
static int u_cdf(size_t n, size_t m, double *cdf)
{
	size_t deg = n * m + 1;
	double *prev = calloc((m + 1) * deg, sizeof(double));
	double *cur = calloc((m + 1) * deg, sizeof(double));
	double total = 0.0;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -1;
	}
	for (size_t j = 0; j <= m; j++)
		prev[j * deg] = 1.0;		/* i = 0: one arrangement */
	for (size_t i = 1; i <= n; i++) {
		memset(cur, 0, (m + 1) * deg * sizeof(double));
		cur[0] = 1.0;			/* j = 0 */
		for (size_t j = 1; j <= m; j++)
			for (size_t u = 0; u <= i * j; u++)
				cur[j * deg + u] = (u >= j ?
					prev[j * deg + u - j] : 0.0) +
					cur[(j - 1) * deg + u];
		double *t = prev;

		prev = cur;
		cur = t;
	}
	for (size_t u = 0; u < deg; u++)
		total += prev[m * deg + u];
	for (size_t u = 0; u < deg; u++)
		cdf[u] = (u ? cdf[u - 1] : 0.0) + prev[m * deg + u] / total;
	free(prev);
	free(cur);
	return 0;
}

/* The rank-sum p-value by the normal approximation with the tie
 * correction to the variance and a continuity correction. */
static double p_normal(const double *la, size_t na, const double *lb,
		       size_t nb, double u)
{
	size_t n = na + nb;
	double *all = malloc(n * sizeof(double)), ties = 0.0;
	double mean = (double)na * (double)nb / 2.0, var, z;

	if (!all)
		return 1.0;
	memcpy(all, la, na * sizeof(double));
	memcpy(all + na, lb, nb * sizeof(double));
	qsort(all, n, sizeof(double), fl_cmp_double);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && all[j] == all[i])
			j++;
		ties += pow((double)(j - i), 3) - (double)(j - i);
		i = j;
	}
	free(all);
	var = (double)na * (double)nb / 12.0 *
	      ((double)n + 1.0 - ties / ((double)n * ((double)n - 1.0)));
	if (var <= 0.0)
		return 1.0;	/* every value equal: no evidence at all */
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	return z <= 0.0 ? 1.0 : erfc(z / M_SQRT2);
}

/* Exact p-value, or the critical count c (the interval is the c-th
 * smallest to the c-th largest difference; 0 when none reaches conf). */
struct rank_test {
	double p;
	size_t c;
};

static void rank_test(const double *la, size_t na, const double *lb,
		      size_t nb, double u, int ties, double conf,
		      struct rank_test *t)
{
	size_t nm = na * nb;
	double alpha2 = (1.0 - conf) / 2.0;
	double *cdf = nm <= FL_SHIFT_EXACT_NM ?
		      malloc((nm + 1) * sizeof(double)) : NULL;

	if (cdf && u_cdf(na, nb, cdf) == 0) {
		size_t ui = (size_t)u;

		t->c = 0;
		while (t->c <= nm && cdf[t->c] <= alpha2)
			t->c++;
		/* P(U <= c - 1) <= alpha/2: the interval's c */
		if (ties) {
			t->p = p_normal(la, na, lb, nb, u);
		} else {
			double lower = cdf[ui];
			double upper = ui ? 1.0 - cdf[ui - 1] : 1.0;

			t->p = 2.0 * (lower < upper ? lower : upper);
			if (t->p > 1.0)
				t->p = 1.0;
		}
		free(cdf);
		return;
	}
	free(cdf);
	double z = fl_normal_z(conf);
	double c = (double)nm / 2.0 -
		   z * sqrt((double)nm * (double)(na + nb + 1) / 12.0);

	t->c = c < 1.0 ? 0 : (size_t)floor(c);
	t->p = p_normal(la, na, lb, nb, u);
}

static int logs_of(const double *v, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0.0))
			return -1;
		out[i] = log(v[i]);
	}
	return 0;
}

/* The n*m differences log b_j - log a_i, sorted, into a new array (NULL:
 * a value not positive, too many, or no memory); the rank-sum count U
 * (pairs with b > a, ties a half) into u and whether any pair ties. */
static double *log_differences(const double *a, size_t na, const double *b,
			       size_t nb, double *la, double *lb, double *u,
			       int *ties)
{
	double *d;

	if (!na || !nb || na > FL_STATS_MAX_N || nb > FL_STATS_MAX_N ||
	    logs_of(a, na, la) || logs_of(b, nb, lb))
		return NULL;
	d = malloc(na * nb * sizeof(double));
	if (!d)
		return NULL;
	*u = 0.0;
	*ties = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++) {
			d[i * nb + j] = lb[j] - la[i];
			*u += d[i * nb + j] > 0 ? 1.0 :
			      d[i * nb + j] == 0 ? 0.5 : 0.0;
			*ties |= d[i * nb + j] == 0;
		}
	qsort(d, na * nb, sizeof(double), fl_cmp_double);
	return d;
}

/* Widen s's interval to the central conf range of the nm sorted
 * differences d: the k-th smallest and k-th largest, at most (1 - conf)
 * / 2 of the pairs below and as many above (6 and 6 repetitions, 36
 * pairs: k = 0, the extremes). */
static void widen_to_reps(const double *d, size_t nm, double conf,
			  struct fl_shift *s)
{
	size_t k = (size_t)floor((1.0 - conf) / 2.0 * (double)nm);

	if (exp(d[k]) < s->lo)
		s->lo = exp(d[k]);
	if (exp(d[nm - 1 - k]) > s->hi)
		s->hi = exp(d[nm - 1 - k]);
	s->by_reps = 1;
}

static int shift(const double *a, size_t na, const double *b, size_t nb,
		 double conf, int by_reps, struct fl_shift *s)
{
	double la[FL_STATS_MAX_N], lb[FL_STATS_MAX_N], *d, u;
	struct rank_test t;
	size_t nm = na * nb;
	int ties;

	memset(s, 0, sizeof(*s));
	s->p = 1.0;
	s->na = (unsigned int)na;
	s->nb = (unsigned int)nb;
	d = log_differences(a, na, b, nb, la, lb, &u, &ties);
	if (!d)
		return -1;
	s->ratio = s->lo = s->hi = exp(nm % 2 ? d[nm / 2] :
				       (d[nm / 2 - 1] + d[nm / 2]) / 2.0);
	rank_test(la, na, lb, nb, u, ties, conf, &t);
	s->p = t.p;
	if (t.c >= 1 && t.c <= nm - t.c + 1) {
		s->lo = exp(d[t.c - 1]);
		s->hi = exp(d[nm - t.c]);
		s->ok = 1;
		if (by_reps)
			widen_to_reps(d, nm, conf, s);
	}
	free(d);
	return s->ok ? 0 : -1;
}

int fl_shift_ratio(const double *a, size_t na, const double *b, size_t nb,
		   double conf, struct fl_shift *s)
{
	return shift(a, na, b, nb, conf, 0, s);
}

int fl_shift_ratio_by_reps(const double *a, size_t na, const double *b,
			   size_t nb, double conf, struct fl_shift *s)
{
	return shift(a, na, b, nb, conf, 1, s);
}

void fl_bh_adjust(const double *p, size_t n, double *adj)
{
	size_t *order = malloc((n ? n : 1) * sizeof(size_t));
	double running = 1.0;

	if (!order) {
		for (size_t i = 0; i < n; i++)
			adj[i] = 1.0;	/* no claim without the adjustment */
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* insertion sort by p: n is a matrix's cell count */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && p[order[j]] < p[order[j - 1]];
		     j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* from the largest p down: p_(k) n / k, made monotone */
	for (size_t k = n; k > 0; k--) {
		double v = p[order[k - 1]] * (double)n / (double)k;

		if (v < running)
			running = v;
		adj[order[k - 1]] = running;
	}
	free(order);
}

void fl_shift_widen(struct fl_shift *s, double w)
{
	if (!s->ok || !(w > 0))
		return;
	s->lo *= exp(-w);
	s->hi *= exp(w);
}
