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
 * An unsampled operation costs one compare and a predicted branch; it
 * reads no clock and stores nothing. The draw of the next gap (a logarithm) happens only on
 * a timed operation, outside the caller's timed interval.
 *
 * Use: the caller numbers its operations from 1 (it counts them anyway)
 * and keeps the number of the next one to time in a local; deciding is
 * then a compare, with no store on the measured path:
 *
 *	uint64_t next_timed = t->sampler.first;
 *	...
 *	if (fl_sample_due(ops + 1, &next_timed, &t->sampler))
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
	uint64_t first;		/* the number of the first operation timed */
	uint64_t next;		/* a loop's next one, if it keeps it here */
	uint64_t rng;		/* xorshift64* state, from the seed */
	double inv_log_miss;	/* 1 / ln(1 - 1/every); 0 when every is 1 */
};

/* Time one operation in `every` (>= 1; 1 times all) on average. */
void fl_sampler_init(struct fl_sampler *s, uint64_t seed, unsigned int every);
/* The next gap: geometric with mean `every`, at least 1. */
uint64_t fl_sampler_gap(struct fl_sampler *s);

/* 1 when operation number op is to be timed; then *next moves on to the
 * next one to time. */
static inline int fl_sample_due(uint64_t op, uint64_t *next,
				struct fl_sampler *s)
{
	if (__builtin_expect(op != *next, 1))
		return 0;
	*next += fl_sampler_gap(s);
	return 1;
}

#endif
