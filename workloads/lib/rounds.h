/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rounds of blocked waiters, shared by the wake, wake-parallel and requeue
 * workloads: N waiter threads block on a futex, a controller sees them all
 * asleep, wakes (or requeues) them and times that, then opens the next
 * round. perf bench futex makes new threads for every run and guesses they
 * sleep with usleep(); these threads live for the whole repetition, so each
 * round needs three things that perf does not:
 *
 *   a gate   a woken waiter must not block on the benchmark's futex again
 *            until the round is over, or it would be woken (or requeued)
 *            twice and another waiter not at all. Waiters wait at the gate
 *            for the next round number. The gate uses the stock private
 *            futex directly, not the backend under test: coordination must
 *            not show up in the backend's figures or statistics.
 *   arming   a waiter stores the round number just before it blocks on
 *            the benchmark's futex. A thread seen asleep (state S in
 *            /proc) after arming for round r can only be asleep in that
 *            futex wait, not at the gate or in the harness's barrier.
 *   counts   each waiter counts the waits that returned 0 (it was woken).
 *            Before round r the controller checks every count is r - 1:
 *            every waiter was woken exactly once per round.
 *
 * The kernel queues a waiter and sets it sleeping under the hash bucket
 * lock that the waker takes, so a waiter seen asleep is one the next wake
 * finds; a backend without that property costs extra wake calls, which the
 * workloads count.
 *
 * Every wait here has a deadline (the repetition's hard deadline) and
 * notices the stop flag; fl_rounds_quit() (from a kick) releases the gate.
 *
 * The three workloads share more than the gate: init() maps the state and
 * the rounds with fl_rounds_init(), the --settle option is
 * FL_ROUNDS_OPT_SETTLE, waiters run fl_rounds_waiter() with their own wait
 * (fl_rounds_wait_word() for a plain wait), and the controller opens each
 * round with fl_rounds_begin() and closes it with fl_rounds_finish().
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_ROUNDS_H
#define FUTEXLAB_WORKLOADS_LIB_ROUNDS_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "measure/sleeping.h"

/* the gate's value at stop, and how often waits recheck stop */
#define FL_ROUNDS_QUIT		UINT32_MAX
#define FL_ROUNDS_SLICE_NS	20000000ull

struct fl_rounds_waiter {
	/* the round it blocks for, and its waits that returned 0 */
	_Alignas(FL_CACHELINE) uint32_t armed;
	uint64_t wakes;
	char pad[FL_CACHELINE - 16];
};

struct fl_rounds {
	/* round number waiters may arm for, or FL_ROUNDS_QUIT */
	_Alignas(FL_CACHELINE) uint32_t gate;
	/* rounds the controller finished, written once per round */
	_Alignas(FL_CACHELINE) uint64_t done;
	unsigned int nwaiters;
	struct fl_thread **threads;		/* the waiters, for /proc */
	struct fl_rounds_waiter *w;		/* nwaiters of them */
};

/* Bytes fl_rounds_place() needs for n waiters. */
static inline size_t fl_rounds_size(unsigned int n)
{
	return sizeof(struct fl_rounds) + n * sizeof(struct fl_rounds_waiter) +
	       n * sizeof(struct fl_thread *) + FL_CACHELINE;
}

/* Lay the rounds out in mem (fl_rounds_size(n) zeroed bytes); waiters are
 * threads 0..n-1 of rep. The first round is 1. */
static inline struct fl_rounds *fl_rounds_place(void *mem, struct fl_rep *rep,
						unsigned int n)
{
	struct fl_rounds *rs = mem;
	char *p = (char *)mem + sizeof(*rs);

	p += (FL_CACHELINE - (uintptr_t)p % FL_CACHELINE) % FL_CACHELINE;
	rs->w = (struct fl_rounds_waiter *)p;
	rs->threads = (struct fl_thread **)(p + n * sizeof(*rs->w));
	rs->nwaiters = n;
	for (unsigned int i = 0; i < n; i++)
		rs->threads[i] = &rep->threads[i];
	rs->gate = 1;
	return rs;
}

/*
 * init(): map the workload's state (size zeroed bytes, set as rep->shared)
 * and, in memory of their own, the rounds of the cell's --threads waiters,
 * threads 0..n-1 (*rounds). Both freed after the repetition. The state,
 * or NULL with a reason that names what the state holds ("the futex").
 */
static inline void *fl_rounds_init(struct fl_rep *rep, size_t size,
				   struct fl_rounds **rounds, const char *what,
				   char *why, size_t len)
{
	unsigned int n = rep->cell->threads;
	void *state = fl_rep_alloc(rep, size, -1);
	void *mem = fl_rep_alloc(rep, fl_rounds_size(n), -1);

	if (!state || !mem) {
		snprintf(why, len, "cannot map %s and %u waiters' slots", what,
			 n);
		return NULL;
	}
	*rounds = fl_rounds_place(mem, rep, n);
	rep->shared = state;
	return state;
}

/* The --settle option of the three workloads, for fl_rounds_settle(). */
#define FL_ROUNDS_OPT_SETTLE \
	FL_SWEEP_NS("settle", "0", 0, 1000000000, \
		    "idle time before each round's wakes (perf: 100ms)")

/* The stock private futex, for coordination only (absolute deadline). */
static inline long fl_rounds_futex(uint32_t *w, int op, uint32_t val,
				   const struct timespec *deadline)
{
	long r = syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, deadline,
			 NULL, FUTEX_BITSET_MATCH_ANY);

	return r < 0 ? -errno : r;
}

