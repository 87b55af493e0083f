// SPDX-License-Identifier: GPL-2.0
/*
 * rwlock: readers and writers on one readers-writer lock.
 *
 * Scenario: --threads threads loop forever: take the lock, for reading
 * or, in --writers percent of the operations, for writing; hold it for
 * --critical ns of calibrated busy work, release it, think --think ns.
 * The share is of operations, not of threads: every thread reads and
 * writes, each operation a write with that probability (a per-thread
 * random sequence from the run's seed), so 10% means the same mix at 2
 * threads as at 64, where a share of threads would round 10% of 2 or 4
 * threads to nobody, and no thread is a writer by its place. The lock
 * (--algo) is one of:
 *   glibc-prefer-reader   glibc's pthread_rwlock_t of the default kind,
 *                         PTHREAD_RWLOCK_PREFER_READER_NP;
 *   glibc-prefer-writer   PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP:
 *                         a reader waits while a writer waits;
 *   bitset                a futex word whose readers and writers sleep
 *                         with different bitsets, so a release wakes only
 *                         the next writer or only the readers
 *                         (WAKE_BITSET); it prefers writers (needs
 *                         capability bitset);
 *   plain                 a futex word without bitsets: every release
 *                         that finds sleepers wakes all of them; it
 *                         prefers readers.
 * The futex locks are in workloads/lib/futex_rwlock.h. glibc calls
 * futex(2) itself, so its rwlocks run on futex-private (process-private)
 * and futex-shared (PTHREAD_PROCESS_SHARED) only; other backends skip
 * them with the reason (workloads/lib/libc_mutex.h).
 *
 * Measures: acquisitions per second, and reads and writes each (counters
 * reads, writes: ops is their sum); write acquire latency (from the first
 * attempt to holding the lock) of a random sample of writes (one in 64 by
 * default, --sample); the longest a writer waited (writer_wait_max_ns):
 * a writer whose first attempt fails reads the clock then and once it
 * holds the lock, so every contended write is seen, which the sampled
 * histogram would miss: with readers coming all the time, that is how
 * long a writer starved; wait and wake calls of the futex locks (0 for
 * glibc's, whose calls futexlab does not see). Every run checks the
 * readers-writer exclusion (workloads/lib/exclusion.h): writers bump the
 * guarded counter as a mutex's owners do, readers only read it; a writer
 * inside with anyone else is a violation, and any violation fails the
 * cell.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_rwlock.h"
#include "workloads/lib/libc_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_ALGO, OPT_WRITERS, OPT_CRITICAL, OPT_THINK };
enum { ALGO_GLIBC_READER, ALGO_GLIBC_WRITER, ALGO_BITSET, ALGO_PLAIN };
enum { C_VIOLATIONS, C_READS, C_WRITES, C_WRITER_WAIT_MAX, C_WAITS, C_WAKES,
       C_TIMEOUTS };

struct rwlock_state {
	/* the lock: a futex word (+ futex2-numa's node), or glibc's rwlock */
	_Alignas(FL_CACHELINE) union {
		uint32_t word[2];
		pthread_rwlock_t pthread;
	} lock;
	/* the data it protects, on a line of its own as it would be */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
};

static inline int is_libc(int algo)
{
	return algo == ALGO_GLIBC_READER || algo == ALGO_GLIBC_WRITER;
}

#ifdef FL_DESCRIBE

static const char *const algos[] = {
	"glibc-prefer-reader", "glibc-prefer-writer", "bitset", "plain", NULL,
};

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "bitset", algos,
			"readers-writer lock algorithm"),
	[OPT_WRITERS] = FL_SWEEP_INT("writers", "10", 0, 100,
			"percent of operations that write (every thread "
			"reads and writes)"),
	[OPT_CRITICAL] = FL_SWEEP_NS("critical", "100", 0, 1000000000,
			"critical section length, ns of busy work"),
	[OPT_THINK] = FL_SWEEP_NS("think", "0", 0, 1000000000,
			"think time between acquisitions, ns of busy work"),
};

