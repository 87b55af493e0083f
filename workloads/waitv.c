// SPDX-License-Identifier: GPL-2.0
/*
 * waitv: waiting on many futexes at once, the pattern of Wine and Proton's
 * fsync, where a game thread waits on several synchronization objects
 * (events, mutexes, semaphores) with one futex_waitv(2).
 *
 * Scenario: --threads waiters each own --futexes futex words and wait on
 * all of them in one vectored wait. One waker thread picks a waiter at
 * random among those armed (waiting), then one of its futexes at random,
 * stores 1 in it and wakes it: the object that became signalled. The
 * waiter returns with that futex's index, resets it, and waits again.
 *
 * Measures: wakes per second (the waker's count: one thread counts, so
 * fairness across threads means nothing) and the wake latency, from the
 * waker's store to the waiter's return, every wake timed (a wake costs
 * microseconds, a clock read tens of nanoseconds). Checks every return:
 * the index must name the futex the waker signalled (index_wrong counts
 * the ones that did not; the cell fails). eagain counts waits that found
 * the futex signalled before they slept; misses counts the waker's picks
 * of a waiter that was not armed. Backends without a vectored wait are
 * skipped.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>

#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_FUTEXES };
enum { C_INDEX_WRONG, C_EAGAIN, C_MISSES };

#define WAITV_STRIDE	64	/* one futex word per cache line */

/*
 * A waiter's futexes and the waker's hand-off to it. One signal is in
 * flight per waiter: the waker claims an armed waiter (armed 1 -> 0), sets
 * signalled and stamp_ns, stores 1 in that futex, wakes it and then sets
 * wake_done. The waiter re-arms only after wake_done: a wake still on its
 * way from the last signal would otherwise end the next wait with the old
 * futex's index, and the check below could not tell it from a wrong one.
 */
struct waitv_slot {
	/* 1 while the waiter waits: only the waker clears it */
	_Alignas(FL_CACHELINE) uint32_t armed;
	uint32_t signalled;		/* which futex the waker set */
	uint64_t stamp_ns;		/* when it set it */
	uint32_t wake_done;		/* the waker's wake has returned */
	_Alignas(FL_CACHELINE) char words[];
};

struct waitv_state {
	unsigned int nwaiters, nfutexes;
	size_t slot_bytes;
	_Alignas(FL_CACHELINE) char slots[];
};

static inline struct waitv_slot *slot_of(struct waitv_state *s, unsigned int i)
{
	return (struct waitv_slot *)(s->slots + i * s->slot_bytes);
}

static inline uint32_t *futex_of(struct waitv_slot *slot, unsigned int j)
{
	return (uint32_t *)(slot->words + j * WAITV_STRIDE);
}

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_FUTEXES] = FL_SWEEP_INT("futexes", "8", 1, FL_WAITV_MAX,
			"futexes each waiter waits on at once (1-128)"),
};

