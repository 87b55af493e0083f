// SPDX-License-Identifier: GPL-2.0
/*
 * The bare loop that `futexlab run mutex --critical 0 --think 0` is held
 * against (tools/fidelity.py, docs/measurement.md): Drepper's mutex 3
 * from "Futexes Are Tricky", written here from the paper and nothing
 * else. Each thread, pinned to its CPU from the list, locks, increments a
 * counter that the lock protects (on a cache line of its own, as
 * futexlab's guarded data is), and unlocks, until a stop flag is set; it
 * counts in a local variable. No clock read, no check, no histogram, no
 * published count: what a hand-written benchmark of the lock would do.
 * A 0.2 s warm-up precedes the timed run, as futexlab's default does.
 * A CPU may be listed more than once (more threads than CPUs).
 *
 * The clock starts once every thread waits at the start and before it
 * opens, as futexlab's controller reads it: read after the opening, by a
 * main thread that the woken threads keep from its CPU, it would start
 * late with the loop already running and overstate the rate (at 1024
 * threads on 2 CPUs, by several percent: docs/notebook/
 * 2026-12-07-fidelity-start.md). The opening's own wake-ups fall inside
 * the timed run.
 *
 * What the lock did is counted in a second run after the timed one, by
 * a copy of the loop that counts (the same source, inlined with counting
 * on), so the timed loop's fast path carries no counter: futex waits and
 * wakes per acquisition, and handoffs, acquisitions whose previous one
 * was another thread's (seen in the protected counter: its value on
 * entry is not the one this thread left). tools/fidelity.py prints them
 * beside futexlab's own counts of the same things.
 *
 * The timed run counts its own futex waits and wakes too, where it makes
 * the system call anyway (an increment beside a call of about a
 * microsecond; nothing on the path that takes the lock uncontended):
 * at many threads a run's rate follows how many calls each acquisition
 * carried, which changes from run to run by several times, so the
 * timed rate is compared with futexlab's at the same calls per
 * acquisition, and the counting run's figures are another run's.
 *
 *   fidelity-mutex3 CPU[,CPU...] SECONDS
 * prints "acquisitions_per_sec N", "timed waits_per_acq W wakes_per_acq
 * K", "counter_ok 1", and the counting run's "counted
 * acquisitions_per_sec N waits_per_acq W wakes_per_acq K handoffs_per_acq
 * H".
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* futexlab's own limit (FL_MAX_THREADS): the pairs run at its counts */
#define MAX_THREADS 4096

static _Alignas(128) uint32_t lock_word;
static _Alignas(128) uint64_t counter;		/* what the lock protects */
static _Alignas(128) int stop;
/* the start: threads count themselves in, then wait for it to open */
static _Alignas(128) uint32_t arrived;
static _Alignas(128) uint32_t start_open;

/* how long the threads may take to reach the start */
#define START_LIMIT_NS 60000000000ull

struct worker {
	_Alignas(128) uint64_t ops;
	uint64_t waits, wakes, handoffs;	/* the counting run's */
	int cpu;
	pthread_t thread;
};

/* Which run: the timed one counts nothing. */
static int counting;

static void futex_wait(uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A thread's side of the start: in, then wait (a second at a time, so
 * that no wait is unbounded) until main opens it. */
static void start_pass(void)
{
	struct timespec second = { 1, 0 };

	__atomic_fetch_add(&arrived, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&start_open, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &start_open, FUTEX_WAIT_PRIVATE, 0,
			&second, NULL, 0);
}

/* Main's side: every thread in (or exit by the limit), the clock read,
 * then the start opened to all at once. The start time. */
static uint64_t start_open_all(uint32_t n)
{
	struct timespec tick = { 0, 100000 };
	uint64_t limit = now_ns() + START_LIMIT_NS, t0;

	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < n) {
		if (now_ns() > limit) {
			fprintf(stderr, "fidelity-mutex3: %u of %u threads at "
				"the start after %llu s\n",
				__atomic_load_n(&arrived, __ATOMIC_ACQUIRE), n,
				START_LIMIT_NS / 1000000000ull);
			exit(1);
		}
		nanosleep(&tick, NULL);
	}
	t0 = now_ns();
	__atomic_store_n(&start_open, 1, __ATOMIC_RELEASE);
	futex_wake(&start_open, INT_MAX);
	return t0;
}

static uint32_t cmpxchg(uint32_t *w, uint32_t old, uint32_t new)
{
	__atomic_compare_exchange_n(w, &old, new, 0, __ATOMIC_ACQUIRE,
				    __ATOMIC_RELAXED);
	return old;
}

