/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency percentiles of a merged histogram, with their sample count and
 * a 95% interval, or withheld.
 *
 * One definition everywhere: the nearest rank, the sample of rank
 * ceil(q * N) of the N samples merged over every repetition of a cell
 * (fl_hist_quantile). Its interval is the distribution-free one for a
 * quantile: the samples of ranks N q -/+ 1.96 sqrt(N q (1 - q)) (the
 * normal approximation to the binomial count below the quantile; Le
 * Boudec 2010, chapter 2). A percentile with fewer than FL_PCT_MIN_BEYOND
 * samples above it says too little about the tail and is withheld: p99.9
 * needs 10,000 samples. The interval treats the merged samples as
 * independent, which samples of one repetition are not: it is a floor on
 * the uncertainty, not the whole of it (docs/statistics.md).
 */
#ifndef FUTEXLAB_PERCENTILE_H
#define FUTEXLAB_PERCENTILE_H

#include <stdint.h>

#include "base/hist.h"

#define FL_PCT_MIN_BEYOND	10

struct fl_pct {
	double q;
	uint64_t value, lo, hi;		/* ns; meaningful when enough */
	uint64_t count;			/* samples in the histogram */
	int enough;			/* 0: withheld, "not enough samples" */
};

void fl_hist_percentile(const struct fl_hist *h, double q,
			struct fl_pct *p);
#endif
