// SPDX-License-Identifier: GPL-2.0
/*
 * The futex2 calls (Linux 6.7), decoded as kernel/futex/syscalls.c does
 * and in its order:
 *
 *   futex_wake(uaddr, mask, nr, flags)     as FUTEX_WAKE_BITSET, except
 *                                          that nr 0 wakes nobody
 *   futex_wait(uaddr, val, mask, flags, timeout, clockid)
 *                                          as FUTEX_WAIT_BITSET; the
 *                                          timeout is absolute on clockid
 *   futex_requeue(waiters[2], flags, nr_wake, nr_requeue)
 *                                          as FUTEX_CMP_REQUEUE, with
 *                                          waiters[0].val the expected value
 *
 * Flags: FUTEX2_SIZE_U32 (the only size), FUTEX2_PRIVATE; any other bit
 * is EINVAL, except FUTEX2_NUMA and FUTEX2_MPOL (6.16), which the module
 * lacks: ENOSYS where the running kernel knows them, EINVAL where it does
 * not (the kernel itself is asked, on a word of our own).
 */
#include <errno.h>
#include <stdint.h>

#include <sys/ioctl.h>	/* the uapi header uses _IOWR without it */

#include "kmod/uapi/futexlab.h"
#include "shim/shim.h"

#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_SIZE_MASK	0x03
#define FUTEX2_NUMA		0x04
#define FUTEX2_MPOL		0x08
#define FUTEX2_PRIVATE		128
#define FUTEX2_KNOWN		(FUTEX2_SIZE_MASK | FUTEX2_PRIVATE)

/* struct futex_waitv of linux/futex.h */
struct futex2_waiter {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

/*
 * Whether the kernel accepts flags with FUTEX2_NUMA or FUTEX2_MPOL: a
 * futex_wake of nobody (nr 0) on a word pair of our own, which checks the
 * flags and returns 0 without waking anyone.
 */
static int kernel_knows(unsigned int flags)
{
	static uint32_t word[2] = { 0, UINT32_MAX };	/* value, no node */
	const long a[6] = { (long)word, 1, 0, (long)flags, 0, 0 };

	return shim_real_syscall(SHIM_NR_FUTEX_WAKE, a) == 0;
}

/* The flag checks of futex_flags_valid(); 0 or the error the call gets
 * (futex_waitv's entries too: shim/waitv.c). */
long shim_futex2_check_flags(unsigned int flags)
{
	if (flags & (FUTEX2_NUMA | FUTEX2_MPOL)) {
		if (!kernel_knows(flags))
			return -EINVAL;
		return shim_lacking(SHIM_LACK_FUTEX2_FLAGS,
				    "FUTEX2_NUMA or FUTEX2_MPOL");
	}
	if (flags & ~FUTEX2_KNOWN)
		return -EINVAL;
	if ((flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32)
		return -EINVAL;
	return 0;
}

static uint32_t key_flags(unsigned int flags)
{
	uint32_t shared = (flags & FUTEX2_PRIVATE) ? 0 : FUTEXLAB_F_SHARED;

	return SHIM_PLAIN_WORD | shared;
}

long shim_futex2_wake(const long *a)
{
	unsigned long mask = (unsigned long)a[1];
	int nr = (int)a[2];
	unsigned int flags = (unsigned int)a[3];
	long r = shim_futex2_check_flags(flags);
	struct futexlab_wake w = {
		.uaddr = (uintptr_t)a[0],
		.nr_wake = (uint32_t)nr,
		.bitset = (uint32_t)mask,
		.flags = key_flags(flags),
		.node = SHIM_NO_NODE,
	};

	if (r)
		return r;
	if (mask >> 32)
		return -EINVAL;
	/* nr 0 wakes nobody after the kernel's checks of mask and word:
	 * the kernel's own call does exactly that, and nothing else */
	if (nr == 0)
		return shim_real_syscall(SHIM_NR_FUTEX_WAKE, a) < 0 ? -errno
								     : 0;
	return shim_ioctl(FUTEXLAB_IOC_WAKE, &w);
}

long shim_futex2_wait(const long *a)
{
	unsigned long val = (unsigned long)a[1];
	unsigned long mask = (unsigned long)a[2];
	unsigned int flags = (unsigned int)a[3];
	int clockid = (int)a[5];
	uint64_t deadline_ns;
	long r = shim_futex2_check_flags(flags);
	struct futexlab_wait w = {
		.uaddr = (uintptr_t)a[0],
		.val = (uint32_t)val,
		.bitset = (uint32_t)mask,
		.flags = key_flags(flags),
		.node = SHIM_NO_NODE,
	};

	if (r)
		return r;
	if ((val >> 32) || (mask >> 32))
		return -EINVAL;
	if (a[4]) {
		r = shim_futex2_deadline((const void *)a[4], clockid,
					 &deadline_ns);
		if (r)
			return r;
		w.deadline_ns = deadline_ns;
		w.flags |= FUTEXLAB_F_DEADLINE;
	}
	return shim_ioctl(FUTEXLAB_IOC_WAIT, &w);
}

/* One entry of futex_requeue's pair, checked as futex_parse_waitv(). */
static long read_waiter(const struct futex2_waiter *user,
			struct futex2_waiter *w)
{
	long r = shim_copy_from_user(w, user, sizeof(*w));

	if (r)
		return r;
	if (w->reserved)
		return -EINVAL;
	r = shim_futex2_check_flags(w->flags);
	if (r)
		return r;
	return (w->val >> 32) ? -EINVAL : 0;
}

long shim_futex2_requeue(const long *a)
{
	const struct futex2_waiter *user = (const void *)a[0];
	struct futex2_waiter w[2];
	struct futexlab_requeue q;
	long r;

	if ((unsigned int)a[1] || !user)
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		r = read_waiter(&user[i], &w[i]);
		if (r)
			return r;
	}
	/* the kernel wants both flags the same since 6.12.y / 6.19 */
	if (w[0].flags != w[1].flags)
		return -EINVAL;
	q = (struct futexlab_requeue) {
		.uaddr = w[0].uaddr,
		.uaddr2 = w[1].uaddr,
		.nr_wake = (uint32_t)(int)a[2],
		.nr_requeue = (uint32_t)(int)a[3],
		.val = (uint32_t)w[0].val,
		.flags = key_flags(w[0].flags),
		.node = SHIM_NO_NODE,
		.node2 = SHIM_NO_NODE,
	};
	return shim_ioctl(FUTEXLAB_IOC_CMP_REQUEUE, &q);
}
