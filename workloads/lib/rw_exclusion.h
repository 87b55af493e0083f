/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The readers-writer exclusion check: no writer inside with anyone else,
 * readers inside together. Two fields on lines of their own, as a
 * rwlock's data would be:
 *
 *   seq      a writer's counter, bumped on entry and on leaving (odd
 *            while a writer is inside), by plain stores as exclusion.h's:
 *            two writers at once see it odd or lose an increment, which
 *            verify() counts against the writes;
 *   readers  the readers inside, an atomic add on entry and a subtract on
 *            leaving (readers share the lock, so only an atomic count
 *            tells how many are in).
 *
 * A writer sets seq odd, then (a full fence) looks at readers; a reader
 * adds itself, then looks at seq: of two that overlap, at least one sees
 * the other (the store-then-load pattern needs the fence on both sides:
 * the reader's is its locked add). Each also looks again before leaving,
 * which catches one that came in during its critical section. Each thing
 * seen is one violation for the caller to count.
 */
#ifndef FUTEXLAB_WORKLOADS_RW_EXCLUSION_H
#define FUTEXLAB_WORKLOADS_RW_EXCLUSION_H

#include <stdint.h>
#include <stdio.h>

#include "spec/workload.h"

struct fl_rw_guarded {
	_Alignas(FL_CACHELINE) uint64_t seq;
	_Alignas(FL_CACHELINE) uint32_t readers;
};

/* A writer, holding the lock: 1 if anyone else was inside. */
static inline int fl_rw_writer_enter(struct fl_rw_guarded *g)
{
	uint64_t v = __atomic_load_n(&g->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&g->seq, v + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return (int)(v & 1) |
	       (__atomic_load_n(&g->readers, __ATOMIC_RELAXED) != 0);
}

/* A writer, before its unlock: 1 if a reader came in meanwhile. */
static inline int fl_rw_writer_leave(struct fl_rw_guarded *g)
{
	int seen = __atomic_load_n(&g->readers, __ATOMIC_RELAXED) != 0;

	__atomic_store_n(&g->seq,
			 __atomic_load_n(&g->seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return seen;
}

/* A reader, holding the lock: the writers' counter it found, for
 * fl_rw_reader_leave(); *seen is 1 if a writer was inside. */
static inline uint64_t fl_rw_reader_enter(struct fl_rw_guarded *g, int *seen)
{
	uint64_t v;

	__atomic_fetch_add(&g->readers, 1, __ATOMIC_SEQ_CST);
	v = __atomic_load_n(&g->seq, __ATOMIC_SEQ_CST);
	*seen = (int)(v & 1);
	return v;
}

/* A reader, before its unlock: 1 if a writer came in meanwhile. */
static inline int fl_rw_reader_leave(struct fl_rw_guarded *g, uint64_t v)
{
	int seen = __atomic_load_n(&g->seq, __ATOMIC_RELAXED) != v;

	__atomic_fetch_sub(&g->readers, 1, __ATOMIC_RELEASE);
	return seen;
}

/* verify(): nobody found another inside, and the writers' counter saw
 * every write. 0, or -1 with a reason. */
static inline int fl_rw_guarded_verify(const struct fl_rw_guarded *g,
				       uint64_t violations, uint64_t writes,
				       char *why, size_t len)
{
	if (violations) {
		snprintf(why, len, "readers-writer exclusion violated: %llu "
			 "times a writer was inside with someone else",
			 (unsigned long long)violations);
		return -1;
	}
	if (g->seq / 2 != writes || (g->seq & 1)) {
		snprintf(why, len, "readers-writer exclusion violated: %llu "
			 "writes but the writers' counter says %llu",
			 (unsigned long long)writes,
			 (unsigned long long)(g->seq / 2));
		return -1;
	}
	return 0;
}

#endif
