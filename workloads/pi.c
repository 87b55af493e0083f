// SPDX-License-Identifier: GPL-2.0
/*
 * pi: the classic priority inversion, with and without priority
 * inheritance, through a chain of locks.
 *
 * Scenario (rt-tests' pi_stress group, lengthened into a chain): SCHED_FIFO
 * threads pinned to ONE CPU, the placement's first: low (--prio-low),
 * medium (--prio-medium, a CPU hog), high (--prio-high), and with
 * --chain N, N - 1 owners in between, at low's priority. There are N
 * locks: high blocks on lock 1, owner k holds lock k and blocks on lock
 * k + 1, and low holds lock N (with N = 1, low holds the one lock high
 * wants). high leads each round:
 *   1. low takes lock N and tells high so, then waits for its cue;
 *   2. high releases the owners one at a time, N - 1 first: owner k takes
 *      lock k and blocks on lock k + 1, and high waits until it sees it
 *      asleep there (state S in /proc), so the chain is whole before
 *      anyone boosts anything;
 *   3. high starts medium's burst (--hog ns of wall time), gives low its
 *      cue and blocks on lock 1;
 *   4. low works --hold ns inside lock N and unlocks; the chain unwinds
 *      (each owner takes its next lock, drops both), high takes lock 1,
 *      drops it, and the round ends; low sleeps --gap ns.
 * With --lock plain (Drepper's mutex on wait/wake, no inheritance) the
 * scheduler runs medium before low, so high stays blocked for the whole
 * burst and then the hold: high waits on medium, the inversion. With
 * --lock pi (lock_pi/unlock_pi, needs PI) high's priority must reach low
 * through every owner of the chain: the kernel's rt-mutex walks the chain
 * and boosts each owner, low runs its hold first and high waits about
 * --hold ns. A PI that boosts only the owner of the lock high waits on
 * (one level) leaves low at its priority when N > 1: the inversion again.
 * --threads is the three roles (fixed_threads: 3, the only value taken);
 * the N - 1 owners are started beyond it (nthreads), like condvar's
 * broadcaster.
 *
 * Measures high's blocked time per acquisition, from its lock attempt to
 * holding the lock (the latency histogram; its maximum also in the
 * counter max_blocked_ns), and, for each level k = 2..N, the longest time
 * from high's lock attempt until owner k - 1 held lock k (counters
 * level2_max_ns ..., 0 above N): where a chain breaks, the levels above
 * the break wait for the burst. A round whose high's blocked time
 * exceeds hold + hog/2 (the counter threshold_ns) counts as an inversion;
 * the cell's note gives the verdict, "inversion" if any round of any
 * completed repetition inverted, else "none", and the levels' maxima.
 *
 * Bounds: the hold and the burst are bounded options; every wait has a
 * deadline short of the repetition's hard deadline; the harness kills a
 * stuck cell. RT throttling (sched_rt_runtime_us, in meta.json) also caps
 * the threads together at 95% of the CPU by default.
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
#include "measure/busy_loop.h"
#include "spec/workload.h"
#include "workloads/lib/sched_fifo.h"

enum { OPT_LOCK, OPT_CHAIN, OPT_HOLD, OPT_HOG, OPT_GAP, OPT_PRIO_LOW,
       OPT_PRIO_MEDIUM, OPT_PRIO_HIGH };
enum { LOCK_PLAIN, LOCK_PI };
enum { C_ROUNDS, C_INVERSIONS, C_MAX_BLOCKED, C_THRESHOLD, C_HOLD_MAX,
       C_TIMEOUTS, C_LEVEL2 };
/* thread indexes: the roles, then owner k (1..N-1) at NROLES + k - 1 */
enum { ROLE_LOW, ROLE_MEDIUM, ROLE_HIGH, NROLES };

/* The longest chain: one counter per level above the first. */
#define PI_MAX_CHAIN	6

/* Waits end this long before the hard deadline, so a stuck round is
 * reported as such rather than as an aborted cell. */
