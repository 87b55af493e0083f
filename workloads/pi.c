// SPDX-License-Identifier: GPL-2.0
/*
 * pi: the classic priority inversion, with and without priority
 * inheritance.
 *
 * Scenario (rt-tests' pi_stress group): three SCHED_FIFO threads pinned to
 * ONE CPU, the placement's first. Each round:
 *   1. low (--prio-low) takes the lock and tells high so;
 *   2. high (--prio-high) preempts it at once, starts medium's burst and
 *      blocks on the lock;
 *   3. medium (--prio-medium), a CPU hog, burns --hog ns of wall time;
 *   4. low works --hold ns inside the lock, then unlocks; high takes the
 *      lock, drops it, and the round ends; low sleeps --gap ns.
 * With --lock plain (Drepper's mutex on wait/wake, no inheritance) the
 * scheduler runs medium before low, so high stays blocked for the whole
 * burst and then the hold: high waits on medium, the inversion. With
 * --lock pi (lock_pi/unlock_pi, needs PI) the kernel boosts low to high's
 * priority while high waits, low runs its hold first, and high waits only
 * about --hold ns. --threads is not used: a cell always runs these three.
 *
 * Measures high's blocked time per acquisition, from its lock attempt to
 * holding the lock (the latency histogram; its maximum also in the
 * counter max_blocked_ns). A round whose blocked time exceeds
 * hold + hog/2 (the counter threshold_ns) counts as an inversion; the
 * cell's note gives the verdict, "inversion" if any round of any
 * completed repetition inverted, else "none".
 *
 * Bounds: the hold and the burst are bounded options; every wait has a
 * deadline short of the repetition's hard deadline; the harness kills a
 * stuck cell. RT throttling (sched_rt_runtime_us, in meta.json) also caps
 * the three threads together at 95% of the CPU by default.
 * Needs SCHED_FIFO (CAP_SYS_NICE): without it, the cell is skipped.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "workloads/lib/exclusion.h"
#include "workloads/lib/futex_mutex.h"
#include "spec/workload.h"
#include "workloads/lib/sched_fifo.h"

enum { OPT_LOCK, OPT_HOLD, OPT_HOG, OPT_GAP, OPT_PRIO_LOW, OPT_PRIO_MEDIUM,
       OPT_PRIO_HIGH };
enum { LOCK_PLAIN, LOCK_PI };
enum { C_ROUNDS, C_INVERSIONS, C_MAX_BLOCKED, C_THRESHOLD, C_HOLD_MAX,
       C_TIMEOUTS };
enum { ROLE_LOW, ROLE_MEDIUM, ROLE_HIGH, NROLES };

/* Waits end this long before the hard deadline, so a stuck round is
 * reported as such rather than as an aborted cell. */
#define PI_MARGIN_NS 250000000ull

struct pi_state {
	/* futex words, each with the node number futex2-numa reads */
	_Alignas(FL_CACHELINE) uint32_t lock[2];
	_Alignas(FL_CACHELINE) uint32_t ready[2];	/* threads set up */
	_Alignas(FL_CACHELINE) uint32_t owner_has[2];	/* round low holds */
	_Alignas(FL_CACHELINE) uint32_t hog_go[2];	/* round to burn in */
	_Alignas(FL_CACHELINE) uint32_t high_done[2];	/* high's last round */
	_Alignas(FL_CACHELINE) uint32_t hog_done[2];	/* medium's last */
	/* what the lock protects */
	_Alignas(FL_CACHELINE) struct fl_guarded guarded;
	uint64_t acquisitions[NROLES];
	uint64_t violations;
	struct timespec deadline;	/* every wait's: hard one - margin */
	int cpu;			/* the one CPU of all three threads */
};

/* Blocked longer than this, high waited on more than the owner's hold. */
static inline uint64_t pi_threshold_ns(const struct fl_cell *cell)
{
	return (uint64_t)cell->opt[OPT_HOLD] + (uint64_t)cell->opt[OPT_HOG] / 2;
}

#ifdef FL_DESCRIBE

#include "stats/figures.h"

static const char *const locks[] = { "plain", "pi", NULL };

