/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What waking an idle CPU costs on this machine right now.
 *
 * A thread on one CPU sleeps in a futex; another, on another CPU, wakes
 * it after idling for a while, and the sleeper notes when it ran. On
 * bare metal that is the exit latency of the idle state the CPU chose;
 * in a guest it is what the host does with a halted vCPU, which a
 * shared host changes with its own load (halt polling, which physical
 * CPU the vCPU gets): docs/statistics.md measured the cost switching
 * between two levels for tens of seconds at a time, and every workload
 * whose threads sleep moving with it. Each repetition records the probe
 * so that compare can tell a change of the machine from a change of the
 * code (compare/adjust.c).
 *
 * Two idle lengths: a short one, within the few tens of microseconds a
 * contended lock's waiter sleeps, and a long one, past any halt-polling
 * window. The futex calls are raw system calls, not a backend's: a change
 * to futexlab's backends cannot move the probe; a change of kernel can,
 * which compare checks for.
 */
#ifndef FUTEXLAB_MEASURE_IDLE_WAKE_H
#define FUTEXLAB_MEASURE_IDLE_WAKE_H

#include <stdint.h>

#include "base/result.h"

#define FL_IDLE_WAKE_SHORT_NS	30000ull	/* the waker idles this long */
#define FL_IDLE_WAKE_LONG_NS	200000ull	/* ... or this long */
#define FL_IDLE_WAKE_SAMPLES	15		/* of each; odd: a median */

/*
 * Measure it on the first two CPUs this thread may run on, restoring
 * its affinity after; about 5 ms. Fewer than two CPUs, a thread that
 * cannot start or a wake that never arrives (each waits at most
 * 200 ms: on a loaded machine the sleeper waits its turn for tens of
 * milliseconds, a slow wake, not a lost one): both 0, and -1.
 */
int fl_idle_wake_probe(struct fl_idle_wake *w);

#endif