#define PI_MARGIN_NS 250000000ull

/*
 * Event words hold round numbers. The kick ORs PI_STOP into ready and
 * owner_has only: low's compare-and-swap that posts a round into
 * owner_has and the kick's OR decide, one before the other, whether the
 * round starts, so a round high saw start always finishes. A thread that
 * leaves stores PI_QUIT into the words it would post, so nobody waits for
 * it.
 */
#define PI_STOP		0x80000000u
#define PI_QUIT		0xffffffffu

struct pi_lock {
	/* the futex word, with the node number futex2-numa reads */
	_Alignas(FL_CACHELINE) uint32_t word[2];
	/* what it protects: the exclusion check and its acquisitions */
	struct fl_guarded guarded;
	uint64_t acquired, violations;
};

struct pi_owner {
	/* the round high released it for; the round it then blocks in */
	_Alignas(FL_CACHELINE) uint32_t go[2];
	uint32_t armed;
};

struct pi_state {
	struct pi_lock lock[PI_MAX_CHAIN];	/* lock k is lock[k - 1] */
	struct pi_owner owner[PI_MAX_CHAIN];	/* owner k is owner[k] */
	_Alignas(FL_CACHELINE) uint32_t ready[2];	/* threads set up */
	_Alignas(FL_CACHELINE) uint32_t owner_has[2];	/* round low holds */
	_Alignas(FL_CACHELINE) uint32_t hog_go[2];	/* round to burn in */
	_Alignas(FL_CACHELINE) uint32_t hold_go[2];	/* low may work */
	_Alignas(FL_CACHELINE) uint32_t high_done[2];	/* high's last round */
	_Alignas(FL_CACHELINE) uint32_t hog_done[2];	/* medium's last */
	/* high's lock attempt in round t0_round, for the levels' times */
	_Alignas(FL_CACHELINE) uint64_t t0;
	uint32_t t0_round;
	uint64_t low_rounds, high_rounds;
	struct timespec deadline;	/* every wait's: hard one - margin */
	int cpu;			/* the one CPU of all the threads */
	unsigned int chain;		/* --chain */
};

/* Blocked longer than this, high waited on more than the owner's hold. */
static inline uint64_t pi_threshold_ns(const struct fl_cell *cell)
{
	return (uint64_t)cell->opt[OPT_HOLD] + (uint64_t)cell->opt[OPT_HOG] / 2;
}

#ifdef FL_DESCRIBE

#include "stats/format.h"

static const char *const locks[] = { "plain", "pi", NULL };

static const struct fl_option options[] = {
	[OPT_LOCK] = FL_SWEEP_ENUM("lock", "plain", locks,
			"plain futex mutex, or the PI protocol"),
	[OPT_CHAIN] = FL_SWEEP_INT("chain", "1", 1, PI_MAX_CHAIN,
			"locks in the chain: high waits on lock 1, owner k "
			"holds lock k and waits on k + 1, low holds the last"),
	[OPT_HOLD] = FL_SWEEP_NS("hold", "1ms", 1000, 100000000,
			"low's work inside the lock, ns of busy work"),
	[OPT_HOG] = FL_SWEEP_NS("hog", "8ms", 1000, 100000000,
			"medium's CPU burst per round, ns of wall time"),
	[OPT_GAP] = FL_SWEEP_NS("gap", "2ms", 0, 100000000,
			"low's sleep between rounds (leaves the CPU to "
			"others)"),
	[OPT_PRIO_LOW] = FL_OPTION_INT("prio-low", "10", 1, 99,
			"SCHED_FIFO priority of the lock owner(s)"),
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
	[C_LEVEL2] = FL_COUNTER_MAX("level2_max_ns"),
	[C_LEVEL2 + 1] = FL_COUNTER_MAX("level3_max_ns"),
	[C_LEVEL2 + 2] = FL_COUNTER_MAX("level4_max_ns"),
	[C_LEVEL2 + 3] = FL_COUNTER_MAX("level5_max_ns"),
	[C_LEVEL2 + 4] = FL_COUNTER_MAX("level6_max_ns"),
};

