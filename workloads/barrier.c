// SPDX-License-Identifier: GPL-2.0
/*
 * barrier: N threads cross one barrier again and again.
 *
 * Scenario: --threads threads loop forever arriving at a barrier; none
 * goes on until all have arrived, and then all do. The barrier (--algo)
 * is one of:
 *   glibc     glibc's pthread_barrier_t (pthread_barrier_wait), on
 *             futex-private and futex-shared (PTHREAD_PROCESS_SHARED)
 *             only, as glibc's mutexes (libc_mutex.h);
 *   wake-all  a futex barrier: a count of arrivals and a generation word;
 *             a thread reads the generation, counts itself in, and sleeps
 *             while the generation stays; the last to arrive resets the
 *             count, bumps the generation and wakes every sleeper;
 *   requeue   the same, but the last arrival wakes one sleeper and
 *             requeues the rest onto a second word (cmp_requeue, as
 *             glibc's condvar broadcast did before 2.25), and each thread
 *             woken wakes the next one there: one runs at a time instead
 *             of a herd (needs capability requeue).
 *
 * Measures: rounds per second (ops, counted by thread 0; every thread
 * counts its own crossings); the time from the last arrival to the last
 * departure of each round (the latency histogram): every thread reads
 * the clock before it arrives and once it is through, and raises the
 * round's latest arrival and latest departure (an atomic maximum on a
 * line shared by all, the same for every algorithm); the last one through
 * records the difference. Wait and wake calls of the futex barriers.
 *
 * Ending: glibc's barrier has no timed wait and cannot be released from
 * outside, so its threads leave together: the thread pthread_barrier_wait
 * picks in each round (PTHREAD_BARRIER_SERIAL_THREAD) looks at the stop
 * flag and, once set, names the next round the last; every thread crosses
 * it and leaves (the repetition's hard deadline bounds the wait from
 * outside, as for mutex's untimed waits). The futex barriers wait until
 * the repetition's hard deadline, and the stop kick closes the barrier (a
 * bit in the generation word) and wakes both words: a round the kick cut
 * short counts for nobody.
 *
 * Checks: every thread crossed the same number of rounds.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/libc_mutex.h"
#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_ALGO };
enum { ALGO_GLIBC, ALGO_WAKE_ALL, ALGO_REQUEUE };
enum { C_CROSSINGS, C_WAIT_CALLS, C_WAKE_CALLS, C_TIMEOUTS };

/* Set in the generation word by the kick: the barrier is closed. */
#define BARRIER_CLOSED (1u << 31)

/* The clock of every other round: latest arrival and departure. */
struct round_clock {
	_Alignas(FL_CACHELINE) uint64_t last_arrival, last_departure;
	uint32_t departed;
};

struct barrier_state {
	/* the futex barrier: generation (+ futex2-numa's node), count */
	_Alignas(FL_CACHELINE) uint32_t gen[2];
	_Alignas(FL_CACHELINE) uint32_t arrived;
	/* where requeue moves the sleepers */
	_Alignas(FL_CACHELINE) uint32_t next[2];
	/* glibc's: the barrier, and the round after which all leave */
	_Alignas(FL_CACHELINE) pthread_barrier_t libc;
	_Alignas(FL_CACHELINE) uint64_t last_round;
	struct round_clock clock[2];
};

#ifdef FL_DESCRIBE

static const char *const algos[] = { "glibc", "wake-all", "requeue", NULL };

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "wake-all", algos,
			"barrier: glibc's, futex wake-all or futex requeue"),
};

