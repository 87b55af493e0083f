// SPDX-License-Identifier: GPL-2.0
/*
 * requeue: the time to move N blocked waiters from one futex to another,
 * as `perf bench futex requeue` measures it.
 *
 * Scenario: --threads waiters block on futex 1. One more thread, the
 * requeuer, sees them all asleep (state S, see rounds.h), then calls
 * cmp_requeue(futex1 -> futex2, wake 0, requeue --nrequeue) until all N
 * have moved (perf's -q, default 1; --broadcast, perf's -B, moves all N
 * in one call), and times that. Outside the timed part it then wakes the
 * N waiters from futex 2, and the next round begins.
 *
 * With --pi (perf's -p) the waiters use wait_requeue_pi(futex1 -> futex2)
 * and the requeuer cmp_requeue_pi: each call hands futex 2, a PI lock, to
 * the first waiter if it is free (the kernel takes it on the waiter's
 * behalf and wakes it) and requeues up to --nrequeue more onto its
 * rt_mutex, where they take the lock in turn. Each waiter checks that the
 * kernel made it the owner (its TID in the word), then unlocks with
 * unlock_pi, as perf's waiters do.
 *
 * Measures: per round, the time of the requeue calls (perf's "Requeued N
 * of N threads in X ms" is the mean of ten rounds; here p50/p99 and the
 * mean over every round). ops are rounds. Checks every round: the calls'
 * counts (woken + requeued) add up to exactly N, the wake from futex 2
 * wakes exactly N (non-PI), every waiter returned exactly once. --shared
 * (perf -S) needs futex-shared; backends without requeue (spin) or, with
 * --pi, without requeue-PI (futex2) are skipped with that reason.
 * --settle idles before each round as perf's usleep(100000) does (see
 * wake.c).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/rounds.h"

enum { OPT_NREQUEUE, OPT_BROADCAST, OPT_PI, OPT_SHARED, OPT_SETTLE };
enum { C_REQUEUE_CALLS, C_MOVED, C_WAKEUPS };

struct requeue_state {
	_Alignas(FL_CACHELINE) uint32_t f1[2];	/* waiters block here */
	_Alignas(FL_CACHELINE) uint32_t f2[2];	/* and are moved here */
	struct fl_rounds *rounds;
};

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_NREQUEUE] = FL_SWEEP_INT("nrequeue", "1", 1, FL_MAX_THREADS,
			"waiters to requeue per call (perf -q)"),
	[OPT_BROADCAST] = FL_OPTION_BOOL("broadcast",
			"requeue all waiters in one call (perf -B)"),
	[OPT_PI] = FL_OPTION_BOOL("pi", "requeue-PI onto a PI futex (perf -p)"),
	[OPT_SHARED] = FL_OPT_PERF_SHARED,
	[OPT_SETTLE] = FL_ROUNDS_OPT_SETTLE,
};

