// SPDX-License-Identifier: GPL-2.0
/*
 * mutex: a contended lock built on the backend's wait and wake.
 *
 * Scenario: --threads threads loop forever: take one lock, hold it for
 * --critical ns of calibrated busy work, release it, then think for
 * --think ns. The lock (--algo) is one of:
 *   mutex3  Drepper's "Futexes Are Tricky" mutex 3: the word is 0 free,
 *           1 locked, 2 locked with waiters; a locker that finds it taken
 *           swaps in 2 and sleeps while it stays 2; an unlocker that
 *           finds 2 stores 0 and wakes one (the glibc design);
 *   mutex2  the paper's mutex 2: the same states, compare-and-swap only;
 *   spin-then-wait
 *           mutex 3 whose locker first spins up to --spin times (a pause
 *           and a read each) while the lock is taken, then sleeps as
 *           mutex 3 does. The default, 100, is glibc's own limit for
 *           PTHREAD_MUTEX_ADAPTIVE_NP (the glibc.pthread.mutex_spin_count
 *           tunable), so this is glibc's adaptive mutex without its
 *           per-mutex learning, and the two compare at the same budget;
 *   pi      the PI encoding: the owner's TID, with FUTEX_WAITERS set by
 *           the kernel; uncontended paths stay in user space and the
 *           kernel's lock_pi/unlock_pi handle contention (needs PI);
 *   adaptive the PI word without inheritance, and the backend's adaptive
 *           lock on contention: it spins only while the owner is on a
 *           CPU, which only the kernel can see (needs capability
 *           adaptive: the module's; skipped elsewhere with the reason);
 *   pthread, pthread-adaptive, pthread-pi
 *           glibc's own PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ADAPTIVE_NP
 *           and PTHREAD_PRIO_INHERIT mutexes. glibc calls futex(2)
 *           itself, so they run on futex-private (a process-private
 *           mutex) and futex-shared (a PTHREAD_PROCESS_SHARED one in the
 *           shared mapping: shared keys) only; other backends skip them
 *           with the reason (workloads/lib/libc_mutex.h).
 * The futex-word locks are written once, in futex_mutex.h.
 *
 * Measures: acquisitions per second; acquire latency (from the first
 * attempt to holding the lock) of a random sample of acquisitions (one in
 * 512 by default, --sample); fairness across threads (Jain's index, min
 * and max acquisitions); wait and wake calls (0 for glibc's mutexes,
 * whose calls futexlab does not see); spin-then-wait's acquisitions won
 * while spinning; handoffs, the acquisitions whose previous one was
 * another thread's (what a contended lock's throughput follows, seen in
 * the guarded counter, a compare in a register per acquisition; 0 with
 * one thread). Every run checks mutual exclusion
 * (workloads/lib/exclusion.h, no locked instruction): a plain counter
 * bumped on entry and on leaving, odd while an owner is inside; two
 * owners at once or a lost increment fails the cell.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "workloads/lib/libc_mutex.h"
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_ALGO, OPT_CRITICAL, OPT_THINK, OPT_SPIN };
enum { ALGO_MUTEX3, ALGO_MUTEX2, ALGO_PI, ALGO_SPIN_THEN_WAIT, ALGO_ADAPTIVE,
       ALGO_PTHREAD, ALGO_PTHREAD_ADAPTIVE, ALGO_PTHREAD_PI };
enum { C_VIOLATIONS, C_WAITS, C_WAKES, C_TIMEOUTS, C_SPUN, C_HANDOFFS };

struct mutex_state {
	/* the lock: a futex word (+ futex2-numa's node), or glibc's mutex */
	_Alignas(FL_CACHELINE) union {
		uint32_t word[2];
		pthread_mutex_t pthread;
	} lock;
	/* the data the lock protects, on a line of its own as it would be */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
};

/* glibc's kind of mutex for a pthread algorithm */
static inline enum fl_libc_kind libc_kind(int algo)
{
	return algo == ALGO_PTHREAD_ADAPTIVE ? FL_LIBC_ADAPTIVE :
	       algo == ALGO_PTHREAD_PI ? FL_LIBC_PI : FL_LIBC_NORMAL;
}

static inline int is_libc(int algo)
{
	return algo >= ALGO_PTHREAD;
}

#ifdef FL_DESCRIBE

