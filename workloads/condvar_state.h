/* SPDX-License-Identifier: GPL-2.0 */
/*
 * condvar (workloads/condvar.c): what its descriptor and its threads
 * share: the indexes of its options and counters, and the state one
 * repetition's threads work in.
 */
#ifndef FUTEXLAB_WORKLOADS_CONDVAR_STATE_H
#define FUTEXLAB_WORKLOADS_CONDVAR_STATE_H

#include <stdint.h>
#include <time.h>

#include "workloads/lib/exclusion.h"
#include "spec/workload.h"

enum { OPT_WAKE, OPT_CRITICAL, OPT_RT_WAITERS };
enum { WAKE_ALL, WAKE_REQUEUE, WAKE_REQUEUE_PI };
enum { C_ROUNDS, C_MUTEX_FAILS, C_CTX_VOL, C_CTX_INVOL, C_WAKE_P50,
       C_WAKE_P99, C_WAKE_MAX, C_ORDER_INVERSIONS };

/* With --rt-waiters, waiter i runs SCHED_FIFO at this priority: one
 * priority each, rising with the index. */
#define CV_RT_PRIO(i) (1 + (int)(i))
#define CV_RT_MAX_WAITERS 98

/* Set in `released` by the kick: no round after this one will come. */
#define CV_CLOSED (1u << 31)

/* The broadcaster stops waiting this long before the hard deadline, so a
 * stuck round is reported as such rather than as an aborted cell. */
#define CV_MARGIN_NS 250000000ull

/* One waiter's record, on lines of its own: written by the waiter before
 * it counts itself done, read by the broadcaster after. */
struct cv_slot {
	_Alignas(FL_CACHELINE) uint64_t wake_ns;  /* this round: to wake-up */
	uint64_t acq_ns;		/* this round: to holding the mutex */
	uint64_t wakes;			/* rounds it was released for */
	uint64_t acquisitions;
	uint64_t violations;		/* found another owner inside */
};

struct cv_state {
	/* futex words, each with the node number futex2-numa reads */
	_Alignas(FL_CACHELINE) uint32_t seq[2];	/* the condition variable */
	_Alignas(FL_CACHELINE) uint32_t lock[2];	/* the mutex */
	_Alignas(FL_CACHELINE) uint32_t armed[2];	/* waiters counted in */
	_Alignas(FL_CACHELINE) uint32_t done[2];	/* waiters through */
	/* the predicate: the last round released (| CV_CLOSED), and when */
	_Alignas(FL_CACHELINE) uint32_t released;
	uint64_t t0;
	/* what the mutex protects */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
	struct timespec deadline;	/* every wait's: hard one - margin */
	uint64_t deadline_ns;
	unsigned int nwaiters;
	struct fl_hist wake_hist;	/* the broadcaster's, of wake latency */
	struct fl_thread **waiters;	/* for the state-S check */
	struct cv_slot slots[];		/* one per waiter */
};

#endif /* FUTEXLAB_WORKLOADS_CONDVAR_STATE_H */
