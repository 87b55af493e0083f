// SPDX-License-Identifier: GPL-2.0
/* The Hodges-Lehmann location of paired differences and the signed-rank
 * test (stats/paired.h). */
#include "stats/paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/normal.h"
#include "stats/stats.h"

/*
 * The null distribution of the signed-rank statistic T+ for n values
 * without ties or zeros, as P(T+ <= t) for t = 0..n(n+1)/2 into cdf:
 * each rank k is positive or not with chance 1/2, so adding rank k
 * gives P_k(t) = (P_{k-1}(t) + P_{k-1}(t - k)) / 2 (Hollander, Wolfe and
 * Chicco, section 3.1). Probabilities, not counts: 2^100 arrangements
 * need no integer that wide.
 */
static double *t_cdf(unsigned int n)
{
	unsigned long m = (unsigned long)n * (n + 1) / 2;
	double *p = calloc(m + 1, sizeof(double));

	if (!p)
		return NULL;
	p[0] = 1.0;
	for (unsigned long k = 1; k <= n; k++) {
		/* downward, so p[t - k] is still rank k - 1's */
		for (unsigned long t = k * (k + 1) / 2; t >= k; t--)
			p[t] = (p[t] + p[t - k]) / 2.0;
		for (unsigned long t = 0; t < k; t++)
			p[t] /= 2.0;
	}
	for (unsigned long t = 1; t <= m; t++)
		p[t] += p[t - 1];
	return p;
}

/* the mean and the tie-free standard deviation of T+ under the null */
static double t_mean(double n)
{
	return n * (n + 1.0) / 4.0;
}

static double t_sd(double n)
{
	return sqrt(n * (n + 1.0) * (2.0 * n + 1.0) / 24.0);
}

/* C from the null distribution cdf of T+ for n values, or (cdf NULL) from
 * its normal approximation */
static unsigned long c_of(const double *cdf, unsigned int n, double conf)
{
	double alpha2 = (1.0 - conf) / 2.0, c;
	unsigned long m = (unsigned long)n * (n + 1) / 2, k = 0;

	if (cdf) {
		/* the relative slack: a tail exactly alpha/2 counts */
		while (k <= m && cdf[k] <= alpha2 * (1.0 + 1e-9))
			k++;
		return k;
	}
	/* P(T+ <= t) ~ Phi((t + 0.5 - mean) / sd) <= alpha/2 */
	c = floor(t_mean(n) + 0.5 - fl_normal_z(conf) * t_sd(n));
	return c < 0.0 ? 0 : (unsigned long)c;
}

unsigned long fl_paired_c(unsigned int n, double conf)
{
	double *cdf = n && n <= FL_PAIRED_EXACT_N ? t_cdf(n) : NULL;
	unsigned long c = n && (cdf || n > FL_PAIRED_EXACT_N) ?
			  c_of(cdf, n, conf) : 0;

	free(cdf);
	return c;
}

/*
 * The two-sided signed-rank p-value for location 0 (zeros dropped, ties
 * given their mean rank): exact without ties for n <= FL_PAIRED_EXACT_N,
 * else the normal approximation with the tie correction to the variance
 * and a continuity correction (Hollander, Wolfe and Chicco, section
 * 3.1, comments 9 and 10). s: the n values sorted by absolute value,
 * zeros first; cdf: T+'s null distribution for n, or NULL.
 */
static double signed_rank_p(const double *s, unsigned int n,
			    const double *cdf)
{
	unsigned int z = 0, nz;
	double tplus = 0.0, ties = 0.0, var, dev;
	int tied = 0;

	while (z < n && s[z] == 0.0)
		z++;
	nz = n - z;
	if (!nz)
		return 1.0;
	for (unsigned int i = z; i < n;) {
		unsigned int j = i;

		while (j < n && fabs(s[j]) == fabs(s[i]))
			j++;
		/* ranks i - z + 1 .. j - z share their mean */
		for (unsigned int k = i; k < j; k++)
			if (s[k] > 0.0)
				tplus += (double)(i + j - 2 * z + 1) / 2.0;
		ties += pow((double)(j - i), 3) - (double)(j - i);
		tied |= j - i > 1;
		i = j;
	}
	if (!tied && !z && cdf) {
		unsigned long t = (unsigned long)tplus;
		double lower = cdf[t], upper = t ? 1.0 - cdf[t - 1] : 1.0;
		double p = 2.0 * (lower < upper ? lower : upper);

		return p > 1.0 ? 1.0 : p;
	}
	var = t_sd(nz) * t_sd(nz) - ties / 48.0;
	if (var <= 0.0)
		return 1.0;
	dev = fabs(tplus - t_mean(nz)) - 0.5;
	return dev <= 0.0 ? 1.0 : erfc(dev / sqrt(var) / M_SQRT2);
}