static const struct fl_counter_desc counters[] = {
	[C_REQUEUE_CALLS] = FL_COUNTER_SUM("requeue_calls"),
	[C_MOVED] = FL_COUNTER_SUM("woken_plus_requeued"),
	[C_WAKEUPS] = FL_COUNTER_SUM("wakeups"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_REQUEUE |
	       (cell->opt[OPT_PI] ? FL_CAP_PI | FL_CAP_REQUEUE_PI : 0) |
	       fl_shared_cap(cell, OPT_SHARED);
}

static unsigned int nthreads(const struct fl_cell *cell)
{
	return cell->threads + 1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct fl_rounds *rs;
	struct requeue_state *s = fl_rounds_init(rep, sizeof(*s), &rs,
						 "the futexes", why, len);

	if (!s)
		return -1;
	fl_node_any(rep, s->f1);
	fl_node_any(rep, s->f2);
	s->rounds = rs;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct requeue_state *s = rep->shared;

	return fl_rounds_verify(s->rounds, why, len);
}

FL_WORKLOAD_DESCRIPTOR(requeue) = {
	.name = "requeue",
	.summary = "time to requeue N waiters to another futex "
		   "(perf bench futex requeue, --pi)",
	.scenario = "--threads waiters block on futex 1; once all sleep, a "
		    "requeuer moves them to futex 2 --nrequeue per call "
		    "(--broadcast: all at once; --pi: requeue-PI onto a PI "
		    "lock) and times it, then wakes them. The latency is the "
		    "time to requeue all N (perf's \"Requeued N of N threads "
		    "in X ms\"); woken + requeued must be exactly N.",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "time to requeue all waiters, per round",
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

/* With --pi, one blocking wait of a waiter (fl_rounds_waiter()'s
 * wait_once): 0 when woken and done with futex 2 (the kernel made it the
 * owner; it unlocks), 1 when the repetition ends, -1 on a broken rule. */
static int wait_requeue_pi(struct fl_thread *t, void *arg)
{
	struct requeue_state *s = arg;
	struct fl_rep *rep = t->rep;
	int r;

	do
		r = fl_wait_requeue_pi(s->f1, 0, s->f2, &rep->hard_deadline);
	while (r == -EINTR);
	r = fl_rounds_waited(t, r, "wait_requeue_pi");
	if (r)
		return r;
	uint32_t owner = __atomic_load_n(s->f2, __ATOMIC_RELAXED) &
			 FUTEX_TID_MASK;

	if (owner != (uint32_t)t->tid) {
		fl_rep_fail(rep, "waiter %u (tid %d) returned from "
			    "wait_requeue_pi but futex 2 names tid %u as owner",
			    t->index, (int)t->tid, owner);
		return -1;
	}
	r = fl_unlock_pi(s->f2);
	if (r) {
		fl_rep_fail(rep, "waiter %u: unlock_pi returned %d", t->index,
			    r);
		return -1;
	}
	return 0;
}

/* Move all n from futex 1 to futex 2: the count moved, or -1 if the
 * repetition ended (or a rule broke) first. */
static int requeue_all(struct fl_thread *t, struct requeue_state *s,
		       unsigned int n, int nrequeue, int pi)
{
	struct fl_rep *rep = t->rep;
	unsigned int moved = 0;

	while (moved < n) {
		int r = pi ? fl_cmp_requeue_pi(s->f1, s->f2, nrequeue, 0) :
			fl_cmp_requeue(s->f1, s->f2, 0, nrequeue, 0);

		t->counters[C_REQUEUE_CALLS]++;
		if (r > 0) {
			moved += (unsigned int)r;
		} else if (fl_should_stop(rep)) {
			return -1;	/* the kick changed futex 1 */
		} else if (r < 0) {
			fl_rep_fail(rep, "%s returned %d", pi ?
				    "cmp_requeue_pi" : "cmp_requeue", r);
			return -1;
		}
	}
	return (int)moved;
}

/* Non-PI: wake the n waiters now on futex 2; 0, or -1. */
static int wake_moved(struct fl_thread *t, struct requeue_state *s,
		      unsigned int n, uint32_t round)
{
	struct fl_rep *rep = t->rep;
	unsigned int woken = 0;

	while (woken < n) {
		int r = fl_wake(s->f2, (int)(n - woken));

		if (r > 0) {
			woken += (unsigned int)r;
		} else if (fl_should_stop(rep)) {
			return -1;
		} else if (r < 0) {
			fl_rep_fail(rep, "wake on futex 2 returned %d", r);
			return -1;
		}
	}
	if (woken != n) {
		fl_rep_fail(rep, "round %u: woke %u from futex 2, %u were "
			    "requeued", round, woken, n);
		return -1;
	}
	return 0;
}

static void requeuer(struct fl_thread *t, struct requeue_state *s)
{
	struct fl_rep *rep = t->rep;
	struct fl_rounds *rs = s->rounds;
	const unsigned int n = rs->nwaiters;
	const int pi = (int)rep->cell->opt[OPT_PI];
	const int nrequeue = rep->cell->opt[OPT_BROADCAST] ? (int)n :
			     (int)rep->cell->opt[OPT_NREQUEUE];
	const uint64_t settle = (uint64_t)rep->cell->opt[OPT_SETTLE];
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		if (fl_rounds_begin(rs, rep, round, settle, "returned"))
			break;
		const int timed = fl_sample_due(t->ops + 1, &next_timed,
						  &t->sampler);
		uint64_t t0 = timed ? fl_now_ns() : 0;
		int moved = requeue_all(t, s, n, nrequeue, pi);
		uint64_t t1 = timed ? fl_now_ns() : 0;

		if (moved < 0)
			break;
		if ((unsigned int)moved != n) {
			fl_rep_fail(rep, "round %u: woken + requeued = %d, "
				    "not the %u waiters", round, moved, n);
			break;
		}
		if (!pi && wake_moved(t, s, n, round))
			break;
		if (timed)
			fl_hist_record(t->hist, t1 - t0);
		fl_ops_add_one(t);
		t->counters[C_MOVED] += (uint64_t)moved;
		fl_rounds_finish(rs, round);
	}
}

static void thread(struct fl_thread *t)
{
	struct requeue_state *s = t->rep->shared;

	if (t->index >= s->rounds->nwaiters)
		requeuer(t, s);
	else if (t->rep->cell->opt[OPT_PI])
		fl_rounds_waiter(t, s->rounds, wait_requeue_pi, s, C_WAKEUPS);
	else
		fl_rounds_waiter(t, s->rounds, fl_rounds_wait_word, s->f1,
				 C_WAKEUPS);
}

static void kick(struct fl_rep *rep)
{
	struct requeue_state *s = rep->shared;

	fl_rounds_quit(s->rounds);
	__atomic_store_n(&s->f1[0], 1, __ATOMIC_RELEASE);
	if (rep->cell->opt[OPT_PI]) {
		/* a requeue-PI waiter cannot be woken by a plain wake: hand
		 * them all to the PI lock, where each takes it in turn */
		fl_cmp_requeue_pi(s->f1, s->f2, INT_MAX, 1);
	} else {
		fl_wake(s->f1, INT_MAX);
		fl_wake(s->f2, INT_MAX);
	}
}

FL_WORKLOAD_IMPL(requeue, thread, kick);

#endif
