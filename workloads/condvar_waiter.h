/* SPDX-License-Identifier: GPL-2.0 */
/*
 * condvar (workloads/condvar.c): a waiter's side, compiled once per
 * backend in condvar.c's thread body: wait on the condition variable for
 * a round to be released, as --wake says, then take the mutex and hold
 * it.
 */
#ifndef FUTEXLAB_WORKLOADS_CONDVAR_WAITER_H
#define FUTEXLAB_WORKLOADS_CONDVAR_WAITER_H

#include <errno.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/sched_fifo.h"
#include "workloads/condvar_state.h"

/*
 * Drepper's mutex 3 (futex_mutex.h), counting the herd: every attempt
 * that finds the mutex taken, the first compare-and-swap and each swap
 * of the contended path. A waiter requeued onto the mutex starts on the
 * contended path: it cannot know whether others sleep there.
 */
static int lock_contended(struct fl_thread *t, struct cv_state *s)
{
	return fl_mutex3_lock_contended(s->lock, &s->deadline,
					&t->counters[C_MUTEX_FAILS]);
}

static int lock_mutex3(struct fl_thread *t, struct cv_state *s)
{
	if (fl_cas_acquire(s->lock, 0, 1) == 0)
		return 0;
	t->counters[C_MUTEX_FAILS]++;
	return lock_contended(t, s);
}

/* The round that `released` says was released, without the closed bit. */
static inline uint32_t released_round(uint32_t v)
{
	return v & ~CV_CLOSED;
}

/*
 * Wait for round `round` to be released. Returns 1 when it is (with
 * *owned set if requeue-pi handed over the PI mutex), 0 when the rounds
 * were closed first, -ETIMEDOUT past the deadline, or the wait's error.
 * A waiter never leaves on the stop flag itself: the broadcaster may be
 * releasing the round at that very moment, and the round must then
 * complete.
 */
static int wait_for_round(struct cv_state *s, int mode, uint32_t round,
			  uint32_t tid, int *owned)
{
	*owned = 0;
	for (;;) {
		uint32_t v = __atomic_load_n(s->seq, __ATOMIC_SEQ_CST);
		/* read after seq: a bumped seq means a visible predicate */
		uint32_t rel = __atomic_load_n(&s->released, __ATOMIC_SEQ_CST);
		int r;

		if (released_round(rel) >= round)
			return 1;
		if (rel & CV_CLOSED)
			return 0;
		if (mode == WAKE_REQUEUE_PI) {
			r = fl_wait_requeue_pi(s->seq, v, s->lock,
					       &s->deadline);
			if (r == 0) {
				*owned = 1;
				rel = __atomic_load_n(&s->released,
						      __ATOMIC_SEQ_CST);
				if (released_round(rel) >= round)
					return 1;
				/* the kick's requeue at the end, not a round */
				fl_pi_mutex_unlock(s->lock, tid, NULL);
				*owned = 0;
			}
		} else {
			r = fl_wait(s->seq, v, &s->deadline);
		}
		if (fl_wait_failed(r))
			return r;
	}
}

static void waiter(struct fl_thread *t, struct cv_state *s, int mode)
{
	struct fl_rep *rep = t->rep;
	struct cv_slot *slot = &s->slots[t->index];
	const uint64_t crit = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_CRITICAL]);
	const uint32_t n = s->nwaiters, tid = (uint32_t)t->tid;

	if (rep->cell->opt[OPT_RT_WAITERS]) {
		struct sched_param sp = {
			.sched_priority = CV_RT_PRIO(t->index) };
		int err = pthread_setschedparam(pthread_self(), SCHED_FIFO,
						&sp);

		/* the rounds still run; the cell fails with the reason */
		if (err)
			fl_rep_fail(rep, "waiter %u: SCHED_FIFO priority %d: "
				    "%s", t->index, sp.sched_priority,
				    strerror(err));
	}
	for (uint32_t round = 1;; round++) {
		int owned, r;

		/* count in; the last one tells the broadcaster */
		if (__atomic_add_fetch(s->armed, 1, __ATOMIC_SEQ_CST) ==
		    n * round)
			fl_wake(s->armed, 1);
		r = wait_for_round(s, mode, round, tid, &owned);
		if (r == -ETIMEDOUT)
			fl_rep_fail(rep, "waiter %u: round %u never came and "
				    "the stop kick did not release it",
				    t->index, round);
		else if (r < 0)
			fl_rep_fail(rep, "waiter %u: waiting for round %u "
				    "returned %d", t->index, round, r);
		if (r <= 0)
			return;
		uint64_t t_wake = fl_now_ns();
		uint64_t t0 = __atomic_load_n(&s->t0, __ATOMIC_RELAXED);

		if (mode == WAKE_REQUEUE_PI)
			r = owned ? 0 : fl_pi_mutex_lock(s->lock, tid,
					&s->deadline,
					&t->counters[C_MUTEX_FAILS]);
		else if (mode == WAKE_REQUEUE)
			r = lock_contended(t, s);
		else
			r = lock_mutex3(t, s);
		if (r) {
			fl_rep_fail(rep, "waiter %u: taking the mutex in round "
				    "%u returned %d", t->index, round, r);
			return;
		}
		uint64_t t_acq = fl_now_ns();

		if (fl_guarded_enter(&s->guarded))
			slot->violations++;
		fl_busy_loops(crit);
		fl_guarded_leave(&s->guarded);
		if (mode == WAKE_REQUEUE_PI)
			fl_pi_mutex_unlock(s->lock, tid, NULL);
		else
			fl_drepper_unlock(s->lock, NULL);
		slot->wake_ns = t_wake - t0;
		slot->acq_ns = t_acq - t0;
		slot->wakes++;
		slot->acquisitions++;
		if (__atomic_add_fetch(s->done, 1, __ATOMIC_SEQ_CST) ==
		    n * round)
			fl_wake(s->done, 1);
	}
}

#endif /* FUTEXLAB_WORKLOADS_CONDVAR_WAITER_H */
