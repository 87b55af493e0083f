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
 *
 * Here: the descriptor, and the thread body that gives each thread its
 * role; the roles' rounds are pi_roles.h, what both share pi_state.h.
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
#include "measure/rep.h"
#include "workloads/lib/sched_fifo.h"

#include "workloads/pi_state.h"

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
		fl_node_any(rep, words[i]);
	for (unsigned int k = 0; k < PI_MAX_CHAIN; k++) {
		fl_node_any(rep, s->lock[k].word);
		fl_node_any(rep, s->owner[k].go);
	}
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

#include "workloads/pi_roles.h"

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
