/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helper threads for the conformance suite: each runs one blocking futex
 * operation of the backend under test (wait, wait with a bitset, lock_pi,
 * wait_requeue_pi) with a deadline, and records what it returned and what
 * it saw. The test thread learns that a helper is blocked by reading its
 * state ('S') in /proc/self/task/TID/stat, never by sleeping a while, and
 * joins every helper with a deadline, so a broken backend fails a case
 * instead of hanging the suite.
 *
 * Included by conformance.c only, in its per-backend build (the backend's
 * header is force-included, so fl_wait() and friends are the backend's).
 */
#ifndef FUTEXLAB_TESTS_WAITERS_H
#define FUTEXLAB_TESTS_WAITERS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/clock.h"
#include "spec/workload.h"

/* How long any helper may block, and how long the test waits for one. */
#define WAIT_LIMIT_NS	(5 * FL_NSEC_PER_SEC)
#define JOIN_LIMIT_NS	(WAIT_LIMIT_NS + 3 * FL_NSEC_PER_SEC)
#define MAX_WAITERS	8

enum waiter_op {
	OP_WAIT,		/* fl_wait(w, val) */
	OP_WAIT_BITSET,		/* fl_wait_bitset(w, val, bitset) */
	OP_LOCK_PI,		/* fl_lock_pi(w), then unlock it */
	OP_HOLD_PI,		/* fl_lock_pi(w), wait on w2 (0), unlock w */
	OP_WAIT_REQUEUE_PI,	/* fl_wait_requeue_pi(w, val, w2); unlock w2 */
};

struct waiter {
	enum waiter_op op;
	uint32_t *w, *w2;
	uint32_t val, bitset;
	/* written by the helper, read with __atomic */
	pid_t tid;
	int started;		/* about to make the call that blocks */
	int done;		/* the call returned; ret is valid */
	int ret;
	uint32_t seen;		/* the PI word right after acquiring it */
	int unlock_ret;		/* what releasing the PI word returned */
	/* the test's side */
	pthread_t thread;
	int running;		/* created and not yet joined */
};

static struct waiter waiters[MAX_WAITERS];

static uint64_t deadline_in(uint64_t ns)
{
	return fl_now_ns() + ns;
}

static void *waiter_main(void *arg)
{
	struct waiter *wt = arg;
	struct timespec dl = fl_ns_to_ts(deadline_in(WAIT_LIMIT_NS));
	int r = -ENOSYS;

	__atomic_store_n(&wt->tid, gettid(), __ATOMIC_RELEASE);
	if (wt->op != OP_HOLD_PI)
		__atomic_store_n(&wt->started, 1, __ATOMIC_RELEASE);
	switch (wt->op) {
	case OP_WAIT:
		r = fl_wait(wt->w, wt->val, &dl);
		break;
	case OP_WAIT_BITSET:
		r = fl_wait_bitset(wt->w, wt->val, &dl, wt->bitset);
		break;
	case OP_LOCK_PI:
		r = fl_lock_pi(wt->w, &dl);
		if (r == 0) {
			wt->seen = __atomic_load_n(wt->w, __ATOMIC_ACQUIRE);
			wt->unlock_ret = fl_unlock_pi(wt->w);
		}
		break;
	case OP_HOLD_PI:
		r = fl_lock_pi(wt->w, &dl);
		if (r)
			break;
		wt->seen = __atomic_load_n(wt->w, __ATOMIC_ACQUIRE);
		/* holding it: the call that blocks is the wait for release */
		__atomic_store_n(&wt->started, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(wt->w2, __ATOMIC_ACQUIRE) == 0 &&
		       fl_now_ns() < fl_ts_to_ns(&dl))
			fl_wait(wt->w2, 0, &dl);
		wt->unlock_ret = fl_unlock_pi(wt->w);
		break;
	case OP_WAIT_REQUEUE_PI:
		r = fl_wait_requeue_pi(wt->w, wt->val, wt->w2, &dl);
		if (r == 0) {
			wt->seen = __atomic_load_n(wt->w2, __ATOMIC_ACQUIRE);
			wt->unlock_ret = fl_unlock_pi(wt->w2);
		}
		break;
	}
	wt->ret = r;
	__atomic_store_n(&wt->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start helper i doing op on w (val, w2, bitset as the op needs). */
static struct waiter *start_waiter(int i, enum waiter_op op, uint32_t *w,
				   uint32_t val, uint32_t *w2, uint32_t bitset)
{
	struct waiter *wt = &waiters[i];

	assert_false(wt->running);
	memset(wt, 0, sizeof(*wt));
	wt->op = op;
	wt->w = w;
	wt->w2 = w2;
	wt->val = val;
	wt->bitset = bitset;
	wt->ret = 1;		/* no futex op returns this here */
	assert_int_equal(pthread_create(&wt->thread, NULL, waiter_main, wt),
			 0);
	wt->running = 1;
	return wt;
}

static int is_blocked(const struct waiter *wt)
{
	return __atomic_load_n(&wt->started, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&wt->done, __ATOMIC_ACQUIRE) &&
	       fl_thread_state(__atomic_load_n(&wt->tid,
					       __ATOMIC_ACQUIRE)) == 'S';
}

/* Wait until helpers [first, first+n) are all asleep in their call. */
static void wait_blocked(int first, int n)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 100000 };
	uint64_t limit = deadline_in(WAIT_LIMIT_NS);

	for (;;) {
		int asleep = 0;

		for (int i = first; i < first + n; i++) {
			if (__atomic_load_n(&waiters[i].done,
					    __ATOMIC_ACQUIRE))
				fail_msg("helper %d returned %d (%s) instead "
					 "of blocking", i, waiters[i].ret,
					 strerror(-waiters[i].ret));
			asleep += is_blocked(&waiters[i]);
		}
		if (asleep == n)
			return;
		if (fl_now_ns() > limit)
			fail_msg("helpers %d..%d did not block within %llu s",
				 first, first + n - 1,
				 (unsigned long long)(WAIT_LIMIT_NS /
						      FL_NSEC_PER_SEC));
		nanosleep(&pause, NULL);
	}
}

/* How many of helpers [first, first+n) have returned. */
static int count_done(int first, int n)
{
	int done = 0;

	for (int i = first; i < first + n; i++)
		done += __atomic_load_n(&waiters[i].done, __ATOMIC_ACQUIRE);
	return done;
}

/* Wait until exactly `want` of helpers [first, first+n) have returned. */
static void wait_done(int first, int n, int want)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 100000 };
	uint64_t limit = deadline_in(WAIT_LIMIT_NS);

	while (count_done(first, n) < want) {
		if (fl_now_ns() > limit)
			fail_msg("only %d of %d woken helpers returned",
				 count_done(first, n), want);
		nanosleep(&pause, NULL);
	}
}

