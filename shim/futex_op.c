// SPDX-License-Identifier: GPL-2.0
/*
 * SYS_futex decoded as the kernel decodes it (kernel/futex/syscalls.c:
 * sys_futex() then do_futex()), in the same order, so a call with two
 * faults fails with the same error:
 *
 *   1. the operations that take a timeout read and check it (EFAULT,
 *      EINVAL); the others take the same argument as a count, val2;
 *   2. FUTEX_CLOCK_REALTIME on any operation but WAIT_BITSET,
 *      WAIT_REQUEUE_PI and LOCK_PI2 is ENOSYS (FUTEX_WAIT included);
 *   3. the operation itself, here an ioctl; the module checks what is
 *      left (alignment, bitset 0, counts, EFAULT on the word) as the
 *      kernel does.
 *
 * FUTEX_PRIVATE_FLAG absent means a shared key (FUTEXLAB_F_SHARED).
 * LOCK_PI's deadline is on CLOCK_REALTIME always; LOCK_PI2 and the waits
 * choose with FUTEX_CLOCK_REALTIME. FUTEX_WAKE_OP, FUTEX_FD and unknown
 * operations are ones the module lacks: ENOSYS, said once.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>

#include <sys/ioctl.h>	/* the uapi header uses _IOWR without it */

#include "kmod/uapi/futexlab.h"
#include "shim/shim.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2		13
#endif

/* one call's arguments, named as futex(2) names them */
struct futex_call {
	uint32_t *uaddr;
	int cmd;
	uint32_t val;
	uint32_t val2;		/* the timeout argument, as a count */
	uint32_t *uaddr2;
	uint32_t val3;
	uint32_t flags;		/* SHIM_PLAIN_WORD, FUTEXLAB_F_SHARED, ..DEADLINE */
	uint64_t deadline_ns;
};

static const char *const cmd_names[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE",
	"FUTEX_CMP_REQUEUE", "FUTEX_WAKE_OP", "FUTEX_LOCK_PI",
	"FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI", "FUTEX_WAIT_BITSET",
	"FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI", "FUTEX_CMP_REQUEUE_PI",
	"FUTEX_LOCK_PI2",
};

static int has_timeout(int cmd)
{
	return cmd == FUTEX_WAIT || cmd == FUTEX_LOCK_PI ||
	       cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_BITSET ||
	       cmd == FUTEX_WAIT_REQUEUE_PI;
}

static enum shim_clock timeout_clock(int cmd, int op)
{
	if (cmd == FUTEX_WAIT)
		return SHIM_RELATIVE_MONOTONIC;
	if (cmd == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME))
		return SHIM_ABSOLUTE_REALTIME;
	return SHIM_ABSOLUTE_MONOTONIC;
}

static long module_wait(const struct futex_call *c, uint32_t bitset)
{
	struct futexlab_wait w = {
		.uaddr = (uintptr_t)c->uaddr,
		.deadline_ns = c->deadline_ns,
		.val = c->val,
		.bitset = bitset,
		.flags = c->flags,
		.node = SHIM_NO_NODE,
	};

	return shim_ioctl(FUTEXLAB_IOC_WAIT, &w);
}

static long module_wake(const struct futex_call *c, uint32_t bitset)
{
	struct futexlab_wake w = {
		.uaddr = (uintptr_t)c->uaddr,
		.nr_wake = c->val,
		.bitset = bitset,
		.flags = c->flags,
		.node = SHIM_NO_NODE,
	};

	return shim_ioctl(FUTEXLAB_IOC_WAKE, &w);
}

static long cmp_requeue(const struct futex_call *c, uint32_t cmpval,
			unsigned long ioc)
{
	struct futexlab_requeue r = {
		.uaddr = (uintptr_t)c->uaddr,
		.uaddr2 = (uintptr_t)c->uaddr2,
		.nr_wake = c->val,
		.nr_requeue = c->val2,
		.val = cmpval,
		.flags = c->flags,
		.node = SHIM_NO_NODE,
		.node2 = SHIM_NO_NODE,
	};

	return shim_ioctl(ioc, &r);
}

