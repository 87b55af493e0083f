/* SPDX-License-Identifier: GPL-2.0 */
/*
 * condvar (workloads/condvar.c): the broadcaster's side, compiled once
 * per backend in condvar.c's thread body: see every waiter asleep,
 * release a round and wake as --wake says, and time the round and each
 * waiter's wake.
 */
#ifndef FUTEXLAB_WORKLOADS_CONDVAR_BROADCASTER_H
#define FUTEXLAB_WORKLOADS_CONDVAR_BROADCASTER_H

#include <errno.h>
#include <limits.h>
#include <time.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "measure/sleeping.h"
#include "workloads/condvar_state.h"

static inline int stopping(struct fl_rep *rep)
{
	return atomic_load(&rep->stop);
}

/*
 * Wait until *w reaches target. Returns 0, or -1 when the cell stops
 * first (if stop_ends), the deadline passes or the wait fails. On a
 * backend whose waits spin the broadcaster polls with short sleeps
 * instead: its own spinning would take the CPUs from the waiters it
 * waits for, and what it waits with is no part of the measurement (the
 * waiters stamp their times).
 */
static int wait_count(struct fl_rep *rep, struct cv_state *s, uint32_t *w,
		      uint32_t target, int stop_ends, int sleeps)
{
	const struct timespec poll = { .tv_sec = 0, .tv_nsec = 20000 };

	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_SEQ_CST);

		if (stop_ends && stopping(rep))
			return -1;
		if (v >= target)
			return 0;
		if (!sleeps) {
			if (fl_now_ns() >= s->deadline_ns)
				return -1;
			nanosleep(&poll, NULL);
		} else if (fl_wait_failed(fl_wait(w, v, &s->deadline))) {
			return -1;
		}
	}
}

/* Every waiter in state S: short slices, so that stop is seen. */
static int wait_asleep(struct fl_rep *rep, struct cv_state *s)
{
	while (!stopping(rep)) {
		uint64_t until = fl_now_ns() + 10000000ull;

		if (until > s->deadline_ns)
			until = s->deadline_ns;
		if (fl_wait_threads_sleeping(s->waiters, s->nwaiters,
					     until) == 0)
			return 0;
		if (until == s->deadline_ns)
			return -1;
	}
	return -1;
}

/* Bump the sequence word and wake as the mode says; the waiters' count. */
static int broadcast(struct cv_state *s, int mode)
{
	uint32_t v = __atomic_add_fetch(s->seq, 1, __ATOMIC_SEQ_CST);
	int r;

	switch (mode) {
	case WAKE_REQUEUE:
		/* only the stop kick moves seq meanwhile: compare again */
		while ((r = fl_cmp_requeue(s->seq, s->lock, 1, INT_MAX, v)) ==
		       -EAGAIN)
			v = __atomic_load_n(s->seq, __ATOMIC_SEQ_CST);
		return r;
	case WAKE_REQUEUE_PI:
		while ((r = fl_cmp_requeue_pi(s->seq, s->lock, INT_MAX, v)) ==
		       -EAGAIN)
			v = __atomic_load_n(s->seq, __ATOMIC_SEQ_CST);
		return r;
	default:
		return fl_wake(s->seq, INT_MAX);
	}
}

/*
 * This round's pairs of waiters that woke against priority order: a
 * lower-priority waiter (a lower index) back from its wait before a
 * higher-priority one. O(n^2), with n at most CV_RT_MAX_WAITERS.
 */
static uint64_t order_inversions(const struct cv_state *s)
{
	uint64_t pairs = 0;

	for (unsigned int hi = 1; hi < s->nwaiters; hi++)
		for (unsigned int lo = 0; lo < hi; lo++)
			if (s->slots[lo].wake_ns < s->slots[hi].wake_ns)
				pairs++;
	return pairs;
}

static void broadcaster(struct fl_thread *t, struct cv_state *s, int mode)
{
	struct fl_rep *rep = t->rep;
	const uint32_t n = s->nwaiters;
	const int sleeps = !!(rep->cell->backend->caps() & FL_CAP_SLEEP);
	const int rt = !!rep->cell->opt[OPT_RT_WAITERS];
	uint64_t rounds = 0, inversions = 0;
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		if (wait_count(rep, s, s->armed, n * round, 1, sleeps) ||
		    (sleeps && wait_asleep(rep, s))) {
			if (!stopping(rep))
				fl_rep_fail(rep, "round %u: the waiters were "
					    "not all asleep by the deadline",
					    round);
			break;
		}
		uint64_t t0 = fl_now_ns();

		uint32_t prev = round - 1;

		__atomic_store_n(&s->t0, t0, __ATOMIC_RELAXED);
		/* fails only when the kick closed the rounds: stop */
		if (!__atomic_compare_exchange_n(&s->released, &prev, round, 0,
						 __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			break;
		int r = broadcast(s, mode);

		if (r < 0) {
			fl_rep_fail(rep, "round %u: the broadcast returned %d",
				    round, r);
			break;
		}
		/*
		 * Every waiter sleeps on seq, so the kernel must have woken
		 * or requeued all of them; the stop kick would otherwise
		 * hide a lost waiter. Not judged once the kick has begun:
		 * its own wake may have taken some first.
		 */
		if (sleeps && (uint32_t)r != n &&
		    !(__atomic_load_n(&s->released, __ATOMIC_SEQ_CST) &
		      CV_CLOSED)) {
			fl_rep_fail(rep, "wake count: round %u: the broadcast "
				    "woke or requeued %d of %u sleeping "
				    "waiters", round, r, n);
			break;
		}
		/* the round ends even after stop: the waiters are awake */
		if (wait_count(rep, s, s->done, n * round, 0, sleeps)) {
			fl_rep_fail(rep, "wake count: round %u: only %u of %u "
				    "waiters took the mutex by the deadline "
				    "(or a wait failed)",
				    round, __atomic_load_n(s->done,
				    __ATOMIC_ACQUIRE) - n * (round - 1), n);
			break;
		}
		uint64_t last = 0;

		for (unsigned int i = 0; i < n; i++) {
			const struct cv_slot *w = &s->slots[i];

			fl_hist_record(&s->wake_hist, w->wake_ns);
			if (w->acq_ns > last)
				last = w->acq_ns;
		}
		/* the clock reads serve the round's other figures too; only
		 * the record follows --sample */
		if (fl_sample_due(rounds + 1, &next_timed, &t->sampler))
			fl_hist_record(t->hist, last);
		if (rt)
			inversions += order_inversions(s);
		fl_ops_publish(t, ++rounds);
	}
	t->counters[C_ROUNDS] = rounds;
	t->counters[C_WAKE_P50] = fl_hist_quantile(&s->wake_hist, 0.50);
	t->counters[C_WAKE_P99] = fl_hist_quantile(&s->wake_hist, 0.99);
	t->counters[C_WAKE_MAX] = s->wake_hist.count ? s->wake_hist.max : 0;
	t->counters[C_ORDER_INVERSIONS] = inversions;
}

#endif /* FUTEXLAB_WORKLOADS_CONDVAR_BROADCASTER_H */
