/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backend contract: one futex operation vocabulary for every workload.
 *
 * Each backend is one header, backends/<name>.h, of static inline
 * operations with the same names (fl_wait, fl_wake, ...). configure.py
 * compiles every workload once per backend with `-include` of that header,
 * so the measured loop calls the operation directly and the compiler
 * inlines it: no function pointer sits in the measured path (the ck/LiTL
 * pattern). The same header, compiled once more with FL_BACKEND_DESCRIBE
 * defined (backends/describe.c), yields the backend's descriptor: the small
 * table used for listing, probing, setup and teardown, never in a loop.
 *
 * Adding a backend:
 *   1. write backends/<name>.h defining FL_BACKEND_NAME, FL_BACKEND_ID,
 *      FL_WORD_BYTES (and FL_NODE_ANY if 8) and every operation below
 *      (return -ENOSYS for what it lacks), plus, under
 *      FL_BACKEND_DESCRIBE, the FL_BACKEND_* facts describe.c reads and
 *      fl_backend_caps(), fl_backend_probe(), fl_backend_setup() and
 *      fl_backend_teardown() (see futex_private.h for a short example);
 *   2. add one entry to BACKENDS in configure.py.
 * Several backend names may share one header with different -D flags
 * (the module's three hash designs do): the entry in BACKENDS says which.
 *
 * Operations (every one returns 0 or a count, or a negative errno; EAGAIN,
 * ETIMEDOUT and EINTR are ordinary results the workloads count):
 *
 *   fl_wait(w, val, deadline)            sleep while *w == val
 *   fl_wait_bitset(w, val, deadline, bitset)
 *   fl_wake(w, nr)                       wake up to nr waiters on w
 *   fl_wake_bitset(w, nr, bitset)
 *   fl_cmp_requeue(w, w2, nr_wake, nr_requeue, val)
 *   fl_lock_pi(w, deadline), fl_trylock_pi(w), fl_unlock_pi(w)
 *   fl_wait_requeue_pi(w, val, w2, deadline)
 *   fl_cmp_requeue_pi(w, w2, nr_requeue, val)
 *   fl_waitv(v, n, deadline)             sleep while every v[i] holds its
 *                                        value; the index of the one woken
 *   fl_lock_adaptive(w, deadline), fl_unlock_adaptive(w)
 *                                        the adaptive lock (below)
 *
 * Deadlines are absolute CLOCK_MONOTONIC times (struct timespec), or NULL
 * for none. fl_lock_pi's deadline is also CLOCK_MONOTONIC, which the stock
 * backends get through FUTEX_LOCK_PI2.
 *
 * The adaptive lock (FL_CAP_ADAPTIVE; the article's "adaptive futexes",
 * docs/adaptive.md) has the PI lock's word: 0 free, else the owner's TID,
 * with FUTEX_WAITERS (bit 31) set by the backend before a contender
 * sleeps. A locker takes 0 -> TID in user space; on contention
 * fl_lock_adaptive(w, deadline) spins while the owner is on a CPU
 * (bounded), sleeps otherwise, and returns 0 holding the lock, or
 * -ETIMEDOUT, -EINTR, -EINVAL. No priority is inherited. An owner
 * releases TID -> 0 in user space, or, when the word holds more than its
 * TID, with fl_unlock_adaptive(w). Only a backend that can see whether a
 * task runs (the module) can have it: the others include
 * backends/no_adaptive.h, whose operations return -ENOSYS.
 */
#ifndef FUTEXLAB_BACKEND_H
#define FUTEXLAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Capabilities a backend declares and a workload may need. */
enum fl_cap {
	FL_CAP_WAIT		= 1u << 0,  /* wait/wake on a 32-bit word */
	FL_CAP_SLEEP		= 1u << 1,  /* waiters sleep (state S), wake counts are exact */
	FL_CAP_TIMEOUT		= 1u << 2,  /* absolute deadlines return -ETIMEDOUT */
	FL_CAP_BITSET		= 1u << 3,  /* wait_bitset/wake_bitset */
	FL_CAP_REQUEUE		= 1u << 4,  /* cmp_requeue */
	FL_CAP_PI		= 1u << 5,  /* lock_pi/trylock_pi/unlock_pi */
	FL_CAP_REQUEUE_PI	= 1u << 6,  /* wait_requeue_pi/cmp_requeue_pi */
	FL_CAP_SHARED		= 1u << 7,  /* word in MAP_SHARED memory, across processes */
	FL_CAP_NUMA		= 1u << 8,  /* the futex hash is per NUMA node */
	FL_CAP_EINTR		= 1u << 9,  /* a signal ends a wait with -EINTR */
	FL_CAP_EFAULT		= 1u << 10, /* a bad address is -EFAULT, not a crash */
	FL_CAP_WAITV		= 1u << 11, /* fl_waitv: wait on a vector of words */
	FL_CAP_ADAPTIVE		= 1u << 12, /* fl_lock_adaptive: spins while the owner runs */
};
#define FL_CAP_COUNT 13

/*
 * One futex of a vectored wait: the layout of the kernel's struct
 * futex_waitv (futex_waitv(2), 5.16+), so the futex2 backend hands the
 * vector to the system call as it is. flags are the futex2 flags: the
 * size (only FL_WAITV_SIZE_U32 is defined) and FL_WAITV_PRIVATE; any other
 * bit, a non-zero reserved field, a value that does not fit 32 bits, a
 * misaligned word, or a count of 0 or above FL_WAITV_MAX is -EINVAL.
 * FL_WAITV_FLAGS (each backend's header) is what a workload should use.
 */
struct fl_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};
#define FL_WAITV_MAX		128
#define FL_WAITV_SIZE_U32	0x02u
#define FL_WAITV_SIZE_MASK	0x03u
#define FL_WAITV_PRIVATE	128u

