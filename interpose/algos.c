// SPDX-License-Identifier: GPL-2.0
/*
 * The lock algorithms on one backend: this file is compiled once per
 * backend with the backend's header force-included (configure.py), so the
 * algorithms of workloads/lib/futex_mutex.h inline that backend's futex
 * operations, exactly as the mutex workload's measured loop does. The
 * result is one table, ip_backend_<backend>, that config.c picks from the
 * environment: a lock call pays one indirect call and a switch on the
 * algorithm for that choice (docs/interpose.md measures it).
 */
#include <errno.h>
#include <limits.h>

#include "interpose/interpose.h"
#include "workloads/lib/futex_mutex.h"

/* A wait ended by a signal is looked at again, as a lock never fails so. */
static inline int retry_eintr(int r)
{
	return r == -EINTR;
}

static int lock(uint32_t *w, enum ip_algo algo, uint32_t tid,
		const struct timespec *deadline)
{
	int r;

	switch (algo) {
	case IP_MUTEX3:
		return fl_mutex3_lock(w, deadline, NULL);
	case IP_SPIN_THEN_WAIT:
		return fl_mutex3_spin_lock(w, IP_SPINS, deadline, NULL, NULL);
	default:
		do
			r = fl_owner_mutex_lock(w, tid, algo == IP_ADAPTIVE,
						deadline, NULL);
		while (retry_eintr(r));
		/* the owner died holding it: ours now, as a non-robust
		 * mutex has no other answer to give */
		return r == -EOWNERDEAD ? 0 : r;
	}
}

static int trylock(uint32_t *w, enum ip_algo algo, uint32_t tid)
{
	uint32_t want = algo == IP_MUTEX3 || algo == IP_SPIN_THEN_WAIT ? 1 : tid;

	return fl_cas_acquire(w, 0, want) == 0 ? 0 : -EBUSY;
}

static int unlock(uint32_t *w, enum ip_algo algo, uint32_t tid)
{
	uint32_t old = tid;

	if (algo == IP_MUTEX3 || algo == IP_SPIN_THEN_WAIT) {
		fl_drepper_unlock(w, NULL);
		return 0;
	}
	/* TID -> 0 in user space, else the backend's unlock, which says
	 * EPERM when the caller does not own it */
	if (__atomic_compare_exchange_n(w, &old, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	return algo == IP_ADAPTIVE ? fl_unlock_adaptive(w) : fl_unlock_pi(w);
}

static int wait(uint32_t *w, uint32_t val, const struct timespec *deadline)
{
	return fl_wait(w, val, deadline);
}

static int wake(uint32_t *w, int nr)
{
	return fl_wake(w, nr);
}

#ifdef FL_KMOD_DESIGN
#define IP_DEVICE	1
#define IP_DESIGN	FL_KMOD_DESIGN
#else
#define IP_DEVICE	0
#define IP_DESIGN	0
#endif

__attribute__((visibility("hidden")))
const struct ip_backend FL_CAT(ip_backend_, FL_BACKEND_ID) = {
	.name = FL_BACKEND_NAME,
	.needs_device = IP_DEVICE,
	.design = IP_DESIGN,
	.has_adaptive = IP_DEVICE,	/* only the module has one */
	.lock = lock,
	.trylock = trylock,
	.unlock = unlock,
	.wait = wait,
	.wake = wake,
};
