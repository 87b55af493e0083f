/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readers-writer locks on one futex word, for the rwlock workload:
 *
 *   plain   the word holds the readers inside, a writer bit and one
 *           "sleepers" bit. A reader enters unless a writer holds it, a
 *           writer only when nobody does; whoever finds it taken sets the
 *           sleepers bit and sleeps while the word stays as it saw it. A
 *           release that finds the bit clears it and wakes everybody,
 *           readers and writers alike, who then race again. Readers that
 *           keep coming keep a writer out: it prefers readers.
 *   bitset  the same word with two sleepers bits, one for readers and one
 *           for writers, and the waits tagged with a bitset: readers sleep
 *           with FL_RW_WAKE_READERS, writers with FL_RW_WAKE_WRITER, so a
 *           release wakes only the next writer (one) or, with no writer
 *           asleep, every reader: the use the bitset operations were added
 *           for. A reader does not enter while a writer sleeps: it prefers
 *           writers. The writers' bit stays set after one writer is woken
 *           (more may sleep, as mutex 3's "2" stays); the release that
 *           wakes no writer clears it and then wakes the readers.
 *
 * The words change only by compare-and-swap (the lock) or one atomic
 * add or and (the unlock), so a sleeper's value is stale, and its wait
 * returns EAGAIN, as soon as anything it depends on moved. Waits end at
 * the caller's deadline; a lock returns 0 holding it or the wait's error
 * (fl_wait_failed()). The counters to bump for wait and wake calls may be
 * NULL.
 *
 * Per-backend builds only: fl_wait(), fl_wake() and their bitset forms
 * are the backend's, force-included.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_FUTEX_RWLOCK_H
#define FUTEXLAB_WORKLOADS_LIB_FUTEX_RWLOCK_H

#ifdef FL_BACKEND_ID

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "workloads/lib/futex_mutex.h"

#define FL_RW_WRITER	(1u << 31)	/* a writer holds the lock */
#define FL_RW_RSLEEP	(1u << 30)	/* readers sleep (plain: anyone) */
#define FL_RW_WSLEEP	(1u << 29)	/* writers sleep (bitset only) */
#define FL_RW_READERS	(FL_RW_WSLEEP - 1)	/* readers holding it */

/* the bitsets the bitset lock's waiters sleep with */
#define FL_RW_WAKE_READERS	1u
#define FL_RW_WAKE_WRITER	2u

static inline int fl_rw_cas(uint32_t *w, uint32_t *v, uint32_t new)
{
	return __atomic_compare_exchange_n(w, v, new, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/*
 * Set the sleepers bit flag in *v's word (unless set) and sleep on it
 * with bitset (0: a plain wait, which needs no bitset capability): 1 to
 * look again, 0 when the word moved first, or the wait's error.
 */
static inline int fl_rw_sleep(uint32_t *w, uint32_t *v, uint32_t flag,
			      uint32_t bitset, const struct timespec *deadline,
			      uint64_t *waits)
{
	int r;

	if (!(*v & flag) && !fl_rw_cas(w, v, *v | flag))
		return 0;
	fl_count(waits);
	r = bitset ? fl_wait_bitset(w, *v | flag, deadline, bitset) :
		     fl_wait(w, *v | flag, deadline);
	if (fl_wait_failed(r))
		return r;
	*v = __atomic_load_n(w, __ATOMIC_RELAXED);
	return 1;
}

/* Take the lock when the word has none of busy's bits: 0, or the error. */
static inline int fl_rw_lock(uint32_t *w, uint32_t busy, uint32_t add,
			     uint32_t flag, uint32_t bitset,
			     const struct timespec *deadline, uint64_t *waits)
{
	uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);

	for (;;) {
		int r;

		if (!(v & busy)) {
			if (fl_rw_cas(w, &v, v + add))
				return 0;
			continue;
		}
		r = fl_rw_sleep(w, &v, flag, bitset, deadline, waits);
		if (r < 0)
			return r;
	}
}

/* One attempt, no sleep: 1 if it took the lock. */
static inline int fl_rw_try(uint32_t *w, uint32_t busy, uint32_t add)
{
	uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);

	return !(v & busy) && fl_rw_cas(w, &v, v + add);
}

/* What each lock's readers and writers must not find, and add. */
#define FL_RW_PLAIN_RBUSY	FL_RW_WRITER
#define FL_RW_PLAIN_WBUSY	(FL_RW_WRITER | FL_RW_READERS)
#define FL_RW_BITSET_RBUSY	(FL_RW_WRITER | FL_RW_WSLEEP)
#define FL_RW_BITSET_WBUSY	(FL_RW_WRITER | FL_RW_READERS)

static inline int fl_rw_plain_rdlock(uint32_t *w,
				     const struct timespec *deadline,
				     uint64_t *waits)
{
	return fl_rw_lock(w, FL_RW_PLAIN_RBUSY, 1, FL_RW_RSLEEP, 0, deadline,
			  waits);
}

static inline int fl_rw_plain_wrlock(uint32_t *w,
				     const struct timespec *deadline,
				     uint64_t *waits)
{
	return fl_rw_lock(w, FL_RW_PLAIN_WBUSY, FL_RW_WRITER, FL_RW_RSLEEP, 0,
			  deadline, waits);
}

/* The last holder out of a plain lock with sleepers: clear the bit, and
 * wake them all, unless a new holder came first (it wakes them then). */
static inline void fl_rw_plain_wake(uint32_t *w, uint32_t v, uint64_t *wakes)
{
	if (v == FL_RW_RSLEEP && fl_rw_cas(w, &v, 0)) {
		fl_count(wakes);
		fl_wake(w, INT_MAX);
	}
}

static inline void fl_rw_plain_rdunlock(uint32_t *w, uint64_t *wakes)
{
	uint32_t old = __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE);

	if (__builtin_expect(old & FL_RW_RSLEEP, 0))
		fl_rw_plain_wake(w, old - 1, wakes);
}

