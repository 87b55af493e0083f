// SPDX-License-Identifier: GPL-2.0
/* Percentiles of a merged histogram with their intervals. */
#include "stats/percentile.h"

#include <math.h>
#include <string.h>

/* the normal quantile of a two-sided 95% interval */
#define Z_95 1.959964

void fl_hist_percentile(const struct fl_hist *h, double q, struct fl_pct *p)
{
	double n = (double)h->count, sd = sqrt(n * q * (1.0 - q));
	double lo = floor(n * q - Z_95 * sd), hi = ceil(n * q + Z_95 * sd) + 1;

	memset(p, 0, sizeof(*p));
	p->q = q;
	p->count = h->count;
	if (n * (1.0 - q) < FL_PCT_MIN_BEYOND)
		return;
	p->enough = 1;
	p->value = fl_hist_quantile(h, q);
	p->lo = fl_hist_at_rank(h, lo < 1 ? 1 : (uint64_t)lo);
	p->hi = fl_hist_at_rank(h, hi > n ? h->count : (uint64_t)hi);
}
