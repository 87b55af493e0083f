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
 * waiters.c is compiled per backend with the rest of the suite (the
 * backend's header is force-included, so fl_wait() and friends are the
 * backend's).
 */
#ifndef FUTEXLAB_CONFORMANCE_WAITERS_H
#define FUTEXLAB_CONFORMANCE_WAITERS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/busy_loop.h"
#include "spec/workload.h"

/* How long any helper may block, and how long the test waits for one. */
#define WAIT_LIMIT_NS	(5 * FL_NSEC_PER_SEC)
#define JOIN_LIMIT_NS	(WAIT_LIMIT_NS + 3 * FL_NSEC_PER_SEC)
#define MAX_WAITERS	8
#define WAITV_HELPER_MAX	8	/* the longest vector a helper waits on */

enum waiter_op {
	OP_WAIT,		/* fl_wait(w, val) */
	OP_WAIT_UNTIMED,	/* fl_wait(w, val) without a deadline */
	OP_WAIT_BITSET,		/* fl_wait_bitset(w, val, bitset) */
	OP_LOCK_PI,		/* fl_lock_pi(w), then unlock it */
	OP_HOLD_PI,		/* fl_lock_pi(w), wait on w2 (0), unlock w */
	OP_WAIT_REQUEUE_PI,	/* fl_wait_requeue_pi(w, val, w2); unlock w2 */
	OP_WAITV,		/* fl_waitv(v, nv) */
};

struct waiter {
	enum waiter_op op;
	uint32_t *w, *w2;
	uint32_t val, bitset;
	/*
	 * OP_WAITV: the helper's own copy of the vector, so that a case that
	 * fails (and leaves its frame) leaves nothing dangling for the helper
	 * or for reap_waiters().
	 */
	struct fl_waitv v[WAITV_HELPER_MAX];
	unsigned int nv;
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

extern struct waiter waiters[MAX_WAITERS];

uint64_t deadline_in(uint64_t ns);
/* Start helper i doing op on w (val, w2, bitset as the op needs). */
struct waiter *start_waiter(int i, enum waiter_op op, uint32_t *w,
			    uint32_t val, uint32_t *w2, uint32_t bitset);
/* Start helper i in fl_waitv() on the n futexes of v. */
struct waiter *start_waitv(int i, const struct fl_waitv *v, unsigned int n);
/* Helper wt is asleep in the call that blocks (its state in /proc). */
int is_blocked(const struct waiter *wt);
/* Wait until helpers [first, first+n) are all asleep in their call. */
void wait_blocked(int first, int n);
/* How many of helpers [first, first+n) have returned. */
int count_done(int first, int n);
/* Wait until exactly `want` of helpers [first, first+n) have returned. */
void wait_done(int first, int n, int want);
/* Join helper i with a deadline; returns its result. */
int join_waiter(int i);
/* After a case, pass or fail: no helper may outlive it. */
void reap_waiters(void);

#endif