static const struct fl_counter_desc counters[] = {
	[C_INDEX_WRONG] = FL_COUNTER_SUM("index_wrong"),
	[C_EAGAIN] = FL_COUNTER_SUM("eagain"),
	[C_MISSES] = FL_COUNTER_SUM("misses"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	(void)cell;
	return FL_CAP_WAIT | FL_CAP_WAITV;
}

/* the waiters, plus the waker */
static unsigned int nthreads(const struct fl_cell *cell)
{
	return cell->threads + 1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	unsigned int n = rep->nthreads - 1;
	unsigned int nf = (unsigned int)rep->cell->opt[OPT_FUTEXES];
	size_t slot = sizeof(struct waitv_slot) + (size_t)nf * WAITV_STRIDE;
	struct waitv_state *s;

	slot = (slot + FL_CACHELINE - 1) / FL_CACHELINE * FL_CACHELINE;
	s = fl_rep_alloc(rep, sizeof(*s) + n * slot, -1);
	if (!s) {
		snprintf(why, len, "cannot map %u waiters' futexes", n);
		return -1;
	}
	s->nwaiters = n;
	s->nfutexes = nf;
	s->slot_bytes = slot;
	rep->shared = s;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	uint64_t wrong = fl_rep_sum(rep, C_INDEX_WRONG);

	if (wrong) {
		snprintf(why, len, "futex_waitv returned the index of a futex "
			 "nobody signalled %llu times",
			 (unsigned long long)wrong);
		return -1;
	}
	if (!fl_rep_ops(rep) && !fl_cell_spin_oversubscribed(rep->cell)) {
		snprintf(why, len, "no waiter was woken: nothing was measured");
		return -1;
	}
	return 0;
}

FL_WORKLOAD_DESCRIPTOR(waitv) = {
	.name = "waitv",
	.summary = "futex_waitv on many futexes, woken one at random (fsync)",
	.scenario = "--threads waiters each wait on --futexes futexes with "
		    "one vectored wait (futex_waitv, as Wine's fsync does); "
		    "a waker signals one futex of one armed waiter at random. "
		    "Reports wakes/s and wake latency (store to return), "
		    "checking that every return names the futex signalled.",
	.ops_unit = "wakes",
	.ops_by_one_thread = 1,
	.latency = "wake latency (store to waiter's return)",
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.nthreads = nthreads,
	.init = init,
	.verify = verify,
};

#else /* one build per backend */

/*
 * One armed wait: futex_waitv until the waker has claimed this waiter
 * (armed cleared). Return what the last futex_waitv returned, or INT_MIN
 * to stop. *now_ns is when it returned.
 */
static int wait_claimed(struct fl_thread *t, struct waitv_state *s,
			struct waitv_slot *slot, struct fl_waitv *v,
			uint64_t *now_ns)
{
	struct fl_rep *rep = t->rep;

	__atomic_store_n(&slot->armed, 1, __ATOMIC_RELEASE);
	for (;;) {
		int r = fl_waitv(v, s->nfutexes, &rep->hard_deadline);

		*now_ns = fl_now_ns();
		if (r == -ETIMEDOUT || fl_should_stop(rep))
			return INT_MIN;
		if (r == -EAGAIN) {
			t->counters[C_EAGAIN]++;
		} else if (r < 0 && r != -EINTR) {
			fl_rep_fail(rep, "thread %u: futex_waitv returned %d",
				    t->index, r);
			return INT_MIN;
		}
		if (!__atomic_load_n(&slot->armed, __ATOMIC_ACQUIRE))
			return r;
		/* interrupted, or woken by nobody's signal: still armed */
	}
}

/* Wait on every futex of the slot until one is signalled; record it. */
static void waiter(struct fl_thread *t, struct waitv_state *s,
		   struct waitv_slot *slot)
{
	struct fl_rep *rep = t->rep;
	struct fl_waitv v[FL_WAITV_MAX];
	uint64_t received = 0, next_timed = t->sampler.first, now;

	for (unsigned int j = 0; j < s->nfutexes; j++)
		v[j] = (struct fl_waitv){ .val = 0, .flags = FL_WAITV_FLAGS,
			.uaddr = (uintptr_t)futex_of(slot, j) };
	while (!fl_should_stop(rep)) {
		int r = wait_claimed(t, s, slot, v, &now);

		if (r == INT_MIN)
			break;
		/* the claim is ours: its signal and its wake are on the way */
		while (!__atomic_load_n(&slot->wake_done, __ATOMIC_ACQUIRE)) {
			if (fl_should_stop(rep))
				return;
			sched_yield();	/* the waker may share our CPU */
		}
		__atomic_store_n(&slot->wake_done, 0, __ATOMIC_RELAXED);
		uint32_t j = slot->signalled;

		/* the waker's stamp times every signal; only the record
		 * follows --sample */
		if (fl_sample_due(++received, &next_timed, &t->sampler))
			fl_hist_record(t->hist, now - slot->stamp_ns);
		if (r >= 0 && (uint32_t)r != j)
			t->counters[C_INDEX_WRONG]++;
		__atomic_store_n(futex_of(slot, j), 0, __ATOMIC_RELAXED);
	}
}

/* Signal one futex of one armed waiter, at random, until stop. */
static void waker(struct fl_thread *t, struct waitv_state *s)
{
	struct fl_rep *rep = t->rep;
	uint64_t rnd = t->seed | 1, wakes = 0;

	while (!fl_should_stop(rep)) {
		struct waitv_slot *slot =
			slot_of(s, (unsigned int)(fl_rand(&rnd) % s->nwaiters));
		uint32_t one = 1;

		if (!__atomic_compare_exchange_n(&slot->armed, &one, 0, 0,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED)) {
			t->counters[C_MISSES]++;
			sched_yield();	/* let a waiter re-arm */
			continue;
		}
		uint32_t j = (uint32_t)(fl_rand(&rnd) % s->nfutexes);

		slot->signalled = j;
		slot->stamp_ns = fl_now_ns();
		__atomic_store_n(futex_of(slot, j), 1, __ATOMIC_RELEASE);
		fl_wake(futex_of(slot, j), 1);
		__atomic_store_n(&slot->wake_done, 1, __ATOMIC_RELEASE);
		fl_ops_publish(t, ++wakes);
	}
}

static void thread(struct fl_thread *t)
{
	struct waitv_state *s = t->rep->shared;

	if (t->index < s->nwaiters)
		waiter(t, s, slot_of(s, t->index));
	else
		waker(t, s);
}

/* Signal every waiter's first futex, so each sees stop. */
static void kick(struct fl_rep *rep)
{
	struct waitv_state *s = rep->shared;

	for (unsigned int i = 0; i < s->nwaiters; i++) {
		uint32_t *w = futex_of(slot_of(s, i), 0);

		__atomic_store_n(w, 1, __ATOMIC_RELEASE);
		fl_wake(w, INT_MAX);
	}
}

FL_WORKLOAD_IMPL(waitv, thread, kick);

#endif
