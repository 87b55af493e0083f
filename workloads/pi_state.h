/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pi (workloads/pi.c): what its descriptor and its threads share: the
 * indexes of its options, counters and roles, and the state one
 * repetition's threads work in.
 */
#ifndef FUTEXLAB_WORKLOADS_PI_STATE_H
#define FUTEXLAB_WORKLOADS_PI_STATE_H

#include <stdint.h>
#include <time.h>

#include "workloads/lib/exclusion.h"
#include "spec/workload.h"

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

#endif /* FUTEXLAB_WORKLOADS_PI_STATE_H */