/* sorted s (negatives, then the rest) into mag by absolute value: the
 * negatives read backwards merged with the rest read forwards */
static void by_magnitude(const double *s, unsigned int n, double *mag)
{
	unsigned int neg = 0, k = 0;

	while (neg < n && s[neg] < 0.0)
		neg++;
	for (unsigned int i = neg, j = neg; k < n; k++)
		mag[k] = j < n && (!i || s[j] <= -s[i - 1]) ? s[j++] :
			 s[--i];
}

/* The Walsh average of sorted s's i-th and j-th: the one expression
 * every count and every value below uses, so they agree to the bit. */
static double walsh(const double *s, unsigned int i, unsigned int j)
{
	return (s[i] + s[j]) / 2.0;
}

/* How many Walsh averages of sorted s are at most t: for each i, the j
 * >= i up to the last below t, a bound that only falls as i rises. */
static unsigned long count_le(const double *s, unsigned int n, double t)
{
	unsigned long count = 0;
	unsigned int j = n;

	for (unsigned int i = 0; i < n; i++) {
		while (j > i && walsh(s, i, j - 1) > t)
			j--;
		if (j <= i)
			break;
		count += j - i;
	}
	return count;
}

/*
 * The k-th smallest (from 1) Walsh average of sorted s: narrow a value
 * bracket, holding count_le(lo) < k <= count_le(hi), until at most n / 8
 * + 8 (and n) averages lie in (lo, hi] (a count costs O(n); sorting
 * them, more);
 * then gather those and pick. The steps
 * alternate between the point where k falls if the averages in the
 * bracket were spread evenly (few steps when they nearly are) and the
 * bracket's middle (which halves it whatever they are). buf has room
 * for n. Values that cannot be parted (lo and hi adjacent doubles) are
 * all hi.
 */
static double kth_walsh(const double *s, unsigned int n, unsigned long k,
			double *buf)
{
	double lo = s[0] - 1.0 - fabs(s[0]), hi = s[n - 1];
	unsigned long clo = 0, chi = (unsigned long)n * (n + 1) / 2, got = 0;
	unsigned int jlo = n, jhi = n, step = 0;
	unsigned long cap = n / 8 + 8 < n ? n / 8 + 8 : n;

	while (chi - clo > cap) {
		double mid = lo + (hi - lo) / 2.0;
		unsigned long c;

		if (step++ % 2 == 0)
			mid = lo + (hi - lo) * ((double)(k - clo) - 0.5) /
			      (double)(chi - clo);
		if (!(mid > lo && mid < hi))
			mid = lo + (hi - lo) / 2.0;
		if (!(mid > lo && mid < hi))
			return hi;
		c = count_le(s, n, mid);
		if (c >= k) {
			hi = mid;
			chi = c;
		} else {
			lo = mid;
			clo = c;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		while (jhi > i && walsh(s, i, jhi - 1) > hi)
			jhi--;
		while (jlo > i && walsh(s, i, jlo - 1) > lo)
			jlo--;
		for (unsigned int j = jlo > i ? jlo : i; j < jhi; j++)
			buf[got++] = walsh(s, i, j);
	}
	qsort(buf, got, sizeof(double), fl_cmp_double);
	return buf[k - clo - 1];
}

int fl_paired_hl(const double *x, unsigned int n, double conf,
		 struct fl_paired_ci *out)
{
	unsigned long m = (unsigned long)n * (n + 1) / 2, c;
	double *s, *buf, *cdf;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->est = out->lo = out->hi = NAN;
	out->p = 1.0;
	for (unsigned int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1;
	if (!n)
		return -1;
	s = malloc(n * sizeof(double));
	buf = malloc(n * sizeof(double));
	if (!s || !buf) {
		free(s);
		free(buf);
		return -1;
	}
	memcpy(s, x, n * sizeof(double));
	qsort(s, n, sizeof(double), fl_cmp_double);
	by_magnitude(s, n, buf);
	cdf = n <= FL_PAIRED_EXACT_N ? t_cdf(n) : NULL;
	out->p = signed_rank_p(buf, n, cdf);
	out->est = m % 2 ? kth_walsh(s, n, (m + 1) / 2, buf) :
		   (kth_walsh(s, n, m / 2, buf) +
		    kth_walsh(s, n, m / 2 + 1, buf)) / 2.0;
	c = cdf || n > FL_PAIRED_EXACT_N ? c_of(cdf, n, conf) : 0;
	free(cdf);
	if (c >= 1 && c <= m + 1 - c) {
		out->lo = kth_walsh(s, n, c, buf);
		out->hi = kth_walsh(s, n, m + 1 - c, buf);
		out->has_ci = 1;
	}
	free(s);
	free(buf);
	return out->has_ci ? 0 : -1;
}