/* The name of each capability bit, for listings and skip reasons. */
const char *fl_cap_name(unsigned int bit);

/* Fill buf with "wait,sleep,..." for a capability mask. */
void fl_caps_format(uint32_t caps, char *buf, size_t len);

/* Where a cell's futex words must live for this backend. */
enum fl_mem_kind {
	FL_MEM_PRIVATE,		/* MAP_PRIVATE anonymous memory */
	FL_MEM_SHARED,		/* MAP_SHARED anonymous memory (shared keys) */
};

/*
 * Which of glibc's futex-based objects (its mutexes, rwlocks, semaphores,
 * barriers) a backend can stand for: glibc calls futex(2) itself, so only
 * a backend that is the stock futex with glibc's kind of key measures
 * them under its own name.
 */
enum fl_libc_objects {
	FL_LIBC_NONE,		/* they would measure another futex */
	FL_LIBC_PRIVATE,	/* process-private objects: private keys */
	FL_LIBC_SHARED,		/* PTHREAD_PROCESS_SHARED ones: shared keys */
};

/*
 * The descriptor: what `futexlab list` shows and what the harness calls
 * around a cell. Never called from a measured loop.
 *
 * What a workload, the matrix's `host` word or the interposer needs to
 * know of a backend is a field here, never a test of its name:
 * FL_BACKEND_LIBC, FL_BACKEND_MODULE and, for a backend whose words carry
 * a node (FL_WORD_BYTES 8), FL_NODE_ANY come from its header;
 * FL_BACKEND_INTERPOSED from configure.py's INTERPOSE_BACKENDS.
 */
struct fl_backend {
	const char *name;		/* e.g. "futex-private" */
	const char *summary;		/* one line for `futexlab list` */
	enum fl_mem_kind mem;		/* where the futex words go */
	/* a futex's size: 4, or 8 when a node word follows the value, a
	 * u32 that names the NUMA node whose table hashes the futex */
	unsigned int word_bytes;
	/* word_bytes 8: what the node word holds for "the kernel chooses"
	 * (FUTEX_NO_NODE), which a workload's init() writes after each
	 * word it does not place itself (fl_node_any()) */
	uint32_t node_any;
	enum fl_libc_objects libc;	/* glibc's objects it can run */
	int needs_module;		/* its operations are /dev/futexlab's */
	int interposed;			/* libfutexlab-interpose.so has it */
	uint32_t (*caps)(void);		/* capabilities, probed on this machine */
	/* 0 if usable here, else -errno with a reason in why */
	int (*probe)(char *why, size_t len);
	/* per cell process, before any thread starts; knob is backend-defined
	 * (futex-private: private hash slots, kmod-*: table size), 0 = default */
	int (*setup)(long knob, char *why, size_t len);
	void (*teardown)(void);
	/* threads > CPUs is unsafe for a spinning backend: warn */
	int spins;
};

/*
 * The harness's bounds on any wait that user space itself performs (the
 * spin backend): no spin outlives fl_wait_deadline_ns (the repetition's
 * hard deadline) or survives fl_abort_waits being set. Defined in
 * wait_bounds.c; measure/ sets them around each repetition.
 */
extern uint64_t fl_wait_deadline_ns;
extern int fl_abort_waits;	/* read and written with __atomic builtins */

#define FL_CAT2(a, b) a##b
#define FL_CAT(a, b) FL_CAT2(a, b)
#define FL_CAT3(a, b, c) FL_CAT(FL_CAT(a, b), c)
#define FL_STR2(a) #a
#define FL_STR(a) FL_STR2(a)

/* The registry generated by configure.py (build/gen/registry.c). */
extern const struct fl_backend *const fl_backends[];
extern const unsigned int fl_nbackends;

const struct fl_backend *fl_backend_find(const char *name);

#endif
