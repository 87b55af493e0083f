// SPDX-License-Identifier: GPL-2.0
/*
 * The process's connection to the module: one /dev/futexlab descriptor,
 * opened at the first futex call and set to the design the environment
 * names before any operation on it (the module fixes a description's design
 * at its first operation):
 *
 *   FUTEXLAB_DESIGN=global|private|numa   (default global)
 *   FUTEXLAB_SLOTS=N        buckets of the private design's table, a power
 *                           of two (default: the module's private_slots)
 *   FUTEXLAB_SHIM_VERBOSE=1 say which design was set, and at exit how many
 *                           calls went to the module
 *
 * The open is lock-free: threads that race to open each open a descriptor,
 * the first to publish its own wins and the others close theirs, so no lock
 * can be held across a fork(). After fork() the child drops the inherited
 * descriptor and opens its own at its first call: a process's private
 * table is its own, as the 6.16 private futex hash is per mm (shared keys
 * meet in the global table in every design, so parent and child still
 * meet on shared memory). The descriptor is close-on-exec; the program a
 * process executes opens its own through LD_PRELOAD again.
 *
 * When the device cannot be used (no module, a bad design or size) that is
 * said once and every futex call returns ENOSYS, never the stock futex:
 * figures must not come from another implementation than the one named.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kmod/uapi/futexlab.h"
#include "shim/shim.h"

#define SHIM_DEVICE		"/dev/futexlab"
#define FD_UNOPENED		-1
#define FD_UNUSABLE		-2

static _Atomic int device_fd = FD_UNOPENED;
static _Atomic unsigned long routed_calls;
static int verbose;

static const char *const design_names[] = {
	[FUTEXLAB_DESIGN_GLOBAL] = "global",
	[FUTEXLAB_DESIGN_PRIVATE] = "private",
	[FUTEXLAB_DESIGN_NUMA] = "numa",
};

/* The design the environment asks for; -EINVAL (said) when it is bad. */
static int wanted_design(struct futexlab_design *d)
{
	const char *name = getenv("FUTEXLAB_DESIGN");
	const char *slots = getenv("FUTEXLAB_SLOTS");

	memset(d, 0, sizeof(*d));
	d->design = FUTEXLAB_DESIGN_GLOBAL;
	if (name && *name) {
		d->design = 0;
		for (unsigned int i = 1; i < 4; i++)
			if (!strcmp(name, design_names[i]))
				d->design = i;
		if (!d->design) {
			shim_say("FUTEXLAB_DESIGN=%s: not global, private or "
				 "numa", name);
			return -EINVAL;
		}
	}
	if (slots && *slots) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(slots, &end, 10);
		if (errno || *end || n > UINT32_MAX || slots[0] == '-') {
			shim_say("FUTEXLAB_SLOTS=%s: not a number", slots);
			return -EINVAL;
		}
		d->slots = (uint32_t)n;
	}
	return 0;
}

static void report_routed(void)
{
	shim_say("pid %d: %lu futex calls went to the module", (int)getpid(),
		 atomic_load(&routed_calls));
}

/* A new descriptor set to the wanted design, or -errno (said). */
static int open_configured(void)
{
	struct futexlab_design d;
	int fd, r = wanted_design(&d);

	if (r)
		return r;
	fd = open(SHIM_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		shim_say("cannot open %s: %s (load kmod/futexlab.ko)",
			 SHIM_DEVICE, strerror(-r));
		return r;
	}
	if (ioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d) < 0) {
		r = -errno;
		shim_say("%s design %s, %u slots: %s", SHIM_DEVICE,
			 design_names[d.design], d.slots, strerror(-r));
		close(fd);
		return r;
	}
	if (verbose)
		shim_say("pid %d: %s design %s, %u slots per table, %u "
			 "table(s)", (int)getpid(), SHIM_DEVICE,
			 design_names[d.design], d.slots, d.nodes);
	return fd;
}

/* The slow path of device(): errno is the caller's, whatever happens. */
static int device_open(void)
{
	int saved = errno;
	int expected = FD_UNOPENED;
	int fd = open_configured();

	if (fd < 0)
		fd = FD_UNUSABLE;
	if (!atomic_compare_exchange_strong(&device_fd, &expected, fd)) {
		if (fd >= 0)
			close(fd);	/* another thread's came first */
		fd = expected;
	}
	errno = saved;
	return fd;
}

static int device(void)
{
	int fd = atomic_load_explicit(&device_fd, memory_order_acquire);

	return fd == FD_UNOPENED ? device_open() : fd;
}

long shim_ioctl(unsigned long cmd, void *arg)
{
	int fd = device();
	int r;

	if (fd < 0)
		return -ENOSYS;
	if (verbose)
		atomic_fetch_add_explicit(&routed_calls, 1,
					  memory_order_relaxed);
	r = ioctl(fd, cmd, arg);
	return r < 0 ? -errno : r;
}

/* In the child of fork(): the parent's descriptor is not this process's. */
static void after_fork_child(void)
{
	int fd = atomic_exchange(&device_fd, FD_UNOPENED);

	if (fd >= 0)
		close(fd);
	atomic_store(&routed_calls, 0);
	shim_kernel_after_fork();
}

__attribute__((constructor))
static void shim_init(void)
{
	const char *v = getenv("FUTEXLAB_SHIM_VERBOSE");

	verbose = v && *v && strcmp(v, "0");
	pthread_atfork(NULL, NULL, after_fork_child);
	if (verbose)
		atexit(report_routed);
}
