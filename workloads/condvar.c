// SPDX-License-Identifier: GPL-2.0
/*
 * condvar: one broadcast to N waiters, who then all want the same mutex.
 *
 * Scenario: --threads waiters and one broadcaster (the last thread). The
 * condition variable is a sequence word: a waiter reads it, checks the
 * predicate (has the broadcaster released the round it waits for?) and,
 * if not, sleeps on the word with the value it read. The broadcaster
 * releases a round by storing its number (the predicate), bumping the
 * sequence word and waking, as --wake says:
 *   all         wake every waiter (glibc since 2.25): they all run to the
 *               mutex at once, the thundering herd;
 *   requeue     wake one and move the rest onto the mutex word with
 *               cmp_requeue (glibc before 2.25); every waiter then locks
 *               in the contended state "2", so each unlock wakes the next;
 *   requeue-pi  the waiters sleep in wait_requeue_pi, the broadcaster
 *               calls cmp_requeue_pi, and each waiter returns owning the
 *               PI mutex (needs requeue-pi).
 * The mutex is Drepper's mutex 3 (0 free, 1 locked, 2 contended) for all
 * and requeue, the TID|WAITERS PI encoding for requeue-pi. Each waiter
 * holds it --critical ns.
 *
 * A round starts only when every waiter is asleep: the waiters count
 * themselves in before waiting, and on a sleeping backend the broadcaster
 * also sees each of them in state S in /proc (the spin backend never
 * sleeps: the count alone says it is about to spin). Readiness is seen,
 * never guessed with a sleep.
 *
 * Measures, per broadcast (ops = rounds): the time from the broadcast to
 * the moment the last waiter holds the mutex (the latency histogram);
 * each waiter's wake latency, from the broadcast to its return from the
 * wait, kept by the broadcaster in a second histogram whose p50, p99 and
 * maximum become counters; the herd, every mutex attempt after waking
 * that found the lock taken; voluntary and involuntary context switches
 * of the waiters (getrusage RUSAGE_THREAD, summed). Under requeue a
 * waiter returns from its wait only once an unlock wakes it on the
 * mutex, so its wake latency includes the wait for the mutex.
 *
 * Checks: every waiter woke once in every completed round (the wake
 * count), and mutual exclusion on the mutex (an owner flag and a plain
 * counter, as in the mutex workload).
 *
 * Here: the descriptor, and the thread body that makes the last thread
 * the broadcaster; the two sides are condvar_waiter.h and
 * condvar_broadcaster.h, what all share condvar_state.h.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/sched_fifo.h"

#include "workloads/condvar_state.h"

#ifdef FL_DESCRIBE

static const char *const wakes[] = { "all", "requeue", "requeue-pi", NULL };

static const struct fl_option options[] = {
	[OPT_WAKE] = FL_SWEEP_ENUM("wake", "all", wakes,
			"how the broadcast wakes the waiters"),
	[OPT_CRITICAL] = FL_SWEEP_NS("critical", "1000", 0, 1000000000,
			"each waiter's time holding the mutex, ns of busy "
			"work"),
	[OPT_RT_WAITERS] = FL_OPTION_BOOL("rt-waiters",
			"waiters run SCHED_FIFO, one priority each, and "
			"wake order is checked against priority (needs "
			"CAP_SYS_NICE)"),
};

static const struct fl_counter_desc counters[] = {
	[C_ROUNDS] = FL_COUNTER_SUM("rounds"),
	[C_MUTEX_FAILS] = FL_COUNTER_SUM("mutex_fails"),
	[C_CTX_VOL] = FL_COUNTER_SUM("ctx_voluntary"),
	[C_CTX_INVOL] = FL_COUNTER_SUM("ctx_involuntary"),
	[C_WAKE_P50] = FL_COUNTER_MAX("wake_p50_ns"),
	[C_WAKE_P99] = FL_COUNTER_MAX("wake_p99_ns"),
	[C_WAKE_MAX] = FL_COUNTER_MAX("wake_max_ns"),
	[C_ORDER_INVERSIONS] = FL_COUNTER_SUM("order_inversions"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	/* a spinning RT waiter could keep the CPU from everyone else */
	uint32_t rt = cell->opt[OPT_RT_WAITERS] ? FL_CAP_SLEEP : 0;

	switch (cell->opt[OPT_WAKE]) {
	case WAKE_REQUEUE:
		return rt | FL_CAP_WAIT | FL_CAP_TIMEOUT | FL_CAP_REQUEUE;
	case WAKE_REQUEUE_PI:
		return rt | FL_CAP_TIMEOUT | FL_CAP_PI | FL_CAP_REQUEUE_PI;
	default:
		return rt | FL_CAP_WAIT | FL_CAP_TIMEOUT;
	}
}

/* --rt-waiters: one priority per waiter, and SCHED_FIFO allowed. */
static int check(const struct fl_cell *cell, char *why, size_t len)
{
	if (!cell->opt[OPT_RT_WAITERS])
		return 0;
	if (cell->threads > CV_RT_MAX_WAITERS) {
		snprintf(why, len, "--rt-waiters gives each waiter a priority "
			 "of its own: at most %d waiters", CV_RT_MAX_WAITERS);
		return -1;
	}
	return fl_fifo_check(CV_RT_PRIO(cell->threads - 1), why, len);
}