static const struct fl_counter_desc counters[] = {
	[C_VIOLATIONS] = FL_COUNTER_SUM("violations"),
	[C_READS] = FL_COUNTER_SUM("reads"),
	[C_WRITES] = FL_COUNTER_SUM("writes"),
	[C_WRITER_WAIT_MAX] = FL_COUNTER_MAX("writer_wait_max_ns"),
	[C_WAITS] = FL_COUNTER_SUM("wait_calls"),
	[C_WAKES] = FL_COUNTER_SUM("wake_calls"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return cell->opt[OPT_ALGO] == ALGO_BITSET ?
	       FL_CAP_WAIT | FL_CAP_BITSET : FL_CAP_WAIT;
}

static const struct fl_libc_object libc_rwlock = {
	"glibc's rwlocks", "rwlock", "PTHREAD_PROCESS_SHARED",
};

static int check(const struct fl_cell *cell, char *why, size_t len)
{
	return fl_libc_check(is_libc((int)cell->opt[OPT_ALGO]),
			     cell->backend, &libc_rwlock, why, len);
}

static int libc_init(pthread_rwlock_t *l, int algo, int pshared, char *why,
		     size_t len)
{
	pthread_rwlockattr_t a;
	int err = pthread_rwlockattr_init(&a);

	if (!err)
		err = pthread_rwlockattr_setkind_np(&a,
			algo == ALGO_GLIBC_WRITER ?
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP :
			PTHREAD_RWLOCK_PREFER_READER_NP);
	if (!err)
		err = pthread_rwlockattr_setpshared(&a, pshared ?
						    PTHREAD_PROCESS_SHARED :
						    PTHREAD_PROCESS_PRIVATE);
	if (!err)
		err = pthread_rwlock_init(l, &a);
	pthread_rwlockattr_destroy(&a);
	if (err)
		snprintf(why, len, "pthread_rwlock_init: %s", strerror(err));
	return err ? -1 : 0;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct rwlock_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	const int algo = (int)rep->cell->opt[OPT_ALGO];

	if (!s) {
		snprintf(why, len, "cannot map the lock");
		return -1;
	}
	rep->shared = s;
	if (is_libc(algo)) {
		int pshared = fl_libc_pshared(rep->cell->backend,
					      &libc_rwlock, why, len);

		return pshared < 0 ? -1 :
		       libc_init(&s->lock.pthread, algo, pshared, why, len);
	}
	fl_node_any(rep, s->lock.word);
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct rwlock_state *s = rep->shared;
	uint64_t reads = fl_rep_sum(rep, C_READS);
	uint64_t writes = fl_rep_sum(rep, C_WRITES);

	if (reads + writes != fl_rep_ops(rep)) {
		snprintf(why, len, "%llu reads and %llu writes are not the "
			 "%llu acquisitions", (unsigned long long)reads,
			 (unsigned long long)writes,
			 (unsigned long long)fl_rep_ops(rep));
		return -1;
	}
	/* the writers are the guarded counter's owners */
	return fl_guarded_verify(&s->guarded, fl_rep_sum(rep, C_VIOLATIONS),
				 writes, why, len);
}

/* futexlab plot's rwlock-writers: the locks side by side per share */
static const struct fl_special_plot writers_plot = {
	.option = "writers",
	.name = "rwlock-writers",
	.title = "rwlock: throughput and the longest writer wait, per "
		 "writers' share (%)",
	.ylabel = NULL,
	.panels = {
		{ .fig = FL_FIG_OPS, .title = "acquisitions/s" },
		{ .fig = FL_FIG_EXTRA, .extra = "writer_wait_max_ns",
		  .title = "longest writer wait", .ylabel = "writer wait" },
	},
	.caption = "throughput and writer starvation per writers' share",
};

FL_WORKLOAD_DESCRIPTOR(rwlock) = {
	.name = "rwlock",
	.summary = "readers and writers on one lock: glibc's, bitset, plain",
	.scenario = "Threads loop taking one readers-writer lock, for "
		    "writing in --writers percent of operations and reading "
		    "otherwise, holding it --critical ns and thinking --think "
		    "ns. Reports acquisitions/s with reads and writes apart, "
		    "write acquire latency percentiles, the longest writer "
		    "wait (starvation), and checks that no writer is ever "
		    "inside with anyone else. glibc's rwlocks (--algo glibc-*) "
		    "run on futex-private and futex-shared only; --algo "
		    "bitset needs capability bitset.",
	.ops_unit = "acquisitions",
	.latency = "write acquire latency (sampled)",
	.sample_every = 64,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.init = init,
	.verify = verify,
	.plot = &writers_plot,
};

#else /* one build per backend */

/* The write lock in one attempt, no sleep: 1 if taken. */
static inline int try_write(const int algo, struct rwlock_state *s)
{
	switch (algo) {
	case ALGO_BITSET:
		return fl_rw_try(s->lock.word, FL_RW_BITSET_WBUSY,
				 FL_RW_WRITER);
	case ALGO_PLAIN:
		return fl_rw_try(s->lock.word, FL_RW_PLAIN_WBUSY,
				 FL_RW_WRITER);
	default:
		return pthread_rwlock_trywrlock(&s->lock.pthread) == 0;
	}
}

static inline int lock(const int algo, struct rwlock_state *s, int write,
		       const struct timespec *deadline, uint64_t *c)
{
	uint32_t *w = s->lock.word;

	switch (algo) {
	case ALGO_BITSET:
		return write ? fl_rw_bitset_wrlock(w, deadline, &c[C_WAITS]) :
		       fl_rw_bitset_rdlock(w, deadline, &c[C_WAITS]);
	case ALGO_PLAIN:
		return write ? fl_rw_plain_wrlock(w, deadline, &c[C_WAITS]) :
		       fl_rw_plain_rdlock(w, deadline, &c[C_WAITS]);
	default:
		return write ?
		       -pthread_rwlock_clockwrlock(&s->lock.pthread,
						   CLOCK_MONOTONIC, deadline) :
		       -pthread_rwlock_clockrdlock(&s->lock.pthread,
						   CLOCK_MONOTONIC, deadline);
	}
}

static inline void unlock(const int algo, struct rwlock_state *s, int write,
			  uint64_t *c)
{
	uint32_t *w = s->lock.word;

	switch (algo) {
	case ALGO_BITSET:
		if (write)
			fl_rw_bitset_wrunlock(w, &c[C_WAKES]);
		else
			fl_rw_bitset_rdunlock(w, &c[C_WAKES]);
		break;
	case ALGO_PLAIN:
		if (write)
			fl_rw_plain_wrunlock(w, &c[C_WAKES]);
		else
			fl_rw_plain_rdunlock(w, &c[C_WAKES]);
		break;
	default:
		pthread_rwlock_unlock(&s->lock.pthread);
		break;
	}
}

/*
 * A write: the lock, timed from the first attempt when timed, and, when
 * that attempt fails, the wait's length into the writers' maximum. 0, or
 * the lock's error.
 */
static inline int write_lock(struct fl_thread *t, const int algo,
			     struct rwlock_state *s, int timed, uint64_t *lat)
{
	const struct timespec *deadline = &t->rep->hard_deadline;
	uint64_t t0 = timed ? fl_now_ns() : 0;
	uint64_t waited;
	int r;

	if (try_write(algo, s)) {
		if (timed)
			*lat = fl_now_ns() - t0;
		return 0;
	}
	if (!timed)
		t0 = fl_now_ns();
	r = lock(algo, s, 1, deadline, t->counters);
	if (r)
		return r;
	waited = fl_now_ns() - t0;
	*lat = waited;
	if (waited > t->counters[C_WRITER_WAIT_MAX])
		t->counters[C_WRITER_WAIT_MAX] = waited;
	return 0;
}

/* One acquisition, its critical section and the release: 0, or the
 * lock's error. A timed write leaves its latency in *lat. */
static inline int acquire_release(struct fl_thread *t, const int algo,
				  struct rwlock_state *s, int write, int timed,
				  uint64_t crit, uint64_t *lat)
{
	uint64_t *c = t->counters;
	int r, seen;

	if (write) {
		r = write_lock(t, algo, s, timed, lat);
		if (r)
			return r;
		seen = fl_guarded_enter(&s->guarded);
		fl_busy(crit);
		fl_guarded_leave(&s->guarded);
	} else {
		r = lock(algo, s, 0, &t->rep->hard_deadline, c);
		if (r)
			return r;
		uint64_t v = fl_guarded_read_enter(&s->guarded);

		fl_busy(crit);
		seen = fl_guarded_read_leave(&s->guarded, v);
	}
	c[C_VIOLATIONS] += (uint64_t)seen;
	unlock(algo, s, write, c);
	c[write ? C_WRITES : C_READS]++;
	return 0;
}

/* A per-thread xorshift64: the sequence of reads and writes. */
static inline uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The measured loop, inlined once per algorithm (algo a constant). */
static inline __attribute__((always_inline)) void
measured_loop(struct fl_thread *t, const int algo)
{
	struct fl_rep *rep = t->rep;
	struct rwlock_state *s = rep->shared;
	const int64_t *opt = rep->cell->opt;
	const uint64_t writers = (uint64_t)opt[OPT_WRITERS];
	const uint64_t crit = fl_busy_ns_to_loops((uint64_t)opt[OPT_CRITICAL]);
	const uint64_t think = fl_busy_ns_to_loops((uint64_t)opt[OPT_THINK]);
	uint64_t rnd = t->seed | 1, ops = 0, writes = 0, lat = 0;
	uint64_t next_timed = t->sampler.first;

	while (!fl_should_stop(rep)) {
		const int write = next_random(&rnd) % 100 < writers;
		/* the sampler picks among the writes: their latency is the
		 * histogram's */
		const int timed = write && fl_sample_due(writes + 1,
							 &next_timed,
							 &t->sampler);
		int r = acquire_release(t, algo, s, write, timed, crit, &lat);

		if (r) {
			if (r == -ETIMEDOUT) {
				t->counters[C_TIMEOUTS]++;
				break;	/* the cell is being aborted */
			}
			fl_rep_fail(rep, "%s lock returned %d",
				    write ? "write" : "read", r);
			break;
		}
		writes += (uint64_t)write;
		if (timed)
			fl_hist_record(t->hist, lat);
		fl_ops_publish(t, ++ops);
		fl_busy(think);
	}
}

static __attribute__((noinline)) void loop_libc(struct fl_thread *t)
{
	measured_loop(t, ALGO_GLIBC_READER);
}

static __attribute__((noinline)) void loop_bitset(struct fl_thread *t)
{
	measured_loop(t, ALGO_BITSET);
}

static __attribute__((noinline)) void loop_plain(struct fl_thread *t)
{
	measured_loop(t, ALGO_PLAIN);
}

/* The two glibc kinds are one loop: the kind lives in the rwlock. */
static void thread(struct fl_thread *t)
{
	switch ((int)t->rep->cell->opt[OPT_ALGO]) {
	case ALGO_BITSET:
		loop_bitset(t);
		break;
	case ALGO_PLAIN:
		loop_plain(t);
		break;
	default:
		loop_libc(t);
		break;
	}
}

FL_WORKLOAD_IMPL(rwlock, thread, NULL);

#endif
