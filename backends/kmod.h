/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backends kmod-global, kmod-private and kmod-numa: the futex operations of
 * the futexlab module (kmod/), ioctls on /dev/futexlab. One header serves
 * the three names; the hash design is chosen with
 *   -DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_GLOBAL    (kmod-global)
 *   -DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_PRIVATE   (kmod-private)
 *   -DFL_KMOD_DESIGN=FUTEXLAB_DESIGN_NUMA      (kmod-numa)
 * The cell process opens /dev/futexlab in fl_backend_setup() and sets the
 * design on that file before any operation (the module fixes the design at
 * the first operation). Every backend uses private keys (mm, address); the
 * numa design puts a futex in the table of the node in the word after it.
 *
 * The descriptor fl_kmod_fd is shared by every object of the binary: it is
 * declared here and defined once, in the kmod-global descriptor object.
 * Return values are the stock futex's: 0 or a count, else -errno (EAGAIN,
 * ETIMEDOUT, EINTR, EFAULT, EINVAL, EDEADLK, EPERM).
 */
#ifndef FUTEXLAB_BACKENDS_KMOD_H
#define FUTEXLAB_BACKENDS_KMOD_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include "backends/backend.h"
#include "kmod/uapi/futexlab.h"

#ifndef FL_KMOD_DESIGN
#error "define FL_KMOD_DESIGN as FUTEXLAB_DESIGN_GLOBAL, _PRIVATE or _NUMA"
#endif

#if FL_KMOD_DESIGN == FUTEXLAB_DESIGN_GLOBAL
#define FL_BACKEND_NAME		"kmod-global"
#define FL_BACKEND_ID		kmod_global
#elif FL_KMOD_DESIGN == FUTEXLAB_DESIGN_PRIVATE
#define FL_BACKEND_NAME		"kmod-private"
#define FL_BACKEND_ID		kmod_private
#elif FL_KMOD_DESIGN == FUTEXLAB_DESIGN_NUMA
#define FL_BACKEND_NAME		"kmod-numa"
#define FL_BACKEND_ID		kmod_numa
#else
#error "unknown FL_KMOD_DESIGN"
#endif
/*
 * The numa design reads a futex's node from the u32 after its word
 * (FUTEXLAB_NO_NODE: the module chooses at first use), as futex2-numa does.
 */
#if FL_KMOD_DESIGN == FUTEXLAB_DESIGN_NUMA
#define FL_WORD_BYTES		8
#define FL_NODE_ANY		FUTEXLAB_NO_NODE
#else
#define FL_WORD_BYTES		4
#endif

#define FL_KMOD_DEV		"/dev/futexlab"

/* The open /dev/futexlab of this cell process, -1 when none. */
extern int fl_kmod_fd;

static inline int fl_kmod_ioctl(unsigned long cmd, void *arg)
{
	int r = ioctl(fl_kmod_fd, cmd, arg);

	return r < 0 ? -errno : r;
}

/* An absolute deadline to ns; -EINVAL for the timespecs futex(2) rejects. */
static inline int fl_kmod_deadline(const struct timespec *ts, __u64 *ns)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return -EINVAL;
	*ns = (__u64)ts->tv_sec * 1000000000u + (__u64)ts->tv_nsec;
	return 0;
}

/** fl_wait_bitset() - sleep while *w == val, woken by a matching bitset */
static inline int fl_wait_bitset(uint32_t *w, uint32_t val,
				 const struct timespec *deadline,
				 uint32_t bitset)
{
	struct futexlab_wait a = {
		.uaddr = (uintptr_t)w,
		.val = val,
		.bitset = bitset,
	};

	if (deadline) {
		int r = fl_kmod_deadline(deadline, &a.deadline_ns);

		if (r)
			return r;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return fl_kmod_ioctl(FUTEXLAB_IOC_WAIT, &a);
}

/** fl_wait() - sleep while *w == val, until an absolute MONOTONIC deadline */
static inline int fl_wait(uint32_t *w, uint32_t val,
			  const struct timespec *deadline)
{
	return fl_wait_bitset(w, val, deadline, FUTEXLAB_BITSET_ANY);
}

static inline int fl_wake_bitset(uint32_t *w, int nr, uint32_t bitset)
{
	struct futexlab_wake a = {
		.uaddr = (uintptr_t)w,
		.nr_wake = (uint32_t)nr,
		.bitset = bitset,
	};

	return fl_kmod_ioctl(FUTEXLAB_IOC_WAKE, &a);
}

/** fl_wake() - wake up to nr waiters; returns how many woke */
static inline int fl_wake(uint32_t *w, int nr)
{
	return fl_wake_bitset(w, nr, FUTEXLAB_BITSET_ANY);
}

/** fl_cmp_requeue() - if *w == val, wake nr_wake and move up to nr_requeue
 * waiters to w2; returns woken + requeued */
static inline int fl_cmp_requeue(uint32_t *w, uint32_t *w2, int nr_wake,
				 int nr_requeue, uint32_t val)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)w,
		.uaddr2 = (uintptr_t)w2,
		.nr_wake = (uint32_t)nr_wake,
		.nr_requeue = (uint32_t)nr_requeue,
		.val = val,
	};

	return fl_kmod_ioctl(FUTEXLAB_IOC_CMP_REQUEUE, &a);
}

