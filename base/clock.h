/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time in futexlab: CLOCK_MONOTONIC as integer nanoseconds, never seconds
 * as doubles in a loop. The measured loops, the spin backend and the
 * harness all read this one clock.
 */
#ifndef FUTEXLAB_BASE_CLOCK_H
#define FUTEXLAB_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

#define FL_NSEC_PER_SEC 1000000000ull

static inline uint64_t fl_ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * FL_NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec fl_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / FL_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % FL_NSEC_PER_SEC),
	};
	return ts;
}

/* The one clock of every measurement (vDSO, no syscall). */
static inline uint64_t fl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return fl_ts_to_ns(&ts);
}

/* The CPU's spin-wait hint: lets an SMT sibling run, saves power. */
static inline void fl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Sleep until an absolute CLOCK_MONOTONIC time (restarts after signals). */
void fl_sleep_until_ns(uint64_t when);

#endif