static const struct fl_option options[] = {
	[OPT_LOCK] = FL_SWEEP_ENUM("lock", "plain", locks,
			"plain futex mutex, or the PI protocol"),
	[OPT_HOLD] = FL_SWEEP_NS("hold", "1ms", 1000, 100000000,
			"low's work inside the lock, ns of busy work"),
	[OPT_HOG] = FL_SWEEP_NS("hog", "8ms", 1000, 100000000,
			"medium's CPU burst per round, ns of wall time"),
	[OPT_GAP] = FL_SWEEP_NS("gap", "2ms", 0, 100000000,
			"low's sleep between rounds (leaves the CPU to "
			"others)"),
	[OPT_PRIO_LOW] = FL_OPTION_INT("prio-low", "10", 1, 99,
			"SCHED_FIFO priority of the lock owner"),
	[OPT_PRIO_MEDIUM] = FL_OPTION_INT("prio-medium", "20", 1, 99,
			"SCHED_FIFO priority of the CPU hog"),
	[OPT_PRIO_HIGH] = FL_OPTION_INT("prio-high", "30", 1, 99,
			"SCHED_FIFO priority of the blocked thread"),
};

static const struct fl_counter_desc counters[] = {
	[C_ROUNDS] = FL_COUNTER_SUM("rounds"),
	[C_INVERSIONS] = FL_COUNTER_SUM("inversions"),
	[C_MAX_BLOCKED] = FL_COUNTER_MAX("max_blocked_ns"),
	[C_THRESHOLD] = FL_COUNTER_MAX("threshold_ns"),
	[C_HOLD_MAX] = FL_COUNTER_MAX("max_hold_ns"),
	[C_TIMEOUTS] = FL_COUNTER_SUM("timeouts"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	/* a spinning high-priority waiter would never let the owner run */
	return FL_CAP_SLEEP | FL_CAP_TIMEOUT |
	       (cell->opt[OPT_LOCK] == LOCK_PI ? FL_CAP_PI : FL_CAP_WAIT);
}

static unsigned int nthreads(const struct fl_cell *cell)
{
	(void)cell;
	return NROLES;
}

/* Priorities in order, and SCHED_FIFO allowed. */
static int check(const struct fl_cell *cell, char *why, size_t len)
{
	const int64_t lo = cell->opt[OPT_PRIO_LOW];
	const int64_t mid = cell->opt[OPT_PRIO_MEDIUM];
	const int64_t hi = cell->opt[OPT_PRIO_HIGH];

	if (!(lo < mid && mid < hi)) {
		snprintf(why, len, "priorities must rise low < medium < high "
			 "(got %lld, %lld, %lld)", (long long)lo,
			 (long long)mid, (long long)hi);
		return -1;
	}
	return fl_fifo_check((int)hi, why, len);
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	struct pi_state *s = fl_rep_alloc(rep, sizeof(*s), -1);
	cpu_set_t set;

	if (!s) {
		snprintf(why, len, "cannot map the lock");
		return -1;
	}
	s->lock[1] = s->ready[1] = s->owner_has[1] = s->hog_go[1] = ~0u;
	s->high_done[1] = s->hog_done[1] = ~0u;
	s->deadline = fl_ns_to_ts(rep->hard_deadline_ns - PI_MARGIN_NS);
	s->cpu = rep->cell->cpus[0];
	if (s->cpu < 0) {
		/* unpinned placement: still one CPU, the first allowed */
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		for (s->cpu = 0; s->cpu < CPU_SETSIZE &&
		     !CPU_ISSET(s->cpu, &set); s->cpu++)
			;
	}
	rep->shared = s;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	struct pi_state *s = rep->shared;
	uint64_t low = s->acquisitions[ROLE_LOW];
	uint64_t high = s->acquisitions[ROLE_HIGH];

	if (fl_guarded_verify(&s->guarded, s->violations, low + high, why,
			      len))
		return -1;
	/* high takes the lock once per round low began, but the last */
	if (high > low || high + 1 < low) {
		snprintf(why, len, "rounds: low took the lock %llu times, "
			 "high %llu", (unsigned long long)low,
			 (unsigned long long)high);
		return -1;
	}
	return 0;
}

/* The verdict, like pi_stress's: any inverted round is an inversion. */
static void note(const struct fl_cell *cell,
		 const uint64_t (*c)[FL_NCOUNTERS], unsigned int nreps,
		 char *buf, size_t len)
{
	uint64_t rounds = 0, inversions = 0, max = 0;
	char limit[32], longest[32];

	for (unsigned int r = 0; r < nreps; r++) {
		rounds += c[r][C_ROUNDS];
		inversions += c[r][C_INVERSIONS];
		if (c[r][C_MAX_BLOCKED] > max)
			max = c[r][C_MAX_BLOCKED];
	}
	fl_fmt_ns(pi_threshold_ns(cell), limit, sizeof(limit));
	fl_fmt_ns(max, longest, sizeof(longest));
	snprintf(buf, len, "verdict: %s (%llu of %llu rounds blocked high "
		 "> %s; max %s)", inversions ? "inversion" : "none",
		 (unsigned long long)inversions, (unsigned long long)rounds,
		 limit, longest);
}

/* futexlab plot's pi-blocked: the lock types side by side */
static const struct fl_special_plot blocked_plot = {
	.option = "lock",
	.name = "pi-blocked",
	.title = "pi: high-priority thread's blocked time per lock type",
	.ylabel = "blocked time (ns)",
	.panels = {
		{ .fig = FL_FIG_P50, .title = "p50" },
		{ .fig = FL_FIG_P99, .title = "p99" },
	},
	.caption = "blocked time per lock type",
};

FL_WORKLOAD_DESCRIPTOR(pi) = {
	.name = "pi",
	.summary = "priority inversion: low owner, medium hog, high waiter",
	.scenario = "Three SCHED_FIFO threads on one CPU: low holds the lock "
		    "--hold ns, high blocks on it, medium burns --hog ns. "
		    "--lock plain lets medium starve low (high waits the "
		    "burst too: inversion); --lock pi boosts low. Latency is "
		    "high's blocked time; a round blocked longer than "
		    "hold + hog/2 is an inversion. Needs CAP_SYS_NICE; "
		    "--threads is not used (always three threads).",
	.ops_unit = "rounds",
	.ops_by_one_thread = 1,
	.latency = "high's blocked time",
	.primary = FL_PRIMARY_LATENCY_P50,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.fixed_threads = NROLES,
	.nthreads = nthreads,
	.init = init,
	.verify = verify,
	.note = note,
	.plot = &blocked_plot,
};

#else /* one build per backend */

static int take(struct pi_state *s, int lock, uint32_t tid)
{
	/* plain: Drepper's mutex 3, as in the mutex workload */
	return lock == LOCK_PI ? fl_pi_mutex_lock(s->lock, tid, &s->deadline,
						  NULL) :
		fl_mutex3_lock(s->lock, &s->deadline, NULL);
}

static void drop(struct pi_state *s, int lock, uint32_t tid)
{
	if (lock == LOCK_PI)
		fl_pi_mutex_unlock(s->lock, tid, NULL);
	else
		fl_drepper_unlock(s->lock, NULL);
}

/* Inside the lock: a second owner shows in the flag or the counter. */
static void enter(struct pi_state *s)
{
	if (fl_guarded_enter(&s->guarded))
		s->violations++;
}

static void leave(struct pi_state *s)
{
	fl_guarded_leave(&s->guarded);
}

/* Store and wake: one event of the round. */
static void post(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	fl_wake(w, INT_MAX);
}

/*
 * Wait until *w reaches round (wrap-safe). 0, or -1 when the cell stops
 * or the deadline passes (a broken round: the cell fails).
 */
static int wait_for(struct fl_thread *t, struct pi_state *s, uint32_t *w,
		    uint32_t round, const char *what)
{
	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_SEQ_CST);

		if (atomic_load(&t->rep->stop))
			return -1;
		if ((int32_t)(v - round) >= 0)
			return 0;
		int r = fl_wait(w, v, &s->deadline);

		if (r == -ETIMEDOUT)
			t->counters[C_TIMEOUTS]++;
		if (fl_wait_failed(r)) {
			fl_rep_fail(t->rep, "pi thread %u: no %s for round %u "
				    "(wait returned %d)", t->index, what, round,
				    r);
			return -1;
		}
	}
}