/* The waiters, plus the broadcaster. */
static unsigned int nthreads(const struct fl_cell *cell)
{
	return cell->threads + 1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	unsigned int n = rep->nthreads - 1;
	size_t size = sizeof(struct cv_state) + n * sizeof(struct cv_slot);
	struct cv_state *s = fl_rep_alloc(rep, size, -1);
	struct fl_thread **waiters = fl_rep_alloc(rep, n * sizeof(*waiters),
						  -1);

	if (!s || !waiters) {
		snprintf(why, len, "cannot map the condition variable");
		return -1;
	}
	fl_node_any(rep, s->seq);
	fl_node_any(rep, s->lock);
	fl_node_any(rep, s->armed);
	fl_node_any(rep, s->done);
	s->nwaiters = n;
	s->deadline_ns = rep->hard_deadline_ns - CV_MARGIN_NS;
	s->deadline = fl_ns_to_ts(s->deadline_ns);
	fl_hist_init(&s->wake_hist);
	for (unsigned int i = 0; i < n; i++)
		waiters[i] = &rep->threads[i];
	s->waiters = waiters;
	rep->shared = s;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct cv_state *s = rep->shared;
	uint64_t rounds = rep->threads[s->nwaiters].counters[C_ROUNDS];
	uint64_t acquisitions = 0;

	for (unsigned int i = 0; i < s->nwaiters; i++) {
		const struct cv_slot *w = &s->slots[i];

		if (w->violations) {
			snprintf(why, len, "mutual exclusion violated: waiter "
				 "%u found another owner %llu times", i,
				 (unsigned long long)w->violations);
			return -1;
		}
		/* a round is counted once every waiter is through it */
		if (w->wakes != rounds) {
			snprintf(why, len, "wake count: waiter %u woke for "
				 "%llu rounds of %llu broadcast", i,
				 (unsigned long long)w->wakes,
				 (unsigned long long)rounds);
			return -1;
		}
		acquisitions += w->acquisitions;
	}
	return fl_guarded_check_count(&s->guarded, acquisitions, why, len);
}

/* futexlab plot's condvar-wake: the wake strategies side by side */
static const struct fl_special_plot wake_plot = {
	.option = "wake",
	.name = "condvar-wake",
	.title = "condvar: time until the last waiter holds the mutex, per "
		 "wake strategy",
	.ylabel = "time",
	.panels = {
		{ .fig = FL_FIG_P50, .title = "median of the rounds (p50)" },
		{ .fig = FL_FIG_P99, .title = "p99 of the rounds" },
	},
	.caption = "time to last acquire per wake strategy",
};

FL_WORKLOAD_DESCRIPTOR(condvar) = {
	.name = "condvar",
	.summary = "broadcast to N waiters who then take one mutex",
	.scenario = "--threads waiters sleep on a condition variable; one "
		    "more thread broadcasts once all of them sleep (--wake "
		    "all, requeue or requeue-pi) and each waiter then takes "
		    "the mutex for --critical ns. Latency is the time from the "
		    "broadcast until the last waiter holds the mutex; counters "
		    "give the waiters' wake latency, failed mutex attempts "
		    "after waking (the herd) and context switches.",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "broadcast to last waiter holding the mutex",
	.primary = FL_PRIMARY_LATENCY_P50,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.nthreads = nthreads,
	.init = init,
	.verify = verify,
	.plot = &wake_plot,
};

#else /* one build per backend */

#include "workloads/condvar_waiter.h"
#include "workloads/condvar_broadcaster.h"

static void thread(struct fl_thread *t)
{
	struct cv_state *s = t->rep->shared;
	const int mode = (int)t->rep->cell->opt[OPT_WAKE];
	struct rusage before, after;

	if (t->index == s->nwaiters) {
		broadcaster(t, s, mode);
		return;
	}
	/* the waiters' switches only: the broadcaster's include its own
	 * polling of /proc, an artefact of the readiness check */
	getrusage(RUSAGE_THREAD, &before);
	waiter(t, s, mode);
	getrusage(RUSAGE_THREAD, &after);
	t->counters[C_CTX_VOL] = (uint64_t)(after.ru_nvcsw - before.ru_nvcsw);
	t->counters[C_CTX_INVOL] = (uint64_t)(after.ru_nivcsw -
					      before.ru_nivcsw);
}

/*
 * After stop: close the rounds (the broadcaster releases no more; one it
 * released already completes) and release the waiters asleep on the
 * condition variable, and a broadcaster waiting for them to count in.
 * Each word changes before its wake, so a thread about to sleep on the
 * old value returns at once. A requeue-pi waiter cannot be woken by a
 * plain wake: it is requeued onto the PI mutex and unlocks it again.
 */
static void kick(struct fl_rep *rep)
{
	struct cv_state *s = rep->shared;
	const int mode = (int)rep->cell->opt[OPT_WAKE];

	__atomic_fetch_or(&s->released, CV_CLOSED, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(s->armed, 1, __ATOMIC_SEQ_CST);
	fl_wake(s->armed, INT_MAX);
	if (mode == WAKE_REQUEUE_PI) {
		broadcast(s, mode);
	} else {
		__atomic_add_fetch(s->seq, 1, __ATOMIC_SEQ_CST);
		fl_wake(s->seq, INT_MAX);
	}
}

FL_WORKLOAD_IMPL(condvar, thread, kick);

#endif