/*
 * FUTEX_REQUEUE has no expected value and the module only a compared
 * requeue: compare with the value the word has now, again while it
 * changes under us (the module does nothing when it finds another value).
 * Unlike the kernel, this reads the word: an unreadable one is EFAULT.
 */
static long requeue(const struct futex_call *c)
{
	uint32_t now;
	long r;

	if ((int)c->val < 0 || (int)c->val2 < 0)
		return -EINVAL;
	do {
		r = shim_copy_from_user(&now, c->uaddr, sizeof(now));
		if (r)
			return r;
		r = cmp_requeue(c, now, FUTEXLAB_IOC_CMP_REQUEUE);
	} while (r == -EAGAIN);
	return r;
}

static long pi(const struct futex_call *c, unsigned long ioc)
{
	struct futexlab_pi p = {
		.uaddr = (uintptr_t)c->uaddr,
		.deadline_ns = c->deadline_ns,
		.flags = c->flags,
		.node = SHIM_NO_NODE,
	};

	return shim_ioctl(ioc, &p);
}

static long wait_requeue_pi(const struct futex_call *c)
{
	struct futexlab_wait_requeue_pi w = {
		.uaddr = (uintptr_t)c->uaddr,
		.uaddr2 = (uintptr_t)c->uaddr2,
		.deadline_ns = c->deadline_ns,
		.val = c->val,
		.flags = c->flags,
		.node = SHIM_NO_NODE,
		.node2 = SHIM_NO_NODE,
	};

	return shim_ioctl(FUTEXLAB_IOC_WAIT_REQUEUE_PI, &w);
}

static long dispatch(const struct futex_call *c)
{
	switch (c->cmd) {
	case FUTEX_WAIT:
		return module_wait(c, FUTEXLAB_BITSET_ANY);
	case FUTEX_WAIT_BITSET:
		return module_wait(c, c->val3);
	case FUTEX_WAKE:
		return module_wake(c, FUTEXLAB_BITSET_ANY);
	case FUTEX_WAKE_BITSET:
		return module_wake(c, c->val3);
	case FUTEX_REQUEUE:
		return requeue(c);
	case FUTEX_CMP_REQUEUE:
		return cmp_requeue(c, c->val3, FUTEXLAB_IOC_CMP_REQUEUE);
	case FUTEX_CMP_REQUEUE_PI:
		return cmp_requeue(c, c->val3, FUTEXLAB_IOC_CMP_REQUEUE_PI);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return pi(c, FUTEXLAB_IOC_LOCK_PI);
	case FUTEX_TRYLOCK_PI:
		return pi(c, FUTEXLAB_IOC_TRYLOCK_PI);
	case FUTEX_UNLOCK_PI:
		return pi(c, FUTEXLAB_IOC_UNLOCK_PI);
	case FUTEX_WAIT_REQUEUE_PI:
		return wait_requeue_pi(c);
	}
	if (c->cmd >= 0 && c->cmd < (int)(sizeof(cmd_names) /
					  sizeof(cmd_names[0])))
		return shim_lacking(SHIM_LACK_FUTEX_OP + c->cmd,
				    cmd_names[c->cmd]);
	return shim_lacking(SHIM_LACK_FUTEX_OP + 31, "an unknown futex op");
}

long shim_futex(const long *a)
{
	int op = (int)a[1];
	struct futex_call c = {
		.uaddr = (uint32_t *)a[0],
		.cmd = op & FUTEX_CMD_MASK,
		.val = (uint32_t)a[2],
		.val2 = (uint32_t)a[3],
		.uaddr2 = (uint32_t *)a[4],
		.val3 = (uint32_t)a[5],
		.flags = SHIM_PLAIN_WORD |
			 ((op & FUTEX_PRIVATE_FLAG) ? 0 : FUTEXLAB_F_SHARED),
	};

	if (a[3] && has_timeout(c.cmd)) {
		long r = shim_deadline((const void *)a[3],
				       timeout_clock(c.cmd, op),
				       &c.deadline_ns);

		if (r)
			return r;
		c.flags |= FUTEXLAB_F_DEADLINE;
	}
	if ((op & FUTEX_CLOCK_REALTIME) && c.cmd != FUTEX_WAIT_BITSET &&
	    c.cmd != FUTEX_WAIT_REQUEUE_PI && c.cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	return dispatch(&c);
}