/* Waiter: block until round may start. 0, or -1 when the rep is ending. */
static inline int fl_rounds_gate_wait(struct fl_rounds *rs,
				      struct fl_rep *rep, uint32_t round)
{
	for (;;) {
		uint32_t g = __atomic_load_n(&rs->gate, __ATOMIC_ACQUIRE);

		if (g == FL_ROUNDS_QUIT || fl_should_stop(rep))
			return -1;
		if (g >= round)
			return 0;
		if (fl_rounds_futex(&rs->gate, FUTEX_WAIT_BITSET, g,
				    &rep->hard_deadline) == -ETIMEDOUT)
			return -1;
	}
}

/* Waiter: about to block on the benchmark's futex for round. */
static inline void fl_rounds_arm(struct fl_rounds *rs, unsigned int i,
				 uint32_t round)
{
	__atomic_store_n(&rs->w[i].armed, round, __ATOMIC_RELEASE);
}

/* Waiter: its wait returned 0. */
static inline void fl_rounds_woken(struct fl_rounds *rs, unsigned int i)
{
	__atomic_store_n(&rs->w[i].wakes, rs->w[i].wakes + 1, __ATOMIC_RELEASE);
}

/*
 * Waiter: what the result r of its blocking wait on the benchmark's futex
 * (what: "wait", ...) means. 0 woken; 1 the repetition is ending (the
 * deadline passed, or the kick changed the word: it changes only then);
 * -1 a broken rule, and the repetition fails.
 */
static inline int fl_rounds_waited(struct fl_thread *t, int r,
				   const char *what)
{
	struct fl_rep *rep = t->rep;

	if (r == 0)
		return 0;
	if ((r == -EAGAIN && fl_should_stop(rep)) || r == -ETIMEDOUT)
		return 1;
	fl_rep_fail(rep, "waiter %u: %s returned %d", t->index, what, r);
	return -1;
}

/*
 * Waiter thread i = t->index: round after round, hold at the gate, arm,
 * block in wait_once(t, arg) (0 when woken, else the repetition ends) and
 * count the wake, until the repetition ends; then store its wakes in the
 * thread's counter.
 */
static inline void fl_rounds_waiter(struct fl_thread *t, struct fl_rounds *rs,
				    int (*wait_once)(struct fl_thread *t,
						     void *arg),
				    void *arg, unsigned int counter)
{
	for (uint32_t round = 1; !fl_rounds_gate_wait(rs, t->rep, round);
	     round++) {
		fl_rounds_arm(rs, t->index, round);
		if (wait_once(t, arg))
			break;
		fl_rounds_woken(rs, t->index);
	}
	t->counters[counter] = rs->w[t->index].wakes;
}

#ifdef FL_BACKEND_ID
/* A wait_once for fl_rounds_waiter(): a plain wait on the futex word,
 * which holds 0 until the kick stores 1. */
static inline int fl_rounds_wait_word(struct fl_thread *t, void *word)
{
	int r;

	do
		r = fl_wait(word, 0, &t->rep->hard_deadline);
	while (r == -EINTR);
	return fl_rounds_waited(t, r, "wait");
}
#endif

/*
 * Controller: wait until every waiter armed for round and sleeps. 0; 1 if
 * the repetition is stopping; -ETIMEDOUT past the hard deadline.
 */
static inline int fl_rounds_await(struct fl_rounds *rs, struct fl_rep *rep,
				  uint32_t round)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 20000 };

	for (;;) {
		unsigned int armed = 0;
		uint64_t now = fl_now_ns();

		if (fl_should_stop(rep))
			return 1;
		if (now >= rep->hard_deadline_ns)
			return -ETIMEDOUT;
		for (unsigned int i = 0; i < rs->nwaiters; i++)
			armed += __atomic_load_n(&rs->w[i].armed,
						 __ATOMIC_ACQUIRE) == round;
		if (armed < rs->nwaiters) {
			nanosleep(&pause, NULL);
			continue;
		}
		uint64_t slice = now + FL_ROUNDS_SLICE_NS;

		if (fl_wait_threads_sleeping(rs->threads, rs->nwaiters,
				slice < rep->hard_deadline_ns ? slice :
				rep->hard_deadline_ns) == 0)
			return 0;
	}
}

