// SPDX-License-Identifier: GPL-2.0
/*
 * The interposer: LD_PRELOAD puts this syscall() before libc's, so every
 * call a program makes through libc's syscall() passes here first. The
 * futex calls go to the module; every other number goes on to libc's own
 * syscall() with its arguments untouched.
 *
 * A program's own inline system calls, and libc's (glibc's pthread
 * mutexes and condition variables use those), never come here: see
 * docs/kmod.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "shim/shim.h"

/* Six arguments, whatever the caller passed: libc's syscall() reads six
 * registers too, and the kernel ignores the ones a call does not have. */
__attribute__((visibility("default")))
long syscall(long number, ...)
{
	shim_args a;
	va_list ap;
	long r;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	switch (number) {
	case SYS_futex:
		r = shim_futex(a);
		break;
	case SHIM_NR_FUTEX_WAIT:
		r = shim_futex2_wait(a);
		break;
	case SHIM_NR_FUTEX_WAKE:
		r = shim_futex2_wake(a);
		break;
	case SHIM_NR_FUTEX_REQUEUE:
		r = shim_futex2_requeue(a);
		break;
	case SHIM_NR_FUTEX_WAITV:
		r = shim_futex_waitv(a);
		break;
	default:
		/* libc's syscall() sets errno itself */
		return shim_real_syscall(number, a);
	}
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
