/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend spin: waiters never sleep. fl_wait() spins with the CPU's pause
 * hint while the word still holds val; fl_wake() is a no-op, because a
 * spinner sees the store that changed the word. It shows what sleeping
 * buys and costs. Every spin is bounded: by the caller's deadline, by the
 * repetition's hard deadline (fl_wait_deadline_ns) and by fl_abort_waits,
 * so a spin backend can slow a cell but never live-lock it. When threads
 * outnumber CPUs a spinner burns the owner's time slice: the harness warns.
 */
#ifndef FUTEXLAB_BACKENDS_SPIN_H
#define FUTEXLAB_BACKENDS_SPIN_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "backends/backend.h"
#include "backends/waitv_check.h"
#include "base/clock.h"

#define FL_BACKEND_NAME		"spin"
#define FL_BACKEND_ID		spin
#define FL_WORD_BYTES		4

/* Read the clock only every this many spins: a clock read costs ~20 pauses. */
#define FL_SPIN_CLOCK_EVERY	256

static inline int fl_wait_bitset(uint32_t *w, uint32_t val,
				 const struct timespec *deadline,
				 uint32_t bitset)
{
	uint64_t until = fl_wait_deadline_ns;

	(void)bitset;
	if (deadline && fl_ts_to_ns(deadline) < until)
		until = fl_ts_to_ns(deadline);
	if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != val)
		return -EAGAIN;
	for (unsigned int n = 1;; n++) {
		fl_cpu_relax();
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != val)
			return 0;
		if (n % FL_SPIN_CLOCK_EVERY == 0 &&
		    (__atomic_load_n(&fl_abort_waits, __ATOMIC_RELAXED) ||
		     fl_now_ns() >= until))
			return -ETIMEDOUT;
	}
}

static inline int fl_wait(uint32_t *w, uint32_t val,
			  const struct timespec *deadline)
{
	return fl_wait_bitset(w, val, deadline, ~0u);
}

static inline int fl_wake(uint32_t *w, int nr)
{
	(void)w;
	(void)nr;
	return 0;
}

static inline int fl_wake_bitset(uint32_t *w, int nr, uint32_t bitset)
{
	(void)w;
	(void)nr;
	(void)bitset;
	return 0;
}

static inline int fl_cmp_requeue(uint32_t *w, uint32_t *w2, int nr_wake,
				 int nr_requeue, uint32_t val)
{
	(void)w;
	(void)w2;
	(void)nr_wake;
	(void)nr_requeue;
	(void)val;
	return -ENOSYS;
}

#define FL_WAITV_FLAGS	(FL_WAITV_SIZE_U32 | FL_WAITV_PRIVATE)

/* Spin until one word of the vector no longer holds its value: its index.
 * Checked like futex_waitv(2), so a bad vector fails the same way. */
static inline int fl_waitv(const struct fl_waitv *v, unsigned int n,
			   const struct timespec *deadline)
{
	uint64_t until = fl_wait_deadline_ns;
	int r = fl_waitv_check(v, n);

	if (r)
		return r;
	if (deadline && fl_ts_to_ns(deadline) < until)
		until = fl_ts_to_ns(deadline);
	for (unsigned int i = 0; i < n; i++)
		if (__atomic_load_n((uint32_t *)(uintptr_t)v[i].uaddr,
				    __ATOMIC_ACQUIRE) != v[i].val)
			return -EAGAIN;
	for (unsigned int spins = 1;; spins++) {
		fl_cpu_relax();
		for (unsigned int i = 0; i < n; i++)
			if (__atomic_load_n((uint32_t *)(uintptr_t)v[i].uaddr,
					    __ATOMIC_ACQUIRE) != v[i].val)
				return (int)i;
		if (spins % FL_SPIN_CLOCK_EVERY == 0 &&
		    (__atomic_load_n(&fl_abort_waits, __ATOMIC_RELAXED) ||
		     fl_now_ns() >= until))
			return -ETIMEDOUT;
	}
}

#include "backends/no_pi.h"
#include "backends/no_adaptive.h"

#ifdef FL_BACKEND_DESCRIBE
#include "backends/describe_common.h"

#define FL_BACKEND_SUMMARY	"user-space spinning with pause, bounded; wake is a no-op"
#define FL_BACKEND_MEM		FL_MEM_PRIVATE
#define FL_BACKEND_SPINS	1
#define FL_BACKEND_LIBC		FL_LIBC_NONE
#define FL_BACKEND_MODULE	0

static uint32_t fl_backend_caps(void)
{
	return FL_CAP_WAIT | FL_CAP_TIMEOUT | FL_CAP_WAITV;
}

#define fl_backend_probe	fl_probe_always

#define fl_backend_setup	fl_setup_no_hash

#define fl_backend_teardown	fl_teardown_nothing
#endif
#endif