_Static_assert(C_LEVEL2 + PI_MAX_CHAIN - 1 == sizeof(counters) /
	       sizeof(counters[0]), "one counter per level above the first");
_Static_assert(C_LEVEL2 + PI_MAX_CHAIN - 1 <= FL_NCOUNTERS,
	       "the levels' counters fit");

static uint32_t needs(const struct fl_cell *cell)
{
	/* a spinning high-priority waiter would never let the owner run */
	return FL_CAP_SLEEP | FL_CAP_TIMEOUT |
	       (cell->opt[OPT_LOCK] == LOCK_PI ? FL_CAP_PI : FL_CAP_WAIT);
}

/* the three roles and the chain's owners between them */
static unsigned int nthreads(const struct fl_cell *cell)
{
	return NROLES + (unsigned int)cell->opt[OPT_CHAIN] - 1;
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
		snprintf(why, len, "cannot map the locks");
		return -1;
	}
	uint32_t *words[] = { s->ready, s->owner_has, s->hog_go, s->hold_go,
			      s->high_done, s->hog_done };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		words[i][1] = ~0u;	/* futex2-numa: the kernel chooses */
	for (unsigned int k = 0; k < PI_MAX_CHAIN; k++)
		s->lock[k].word[1] = s->owner[k].go[1] = ~0u;
	s->chain = (unsigned int)rep->cell->opt[OPT_CHAIN];
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
	uint64_t low = s->low_rounds, high = s->high_rounds;

	for (unsigned int k = 0; k < s->chain; k++) {
		struct pi_lock *l = &s->lock[k];

		if (fl_guarded_verify(&l->guarded, l->violations, l->acquired,
				      why, len))
			return -1;
	}
	/* high takes lock 1 once per round low began, but the last */
	if (high > low || high + 1 < low) {
		snprintf(why, len, "rounds: low took its lock %llu times, "
			 "high %llu", (unsigned long long)low,
			 (unsigned long long)high);
		return -1;
	}
	return 0;
}

/* Each level's longest wait over the repetitions, after the verdict. */
static void note_levels(const struct fl_cell *cell,
			const uint64_t (*c)[FL_NCOUNTERS], unsigned int nreps,
			char *buf, size_t len)
{
	const unsigned int chain = (unsigned int)cell->opt[OPT_CHAIN];
	size_t used = strlen(buf);

	for (unsigned int level = 2; level <= chain && used < len; level++) {
		uint64_t max = 0;
		char longest[32];

		for (unsigned int r = 0; r < nreps; r++)
			if (c[r][C_LEVEL2 + level - 2] > max)
				max = c[r][C_LEVEL2 + level - 2];
		fl_fmt_ns(max, longest, sizeof(longest));
		used += (size_t)snprintf(buf + used, len - used, "%s%u %s",
					 level == 2 ? "; levels' max (high's "
					 "attempt to lock k held): k=" :
					 ", k=", level, longest);
	}
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
	note_levels(cell, c, nreps, buf, len);
}

/* futexlab plot's pi-blocked: the lock types side by side */
static const struct fl_special_plot blocked_plot = {
	.option = "lock",
	.name = "pi-blocked",
	.title = "pi: high-priority thread's blocked time per lock type",
	.ylabel = "blocked time",
	.panels = {
		{ .fig = FL_FIG_P50, .title = "p50" },
		{ .fig = FL_FIG_P99, .title = "p99" },
	},
	.caption = "blocked time per lock type",
};

