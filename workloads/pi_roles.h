/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pi (workloads/pi.c): the rounds each role plays, compiled once per
 * backend in pi.c's thread body: low holds the last lock, each owner of
 * the chain holds its lock and blocks on the next, medium burns the CPU,
 * high blocks on the first lock and times it; and the event words they
 * post and wait on.
 */
#ifndef FUTEXLAB_WORKLOADS_PI_ROLES_H
#define FUTEXLAB_WORKLOADS_PI_ROLES_H

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <time.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"
#include "measure/sleeping.h"
#include "workloads/lib/sched_fifo.h"
#include "workloads/pi_state.h"

/* Lock k (1..N): plain, Drepper's mutex 3 as in the mutex workload. */
static int take(struct pi_state *s, int lock, unsigned int k, uint32_t tid)
{
	uint32_t *w = s->lock[k - 1].word;

	return lock == LOCK_PI ? fl_pi_mutex_lock(w, tid, &s->deadline, NULL) :
		fl_mutex3_lock(w, &s->deadline, NULL);
}

static void drop(struct pi_state *s, int lock, unsigned int k, uint32_t tid)
{
	if (lock == LOCK_PI)
		fl_pi_mutex_unlock(s->lock[k - 1].word, tid, NULL);
	else
		fl_drepper_unlock(s->lock[k - 1].word, NULL);
}

/* Take lock k, found free (nobody else wants it yet this round): 0, or
 * -1 and the repetition fails. */
static int take_free(struct fl_thread *t, struct pi_state *s, int lock,
		     unsigned int k, uint32_t round)
{
	uint32_t mine = lock == LOCK_PI ? (uint32_t)t->tid : 1;

	if (fl_cas_acquire(s->lock[k - 1].word, 0, mine) == 0)
		return 0;
	fl_rep_fail(t->rep, "pi round %u: thread %u found lock %u taken",
		    round, t->index, k);
	return -1;
}

/* Inside lock k: a second owner shows in the guarded counter. */
static void enter(struct pi_state *s, unsigned int k)
{
	struct pi_lock *l = &s->lock[k - 1];

	if (fl_guarded_enter(&l->guarded))
		l->violations++;
	l->acquired++;
}

static void leave(struct pi_state *s, unsigned int k)
{
	fl_guarded_leave(&s->lock[k - 1].guarded);
}

/* Store and wake: one event of the round. */
static void post(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	fl_wake(w, INT_MAX);
}

/*
 * Wait until *w reaches round. 0; -1 when it will not: the repetition is
 * ending (PI_STOP) or the thread that posts it left (PI_QUIT), or the
 * deadline passed (a broken round: the cell fails).
 */
static int wait_for(struct fl_thread *t, struct pi_state *s, uint32_t *w,
		    uint32_t round, const char *what)
{
	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_SEQ_CST);

		if (v != PI_QUIT && (v & ~PI_STOP) >= round)
			return 0;
		if (v & PI_STOP)
			return -1;
		int r = fl_wait(w, v, &s->deadline);

		if (r == -ETIMEDOUT)
			t->counters[C_TIMEOUTS]++;
		if (fl_wait_failed(r)) {
			fl_rep_fail(t->rep, "pi thread %u: no %s for round %u "
				    "(wait returned %d)", t->index, what, round,
				    r);
			return -1;
		}
	}
}

/* Move to the one CPU and take the role's priority. */
static int become(struct pi_state *s, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	return err;
}

/*
 * low's part of a round: take lock N, post the round (unless the
 * repetition is ending: then the round never starts), wait for the cue,
 * hold, drop. 0, or -1 to leave.
 */
static int low_round(struct fl_thread *t, struct pi_state *s, int lock,
		     uint32_t round, uint64_t hold, uint64_t *took)
{
	const unsigned int n = s->chain;
	const uint32_t tid = (uint32_t)t->tid;
	uint32_t before = round - 1;

	if (take_free(t, s, lock, n, round))
		return -1;
	enter(s, n);
	s->low_rounds++;
	if (!__atomic_compare_exchange_n(s->owner_has, &before, round, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		leave(s, n);
		drop(s, lock, n, tid);
		return -1;
	}
	fl_wake(s->owner_has, INT_MAX);	/* high preempts us here */
	if (wait_for(t, s, s->hold_go, round, "cue")) {
		leave(s, n);
		drop(s, lock, n, tid);
		return -1;
	}
	/* medium, without PI, runs before we get here: timed from here,
	 * the hold is what the busy work really took */
	uint64_t h0 = fl_now_ns();

	fl_busy_loops(hold);
	*took = fl_now_ns() - h0;
	leave(s, n);
	drop(s, lock, n, tid);
	return 0;
}

static void low(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t hold = fl_busy_ns_to_loops(
		(uint64_t)t->rep->cell->opt[OPT_HOLD]);
	const struct timespec gap = fl_ns_to_ts(
		(uint64_t)t->rep->cell->opt[OPT_GAP]);
	uint64_t longest = 0, took = 0;

	for (uint32_t round = 1;; round++) {
		if (low_round(t, s, lock, round, hold, &took))
			break;
		if (took > longest)
			longest = took;
		if (wait_for(t, s, s->high_done, round, "high done") ||
		    wait_for(t, s, s->hog_done, round, "burst done"))
			break;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL);
	}
	t->counters[C_HOLD_MAX] = longest;
}

