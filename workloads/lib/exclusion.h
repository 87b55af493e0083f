/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutual-exclusion check of the lock workloads (mutex, numa, condvar,
 * pi): the data a lock guards is an owner flag and a plain counter. An
 * owner reads the flag, sets it to 1 on entry and back to 0 on leaving,
 * so a second owner inside finds it set; and it bumps the counter with a
 * plain (non-atomic) increment, so two owners at once lose updates,
 * which verify() sees as fewer counted than acquired.
 *
 * None of it is a locked instruction: plain loads and stores to a line
 * the lock holder owns anyway, a few cycles beside the lock's own atomic
 * operations. (It used to be an atomic swap, which cost as much as the
 * lock's uncontended path.) What that buys and gives up:
 *   caught: a second owner that enters while the first is inside for
 *     longer than a store takes to become visible (tens of ns), which is
 *     every overlap a broken lock produces in practice, since the
 *     overlap lasts the critical section; and any overlap in which the
 *     two increments interleave (a lost update, seen by verify()).
 *   missed: two owners whose entries fall within one store's visibility
 *     window and whose increments happen not to interleave, i.e. an
 *     overlap of a few ns that leaves no trace in the data. A swap would
 *     order the two entries and catch those; a lock that is wrong that
 *     narrowly is for a model checker, not a benchmark.
 *
 * The caller aligns the struct as real data would lie, e.g.
 * `_Alignas(FL_CACHELINE) struct fl_guarded guarded;`: it carries no
 * alignment of its own, so fields after it keep their place.
 */
#ifndef FUTEXLAB_WORKLOADS_EXCLUSION_H
#define FUTEXLAB_WORKLOADS_EXCLUSION_H

#include <stdint.h>
#include <stdio.h>

struct fl_guarded {
	uint32_t inside;	/* 1 while an owner is inside */
	uint64_t count;		/* entries, by plain increments */
};

/* The lock is held: enter. 1 if another owner was inside (a violation
 * for the caller to count), else 0. */
static inline int fl_guarded_enter(struct fl_guarded *g)
{
	int clash = __atomic_load_n(&g->inside, __ATOMIC_RELAXED) != 0;

	__atomic_store_n(&g->inside, 1, __ATOMIC_RELAXED);
	/* a plain increment: a second owner would lose updates */
	g->count = g->count + 1;
	return clash;
}

/* Before the unlock. */
static inline void fl_guarded_leave(struct fl_guarded *g)
{
	__atomic_store_n(&g->inside, 0, __ATOMIC_RELAXED);
}

/* verify(): the counter saw every one of acquisitions. 0, or -1 with a
 * reason. */
static inline int fl_guarded_check_count(const struct fl_guarded *g,
					 uint64_t acquisitions, char *why,
					 size_t len)
{
	if (g->count == acquisitions)
		return 0;
	snprintf(why, len, "mutual exclusion violated: %llu acquisitions but "
		 "the protected counter says %llu",
		 (unsigned long long)acquisitions,
		 (unsigned long long)g->count);
	return -1;
}

/* verify(): no owner ever found another inside (violations, summed), and
 * the counter saw every acquisition. 0, or -1 with a reason. */
static inline int fl_guarded_verify(const struct fl_guarded *g,
				    uint64_t violations, uint64_t acquisitions,
				    char *why, size_t len)
{
	if (violations) {
		snprintf(why, len, "mutual exclusion violated: %llu times two "
			 "threads held the lock",
			 (unsigned long long)violations);
		return -1;
	}
	return fl_guarded_check_count(g, acquisitions, why, len);
}

#endif
