// SPDX-License-Identifier: GPL-2.0
/*
 * semaphore: producers post, consumers wait, through a bounded buffer.
 *
 * Scenario: of --threads threads, --producers percent (rounded, at least
 * one and at most all but one) produce and the rest consume, through two
 * counting semaphores, the textbook bounded buffer: `items` starts at 0,
 * `slots` at --capacity. A producer waits on slots, then posts items, and
 * thinks --think ns; a consumer waits on items, then posts slots. One
 * thread does both in turn. The capacity bounds the count, so neither
 * side runs away and both sides sleep when the other falls behind. The
 * semaphore (--algo) is one of:
 *   glibc   glibc's sem_t (sem_post, sem_clockwait): it runs on
 *           futex-private (process-private) and futex-shared (sem_init's
 *           pshared) only, as glibc's mutexes do (libc_mutex.h);
 *   futex   the textbook futex semaphore: the word is the count, a
 *           separate count of sleepers beside it; a waiter takes one by
 *           compare-and-swap while the count is above 0, else counts
 *           itself a sleeper and sleeps while the word is 0; a post adds
 *           one and, if anyone sleeps, wakes one. On every backend.
 *
 * Measures: posts and waits per second (ops, the items that went through
 * the buffer: posts plus waits of `items`; counters posts and waits each),
 * the consumers' wait latency (a random sample, one in 64 by default,
 * --sample), and for the futex semaphore its wake calls and the waits
 * woken from a sleep on both semaphores, whose ratio to all posts (posts
 * plus slot_posts) is wakeups per post (0 for glibc's, whose calls
 * futexlab does not see).
 *
 * Checks: the counts add up. Each semaphore's value at the end is its
 * start plus its posts minus its successful waits, plus what the stop
 * kick posted to release the sleepers; ops are posts plus waits.
 */
#include <errno.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/libc_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_ALGO, OPT_PRODUCERS, OPT_CAPACITY, OPT_THINK };
enum { ALGO_GLIBC, ALGO_FUTEX };
enum { C_POSTS, C_WAITS, C_SLOT_POSTS, C_SLOT_WAITS, C_WAKE_CALLS,
       C_WAKEUPS, C_WAIT_CALLS, C_TIMEOUTS };

/* One semaphore: a futex word (+ futex2-numa's node) with its sleepers,
 * or glibc's sem_t; on lines of its own. */
struct sem {
	_Alignas(FL_CACHELINE) union {
		struct {
			uint32_t word[2];
			uint32_t sleepers;
		} f;
		sem_t libc;
	} u;
};

struct sem_state {
	struct sem items, slots;
	/* what the kick posted to each, to release sleepers at the end */
	_Alignas(FL_CACHELINE) uint32_t kicked;
};

/* Producers among n threads: the share, rounded, keeping one of each. */
static inline unsigned int producers(const struct fl_cell *cell,
				     unsigned int n)
{
	unsigned int p = (unsigned int)((n * cell->opt[OPT_PRODUCERS] + 50) /
					100);

	if (n < 2)
		return n;
	return p < 1 ? 1 : p > n - 1 ? n - 1 : p;
}

#ifdef FL_DESCRIBE

static const char *const algos[] = { "glibc", "futex", NULL };

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "futex", algos,
			"semaphore: glibc's sem_t or the futex one"),
	[OPT_PRODUCERS] = FL_SWEEP_INT("producers", "50", 1, 99,
			"percent of threads that produce (at least one, and "
			"one consumer)"),
	[OPT_CAPACITY] = FL_SWEEP_INT("capacity", "16", 1, 1 << 20,
			"the buffer's slots: the slots semaphore's start"),
	[OPT_THINK] = FL_SWEEP_NS("think", "0", 0, 1000000000,
			"producers' busy work between posts, ns"),
};

