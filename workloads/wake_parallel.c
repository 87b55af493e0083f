// SPDX-License-Identifier: GPL-2.0
/*
 * wake-parallel: several wakers wake shares of N blocked waiters at once,
 * as `perf bench futex wake-parallel` measures it.
 *
 * Scenario: --threads waiters block on one futex. --nwakers waker threads
 * (perf's -w; 0, the default, means one per waiter, as in perf; more than
 * --threads is cut to --threads, as in perf) are released together once
 * every waiter is seen asleep (state S, see rounds.h), and each wakes its
 * share of the waiters with a single wake call: N / nwakers each, the
 * first N % nwakers wakers one more (perf refuses uneven shares). Waking
 * in parallel contends on the futex's hash bucket lock: that contention is
 * what the benchmark shows. Rounds repeat for the whole duration.
 *
 * Measures: each waker's wake call time, per round: the histogram holds
 * one sample per waker and round, and its mean is perf's "Avg per-thread
 * latency (waking n/N threads)". ops are rounds. Checks every round that
 * the wakers together woke exactly N and that every waiter was woken
 * exactly once. One more thread, the coordinator (perf's main thread),
 * runs the rounds untimed: it sees the waiters asleep, releases every
 * waker with one wake on a start line (perf: a barrier) and waits for
 * them; both use the stock private futex with deadlines, outside the
 * measured calls. Wakers that share a CPU preempt one another inside the
 * timed call, in futexlab as in perf: the placement decides (perf gives
 * every waker the CPU of its last waiter). --shared is perf's -S (needs
 * futex-shared). Spin is skipped: its
 * waiters do not sleep, so wakes cannot be counted.
 * --settle idles before each round as perf's usleep(100000) does (see
 * wake.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/rounds.h"

enum { OPT_NWAKERS, OPT_SHARED, OPT_SETTLE };
enum { C_WAKE_CALLS, C_WAKEUPS };

struct wp_state {
	_Alignas(FL_CACHELINE) uint32_t word[2];	/* the futex (+ node) */
	_Alignas(FL_CACHELINE) uint32_t go;	/* round wakers may run */
	_Alignas(FL_CACHELINE) uint32_t arrived;	/* waker calls done */
	_Alignas(FL_CACHELINE) uint64_t woken;	/* sum of wake returns */
	unsigned int nwakers;
	struct fl_rounds *rounds;
};

/* perf's rule: 0 means one waker per waiter; never more than waiters */
static inline unsigned int wakers_of(const struct fl_cell *cell)
{
	unsigned int w = (unsigned int)cell->opt[OPT_NWAKERS];

	return w == 0 || w > cell->threads ? cell->threads : w;
}

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_NWAKERS] = FL_SWEEP_INT("nwakers", "0", 0, FL_MAX_THREADS / 2,
			"waking threads (perf -w); 0: one per waiter"),
	[OPT_SHARED] = FL_OPT_PERF_SHARED,
	[OPT_SETTLE] = FL_ROUNDS_OPT_SETTLE,
};