/*
 * Owner k (1..N-1): released by high, takes lock k and blocks on lock
 * k + 1; once it holds that (the chain unwinding), records how long after
 * high's lock attempt that was (level k + 1), and drops both.
 */
static void owner(struct fl_thread *t, struct pi_state *s, int lock,
		  unsigned int k)
{
	struct pi_owner *o = &s->owner[k];
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t longest = 0;

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, o->go, round, "release") ||
		    take_free(t, s, lock, k, round))
			break;
		enter(s, k);
		__atomic_store_n(&o->armed, round, __ATOMIC_SEQ_CST);
		int r = take(s, lock, k + 1, tid);

		if (r) {
			fl_rep_fail(t->rep, "pi round %u: owner %u's lock "
				    "returned %d", round, k, r);
			leave(s, k);
			drop(s, lock, k, tid);
			break;
		}
		uint64_t now = fl_now_ns();

		/* a round high started (not one cut short at the end) */
		if (__atomic_load_n(&s->t0_round, __ATOMIC_ACQUIRE) == round &&
		    now - s->t0 > longest)
			longest = now - s->t0;
		enter(s, k + 1);
		leave(s, k + 1);
		drop(s, lock, k + 1, tid);
		leave(s, k);
		drop(s, lock, k, tid);
	}
	t->counters[C_LEVEL2 + k - 1] = longest;
}

static void medium(struct fl_thread *t, struct pi_state *s)
{
	const uint64_t hog = (uint64_t)t->rep->cell->opt[OPT_HOG];

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->hog_go, round, "burst start"))
			break;
		/* bounded by the option's maximum (100 ms); not cut short
		 * by stop, so that the last round is like every other */
		uint64_t end = fl_now_ns() + hog;

		while (fl_now_ns() < end)
			fl_cpu_relax();
		post(s->hog_done, round);
	}
	post(s->hog_done, PI_QUIT);
}

/* high: owner k sleeps, blocked on lock k + 1 in round. 0, or -1 when
 * the deadline passed (the repetition fails). */
static int await_blocked(struct fl_thread *t, struct pi_state *s,
			 unsigned int k, uint32_t round)
{
	const struct fl_thread *o = &t->rep->threads[NROLES + k - 1];
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 20000 };
	const uint64_t until = fl_ts_to_ns(&s->deadline);

	while (__atomic_load_n(&s->owner[k].armed, __ATOMIC_SEQ_CST) !=
	       round || fl_thread_state(o->tid) != 'S') {
		if (fl_now_ns() >= until) {
			t->counters[C_TIMEOUTS]++;
			fl_rep_fail(t->rep, "pi round %u: owner %u never "
				    "blocked on lock %u", round, k, k + 1);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	return 0;
}

/*
 * high's part of a round, once low holds lock N: build the chain, start
 * the burst, cue low, block on lock 1; then *blocked is how long. 0, or
 * -1 (the repetition fails).
 */
static int high_round(struct fl_thread *t, struct pi_state *s, int lock,
		      uint32_t round, uint64_t *blocked)
{
	const uint32_t tid = (uint32_t)t->tid;

	for (unsigned int k = s->chain - 1; k >= 1; k--) {
		post(s->owner[k].go, round);
		if (await_blocked(t, s, k, round))
			return -1;
	}
	/* medium becomes runnable, but cannot preempt us */
	post(s->hog_go, round);
	uint64_t t0 = fl_now_ns();

	s->t0 = t0;
	__atomic_store_n(&s->t0_round, round, __ATOMIC_RELEASE);
	post(s->hold_go, round);
	int r = take(s, lock, 1, tid);

	if (r) {
		t->counters[C_TIMEOUTS] += r == -ETIMEDOUT;
		fl_rep_fail(t->rep, "pi round %u: high's lock returned %d",
			    round, r);
		return -1;
	}
	*blocked = fl_now_ns() - t0;
	enter(s, 1);
	s->high_rounds++;
	leave(s, 1);
	drop(s, lock, 1, tid);
	return 0;
}

static void high(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t threshold = pi_threshold_ns(t->rep->cell);
	uint64_t rounds = 0, inversions = 0, max = 0, blocked = 0;
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->owner_has, round, "owner") ||
		    high_round(t, s, lock, round, &blocked))
			break;
		/* the clock reads serve the watchdog's verdict too; only the
		 * record follows --sample */
		if (fl_sample_due(rounds + 1, &next_timed, &t->sampler))
			fl_hist_record(t->hist, blocked);
		if (blocked > threshold)
			inversions++;
		if (blocked > max)
			max = blocked;
		fl_ops_publish(t, ++rounds);
		post(s->high_done, round);
	}
	t->counters[C_ROUNDS] = rounds;
	t->counters[C_INVERSIONS] = inversions;
	t->counters[C_MAX_BLOCKED] = max;
	t->counters[C_THRESHOLD] = threshold;
}

/* high is leaving: no round starts again, nobody waits for it. */
static void high_quit(struct pi_state *s)
{
	uint32_t *words[] = { s->hog_go, s->hold_go, s->high_done };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		post(words[i], PI_QUIT);
	for (unsigned int k = 1; k < s->chain; k++)
		post(s->owner[k].go, PI_QUIT);
}

#endif /* FUTEXLAB_WORKLOADS_PI_ROLES_H */
