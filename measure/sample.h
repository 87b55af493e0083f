/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency by sampling: a thread times a random subset of its operations,
 * one in `every` on average, so that the clock reads and the histogram
 * record cost the measured loop 1/every of what timing every operation
 * would. The gaps between timed operations are geometric (memoryless),
 * drawn from the thread's seed: no fixed period can line up with the data
 * layout (hash's futex array, a lock handed over in turn), and a run is
 * reproducible from its seed.
 *
 * An unsampled operation costs one decrement and a predicted branch; it
 * reads no clock. The draw of the next gap (a logarithm) happens only on
 * a timed operation, outside the caller's timed interval.
 *
 * Use: copy the thread's sampler into a local so the countdown lives in a
 * register, then `if (fl_sample_due(&smp))` around the clock reads.
 */
#ifndef FUTEXLAB_SAMPLE_H
#define FUTEXLAB_SAMPLE_H

#include <stdint.h>

/* A small, fast random generator (xorshift64*): the sampler's and the
 * workloads' per-thread choices. */
static inline uint64_t fl_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

struct fl_sampler {
	uint64_t left;		/* operations until the next timed one */
	uint64_t rng;		/* xorshift64* state, from the seed */
	double inv_log_miss;	/* 1 / ln(1 - 1/every); 0 when every is 1 */
};

/* Time one operation in `every` (>= 1; 1 times all) on average. */
void fl_sampler_init(struct fl_sampler *s, uint64_t seed, unsigned int every);
/* The next gap: geometric with mean `every`, at least 1. */
uint64_t fl_sampler_gap(struct fl_sampler *s);

/* 1 when this operation is to be timed. */
static inline int fl_sample_due(struct fl_sampler *s)
{
	if (__builtin_expect(--s->left != 0, 1))
		return 0;
	s->left = fl_sampler_gap(s);
	return 1;
}

#endif