/* Move to the one CPU and take the role's priority. */
static int become(struct pi_state *s, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	return err;
}

static void low(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t hold = fl_busy_ns_to_loops(
		(uint64_t)t->rep->cell->opt[OPT_HOLD]);
	const struct timespec gap = fl_ns_to_ts(
		(uint64_t)t->rep->cell->opt[OPT_GAP]);
	const uint32_t tid = (uint32_t)t->tid;
	const uint32_t mine = lock == LOCK_PI ? tid : 1;
	uint64_t longest = 0;

	for (uint32_t round = 1; !atomic_load(&t->rep->stop); round++) {
		/* high and medium sleep: nobody else wants the lock now */
		if (fl_cas_acquire(s->lock, 0, mine)) {
			fl_rep_fail(t->rep, "pi round %u: the owner found the "
				    "lock taken", round);
			break;
		}
		enter(s);
		s->acquisitions[ROLE_LOW]++;
		post(s->owner_has, round);	/* high preempts us here */
		/* medium, without PI, runs before we get here: timed from
		 * here, the hold is what the busy work really took */
		uint64_t h0 = fl_now_ns();

		fl_busy_loops(hold);
		uint64_t took = fl_now_ns() - h0;

		leave(s);
		drop(s, lock, tid);
		if (took > longest)
			longest = took;
		if (wait_for(t, s, s->high_done, round, "high done") ||
		    wait_for(t, s, s->hog_done, round, "burst done"))
			break;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL);
	}
	t->counters[C_HOLD_MAX] = longest;
}