FL_WORKLOAD_DESCRIPTOR(pi) = {
	.name = "pi",
	.summary = "priority inversion: low owner, medium hog, high waiter, "
		   "a chain of owners between",
	.scenario = "SCHED_FIFO threads on one CPU: low holds lock N --hold "
		    "ns, owners 1..N-1 (--chain N) each hold lock k and wait "
		    "on k+1, high blocks on lock 1, medium burns --hog ns. "
		    "--lock plain lets medium starve low (high waits the "
		    "burst too: inversion); --lock pi boosts low through the "
		    "chain. Latency is high's blocked time; a round blocked "
		    "longer than hold + hog/2 is an inversion. Needs "
		    "CAP_SYS_NICE; --threads is 3, the roles (--chain adds "
		    "N-1 owner threads beyond them).",
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

/* Lock k (1..N): plain, Drepper's mutex 3 as in the mutex workload. */
static int take(struct pi_state *s, int lock, unsigned int k, uint32_t tid)
{
	uint32_t *w = s->lock[k - 1].word;

	return lock == LOCK_PI ? fl_pi_mutex_lock(w, tid, &s->deadline, NULL) :
		fl_mutex3_lock(w, &s->deadline, NULL);
}

static void drop(struct pi_state *s, int lock, unsigned int k, uint32_t tid)
{
	if (lock == LOCK_PI)
		fl_pi_mutex_unlock(s->lock[k - 1].word, tid, NULL);
	else
		fl_drepper_unlock(s->lock[k - 1].word, NULL);
}

/* Take lock k, found free (nobody else wants it yet this round): 0, or
 * -1 and the repetition fails. */
static int take_free(struct fl_thread *t, struct pi_state *s, int lock,
		     unsigned int k, uint32_t round)
{
	uint32_t mine = lock == LOCK_PI ? (uint32_t)t->tid : 1;

	if (fl_cas_acquire(s->lock[k - 1].word, 0, mine) == 0)
		return 0;
	fl_rep_fail(t->rep, "pi round %u: thread %u found lock %u taken",
		    round, t->index, k);
	return -1;
}

/* Inside lock k: a second owner shows in the guarded counter. */
static void enter(struct pi_state *s, unsigned int k)
{
	struct pi_lock *l = &s->lock[k - 1];

	if (fl_guarded_enter(&l->guarded))
		l->violations++;
	l->acquired++;
}

static void leave(struct pi_state *s, unsigned int k)
{
	fl_guarded_leave(&s->lock[k - 1].guarded);
}

/* Store and wake: one event of the round. */
static void post(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	fl_wake(w, INT_MAX);
}

/*
 * Wait until *w reaches round. 0; -1 when it will not: the repetition is
 * ending (PI_STOP) or the thread that posts it left (PI_QUIT), or the
 * deadline passed (a broken round: the cell fails).
 */
static int wait_for(struct fl_thread *t, struct pi_state *s, uint32_t *w,
		    uint32_t round, const char *what)
{
	for (;;) {
		uint32_t v = __atomic_load_n(w, __ATOMIC_SEQ_CST);

		if (v != PI_QUIT && (v & ~PI_STOP) >= round)
			return 0;
		if (v & PI_STOP)
			return -1;
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

/*
 * low's part of a round: take lock N, post the round (unless the
 * repetition is ending: then the round never starts), wait for the cue,
 * hold, drop. 0, or -1 to leave.
 */
static int low_round(struct fl_thread *t, struct pi_state *s, int lock,
		     uint32_t round, uint64_t hold, uint64_t *took)
{
	const unsigned int n = s->chain;
	const uint32_t tid = (uint32_t)t->tid;
	uint32_t before = round - 1;

	if (take_free(t, s, lock, n, round))
		return -1;
	enter(s, n);
	s->low_rounds++;
	if (!__atomic_compare_exchange_n(s->owner_has, &before, round, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		leave(s, n);
		drop(s, lock, n, tid);
		return -1;
	}
	fl_wake(s->owner_has, INT_MAX);	/* high preempts us here */
	if (wait_for(t, s, s->hold_go, round, "cue")) {
		leave(s, n);
		drop(s, lock, n, tid);
		return -1;
	}
	/* medium, without PI, runs before we get here: timed from here,
	 * the hold is what the busy work really took */
	uint64_t h0 = fl_now_ns();

	fl_busy_loops(hold);
	*took = fl_now_ns() - h0;
	leave(s, n);
	drop(s, lock, n, tid);
	return 0;
}

static void low(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t hold = fl_busy_ns_to_loops(
		(uint64_t)t->rep->cell->opt[OPT_HOLD]);
	const struct timespec gap = fl_ns_to_ts(
		(uint64_t)t->rep->cell->opt[OPT_GAP]);
	uint64_t longest = 0, took = 0;

	for (uint32_t round = 1;; round++) {
		if (low_round(t, s, lock, round, hold, &took))
			break;
		if (took > longest)
			longest = took;
		if (wait_for(t, s, s->high_done, round, "high done") ||
		    wait_for(t, s, s->hog_done, round, "burst done"))
			break;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL);
	}
	t->counters[C_HOLD_MAX] = longest;
}

/*
 * Owner k (1..N-1): released by high, takes lock k and blocks on lock
 * k + 1; once it holds that (the chain unwinding), records how long after
 * high's lock attempt that was (level k + 1), and drops both.
 */
static void owner(struct fl_thread *t, struct pi_state *s, int lock,
		  unsigned int k)
{
	struct pi_owner *o = &s->owner[k];
	const uint32_t tid = (uint32_t)t->tid;
	uint64_t longest = 0;

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, o->go, round, "release") ||
		    take_free(t, s, lock, k, round))
			break;
		enter(s, k);
		__atomic_store_n(&o->armed, round, __ATOMIC_SEQ_CST);
		int r = take(s, lock, k + 1, tid);

		if (r) {
			fl_rep_fail(t->rep, "pi round %u: owner %u's lock "
				    "returned %d", round, k, r);
			leave(s, k);
			drop(s, lock, k, tid);
			break;
		}
		uint64_t now = fl_now_ns();

		/* a round high started (not one cut short at the end) */
		if (__atomic_load_n(&s->t0_round, __ATOMIC_ACQUIRE) == round &&
		    now - s->t0 > longest)
			longest = now - s->t0;
		enter(s, k + 1);
		leave(s, k + 1);
		drop(s, lock, k + 1, tid);
		leave(s, k);
		drop(s, lock, k, tid);
	}
	t->counters[C_LEVEL2 + k - 1] = longest;
}

