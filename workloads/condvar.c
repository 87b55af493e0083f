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
#include "workloads/lib/sched_fifo.h"

enum { OPT_WAKE, OPT_CRITICAL, OPT_RT_WAITERS };
enum { WAKE_ALL, WAKE_REQUEUE, WAKE_REQUEUE_PI };
enum { C_ROUNDS, C_MUTEX_FAILS, C_CTX_VOL, C_CTX_INVOL, C_WAKE_P50,
       C_WAKE_P99, C_WAKE_MAX, C_ORDER_INVERSIONS };

/* With --rt-waiters, waiter i runs SCHED_FIFO at this priority: one
 * priority each, rising with the index. */
#define CV_RT_PRIO(i) (1 + (int)(i))
#define CV_RT_MAX_WAITERS 98

/* Set in `released` by the kick: no round after this one will come. */
#define CV_CLOSED (1u << 31)

/* The broadcaster stops waiting this long before the hard deadline, so a
 * stuck round is reported as such rather than as an aborted cell. */
#define CV_MARGIN_NS 250000000ull

/* One waiter's record, on lines of its own: written by the waiter before
 * it counts itself done, read by the broadcaster after. */
struct cv_slot {
	_Alignas(FL_CACHELINE) uint64_t wake_ns;  /* this round: to wake-up */
	uint64_t acq_ns;		/* this round: to holding the mutex */
	uint64_t wakes;			/* rounds it was released for */
	uint64_t acquisitions;
	uint64_t violations;		/* found another owner inside */
};

struct cv_state {
	/* futex words, each with the node number futex2-numa reads */
	_Alignas(FL_CACHELINE) uint32_t seq[2];	/* the condition variable */
	_Alignas(FL_CACHELINE) uint32_t lock[2];	/* the mutex */
	_Alignas(FL_CACHELINE) uint32_t armed[2];	/* waiters counted in */
	_Alignas(FL_CACHELINE) uint32_t done[2];	/* waiters through */
	/* the predicate: the last round released (| CV_CLOSED), and when */
	_Alignas(FL_CACHELINE) uint32_t released;
	uint64_t t0;
	/* what the mutex protects */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
	struct timespec deadline;	/* every wait's: hard one - margin */
	uint64_t deadline_ns;
	unsigned int nwaiters;
	struct fl_hist wake_hist;	/* the broadcaster's, of wake latency */
	struct fl_thread **waiters;	/* for the state-S check */
	struct cv_slot slots[];		/* one per waiter */
};

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
	/* futex2-numa's node after each word: the kernel chooses */
	s->seq[1] = s->lock[1] = s->armed[1] = s->done[1] = ~0u;
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

static inline int stopping(struct fl_rep *rep)
{
	return atomic_load(&rep->stop);
}

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
