// SPDX-License-Identifier: GPL-2.0
/*
 * futex_waitv (449), the vectored wait of Wine's and Proton's fsync:
 *
 *   futex_waitv(waiters, nr_futexes, flags, timeout, clockid)
 *
 * decoded as kernel/futex/syscalls.c does, in its order: flags 0 and
 * 1..128 entries with a vector (EINVAL); the timeout, absolute on
 * CLOCK_MONOTONIC or CLOCK_REALTIME (EINVAL for another clock, EFAULT,
 * EINVAL for a bad timespec); then each entry read (EFAULT) and checked
 * as futex_parse_waitv() does (reserved 0, the futex2 flags, a value of
 * 32 bits: EINVAL; FUTEX2_NUMA and FUTEX2_MPOL as for futex_wait). The
 * vector goes to FUTEXLAB_IOC_WAITV as read: struct futexlab_waitv is
 * struct futex_waitv, and its entries are plain u32 words (no
 * FUTEXLAB_WAITV_NUMA), as futex(2) words are here. The answer is the
 * index of the futex that woke the caller.
 */
#include <errno.h>
#include <stdint.h>

#include <sys/ioctl.h>	/* the uapi header uses _IOWR without it */

#include "kmod/uapi/futexlab.h"
#include "shim/shim.h"

/* Read and check the @nr entries at @user into @v. */
static long read_vector(const struct futexlab_waitv *user, unsigned int nr,
			struct futexlab_waitv *v)
{
	for (unsigned int i = 0; i < nr; i++) {
		long r = shim_copy_from_user(&v[i], &user[i], sizeof(v[i]));

		if (r)
			return r;
		if (v[i].reserved)
			return -EINVAL;
		r = shim_futex2_check_flags(v[i].flags);
		if (r)
			return r;
		if (v[i].val >> 32)
			return -EINVAL;
	}
	return 0;
}

long shim_futex_waitv(const long *a)
{
	const struct futexlab_waitv *user = (const void *)a[0];
	unsigned int nr = (unsigned int)a[1];
	int clockid = (int)a[4];
	struct futexlab_waitv v[FUTEXLAB_WAITV_MAX];
	struct futexlab_waitv_args w = { .nr = nr };
	uint64_t deadline_ns;
	long r;

	if ((unsigned int)a[2])
		return -EINVAL;
	if (!nr || nr > FUTEXLAB_WAITV_MAX || !user)
		return -EINVAL;
	if (a[3]) {
		r = shim_futex2_deadline((const void *)a[3], clockid,
					 &deadline_ns);
		if (r)
			return r;
		w.deadline_ns = deadline_ns;
		w.flags |= FUTEXLAB_F_DEADLINE;
	}
	r = read_vector(user, nr, v);
	if (r)
		return r;
	w.waiters = (uintptr_t)v;
	return shim_ioctl(FUTEXLAB_IOC_WAITV, &w);
}
