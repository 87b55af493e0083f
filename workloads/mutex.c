// SPDX-License-Identifier: GPL-2.0
/*
 * mutex: a contended lock built on the backend's wait and wake.
 *
 * Scenario: --threads threads loop forever: take one lock, hold it for
 * --critical ns of calibrated busy work, release it, then think for
 * --think ns. The lock is one of:
 *   mutex3  Drepper's "Futexes Are Tricky" mutex 3: the word is 0 free,
 *           1 locked, 2 locked with waiters; a locker that finds it taken
 *           swaps in 2 and sleeps while it stays 2; an unlocker that
 *           finds 2 stores 0 and wakes one (the glibc design);
 *   mutex2  the paper's mutex 2: the same states, compare-and-swap only;
 *   pi      the PI encoding: the owner's TID, with FUTEX_WAITERS set by
 *           the kernel; uncontended paths stay in user space and the
 *           kernel's lock_pi/unlock_pi handle contention (needs PI).
 * The three are written once, in futex_mutex.h.
 *
 * Measures: acquisitions per second; acquire latency (from the first
 * attempt to holding the lock) of a random sample of acquisitions (one in
 * 512 by default, --sample); fairness across threads (Jain's index, min
 * and max acquisitions); wait and wake calls. Every run checks mutual
 * exclusion (workloads/lib/exclusion.h, no locked instruction): a plain
 * counter bumped on entry and on leaving, odd while an owner is inside;
 * two owners at once or a lost increment fails the cell.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "spec/workload.h"

enum { OPT_ALGO, OPT_CRITICAL, OPT_THINK };
enum { ALGO_MUTEX3, ALGO_MUTEX2, ALGO_PI };
enum { C_VIOLATIONS, C_WAITS, C_WAKES, C_TIMEOUTS };

struct mutex_state {
	_Alignas(FL_CACHELINE) uint32_t word[2];	/* the lock (+ node) */
	/* the data the lock protects, on a line of its own as it would be */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
};

#ifdef FL_DESCRIBE

static const char *const algos[] = { "mutex3", "mutex2", "pi", NULL };

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "mutex3", algos, "lock algorithm"),
	[OPT_CRITICAL] = FL_SWEEP_NS("critical", "100", 0, 1000000000,
			"critical section length, ns of busy work"),
	[OPT_THINK] = FL_SWEEP_NS("think", "0", 0, 1000000000,
			"think time between acquisitions, ns of busy work"),
};

static const struct fl_counter_desc counters[] = {
	[C_VIOLATIONS] = FL_COUNTER_SUM("violations"),
	[C_WAITS] = FL_COUNTER_SUM("wait_calls"),
	[C_WAKES] = FL_COUNTER_SUM("wake_calls"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return cell->opt[OPT_ALGO] == ALGO_PI ? FL_CAP_PI : FL_CAP_WAIT;
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct mutex_state *s = fl_rep_alloc(rep, sizeof(*s), -1);

	if (!s) {
		snprintf(why, len, "cannot map the lock");
		return -1;
	}
	s->word[1] = ~0u;	/* futex2-numa's node: the kernel chooses */
	rep->shared = s;
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
	.summary = "contended mutex (Drepper's 0/1/2 states, or PI)",
	.scenario = "Threads loop taking one lock, holding it --critical ns, "
		    "releasing it and thinking --think ns. Reports "
		    "acquisitions/s, acquire latency percentiles, fairness, "
		    "and checks mutual exclusion in every run.",
	.ops_unit = "acquisitions",
	.latency = "acquire latency (sampled)",
	.sample_every = 512,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.init = init,
	.verify = verify,
};

#else /* one build per backend */

static inline int lock(int algo, uint32_t *w, uint32_t tid,
		       const struct timespec *deadline, uint64_t *waits)
{
	return algo == ALGO_MUTEX3 ? fl_mutex3_lock(w, deadline, waits) :
	       algo == ALGO_MUTEX2 ? fl_mutex2_lock(w, deadline, waits) :
	       fl_pi_mutex_lock(w, tid, deadline, waits);
}

static inline void unlock(int algo, uint32_t *w, uint32_t tid,
			  uint64_t *wakes)
{
	if (algo == ALGO_PI)
		fl_pi_mutex_unlock(w, tid, wakes);
	else
		fl_drepper_unlock(w, wakes);
}

/*
 * One acquisition, the critical section and the release; algo and timed
 * are constants where this inlines, so the untimed copy holds no clock
 * read and no timestamp at all. Timed, it reads the clock before the
 * first attempt and once the lock is held, and *lat gets the difference;
 * the caller records it after the unlock, so the histogram's work never
 * lengthens the critical section. 0, or the lock's error.
 */
static inline __attribute__((always_inline)) int
acquire_release(struct fl_thread *t, struct mutex_state *s, const int algo,
		const int timed, uint64_t crit, uint64_t *lat)
{
	const struct timespec *deadline = &t->rep->hard_deadline;
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t t0 = timed ? fl_now_ns() : 0;
	int r = lock(algo, s->word, tid, deadline, &t->counters[C_WAITS]);

	if (r)
		return r;
	if (timed)
		*lat = fl_now_ns() - t0;
	if (fl_guarded_enter(&s->guarded))
		t->counters[C_VIOLATIONS]++;
	fl_busy(crit);
	fl_guarded_leave(&s->guarded);
	unlock(algo, s->word, tid, &t->counters[C_WAKES]);
	return 0;
}

/* The measured loop, inlined once per algorithm (algo a constant) so
 * that the loop carries no choice between them. */
static inline __attribute__((always_inline)) void
measured_loop(struct fl_thread *t, const int algo)
{
	struct fl_rep *rep = t->rep;
	struct mutex_state *s = rep->shared;
	const uint64_t crit = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_CRITICAL]);
	const uint64_t think = fl_busy_ns_to_loops(
		(uint64_t)rep->cell->opt[OPT_THINK]);
	uint64_t next_timed = t->sampler.first, ops = 0, lat = 0;

	while (!fl_should_stop(rep)) {
		int r;

		if (__builtin_expect(fl_sample_due(ops + 1, &next_timed,
						   &t->sampler), 0)) {
			r = acquire_release(t, s, algo, 1, crit, &lat);
			if (!r)
				fl_hist_record(t->hist, lat);
		} else {
			r = acquire_release(t, s, algo, 0, crit, &lat);
		}
		if (r) {
			if (r == -ETIMEDOUT) {
				t->counters[C_TIMEOUTS]++;
				break;	/* the cell is being aborted */
			}
			fl_rep_fail(rep, "lock returned %d", r);
			break;
		}
		fl_ops_publish(t, ++ops);
		fl_busy(think);
	}
}

static void thread(struct fl_thread *t)
{
	switch ((int)t->rep->cell->opt[OPT_ALGO]) {
	case ALGO_MUTEX3:
		measured_loop(t, ALGO_MUTEX3);
		break;
	case ALGO_MUTEX2:
		measured_loop(t, ALGO_MUTEX2);
		break;
	default:
		measured_loop(t, ALGO_PI);
		break;
	}
}

FL_WORKLOAD_IMPL(mutex, thread, NULL);

#endif