static void medium(struct fl_thread *t, struct pi_state *s)
{
	const uint64_t hog = (uint64_t)t->rep->cell->opt[OPT_HOG];

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->hog_go, round, "burst start"))
			return;
		/* bounded by the option's maximum (100 ms); not cut short
		 * by stop, so that the last round is like every other */
		uint64_t end = fl_now_ns() + hog;

		while (fl_now_ns() < end)
			fl_cpu_relax();
		post(s->hog_done, round);
	}
}

static void high(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t threshold = pi_threshold_ns(t->rep->cell);
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t rounds = 0, inversions = 0, max = 0;
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->owner_has, round, "owner"))
			break;
		/* medium becomes runnable, but cannot preempt us */
		post(s->hog_go, round);
		uint64_t t0 = fl_now_ns();
		int r = take(s, lock, tid);

		if (r) {
			t->counters[C_TIMEOUTS]++;
			fl_rep_fail(t->rep, "pi round %u: high's lock returned "
				    "%d", round, r);
			break;
		}
		uint64_t blocked = fl_now_ns() - t0;

		enter(s);
		s->acquisitions[ROLE_HIGH]++;
		leave(s);
		drop(s, lock, tid);
		/* the clock reads serve the watchdog's verdict too; only the
		 * record follows --sample */
		if (fl_sample_due(rounds + 1, &next_timed, &t->sampler))
			fl_hist_record(t->hist, blocked);
		if (blocked > threshold)
			inversions++;
		if (blocked > max)
			max = blocked;
		fl_ops_publish(t, ++rounds);
		post(s->high_done, round);
	}
	t->counters[C_ROUNDS] = rounds;
	t->counters[C_INVERSIONS] = inversions;
	t->counters[C_MAX_BLOCKED] = max;
	t->counters[C_THRESHOLD] = threshold;
}

static void thread(struct fl_thread *t)
{
	static const int prio_opt[NROLES] = {
		[ROLE_LOW] = OPT_PRIO_LOW, [ROLE_MEDIUM] = OPT_PRIO_MEDIUM,
		[ROLE_HIGH] = OPT_PRIO_HIGH,
	};
	struct pi_state *s = t->rep->shared;
	const int lock = (int)t->rep->cell->opt[OPT_LOCK];
	int err = become(s, (int)t->rep->cell->opt[prio_opt[t->index]]);

	if (err)
		fl_rep_fail(t->rep, "pi thread %u: SCHED_FIFO on CPU %d: %s",
			    t->index, s->cpu, strerror(err));
	/* all three in place before the first round; a failure ends all */
	__atomic_add_fetch(s->ready, 1, __ATOMIC_SEQ_CST);
	fl_wake(s->ready, INT_MAX);
	if (wait_for(t, s, s->ready, NROLES, "start") ||
	    atomic_load(&t->rep->failed))
		return;
	if (t->index == ROLE_LOW)
		low(t, s, lock);
	else if (t->index == ROLE_MEDIUM)
		medium(t, s);
	else
		high(t, s, lock);
}

/* After stop: every event word changes, then its sleepers wake. */
static void kick(struct fl_rep *rep)
{
	struct pi_state *s = rep->shared;
	uint32_t *words[] = { s->ready, s->owner_has, s->hog_go,
			      s->high_done, s->hog_done };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		__atomic_add_fetch(words[i], 1, __ATOMIC_SEQ_CST);
		fl_wake(words[i], INT_MAX);
	}
}

FL_WORKLOAD_IMPL(pi, thread, kick);

#endif
