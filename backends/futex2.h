/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend futex2 (and futex2-numa): the 6.7+ syscalls futex_wait(2),
 * futex_wake(2) and futex_requeue(2), with an explicit size flag
 * (FUTEX2_SIZE_U32) and FUTEX2_PRIVATE. Built with FL_FUTEX2_NUMA, the
 * same calls carry FUTEX2_NUMA (6.16+): the word is then followed by a
 * 32-bit node number, and the kernel hashes the futex in that node's table
 * (FUTEX_NO_NODE, ~0, lets the kernel fill in the waiter's node).
 * futex2 has no PI operations: those capabilities are absent.
 */
#ifndef FUTEXLAB_BACKENDS_FUTEX2_H
#define FUTEXLAB_BACKENDS_FUTEX2_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"

/* Older uapi headers (Debian 12 ships 6.1's) lack the futex2 numbers. */
#define FL_NR_futex_waitv	449
#define FL_NR_futex_wake	454
#define FL_NR_futex_wait	455
#define FL_NR_futex_requeue	456
#define FL_FUTEX2_SIZE_U32	0x02
#define FL_FUTEX2_FLAG_NUMA	0x04
#define FL_FUTEX2_PRIVATE	128
#define FL_FUTEX_NO_NODE	0xffffffffu
#define FL_FUTEX2_MASK_ANY	0xfffffffful	/* must fit the size */

#ifdef FL_FUTEX2_NUMA
#define FL_BACKEND_NAME		"futex2-numa"
#define FL_BACKEND_ID		futex2_numa
#define FL_WORD_BYTES		8	/* value, then the node number */
#define FL_NODE_ANY		FL_FUTEX_NO_NODE
#define FL_F2_FLAGS	(FL_FUTEX2_SIZE_U32 | FL_FUTEX2_PRIVATE | FL_FUTEX2_FLAG_NUMA)
#else
#define FL_BACKEND_NAME		"futex2"
#define FL_BACKEND_ID		futex2
#define FL_WORD_BYTES		4
#define FL_F2_FLAGS	(FL_FUTEX2_SIZE_U32 | FL_FUTEX2_PRIVATE)
#endif

static inline int fl_f2_ret(long r)
{
	return r < 0 ? -errno : (int)r;
}

static inline int fl_wait_bitset(uint32_t *w, uint32_t val,
				 const struct timespec *deadline,
				 uint32_t bitset)
{
	return fl_f2_ret(syscall(FL_NR_futex_wait, w, (unsigned long)val,
				 (unsigned long)bitset, FL_F2_FLAGS, deadline,
				 CLOCK_MONOTONIC));
}

static inline int fl_wait(uint32_t *w, uint32_t val,
			  const struct timespec *deadline)
{
	return fl_f2_ret(syscall(FL_NR_futex_wait, w, (unsigned long)val,
				 FL_FUTEX2_MASK_ANY, FL_F2_FLAGS, deadline,
				 CLOCK_MONOTONIC));
}

static inline int fl_wake_bitset(uint32_t *w, int nr, uint32_t bitset)
{
	return fl_f2_ret(syscall(FL_NR_futex_wake, w, (unsigned long)bitset,
				 nr, FL_F2_FLAGS));
}

static inline int fl_wake(uint32_t *w, int nr)
{
	return fl_f2_ret(syscall(FL_NR_futex_wake, w, FL_FUTEX2_MASK_ANY, nr,
				 FL_F2_FLAGS));
}

static inline int fl_cmp_requeue(uint32_t *w, uint32_t *w2, int nr_wake,
				 int nr_requeue, uint32_t val)
{
	/* waiters[0] is compared against its val; waiters[1] is the target */
	struct futex_waitv pair[2] = {
		{ .val = val, .uaddr = (uintptr_t)w, .flags = FL_F2_FLAGS },
		{ .val = 0, .uaddr = (uintptr_t)w2, .flags = FL_F2_FLAGS },
	};

	return fl_f2_ret(syscall(FL_NR_futex_requeue, pair, 0, nr_wake,
				 nr_requeue));
}

#ifdef FL_FUTEX2_NUMA
/* a NUMA futex is two words (value, node): not a futex_waitv entry */
#include "backends/no_waitv.h"
#else
#define FL_WAITV_FLAGS	(FL_WAITV_SIZE_U32 | FL_WAITV_PRIVATE)

/* struct fl_waitv is struct futex_waitv: the vector goes as it is. */
static inline int fl_waitv(const struct fl_waitv *v, unsigned int n,
			   const struct timespec *deadline)
{
	return fl_f2_ret(syscall(FL_NR_futex_waitv, v, n, 0, deadline,
				 CLOCK_MONOTONIC));
}
#endif

#include "backends/no_pi.h"
#include "backends/no_adaptive.h"

#ifdef FL_BACKEND_DESCRIBE
#include "backends/kernel_probe.h"
#include "backends/describe_common.h"

#ifdef FL_FUTEX2_NUMA
#define FL_BACKEND_SUMMARY	"futex2 syscalls with FUTEX2_NUMA (6.16+): per-node hash"
#else
#define FL_BACKEND_SUMMARY	"futex2 syscalls (6.7+): futex_wait/futex_wake/futex_requeue"
#endif
#define FL_BACKEND_MEM		FL_MEM_PRIVATE
#define FL_BACKEND_SPINS	0
#define FL_BACKEND_LIBC		FL_LIBC_NONE
#define FL_BACKEND_MODULE	0

static uint32_t fl_backend_caps(void)
{
	uint32_t caps = FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_TIMEOUT |
			FL_CAP_BITSET | FL_CAP_REQUEUE | FL_CAP_EINTR |
			FL_CAP_EFAULT;
#ifdef FL_FUTEX2_NUMA
	caps |= FL_CAP_NUMA;
#else
	caps |= FL_CAP_WAITV;
#endif
	return caps;
}

static int fl_backend_probe(char *why, size_t len)
{
	if (!fl_probe_futex2()) {
		snprintf(why, len, "kernel lacks the futex2 syscalls (6.7+)");
		return -ENOSYS;
	}
#ifdef FL_FUTEX2_NUMA
	if (!fl_probe_futex2_numa()) {
		snprintf(why, len, "kernel lacks FUTEX2_NUMA (6.16+)");
		return -EINVAL;
	}
#endif
	return 0;
}

static int fl_backend_setup(long hash_slots, char *why, size_t len)
{
	if (hash_slots < 0)
		return 0;
	return fl_probe_set_hash_slots(hash_slots, why, len);
}

#define fl_backend_teardown	fl_teardown_nothing
#endif
#endif
