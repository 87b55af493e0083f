// SPDX-License-Identifier: GPL-2.0
/*
 * lock-pi: PI lock and unlock through the kernel, as `perf bench futex
 * lock-pi` measures it.
 *
 * Scenario: --threads threads loop: lock_pi on one futex (with --multi,
 * perf's -M, each thread on its own futex, so nobody contends), hold it
 * for --hold (default 1us asleep: perf's usleep(1), which the timer slack
 * stretches to tens of microseconds), then unlock_pi. Like perf, every
 * lock and unlock is a system call: there is no user-space fast path, so
 * even an uncontended operation pays for the kernel's PI state. Contended,
 * a locker blocks on the futex's rt_mutex and the owner's unlock hands
 * the lock over (the owner is boosted meanwhile).
 *
 * Measures: operations (lock + hold + unlock) per second, in total and
 * per thread (perf prints each thread's ops/s and their average), and the
 * latency of each lock_pi call, contended or not. Checks on every
 * acquisition that the kernel wrote the caller's TID into the word
 * (ownership) and, on a shared futex, that no two threads held it at
 * once; unlock_pi must succeed. waiters_seen counts releases that found
 * FUTEX_WAITERS set, i.e. handed the lock to a blocked thread. --shared is
 * perf's -S (needs futex-shared); backends without PI are skipped.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <time.h>

#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_MULTI, OPT_HOLD, OPT_SHARED };
enum { C_WAITERS_SEEN, C_VIOLATIONS };

struct lock_pi_state {
	/* 1 while a thread owns the lock */
	_Alignas(FL_CACHELINE) uint32_t inside;
	/* the futexes, one per thread and line (only [0] without --multi) */
	_Alignas(FL_CACHELINE) char words[];
};

#define FL_LOCK_PI_STRIDE FL_CACHELINE

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_MULTI] = FL_OPTION_BOOL("multi",
			"a futex per thread (perf -M): no contention"),
	[OPT_HOLD] = FL_SWEEP_NS("hold", "1us", 0, 100000000,
			"time asleep holding the lock (perf: usleep(1)); 0: "
			"unlock at once"),
	[OPT_SHARED] = FL_OPT_PERF_SHARED,
};

static const struct fl_counter_desc counters[] = {
	[C_WAITERS_SEEN] = FL_COUNTER_SUM("waiters_seen"),
	[C_VIOLATIONS] = FL_COUNTER_SUM("violations"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return FL_CAP_WAIT | FL_CAP_PI |
	       fl_shared_cap(cell, OPT_SHARED);
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	size_t size = sizeof(struct lock_pi_state) +
		      (size_t)rep->nthreads * FL_LOCK_PI_STRIDE;
	struct lock_pi_state *s = fl_rep_alloc(rep, size, -1);

	if (!s) {
		snprintf(why, len, "cannot map %zu bytes of futexes", size);
		return -1;
	}
	rep->shared = s;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	uint64_t violations = fl_rep_sum(rep, C_VIOLATIONS);
	uint64_t ops = fl_rep_ops(rep);

	if (violations) {
		snprintf(why, len, "mutual exclusion violated: %llu times two "
			 "threads held the PI lock",
			 (unsigned long long)violations);
		return -1;
	}
	if (!ops) {
		snprintf(why, len, "no lock was taken: nothing was measured");
		return -1;
	}
	return 0;
}

FL_WORKLOAD_DESCRIPTOR(lock_pi) = {
	.name = "lock-pi",
	.summary = "PI lock/unlock through the kernel (perf bench futex "
		   "lock-pi)",
	.scenario = "Threads loop lock_pi, hold --hold asleep (perf's "
		    "usleep(1)), unlock_pi, every call a system call as in "
		    "perf; --multi gives each thread its own futex. Reports "
		    "ops/s per thread (perf's figure) and lock_pi latency "
		    "percentiles, checking ownership on every acquisition.",
	.ops_unit = "lock+unlock",
	.latency = "lock_pi call latency (sampled)",
	.sample_every = 64,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.init = init,
	.verify = verify,
};

#else /* one build per backend */

static void thread(struct fl_thread *t)
{
	struct fl_rep *rep = t->rep;
	struct lock_pi_state *s = rep->shared;
	const int multi = (int)rep->cell->opt[OPT_MULTI];
	const uint64_t hold_ns = (uint64_t)rep->cell->opt[OPT_HOLD];
	const struct timespec hold = fl_ns_to_ts(hold_ns);
	uint32_t *w = (uint32_t *)(s->words + (multi ? t->index : 0) *
				   FL_LOCK_PI_STRIDE);
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t next_timed = t->sampler.first;
	uint64_t ops = 0;

	while (!fl_should_stop(rep)) {
		const int timed = fl_sample_due(ops + 1, &next_timed,
						  &t->sampler);
		uint64_t t0 = timed ? fl_now_ns() : 0;
		int r = fl_lock_pi(w, &rep->hard_deadline);
		uint64_t t1 = timed ? fl_now_ns() : 0;

		if (r == -EINTR)
			continue;
		if (r == -ETIMEDOUT)
			break;	/* the cell is being aborted */
		if (r) {
			fl_rep_fail(rep, "thread %u: lock_pi returned %d",
				    t->index, r);
			break;
		}
		uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);

		if ((v & FUTEX_TID_MASK) != tid) {
			fl_rep_fail(rep, "thread %u (tid %u) took the PI lock "
				    "but the word is %#x", t->index, tid, v);
			fl_unlock_pi(w);
			break;
		}
		/* one shared futex: a second owner would find inside set */
		if (!multi && __atomic_load_n(&s->inside, __ATOMIC_RELAXED))
			t->counters[C_VIOLATIONS]++;
		if (!multi)	/* plain stores: see workloads/lib/exclusion.h */
			__atomic_store_n(&s->inside, 1, __ATOMIC_RELAXED);
		if (hold_ns)
			nanosleep(&hold, NULL);
		if (!multi)
			__atomic_store_n(&s->inside, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(w, __ATOMIC_RELAXED) & FUTEX_WAITERS)
			t->counters[C_WAITERS_SEEN]++;
		r = fl_unlock_pi(w);
		if (r) {
			fl_rep_fail(rep, "thread %u: unlock_pi returned %d",
				    t->index, r);
			break;
		}
		/* recorded after the unlock: not inside the critical section */
		if (timed)
			fl_hist_record(t->hist, t1 - t0);
		fl_ops_publish(t, ++ops);
	}
}

FL_WORKLOAD_IMPL(lock_pi, thread, NULL);

#endif