static const char *const algos[] = {
	"mutex3", "mutex2", "pi", "spin-then-wait", "adaptive", "pthread",
	"pthread-adaptive", "pthread-pi", NULL,
};

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "mutex3", algos, "lock algorithm"),
	[OPT_CRITICAL] = FL_SWEEP_NS("critical", "100", 0, 1000000000,
			"critical section length, ns of busy work"),
	[OPT_THINK] = FL_SWEEP_NS("think", "0", 0, 1000000000,
			"think time between acquisitions, ns of busy work"),
	[OPT_SPIN] = FL_SWEEP_INT("spin", "100", 0, 100000,
			"spin-then-wait's spins before it sleeps (glibc's "
			"adaptive-mutex limit; other algorithms ignore it)"),
};

static const struct fl_counter_desc counters[] = {
	[C_VIOLATIONS] = FL_COUNTER_SUM("violations"),
	[C_WAITS] = FL_COUNTER_SUM("wait_calls"),
	[C_WAKES] = FL_COUNTER_SUM("wake_calls"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
	[C_SPUN] = FL_COUNTER_SUM("spin_acquired"),
	[C_HANDOFFS] = FL_COUNTER_SUM("handoffs"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	switch ((int)cell->opt[OPT_ALGO]) {
	case ALGO_PI:
	case ALGO_PTHREAD_PI:
		return FL_CAP_PI;
	case ALGO_ADAPTIVE:
		return FL_CAP_ADAPTIVE;
	default:
		return FL_CAP_WAIT;
	}
}

/* glibc's mutexes run only where their futex calls are the backend's. */
static int check(const struct fl_cell *cell, char *why, size_t len)
{
	if (!is_libc((int)cell->opt[OPT_ALGO]))
		return 0;
	return fl_libc_mutex_pshared(cell->backend, why, len) < 0 ? -1 : 0;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct mutex_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	const int algo = (int)rep->cell->opt[OPT_ALGO];

	if (!s) {
		snprintf(why, len, "cannot map the lock");
		return -1;
	}
	rep->shared = s;
	if (is_libc(algo)) {
		int pshared = fl_libc_mutex_pshared(rep->cell->backend, why,
						    len);

		return pshared < 0 ? -1 :
		       fl_libc_mutex_init(&s->lock.pthread, libc_kind(algo),
					  pshared, why, len);
	}
	fl_node_any(rep, s->lock.word);
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct mutex_state *s = rep->shared;

	return fl_guarded_verify(&s->guarded, fl_rep_sum(rep, C_VIOLATIONS),
				 fl_rep_ops(rep), why, len);
}

FL_WORKLOAD_DESCRIPTOR(mutex) = {
	.name = "mutex",
	.summary = "contended mutex: Drepper's, spin-then-wait, PI, "
		   "adaptive, glibc's",
	.scenario = "Threads loop taking one lock, holding it --critical ns, "
		    "releasing it and thinking --think ns. Reports "
		    "acquisitions/s, acquire latency percentiles, fairness, "
		    "and checks mutual exclusion in every run. glibc's "
		    "mutexes (--algo pthread*) run on futex-private and "
		    "futex-shared only; --algo adaptive needs the module.",
	.ops_unit = "acquisitions",
	.latency = "acquire latency (sampled)",
	.sample_every = 512,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.init = init,
	.verify = verify,
};

#else /* one build per backend */

/*
 * The Drepper locks' sleeping parts, out of line: the measured loop holds
 * every atomic step of the lock inline, in the bare loop's order (the
 * swap after a failed attempt, the store of 0 after a decrement that found
 * 2), and calls out only where the lock makes a system call anyway. With
 * the system calls' paths inline, the compiler gave them the registers
 * and the loop stored its counts on the stack at every acquisition,
 * between the unlock and the next lock.
 */
static __attribute__((noinline, cold)) int
mutex3_sleep(uint32_t *w, const struct timespec *deadline, uint64_t *waits)
{
	return fl_drepper_sleep(w, 0, deadline, waits);
}

static __attribute__((noinline, cold)) int
mutex2_sleep(uint32_t *w, const struct timespec *deadline, uint64_t *waits)
{
	return fl_drepper_sleep(w, 1, deadline, waits);
}

static __attribute__((noinline, cold)) void
drepper_wake(uint32_t *w, uint64_t *wakes)
{
	fl_drepper_wake(w, wakes);
}

/* The lock of algo (a constant where this inlines; the three glibc kinds
 * are one: the kind lives in the mutex). Slow paths are counted in the
 * thread's counters c. */
static inline int lock(const int algo, struct mutex_state *s, uint32_t tid,
		       unsigned int spins, const struct timespec *deadline,
		       uint64_t *c)
{
	uint32_t *w = s->lock.word;
	uint32_t found;

	switch (algo) {
	case ALGO_MUTEX3:
		found = fl_cas_acquire(w, 0, 1);
		if (__builtin_expect(found == 0, 1) ||
		    fl_mutex3_swap(w, found) == 0)
			return 0;
		return mutex3_sleep(w, deadline, &c[C_WAITS]);
	case ALGO_MUTEX2:
		found = fl_cas_acquire(w, 0, 1);
		if (__builtin_expect(found == 0, 1) ||
		    fl_mutex2_mark(w, found) == 0)
			return 0;
		return mutex2_sleep(w, deadline, &c[C_WAITS]);
	case ALGO_SPIN_THEN_WAIT:
		if (__builtin_expect(fl_cas_acquire(w, 0, 1) == 0, 1) ||
		    fl_mutex3_spin(w, spins, &c[C_SPUN]) == 0 ||
		    fl_mutex3_swap(w, 1) == 0)
			return 0;
		return mutex3_sleep(w, deadline, &c[C_WAITS]);
	case ALGO_PI:
	case ALGO_ADAPTIVE:
		return fl_owner_mutex_lock(w, tid, algo == ALGO_ADAPTIVE,
					   deadline, &c[C_WAITS]);
	default:
		return fl_libc_mutex_lock(&s->lock.pthread, deadline);
	}
}

static inline void unlock(const int algo, struct mutex_state *s,
			  uint32_t tid, uint64_t *c)
{
	switch (algo) {
	case ALGO_PI:
	case ALGO_ADAPTIVE:
		fl_owner_mutex_unlock(s->lock.word, tid, algo == ALGO_ADAPTIVE,
				      &c[C_WAKES]);
		break;
	case ALGO_PTHREAD:
		fl_libc_mutex_unlock(&s->lock.pthread);
		break;
	default:
		if (__builtin_expect(fl_drepper_release(s->lock.word), 0)) {
			fl_drepper_clear(s->lock.word);
			drepper_wake(s->lock.word, &c[C_WAKES]);
		}
		break;
	}
}

/* What the measured loop carries from one acquisition to the next, in
 * registers: the guarded counter's value this thread left, and the
 * handoffs seen (acquisitions whose previous one was another thread's). */
struct carried {
	uint64_t left, handoffs;
};

/*
 * One acquisition, the critical section and the release; algo, timed and
 * busy are constants where this inlines, so the untimed copy holds no
 * clock read and no timestamp at all, and with --critical 0 --think 0 no
 * busy loop's test either. Timed, it reads the clock before the first
 * attempt and once the lock is held, and *lat gets the difference; the
 * caller records it after the unlock, so the histogram's work never
 * lengthens the critical section. 0, or the lock's error.
 */
static inline __attribute__((always_inline)) int
acquire_release(struct fl_thread *t, struct mutex_state *s, const int algo,
		const int timed, const int busy, unsigned int spins,
		uint64_t crit, uint64_t *lat, struct carried *c)
{
	/* no deadline of its own, as a program's lock has none (a timed
	 * futex wait arms a timer: the bare loop with one ran at 0.898 of
	 * itself); the repetition's hard deadline bounds every wait: a
	 * thread still asleep a second after it aborts the repetition and
	 * the process goes (measure/cell_child.c) */
	const struct timespec *deadline = NULL;
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t t0 = timed ? fl_now_ns() : 0;
	int r = lock(algo, s, tid, spins, deadline, t->counters);

	if (r)
		return r;
	if (timed)
		*lat = fl_now_ns() - t0;
	/* with busy work inside, the counter is odd while we are; without,
	 * the check is the bare loop's counter++ (exclusion.h) */
	uint64_t v = fl_guarded_enter_seq(&s->guarded, busy);

	if (busy && __builtin_expect(v & 1, 0))
		t->counters[C_VIOLATIONS]++;
	/* register work only, off the path to the unlock: the counter
	 * only grows, so another thread's entry since ours leaves it above
	 * the value we left (a compare and an add with carry) */
	c->handoffs += c->left < v;
	c->left = v + 2;
	if (busy)
		fl_busy(crit);
	fl_guarded_leave_seq(&s->guarded, v);
	unlock(algo, s, tid, t->counters);
	return 0;
}

/* The measured loop, inlined once per algorithm and once with busy work
 * (--critical or --think) and once without (algo and busy constants), so
 * that the loop carries no choice it does not need. */
static inline __attribute__((always_inline)) void
measured_loop(struct fl_thread *t, const int algo, const int busy)
{
	struct fl_rep *rep = t->rep;
	struct mutex_state *s = rep->shared;
	const uint64_t crit = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_CRITICAL]);
	const uint64_t think = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_THINK]);
	const unsigned int spins = (unsigned int)rep->cell->opt[OPT_SPIN];
	uint64_t ops = 0, lat = 0;
	struct carried c = { 0, 0 };

	t->sampler.next = t->sampler.first;
	while (!fl_should_stop(t->rep)) {
		int r;

		ops++;
		if (__builtin_expect(fl_sample_due(ops, &t->sampler.next,
						   &t->sampler), 0)) {
			r = acquire_release(t, s, algo, 1, busy, spins, crit,
					    &lat, &c);
			if (!r)
				fl_hist_record(t->hist, lat);
		} else {
			r = acquire_release(t, s, algo, 0, busy, spins, crit,
					    &lat, &c);
		}
		if (r) {
			ops--;
			if (r == -ETIMEDOUT) {
				t->counters[C_TIMEOUTS]++;
				break;	/* the cell is being aborted */
			}
			fl_rep_fail(rep, "lock returned %d", r);
			break;
		}
		/* published every 8th: each store must drain before the next
		 * lock's locked instruction, 1-2% of a bare acquisition; the
		 * bins lag by fewer than 8, the total is exact (below) */
		if ((ops & 7) == 0)
			fl_ops_publish(t, ops);
		if (busy)
			fl_busy(think);
	}
	fl_ops_publish(t, ops);
	t->counters[C_HANDOFFS] = c.handoffs;
}