/* Join helper i with a deadline; returns its result. */
static int join_waiter(int i)
{
	struct waiter *wt = &waiters[i];
	struct timespec dl = fl_ns_to_ts(deadline_in(JOIN_LIMIT_NS));
	int r;

	assert_true(wt->running);
	r = pthread_clockjoin_np(wt->thread, NULL, CLOCK_MONOTONIC, &dl);
	if (r)
		fail_msg("helper %d (tid %d) did not finish: %s", i,
			 (int)wt->tid, strerror(r));
	wt->running = 0;
	return wt->ret;
}

/*
 * After a case, pass or fail: no helper may outlive it. A helper still
 * blocked (the case failed) is woken the way its operation allows, then
 * joined with a deadline; one that will not end is left detached with its
 * slot retired, and the case's failure already says why.
 */
static void reap_waiters(void)
{
	for (int i = 0; i < MAX_WAITERS; i++) {
		struct waiter *wt = &waiters[i];
		struct timespec dl;

		if (!wt->running)
			continue;
		if (__atomic_load_n(&wt->done, __ATOMIC_ACQUIRE)) {
			/* nothing to wake */
		} else if (wt->op == OP_LOCK_PI) {
			/* the case may have left the test thread owning it */
			fl_unlock_pi(wt->w);
		} else if (wt->op == OP_HOLD_PI) {
			__atomic_store_n(wt->w2, 1, __ATOMIC_SEQ_CST);
			fl_wake(wt->w2, 1);
		} else {
			/* a requeue-PI waiter ignores this: its deadline
			 * ends it, well within the join's */
			__atomic_add_fetch(wt->w, 1, __ATOMIC_SEQ_CST);
			fl_wake(wt->w, 1 << 30);
		}
		dl = fl_ns_to_ts(deadline_in(JOIN_LIMIT_NS));
		if (pthread_clockjoin_np(wt->thread, NULL, CLOCK_MONOTONIC,
					 &dl) == 0)
			wt->running = 0;
		else
			pthread_detach(wt->thread);
	}
}

#endif
