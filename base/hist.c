// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram: bucket geometry, merge, quantiles (its file is
 * rundir/hist_file.c's). */
#include "base/hist.h"

#include <inttypes.h>
#include <string.h>

void fl_hist_init(struct fl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t fl_hist_bucket_low(unsigned int i)
{
	if (i < FL_HIST_LINEAR)
		return i;
	unsigned int k = 8u + (i - FL_HIST_LINEAR) / FL_HIST_SUB;
	uint64_t sub = FL_HIST_SUB + (i - FL_HIST_LINEAR) % FL_HIST_SUB;

	return sub << (k - FL_HIST_SUB_BITS);
}

uint64_t fl_hist_bucket_width(unsigned int i)
{
	if (i < FL_HIST_LINEAR)
		return 1;
	unsigned int k = 8u + (i - FL_HIST_LINEAR) / FL_HIST_SUB;

	return 1ull << (k - FL_HIST_SUB_BITS);
}

void fl_hist_merge(struct fl_hist *into, const struct fl_hist *from)
{
	if (from->count == 0)
		return;
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t fl_hist_quantile(const struct fl_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	if (q <= 0.0)
		return h->min;
	if (q >= 1.0)
		return h->max;
	/* the rank of the sample we want, 1-based: ceil(q * count) */
	uint64_t rank = (uint64_t)(q * (double)h->count);

	if ((double)rank < q * (double)h->count)
		rank++;
	return fl_hist_at_rank(h, rank);
}

uint64_t fl_hist_at_rank(const struct fl_hist *h, uint64_t rank)
{
	uint64_t seen = 0;

	if (h->count == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t v = fl_hist_bucket_low(i) +
				     fl_hist_bucket_width(i) / 2;
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}
