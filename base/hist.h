/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram in nanoseconds.
 *
 * Values below 256 ns have a bucket each; above, every power of two is cut
 * into 128 equal buckets, so a bucket is at most 1/128 of its value wide and
 * the midpoint we report is within 0.4% of any value in it, from 1 ns up to
 * 2^37 ns (137 s). Larger values land in the last bucket, but the exact
 * maximum is kept beside the counts. Recording is a few shifts and one add,
 * with no locks: each thread owns its histogram and they are merged after
 * the run.
 */
#ifndef FUTEXLAB_HIST_H
#define FUTEXLAB_HIST_H

#include <stdint.h>
#include <stdio.h>

#define FL_HIST_LINEAR		256u	/* exact buckets below this */
#define FL_HIST_SUB_BITS	7u	/* 128 buckets per power of two */
#define FL_HIST_SUB		(1u << FL_HIST_SUB_BITS)
#define FL_HIST_TOP_BIT		37u	/* values up to 2^37 ns resolved */
#define FL_HIST_BUCKETS \
	(FL_HIST_LINEAR + (FL_HIST_TOP_BIT - 8u) * FL_HIST_SUB)

struct fl_hist {
	uint64_t count;
	uint64_t sum;		/* for the mean; wraps only after 584 years */
	uint64_t min;
	uint64_t max;
	uint64_t buckets[FL_HIST_BUCKETS];
};

static inline unsigned int fl_hist_index(uint64_t v)
{
	if (v < FL_HIST_LINEAR)
		return (unsigned int)v;
	unsigned int k = 63u - (unsigned int)__builtin_clzll(v);

	if (k >= FL_HIST_TOP_BIT)
		return FL_HIST_BUCKETS - 1;
	unsigned int shift = k - FL_HIST_SUB_BITS;

	return FL_HIST_LINEAR + (k - 8u) * FL_HIST_SUB +
	       (unsigned int)((v >> shift) - FL_HIST_SUB);
}

static inline void fl_hist_record(struct fl_hist *h, uint64_t v)
{
	h->buckets[fl_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void fl_hist_init(struct fl_hist *h);
/* The smallest value that falls into bucket i, and the bucket's width. */
uint64_t fl_hist_bucket_low(unsigned int i);
uint64_t fl_hist_bucket_width(unsigned int i);
void fl_hist_merge(struct fl_hist *into, const struct fl_hist *from);
/* The value at quantile q (0..1): the sample of rank ceil(q * count)
 * (the nearest-rank definition, Hyndman and Fan's type 1), reported as
 * its bucket's midpoint, kept within [min, max]. */
uint64_t fl_hist_quantile(const struct fl_hist *h, double q);
/* The sample of 1-based rank `rank`, the same way. */
uint64_t fl_hist_at_rank(const struct fl_hist *h, uint64_t rank);

#endif