static const struct fl_counter_desc counters[] = {
	[C_CROSSINGS] = FL_COUNTER_MAX("crossings"),
	[C_WAIT_CALLS] = FL_COUNTER_SUM("wait_calls"),
	[C_WAKE_CALLS] = FL_COUNTER_SUM("wake_calls"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return cell->opt[OPT_ALGO] == ALGO_REQUEUE ?
	       FL_CAP_WAIT | FL_CAP_REQUEUE : FL_CAP_WAIT;
}

static const struct fl_libc_object libc_barrier = {
	"glibc's barriers", "barrier", "PTHREAD_PROCESS_SHARED",
};

static int check(const struct fl_cell *cell, char *why, size_t len)
{
	return fl_libc_check(cell->opt[OPT_ALGO] == ALGO_GLIBC,
			     cell->backend, &libc_barrier, why, len);
}

static int libc_init(pthread_barrier_t *b, unsigned int n, int pshared,
		     char *why, size_t len)
{
	pthread_barrierattr_t a;
	int err = pthread_barrierattr_init(&a);

	if (!err)
		err = pthread_barrierattr_setpshared(&a, pshared ?
						     PTHREAD_PROCESS_SHARED :
						     PTHREAD_PROCESS_PRIVATE);
	if (!err)
		err = pthread_barrier_init(b, &a, n);
	pthread_barrierattr_destroy(&a);
	if (err)
		snprintf(why, len, "pthread_barrier_init: %s", strerror(err));
	return err ? -1 : 0;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct barrier_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	int pshared;

	if (!s) {
		snprintf(why, len, "cannot map the barrier");
		return -1;
	}
	rep->shared = s;
	fl_node_any(rep, s->gen);
	fl_node_any(rep, s->next);
	if (rep->cell->opt[OPT_ALGO] != ALGO_GLIBC)
		return 0;
	pshared = fl_libc_pshared(rep->cell->backend,
				  &libc_barrier, why, len);
	return pshared < 0 ? -1 :
	       libc_init(&s->libc, rep->nthreads, pshared, why, len);
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	const uint64_t rounds = rep->threads[0].ops;

	for (unsigned int i = 0; i < rep->nthreads; i++) {
		uint64_t n = rep->threads[i].counters[C_CROSSINGS];

		if (n != rounds) {
			snprintf(why, len, "thread %u crossed %llu rounds, "
				 "thread 0 %llu", i, (unsigned long long)n,
				 (unsigned long long)rounds);
			return -1;
		}
	}
	return 0;
}

/* futexlab plot's barrier-algo: the three barriers side by side */
static const struct fl_special_plot algo_plot = {
	.option = "algo",
	.name = "barrier-algo",
	.title = "barrier: time from the last arrival to the last departure, "
		 "per barrier",
	.ylabel = "time",
	.panels = {
		{ .fig = FL_FIG_P50, .title = "median of the rounds (p50)" },
		{ .fig = FL_FIG_P99, .title = "p99 of the rounds" },
	},
	.caption = "last arrival to last departure per barrier",
};

FL_WORKLOAD_DESCRIPTOR(barrier) = {
	.name = "barrier",
	.summary = "N threads cross a barrier: glibc's, wake-all, requeue",
	.scenario = "--threads threads cross one barrier round after round "
		    "(--algo glibc, wake-all or requeue). Reports rounds per "
		    "second and the time from each round's last arrival to "
		    "its last departure, and checks every thread crossed "
		    "every round. glibc's barrier runs on futex-private and "
		    "futex-shared only; requeue needs capability requeue.",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "last arrival to last departure, per round",
	.sample_every = 1,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.init = init,
	.verify = verify,
	.plot = &algo_plot,
};

#else /* one build per backend */

static inline void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (old < v && !__atomic_compare_exchange_n(p, &old, v, 0,
							__ATOMIC_RELEASE,
							__ATOMIC_RELAXED))
		;
}

/* Through round r: the last one out records last arrival to last
 * departure and clears the clock for round r + 2. */
static void departed(struct fl_thread *t, struct round_clock *c)
{
	atomic_max(&c->last_departure, fl_now_ns());
	if (__atomic_add_fetch(&c->departed, 1, __ATOMIC_ACQ_REL) !=
	    t->rep->nthreads)
		return;
	fl_hist_record(t->hist, __atomic_load_n(&c->last_departure,
						__ATOMIC_RELAXED) -
				__atomic_load_n(&c->last_arrival,
						__ATOMIC_RELAXED));
	__atomic_store_n(&c->last_arrival, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->last_departure, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->departed, 0, __ATOMIC_RELEASE);
}

/* The last arrival: open the next generation (unless the kick closed the
 * barrier: 1) and wake the sleepers as algo says. */
