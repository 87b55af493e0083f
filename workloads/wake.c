// SPDX-License-Identifier: GPL-2.0
/*
 * wake: the time to wake N blocked waiters, as `perf bench futex wake`
 * measures it.
 *
 * Scenario: --threads waiters block on one futex; one more thread, the
 * waker, sees them all asleep (state S in /proc, see rounds.h: never a
 * usleep guess), then wakes them --nwakes at a time (perf's -w, default 1)
 * until all N are awake, and times that. A woken waiter holds at a gate
 * until the round ends, then blocks again for the next round, so one
 * repetition holds many rounds where perf makes new threads for each of
 * its ten. The waitqueue is never empty when a wake is issued: every wake
 * call finds a waiter, which is what perf set out to measure.
 *
 * Measures: per round, the time from the first wake call to the return of
 * the one that woke the last waiter (perf prints the mean of ten such
 * rounds as "Wokeup N of N threads in X ms"; here p50/p99 and the mean
 * over every round). ops are rounds. Checks, every round, that every
 * waiter was woken exactly once and that the wake calls together woke
 * exactly N; wake_calls above rounds * ceil(N / nwakes) means a wake found
 * nobody queued. --settle keeps the waker idle that long before each
 * round, as perf's usleep(100000) does: a waiter that slept long tends
 * to preempt a waker on its CPU, and idle CPUs wake slower, so perf-like
 * figures need --settle 100ms and perf's CPU sharing (see
 * docs/perf-bench-comparison.md). --shared is perf's -S: it needs a
 * backend with shared keys (futex-shared). Backends whose waiters do not
 * sleep (spin) cannot count woken waiters and are skipped.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/rounds.h"

enum { OPT_NWAKES, OPT_SHARED, OPT_SETTLE };
enum { C_WAKE_CALLS, C_WAKEUPS };

struct wake_state {
	_Alignas(FL_CACHELINE) uint32_t word[2];	/* the futex (+ node) */
	struct fl_rounds *rounds;
};

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_NWAKES] = FL_SWEEP_INT("nwakes", "1", 1, FL_MAX_THREADS,
			"waiters to wake per wake call (perf -w)"),
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

/* the waiters, plus the waker */
static unsigned int nthreads(const struct fl_cell *cell)
{
	return cell->threads + 1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct fl_rounds *rs;
	struct wake_state *s = fl_rounds_init(rep, sizeof(*s), &rs,
					      "the futex", why, len);

	if (!s)
		return -1;
	fl_node_any(rep, s->word);
	s->rounds = rs;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct wake_state *s = rep->shared;

	return fl_rounds_verify(s->rounds, why, len);
}

FL_WORKLOAD_DESCRIPTOR(wake) = {
	.name = "wake",
	.summary = "time to wake N blocked waiters (perf bench futex wake)",
	.scenario = "--threads waiters block on one futex; a waker sees them "
		    "all asleep, then wakes them --nwakes at a time and times "
		    "the round, over and over. The latency is the time to wake "
		    "all N (perf's \"Wokeup N of N threads in X ms\"); every "
		    "waiter must be woken exactly once per round.",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "time to wake all waiters, per round",
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

static void waker(struct fl_thread *t, struct wake_state *s)
{
	struct fl_rep *rep = t->rep;
	struct fl_rounds *rs = s->rounds;
	const unsigned int n = rs->nwaiters;
	const int nwakes = (int)rep->cell->opt[OPT_NWAKES];
	const uint64_t settle = (uint64_t)rep->cell->opt[OPT_SETTLE];
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		unsigned int woken = 0;
		uint64_t calls = 0;

		if (fl_rounds_begin(rs, rep, round, settle, "was woken"))
			break;
		const int timed = fl_sample_due(t->ops + 1, &next_timed,
						  &t->sampler);
		uint64_t t0 = timed ? fl_now_ns() : 0;

		while (woken < n) {
			int w = fl_wake(s->word, nwakes);

			calls++;
			if (w > 0) {
				woken += (unsigned int)w;
			} else if (w < 0) {
				fl_rep_fail(rep, "wake returned %d", w);
				return;
			} else if (fl_should_stop(rep)) {
				return;	/* the kick took the rest */
			}
		}
		uint64_t t1 = timed ? fl_now_ns() : 0;

		if (woken != n) {
			fl_rep_fail(rep, "round %u: wake calls woke %u of %u "
				    "waiters", round, woken, n);
			break;
		}
		if (timed)
			fl_hist_record(t->hist, t1 - t0);
		fl_ops_add_one(t);
		t->counters[C_WAKE_CALLS] += calls;
		fl_rounds_finish(rs, round);
	}
}

static void thread(struct fl_thread *t)
{
	struct wake_state *s = t->rep->shared;

	if (t->index < s->rounds->nwaiters)
		fl_rounds_waiter(t, s->rounds, fl_rounds_wait_word, s->word,
				 C_WAKEUPS);
	else
		waker(t, s);
}

static void kick(struct fl_rep *rep)
{
	struct wake_state *s = rep->shared;

	fl_rounds_quit(s->rounds);
	__atomic_store_n(&s->word[0], 1, __ATOMIC_RELEASE);
	fl_wake(s->word, INT_MAX);
}

FL_WORKLOAD_IMPL(wake, thread, kick);

#endif
