/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calibrated busy loop that workloads use for critical sections and
 * think time: work of a given length without reading the clock.
 */
#ifndef FUTEXLAB_BUSY_LOOP_H
#define FUTEXLAB_BUSY_LOOP_H

#include <stdint.h>

#include "base/clock.h"

/*
 * A loop of compiler barriers, sized by the fastest speed the loop has
 * run at in this run (fl_calibrate_busy(): the cell's process measures
 * its own speed before its repetitions, and once more after them to see
 * that it held, fl_busy_speed()).
 * Reading the clock inside a 100 ns critical section would itself be a
 * large part of it.
 */
extern uint64_t fl_busy_loops_per_us;	/* set by fl_calibrate_busy() */
/* the most loops per microsecond a speed given from outside may be */
#define FL_BUSY_SPEED_MAX	100000
/* The fastest speed seen so far: by this process, and by the cell
 * processes it forked before (fl_busy_seen()); 0 before any. A child
 * inherits it. */
extern uint64_t fl_busy_fastest;

/* Out of line on purpose: calibration and use must run the very same
 * machine code, or the compiler's choices for each call site (unrolling,
 * alignment) make the calibration wrong by a factor of two. */
void fl_busy_loops(uint64_t loops);

/* The busy loop where a length of 0 costs nothing: no call at all, so
 * --critical 0 --think 0 measures the lock alone. */
static inline void fl_busy(uint64_t loops)
{
	if (loops)
		fl_busy_loops(loops);
}

static inline uint64_t fl_busy_ns_to_loops(uint64_t ns)
{
	return ns * fl_busy_loops_per_us / 1000;
}

/* The busy loop's speed now, in loops per microsecond (about 15 ms). */
uint64_t fl_busy_speed(void);
/* The fastest of tries speeds measured one after another. */
uint64_t fl_busy_speed_best(unsigned int tries);
/* A speed measured, here or in a cell's process: kept when the fastest
 * (not once pinned). */
void fl_busy_seen(uint64_t speed);
/*
 * The loop sized by speed from now on, whatever this process or its
 * cells measure (they still measure, for the rows): a campaign's visits,
 * each a fresh process, so that every visit of every side does the same
 * work per critical section.
 */
void fl_busy_pin(uint64_t speed);
/*
 * Measure the speed now and size the busy loop by the fastest seen,
 * this one included; returns the speed measured now. Why the fastest:
 * another guest on the host can slow this CPU for the whole 15 ms of a
 * calibration (to 57% of its speed, seen), and a loop sized by that
 * reading is that much shorter than asked once the CPU is back. Sized by
 * the fastest, a critical section is the same work in every repetition,
 * which takes longer, like any code, while the CPU is slowed.
 */
uint64_t fl_calibrate_busy(void);

#endif