static const struct fl_counter_desc counters[] = {
	[C_POSTS] = FL_COUNTER_SUM("posts"),
	[C_WAITS] = FL_COUNTER_SUM("waits"),
	[C_SLOT_POSTS] = FL_COUNTER_SUM("slot_posts"),
	[C_SLOT_WAITS] = FL_COUNTER_SUM("slot_waits"),
	[C_WAKE_CALLS] = FL_COUNTER_SUM("wake_calls"),
	[C_WAKEUPS] = FL_COUNTER_SUM("wakeups"),
	[C_WAIT_CALLS] = FL_COUNTER_SUM("wait_calls"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	(void)cell;
	return FL_CAP_WAIT;
}

static const struct fl_libc_object libc_sem = {
	"glibc's semaphores", "semaphore", "sem_init's pshared",
};

static int check(const struct fl_cell *cell, char *why, size_t len)
{
	return fl_libc_check(cell->opt[OPT_ALGO] == ALGO_GLIBC,
			     cell->backend, &libc_sem, why, len);
}

static int sem_start(const struct fl_rep *rep, struct sem *m, int algo,
		     int pshared, uint32_t value, char *why, size_t len)
{
	if (algo == ALGO_FUTEX) {
		m->u.f.word[0] = value;
		fl_node_any(rep, m->u.f.word);
		return 0;
	}
	if (sem_init(&m->u.libc, pshared, value) == 0)
		return 0;
	snprintf(why, len, "sem_init: %s", strerror(errno));
	return -1;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct sem_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	const int algo = (int)rep->cell->opt[OPT_ALGO];
	int pshared = 0;

	if (!s) {
		snprintf(why, len, "cannot map the semaphores");
		return -1;
	}
	rep->shared = s;
	if (algo == ALGO_GLIBC) {
		pshared = fl_libc_pshared(rep->cell->backend,
					  &libc_sem, why, len);
		if (pshared < 0)
			return -1;
	}
	return sem_start(rep, &s->items, algo, pshared, 0, why, len) ||
	       sem_start(rep, &s->slots, algo, pshared,
			 (uint32_t)rep->cell->opt[OPT_CAPACITY], why, len) ?
	       -1 : 0;
}

static int64_t sem_value(struct sem *m, int algo)
{
	int v = 0;

	if (algo == ALGO_FUTEX)
		return m->u.f.word[0];
	sem_getvalue(&m->u.libc, &v);
	return v;
}

/* A semaphore's value at the end against its start, posts and waits. */
static int check_count(const char *name, int64_t value, int64_t start,
		       uint64_t posts, uint64_t waits, uint32_t kicked,
		       char *why, size_t len)
{
	int64_t want = start + (int64_t)posts + kicked - (int64_t)waits;

	if (value == want)
		return 0;
	snprintf(why, len, "%s: the count is %lld, but %lld + %llu posts + "
		 "%u at the stop - %llu waits is %lld", name,
		 (long long)value, (long long)start, (unsigned long long)posts,
		 kicked, (unsigned long long)waits, (long long)want);
	return -1;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct sem_state *s = rep->shared;
	const int algo = (int)rep->cell->opt[OPT_ALGO];
	uint64_t posts = fl_rep_sum(rep, C_POSTS);
	uint64_t waits = fl_rep_sum(rep, C_WAITS);

	if (posts + waits != fl_rep_ops(rep)) {
		snprintf(why, len, "%llu posts and %llu waits are not the %llu "
			 "operations", (unsigned long long)posts,
			 (unsigned long long)waits,
			 (unsigned long long)fl_rep_ops(rep));
		return -1;
	}
	return check_count("items", sem_value(&s->items, algo), 0, posts,
			   waits, s->kicked, why, len) ||
	       check_count("slots", sem_value(&s->slots, algo),
			   rep->cell->opt[OPT_CAPACITY],
			   fl_rep_sum(rep, C_SLOT_POSTS),
			   fl_rep_sum(rep, C_SLOT_WAITS), s->kicked, why,
			   len) ? -1 : 0;
}

/* futexlab plot's semaphore-algo: the two semaphores side by side */
static const struct fl_special_plot algo_plot = {
	.option = "algo",
	.name = "semaphore-algo",
	.title = "semaphore: throughput and consumers' wait latency, per "
		 "semaphore",
	.ylabel = "wait",
	.panels = {
		{ .fig = FL_FIG_OPS, .title = "posts + waits per second" },
		{ .fig = FL_FIG_P99, .title = "p99 of the waits" },
	},
	.caption = "posts and waits per second and wait p99 per semaphore",
};

FL_WORKLOAD_DESCRIPTOR(semaphore) = {
	.name = "semaphore",
	.summary = "producers post, consumers wait: glibc's sem_t, futex",
	.scenario = "--producers percent of the threads post items into a "
		    "bounded buffer of --capacity slots and the rest take "
		    "them, through two counting semaphores (items and "
		    "slots). Reports posts and waits per second, the "
		    "consumers' wait latency percentiles and, for --algo "
		    "futex, wake calls and waits woken per post; checks that "
		    "every count adds up. glibc's sem_t (--algo glibc) runs "
		    "on futex-private and futex-shared only.",
	.ops_unit = "posts and waits",
	.latency = "consumer wait latency (sampled)",
	.sample_every = 64,
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

/*
 * Take one from the semaphore: 0, or the wait's error. c[C_WAIT_CALLS]
 * counts the futex waits, c[C_WAKEUPS] those that returned woken.
 */
static int sem_take(struct sem *m, int algo, const struct timespec *deadline,
		    uint64_t *c)
{
	uint32_t *w = m->u.f.word;

	if (algo == ALGO_GLIBC) {
		while (sem_clockwait(&m->u.libc, CLOCK_MONOTONIC, deadline))
			if (errno != EINTR)
				return -errno;
		return 0;
	}
	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
		int r;

		while (v > 0)
			if (__atomic_compare_exchange_n(w, &v, v - 1, 0,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return 0;
		/* counted before the wait looks at the word, so a post that
		 * comes between sees a sleeper and wakes */
		__atomic_fetch_add(&m->u.f.sleepers, 1, __ATOMIC_SEQ_CST);
		c[C_WAIT_CALLS]++;
		r = fl_wait(w, 0, deadline);
		__atomic_fetch_sub(&m->u.f.sleepers, 1, __ATOMIC_RELAXED);
		if (r == 0)
			c[C_WAKEUPS]++;
		else if (r != -EAGAIN && r != -EINTR)
			return r;
	}
}

/* Add n to the semaphore and wake as many sleepers, if any. 0, or the
 * post's error. */
static int sem_give(struct sem *m, int algo, uint32_t n, uint64_t *c)
{
	uint32_t *w = m->u.f.word;

	if (algo == ALGO_GLIBC) {
		for (uint32_t i = 0; i < n; i++)
			if (sem_post(&m->u.libc))
				return -errno;
		return 0;
	}
	__atomic_fetch_add(w, n, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&m->u.f.sleepers, __ATOMIC_SEQ_CST)) {
		if (c)
			c[C_WAKE_CALLS]++;
		fl_wake(w, n == 1 ? 1 : INT_MAX);
	}
	return 0;
}

/* A wait's result in the loop: 0 go on, 1 stop (the deadline: the cell
 * is being aborted), -1 failed. */
static int judge(struct fl_thread *t, int r, const char *what)
{
	if (!r)
		return 0;
	if (r == -ETIMEDOUT) {
		t->counters[C_TIMEOUTS]++;
		return 1;
	}
	fl_rep_fail(t->rep, "%s returned %d", what, r);
	return -1;
}

/* ops are the items' posts and waits: the buffer's traffic */
static inline void count_op(struct fl_thread *t, unsigned int counter,
			    uint64_t *ops)
{
	if (counter == C_POSTS || counter == C_WAITS)
		fl_ops_publish(t, ++*ops);
}

/*
 * A producer's or a consumer's turn: take one from `from` (counted in
 * counter took, timed when next_timed is given and the sampler says),
 * then give one to `to` (counted in gave). A stop seen after the take
 * ends the turn before the give: every call is counted, which is what
 * verify() adds up. 0 to go on, else stop.
 */
static int turn(struct fl_thread *t, struct sem *from, struct sem *to,
		unsigned int took, unsigned int gave, uint64_t *next_timed,
		uint64_t *ops)
{
	struct fl_rep *rep = t->rep;
	const int algo = (int)rep->cell->opt[OPT_ALGO];
	uint64_t *c = t->counters;
	const int timed = next_timed && fl_sample_due(c[took] + 1, next_timed,
						      &t->sampler);
	uint64_t t0 = timed ? fl_now_ns() : 0;
	int r = judge(t, sem_take(from, algo, &rep->hard_deadline, c), "wait");

	if (r)
		return r;
	if (timed)
		fl_hist_record(t->hist, fl_now_ns() - t0);
	c[took]++;
	count_op(t, took, ops);
	if (fl_should_stop(rep))
		return 1;
	r = judge(t, sem_give(to, algo, 1, c), "post");
	if (r)
		return r;
	c[gave]++;
	count_op(t, gave, ops);
	return 0;
}

/* One item through the buffer as a producer, a consumer or both (one
 * thread). 0 to go on, else stop. */
static int step(struct fl_thread *t, int produce, int consume,
		uint64_t *ops, uint64_t *next_timed)
{
	struct sem_state *s = t->rep->shared;
	const uint64_t think = fl_busy_ns_to_loops(
		(uint64_t)t->rep->cell->opt[OPT_THINK]);

	if (produce) {
		if (turn(t, &s->slots, &s->items, C_SLOT_WAITS, C_POSTS, NULL,
			 ops))
			return 1;
		fl_busy(think);
	}
	return consume ? turn(t, &s->items, &s->slots, C_WAITS,
			      C_SLOT_POSTS, next_timed, ops) : 0;
}

static void thread(struct fl_thread *t)
{
	const unsigned int n = t->rep->nthreads;
	const unsigned int p = producers(t->rep->cell, n);
	const int produce = t->index < p || n == 1;
	const int consume = t->index >= p || n == 1;
	uint64_t ops = 0, next_timed = t->sampler.first;

	while (!fl_should_stop(t->rep) &&
	       !step(t, produce, consume, &ops, &next_timed))
		;
}

/* After stop: post as many to each semaphore as there are threads, so
 * every sleeper returns and sees stop; verify() counts them in. */
static void kick(struct fl_rep *rep)
{
	struct sem_state *s = rep->shared;
	const int algo = (int)rep->cell->opt[OPT_ALGO];

	__atomic_fetch_add(&s->kicked, rep->nthreads, __ATOMIC_RELEASE);
	sem_give(&s->items, algo, rep->nthreads, NULL);
	sem_give(&s->slots, algo, rep->nthreads, NULL);
}

FL_WORKLOAD_IMPL(semaphore, thread, kick);

#endif
