// SPDX-License-Identifier: GPL-2.0
/* Busy-loop calibration. */
#include "measure/busy_loop.h"

uint64_t fl_busy_loops_per_us = 1000;
uint64_t fl_busy_fastest;

__attribute__((noinline)) void fl_busy_loops(uint64_t loops)
{
	for (uint64_t i = 0; i < loops; i++)
		__asm__ __volatile__("" ::: "memory");
}

/*
 * Time a fixed number of loops several times and keep the fastest: the
 * fastest run is the one least disturbed by interrupts and preemption,
 * which is what a critical section costs when nothing interferes.
 */
uint64_t fl_busy_speed(void)
{
	const uint64_t loops = 1000000;
	uint64_t best = UINT64_MAX, speed;

	/* the first milliseconds of busy work run slower (frequency ramp,
	 * cold caches): warm up before timing anything */
	uint64_t until = fl_now_ns() + 10000000ull;

	while (fl_now_ns() < until)
		fl_busy_loops(10000);
	for (int i = 0; i < 5; i++) {
		uint64_t t0 = fl_now_ns();

		fl_busy_loops(loops);
		uint64_t dt = fl_now_ns() - t0;

		if (dt < best)
			best = dt;
	}
	if (best == 0)
		best = 1;
	speed = loops * 1000 / best;
	return speed ? speed : 1;
}

uint64_t fl_busy_speed_best(unsigned int tries)
{
	uint64_t best = 0;

	while (tries--) {
		uint64_t now = fl_busy_speed();

		if (now > best)
			best = now;
	}
	return best;
}

/* fl_busy_pin()'s: fl_busy_fastest is no longer raised */
static int pinned;

void fl_busy_seen(uint64_t speed)
{
	if (speed > fl_busy_fastest && !pinned)
		fl_busy_fastest = speed;
}

void fl_busy_pin(uint64_t speed)
{
	fl_busy_fastest = speed;
	fl_busy_loops_per_us = speed;
	pinned = 1;
}

uint64_t fl_calibrate_busy(void)
{
	uint64_t now = fl_busy_speed();

	fl_busy_seen(now);
	fl_busy_loops_per_us = fl_busy_fastest;
	return now;
}
