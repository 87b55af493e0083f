// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's two ways to the kernel itself: libc's syscall() (found with
 * dlsym(RTLD_NEXT), behind this library's own), and reading user memory
 * that may not be mapped without faulting, for the arguments the kernel
 * would have copied in with copy_from_user() (a timespec, a futex_waitv
 * pair) and answered -EFAULT for.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim/shim.h"

typedef long (*syscall_fn)(long, ...);

static _Atomic(syscall_fn) real_syscall;
static _Atomic pid_t self_pid;

/* Resolving twice in a race is harmless: both find the same function. */
static syscall_fn libc_syscall(void)
{
	syscall_fn fn = atomic_load_explicit(&real_syscall,
					     memory_order_acquire);

	if (!fn) {
		fn = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (!fn) {
			shim_say("libc's syscall() not found: %s", dlerror());
			_exit(127);
		}
		atomic_store_explicit(&real_syscall, fn, memory_order_release);
	}
	return fn;
}

long shim_real_syscall(long number, const long *a)
{
	return libc_syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static pid_t my_pid(void)
{
	pid_t pid = atomic_load_explicit(&self_pid, memory_order_relaxed);

	if (!pid) {
		pid = getpid();
		atomic_store_explicit(&self_pid, pid, memory_order_relaxed);
	}
	return pid;
}

/* fork() gives the child another pid (device.c's atfork handler). */
void shim_kernel_after_fork(void)
{
	atomic_store_explicit(&self_pid, 0, memory_order_relaxed);
}

/*
 * process_vm_readv() on this process fails with EFAULT where the kernel's
 * copy_from_user() would, instead of raising SIGSEGV. Where it is refused
 * (a seccomp filter), the memory is read directly: a bad pointer then
 * faults, as docs/kmod.md says.
 */
long shim_copy_from_user(void *dst, const void *user_src, size_t len)
{
	struct iovec local = { .iov_base = dst, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)user_src, .iov_len = len };
	int saved = errno;
	ssize_t n = process_vm_readv(my_pid(), &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EFAULT) {
		errno = saved;
		return -EFAULT;
	}
	errno = saved;
	memcpy(dst, user_src, len);
	return 0;
}