static int release(struct fl_thread *t, struct barrier_state *s,
		   const int algo, uint32_t g)
{
	uint32_t open = (g + 1) & ~BARRIER_CLOSED;

	__atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
	if (!__atomic_compare_exchange_n(s->gen, &g, open, 0,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return 1;
	if (t->rep->nthreads == 1)
		return 0;
	t->counters[C_WAKE_CALLS]++;
	if (algo == ALGO_REQUEUE)
		fl_cmp_requeue(s->gen, s->next, 1, INT_MAX, open);
	else
		fl_wake(s->gen, INT_MAX);
	return 0;
}

/* Sleep until generation g is over: 0 through, 1 closed or the deadline
 * passed, -1 a failure. */
static int await(struct fl_thread *t, struct barrier_state *s,
		 const int algo, uint32_t g)
{
	uint32_t v;

	while ((v = __atomic_load_n(s->gen, __ATOMIC_ACQUIRE)) == g) {
		int r;

		t->counters[C_WAIT_CALLS]++;
		r = fl_wait(s->gen, g, &t->rep->hard_deadline);
		if (r == -ETIMEDOUT) {
			t->counters[C_TIMEOUTS]++;
			return 1;
		}
		if (r && r != -EAGAIN && r != -EINTR) {
			fl_rep_fail(t->rep, "barrier wait returned %d", r);
			return -1;
		}
		/* woken by the last arrival or by the one before on the
		 * second word: wake the next one there */
		if (r == 0 && algo == ALGO_REQUEUE) {
			t->counters[C_WAKE_CALLS]++;
			fl_wake(s->next, 1);
		}
	}
	return (v & ~BARRIER_CLOSED) == g ? 1 : 0;
}

/* Round r of a futex barrier: 0 crossed, else leave. */
static int futex_round(struct fl_thread *t, struct barrier_state *s,
		       const int algo)
{
	uint32_t g = __atomic_load_n(s->gen, __ATOMIC_ACQUIRE);

	if (g & BARRIER_CLOSED)
		return 1;
	if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL) ==
	    t->rep->nthreads)
		return release(t, s, algo, g);
	return await(t, s, algo, g);
}

/* Round r of glibc's barrier: 0 crossed, 1 crossed the last round. */
static int glibc_round(struct fl_thread *t, struct barrier_state *s,
		       uint64_t r)
{
	uint64_t last;

	if (pthread_barrier_wait(&s->libc) == PTHREAD_BARRIER_SERIAL_THREAD &&
	    fl_should_stop(t->rep) &&
	    !__atomic_load_n(&s->last_round, __ATOMIC_RELAXED))
		__atomic_store_n(&s->last_round, r + 1, __ATOMIC_RELEASE);
	last = __atomic_load_n(&s->last_round, __ATOMIC_ACQUIRE);
	return last && r >= last ? 1 : 0;
}

static void thread(struct fl_thread *t)
{
	struct barrier_state *s = t->rep->shared;
	const int algo = (int)t->rep->cell->opt[OPT_ALGO];
	uint64_t *crossings = &t->counters[C_CROSSINGS];

	for (uint64_t r = 1;; r++) {
		struct round_clock *c = &s->clock[r & 1];
		int end;

		if (algo != ALGO_GLIBC && fl_should_stop(t->rep))
			break;
		atomic_max(&c->last_arrival, fl_now_ns());
		if (algo == ALGO_GLIBC) {
			end = glibc_round(t, s, r);
		} else {
			end = futex_round(t, s, algo);
			if (end)
				break;
		}
		departed(t, c);
		++*crossings;
		if (t->index == 0)
			fl_ops_publish(t, *crossings);
		if (end)
			break;
	}
}

/* After stop: close the futex barrier and wake both words, so no thread
 * sleeps at it; glibc's threads leave by themselves (glibc_round). */
static void kick(struct fl_rep *rep)
{
	struct barrier_state *s = rep->shared;

	if (rep->cell->opt[OPT_ALGO] == ALGO_GLIBC)
		return;
	__atomic_fetch_or(s->gen, BARRIER_CLOSED, __ATOMIC_SEQ_CST);
	fl_wake(s->gen, INT_MAX);
	fl_wake(s->next, INT_MAX);
}

FL_WORKLOAD_IMPL(barrier, thread, kick);

#endif