/* One function per algorithm and busy-or-not, each loop compiled on its
 * own: inlined together into one switch, the six loops shared one
 * register allocation, and the measured loop kept its counts on the
 * stack, a store per acquisition between the unlock and the next lock. */
#define LOOPS(name, algo) \
	static __attribute__((noinline)) void name(struct fl_thread *t) \
	{ \
		measured_loop(t, algo, 0); \
	} \
	static __attribute__((noinline)) void name##_busy(struct fl_thread *t) \
	{ \
		measured_loop(t, algo, 1); \
	}
LOOPS(loop_mutex3, ALGO_MUTEX3)
LOOPS(loop_mutex2, ALGO_MUTEX2)
LOOPS(loop_spin, ALGO_SPIN_THEN_WAIT)
LOOPS(loop_pi, ALGO_PI)
LOOPS(loop_adaptive, ALGO_ADAPTIVE)
LOOPS(loop_pthread, ALGO_PTHREAD)

/* Each algorithm's loop without busy work and with (the three glibc kinds
 * are one loop: the kind lives in the mutex). */
static void (*const loops[][2])(struct fl_thread *t) = {
	[ALGO_MUTEX3] = { loop_mutex3, loop_mutex3_busy },
	[ALGO_MUTEX2] = { loop_mutex2, loop_mutex2_busy },
	[ALGO_PI] = { loop_pi, loop_pi_busy },
	[ALGO_SPIN_THEN_WAIT] = { loop_spin, loop_spin_busy },
	[ALGO_ADAPTIVE] = { loop_adaptive, loop_adaptive_busy },
	[ALGO_PTHREAD] = { loop_pthread, loop_pthread_busy },
	[ALGO_PTHREAD_ADAPTIVE] = { loop_pthread, loop_pthread_busy },
	[ALGO_PTHREAD_PI] = { loop_pthread, loop_pthread_busy },
};

static void thread(struct fl_thread *t)
{
	const int64_t *opt = t->rep->cell->opt;

	loops[opt[OPT_ALGO]][opt[OPT_CRITICAL] || opt[OPT_THINK]](t);
}

FL_WORKLOAD_IMPL(mutex, thread, NULL);

#endif