/** fl_lock_pi() - take a PI lock (TID | WAITERS encoding) */
static inline int fl_lock_pi(uint32_t *w, const struct timespec *deadline)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w };

	if (deadline) {
		int r = fl_kmod_deadline(deadline, &a.deadline_ns);

		if (r)
			return r;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return fl_kmod_ioctl(FUTEXLAB_IOC_LOCK_PI, &a);
}

static inline int fl_trylock_pi(uint32_t *w)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w };

	return fl_kmod_ioctl(FUTEXLAB_IOC_TRYLOCK_PI, &a);
}

static inline int fl_unlock_pi(uint32_t *w)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w };

	return fl_kmod_ioctl(FUTEXLAB_IOC_UNLOCK_PI, &a);
}

/** fl_wait_requeue_pi() - wait on w for a requeue onto the PI lock w2;
 * returns 0 owning w2 */
static inline int fl_wait_requeue_pi(uint32_t *w, uint32_t val, uint32_t *w2,
				     const struct timespec *deadline)
{
	struct futexlab_wait_requeue_pi a = {
		.uaddr = (uintptr_t)w,
		.uaddr2 = (uintptr_t)w2,
		.val = val,
	};

	if (deadline) {
		int r = fl_kmod_deadline(deadline, &a.deadline_ns);

		if (r)
			return r;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return fl_kmod_ioctl(FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
}

/** fl_cmp_requeue_pi() - take w2 for the top waiter of w if free, else
 * queue it and up to nr_requeue more on w2; returns how many */
static inline int fl_cmp_requeue_pi(uint32_t *w, uint32_t *w2, int nr_requeue,
				    uint32_t val)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)w,
		.uaddr2 = (uintptr_t)w2,
		.nr_wake = 1,
		.nr_requeue = (uint32_t)nr_requeue,
		.val = val,
	};

	return fl_kmod_ioctl(FUTEXLAB_IOC_CMP_REQUEUE_PI, &a);
}

/*
 * futex_waitv on the module: struct fl_waitv is struct futexlab_waitv (the
 * kernel's struct futex_waitv), so the vector goes to the ioctl as it is
 * and the module reads it (EFAULT for a bad one). Keys are private, as for
 * every other operation here; kmod-numa's words carry their node word, so
 * its entries say FUTEXLAB_WAITV_NUMA.
 */
_Static_assert(sizeof(struct fl_waitv) == sizeof(struct futexlab_waitv),
	       "struct fl_waitv is struct futexlab_waitv");
_Static_assert(FL_WAITV_SIZE_U32 == FUTEXLAB_WAITV_SIZE_U32 &&
	       FL_WAITV_PRIVATE == FUTEXLAB_WAITV_PRIVATE &&
	       FL_WAITV_MAX == FUTEXLAB_WAITV_MAX,
	       "the futex2 flags of struct fl_waitv are the module's");
#if FL_KMOD_DESIGN == FUTEXLAB_DESIGN_NUMA
#define FL_WAITV_FLAGS	(FL_WAITV_SIZE_U32 | FL_WAITV_PRIVATE | \
			 FUTEXLAB_WAITV_NUMA)
#else
#define FL_WAITV_FLAGS	(FL_WAITV_SIZE_U32 | FL_WAITV_PRIVATE)
#endif

