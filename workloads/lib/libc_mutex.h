/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C library's own mutexes as lock algorithms (mutex's --algo pthread,
 * pthread-adaptive, pthread-pi), so glibc's locks are measured beside the
 * textbook ones on the same kernel:
 *
 *   pthread           PTHREAD_MUTEX_NORMAL (glibc's default): mutex 3
 *                     behind a function call;
 *   pthread-adaptive  PTHREAD_MUTEX_ADAPTIVE_NP: a bounded spin first, at
 *                     most glibc.pthread.mutex_spin_count (a tunable,
 *                     default 100) trylocks, fewer as the mutex learns;
 *   pthread-pi        PTHREAD_PRIO_INHERIT: the owner's TID and the
 *                     kernel's FUTEX_LOCK_PI on contention.
 *
 * Which backend they run on: glibc calls futex(2) itself, whatever
 * futexlab's backend is. On futex-private they are process-private
 * mutexes (glibc adds FUTEX_PRIVATE_FLAG, the private keys
 * futex-private measures); on futex-shared they are
 * PTHREAD_PROCESS_SHARED mutexes in the backend's MAP_SHARED memory
 * (glibc then uses shared keys, as futex-shared does). Any other backend
 * (futex2, spin, the module's designs) would show the stock futex's
 * figures under its name, so those cells are skipped with that reason.
 *
 * A lock with a deadline is pthread_mutex_clocklock() on
 * CLOCK_MONOTONIC (glibc 2.30+), which takes the same fast path and,
 * for the adaptive kind, the same spin as pthread_mutex_lock(); one
 * without is pthread_mutex_lock() itself.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_LIBC_MUTEX_H
#define FUTEXLAB_WORKLOADS_LIB_LIBC_MUTEX_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"

enum fl_libc_kind { FL_LIBC_NORMAL, FL_LIBC_ADAPTIVE, FL_LIBC_PI };

/* How a skip reason names one of glibc's futex-based objects. */
struct fl_libc_object {
	const char *what;	/* all of them: "glibc's mutexes" */
	const char *one;	/* one: "mutex" */
	const char *shared;	/* how one is made process-shared */
};

/*
 * The process-sharing of glibc's object o on backend b (its descriptor's
 * libc): 0 private (futex-private), 1 shared (futex-shared), or -1 with
 * the reason the cell cannot run.
 */
static inline int fl_libc_pshared(const struct fl_backend *b,
				  const struct fl_libc_object *o, char *why,
				  size_t len)
{
	if (b->libc == FL_LIBC_PRIVATE)
		return 0;
	if (b->libc == FL_LIBC_SHARED)
		return 1;
	snprintf(why, len, "%s sleep in the stock futex(2), not in %s's "
		 "operations: they run on futex-private (a process-private "
		 "%s) and futex-shared (%s)", o->what, b->name, o->one,
		 o->shared);
	return -1;
}

/* A workload's check() for a cell whose algorithm is glibc's object o
 * (libc) or not: 0 if it can run on b, else -1 with the reason. */
static inline int fl_libc_check(int libc, const struct fl_backend *b,
				const struct fl_libc_object *o, char *why,
				size_t len)
{
	return libc && fl_libc_pshared(b, o, why, len) < 0 ? -1 : 0;
}

/* The mutex's process-sharing on backend b (fl_libc_pshared()). */
static inline int fl_libc_mutex_pshared(const struct fl_backend *b,
					char *why, size_t len)
{
	static const struct fl_libc_object mutex = {
		"glibc's mutexes", "mutex", "PTHREAD_PROCESS_SHARED",
	};

	return fl_libc_pshared(b, &mutex, why, len);
}

/* Initialise *m as kind, shared between processes or not. 0, or -1 with
 * the reason. */
static inline int fl_libc_mutex_init(pthread_mutex_t *m,
				     enum fl_libc_kind kind, int pshared,
				     char *why, size_t len)
{
	pthread_mutexattr_t a;
	int err = pthread_mutexattr_init(&a);

	if (!err && kind == FL_LIBC_ADAPTIVE)
		err = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	if (!err && kind == FL_LIBC_PI)
		err = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutexattr_setpshared(&a, pshared ?
						   PTHREAD_PROCESS_SHARED :
						   PTHREAD_PROCESS_PRIVATE);
	if (!err)
		err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	if (err)
		snprintf(why, len, "pthread_mutex_init: %s", strerror(err));
	return err ? -1 : 0;
}

/* 0 with the mutex held, or -ETIMEDOUT (or another -errno); no
 * deadline: pthread_mutex_lock(), as a program locks. */
static inline int fl_libc_mutex_lock(pthread_mutex_t *m,
				     const struct timespec *deadline)
{
	if (!deadline)
		return -pthread_mutex_lock(m);
	return -pthread_mutex_clocklock(m, CLOCK_MONOTONIC, deadline);
}

static inline void fl_libc_mutex_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

#endif
