/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space mutexes the lock workloads (mutex, numa, condvar, pi)
 * build on a futex word, written once:
 *
 *   mutex 3  Drepper's "Futexes Are Tricky" mutex 3, the glibc design:
 *            0 free, 1 locked, 2 locked with waiters; a locker that finds
 *            it taken swaps in 2 and sleeps while it stays 2; an unlocker
 *            that finds 2 stores 0 and wakes one;
 *   mutex 2  the paper's mutex 2: the same states, compare-and-swap only,
 *            and the same unlock;
 *   spin-then-wait
 *            mutex 3 whose locker, finding the lock taken, first spins a
 *            bounded number of times (a pause, then a read, and a
 *            compare-and-swap only when the read saw it free) before
 *            the contended path: glibc's PTHREAD_MUTEX_ADAPTIVE_NP
 *            without its per-mutex learning;
 *   PI       the owner's TID, FUTEX_WAITERS set by the kernel: the
 *            uncontended paths stay in user space, lock_pi/unlock_pi
 *            handle contention;
 *   adaptive the same word and user-space paths as PI, with the
 *            backend's adaptive lock on contention (backends/backend.h:
 *            it spins while the owner runs, then sleeps; no boosting).
 *
 * Each workload counts different things on the slow paths, so the
 * callers pass the counters to bump (NULL: none); a constant NULL folds
 * away when these inline. Waits end at the caller's deadline. A lock
 * returns 0 with the lock held, or the wait's error when it ends the
 * attempt (fl_wait_failed(): the deadline, or an error that would only
 * come back at once).
 *
 * Per-backend builds only: fl_wait(), fl_wake(), the PI and the adaptive
 * calls are the backend's, force-included.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_FUTEX_MUTEX_H
#define FUTEXLAB_WORKLOADS_LIB_FUTEX_MUTEX_H

#ifdef FL_BACKEND_ID

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "spec/workload.h"

/* Compare-and-swap with acquire order: the value found (old if it took). */
static inline uint32_t fl_cas_acquire(uint32_t *w, uint32_t old,
				      uint32_t new)
{
	__atomic_compare_exchange_n(w, &old, new, 0, __ATOMIC_ACQUIRE,
				    __ATOMIC_RELAXED);
	return old;
}

/* A wait's result that ends the caller's loop: the deadline, or an error
 * that would come back at once forever. EAGAIN and EINTR: look again. */
static inline int fl_wait_failed(int r)
{
	return r < 0 && r != -EAGAIN && r != -EINTR;
}

static inline void fl_count(uint64_t *counter)
{
	if (counter)
		(*counter)++;
}

/* Sleep while *w is 2 (counting the call in *waits): 0, or the error. */
static inline int fl_mutex_wait2(uint32_t *w, const struct timespec *deadline,
				 uint64_t *waits)
{
	int r;

	fl_count(waits);
	r = fl_wait(w, 2, deadline);
	return fl_wait_failed(r) ? r : 0;
}

/*
 * Each Drepper lock's contended path comes in two parts, split where it
 * first sleeps: the atomic steps up to it (*_swap, *_mark, *_spin: no
 * system call, 0 when they took the lock) and the part from the first
 * sleep on (fl_drepper_sleep()). A measured loop keeps the first inline,
 * in the order a bare loop runs them, and can keep the second out of line
 * (mutex.c); the locks below join them.
 */

/* Mutex 3 after an attempt that found c (not 0): swap in 2 unless c says
 * it is there already. The value found: 0 took the lock. */
static inline uint32_t fl_mutex3_swap(uint32_t *w, uint32_t c)
{
	return c == 2 ? 2 : __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
}

/* Mutex 2 after an attempt that found c, up to its first sleep: mark the
 * word contended (1 -> 2) and take it if it came free on the way. 0 took
 * the lock; else the caller sleeps. */
static inline uint32_t fl_mutex2_mark(uint32_t *w, uint32_t c)
{
	while (c != 0) {
		if (c == 2 || fl_cas_acquire(w, 1, 2) != 0)
			return 2;
		c = fl_cas_acquire(w, 0, 2);
	}
	return 0;
}

/*
 * A Drepper mutex from its first sleep (mutex2 a constant where this
 * inlines): sleep while the word is 2, then try again, mutex 3 by swapping
 * in 2 until the old value says it was free, mutex 2 by 0 -> 2 and, that
 * failing, its marking again; sleep after each try that found it taken.
 * 0, or the wait's error.
 */
static inline int fl_drepper_sleep(uint32_t *w, const int mutex2,
				   const struct timespec *deadline,
				   uint64_t *waits)
{
	do {
		int r = fl_mutex_wait2(w, deadline, waits);

		if (r)
			return r;
	} while (mutex2 ? fl_mutex2_mark(w, fl_cas_acquire(w, 0, 2)) != 0 :
		 __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE) != 0);
	return 0;
}

/*
 * Mutex 3 from the contended state: swap in 2 until the old value says it
 * was free, sleeping after each swap that found it taken. What a waiter
 * requeued onto the mutex does (it cannot know whether others sleep
 * there), and spin-then-wait after its spins.
 */
