// SPDX-License-Identifier: GPL-2.0
/* Simultaneous intervals by the permutation max-t method (stats/maxt.h). */
#include "stats/maxt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/stats.h"

/* the seed of the drawn reassignments: the same data, the same answer */
#define MAXT_SEED	0x6d61787479ULL

/* Welch's difference of mean logs and its standard error for one
 * summary, the units in `on_b` (bit i set: unit i on side B) */
static void welch(const double *logs, size_t n, uint64_t on_b, double *d,
		  double *se)
{
	double sum[2] = { 0, 0 }, ss[2] = { 0, 0 }, m[2];
	size_t cnt[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		int s = (int)(on_b >> i & 1);

		sum[s] += logs[i];
		cnt[s]++;
	}
	for (int s = 0; s < 2; s++)
		m[s] = sum[s] / (double)cnt[s];
	for (size_t i = 0; i < n; i++) {
		int s = (int)(on_b >> i & 1);

		ss[s] += (logs[i] - m[s]) * (logs[i] - m[s]);
	}
	*d = m[1] - m[0];
	*se = sqrt(ss[0] / (double)(cnt[0] - 1) / (double)cnt[0] +
		   ss[1] / (double)(cnt[1] - 1) / (double)cnt[1]);
}

/* |t| of a summary; a summary without spread counts only if it moved */
static double abs_t(double d, double se)
{
	if (se > 0)
		return fabs(d) / se;
	return d == 0 ? 0 : INFINITY;
}

/* max over the family of |t| for the reassignment on_b */
static double max_t(const double *logs, size_t n, size_t k, uint64_t on_b)
{
	double most = 0;

	for (size_t w = 0; w < k; w++) {
		double d, se, t;

		welch(logs + w * n, n, on_b, &d, &se);
		t = abs_t(d, se);
		if (t > most)
			most = t;
	}
	return most;
}

/* the next set of the same size after v (Gosper's hack) */
static uint64_t next_same_size(uint64_t v)
{
	uint64_t low = v & -v, up = v + low;

	return up | (((v ^ up) >> 2) / low);
}

/* C(n, r), or more than limit once it passes limit */
static double choose(size_t n, size_t r, double limit)
{
	double c = 1;

	for (size_t i = 1; i <= r && c <= limit; i++)
		c = c * (double)(n - r + i) / (double)i;
	return c;
}

/* a random set of nb units out of n (a partial Fisher-Yates shuffle) */
static uint64_t draw_b(size_t n, size_t nb, uint64_t *rng)
{
	unsigned char idx[FL_MAXT_MAX_UNITS];
	uint64_t set = 0;

	for (size_t i = 0; i < n; i++)
		idx[i] = (unsigned char)i;
	for (size_t i = 0; i < nb; i++) {
		size_t j = i + (size_t)(fl_uniform(rng) * (double)(n - i));
		unsigned char t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
		set |= 1ULL << idx[i];
	}
	return set;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * The max |t| of every reassignment into stat (the observed one, the
 * last nb units on B, among them: `observed`); their count, or 0 when they would
 * not fit.
 */
static size_t reassign(const double *logs, size_t n, size_t nb, size_t k,
		       uint64_t observed, double *stat, size_t room)
{
	size_t count = 0;

	if (choose(n, nb, FL_MAXT_ENUMERATE) <= FL_MAXT_ENUMERATE) {
		uint64_t end = 1ULL << n;

		for (uint64_t v = (1ULL << nb) - 1; v < end && count < room;
		     v = next_same_size(v))
			stat[count++] = max_t(logs, n, k, v);
		return count;
	}
	{
		uint64_t rng = MAXT_SEED;

		stat[count++] = max_t(logs, n, k, observed);
		while (count < room && count <= FL_MAXT_DRAWS)
			stat[count++] = max_t(logs, n, k,
					      draw_b(n, nb, &rng));
	}
	return count;
}

int fl_maxt_intervals(const double *a, size_t na, const double *b, size_t nb,
		      size_t k, double conf, struct fl_shift *out)
{
	static double logs[FL_MAXT_MAX_FAMILY * FL_MAXT_MAX_UNITS];
	static double stat[FL_MAXT_ENUMERATE + FL_MAXT_DRAWS + 1];
	size_t n = na + nb, count, at;
	uint64_t observed;
	double c;

	for (size_t w = 0; w < k; w++) {
		double sa = 0, sb = 0;

		for (size_t i = 0; i < na; i++)
			sa += log(a[w * na + i]);
		for (size_t i = 0; i < nb; i++)
			sb += log(b[w * nb + i]);
		out[w] = (struct fl_shift){ .ok = 0, .p = 1.0,
			.na = (unsigned int)na, .nb = (unsigned int)nb,
			.lo = NAN, .hi = NAN, .ratio = na && nb ?
			exp(sb / (double)nb - sa / (double)na) : NAN };
	}
	/* 64-bit sets: n stays below 64 */
	if (na < 2 || nb < 2 || n >= 64 || n > FL_MAXT_MAX_UNITS ||
	    k > FL_MAXT_MAX_FAMILY || !(conf > 0 && conf < 1))
		return -1;
	for (size_t w = 0; w < k; w++) {
		for (size_t i = 0; i < na; i++)
			logs[w * n + i] = log(a[w * na + i]);
		for (size_t i = 0; i < nb; i++)
			logs[w * n + na + i] = log(b[w * nb + i]);
	}
	observed = ((1ULL << nb) - 1) << (n - nb);
	count = reassign(logs, n, nb, k, observed, stat,
			 sizeof(stat) / sizeof(stat[0]));
	/* the smallest c with at most 1 - conf of them beyond it */
	at = (size_t)ceil(conf * (double)count);
	if (!count || at >= count)
		return -1;
	qsort(stat, count, sizeof(stat[0]), by_value);
	c = stat[at - 1];
	if (!isfinite(c))
		return -1;
	for (size_t w = 0; w < k; w++) {
		double d, se, t;
		size_t beyond = 0;

		welch(logs + w * n, n, observed, &d, &se);
		t = abs_t(d, se);
		for (size_t i = 0; i < count; i++)
			beyond += stat[i] >= t;
		out[w].lo = exp(d - c * se);
		out[w].hi = exp(d + c * se);
		out[w].p = (double)beyond / (double)count;
		out[w].ok = 1;
	}
	return 0;
}