/** fl_waitv() - sleep while every v[i] holds its value; the woken index */
static inline int fl_waitv(const struct fl_waitv *v, unsigned int n,
			   const struct timespec *deadline)
{
	struct futexlab_waitv_args a = {
		.waiters = (uintptr_t)v,
		.nr = n,
	};

	if (deadline) {
		int r = fl_kmod_deadline(deadline, &a.deadline_ns);

		if (r)
			return r;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return fl_kmod_ioctl(FUTEXLAB_IOC_WAITV, &a);
}

/*
 * The module's adaptive lock (backends/backend.h): the caller already
 * tried 0 -> TID (lock) or TID -> 0 (unlock) in user space. Besides the
 * vocabulary's answers, lock may return -EOWNERDEAD: the owner died with
 * the lock, which the caller now holds (FUTEXLAB_OWNER_DIED in the word).
 */
#define FL_ADAPTIVE_OPS	1

/** fl_lock_adaptive() - spin while the owner runs, else sleep; 0 owning w */
static inline int fl_lock_adaptive(uint32_t *w,
				   const struct timespec *deadline)
{
	struct futexlab_adaptive a = { .uaddr = (uintptr_t)w };

	if (deadline) {
		int r = fl_kmod_deadline(deadline, &a.deadline_ns);

		if (r)
			return r;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return fl_kmod_ioctl(FUTEXLAB_IOC_LOCK_ADAPTIVE, &a);
}

/** fl_unlock_adaptive() - release w (which names us) and wake a sleeper */
static inline int fl_unlock_adaptive(uint32_t *w)
{
	struct futexlab_adaptive a = { .uaddr = (uintptr_t)w };

	return fl_kmod_ioctl(FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &a);
}

#ifdef FL_BACKEND_DESCRIBE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if FL_KMOD_DESIGN == FUTEXLAB_DESIGN_GLOBAL
int fl_kmod_fd = -1;	/* the one definition in the binary */
#define FL_BACKEND_SUMMARY	"futexlab module (/dev/futexlab), one global hash table"
#elif FL_KMOD_DESIGN == FUTEXLAB_DESIGN_PRIVATE
#define FL_BACKEND_SUMMARY	"futexlab module (/dev/futexlab), a hash table per process"
#else
#define FL_BACKEND_SUMMARY	"futexlab module (/dev/futexlab), a hash table per NUMA node"
#endif
#define FL_BACKEND_MEM		FL_MEM_PRIVATE
#define FL_BACKEND_SPINS	0
#define FL_BACKEND_LIBC		FL_LIBC_NONE
#define FL_BACKEND_MODULE	1

static uint32_t fl_backend_caps(void)
{
	uint32_t caps = FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_TIMEOUT |
			FL_CAP_BITSET | FL_CAP_REQUEUE | FL_CAP_PI |
			FL_CAP_REQUEUE_PI | FL_CAP_EINTR | FL_CAP_EFAULT |
			FL_CAP_WAITV | FL_CAP_ADAPTIVE;
#if FL_KMOD_DESIGN == FUTEXLAB_DESIGN_NUMA
	caps |= FL_CAP_NUMA;
#endif
	return caps;
}

static int fl_kmod_open(char *why, size_t len)
{
	int fd = open(FL_KMOD_DEV, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENXIO || errno == ENODEV) {
		snprintf(why, len, FL_KMOD_DEV " missing (load kmod/futexlab.ko)");
		return -ENODEV;
	}
	snprintf(why, len, "cannot open " FL_KMOD_DEV ": %s", strerror(errno));
	return -errno;
}

static int fl_backend_probe(char *why, size_t len)
{
	struct futexlab_design d;
	int fd = fl_kmod_open(why, len);

	if (fd < 0)
		return fd;
	memset(&d, 0, sizeof(d));
	if (ioctl(fd, FUTEXLAB_IOC_GET_DESIGN, &d) < 0 ||
	    d.version != FUTEXLAB_VERSION) {
		snprintf(why, len, FL_KMOD_DEV " does not speak futexlab "
			 "version %d (rebuild and reload the module)",
			 FUTEXLAB_VERSION);
		close(fd);
		return -EPROTO;
	}
	close(fd);
	return 0;
}

/*
 * hash_slots < 0 (or 0): the module's default size. kmod-private: the
 * size of the process's table, a power of two (else EINVAL). kmod-global
 * and kmod-numa: sized by module parameters, so a size is EINVAL.
 */
static int fl_backend_setup(long hash_slots, char *why, size_t len)
{
	struct futexlab_design d;
	int fd;

	memset(&d, 0, sizeof(d));
	d.design = FL_KMOD_DESIGN;
	if (hash_slots > 0) {
		if (FL_KMOD_DESIGN != FUTEXLAB_DESIGN_PRIVATE) {
			snprintf(why, len, FL_BACKEND_NAME " tables are sized "
				 "by module parameters (global_slots, "
				 "numa_slots), not per run");
			return -EINVAL;
		}
		if (hash_slots > 0x7fffffffL ||
		    (hash_slots & (hash_slots - 1))) {
			snprintf(why, len, "hash slots %ld: not a power of two",
				 hash_slots);
			return -EINVAL;
		}
		d.slots = (uint32_t)hash_slots;
	}
	if (fl_kmod_fd >= 0) {
		close(fl_kmod_fd);
		fl_kmod_fd = -1;
	}
	fd = fl_kmod_open(why, len);
	if (fd < 0)
		return fd;
	if (ioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d) < 0) {
		int err = errno;

		snprintf(why, len, "FUTEXLAB_IOC_SET_DESIGN(%s, %u slots): %s",
			 FL_BACKEND_NAME, d.slots, strerror(err));
		close(fd);
		return -err;
	}
	fl_kmod_fd = fd;
	return 0;
}

static void fl_backend_teardown(void)
{
	if (fl_kmod_fd >= 0)
		close(fl_kmod_fd);
	fl_kmod_fd = -1;
}
#endif
#endif