static inline int fl_mutex3_lock_contended(uint32_t *w,
					   const struct timespec *deadline,
					   uint64_t *waits)
{
	if (fl_mutex3_swap(w, 1) == 0)
		return 0;
	return fl_drepper_sleep(w, 0, deadline, waits);
}

static inline int fl_mutex3_lock(uint32_t *w, const struct timespec *deadline,
				 uint64_t *waits)
{
	uint32_t c = fl_cas_acquire(w, 0, 1);

	if (c == 0 || fl_mutex3_swap(w, c) == 0)
		return 0;
	return fl_drepper_sleep(w, 0, deadline, waits);
}

/*
 * Spin-then-wait: mutex 3 that spins up to spins times before it sleeps.
 * Each spin is a pause and a read; only a read that sees the lock free
 * tries to take it (0 -> 1, as the fast path), so spinners share the
 * line instead of pulling it away from the owner. An acquisition taken
 * while spinning is counted in *spun. Then the contended path, which
 * swaps in 2 (a spinner never does: a sleeper's 2 is never lost, since
 * the unlock that wakes it stores 0 and the woken waiter swaps 2 again).
 * fl_mutex3_spin() is the spinning, after a first attempt failed: 0 when
 * it took the lock.
 */
static inline int fl_mutex3_spin(uint32_t *w, unsigned int spins,
				 uint64_t *spun)
{
	for (unsigned int i = 0; i < spins; i++) {
		fl_cpu_relax();
		if (__atomic_load_n(w, __ATOMIC_RELAXED) == 0 &&
		    fl_cas_acquire(w, 0, 1) == 0) {
			fl_count(spun);
			return 0;
		}
	}
	return 1;
}

static inline int fl_mutex3_spin_lock(uint32_t *w, unsigned int spins,
				      const struct timespec *deadline,
				      uint64_t *waits, uint64_t *spun)
{
	if (fl_cas_acquire(w, 0, 1) == 0 || fl_mutex3_spin(w, spins, spun) == 0)
		return 0;
	return fl_mutex3_lock_contended(w, deadline, waits);
}

static inline int fl_mutex2_lock(uint32_t *w, const struct timespec *deadline,
				 uint64_t *waits)
{
	uint32_t c = fl_cas_acquire(w, 0, 1);

	if (c == 0 || fl_mutex2_mark(w, c) == 0)
		return 0;
	return fl_drepper_sleep(w, 1, deadline, waits);
}

/*
 * Both Drepper mutexes unlock alike: 1 -> 0 quietly, 2 -> 0 and wake one
 * (counted in *wakes). fl_drepper_release() is the decrement: 1 when it
 * found 2, and the caller then stores 0 (fl_drepper_clear()) and wakes
 * (fl_drepper_wake()).
 */
static inline int fl_drepper_release(uint32_t *w)
{
	return __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE) != 1;
}

static inline void fl_drepper_clear(uint32_t *w)
{
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
}

static inline void fl_drepper_wake(uint32_t *w, uint64_t *wakes)
{
	fl_count(wakes);
	fl_wake(w, 1);
}

static inline void fl_drepper_unlock(uint32_t *w, uint64_t *wakes)
{
	if (fl_drepper_release(w)) {
		fl_drepper_clear(w);
		fl_drepper_wake(w, wakes);
	}
}

/*
 * The owner-word locks, PI and adaptive (adaptive a constant where these
 * inline): free 0 -> our TID in user space, else the backend's lock_pi,
 * where the kernel boosts the owner while we wait, or its adaptive lock,
 * which spins while the owner runs (the slow path counted in *slow).
 */
static inline int fl_owner_mutex_lock(uint32_t *w, uint32_t tid,
				      const int adaptive,
				      const struct timespec *deadline,
				      uint64_t *slow)
{
	if (fl_cas_acquire(w, 0, tid) == 0)
		return 0;
	fl_count(slow);
	return adaptive ? fl_lock_adaptive(w, deadline) :
			  fl_lock_pi(w, deadline);
}

/* Our TID -> 0 in user space, else (waiters queued) the backend's
 * unlock, counted in *slow. */
static inline void fl_owner_mutex_unlock(uint32_t *w, uint32_t tid,
					 const int adaptive, uint64_t *slow)
{
	uint32_t old = tid;

	if (__atomic_compare_exchange_n(w, &old, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return;
	fl_count(slow);
	if (adaptive)
		fl_unlock_adaptive(w);
	else
		fl_unlock_pi(w);
}

static inline int fl_pi_mutex_lock(uint32_t *w, uint32_t tid,
				   const struct timespec *deadline,
				   uint64_t *slow)
{
	return fl_owner_mutex_lock(w, tid, 0, deadline, slow);
}

static inline void fl_pi_mutex_unlock(uint32_t *w, uint32_t tid,
				      uint64_t *slow)
{
	fl_owner_mutex_unlock(w, tid, 0, slow);
}

#endif /* FL_BACKEND_ID */
#endif