/* A slow path's event, beside its system call. */
static inline void count(uint64_t *n)
{
	(*n)++;
}

/* mutex 3: 0 free, 1 locked, 2 locked with waiters */
static inline void lock(uint32_t *w, uint64_t *waits)
{
	uint32_t c = cmpxchg(w, 0, 1);

	if (c == 0)
		return;
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		count(waits);
		futex_wait(w, 2);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
}

static inline void unlock(uint32_t *w, uint64_t *wakes)
{
	if (__atomic_fetch_sub(w, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		count(wakes);
		futex_wake(w, 1);
	}
}

/* The loop; counted is a constant where this inlines, 0 in the timed
 * run, which then counts only its system calls (beside them). */
static inline __attribute__((always_inline)) uint64_t
loop(struct worker *me, const int counted)
{
	uint64_t ops = 0, left = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		lock(&lock_word, &me->waits);
		if (counted) {
			/* another thread's acquisition since ours: a handoff */
			me->handoffs += counter != left;
			left = ++counter;
		} else {
			counter++;
		}
		unlock(&lock_word, &me->wakes);
		ops++;
	}
	return ops;
}

static void *run(void *arg)
{
	struct worker *me = arg;

	start_pass();
	me->ops = counting ? loop(me, 1) : loop(me, 0);
	return NULL;
}

/* One timed run of n threads: acquisitions per second. */
static double timed_run(struct worker *w, int n, uint64_t duration_ns)
{
	struct timespec until;
	uint64_t t0, t1, total = 0;

	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	counter = 0;
	for (int i = 0; i < n; i++)
		w[i].waits = w[i].wakes = w[i].handoffs = 0;
	__atomic_store_n(&arrived, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&start_open, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET(w[i].cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		int err = pthread_create(&w[i].thread, &attr, run, &w[i]);

		if (err) {
			fprintf(stderr, "fidelity-mutex3: pthread_create for "
				"thread %d of %d: %s\n", i + 1, n,
				strerror(err));
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	t0 = start_open_all((uint32_t)n);
	until.tv_sec = (time_t)((t0 + duration_ns) / 1000000000ull);
	until.tv_nsec = (long)((t0 + duration_ns) % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
	       EINTR)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	t1 = now_ns();
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].ops;
	}
	if (counter != total) {
		fprintf(stderr, "fidelity-mutex3: counter %llu, acquisitions "
			"%llu: the lock is broken\n",
			(unsigned long long)counter,
			(unsigned long long)total);
		exit(1);
	}
	return (double)total * 1e9 / (double)(t1 - t0);
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	uint64_t duration_ns, ops = 0, waits = 0, wakes = 0, handoffs = 0;
	char *cpus, *save = NULL;
	double rate;
	int n = 0;

	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: fidelity-mutex3 CPU[,CPU...] SECONDS\n");
		return 2;
	}
	duration_ns = (uint64_t)(atof(argv[2]) * 1e9);
	cpus = strdup(argv[1]);
	for (char *tok = strtok_r(cpus, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		/* fewer threads than listed would be another loop's rate */
		if (n == MAX_THREADS) {
			fprintf(stderr, "fidelity-mutex3: more than %d CPUs "
				"listed\n", MAX_THREADS);
			return 2;
		}
		w[n++].cpu = atoi(tok);
	}
	timed_run(w, n, 200000000ull);		/* warm-up, discarded */
	rate = timed_run(w, n, duration_ns);
	for (int i = 0; i < n; i++) {
		ops += w[i].ops;
		waits += w[i].waits;
		wakes += w[i].wakes;
	}
	printf("acquisitions_per_sec %.1f\ntimed waits_per_acq %.6f "
	       "wakes_per_acq %.6f\ncounter_ok 1\n", rate,
	       (double)waits / (double)ops, (double)wakes / (double)ops);
	ops = waits = wakes = 0;
	counting = 1;
	rate = timed_run(w, n, duration_ns);
	for (int i = 0; i < n; i++) {
		ops += w[i].ops;
		waits += w[i].waits;
		wakes += w[i].wakes;
		handoffs += w[i].handoffs;
	}
	printf("counted acquisitions_per_sec %.1f waits_per_acq %.6f "
	       "wakes_per_acq %.6f handoffs_per_acq %.6f\n", rate,
	       (double)waits / (double)ops, (double)wakes / (double)ops,
	       (double)handoffs / (double)ops);
	free(cpus);
	return 0;
}
