/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libfutexlab-shim.so: the futex system calls of an unmodified program,
 * made through libc's syscall(), carried out by the futexlab module
 * (/dev/futexlab, kmod/uapi/futexlab.h) instead of the kernel's futex.
 * docs/kmod.md, "Unmodified programs: the preload shim", says how to use
 * it and what it cannot catch.
 *
 * The flow of one call:
 *   interpose.c    syscall(): futex, futex2 and futex_waitv calls go on,
 *                  every other number goes to libc's own syscall()
 *   futex_op.c     decode SYS_futex (op, flags, timeout) into an ioctl
 *   futex2.c       decode futex_wait, futex_wake and futex_requeue
 *   waitv.c        decode futex_waitv into FUTEXLAB_IOC_WAITV
 *   timeout.c      a user timespec to the module's absolute deadline
 *   device.c       the one /dev/futexlab of the process and its design
 *   kernel.c       libc's syscall() and faultless reads of user memory
 *   lacking.c      ENOSYS for what the module does not have, said once
 *
 * Inside the shim every function returns a count or 0, or -errno; only
 * syscall() turns that into -1 and errno, as libc does.
 */
#ifndef FUTEXLAB_SHIM_H
#define FUTEXLAB_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* the futex2 calls (Linux 6.7); older headers lack the numbers */
#define SHIM_NR_FUTEX_WAITV	449
#define SHIM_NR_FUTEX_WAKE	454
#define SHIM_NR_FUTEX_WAIT	455
#define SHIM_NR_FUTEX_REQUEUE	456

/*
 * A futex(2) word is a plain u32 with no node word after it: every ioctl
 * names it with FUTEXLAB_F_NODE and node FUTEXLAB_NO_NODE (kmod/uapi), which
 * every design accepts and the numa design spreads over its tables by the
 * word's hash, as the kernel does for a futex without FUTEX2_NUMA.
 */
#define SHIM_PLAIN_WORD		FUTEXLAB_F_NODE
#define SHIM_NO_NODE		FUTEXLAB_NO_NODE

/* one call's six arguments, as the registers carried them */
typedef long shim_args[6];

long shim_futex(const long *a);
long shim_futex2_wait(const long *a);
long shim_futex2_wake(const long *a);
long shim_futex2_requeue(const long *a);
long shim_futex_waitv(const long *a);
/* futex2.c: the futex2 flag checks (0, -EINVAL, or -ENOSYS said once) */
long shim_futex2_check_flags(unsigned int flags);

/* timeout.c: how a call's timespec is read */
enum shim_clock {
	SHIM_RELATIVE_MONOTONIC,	/* FUTEX_WAIT: an interval from now */
	SHIM_ABSOLUTE_MONOTONIC,
	SHIM_ABSOLUTE_REALTIME,		/* converted once, at the call */
};

long shim_deadline(const void *user_ts, enum shim_clock clock,
		   uint64_t *deadline_ns);
/* futex_wait()'s and futex_waitv()'s timeout: absolute on the call's
 * clockid, which must be CLOCK_MONOTONIC or CLOCK_REALTIME (EINVAL) */
long shim_futex2_deadline(const void *user_ts, int clockid,
			  uint64_t *deadline_ns);

/* device.c */
long shim_ioctl(unsigned long cmd, void *arg);

/* kernel.c */
long shim_real_syscall(long number, const long *a);
long shim_copy_from_user(void *dst, const void *user_src, size_t len);
void shim_kernel_after_fork(void);

/* lacking.c: what the module lacks (bit numbers, each said once) */
enum shim_lack {
	SHIM_LACK_FUTEX_OP = 0,		/* + the futex command, 0..31 */
	SHIM_LACK_FUTEX2_FLAGS = 33,	/* FUTEX2_NUMA, FUTEX2_MPOL */
};

long shim_lacking(unsigned int what, const char *name);
void shim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FUTEXLAB_SHIM_H */
