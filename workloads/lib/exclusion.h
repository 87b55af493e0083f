/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutual-exclusion check of the lock workloads (mutex, numa, condvar,
 * pi): the data a lock guards is one counter that an owner bumps with a
 * plain (non-atomic) increment on entry and again on leaving, so it is
 * odd while an owner is inside. An owner that finds it odd on entry has
 * found a second owner inside; and two owners at once lose increments,
 * which verify() sees as fewer entries (half the counter) than
 * acquisitions.
 *
 * None of it is a locked instruction: a load and a store on entry, one
 * on leaving, to a line the lock holder owns anyway; a bare lock loop
 * would bump a counter there too. (It used to be an atomic swap of an
 * owner flag, which cost as much as the lock's uncontended path, and a
 * store drains before every locked instruction that follows it.) What
 * that buys and gives up:
 *   caught: a second owner that enters while the first is inside for
 *     longer than a store takes to become visible (tens of ns), which is
 *     every overlap a broken lock produces in practice, since it lasts
 *     the critical section; and any overlap in which the two owners'
 *     increments interleave (lost updates, seen by verify()).
 *   missed: two owners whose entries fall within one store's visibility
 *     window and whose increments happen not to interleave: an overlap
 *     of a few ns that leaves no trace in the data. An atomic swap would
 *     order the two entries and catch those; a lock wrong that narrowly
 *     is for a model checker, not a benchmark.
 *
 * The caller aligns the struct as real data would lie, e.g.
 * `_Alignas(FL_CACHELINE) struct fl_guarded guarded;`: it carries no
 * alignment of its own, so fields after it keep their place.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_EXCLUSION_H
#define FUTEXLAB_WORKLOADS_LIB_EXCLUSION_H

#include <stdint.h>
#include <stdio.h>

struct fl_guarded {
	uint64_t seq;	/* plain increments: odd while an owner is inside,
			 * twice the entries once all have left */
};

/* The lock is held: enter. 1 if another owner was inside (a violation
 * for the caller to count), else 0. */
static inline int fl_guarded_enter(struct fl_guarded *g)
{
	uint64_t v = __atomic_load_n(&g->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&g->seq, v + 1, __ATOMIC_RELAXED);
	return __builtin_expect(v & 1, 0);
}

/* Before the unlock. */
static inline void fl_guarded_leave(struct fl_guarded *g)
{
	__atomic_store_n(&g->seq,
			 __atomic_load_n(&g->seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/*
 * The same check for a caller that keeps the value in a register, as a
 * bare loop's counter++ would: enter returns the value found (odd: another
 * owner was inside, a violation for the caller to count), and leave stores
 * that value + 2 without reading the counter again. An owner that entered
 * in between is still seen: it found the counter odd, or the total comes
 * out short.
 *
 * mark (a constant where this inlines) is the store of value + 1 on entry
 * that makes the counter odd while an owner is inside. It is for critical
 * sections with work in them; with nothing between enter and leave, the
 * check without it is a load on entry and a store on leaving, the bare
 * loop's counter++, and still sees every overlap in which the second owner
 * reads the counter before the first one's store: both store the same
 * value and the total comes out short. What it gives up is an owner that
 * reads after that store and before the unlock just after it, which the
 * odd value would not have caught either.
 */
static inline uint64_t fl_guarded_enter_seq(struct fl_guarded *g,
					    const int mark)
{
	uint64_t v = __atomic_load_n(&g->seq, __ATOMIC_RELAXED);

	if (mark)
		__atomic_store_n(&g->seq, v + 1, __ATOMIC_RELAXED);
	return v;
}

static inline void fl_guarded_leave_seq(struct fl_guarded *g, uint64_t v)
{
	__atomic_store_n(&g->seq, v + 2, __ATOMIC_RELAXED);
}

/* After the threads joined: how many entries the counter saw. */
static inline uint64_t fl_guarded_entries(const struct fl_guarded *g)
{
	return g->seq / 2;
}

/* verify(): the counter saw every one of acquisitions. 0, or -1 with a
 * reason. */
static inline int fl_guarded_check_count(const struct fl_guarded *g,
					 uint64_t acquisitions, char *why,
					 size_t len)
{
	if (fl_guarded_entries(g) == acquisitions)
		return 0;
	snprintf(why, len, "mutual exclusion violated: %llu acquisitions but "
		 "the protected counter says %llu",
		 (unsigned long long)acquisitions,
		 (unsigned long long)fl_guarded_entries(g));
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

/*
 * Readers of a readers-writer lock whose writers enter and leave as
 * above: a reader only reads the counter, on entry and before leaving,
 * and was inside with a writer when the counter was odd on entry (a
 * writer inside) or has moved by the time it leaves (a writer came in).
 * Two plain loads: the check adds no locked instruction and no store to
 * the readers' shared path, and the lock's acquire and release keep both
 * loads inside the critical section. What it misses, as the writers'
 * check does: an overlap within the few instructions between the lock
 * and the first load, or the last load and the unlock.
 */
static inline uint64_t fl_guarded_read_enter(const struct fl_guarded *g)
{
	return __atomic_load_n(&g->seq, __ATOMIC_RELAXED);
}

/* Before the reader's unlock, with what read_enter returned: 1 if a
 * writer was inside with it (a violation for the caller to count). */
static inline int fl_guarded_read_leave(const struct fl_guarded *g,
					uint64_t v)
{
	return __builtin_expect((v & 1) ||
				__atomic_load_n(&g->seq, __ATOMIC_RELAXED) !=
				v, 0);
}

#endif
