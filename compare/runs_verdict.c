// SPDX-License-Identifier: GPL-2.0
/* A cell's ratio and verdict with the run as the unit (compare/runs.h). */
#include "compare/runs.h"

#include <math.h>

#include "stats/stats.h"
#include "stats/maxt.h"

/* the rank test's asymptotic efficiency against the t test: 3/pi */
#define RANK_EFFICIENCY	0.955
#define Z_975		1.96

int fl_runs_shift(const double *a, size_t na, const double *b, size_t nb,
		  struct fl_shift *s)
{
	return fl_shift_ratio(a, na, b, nb, FL_CONFIDENCE, s);
}

int fl_runs_summaries(const double *obs_a, size_t na, const double *obs_b,
		      size_t nb, size_t k, struct fl_shift *out)
{
	int rc = fl_maxt_intervals(obs_a, na, obs_b, nb, k, FL_CONFIDENCE,
				   out);

	if (!rc && (na < FL_RUNS_MIN_SUMMARY || nb < FL_RUNS_MIN_SUMMARY)) {
		for (size_t w = 0; w < k; w++)
			out[w].ok = 0;
		rc = -1;
	}
	return rc;
}

/* the sum of squared deviations of the logs of v from their mean */
static double log_ss(const double *v, size_t n)
{
	double mean = 0.0, ss = 0.0;

	for (size_t i = 0; i < n; i++)
		mean += log(v[i]);
	mean /= (double)(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		ss += (log(v[i]) - mean) * (log(v[i]) - mean);
	return ss;
}

unsigned int fl_runs_needed(const double *a, size_t na, const double *b,
			    size_t nb, double ratio, double delta)
{
	size_t have = na > nb ? na : nb;
	double s, d, margin, g, n;

	if (na + nb < 3 || !(ratio > 0))
		return 0;
	s = sqrt((log_ss(a, na) + log_ss(b, nb)) / (double)(na + nb - 2));
	d = fabs(log(ratio));
	/* beyond the margin, how far past it; within, how far inside */
	margin = d > log1p(delta) ? log1p(delta) : -log1p(-delta);
	g = fabs(d - margin);
	n = g > 0 ? 2.0 * pow(Z_975 * s / g, 2) / RANK_EFFICIENCY :
		    FL_RUNS_NEEDED_CAP;
	if (!(n < FL_RUNS_NEEDED_CAP))
		return FL_RUNS_NEEDED_CAP;
	n = ceil(n);
	if (n < FL_RUNS_MIN_INTERVAL)
		n = FL_RUNS_MIN_INTERVAL;
	if (n <= (double)have)
		n = (double)have + 1;
	return (unsigned int)n;
}

enum fl_verdict fl_runs_verdict_of(const struct fl_shift *s,
				   double p_adjusted, double delta,
				   int lower_is_better, const double *a,
				   size_t na, const double *b, size_t nb,
				   unsigned int *needed)
{
	enum fl_verdict v = fl_verdict_of(s, p_adjusted, delta,
					  lower_is_better);

	*needed = 0;
	if (v != FL_V_INCONCLUSIVE && v != FL_V_UNDECIDED)
		return v;
	*needed = fl_runs_needed(a, na, b, nb, s->ratio, delta);
	return FL_V_MORE_RUNS;
}
