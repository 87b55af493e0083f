/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Typed wrappers around the futex(2) syscall, one per operation, shared by
 * the futex-private and futex-shared backends. FL_STOCK_FLAG is
 * FUTEX_PRIVATE_FLAG or 0: the only difference between the two is the key
 * the kernel builds (mm and address, or the page's identity).
 * Each argument type has its own wrapper: no timeout pointer carries a
 * requeue count (the mistake perf's tools/perf/bench/futex.h once made).
 */
#ifndef FUTEXLAB_STOCK_FUTEX_H
#define FUTEXLAB_STOCK_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13	/* 5.14+: LOCK_PI with a CLOCK_MONOTONIC deadline */
#endif

static inline long fl_stock_call(uint32_t *uaddr, int op, uint32_t val,
				 const struct timespec *ts, uint32_t *uaddr2,
				 uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op | FL_STOCK_FLAG, val, ts, uaddr2,
			 val3);

	return r < 0 ? -errno : r;
}

/* The requeue ops carry a count, not a timeout, in the fourth argument. */
static inline long fl_stock_call_nr(uint32_t *uaddr, int op, uint32_t val,
				    uint32_t nr, uint32_t *uaddr2,
				    uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op | FL_STOCK_FLAG, val,
			 (unsigned long)nr, uaddr2, val3);

	return r < 0 ? -errno : r;
}

/** fl_wait() - sleep while *w == val, until an absolute MONOTONIC deadline */
static inline int fl_wait(uint32_t *w, uint32_t val,
			  const struct timespec *deadline)
{
	/* WAIT_BITSET takes an absolute deadline; plain WAIT a relative one */
	return (int)fl_stock_call(w, FUTEX_WAIT_BITSET, val, deadline, NULL,
				  FUTEX_BITSET_MATCH_ANY);
}

static inline int fl_wait_bitset(uint32_t *w, uint32_t val,
				 const struct timespec *deadline,
				 uint32_t bitset)
{
	return (int)fl_stock_call(w, FUTEX_WAIT_BITSET, val, deadline, NULL,
				  bitset);
}

/** fl_wake() - wake up to nr waiters; returns how many woke */
static inline int fl_wake(uint32_t *w, int nr)
{
	return (int)fl_stock_call(w, FUTEX_WAKE, (uint32_t)nr, NULL, NULL, 0);
}

static inline int fl_wake_bitset(uint32_t *w, int nr, uint32_t bitset)
{
	return (int)fl_stock_call(w, FUTEX_WAKE_BITSET, (uint32_t)nr, NULL,
				  NULL, bitset);
}

/** fl_cmp_requeue() - if *w == val, wake nr_wake and move up to nr_requeue
 * waiters to w2; returns woken + requeued */
static inline int fl_cmp_requeue(uint32_t *w, uint32_t *w2, int nr_wake,
				 int nr_requeue, uint32_t val)
{
	return (int)fl_stock_call_nr(w, FUTEX_CMP_REQUEUE, (uint32_t)nr_wake,
				     (uint32_t)nr_requeue, w2, val);
}

/** fl_lock_pi() - take a PI lock (TID | WAITERS encoding) */
static inline int fl_lock_pi(uint32_t *w, const struct timespec *deadline)
{
	/* LOCK_PI's timeout is REALTIME; LOCK_PI2 uses MONOTONIC like ours */
	return (int)fl_stock_call(w, deadline ? FUTEX_LOCK_PI2 : FUTEX_LOCK_PI,
				  0, deadline, NULL, 0);
}

static inline int fl_trylock_pi(uint32_t *w)
{
	return (int)fl_stock_call(w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
}

static inline int fl_unlock_pi(uint32_t *w)
{
	return (int)fl_stock_call(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
}

/** fl_wait_requeue_pi() - wait on w for a requeue onto the PI lock w2 */
static inline int fl_wait_requeue_pi(uint32_t *w, uint32_t val, uint32_t *w2,
				     const struct timespec *deadline)
{
	return (int)fl_stock_call(w, FUTEX_WAIT_REQUEUE_PI, val, deadline, w2,
				  0);
}

/** fl_cmp_requeue_pi() - wake one waiter onto w2 (taking it for them if
 * free) and requeue up to nr_requeue more */
static inline int fl_cmp_requeue_pi(uint32_t *w, uint32_t *w2, int nr_requeue,
				    uint32_t val)
{
	return (int)fl_stock_call_nr(w, FUTEX_CMP_REQUEUE_PI, 1,
				     (uint32_t)nr_requeue, w2, val);
}

/* futex_waitv is a futex2 call: the futex2 backend measures it */
#include "backends/no_waitv.h"
/* the stock kernel cannot spin while a futex's owner runs */
#include "backends/no_adaptive.h"

#define FL_STOCK_CAPS (FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_TIMEOUT | \
		       FL_CAP_BITSET | FL_CAP_REQUEUE | FL_CAP_PI | \
		       FL_CAP_REQUEUE_PI | FL_CAP_EINTR | FL_CAP_EFAULT)

#endif
