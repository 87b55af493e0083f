// SPDX-License-Identifier: GPL-2.0
/* Geometric gaps between timed operations (see sample.h). */
#include "base/sample.h"

#include <math.h>

void fl_sampler_init(struct fl_sampler *s, uint64_t seed, unsigned int every)
{
	/* xorshift must not start at 0; mix the seed so that neighbouring
	 * threads' seeds give unrelated sequences */
	s->rng = (seed ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
	if (!s->rng)
		s->rng = 1;
	s->inv_log_miss = every > 1 ? 1.0 / log1p(-1.0 / every) : 0;
	s->first = fl_sampler_gap(s);
}

/*
 * Inversion: with U uniform in (0, 1], 1 + floor(ln U / ln(1 - p)) is
 * geometric on 1, 2, ... with success probability p = 1/every, so its
 * mean is every.
 */
uint64_t fl_sampler_gap(struct fl_sampler *s)
{
	if (s->inv_log_miss == 0)
		return 1;
	/* 53 random bits, shifted off zero: U in (0, 1] */
	double u = (double)((fl_rand(&s->rng) >> 11) + 1) * 0x1p-53;
	double gap = floor(log(u) * s->inv_log_miss);

	return gap >= 1e18 ? (uint64_t)1e18 : 1 + (uint64_t)gap;
}