static void medium(struct fl_thread *t, struct pi_state *s)
{
	const uint64_t hog = (uint64_t)t->rep->cell->opt[OPT_HOG];

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->hog_go, round, "burst start"))
			break;
		/* bounded by the option's maximum (100 ms); not cut short
		 * by stop, so that the last round is like every other */
		uint64_t end = fl_now_ns() + hog;

		while (fl_now_ns() < end)
			fl_cpu_relax();
		post(s->hog_done, round);
	}
	post(s->hog_done, PI_QUIT);
}

/* high: owner k sleeps, blocked on lock k + 1 in round. 0, or -1 when
 * the deadline passed (the repetition fails). */
static int await_blocked(struct fl_thread *t, struct pi_state *s,
			 unsigned int k, uint32_t round)
{
	const struct fl_thread *o = &t->rep->threads[NROLES + k - 1];
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 20000 };
	const uint64_t until = fl_ts_to_ns(&s->deadline);

	while (__atomic_load_n(&s->owner[k].armed, __ATOMIC_SEQ_CST) !=
	       round || fl_thread_state(o->tid) != 'S') {
		if (fl_now_ns() >= until) {
			t->counters[C_TIMEOUTS]++;
			fl_rep_fail(t->rep, "pi round %u: owner %u never "
				    "blocked on lock %u", round, k, k + 1);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	return 0;
}

/*
 * high's part of a round, once low holds lock N: build the chain, start
 * the burst, cue low, block on lock 1; then *blocked is how long. 0, or
 * -1 (the repetition fails).
 */
static int high_round(struct fl_thread *t, struct pi_state *s, int lock,
		      uint32_t round, uint64_t *blocked)
{
	const uint32_t tid = (uint32_t)t->tid;

	for (unsigned int k = s->chain - 1; k >= 1; k--) {
		post(s->owner[k].go, round);
		if (await_blocked(t, s, k, round))
			return -1;
	}
	/* medium becomes runnable, but cannot preempt us */
	post(s->hog_go, round);
	uint64_t t0 = fl_now_ns();

	s->t0 = t0;
	__atomic_store_n(&s->t0_round, round, __ATOMIC_RELEASE);
	post(s->hold_go, round);
	int r = take(s, lock, 1, tid);

	if (r) {
		t->counters[C_TIMEOUTS] += r == -ETIMEDOUT;
		fl_rep_fail(t->rep, "pi round %u: high's lock returned %d",
			    round, r);
		return -1;
	}
	*blocked = fl_now_ns() - t0;
	enter(s, 1);
	s->high_rounds++;
	leave(s, 1);
	drop(s, lock, 1, tid);
	return 0;
}

static void high(struct fl_thread *t, struct pi_state *s, int lock)
{
	const uint64_t threshold = pi_threshold_ns(t->rep->cell);
	uint64_t rounds = 0, inversions = 0, max = 0, blocked = 0;
	uint64_t next_timed = t->sampler.first;

	for (uint32_t round = 1;; round++) {
		if (wait_for(t, s, s->owner_has, round, "owner") ||
		    high_round(t, s, lock, round, &blocked))
			break;
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

/* high is leaving: no round starts again, nobody waits for it. */
static void high_quit(struct pi_state *s)
{
	uint32_t *words[] = { s->hog_go, s->hold_go, s->high_done };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		post(words[i], PI_QUIT);
	for (unsigned int k = 1; k < s->chain; k++)
		post(s->owner[k].go, PI_QUIT);
}

static void thread(struct fl_thread *t)
{
	static const int prio_opt[NROLES] = {
		[ROLE_LOW] = OPT_PRIO_LOW, [ROLE_MEDIUM] = OPT_PRIO_MEDIUM,
		[ROLE_HIGH] = OPT_PRIO_HIGH,
	};
	struct pi_state *s = t->rep->shared;
	const int lock = (int)t->rep->cell->opt[OPT_LOCK];
	const unsigned int i = t->index;
	/* the chain's owners run at low's priority */
	int err = become(s, (int)t->rep->cell->opt[i < NROLES ? prio_opt[i] :
						   OPT_PRIO_LOW]);

	if (err)
		fl_rep_fail(t->rep, "pi thread %u: SCHED_FIFO on CPU %d: %s",
			    i, s->cpu, strerror(err));
	/* all in place before the first round; a failure ends all */
	__atomic_add_fetch(s->ready, 1, __ATOMIC_SEQ_CST);
	fl_wake(s->ready, INT_MAX);
	int go = !wait_for(t, s, s->ready, t->rep->nthreads, "start") &&
		 !atomic_load(&t->rep->failed);

	if (i == ROLE_LOW) {
		if (go)
			low(t, s, lock);
		post(s->owner_has, PI_QUIT);
	} else if (i == ROLE_MEDIUM) {
		if (go)
			medium(t, s);
		post(s->hog_done, PI_QUIT);
	} else if (i == ROLE_HIGH) {
		if (go)
			high(t, s, lock);
		high_quit(s);
	} else if (go) {
		owner(t, s, lock, i - NROLES + 1);
	}
}

/* After stop: no round starts any more (see PI_STOP); a round already
 * started finishes, and then every thread leaves. */
static void kick(struct fl_rep *rep)
{
	struct pi_state *s = rep->shared;

	__atomic_or_fetch(s->ready, PI_STOP, __ATOMIC_SEQ_CST);
	fl_wake(s->ready, INT_MAX);
	__atomic_or_fetch(s->owner_has, PI_STOP, __ATOMIC_SEQ_CST);
	fl_wake(s->owner_has, INT_MAX);
}

FL_WORKLOAD_IMPL(pi, thread, kick);

#endif