static const struct fl_counter_desc counters[] = {
	[C_WAKE_CALLS] = FL_COUNTER_SUM("wake_calls"),
	[C_WAKEUPS] = FL_COUNTER_SUM("wakeups"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return FL_CAP_WAIT | FL_CAP_SLEEP |
	       fl_shared_cap(cell, OPT_SHARED);
}

/* the waiters, the wakers, and the coordinator that runs the rounds */
static unsigned int nthreads(const struct fl_cell *cell)
{
	return cell->threads + wakers_of(cell) + 1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct fl_rounds *rs;
	struct wp_state *s = fl_rounds_init(rep, sizeof(*s), &rs,
					    "the futex", why, len);

	if (!s)
		return -1;
	fl_node_any(rep, s->word);
	s->nwakers = wakers_of(rep->cell);
	s->rounds = rs;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct wp_state *s = rep->shared;

	return fl_rounds_verify(s->rounds, why, len);
}

FL_WORKLOAD_DESCRIPTOR(wake_parallel) = {
	.name = "wake-parallel",
	.summary = "parallel wakers wake shares of N waiters "
		   "(perf bench futex wake-parallel)",
	.scenario = "--threads waiters block on one futex; once all sleep, "
		    "--nwakers wakers (0: one per waiter) each wake their "
		    "share with one call, at once. The latency is each "
		    "waker's call time per round (perf's \"Avg per-thread "
		    "latency\"); the wakers must wake exactly N, each waiter "
		    "once per round.",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "each waker's wake call time, per round",
	.primary = FL_PRIMARY_LATENCY_P50,
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

/* Sleep until *w reaches target (a counter that only grows) or the
 * repetition ends: 0, or -1. */
static int wait_reach(struct fl_rep *rep, uint32_t *w, uint32_t target)
{
	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

		if (fl_should_stop(rep))
			return -1;
		if ((int32_t)(v - target) >= 0)
			return 0;
		if (fl_rounds_futex(w, FUTEX_WAIT_BITSET, v,
				    &rep->hard_deadline) == -ETIMEDOUT)
			return -1;
	}
}

/* The coordinator (the last thread, untimed, like perf's main thread)
 * sees the waiters asleep and opens the start line for all the wakers at
 * once; then it waits for them and checks the counts. */
static int start_round(struct fl_thread *t, struct wp_state *s,
		       uint32_t round)
{
	struct fl_rep *rep = t->rep;

	if (fl_rounds_begin(s->rounds, rep, round,
			    (uint64_t)rep->cell->opt[OPT_SETTLE], "was woken"))
		return -1;
	__atomic_store_n(&s->go, round, __ATOMIC_RELEASE);
	fl_rounds_futex(&s->go, FUTEX_WAKE, INT_MAX, NULL);
	return 0;
}

static int end_round(struct fl_thread *t, struct wp_state *s, uint32_t round)
{
	struct fl_rep *rep = t->rep;
	const unsigned int n = s->rounds->nwaiters;

	if (wait_reach(rep, &s->arrived, round * s->nwakers))
		return -1;
	uint64_t woken = __atomic_load_n(&s->woken, __ATOMIC_ACQUIRE);

	if (woken != (uint64_t)round * n) {
		fl_rep_fail(rep, "round %u: the wakers woke %llu of %u "
			    "waiters", round,
			    (unsigned long long)(woken - (uint64_t)(round - 1) *
						 n), n);
		return -1;
	}
	fl_ops_add_one(t);
	fl_rounds_finish(s->rounds, round);
	return 0;
}

static void waker(struct fl_thread *t, struct wp_state *s)
{
	struct fl_rep *rep = t->rep;
	const unsigned int n = s->rounds->nwaiters;
	const unsigned int k = t->index - n;
	const int share = (int)(n / s->nwakers + (k < n % s->nwakers));
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1; !wait_reach(rep, &s->go, round); round++) {
		const int timed = fl_sample_due(round, &next_timed,
						  &t->sampler);
		uint64_t t0 = timed ? fl_now_ns() : 0;
		int w = fl_wake(s->word, share);
		uint64_t t1 = timed ? fl_now_ns() : 0;

		if (w < 0) {
			fl_rep_fail(rep, "waker %u: wake returned %d", k, w);
			break;
		}
		if (timed)
			fl_hist_record(t->hist, t1 - t0);
		t->counters[C_WAKE_CALLS]++;
		__atomic_fetch_add(&s->woken, (uint64_t)w, __ATOMIC_RELEASE);
		if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL) ==
		    round * s->nwakers)
			fl_rounds_futex(&s->arrived, FUTEX_WAKE, INT_MAX, NULL);
	}
}

static void coordinator(struct fl_thread *t, struct wp_state *s)
{
	for (uint32_t round = 1;; round++)
		if (start_round(t, s, round) || end_round(t, s, round))
			break;
}

static void thread(struct fl_thread *t)
{
	struct wp_state *s = t->rep->shared;

	if (t->index < s->rounds->nwaiters)
		fl_rounds_waiter(t, s->rounds, fl_rounds_wait_word, s->word,
				 C_WAKEUPS);
	else if (t->index < s->rounds->nwaiters + s->nwakers)
		waker(t, s);
	else
		coordinator(t, s);
}

static void kick(struct fl_rep *rep)
{
	struct wp_state *s = rep->shared;

	fl_rounds_quit(s->rounds);
	/* move the counters far away, so that a thread about to sleep on
	 * the value it read finds it changed (the wakers' later additions
	 * cannot bring it back); everyone checks stop first when woken */
	__atomic_fetch_add(&s->go, 1u << 31, __ATOMIC_RELEASE);
	fl_rounds_futex(&s->go, FUTEX_WAKE, INT_MAX, NULL);
	__atomic_fetch_add(&s->arrived, 1u << 31, __ATOMIC_RELEASE);
	fl_rounds_futex(&s->arrived, FUTEX_WAKE, INT_MAX, NULL);
	__atomic_store_n(&s->word[0], 1, __ATOMIC_RELEASE);
	fl_wake(s->word, INT_MAX);
}

FL_WORKLOAD_IMPL(wake_parallel, thread, kick);

#endif
