// SPDX-License-Identifier: GPL-2.0
/* The conformance suite's helper threads: see waiters.h. */
#include "tests/conformance/conformance.h"
#include "measure/sleeping.h"

struct waiter waiters[MAX_WAITERS];

uint64_t deadline_in(uint64_t ns)
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
	case OP_WAIT_UNTIMED:
		/* ended by a wake: reap_waiters() wakes it if the case fails */
		r = fl_wait(wt->w, wt->val, NULL);
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
	case OP_WAITV:
		r = fl_waitv(wt->v, wt->nv, &dl);
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

struct waiter *start_waiter(int i, enum waiter_op op, uint32_t *w,
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

struct waiter *start_waitv(int i, const struct fl_waitv *v, unsigned int n)
{
	struct waiter *wt = &waiters[i];

	assert_false(wt->running);
	memset(wt, 0, sizeof(*wt));
	assert_true(n <= WAITV_HELPER_MAX);
	wt->op = OP_WAITV;
	memcpy(wt->v, v, n * sizeof(*v));
	wt->nv = n;
	wt->ret = -1000;	/* no futex op returns this here */
	assert_int_equal(pthread_create(&wt->thread, NULL, waiter_main, wt),
			 0);
	wt->running = 1;
	return wt;
}

int is_blocked(const struct waiter *wt)
{
	return __atomic_load_n(&wt->started, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&wt->done, __ATOMIC_ACQUIRE) &&
	       fl_thread_state(__atomic_load_n(&wt->tid,
					       __ATOMIC_ACQUIRE)) == 'S';
}

void wait_blocked(int first, int n)
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

int count_done(int first, int n)
{
	int done = 0;

	for (int i = first; i < first + n; i++)
		done += __atomic_load_n(&waiters[i].done, __ATOMIC_ACQUIRE);
	return done;
}

void wait_done(int first, int n, int want)
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

int join_waiter(int i)
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
void reap_waiters(void)
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
		} else if (wt->op == OP_WAITV) {
			uint32_t *w0 = (uint32_t *)(uintptr_t)wt->v[0].uaddr;

			__atomic_add_fetch(w0, 1, __ATOMIC_SEQ_CST);
			fl_wake(w0, 1 << 30);
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