/*
 * Controller: stay idle ns after seeing the waiters asleep, as perf's
 * usleep(100000) before each run does: CPUs idle that long wake slower
 * (deep C-states; in a VM, a halted vCPU). 0 if it slept, 1 if the
 * repetition is stopping.
 */
static inline int fl_rounds_settle(struct fl_rep *rep, uint64_t ns)
{
	uint64_t until = fl_now_ns() + ns;

	while (ns) {
		uint64_t now = fl_now_ns();

		if (fl_should_stop(rep))
			return 1;
		if (now >= until)
			break;
		fl_sleep_until_ns(until - now > FL_ROUNDS_SLICE_NS ?
				  now + FL_ROUNDS_SLICE_NS : until);
	}
	return 0;
}

/* Controller, before round: every waiter was woken exactly round - 1
 * times. Returns the index of the first that was not, or -1. A stop that
 * came after fl_rounds_await() returned lets the kick wake the waiters one
 * extra time: that is the end of the repetition, not a broken count, so
 * it returns -1 then and the controller's next step sees stop. */
static inline int fl_rounds_check(const struct fl_rounds *rs, uint32_t round)
{
	for (unsigned int i = 0; i < rs->nwaiters; i++)
		if (__atomic_load_n(&rs->w[i].wakes, __ATOMIC_ACQUIRE) !=
		    (uint64_t)round - 1)
			return fl_should_stop(rs->threads[i]->rep) ? -1 :
			       (int)i;
	return -1;
}

/*
 * Controller: open round. Waits until every waiter sleeps armed for it
 * (fl_rounds_await), checks each was woken round - 1 times
 * (fl_rounds_check; woken says how a failure reads: "was woken",
 * "returned"), then stays idle settle_ns (fl_rounds_settle). 0 to go on;
 * -1 when the repetition is ending or a rule broke (then it fails).
 */
static inline int fl_rounds_begin(struct fl_rounds *rs, struct fl_rep *rep,
				  uint32_t round, uint64_t settle_ns,
				  const char *woken)
{
	int r = fl_rounds_await(rs, rep, round);

	if (r == 1)
		return -1;
	if (r) {
		fl_rep_fail(rep, "round %u: the %u waiters were not all "
			    "asleep by the deadline", round, rs->nwaiters);
		return -1;
	}
	r = fl_rounds_check(rs, round);
	if (r >= 0) {
		fl_rep_fail(rep, "before round %u: waiter %d %s %llu times, "
			    "not %u", round, r, woken,
			    (unsigned long long)rs->w[r].wakes, round - 1);
		return -1;
	}
	return fl_rounds_settle(rep, settle_ns) ? -1 : 0;
}

/* Controller: round is over; let waiters arm for the next one. */
static inline void fl_rounds_finish(struct fl_rounds *rs, uint32_t round)
{
	__atomic_store_n(&rs->done, round, __ATOMIC_RELEASE);
	__atomic_store_n(&rs->gate, round + 1, __ATOMIC_RELEASE);
	fl_rounds_futex(&rs->gate, FUTEX_WAKE, INT_MAX, NULL);
}

/* Kick: release every waiter held at the gate. */
static inline void fl_rounds_quit(struct fl_rounds *rs)
{
	__atomic_store_n(&rs->gate, FL_ROUNDS_QUIT, __ATOMIC_RELEASE);
	fl_rounds_futex(&rs->gate, FUTEX_WAKE, INT_MAX, NULL);
}

/*
 * After the join: rounds done, and each waiter woken once per finished
 * round, plus at most once in the round the stop interrupted. 0, or -1
 * with a reason.
 */
static inline int fl_rounds_verify(const struct fl_rounds *rs, char *why,
				   size_t len)
{
	uint64_t done = rs->done;

	if (!done) {
		snprintf(why, len, "no round finished: nothing was measured");
		return -1;
	}
	for (unsigned int i = 0; i < rs->nwaiters; i++) {
		uint64_t n = rs->w[i].wakes;

		if (n != done && n != done + 1) {
			snprintf(why, len, "waiter %u was woken %llu times in "
				 "%llu rounds", i, (unsigned long long)n,
				 (unsigned long long)done);
			return -1;
		}
	}
	return 0;
}

#endif