static inline void fl_rw_plain_wrunlock(uint32_t *w, uint64_t *wakes)
{
	uint32_t old = __atomic_fetch_and(w, ~FL_RW_WRITER, __ATOMIC_RELEASE);

	if (__builtin_expect(old & FL_RW_RSLEEP, 0))
		fl_rw_plain_wake(w, old & ~FL_RW_WRITER, wakes);
}

static inline int fl_rw_bitset_rdlock(uint32_t *w,
				      const struct timespec *deadline,
				      uint64_t *waits)
{
	return fl_rw_lock(w, FL_RW_BITSET_RBUSY, 1, FL_RW_RSLEEP,
			  FL_RW_WAKE_READERS, deadline, waits);
}

static inline int fl_rw_bitset_wrlock(uint32_t *w,
				      const struct timespec *deadline,
				      uint64_t *waits)
{
	return fl_rw_lock(w, FL_RW_BITSET_WBUSY, FL_RW_WRITER, FL_RW_WSLEEP,
			  FL_RW_WAKE_WRITER, deadline, waits);
}

/*
 * The bitset lock with no holder left and sleepers: wake the next writer
 * if one sleeps (its bit stays: more may); when none does, clear the
 * writers' bit and wake every reader. A new holder that came first wakes
 * them at its own release.
 */
static inline void fl_rw_bitset_wake(uint32_t *w, uint64_t *wakes)
{
	uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);

	for (;;) {
		if (v & (FL_RW_WRITER | FL_RW_READERS))
			return;
		if (v & FL_RW_WSLEEP) {
			fl_count(wakes);
			if (fl_wake_bitset(w, 1, FL_RW_WAKE_WRITER) > 0)
				return;
			if (!fl_rw_cas(w, &v, v & ~FL_RW_WSLEEP))
				continue;
			v &= ~FL_RW_WSLEEP;
		}
		if (!(v & FL_RW_RSLEEP))
			return;
		if (!fl_rw_cas(w, &v, v & ~FL_RW_RSLEEP))
			continue;
		fl_count(wakes);
		fl_wake_bitset(w, INT_MAX, FL_RW_WAKE_READERS);
		return;
	}
}

static inline void fl_rw_bitset_rdunlock(uint32_t *w, uint64_t *wakes)
{
	uint32_t old = __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE);

	if (__builtin_expect((old & FL_RW_READERS) == 1 &&
			     (old & (FL_RW_RSLEEP | FL_RW_WSLEEP)), 0))
		fl_rw_bitset_wake(w, wakes);
}

static inline void fl_rw_bitset_wrunlock(uint32_t *w, uint64_t *wakes)
{
	uint32_t old = __atomic_fetch_and(w, ~FL_RW_WRITER, __ATOMIC_RELEASE);

	if (__builtin_expect(old & (FL_RW_RSLEEP | FL_RW_WSLEEP), 0))
		fl_rw_bitset_wake(w, wakes);
}

#endif
#endif
